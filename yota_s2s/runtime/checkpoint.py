"""Binomial checkpointing of a loop (``--checkpoint S``): Griewank and Walther's revolve schedule,
computed once the trip count is known at the loop's entry (a ``for`` over ``range``).

The forward loop keeps at most ``S`` snapshots of its carried state, taken where the schedule says
(``_ck_save``), and pushes only its last step's record; the backward loop asks before each step
(``_ck_replay``) whether that step's record is on the stack, and if not, from which snapshot to run
which steps again (the last of them recorded, the snapshots the schedule takes on the way saved).
The number of steps run, first sweep included, is the binomial optimum
``r * T - C(S + r, r - 1) + T`` (``_ck_cost``), for the least ``r`` with ``C(S + r, S) >= T``.

    >>> ck = _ck_start(range(10), 3)
    >>> sorted(ck["save"]), _ck_cost(10, 3)  # the first sweep's snapshots; steps run in all
    ([0, 4, 7], 25)
"""


def _ck_cost(steps, snapshots):
    """The least number of steps run to reverse ``steps`` steps with ``snapshots`` snapshots (the
    first holding the initial state): each step's recorded run included."""
    if steps <= 1:
        return steps
    if snapshots <= 1:
        return steps * (steps + 1) // 2
    r = 0
    while _ck_binomial(snapshots + r, snapshots) < steps:
        r += 1
    return r * steps - _ck_binomial(snapshots + r, r - 1) + steps


def _ck_binomial(n, k):
    """``n`` choose ``k`` (the generated module imports no ``math``)."""
    out = 1
    for j in range(min(k, n - k)):
        out = out * (n - j) // (j + 1)
    return out


def _ck_split(steps, snapshots):
    """How many steps to run before the next snapshot: the least total cost (it is convex in the
    split, so a bisection on its increments finds it)."""
    lo, hi = 1, steps - 1
    while lo < hi:
        m = (lo + hi) // 2
        here = m + _ck_cost(steps - m, snapshots - 1) + _ck_cost(m, snapshots)
        there = m + 1 + _ck_cost(steps - m - 1, snapshots - 1) + _ck_cost(m + 1, snapshots)
        if there < here:
            lo = m + 1
        else:
            hi = m
    return lo


def _ck_actions(lo, hi, snapshots):
    """The schedule that reverses steps ``lo`` to ``hi - 1``, the state at ``lo`` being the current
    one and in a snapshot: ``("run", p)`` runs step ``p``; ``("snap", p)`` saves the state before
    step ``p`` (the next one run); ``("back", p)`` reverses step ``p`` (its record is the last one
    run); ``("restore", p)`` makes the snapshot of the state at ``p`` current again (kept);
    ``("free", p)`` drops it."""
    if hi - lo == 1:
        yield ("run", lo)
        yield ("back", lo)
        return
    if snapshots <= 1:  # no room for another snapshot: run again from lo for each step
        for p in range(hi - 1, lo - 1, -1):
            if p < hi - 1:
                yield ("restore", lo)
            for q in range(lo, p + 1):
                yield ("run", q)
            yield ("back", p)
        return
    m = _ck_split(hi - lo, snapshots)
    for q in range(lo, lo + m):
        yield ("run", q)
    yield ("snap", lo + m)
    yield from _ck_actions(lo + m, hi, snapshots - 1)
    yield ("free", lo + m)
    yield ("restore", lo)
    yield from _ck_actions(lo, lo + m, snapshots)


def _ck_start(steps, snapshots):
    """The checkpoints of a loop over ``steps`` (a range) with at most ``snapshots`` snapshots: its
    schedule, and the positions whose state the first sweep saves."""
    n = len(steps)
    ck = {"steps": steps, "snaps": {}, "save": set(), "last": n - 1, "first": True}
    ck["actions"] = _ck_actions(0, n, max(int(snapshots), 1)) if n else iter(())
    ck["save"].add(0)
    for kind, p in ck["actions"]:  # the first sweep: runs to the end, snapshots on the way
        if kind == "back":
            break
        if kind == "snap":
            ck["save"].add(p)
    return ck


def _ck_save(ck, i, state, written=()):
    """Before step ``i`` runs: keep a snapshot of the carried ``state`` if the schedule says so: the
    values themselves, but a copy of those the loop writes into in place (positions ``written``)."""
    p = ck["steps"].index(i)
    if p in ck["save"]:
        ck["save"].discard(p)
        ck["snaps"][p] = _ck_copied(state, written)


def _ck_copied(state, written):
    """``state`` with a copy of the values at positions ``written``: the tuple itself when there are
    none.  (Not ``tuple()`` of a generator: it makes a tuple of ten and shrinks it, and each one
    left the interpreter a free one-element tuple, 1.2 states of 10^4 numbers over T = 10,000 steps
    in ``tracemalloc``'s peak.)"""
    if not written:
        return state
    return tuple([v.copy() if n in written and hasattr(v, "copy") else v for n, v in enumerate(state)])


def _ck_drop(ck, i):
    """After step ``i`` runs: its record is dropped (popped) unless the backward loop reads it next."""
    return ck["steps"].index(i) != ck["last"]


def _ck_replay(ck, i, written=()):
    """Before the backward step ``i``: the steps to run again (the last one, ``i``, recorded), none
    when its record is on the stack; the state they start from is then ``_ck_restored(ck)`` (a copy
    of the values the loop writes into in place, positions ``written``)."""
    if ck["first"]:
        ck["first"] = False
        return ck["steps"][0:0]
    first = last = None
    for kind, p in ck["actions"]:
        if kind == "back":
            break
        if kind == "restore":
            ck["state"] = _ck_copied(ck["snaps"][p], written)
        elif kind == "free":
            del ck["snaps"][p]
        elif kind == "snap":
            ck["save"].add(p)
        else:  # the steps run again follow each other: a range, not a list as long as they are
            first = p if first is None else first
            last = p
    ck["last"] = ck["steps"].index(i)
    return ck["steps"][first : last + 1]


def _ck_restored(ck):
    """The state the steps ``_ck_replay`` gave start from (handed over: the checkpoints keep no
    reference to it)."""
    return ck.pop("state")
