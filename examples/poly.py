"""The 8-variable cubic polynomial from the Yota.jl announcement thread (post #15).

Indices are 0-based, so x has 9 entries and x[0] is unused (its gradient is 0).
The gradient is of a scalar function: for a batch of points x of shape (9, N),
differentiate np.sum(f(x)) instead (grad_f refuses an array value).

    yota-s2s examples/poly.py --out examples/grad_poly.py
"""


def f(x):
    return (
        x[3] * x[8] ** 3
        - 3 * x[3] * x[8] * x[6] ** 2
        - x[1] * x[6] ** 3
        + 3 * x[1] * x[6] * x[8] ** 2
        + x[4] * x[5] ** 3
        - 3 * x[4] * x[5] * x[7] ** 2
        - x[2] * x[7] ** 3
        + 3 * x[2] * x[7] * x[5] ** 2
        - 1.2342523
    )
