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
    (``prepared["bands"]``): the diagonals ``offsets`` decompressed as a colored sweep's results
    are, each entry of the pattern read at its place among them (``_sp_decompress``): entry ``(j + d,
    j)`` at element ``j`` of diagonal ``d`` (``columns``: entry ``(j, j + d)``, the diagonals of the
    transposed matrix).  None there where an entry of the pattern lies on no diagonal given: the
    colored sweep is then taken, whatever the band form's tests say."""
    pattern = prepared["pattern"]
    m, n = pattern.shape
    rows = xp.repeat(xp.arange(m), xp.diff(pattern.indptr))
    cols = pattern.indices
    d, at, length = (cols - rows, rows, m) if columns else (rows - cols, cols, n)
    offsets = xp.asarray(offsets)
    k = xp.minimum(xp.searchsorted(offsets, d), len(offsets) - 1)
    bands = None
    if len(offsets) and xp.all(offsets[k] == d):
        # (by_rows: the compressed array's rows have the parameter's length, its columns'; the value's)
        bands = {"pattern": pattern, "by_rows": not columns, "seeds": offsets, "where": k * length + at}
    prepared["bands"] = bands
    return prepared


def _sp_diagonals(like, diagonals, by_rows):
    """The diagonals (vectors of ``like``'s size, or numbers) stacked, one row each: the compressed
    array ``_sp_decompress`` reads with ``_sp_banded``'s places (``by_rows``: in a list, as a
    reverse sweep's adjoints are)."""
    out = xp.empty((len(diagonals), xp.size(like)))
    for i, v in enumerate(diagonals):
        out[i] = v
    return [out] if by_rows else out
