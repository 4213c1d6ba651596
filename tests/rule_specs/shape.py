"""Shape and indexing primitives: call templates and shapes.

Variadic primitives are called as in NumPy, ``{f}([x, y], axis=0)``: ``x`` and ``y`` are the
elements of the list.
"""

SPECS: dict = {
    "copy": [("{f}(x)", [(3,)]), ("{f}(x)", [(2, 3)]), ("{f}(x)", [()])],
    "ravel": [("{f}(x)", [(2, 3)]), ("{f}(x)", [(3,)]), ("{f}(x)", [()]), ("{f}(x.T)", [(2, 3)])],
    "swapaxes": [
        ("{f}(x, 0, 1)", [(2, 3)]),
        ("{f}(x, axis1=2, axis2=0)", [(2, 3, 4)]),
        ("{f}(x, -1, -2)", [(2, 3, 4)]),
        ("{f}(x, 1, 1)", [(2, 3)]),
    ],
    "moveaxis": [
        ("{f}(x, 0, -1)", [(2, 3, 4)]),  # not its own inverse
        ("{f}(x, source=2, destination=0)", [(2, 3, 4)]),
        ("{f}(x, (0, 1), (2, 0))", [(2, 3, 4)]),
        ("{f}(x, [0, 2], [1, 0])", [(2, 3, 4)]),
    ],
    "expand_dims": [
        ("{f}(x, 0)", [(3,)]),
        ("{f}(x, axis=-1)", [(2, 3)]),
        ("{f}(x, (0, 2))", [(3,)]),
        ("{f}(x, 0)", [()]),
    ],
    "squeeze": [
        ("{f}(x)", [(1, 3, 1)]),
        ("{f}(x, axis=0)", [(1, 3, 1)]),
        ("{f}(x, -1)", [(2, 1)]),
        ("{f}(x, axis=(0, 2))", [(1, 3, 1)]),
        ("{f}(x)", [(3,)]),
    ],
    "atleast_1d": [("{f}(x)", [()]), ("{f}(x)", [(3,)]), ("{f}(x)", [(2, 3)])],
    "atleast_2d": [("{f}(x)", [()]), ("{f}(x)", [(3,)]), ("{f}(x)", [(2, 3)])],
    "flip": [
        ("{f}(x)", [(3,)]),
        ("{f}(x)", [(2, 3)]),
        ("{f}(x, 0)", [(2, 3)]),
        ("{f}(x, axis=-1)", [(2, 3)]),
        ("{f}(x, axis=(0, 2))", [(2, 3, 4)]),
        ("{f}(x) * x", [(3,)]),  # the gradient of x itself meets the flipped one
    ],
    "fliplr": [("{f}(x)", [(2, 3)]), ("{f}(x)", [(2, 3, 2)])],
    "flipud": [("{f}(x)", [(3,)]), ("{f}(x)", [(2, 3)])],
    "tile": [
        ("{f}(x, 2)", [(3,)]),
        ("{f}(x, (2, 1))", [(3,)]),  # reps longer than x.ndim: x becomes a row
        ("{f}(x, (2, 3))", [(2, 3)]),
        ("{f}(x, reps=3)", [(2, 3)]),  # reps shorter than x.ndim: the last axis
        ("{f}(x, (2, 1, 2))", [(2, 3)]),
        ("{f}(x, 3)", [()]),
    ],
    "repeat": [
        ("{f}(x, 2)", [(3,)]),
        ("{f}(x, 2)", [(2, 3)]),  # flattened
        ("{f}(x, 3, axis=0)", [(2, 3)]),
        ("{f}(x, 2, axis=-1)", [(2, 3)]),
        ("{f}(x, repeats=(1, 0, 3), axis=1)", [(2, 3)]),  # a count per element, one of them 0
        ("{f}(x, [2, 1, 1, 0, 2, 1])", [(2, 3)]),
        ("{f}(x, 3)", [()]),
    ],
    "concatenate": [
        ("{f}([x, y])", [(3,), (2,)]),
        ("{f}((x, y), 0)", [(2, 3), (1, 3)]),
        ("{f}([x, y], axis=1)", [(2, 3), (2, 2)]),
        ("{f}([x, y], axis=-1)", [(2, 3), (2, 1)]),
        ("{f}([x, y], axis=None)", [(2, 3), (4,)]),
        ("{f}([x, y, x], axis=0)", [(2,), (3,)]),  # an operand twice
        ("{f}([x])", [(3,)]),
    ],
    "stack": [
        ("{f}([x, y])", [(3,), (3,)]),
        ("{f}([x, y], axis=1)", [(3,), (3,)]),
        ("{f}([x, y], axis=-1)", [(2, 3), (2, 3)]),
        ("{f}((x, y, x), 1)", [(2, 3), (2, 3)]),
        ("{f}([x, y])", [(), ()]),
    ],
    "hstack": [
        ("{f}([x, y])", [(3,), (2,)]),  # 1-D: joined along axis 0
        ("{f}([x, y])", [(2, 3), (2, 1)]),  # along axis 1
        ("{f}((x, y))", [(), (3,)]),
        ("{f}([x, y])", [(), ()]),
        ("{f}([x, y, x])", [(2, 1, 3), (2, 2, 3)]),
    ],
    "vstack": [
        ("{f}([x, y])", [(3,), (3,)]),  # 1-D: rows
        ("{f}([x, y])", [(2, 3), (3,)]),
        ("{f}((x, y))", [(2, 3), (1, 3)]),
        ("{f}([x, y])", [(), ()]),
        ("{f}([x, y, x])", [(1, 2, 3), (2, 2, 3)]),
    ],
    "take": [
        ("{f}(x, 1)", [(3,)]),
        ("{f}(x, [0, 2, 2])", [(3,)]),  # a repeated index: both reads count
        ("{f}(x, [0, 5, 5, 1])", [(2, 3)]),  # flattened
        ("{f}(x, [1, 1, 0], axis=1)", [(2, 3)]),
        ("{f}(x, -1, axis=0)", [(2, 3)]),
        ("{f}(x, [2, 0], axis=-1)", [(2, 2, 3)]),
    ],
    "diff": [
        ("{f}(x)", [(4,)]),
        ("{f}(x, 2)", [(5,)]),
        ("{f}(x, n=3, axis=0)", [(5, 2)]),
        ("{f}(x, axis=0)", [(3, 4)]),
        ("{f}(x, n=2, axis=-1)", [(2, 3, 4)]),
        ("{f}(x, n=4)", [(2, 3)]),  # longer than the axis: empty, no gradient
        ("{f}(x, n=0)", [(3,)]),
        ("{f}(x, prepend=0.0)", [(4,)]),  # prepend=/append= of arrays: tests/test_rules_shape.py
        ("{f}(x, axis=0, prepend=1.0, append=[[2.0, -1.0]])", [(3, 2)]),
    ],
    "roll": [
        ("{f}(x, 1)", [(4,)]),
        ("{f}(x, -2)", [(2, 3)]),  # flattened
        ("{f}(x, 2, axis=1)", [(2, 3)]),
        ("{f}(x, shift=(1, -1), axis=(0, -1))", [(2, 3, 4)]),
        ("{f}(x, 7, 0)", [(3, 2)]),  # more than the axis' length
        ("{f}(x, (1, 2), axis=1)", [(2, 3)]),  # the same axis twice
    ],
    "rollaxis": [
        ("{f}(x, 1)", [(2, 3, 4)]),
        ("{f}(x, 2, 1)", [(2, 3, 4)]),
        ("{f}(x, -1, start=0)", [(2, 3, 4)]),
        ("{f}(x, 0, 3)", [(2, 3, 4)]),
        ("{f}(x, axis=1, start=-1)", [(2, 3, 4)]),
        ("{f}(x, 1, 1)", [(2, 3)]),
    ],
    "pad": [
        ("{f}(x, 1)", [(3,)]),
        ("{f}(x, (2, 1), constant_values=1.5)", [(3,)]),
        ("{f}(x, ((1, 0), (0, 2)))", [(2, 3)]),
        ("{f}(x, ((1,), (2,)), 'constant', constant_values=(1.0, 2.0))", [(2, 3)]),
        ("{f}(x, 2, mode='edge')", [(3,)]),
        ("{f}(x, ((1, 2), (2, 0)), mode='edge')", [(2, 3)]),
        ("{f}(x, (2, 3), mode='reflect')", [(4,)]),
        ("{f}(x, 5, mode='reflect')", [(3,)]),  # wider than x: reflected again
        ("{f}(x, ((1, 1), (2, 2)), mode='reflect')", [(3, 3)]),
        ("{f}(x, (3, 1), mode='symmetric')", [(2,)]),
        ("{f}(x, 1, 'symmetric')", [(2, 3)]),
        ("{f}(x, (2, 5), mode='wrap')", [(3,)]),
        ("{f}(x, ((0, 1), (4, 1)), mode='wrap')", [(2, 3)]),
        ("{f}(x, 1, mode='reflect', reflect_type='even')", [(2, 2, 3)]),
    ],
    "tril": [
        ("{f}(x)", [(3, 3)]),
        ("{f}(x, 1)", [(3, 4)]),
        ("{f}(x, k=-1)", [(4, 3)]),
        ("{f}(x)", [(2, 3, 3)]),
        ("{f}(x, k=1)", [(3,)]),  # a vector: broadcast to a square matrix first
    ],
    "triu": [
        ("{f}(x)", [(3, 3)]),
        ("{f}(x, -1)", [(3, 4)]),
        ("{f}(x, k=2)", [(2, 4, 3)]),
        ("{f}(x)", [(3,)]),
    ],
    "column_stack": [
        ("{f}([x, y])", [(3,), (3,)]),
        ("{f}((x, y))", [(3, 2), (3,)]),
        ("{f}([x, y, x])", [(2, 1), (2, 3)]),
        ("{f}([x, y])", [(), ()]),
        ("{f}([x])", [(2, 2, 3)]),
    ],
    "atleast_3d": [("{f}(x)", [()]), ("{f}(x)", [(3,)]), ("{f}(x)", [(2, 3)]), ("{f}(x)", [(2, 1, 3, 2)])],
    "take_along_axis": [
        ("{f}(x, np.array([[0, 2, 2], [1, 0, 1]]), axis=1)", [(2, 3)]),  # repeats accumulate
        ("{f}(x, np.array([[1, 0, 1]]), 0)", [(2, 3)]),  # indices broadcast along axis 1
        ("{f}(x, np.argsort(x, axis=-1))", [(2, 3)]),  # NumPy's default axis=-1
        ("{f}(x, np.array([[[1], [0]]]), axis=-1)", [(2, 2, 3)]),
        ("{f}(x, np.array([3, 0, 3, 5]), axis=None)", [(2, 3)]),
        ("{f}(x, np.array([-1, 0]), axis=0)", [(3,)]),
    ],
}

METHODS: dict = {
    "ndarray.copy": [("x.copy()", [(3,)]), ("x.copy()", [(2, 3)])],
    "ndarray.ravel": [("x.ravel()", [(2, 3)]), ("x.T.ravel()", [(2, 3)])],
    "ndarray.flatten": [("x.flatten()", [(2, 3)]), ("x.flatten()", [(3,)]), ("x.T.flatten()", [(2, 3)])],
    "ndarray.swapaxes": [("x.swapaxes(0, 1)", [(2, 3)]), ("x.swapaxes(-1, 0)", [(2, 3, 4)])],
    "ndarray.squeeze": [
        ("x.squeeze()", [(1, 3, 1)]),
        ("x.squeeze(0)", [(1, 3)]),
        ("x.squeeze(axis=(0, 2))", [(1, 3, 1)]),
    ],
    "ndarray.repeat": [("x.repeat(2)", [(2, 3)]), ("x.repeat(2, axis=1)", [(2, 3)]), ("x.repeat((2, 0), 0)", [(2, 3)])],
    "ndarray.take": [("x.take([0, 0, 2])", [(3,)]), ("x.take([1, 0, 1], axis=0)", [(2, 3)])],
}

DOMAIN: dict = {}
