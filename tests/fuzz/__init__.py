"""A program fuzzer for yota-s2s (issue 23: never silently wrong).

``gen`` writes random valid functions in the supported subset (expression DAGs over the rule
library with shared subexpressions and broadcasting, reductions, indexing, helpers calling
helpers, loops with carried values and ``break``/``continue``, value-dependent branches, local
arrays written by index, dataclass parameters).  ``oracle`` generates each one's gradient in
every form (default, ``--no-value``, ``--buffers``) in-process and checks it: the value against
the function's, the gradient against careful finite differences, the inputs unchanged, the same
answer on non-contiguous inputs, and edge points (zeros, ties, integer-valued floats, float32,
0-d and empty arrays) where the function is smooth there.  A refusal (a ``UserError`` with a
``YSnnn`` code) is counted, never a failure; an internal error, a hang, a wrong value or a wrong
gradient is a failure.  ``shrink`` reduces a failing program to a minimal one, and
``regressions`` holds every failure found, shrunk (tests/test_fuzz.py runs them).

Long mode: ``YOTA_FUZZ_N=2000 YOTA_FUZZ_SEED=7 python -m pytest -m fuzz tests/test_fuzz.py``,
or ``python -m tests.fuzz.run --n 2000 --seed 7`` for a report of every failure class, shrunk.
"""
