"""Helpers of ``jac_NAME`` with ``--sparse`` (``codegen.sparse``): the sparsity pattern of the
Jacobian, propagated through the function's primitives; the coloring of its columns; and the
decompression of the compressed Jacobian ``J @ S`` into a ``scipy.sparse.csr_array``.

A *pattern* is a boolean ``csr_array`` of shape ``(np.size(v), N)`` for a value ``v`` of the
function, ``N`` the number of columns of the Jacobian (the sizes of the ``--wrt`` parameters
together): row ``i`` holds the columns that element ``i`` of ``v`` may depend on (``v.flat[i]``,
C order); ``None`` for a value that depends on none (a constant, a shape, a comparison).  The
patterns are sound: every entry that can be nonzero for these shapes and this data is in it.

Elements move (``x[1:-1]``, ``np.roll``, ``np.concatenate``, ``x[I]``) by the same expression
evaluated on the arrays of the elements' numbers (``_sp_ids``), so that every indexing form the
function can write is read as NumPy reads it.
"""

import numpy as xp
from scipy import sparse

from .coloring import _sp_blocks, _sp_clone  # for direct calls; modules copy them


def _sp_input(x, offset, total):
    """The pattern of a ``--wrt`` parameter ``x`` whose columns start at ``offset``: element ``i``
    depends on column ``offset + i`` alone."""
    n = xp.size(x)
    eye = (xp.ones(n, dtype=bool), xp.arange(offset, offset + n), xp.arange(n + 1))
    return sparse.csr_array(eye, shape=(n, total))


def _sp_flat(v, p):
    """The pattern ``p`` of ``v`` as one matrix: a list's (a list of its items' patterns, the
    items of one shape) stacked item after item, as ``np.array(v)`` lays them out."""
    if not isinstance(p, list):
        return p
    flat = [_sp_flat(item, q) for item, q in zip(v, p, strict=True)]
    total = next((q.shape[1] for q in flat if q is not None), None)
    if total is None:
        return None
    parts = [q if q is not None else sparse.csr_array((xp.size(item), total), dtype=bool) for item, q in zip(v, flat)]
    return sparse.vstack(parts, format="csr")


def _sp_append(items, p, q):
    """The pattern of ``items + [v]``: a list's (``p``, None for a list of numbers) with ``v``'s."""
    return (list(p) if isinstance(p, list) else [None] * len(items)) + [q]


def _sp_rows(p, ids):
    """The rows ``ids`` (an integer array of any shape, read in C order) of the pattern ``p``."""
    if p is None:
        return None
    return p[xp.asarray(ids).reshape(-1)]


def _sp_ids(values, patterns):
    """The elements' numbers of each of ``values`` (arrays of their shapes, numbered one after the
    other from 1) and the patterns stacked in that order after an empty row 0: ``(ids, stacked)``
    (``stacked`` None where no pattern is given).  A primitive that writes zeros (``np.pad``,
    ``np.tril``) writes the number 0 there, whose row depends on nothing."""
    ids, start = [], 1
    patterns = [_sp_flat(v, p) for v, p in zip(values, patterns, strict=True)]
    total = next((p.shape[1] for p in patterns if p is not None), None)
    parts = [sparse.csr_array((1, total), dtype=bool)] if total is not None else []
    for v, p in zip(values, patterns, strict=True):
        n = xp.size(v)
        ids.append(xp.arange(start, start + n).reshape(xp.shape(v)))
        start += n
        if total is not None:
            parts.append(p if p is not None else sparse.csr_array((n, total), dtype=bool))
    return ids, (sparse.vstack(parts, format="csr") if parts else None)


def _sp_elementwise(out, values, patterns):
    """An elementwise primitive (broadcasting its operands): element ``i`` of ``out`` depends on
    what the elements of the operands broadcast to ``i`` depend on."""
    found = None
    shape = xp.shape(out)
    for v, p in zip(values, patterns, strict=True):
        p = _sp_flat(v, p)
        if p is None:
            continue
        if xp.shape(v) != shape:
            p = p[xp.broadcast_to(xp.arange(xp.size(v)).reshape(xp.shape(v)), shape).reshape(-1)]
        found = p if found is None else found + p
    return found


def _sp_reduce(out, x, p, axis=None, keepdims=False, along=False):
    """A reduction of ``x`` over ``axis`` (``np.sum``, ``np.max``, ...): each element of ``out``
    depends on the elements it reduces; ``along`` (``np.cumsum``, ``np.sort``): on every element
    of its line along ``axis``."""
    p = _sp_flat(x, p)
    if p is None:
        return None
    ids = xp.arange(xp.size(x)).reshape(xp.shape(x))
    ndim = ids.ndim
    if ndim == 0:
        return p
    axes = tuple(range(ndim)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    axes = tuple(a % ndim for a in axes)
    kept = [a for a in range(ndim) if a not in axes]
    lines = xp.transpose(ids, kept + list(axes)).reshape(_sp_count(ids, kept), -1)
    rows = xp.repeat(xp.arange(len(lines)), lines.shape[1])
    gather = sparse.csr_array(
        (xp.ones(rows.size, dtype=bool), (rows, lines.reshape(-1))), shape=(len(lines), xp.size(x))
    )
    reduced = gather @ p
    if not along:
        return reduced if reduced.shape[0] == xp.size(out) else _sp_dense(out, [p])
    # every element of a line depends on the whole line: the line's row, for each of its elements
    per_line = xp.empty(xp.size(x), dtype=xp.int64)
    per_line[lines.reshape(-1)] = rows
    return reduced[per_line] if xp.size(out) == xp.size(x) else _sp_dense(out, [p])


def _sp_count(ids, kept):
    """How many lines a reduction keeps: the product of the kept axes' lengths."""
    count = 1
    for a in kept:
        count *= ids.shape[a]
    return count


def _sp_matmul(out, a, b, pa, pb):
    """``a @ b`` (or ``np.dot``) of a matrix or vector by a matrix or vector: element ``(i, j)``
    depends on row ``i`` of ``a`` where ``b[:, j]`` is not zero, and on column ``j`` of ``b`` where
    ``a[i, :]`` is not zero (an operand that depends on the parameters counts as nonzero
    everywhere).  Other shapes: every element depends on everything (``_sp_dense``)."""
    pa, pb = _sp_flat(a, pa), _sp_flat(b, pb)
    if pa is None and pb is None:
        return None
    a, b = xp.asarray(a), xp.asarray(b)
    if a.ndim not in (1, 2) or b.ndim not in (1, 2):
        return _sp_dense(out, [pa, pb])
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    m, n, k = a2.shape[0], a2.shape[1], b2.shape[1]
    found = None
    if pb is not None:  # out[i, j] += a[i, l] b[l, j]: kron(a != 0, I_k) on b's rows
        mask = xp.ones(a2.shape, dtype=bool) if pa is not None else a2 != 0
        found = sparse.kron(sparse.csr_array(mask), sparse.eye_array(k, dtype=bool), format="csr") @ pb
    if pa is not None:  # on a's rows: kron(I_m, (b != 0).T)
        mask = xp.ones(b2.shape, dtype=bool) if pb is not None else b2 != 0
        more = sparse.kron(sparse.eye_array(m, dtype=bool), sparse.csr_array(mask.T), format="csr") @ pa
        found = more if found is None else found + more
    assert found.shape[0] == m * k == xp.size(out), (found.shape, n)
    return found


def _sp_dense(out, patterns):
    """A primitive whose elements may each depend on every element of its operands: the union of
    the operands' patterns, in every row."""
    union = None
    for p in patterns:
        if p is not None:
            row = sparse.csr_array(p.sum(axis=0, dtype=bool).reshape(1, -1))
            union = row if union is None else union + row
    if union is None:
        return None
    return union[xp.zeros(xp.size(out), dtype=xp.int64)]


def _sp_curvature(h, p):
    """The Hessian's pattern ``h`` (None: empty) with the pairs of columns that a nonlinear
    primitive's result, of pattern ``p``, joins: each element's columns, pairwise (``p.T @ p``)."""
    if p is None:  # (in a loop, a value that depends on no parameter yet)
        return h
    pairs = p.T @ p
    return pairs if h is None else h + pairs


def _sp_cross(h, out, values, patterns):
    """The Hessian's pattern ``h`` with the pairs of a product ``a * b`` of two values that depend
    on the parameters: a column of ``a``'s element with one of ``b``'s (the cross terms)."""
    rows = [_sp_elementwise(out, (v,), (p,)) for v, p in zip(values, patterns, strict=True)]
    if rows[0] is None or rows[1] is None:  # (linear in the other)
        return h
    pairs = rows[0].T @ rows[1]
    pairs = pairs + pairs.T
    return pairs if h is None else h + pairs


def _sp_hessian(h, total):
    """The Hessian's pattern as a symmetric boolean ``csr_array`` of shape ``(total, total)``."""
    return _sp_result(xp.zeros(total), h, total)


def _sp_result(out, p, total):
    """The pattern of the function's value ``out`` (no dependence: an empty one), as a boolean
    ``csr_array`` of shape ``(np.size(out), total)`` with sorted indices."""
    if p is None:
        return sparse.csr_array((xp.size(out), total), dtype=bool)
    p = sparse.csr_array(p, dtype=bool)
    p.sum_duplicates()
    p.eliminate_zeros()
    p.sort_indices()
    return p


def _sp_key(wrt, data):
    """The key of a pattern's cache: the ``--wrt`` parameters' shapes and dtypes, and every other
    argument's value (an array by its shape, dtype and bytes; a list or a dict by its items)."""
    key = [(xp.shape(x), xp.result_type(x).str) for x in wrt]
    for v in data:
        if isinstance(v, xp.ndarray):
            key.append((v.shape, v.dtype.str, v.tobytes()))
        elif isinstance(v, list | tuple):
            key.append(_sp_key((), v))
        elif isinstance(v, dict):
            key.append(_sp_key((), [(k, v[k]) for k in sorted(v, key=repr)]))
        else:
            try:
                key.append((type(v).__name__, hash(v), v))
            except TypeError:  # (an object that is no value: by its text)
                key.append((type(v).__name__, repr(v)))
    return tuple(key)


def _sp_banded(prepared, offsets, columns=False):
    """``prepared`` (``_sp_prepare``'s, of a pattern) with what the band form of its function needs
    (``prepared["bands"]``, read by ``_sp_diagonals``): where each entry of the pattern lies among the
    diagonals ``offsets``, entry ``(j + d, j)`` at element ``j`` of diagonal ``d`` (``columns``: entry
    ``(j, j + d)``, the diagonals of the transposed matrix).  An offset ``(d, start, stop)`` is a term
    of diagonal ``d`` on its elements ``start`` (from the first) to ``stop`` (from the end, 0 or
    less), zero on the others; the terms of one diagonal are added.  None there where an entry of
    the pattern lies on no diagonal given: the colored sweep is then taken, whatever the band
    form's tests say.

    The entries of one diagonal lie in the CSR data at places that step by a constant stride over
    runs of consecutive elements (a band's rows all alike but the first and last few): each run,
    cut where a term's window starts or ends, is one slice of the data written from the slices of the
    terms on it (``writes``, ``_sp_writes``).  They are checked here against the places, entry for
    entry; a pattern of many short runs keeps one ``take`` of the diagonals stacked (``writes``
    None)."""
    pattern = prepared["pattern"]
    m, n = pattern.shape
    rows = xp.repeat(xp.arange(m), xp.diff(pattern.indptr))
    cols = pattern.indices
    d, at, length = (cols - rows, rows, m) if columns else (rows - cols, cols, n)
    pieces = [(p, 0, 0) if isinstance(p, int) else tuple(p) for p in offsets]
    diagonals = xp.asarray(sorted({p[0] for p in pieces}), dtype=int)
    k = xp.minimum(xp.searchsorted(diagonals, d), len(diagonals) - 1)
    bands = None
    if len(diagonals) and xp.all(diagonals[k] == d):
        # (by_rows: the compressed array's rows have the parameter's length, its columns'; the value's)
        where = k * length + at
        bands = {"pattern": pattern, "by_rows": not columns, "seeds": diagonals, "where": where}
        bands.update(length=length, pieces=[(int(xp.searchsorted(diagonals, p[0])), *p[1:]) for p in pieces])
        (bands["block"],) = _sp_blocks(bands, (None,))
        runs = _sp_runs(k, at, len(diagonals))
        bands["writes"] = None if runs is None else _sp_writes(runs, bands["pieces"], length)
        if bands["writes"] is not None:  # (checked: the same data as the take, on whole numbers)
            rng = xp.random.default_rng(0)
            sizes = [max(length + stop - start, 0) for _, start, stop in bands["pieces"]]
            values = [rng.integers(-99, 99, size).astype(float) for size in sizes]
            (by_writes,) = _sp_diagonals(bands, values)
            (by_take,) = _sp_diagonals(dict(bands, writes=None), values)
            bands["writes"] = bands["writes"] if xp.array_equal(by_writes.data, by_take.data) else None
    prepared["bands"] = bands
    return prepared


def _sp_runs(k, at, count):
    """The runs of ``_sp_banded``: ``(diagonal, first, last + 1, slice of the data)``, each diagonal's
    entries (``k == i``, at elements ``at``) cut where the element does not step by one or the place
    in the data changes its stride; None where there are more than ``4 * count + 16``."""
    runs = []
    for i in range(count):
        places = xp.flatnonzero(k == i)
        if not len(places):
            continue
        js = at[places]
        dj, dp = xp.diff(js), xp.diff(places)
        joined = (dj == 1) & xp.concatenate([[True], dp[1:] == dp[:-1]])
        starts = xp.concatenate([[0], xp.flatnonzero(~joined) + 1])
        ends = xp.concatenate([starts[1:], [len(places)]])
        for s, t in zip(starts.tolist(), ends.tolist(), strict=True):
            step = int(dp[s]) if t - s > 1 else 1
            runs.append((i, int(js[s]), int(js[t - 1]) + 1, slice(int(places[s]), int(places[t - 1]) + 1, step)))
        if len(runs) > 4 * count + 16:
            return None
    return runs


def _sp_writes(runs, pieces, length):
    """The writes of ``_sp_banded``: each run of a diagonal cut where a term of it (``pieces``:
    ``(diagonal, start, stop)``) starts or ends, each part ``(slice of the data, [(term, first, last
    + 1), ...], size)`` with the terms on it (none: a zero)."""
    writes = []
    for i, j0, j1, into in runs:
        mine = [(p, start, length + stop) for p, (q, start, stop) in enumerate(pieces) if q == i]
        cuts = sorted({j0, j1} | {min(max(x, j0), j1) for _, a, b in mine for x in (a, b)})
        for c in range(len(cuts) - 1):
            lo, hi = cuts[c], cuts[c + 1]
            part = slice(into.start + into.step * (lo - j0), into.start + into.step * (hi - 1 - j0) + 1, into.step)
            writes.append((part, [(p, lo - a, hi - a) for p, a, b in mine if a <= lo and hi <= b], hi - lo))
    return writes


def _sp_diagonals(bands, diagonals):
    """The band form's matrix, a ``csr_array`` in a tuple, from its diagonals' terms (vectors, or
    numbers broadcast along them; ``_sp_banded``'s ``pieces``): the writes of ``_sp_banded`` into one
    new array (the structure is shared by every call of these shapes, read-only, as the colored
    sweep's is; ``data`` is each call's own)."""
    place, template = bands["block"]
    writes = bands["writes"]
    if writes is not None:
        data, parts, alone = xp.empty(len(place)), [], {}
        for into, on, size in writes:
            vectors = [diagonals[p][a:b] for p, a, b in on if xp.ndim(diagonals[p])]
            number = sum(diagonals[p] for p, _, _ in on if not xp.ndim(diagonals[p]))
            parts.append((into, vectors, number))
            if not vectors:
                alone[number] = alone.get(number, 0) + size
        filled = max(alone, key=alone.get) if alone else None
        if filled is not None and 2 * alone[filled] > len(place):  # (Bratu's 1/h**2: the data filled at once
            data.fill(filled)  # costs less than its parts written by strides)
        else:
            filled = None
        for into, vectors, number in parts:  # (the numbers on a part added to its first vector as it is written)
            if not vectors:
                if filled is None or number != filled:
                    data[into] = number
            elif number:
                xp.add(vectors[0], number, out=data[into])
            else:
                data[into] = vectors[0]
            for v in vectors[1:]:
                data[into] += v
    else:  # (many short runs: the diagonals stacked, and one take)
        length = bands["length"]
        stacked = xp.zeros((len(bands["seeds"]), length))
        for (i, start, stop), v in zip(bands["pieces"], diagonals, strict=True):
            if length + stop > start:
                stacked[i, start : length + stop] += v
        data = stacked.ravel().take(place)
    if type(template) is tuple:  # (by the constructor, where a copy would not do: ``_sp_clone_checked``)
        (template,) = template
        J = sparse.csr_array((data, template.indices, template.indptr), shape=template.shape)
        J.has_canonical_format = True
        return (J,)
    return (_sp_clone(template, data),)
