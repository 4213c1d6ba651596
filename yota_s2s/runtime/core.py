"""Helper functions that generated modules carry: copied in as source, only those used.

This module is the single definition of each helper.  The code generator
(``codegen.helpers``) copies a helper's source into the generated file with ``xp`` renamed to the target's
array module (``np``); the interpreter calls them directly.  Generated code
never imports this module.  Each helper is plain array code with no state.
"""

import numpy as xp

#: The dtypes whose 1-D arrays scalar code reads as Python floats (``x.tolist()``): a float, or a
#: float32 computed in double and rounded once.  (``x.dtype in _FLOATS`` costs half ``x.dtype.kind
#: == "f"``; a float16 or long double array keeps NumPy's arithmetic.)
_FLOATS = (xp.dtype(xp.float64), xp.dtype(xp.float32))


def _unbroadcast(g, x, _ndarray=xp.ndarray, _np_float=xp.float64):
    """Sum ``g`` down to the shape of ``x``: the adjoint of broadcasting ``x``.  (The types it
    tests for are bound once, as defaults: it runs per step of a loop, and each ``np.ndarray``
    read is a module attribute lookup.)"""
    t = type(x)
    if t is _np_float or t is float:  # a number (a small state in a loop): type tests, not np.shape
        u = type(g)
        if u is _np_float or u is float:
            return g
        shape, g_shape = (), xp.shape(g)
    elif type(g) is t is _ndarray:  # attributes: np.shape costs 0.15 µs a call
        shape, g_shape = x.shape, g.shape
    else:
        shape, g_shape = xp.shape(x), xp.shape(g)
    if g_shape == shape:
        return g
    extra = len(g_shape) - len(shape)
    if extra < 0:
        return xp.broadcast_to(g, shape).astype(xp.result_type(g, x))
    if 1 not in shape:  # leading axes only: what is left has x's shape (g is an array here)
        return g.sum(axis=0) if extra == 1 else g.sum(axis=tuple(range(extra)))
    ones = [i for i in range(extra, len(g_shape)) if shape[i - extra] == 1 != g_shape[i]]
    return g.sum(axis=(*range(extra), *ones)).reshape(shape)


def _keep_axes(g, x, axis):
    """``g``, a reduction of ``x`` over ``axis``, with that axis put back (length 1), to broadcast
    against ``x``; as it is for a number or a 0-d ``x``, which NumPy reduces along axis 0 or -1
    without removing an axis (``np.max(2.0, axis=0)`` is 2.0)."""
    return xp.expand_dims(g, axis) if xp.ndim(x) else g


def _unreduce(g, x):
    """``g`` spread over the shape of ``x`` (the adjoint of a sum), in the dtype of ``x + g``
    (``np.full_like`` alone would keep an integer ``x``'s dtype and truncate ``g``; it also
    costs twice what this does on small arrays)."""
    if type(x) is xp.ndarray and type(g) is float and x.dtype.kind == "f":  # x's dtype (0.3 µs less)
        out = xp.empty(x.shape, x.dtype)
        out.fill(g)
        return out
    out = xp.empty(xp.shape(x), xp.result_type(x, g))
    out[...] = g
    return out if out.ndim or type(x) is xp.ndarray else out[()]  # a number's gradient is a number


def _like(x, y):
    """An uninitialised array of the shape and dtype of ``x + y``, ``x - y`` or ``x * y``:
    a value the gradient reads only for its shape, not computed."""
    return xp.empty(xp.broadcast(x, y).shape, xp.result_type(x, y))


def _like_matmul(x, y):
    """An uninitialised array of the shape and dtype of ``x @ y``: a product the gradient
    reads only for its shape, not computed."""
    if type(x) is type(y) is xp.ndarray and x.ndim == 2 == y.ndim and x.shape[1] == y.shape[0]:
        dtype = x.dtype if x.dtype is y.dtype else xp.result_type(x, y)  # (result_type: 0.13 µs)
        return xp.empty((x.shape[0], y.shape[1]), dtype)  # matrices, by attributes
    xs, ys = xp.shape(x), xp.shape(y)
    if not xs or not ys or xs[-1] != ys[-min(len(ys), 2)]:  # what x @ y would refuse
        raise ValueError(f"matmul: operands of shapes {xs} and {ys} do not match")
    if len(xs) == 2 and len(ys) == 2:
        shape = (xs[0], ys[1])
    else:  # the batch axes broadcast; a vector operand has no row (x) or column (y) axis
        rows = xs[-2:-1]
        cols = ys[-1:] if len(ys) > 1 else ()
        shape = (*xp.broadcast_shapes(xs[:-2], ys[:-2]), *rows, *cols)
    return xp.empty(shape, xp.result_type(x, y))


def _grad_zeros(x, _ndarray=xp.ndarray):
    """Zeros of the shape of ``x`` in the dtype of its gradient, that of ``x + 0.0``: ``x``'s own
    for a float array, float64 for an integer or boolean one (a buffer of an integer dtype would
    truncate what is added into it).  A number's (not an array) is a number: 0.0 for a Python
    float or int, a NumPy scalar of that dtype for a NumPy scalar (``dx = 2.0 * x`` gives one)."""
    if type(x) is float or type(x) is int:
        return 0.0
    if type(x) is _ndarray and x.dtype.kind == "f":  # (a float array, the common case: 0.5 µs less)
        return xp.zeros(x.shape, x.dtype)
    if isinstance(x, list | tuple):
        try:
            a = xp.asarray(x)
        except ValueError:  # items of different shapes (for W, b in params): a buffer for each
            return _grad_items([_grad_zeros(v) for v in x])
    else:
        a = xp.asarray(x)
    out = xp.zeros(a.shape, xp.result_type(a, 0.0))
    return out if out.ndim or a is x else out[()]


def _grad_items(items):
    """The gradient buffer of a list or tuple of arrays of different shapes (``for W, b in
    params``): a list of the items' buffers whose ``+`` and ``+=`` add item by item, where a
    list's own would join the two lists."""

    class GradItems(list):
        def __add__(self, other):
            return GradItems([a + b for a, b in zip(self, other, strict=True)])

        __radd__ = __add__

        def __iadd__(self, other):
            if len(other) != len(self):
                raise ValueError("the gradients of two lists of different lengths are added")
            for k, b in enumerate(other):
                self[k] = self[k] + b
            return self

    return GradItems(items)


def _grad_stack(x, rows):
    """The gradient of ``x`` from its rows' (first index): ``rows[k]`` a number or an array of a
    row's shape, zeros in the rows past them (NumPy's dtype of ``x`` with floats, as
    ``_grad_zeros``).  A list or tuple of arrays of different shapes (``W1, b1 = params``) gets a
    list or tuple of its items' gradients."""
    try:
        x = xp.asarray(x)
    except ValueError:  # (NumPy cannot stack the items)
        parts = list(rows) + [_grad_zeros(v) for v in x[len(rows) :]]
        return parts if isinstance(x, list) else tuple(parts)
    out = xp.empty(x.shape, xp.result_type(x, 0.0))
    out[len(rows) :] = 0
    for k, row in enumerate(rows):
        out[k] = row
    return out


def _jacobian_rows(x, rows):
    """The Jacobian of a value whose elements' gradients are ``rows``: ``rows[i][k]`` the derivative
    of element ``i`` with respect to the row ``x[k]``, a number or an array of a row's shape (a
    batch of points: one derivative per point), zeros past them; of shape ``(len(rows),) +
    x.shape``, in one array (``_grad_stack`` of each row, stacked, for a list of arrays of
    different shapes)."""
    try:
        a = xp.asarray(x)
    except ValueError:  # (NumPy cannot stack the items)
        return xp.stack([_grad_stack(x, row) for row in rows])
    out = xp.empty((len(rows),) + a.shape, xp.result_type(a, 0.0))
    for i, row in enumerate(rows):
        out[i, len(row) :] = 0
        for k, g in enumerate(row):
            out[i, k] = g
    return out


def _grad_rows(x, written, out=None):
    """The gradient buffer of ``x``, as ``_grad_zeros(x)``, for a caller that assigns each row
    (first index) in ``written`` (distinct, not negative) before it reads it: zeros in the other
    rows only, so a gradient that writes every row is not filled twice.  ``out``: the columns of
    the whole gradient that ``_by_columns`` gives a block, written in place of a new array."""
    if out is None:
        x = xp.asarray(x)
        out = xp.empty(x.shape, xp.result_type(x, 0.0))
    n = len(out)
    if n > 2 * len(written):
        out[...] = 0
    elif n != len(written):  # the rows a caller indexing x[k] can write are all below n
        for k in range(n):
            if k not in written:
                out[k] = 0
    return out


def _stack_copy(stack):
    """A copy of a loop's stack of saved values for one more backward sweep (``jac_NAME``'s rows: each
    pops it): the lists copied at every depth (a nested loop's stack is saved in its outer loop's),
    the arrays shared."""
    return [
        tuple(_stack_copy(w) if type(w) is list else w for w in v)
        if type(v) is tuple
        else _stack_copy(v)
        if type(v) is list
        else v
        for v in stack
    ]


def _index_add(buf, g, index):
    """A copy of ``buf`` with ``g`` added at ``buf[index]``, repeated indices accumulated, in the
    dtype of ``buf + g``."""
    buf = buf.astype(xp.result_type(buf, g))
    xp.add.at(buf, index, g)
    return buf


def _matmul_dx(g, x, y):
    """Gradient of ``x @ y`` (or ``dot(x, y)``) with respect to ``x``, for operands of any rank."""
    if type(x) is type(y) is xp.ndarray and x.ndim == 2 == y.ndim:  # matrices: nothing to undo
        # (tested first, by attributes: np.ndim costs 0.1 µs a call); the method dot is the same
        # product of matrices at a third of @'s cost on small ones (0.55 against 1.3 µs on 8 x 8;
        # the same from 32 x 32 on, and a few % slower than @ on large ones)
        if type(g) is xp.ndarray and g.ndim == 2 and g.size + y.size < 2048:
            return g.dot(y.T)
        return g @ y.T
    x_nd, y_nd = xp.ndim(x), xp.ndim(y)
    if x_nd == 0 or y_nd == 0:  # dot with a scalar multiplies
        return _unbroadcast(g * y, x)
    if y_nd == 1:
        g = xp.expand_dims(g, -1)
        y = y[:, None]
    if x_nd == 1:
        g = xp.expand_dims(g, -2)
        return _unbroadcast(g @ xp.swapaxes(y, -1, -2), x[None, :])[0]
    return _unbroadcast(g @ xp.swapaxes(y, -1, -2), x)


def _matmul_dy(g, x, y):
    """Gradient of ``x @ y`` (or ``dot(x, y)``) with respect to ``y``, for operands of any rank."""
    if type(x) is type(y) is xp.ndarray and x.ndim == 2 == y.ndim:  # matrices: nothing to undo
        if type(g) is xp.ndarray and g.ndim == 2 and g.size + x.size < 2048:  # small: dot (_matmul_dx)
            return x.T.dot(g)
        return x.T @ g
    x_nd, y_nd = xp.ndim(x), xp.ndim(y)
    if x_nd == 0 or y_nd == 0:  # dot with a scalar multiplies
        return _unbroadcast(g * x, y)
    if y_nd == 1:
        g = xp.expand_dims(g, -1)
    if x_nd == 1:
        g = xp.expand_dims(g, -2)
        x = x[None, :]
    if y_nd == 1:
        return _unbroadcast(xp.swapaxes(x, -1, -2) @ g, y[:, None])[:, 0]
    return _unbroadcast(xp.swapaxes(x, -1, -2) @ g, y)


def _xtx_dx(g, x):
    """Gradient of ``x.T @ x`` with respect to ``x``: one product for a matrix."""
    if type(x) is type(g) is xp.ndarray and x.ndim == 2 == g.ndim:  # g.T copied: one layout, less to iterate
        s = g + g.T.copy()
        return x.dot(s) if x.size + s.size < 2048 else x @ s  # small: dot (_matmul_dx)
    xt = xp.transpose(x)
    return _matmul_dy(g, xt, x) + xp.transpose(_matmul_dx(g, xt, x))


def _xxt_dx(g, x):
    """Gradient of ``x @ x.T`` with respect to ``x``: one product for a matrix."""
    if type(x) is type(g) is xp.ndarray and x.ndim == 2 == g.ndim:
        s = g + g.T.copy()
        return s.dot(x) if x.size + s.size < 2048 else s @ x
    xt = xp.transpose(x)
    return _matmul_dx(g, x, xt) + xp.transpose(_matmul_dy(g, x, xt))


def _diag(v, k=0):
    """``np.diag(v, k)``: the diagonal of a matrix by its method (a view, as ``np.diag`` gives;
    0.07 against 0.9 µs), else a vector's matrix."""
    if type(v) is xp.ndarray and v.ndim == 2:
        return v.diagonal(k)
    return xp.diag(v, k)


def _diag_dv(g, v, k):
    """Gradient of ``diag(v, k)`` with respect to ``v`` (``v`` a vector or a matrix)."""
    if type(v) is not xp.ndarray:
        v = xp.asarray(v)
    if v.ndim == 1:
        return xp.diagonal(g, k).copy()
    rows, cols = v.shape
    dtype = v.dtype if type(g) is xp.ndarray and g.dtype is v.dtype else xp.result_type(g, v)
    dv = xp.zeros((rows, cols), dtype)
    start = max(-k, 0) * cols + max(k, 0)  # dv[i + max(-k, 0), i + max(k, 0)] for i < len(g)
    dv.reshape(-1)[start :: cols + 1][: len(g)] = g
    return dv


def _by_columns(grad, args, ranks, values, grads):
    """The gradient function's ``(*values, *gradients)`` computed block by block of columns (the
    last axis) by its columns form ``grad``, and joined; or None when the arguments do not qualify.
    The function keeps columns apart and its value is a sum over them (checked when it was
    generated), so each block's gradients are columns of the whole ones and the values (the
    first ``values`` results) add up.  Blocks of about 131,072 numbers keep the intermediate
    arrays in the cache, where whole-array passes, one per operation, stream them through memory;
    fewer than four blocks' worth is one call on the whole arrays (the columns form still writes
    its results in place).  ``ranks[i]`` is the least rank of ``args[i]`` (None: passed whole);
    those are ndarrays of one float dtype with one number of columns (``grad`` writes its results
    into arrays of that dtype).

    ``grad(*block, _out)`` writes its ``grads`` gradients into ``_out``: Nones for the first block
    (new arrays, whose shapes and dtypes give the whole gradients'), then the columns of the
    whole gradients; a gradient it returns elsewhere is copied in."""
    n, rows, dtype = -1, 1, None
    for a, k in zip(args, ranks):
        if k is None:
            continue
        if type(a) is not xp.ndarray or a.ndim < k or (n >= 0 and a.shape[-1] != n):
            return None
        if a.dtype.kind != "f" or (dtype is not None and a.dtype != dtype):
            return None
        n, dtype = a.shape[-1], a.dtype
        rows = max(rows, a.size // max(n, 1))
    step = 131072 // rows
    if step < 256 or n < 4 * step:  # one block
        return grad(*args, (None,) * grads)
    count = -(-n // step)
    step = -(-n // count)  # blocks of equal width: no narrow last one
    joined = None
    for start in range(0, n, step):
        cols = slice(start, start + step)
        blocks = (None,) * grads if joined is None else tuple(whole[..., cols] for whole in joined[values:])
        part = grad(*[a if k is None else a[..., cols] for a, k in zip(args, ranks)], blocks)
        if joined is None:  # the first block: the whole gradients' shapes and dtypes are known
            joined = [*part[:values], *(xp.empty((*g.shape[:-1], n), g.dtype) for g in part[values:])]
        else:
            joined[:values] = [v + p for v, p in zip(joined[:values], part[:values])]
        for whole, block, g in zip(joined[values:], blocks, part[values:]):
            if g is not block:  # (the first block's are new arrays, later ones the views given)
                whole[..., cols] = g
    return tuple(joined)


def _real_value(x, what=""):
    """``x``, a value of code passed through (its dtype unknown when the gradient was generated), which
    the gradient reads as real: a complex one raises TypeError (the real rules would be wrong)."""
    if isinstance(x, complex) or xp.iscomplexobj(x):
        why = "the gradient was generated for a real value here (pass it as a parameter declared complex: c: complex)"
        raise TypeError("a complex value from code passed through (" + what + "): " + why + " (docs/complex.md)")
    return x


def _float_arg(x, func, name):
    """Raise TypeError unless ``x``, an argument the gradient is taken with respect to, is real
    floating: a float array or number (a list of them), or a Python int (its gradient is a
    float).  The gradient was generated for a real ``x``: a complex one needs the parameter
    declared complex (``x: complex``, docs/complex.md), and an integer or boolean array's gradient
    buffer would truncate what is added into it (JAX's grad refuses both too).  The caller tests the common
    cases first (a Python float, a float ndarray).  (No f-strings: generated code is unparsed the
    same by every Python.)"""
    if isinstance(x, list | tuple):
        for v in x:
            _float_arg(v, func, name)
        return
    if type(x) is int or isinstance(x, float):
        return
    dtype = xp.asarray(x).dtype
    if dtype.kind == "f":
        return
    if dtype.kind == "c":
        why = "this gradient was generated for a real " + name + " (declare " + name + ": complex if it may be)"
        raise TypeError(func + "(): the argument " + name + " is complex (" + str(dtype) + "): " + why)
    what = {"b": "boolean", "i": "integer", "u": "integer"}.get(dtype.kind, "of dtype " + str(dtype))
    why = "a gradient is taken with respect to floating values; pass " + name + " as floats (.astype(float))"
    raise TypeError(func + "(): the argument " + name + " is " + what + " (" + str(dtype) + "): " + why)


def _real_args(func, floats, others, *xs, _ndarray=xp.ndarray, _floats=_FLOATS, _float=float):
    """The argument checks of generated function ``func``, in one call: the first ``len(floats)``
    of ``xs`` (named ``floats``), those the derivative is taken with respect to, must be real
    floating, and the others (named ``others``), read as values, must not be complex
    (``_float_arg`` raises TypeError).  The common case, every argument a Python float or a
    float64 or float32 array, passes on type tests alone (about 0.1 µs for three arguments more
    than the tests written in the function); anything else is ``_real_args_each``'s to judge.
    (The types are bound as defaults: a module attribute lookup per argument costs more than the test.)"""
    for x in xs:
        t = type(x)
        if t is not _float and (t is not _ndarray or x.dtype not in _floats):
            _real_args_each(func, floats, others, xs)
            return


def _real_args_each(func, floats, others, xs):
    """``_real_args``' checks, argument by argument: ``_float_arg`` judges each differentiated one,
    and each other one is refused where it is complex (an integer index array is a value)."""
    for name, x in zip(floats, xs, strict=False):
        _float_arg(x, func, name)
    for name, x in zip(others, xs[len(floats) :], strict=True):
        if isinstance(x, complex) or (type(x) is xp.ndarray and x.dtype.kind == "c"):
            _float_arg(x, func, name)


def _complex_arg(x, func, name):
    """``x`` as a complex number or array (``x + 0j``: float32's complex64), for a complex
    derivative (``--holomorphic``, ``--jacobian`` of complex values): it is taken at complex points,
    and its buffers have ``x``'s dtype (the derivative at a real point is the same).  A list or tuple
    becomes an array; a boolean or non-numeric ``x`` raises TypeError."""
    if isinstance(x, float | int) and not isinstance(x, bool):
        return complex(x)
    a = xp.asarray(x)
    if a.dtype.kind in "fiu":
        return a + 0j
    if a.dtype.kind == "c":
        return a
    why = "a complex derivative is taken at complex (or real) points; pass " + name + " as numbers"
    raise TypeError(func + "(): the argument " + name + " is of dtype " + str(a.dtype) + ": " + why)


def _scan(a, b):
    """``r[..., 0] = b[..., 0]``, ``r[..., m] = b[..., m] + a[..., m] * r[..., m - 1]`` along the last axis:
    by doubling (log2(n) passes over the arrays), one step at a time where a window's product overflows."""
    r, w = b.copy(), a.copy()
    w[..., :1] = 0.0  # (a window reaching past the start adds nothing)
    n, step = r.shape[-1], 1
    while step < n:  # each (w, r) composed with the one step places before
        r[..., step:] += w[..., step:] * r[..., :-step]
        w[..., step:] *= w[..., :-step].copy()
        step *= 2
    if not xp.isfinite(r).all():  # a window's product overflowed (inf * 0 is NaN): one step at a time
        r = b.copy()
        for m in range(1, n):
            r[..., m] += a[..., m] * r[..., m - 1]
    return r


def _cumprod_dx(g, x, c, axis=None):
    """Gradient of ``c = np.cumprod(x, axis)`` with respect to ``x`` (``axis=None``: of the flat
    ``x``), exact where ``x`` holds zeros: no division by ``x``.  Along the axis,
    ``dx[i] = c[i - 1] * r[i]`` (``c[-1]`` read as 1) with ``r[i] = g[i] + x[i + 1] * r[i + 1]``,
    a recurrence solved from the end by doubling: log2(n) steps over the whole array."""
    x = xp.asarray(x)
    shape = x.shape
    if axis is None:
        x, axis = x.reshape(-1), 0
    c = xp.asarray(c).reshape(x.shape)
    dtype = xp.result_type(g, x, 0.0)
    g = xp.moveaxis(xp.broadcast_to(g, x.shape), axis, -1)
    x, c = xp.moveaxis(x, axis, -1), xp.moveaxis(c, axis, -1)
    n = x.shape[-1]
    if n == 0:
        return xp.zeros(shape, dtype)
    a = xp.zeros(x.shape, dtype)  # r[m] = g[m] + a[m] * r[m - 1], counting from the end
    a[..., 1:] = x[..., :0:-1]
    r = _scan(a, g[..., ::-1].astype(dtype))
    before = xp.ones(r.shape, dtype)
    before[..., 1:] = c[..., :-1]
    dx = before * r[..., ::-1]
    if not xp.isfinite(dx).all():  # an overflowed product times r == 0: the gradient is 0 there
        dx = xp.where(r[..., ::-1] == 0, 0.0, dx).astype(dtype)
    return xp.moveaxis(dx, -1, axis).reshape(shape)


def _cumprod_jvp(t, x, c, axis=None):
    """Tangent of ``c = np.cumprod(x, axis)`` in the direction ``t`` (``axis=None``: of the flat
    ``x``), exact where ``x`` holds zeros: no division by ``x``.  Along the axis,
    ``dc[i] = x[i] * dc[i - 1] + c[i - 1] * t[i]`` (``c[-1]`` read as 1), a recurrence solved from
    the start by doubling, as ``_cumprod_dx`` solves its own from the end."""
    x = xp.asarray(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
        t = xp.reshape(t, -1) if xp.ndim(t) else t
    c = xp.asarray(c).reshape(x.shape)
    dtype = xp.result_type(t, x, 0.0)
    t = xp.moveaxis(xp.broadcast_to(t, x.shape), axis, -1)
    x, c = xp.moveaxis(x, axis, -1), xp.moveaxis(c, axis, -1)
    n = x.shape[-1]
    if n == 0:
        return xp.zeros(xp.moveaxis(c, -1, axis).shape, dtype)
    before = xp.ones(x.shape, dtype)
    before[..., 1:] = c[..., :-1]
    b = before * t  # r[m] = b[m] + a[m] * r[m - 1]
    a = xp.zeros(x.shape, dtype)
    a[..., 1:] = x[..., 1:]
    r, w = b.copy(), a.copy()
    step = 1
    while step < n:  # each (w, r) composed with the one step places before (w[0] == 0 ends it)
        r[..., step:] += w[..., step:] * r[..., :-step]
        w[..., step:] *= w[..., :-step].copy()
        step *= 2
    if not xp.isfinite(r).all():  # a window's product overflowed (inf * 0 is NaN): one step at a time
        r = b
        for m in range(1, n):
            r[..., m] += a[..., m] * r[..., m - 1]
    return xp.moveaxis(r, -1, axis)


def _sort_dx(g, x, s, axis=-1):
    """Gradient of ``s = np.sort(x, axis)`` with respect to ``x`` (``axis=None``: of the flat ``x``):
    ``g[j]`` goes back to the element sorted to place ``j``, and elements that tie share evenly
    the gradients of the places they occupy (so no order among equal elements is assumed)."""
    x = xp.asarray(x)
    if axis is None:
        return _sort_dx(g, x.reshape(-1), s, 0).reshape(x.shape)
    s = xp.asarray(s)
    dtype = xp.result_type(g, x, 0.0)
    g = _tie_means(xp.broadcast_to(g, s.shape), s, axis)
    dx = xp.empty(x.shape, dtype)
    xp.put_along_axis(dx, xp.argsort(x, axis=axis), g, axis=axis)
    return dx


def _tie_means(v, s, axis):
    """``v`` (laid out as the sorted ``s`` along ``axis``) with each run of equal values of ``s`` given
    its mean: what elements that tie share (``_sort_dx`` and its adjoint)."""
    if s.ndim and s.shape[axis] > 1:
        sm = xp.moveaxis(s, axis, -1)
        new = xp.ones(sm.shape, bool)
        new[..., 1:] = sm[..., 1:] != sm[..., :-1]
        if not new.all():  # ties: each run of equal values gets its mean
            run = xp.cumsum(new.reshape(-1)) - 1
            vm = xp.moveaxis(v, axis, -1).reshape(-1)
            mean = xp.bincount(run, weights=vm) / xp.bincount(run)
            v = xp.moveaxis(mean[run].reshape(sm.shape), -1, axis)
    return v


def _partition_dx(g, x, p, axis=-1):
    """Gradient of ``p = np.partition(x, kth, axis)`` with respect to ``x``: ``g[j]`` goes back
    to the element ``p[j]`` is, read from the values of ``p`` (sorted, as ``_sort_dx``), not from
    ``np.argpartition``, which may order the sides differently; equal elements share evenly."""
    x = xp.asarray(x)
    if axis is None:
        return _partition_dx(g, x.reshape(-1), p, 0).reshape(x.shape)
    p = xp.asarray(p)
    order = xp.argsort(p, axis=axis)
    g = xp.broadcast_to(g, p.shape)
    return _sort_dx(xp.take_along_axis(g, order, axis=axis), x, xp.take_along_axis(p, order, axis=axis), axis)


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    """``np.trapezoid(y, x, dx, axis)``: NumPy 2's name, ``np.trapz`` before it (NumPy 1.x; NumPy
    2.4 removed ``np.trapz``), so that the module runs on either."""
    try:
        trapezoid = xp.trapezoid
    except AttributeError:  # NumPy 1.x
        trapezoid = xp.trapz
    return trapezoid(y, x, dx, axis)


def _trapezoid_dy(g, y, x, dx=1.0, axis=-1):
    """Gradient of ``np.trapezoid(y, x, dx, axis)`` with respect to ``y``: each sample gets half
    the width of each interval it bounds (``x`` None: ``dx`` apart), times ``g``."""
    y = xp.asarray(y)
    n = y.shape[axis]
    d = _trapezoid_widths(y, x, dx, axis)
    axis = axis % y.ndim
    h = xp.expand_dims(xp.asarray(g), axis) * d * 0.5
    h = xp.broadcast_to(h, xp.broadcast_shapes(h.shape, y.shape[:axis] + (max(n - 1, 0),) + y.shape[axis + 1 :]))
    full = list(h.shape)
    full[axis - len(y.shape)] = n
    dy = xp.zeros(full, xp.result_type(h, y, 0.0))
    lo = (slice(None),) * (len(full) - len(y.shape) + axis)
    dy[lo + (slice(1, None),)] += h
    dy[lo + (slice(None, -1),)] += h
    return _unbroadcast(dy, y)


def _trapezoid_widths(y, x, dx, axis):
    """The widths of the intervals of ``np.trapezoid(y, x, dx, axis)``, shaped as NumPy shapes them."""
    if x is None:
        return xp.asarray(dx)
    x = xp.asarray(x)
    if x.ndim == 1:  # along the axis of y
        return xp.diff(x).reshape((-1,) + (1,) * (y.ndim - 1 - axis % y.ndim))
    return xp.diff(x, axis=axis)  # (axis counts the axes of x here, as NumPy reads it)


def _trapezoid_dxs(g, y, x, dx=1.0, axis=-1):
    """Gradient of ``np.trapezoid(y, x, dx, axis)`` with respect to the sample points ``x``: the
    width of interval ``k``, ``x[k + 1] - x[k]``, has the gradient ``g`` times the mean of its
    two samples; ``x[k]`` ends interval ``k - 1`` and starts interval ``k``."""
    y, x = xp.asarray(y), xp.asarray(x)
    yaxis = axis % y.ndim
    lo = (slice(None),) * yaxis
    h = xp.expand_dims(xp.asarray(g), yaxis) * ((y[lo + (slice(1, None),)] + y[lo + (slice(None, -1),)]) * 0.5)
    if x.ndim == 1:  # one set of points for every row: the widths' gradients summed over the rows
        h = h.sum(axis=tuple(k for k in range(h.ndim) if k != yaxis)) if h.ndim > 1 else h
        xaxis = 0
    else:  # the widths' shape, along the axis of x that NumPy reads
        h = _unbroadcast(h, _trapezoid_widths(y, x, dx, axis))
        xaxis = axis % x.ndim
    full = list(h.shape)
    full[xaxis] += 1
    out = xp.zeros(full, xp.result_type(h, x, 0.0))
    lo = (slice(None),) * xaxis
    out[lo + (slice(1, None),)] += h
    out[lo + (slice(None, -1),)] -= h
    return out
