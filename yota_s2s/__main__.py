"""``python -m yota_s2s``: the same as the ``yota-s2s`` command."""

import sys

from .cli import main

sys.exit(main())
