"""Shape and indexing primitives: call templates and shapes."""

SPECS: dict = {}
METHODS: dict = {}
DOMAIN: dict = {}
