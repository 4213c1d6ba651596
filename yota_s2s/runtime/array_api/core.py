"""Helpers of the array-API target, written against the Python array API standard (2024.12).

Each finds the namespace of its arrays itself (``_array_namespace``, through ``array_api_compat``), uses only
the standard's functions and array attributes (``shape``, ``dtype``, ``device``, indexing by
integers, slices, ``None`` and ``...``), and writes nothing in place: a JAX array is immutable,
so ``a[i] = v`` is ``xp.where`` of a mask (``_scatter``).  As ``runtime``'s helpers, they are
copied into the generated module as source; ``array_api_compat`` and ``importlib`` are the
module's imports.
"""

import importlib

try:
    import array_api_compat
except ImportError:  # generating needs no array library: only a generated module imports it
    array_api_compat = None


def _array_namespace(*args):
    """The array API namespace of the arrays among ``args`` (items of lists and tuples included),
    as ``array_api_compat`` finds it (NumPy, PyTorch, JAX, Dask, CuPy, or any library whose arrays
    have ``__array_namespace__``); array_api_compat's NumPy namespace when none is an array (the
    arguments are all Python numbers)."""
    arrays = []
    todo = list(args)
    while todo:
        a = todo.pop()
        if isinstance(a, list | tuple):
            todo.extend(a)
        elif isinstance(a, dict):
            todo.extend(a.values())
        elif array_api_compat.is_array_api_obj(a):
            arrays.append(a)
    if not arrays:
        return importlib.import_module("array_api_compat.numpy")
    return array_api_compat.array_namespace(*arrays)


def _namespace(*args):
    """``(xp, *args)``: the namespace of the arguments (``_array_namespace``), and each argument with a Python
    float made a 0-d array of it, in the floating dtype of the first floating array argument (the
    namespace's default float when there is none): the standard's functions take arrays, not
    numbers, so a float argument's gradient is a 0-d array too."""
    xp = _array_namespace(*args)
    dtype = None
    for a in args:
        if array_api_compat.is_array_api_obj(a) and xp.isdtype(a.dtype, "real floating"):
            dtype = a.dtype
            break
    return (xp, *(xp.asarray(a, dtype=dtype) if type(a) is float else a for a in args))


def _shape(x):
    """The shape of ``x``: ``()`` for a number."""
    return tuple(x.shape) if array_api_compat.is_array_api_obj(x) else ()


def _device(x):
    """The device of ``x`` (None for a number: the namespace's default)."""
    return array_api_compat.device(x) if array_api_compat.is_array_api_obj(x) else None


def _ndim(x):
    """The number of axes of ``x``: 0 for a number."""
    return len(_shape(x))


def _len(x):
    """``len(x)``: the length of an array's first axis (the standard's arrays have no ``__len__``), a list's length."""
    if array_api_compat.is_array_api_obj(x):
        if not x.ndim:
            raise TypeError("len() of unsized object")
        return x.shape[0]
    return len(x)


def _size(x):
    """The number of elements of ``x``: 1 for a number."""
    n = 1
    for k in _shape(x):
        n *= k
    return n


def _real_value(x, what=""):
    """``x``, a value of code passed through that the gradient reads as real: TypeError if complex."""
    dtype = getattr(x, "dtype", None)
    if isinstance(x, complex) or (dtype is not None and _array_namespace(x).isdtype(dtype, "complex floating")):
        why = "the gradient was generated for a real value here (pass it as a parameter declared complex: c: complex)"
        raise TypeError("a complex value from code passed through (" + what + "): " + why + " (docs/complex.md)")
    return x


def _or_one(n):
    """``n``, or 1 where ``n`` is 0: a count to divide by (mean's: a gradient spread over an empty
    array is empty whatever it is divided by, and Python's ``1.0 / 0`` raises)."""
    return n or 1


def _float_dtype(xp, *args):
    """The dtype of a gradient of ``args``: the first floating array's, else the namespace's default."""
    for a in args:
        if array_api_compat.is_array_api_obj(a) and xp.isdtype(a.dtype, "real floating"):
            return a.dtype
    return xp.asarray(0.0).dtype


def _unbroadcast(g, x):
    """Sum ``g`` down to the shape of ``x``: the adjoint of broadcasting ``x``."""
    shape, g_shape = _shape(x), _shape(g)
    if g_shape == shape:
        return g
    xp = _array_namespace(g, x)
    extra = len(g_shape) - len(shape)
    if extra < 0:
        return xp.broadcast_to(xp.asarray(g, dtype=_float_dtype(xp, g, x)), shape)
    ones = [i for i in range(extra, len(g_shape)) if shape[i - extra] == 1 != g_shape[i]]
    return xp.reshape(xp.sum(g, axis=(*range(extra), *ones)), shape)


def _keep_axes(g, x, axis):
    """``g``, a reduction of ``x`` over ``axis`` (an int or a tuple of them), with those axes put
    back (length 1), to broadcast against ``x``; as it is for a number or a 0-d ``x``."""
    n = _ndim(x)
    if not n:
        return g
    xp = _array_namespace(g, x)
    g = xp.asarray(g)
    for a in sorted(a % n for a in (axis if isinstance(axis, tuple) else (axis,))):
        g = xp.expand_dims(g, axis=a)
    return g


def _unreduce(g, x, axis=None):
    """``g`` spread over the shape of ``x`` (the adjoint of a sum over ``axis``, None: all of
    them), in the dtype of ``x``'s gradient; a new array (not a broadcast view)."""
    if axis is not None:
        g = _keep_axes(g, x, axis)
    if not _ndim(x):
        return g
    xp = _array_namespace(g, x)
    return xp.zeros(_shape(x), dtype=_float_dtype(xp, x, g), device=_device(x)) + g


def _grad_zeros(x):
    """Zeros of the shape of ``x`` in the dtype of its gradient (``x``'s for a float array, the
    namespace's default float otherwise); 0.0 for a number; a list of them for a list."""
    if type(x) is float or type(x) is int:
        return 0.0
    if isinstance(x, list | tuple):
        return _grad_items([_grad_zeros(v) for v in x])
    xp = _array_namespace(x)
    return xp.zeros(_shape(x), dtype=_float_dtype(xp, x), device=_device(x))


def _grad_items(items):
    """The gradient buffer of a list or tuple of arrays (``for W, b in params``): a list of the
    items' buffers whose ``+`` adds item by item, where a list's own would join the two lists."""

    class GradItems(list):
        def __add__(self, other):
            return GradItems([a + b for a, b in zip(self, other, strict=True)])

        __radd__ = __add__

    return GradItems(items)


def _transpose(x):
    """``x`` with its axes reversed (NumPy's ``x.T``; the standard's ``.T`` is for 2-D arrays only)."""
    n = _ndim(x)
    if n < 2:
        return x
    return _array_namespace(x).permute_dims(x, tuple(range(n - 1, -1, -1)))


def _stack_items(items):
    """The array of ``items`` (numbers, arrays, lists of them): ``np.array([a, b])``."""
    xp = _array_namespace(items)
    rows = [_stack_items(v) if isinstance(v, list | tuple) else xp.asarray(v) for v in items]
    return xp.stack(rows)


def _unit_seed(f, k):
    """The seed of a Jacobian's row ``k``: an array of the shape of ``f`` with 1.0 at its flat position
    ``k``, zeros elsewhere (NumPy's form writes ``dout.flat[k] = 1.0`` into zeros; the standard has no
    flat view and no in-place write)."""
    xp = _array_namespace(f)
    hot = xp.arange(_size(f), device=_device(f)) == k
    return xp.reshape(xp.astype(hot, _float_dtype(xp, f)), _shape(f))


def _jacobian_stack(rows, f, x):
    """The Jacobian of ``f`` with respect to ``x`` from its rows (one gradient of ``x`` per element of
    ``f``, in ``f``'s flat order): shape ``f.shape + x.shape``."""
    xp = _array_namespace(f, x, *rows)
    dtype = _float_dtype(xp, x, f)
    shape = _shape(x)
    if not rows:  # f has no element
        return xp.zeros(_shape(f) + shape, dtype=dtype, device=_device(x))
    stacked = xp.stack([xp.broadcast_to(xp.asarray(r, dtype=dtype), shape) for r in rows])
    return xp.reshape(stacked, _shape(f) + shape)


def _like(x, y):
    """The value of ``x + y``, ``x - y`` or ``x * y`` that a gradient reads only for its shape and
    dtype.  NumPy's form is an uninitialised array of them; the standard has no function that
    gives the promoted dtype of an array and a Python number in every library, so here the
    product is computed (one operation: ``--no-value`` still leaves out the value's own work)."""
    return x * y


def _like_matmul(x, y):
    """The product ``x @ y`` that a gradient reads only for its shape and dtype (computed, as ``_like``)."""
    return x @ y
