"""Helpers of ``jac_NAME`` and ``hess_NAME`` with ``--sparse`` (``codegen.sparse``): the coloring
of a sparsity pattern, the seeds of the compressed sweeps, and the decompression of their results
into a ``scipy.sparse.csr_array``.

A Jacobian's columns that share no row can be seeded together: one forward sweep gives the sum of
their columns, ``J @ S``, each entry found again in the sum of its column's color (a distance-2
coloring of the columns); the rows likewise, by reverse sweeps, ``S.T @ J``.  A Hessian is
symmetric: an entry ``H[i, j]`` can be read from row ``i`` in the color of ``j`` or from row ``j``
in the color of ``i``, whichever is alone in its color there, and a *star coloring* (every path on
four vertices has three colors or more) guarantees that one of them is: an arrowhead takes two or
three colors where its columns take ``n``.

The greedy colorings are written here (not taken from networkx): the module may import NumPy and
SciPy only, and a greedy pass over the arrays of a compressed pattern colors 10**5 vertices in a
fraction of a second.  The star coloring follows Gebremedhin, Tarafdar, Manne and Pothen, "New
acyclic and star coloring algorithms with application to computing Hessians" (SIAM J. Sci.
Comput. 29, 2007), Algorithm 4.1, as SparseMatrixColorings.jl (and asdex) do.
"""

import numpy as xp
from scipy import sparse


def _sp_greedy(adjacency, order):
    """Greedy coloring of the graph ``adjacency`` (a csr_array, diagonal ignored), the vertices in
    ``order``: each takes the smallest color none of its colored neighbors has."""
    indptr, indices = adjacency.indptr.tolist(), adjacency.indices.tolist()
    n = len(indptr) - 1
    colors = [-1] * n
    mark = [-1] * (n + 1)
    for v in order.tolist():
        for u in indices[indptr[v] : indptr[v + 1]]:
            c = colors[u]
            if c >= 0:
                mark[c] = v
        c = 0
        while mark[c] == v:
            c += 1
        colors[v] = c
    return xp.asarray(colors, dtype=xp.int64)


def _sp_color_columns(pattern):
    """A distance-2 coloring of the columns of ``pattern`` (no two columns of one color share a
    row), the fewest colors of greedy orders natural and largest first: ``(colors, count)``."""
    n = pattern.shape[1]
    if n == 0 or pattern.nnz == 0:
        return xp.zeros(n, dtype=xp.int64), min(n, 1)
    p = sparse.csr_array(pattern, dtype=xp.int8)
    graph = (p.T @ p).tocsr()
    degree = xp.diff(graph.indptr)
    best = None
    for order in (xp.arange(n), xp.argsort(-degree, kind="stable")):
        colors = _sp_greedy(graph, order)
        if best is None or colors.max() < best.max():
            best = colors
    return best, int(best.max()) + 1


def _sp_star(adjacency, order):
    """A greedy star coloring of the symmetric graph ``adjacency`` (a csr_array with sorted indices,
    no diagonal), the vertices in ``order``: a distance-1 coloring in which every two-colored
    connected subgraph is a star.  The two-colored stars are kept as they grow (each edge's star,
    each star's hub), so that a vertex avoids the colors that would make a path of four vertices
    two-colored: those of the neighbors of two of its neighbors of one color (it would join their
    stars as a second hub), and those of the hubs its neighbors are leaves of."""
    indptr, indices = adjacency.indptr.tolist(), adjacency.indices.tolist()
    n = len(indptr) - 1
    edge = _sp_edge_ids(adjacency).tolist()  # (the edge of each stored entry: one number for (v, w) and (w, v))
    colors = [-1] * n
    forbidden = [-1] * (n + 1)
    first = [(-1, -1, -1)] * (n + 1)  # per color: (v, its first neighbor of that color, their edge)
    treated = [-1] * n
    star = [-1] * (max(edge) + 1 if edge else 0)
    hub: list[int] = []

    def treat(v, w):  # forbid the colors of w's neighbors
        for x in indices[indptr[w] : indptr[w + 1]]:
            if colors[x] >= 0:
                forbidden[colors[x]] = v
        treated[w] = v

    for v in order.tolist():
        for k in range(indptr[v], indptr[v + 1]):
            w = indices[k]
            cw = colors[w]
            if cw < 0:
                continue
            forbidden[cw] = v
            p, q, _ = first[cw]
            if p == v:  # a second neighbor of color cw: v would be the hub of their star
                if treated[q] != v:
                    treat(v, q)
                treat(v, w)
            else:
                first[cw] = (v, w, edge[k])
                for j in range(indptr[w], indptr[w + 1]):
                    x = indices[j]
                    if x != v and colors[x] >= 0 and hub[star[edge[j]]] == x:  # w is a leaf of x's star
                        forbidden[colors[x]] = v
        c = 0
        while forbidden[c] == v:
            c += 1
        colors[v] = c
        for k in range(indptr[v], indptr[v + 1]):  # the stars v joins
            w = indices[k]
            if colors[w] < 0:
                continue
            for j in range(indptr[w], indptr[w + 1]):
                x = indices[j]
                if x != v and colors[x] == c:  # v and x, of one color, leaves of w
                    star[edge[k]] = star[edge[j]]
                    hub[star[edge[j]]] = w
                    break
            else:
                p, q, pq = first[colors[w]]
                if p == v and q != w:  # w and q, of one color, leaves of v
                    star[edge[k]] = star[pq]
                    hub[star[pq]] = v
                else:  # a star of the one edge vw, of no hub yet
                    hub.append(-1)
                    star[edge[k]] = len(hub) - 1
    return xp.asarray(colors, dtype=xp.int64)


def _sp_edge_ids(adjacency):
    """The number of the edge of each stored entry of the symmetric ``adjacency`` (CSR order): the
    entries ``(v, w)`` and ``(w, v)`` get the same one."""
    n = adjacency.shape[0]
    rows = xp.repeat(xp.arange(n), xp.diff(adjacency.indptr))
    cols = adjacency.indices
    low, high = xp.minimum(rows, cols), xp.maximum(rows, cols)
    _, ids = xp.unique(low * n + high, return_inverse=True)
    return ids.reshape(-1)


def _sp_symmetric(pattern):
    """The colors of a star coloring of the symmetric ``pattern`` (the fewest of greedy orders
    natural, largest degree first and smallest first) and where each entry of ``H`` is in the
    compressed ``H @ S`` (flat, color by color), read where its color is alone in its row; None
    where no order gives a coloring that reads every entry (never for a star coloring)."""
    n = pattern.shape[0]
    graph = sparse.csr_array(pattern, dtype=xp.int8, copy=True)  # (its own arrays: written below)
    graph.setdiag(0)
    graph.eliminate_zeros()
    graph.sort_indices()
    degree = xp.diff(graph.indptr)
    orders = [xp.argsort(degree, kind="stable")]  # (a dense row last: its neighbors' loops stay short)
    if int(xp.sum(degree.astype(xp.int64) ** 2)) <= 1 << 18:  # (about the Python steps of one order, worst case)
        orders += [xp.arange(n), xp.argsort(-degree, kind="stable")]
    best = None
    for order in orders:
        colors = _sp_star(graph, order)
        if best is None or colors.max(initial=0) < best.max(initial=0):
            best = colors
    count = int(best.max(initial=-1)) + 1
    rows = xp.repeat(xp.arange(n), xp.diff(pattern.indptr))
    cols = pattern.indices
    alone = xp.ones(len(rows), dtype=bool)  # H[i, j] read from row i in the color of j
    other_alone = xp.ones(len(rows), dtype=bool)  # or from row j in the color of i
    off = rows != cols
    if xp.any(off):  # (how many neighbors of a row have a color: counted by (row, color) keys)
        grows = xp.repeat(xp.arange(n), degree)
        keys, counts = xp.unique(grows * count + best[graph.indices], return_counts=True)

        def neighbors_of_color(key):
            at = xp.minimum(xp.searchsorted(keys, key), len(keys) - 1)
            return xp.where(keys[at] == key, counts[at], 0)

        alone[off] = neighbors_of_color(rows[off] * count + best[cols[off]]) == 1
        other_alone[off] = neighbors_of_color(cols[off] * count + best[rows[off]]) == 1
    if not xp.all(alone | other_alone):
        return None
    where = xp.where(alone, best[cols] * n + rows, best[rows] * n + cols)
    return best, count, where


def _sp_prepare(pattern, shape, symmetric=False, by_rows=None, ties_to_rows=False):
    """What each call of ``jac_NAME`` needs of a pattern (of a value of shape ``shape``): the
    coloring of its columns or of its rows, whichever has fewer colors (the columns where they tie,
    unless ``ties_to_rows``, which ``jac_NAME`` passes where only its reverse sweep is batched: the
    forward sweep does tangent work only, and its batched values are the value's, with no gradient
    buffer to fill; measured 0.74 to 0.97 times the rows on the stencils, the 2-D Laplacian and the
    Brusselator at m = 64, 1.3 on the Brusselator at m = 16), the seeds of the
    compressed sweep (one row per color: tangents, or values' adjoints of ``shape``), and where each
    entry of ``J`` is in the compressed ``J @ S`` or ``S.T @ J`` (``where``, read by ``_sp_decompress``).

    A side whose conflict graph would be much larger than the other's (a dense row makes every
    pair of columns conflict: an arrowhead's n**2 edges) is not colored: it could not win.
    ``symmetric`` (a Hessian, by ``hvp_NAME``): a star coloring (``_sp_symmetric``), the columns'
    where it would not read every entry (never, for a star coloring: a check, not a case).
    ``by_rows`` True or False: that side, whatever its colors (the tests compare the two)."""
    m, n = pattern.shape
    if symmetric:
        found = _sp_symmetric(pattern)
        if found is not None:
            colors, count, where = found
            seeds = xp.zeros((max(count, 1), n))
            seeds[colors, xp.arange(n)] = 1.0
            return {"pattern": pattern, "by_rows": False, "seeds": seeds, "where": where}
    col_edges = int(xp.sum(xp.diff(pattern.indptr) ** 2))  # the edges of the columns' graph, about
    transposed = sparse.csr_array(pattern.T)
    row_edges = int(xp.sum(xp.diff(transposed.indptr) ** 2))
    count = row_count = max(m, n) + 1
    if (col_edges <= 32 * row_edges + 4096 or symmetric or by_rows is False) and by_rows is not True:
        colors, count = _sp_color_columns(pattern)
    if (row_edges <= 32 * col_edges + 4096 and not symmetric or by_rows is True) and by_rows is not False:
        row_colors, row_count = _sp_color_columns(transposed)
    rows = xp.repeat(xp.arange(m), xp.diff(pattern.indptr))
    prepared = {"pattern": pattern, "by_rows": row_count < count or ties_to_rows and row_count == count}
    if prepared["by_rows"]:
        seeds = xp.zeros((max(row_count, 1), m))
        seeds[row_colors, xp.arange(m)] = 1.0
        prepared["seeds"] = seeds.reshape((len(seeds),) + tuple(shape))
        prepared["where"] = row_colors[rows] * n + pattern.indices
    else:
        seeds = xp.zeros((max(count, 1), n))
        seeds[colors, xp.arange(n)] = 1.0
        prepared["seeds"] = seeds
        prepared["where"] = colors[pattern.indices] * m + rows
    return prepared


def _sp_tangents(prepared, xs):
    """The tangents of the compressed sweep, one array per parameter of ``xs``: the columns of ``S``
    that are its elements, of shape ``(colors,) + np.shape(x)`` (row ``c``: the tangent of color
    ``c``), made at the first call of these shapes."""
    if "tangents" not in prepared:
        seeds, parts, start = prepared["seeds"], [], 0
        for x in xs:
            n = xp.size(x)
            parts.append(xp.ascontiguousarray(seeds[:, start : start + n]).reshape((len(seeds),) + xp.shape(x)))
            start += n
        prepared["tangents"] = tuple(parts)
    return prepared["tangents"]


def _sp_fixed(prepared, fixed, args):
    """The values of a compressed sweep that ``fixed`` (``_jvp_NAME_fixed``) computes from ``args``:
    those that read the seeds, the other arguments and the shapes alone, the same at every call of
    ``prepared``'s key, computed at the first and kept (read, never written, by the sweep)."""
    kept = prepared.setdefault("fixed", {})
    found = kept.get(fixed.__name__)
    if found is None:
        found = kept[fixed.__name__] = fixed(*args)
    return found


def _sp_stacked(compressed):
    """The results of one sweep per color stacked as the batched sweep gives them: the value's
    derivatives (an array per color) as one array, or (by rows) the parameters' adjoints (a list
    per color) as one array per parameter (None where the value reads none)."""
    if not compressed or not isinstance(compressed[0], list):
        return xp.stack(compressed)
    return [None if g[0] is None else xp.stack(g) for g in zip(*compressed, strict=True)]


def _sp_blocks(prepared, xs):
    """Each parameter's block of ``J`` as the decompression fills it, made at the first call of these
    shapes: ``(where, template)``, the places of the block's entries in its compressed array (flat,
    color by color) and a ``csr_array`` of its structure, whose index arrays are read-only (every
    ``J`` of these shapes shares them) and of the dtype ``csr_array`` keeps (int32 where it fits)."""
    pattern, where = prepared["pattern"], prepared["where"]
    m, total = pattern.shape
    blocks, start = [], 0
    rows = xp.repeat(xp.arange(m), xp.diff(pattern.indptr))
    for x in xs:
        n = xp.size(x) if len(xs) > 1 else total
        inside = (pattern.indices >= start) & (pattern.indices < start + n)
        place = where[inside].astype(xp.intp)
        if prepared["by_rows"] and len(xs) > 1:  # (the adjoint of this parameter alone: its columns, color by color)
            place = place // total * n + (place % total - start)
        indptr = xp.concatenate([[0], xp.cumsum(xp.bincount(rows[inside], minlength=m))])
        index = xp.int32 if max(m, n, len(place)) < 2**31 - 1 else xp.int64
        structure = (pattern.indices[inside] - start).astype(index), indptr.astype(index)
        for a in (place, *structure):
            a.flags.writeable = False
        template = sparse.csr_array((xp.zeros(len(place)), *structure), shape=(m, n))
        template.has_canonical_format = True  # (sorted, no duplicates: no check left to a solver)
        blocks.append((place, _sp_clone_checked(template)))
        start += n
    return blocks


def _sp_clone(template, data):
    """A ``csr_array`` of ``template``'s structure (shared) and ``data``: its attributes copied,
    ``data`` replaced, without the 15 µs of checks of the constructor, which read what
    ``_sp_blocks`` made once.  (``_sp_clone_checked`` tests the copy against the constructor.)"""
    J = sparse.csr_array.__new__(sparse.csr_array)
    J.__dict__.update(template.__dict__)
    J.data = data
    return J


def _sp_clone_checked(template):
    """``template``, or ``template`` in a tuple where a copy of its attributes (``_sp_clone``) is not
    the array the constructor makes of the same arrays (a SciPy whose arrays keep other state):
    ``_sp_decompress`` then calls the constructor."""
    data = xp.arange(1.0, template.nnz + 1.0)
    made = sparse.csr_array((data, template.indices, template.indptr), shape=template.shape)
    made.has_canonical_format = True
    clone = _sp_clone(template, data)
    same = sorted(clone.__dict__) == sorted(made.__dict__) and clone.shape == made.shape
    return template if same and (clone != made).nnz == 0 else (template,)


def _sp_decompress(prepared, compressed, xs):
    """The Jacobians, one ``csr_array`` per parameter of ``xs``, from the compressed sweep's results:
    the value's derivatives along the tangents of every color (an array of shape ``(colors,) +
    np.shape(value)``), or (by rows) the parameters' adjoints for the rows of every color (one per
    parameter, of shape ``(colors,) + np.shape(x)``; None for a parameter the value does not read).
    Each entry is read at its place in the compressed array, precomputed (``_sp_blocks``): one
    gather into a new data array, on the prepared structure, which every ``J`` shares (read-only:
    ``J.copy()`` first to change the structure in place, as ``J.eliminate_zeros()`` does)."""
    blocks = prepared.get("blocks")
    if blocks is None:
        blocks = prepared["blocks"] = _sp_blocks(prepared, xs)
    k = len(prepared["seeds"])
    out = []
    for b, (where, template) in enumerate(blocks):
        checked = type(template) is not tuple  # (a tuple: by the constructor, where a copy would not do)
        if not checked:
            (template,) = template
        c = compressed[b] if prepared["by_rows"] else compressed
        size = k * (template.shape[1] if prepared["by_rows"] else template.shape[0])
        if c is None or xp.size(c) != size:  # (a derivative that reads no seed: it is zero)
            c = xp.zeros(size)
        data = xp.ravel(c).take(where)
        if not checked:
            J = sparse.csr_array((data, template.indices, template.indptr), shape=template.shape)
            J.has_canonical_format = True
        else:
            J = _sp_clone(template, data)
        out.append(J)
    return tuple(out)
