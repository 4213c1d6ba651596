"""Linear algebra and reductions: call templates and shapes."""

SPECS: dict = {}
METHODS: dict = {}
DOMAIN: dict = {}
