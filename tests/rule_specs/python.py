"""Python conversions of ``rules/python.py``: ``float(x)``, ``x.item()``, ``x.astype(float)``."""

SPECS: dict = {
    "to_float": [("{f}(x)", [()]), ("{f}(x.sum())", [(3,)]), ("{f}(x[1])", [(3,)])],
}

METHODS: dict = {
    "ndarray.item": [("x.sum().item()", [(2, 3)]), ("x[1].item()", [(3,)])],
    "ndarray.astype": [
        ("x.astype(float)", [(3,)]),
        ("x.astype(np.float64)", [(2, 3)]),
        ("x.astype('float64') * x", [(3,)]),
    ],
}
