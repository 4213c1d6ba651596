"""Binomial checkpointing of loops (``--checkpoint S``): which loops are written with at most ``S``
snapshots of their carried state and the revolve schedule (``runtime/checkpoint.py``), in place of
a stack that grows by one record per step.

A loop is checkpointed when it is a ``for`` loop of the function's own level (not inside another
loop or a branch: an inner loop saves per step as before, within the one outer step being
reversed, which is what the schedule re-runs) that saves something for its backward loop and has
no early exit: its trip count is known at its entry (``range(...)``), so the schedule is computed
there, once.  A ``while`` loop, and a ``for`` loop that ``break``s or ``return``s, learn their trip
count only at their end: they keep their stack.  The forward loop pushes each step's record and
drops it (``_ck_drop``) unless it is the last one; the backward loop runs the steps again from a
snapshot when the record it needs is not on the stack (``codegen.flow.FlowWriter.replay``).

    >>> with snapshots(10):
    ...     chosen(top=True, prim="for", early=False, saves=True)
    10
    >>> chosen(top=True, prim="for", early=False, saves=True)  # without the flag
    0
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: ``--checkpoint S``: the number of snapshots a checkpointed loop keeps (0: none, every step pushed).
SNAPSHOTS: ContextVar[int] = ContextVar("snapshots", default=0)


@contextmanager
def snapshots(count: int) -> Iterator[None]:
    """Differentiate with ``--checkpoint count`` within the block."""
    token = SNAPSHOTS.set(count)
    try:
        yield
    finally:
        SNAPSHOTS.reset(token)


def chosen(top: bool, prim: str, early: bool, saves: bool) -> int:
    """The snapshots of a loop (0: not checkpointed): a ``for`` loop of the function's own level,
    with no early exit, that saves something for its backward loop."""
    count = SNAPSHOTS.get()
    return count if count > 0 and top and prim == "for" and not early and saves else 0
