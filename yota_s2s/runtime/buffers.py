"""Runtime helpers of the buffered form (``--buffers``, ``codegen.buffered``): the buffers an instance keeps.

Like the other runtime modules: each ``_name`` is copied as source into the generated modules that
use it, with ``xp`` renamed to the target's array module; generated code never imports this module.
``_shape_key`` tells which buffers a call may reuse, ``_detached`` copies an argument that is one of
them, ``_kept`` records a first call's arrays as the buffers (arrays of the same shape and dtype
whose lives do not overlap share one), ``_filled`` refills one.
"""

import numpy as xp


def _shape_key(*args):
    """What fixes the shapes of the intermediate arrays: each array's shape and dtype, each
    integer's value (it may be a size), each other number's type; lists, tuples, dicts and objects
    by their items."""
    return tuple((a.shape, a.dtype) if type(a) is xp.ndarray else _value_key(a) for a in args)


def _value_key(a):
    if isinstance(a, xp.ndarray):
        return (type(a), a.shape, a.dtype)
    if isinstance(a, bool | int | str | None):
        return (type(a), a)
    if isinstance(a, float | complex | xp.generic):
        return type(a)
    if isinstance(a, list | tuple):
        return (type(a), _shape_key(*a))
    if isinstance(a, dict):
        return (dict, tuple(a), _shape_key(*a.values()))
    fields = vars(a)
    return (type(a), tuple(fields), _shape_key(*fields.values()))


def _detached(owners, *args):
    """The arguments, each one that is a buffer (or a view of one: ``owners`` holds the buffers'
    ids) copied: the buffers are written before the arguments are read."""
    return tuple(xp.copy(a) if id(a) in owners or id(getattr(a, "base", None)) in owners else a for a in args)


def _kept(lives, *results):
    """The buffers a first call leaves, and their ids: its arrays (None for a number, computed at
    every call).  ``lives[k]`` is (the statement computing result k, the last statement reading it):
    a result takes the array of an earlier one of the same shape and dtype whose life has ended."""
    buffers, ended = [], []  # ended: (the last statement reading it, an array)
    for (start, end), r in zip(lives, results):
        if type(r) is not xp.ndarray:
            buffers.append(None)
            continue
        for i, (last, b) in enumerate(ended):
            if last < start and b.shape == r.shape and b.dtype == r.dtype:
                r = ended.pop(i)[1]
                break
        buffers.append(r)
        ended.append((end, r))
    return buffers, {id(b) for b in buffers if b is not None}


def _filled(buffer, value):
    """``buffer`` set to ``value`` (broadcast), as ``xp.full_like`` does it, into a buffer."""
    xp.copyto(buffer, value, casting="unsafe")
    return buffer
