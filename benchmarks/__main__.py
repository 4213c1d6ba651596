"""``python -m benchmarks``: run the benchmark (options: ``--help``)."""

import sys

from .run import main

sys.exit(main())
