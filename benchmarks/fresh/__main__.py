"""``python -m benchmarks.fresh``: the measurement (options: ``--help``)."""

import sys

from .run import main

sys.exit(main())
