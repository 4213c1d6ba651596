"""Everyday idioms of issue 37's third round (holdout 2 of ``benchmarks/fresh``), each checked
against central finite differences of the user's own function, and its value against the
function's: order statistics (np.median, np.quantile, np.percentile), ...
"""

from __future__ import annotations

import copy
import textwrap

import numpy as np
import pytest

from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

CASES: dict[str, tuple[str, object, list[str] | None]] = {}


def case(name: str, source: str, args, wrt: list[str] | None = None):
    CASES[name] = (textwrap.dedent(source), args, wrt)


def arrays(*shapes):
    return lambda rng: [rng.normal(size=s) for s in shapes]


def compiled(source: str, tmp_path, wrt=None, name="f"):
    path = write_project(tmp_path, source)
    text = generate(source, str(path), [name], wrt=wrt).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    return text, namespace[f"grad_{name}"]


# ----------------------------------------------------------------------------- order statistics

case(
    "median_odd_and_even",
    """
    import numpy as np

    def f(x, y):
        return np.median(x**2) + 3.0 * np.median(np.sin(y)) + np.mean(x)
    """,
    arrays((7,), (8,)),
)
case(
    "median_axis_keepdims",
    """
    import numpy as np

    def f(X):
        m = np.median(X, axis=0)
        c = X - np.median(X, axis=1, keepdims=True)
        return np.sum(m**2) + np.sum(c**3) + np.median(X, axis=(0, 1)) + X.shape[0]
    """,
    arrays((4, 5)),
)
case(
    "median_absolute_deviation",
    """
    import numpy as np

    def f(x):
        return np.median(np.abs(x - np.median(x)))
    """,
    arrays((9,)),
)
case(
    "percentile_spread",
    """
    import numpy as np

    def f(x):
        return np.percentile(x, 90) - np.percentile(x, 10) + np.percentile(x, 50.0)
    """,
    arrays((12,)),
)
case(
    "quantile_array_of_q_along_an_axis",
    """
    import numpy as np

    def f(X):
        q = np.quantile(X, [0.1, 0.5, 0.8], axis=1, keepdims=True)
        return np.sum(q**2 * np.arange(1.0, 4.0)[:, None, None])
    """,
    arrays((3, 6)),
)
case(
    "quantile_methods",
    """
    import numpy as np

    def f(x):
        total = 0.0
        for m in ("lower", "higher", "nearest", "midpoint", "linear"):
            total = total + np.quantile(x, 0.33, method=m) ** 2 + np.quantile(x, 0.87, method=m)
        return total
    """,
    arrays((11,)),
)
case(
    "quantile_and_percentile_in_q",
    """
    import numpy as np

    def f(x, q, p):
        return np.quantile(x, q) * 2.0 + np.percentile(x, p) ** 2
    """,
    lambda rng: [rng.normal(size=9), 0.37, 63.0],
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, tmp_path):
    source, make_args, wrt = CASES[name]
    text, grad = compiled(source, tmp_path, wrt)
    f = import_user(tmp_path).f
    args = make_args(np.random.default_rng(0))
    value, *grads = grad(*copy.deepcopy(args))
    assert np.allclose(value, f(*copy.deepcopy(args)), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)
    assert "yota_s2s" not in text


def test_elements_that_tie_at_the_median_share_its_gradient(tmp_path):
    # a subgradient, as np.sort's and np.max's: equal elements share evenly what their places get
    _, grad = compiled("import numpy as np\n\n\ndef f(x):\n    return np.median(x)\n", tmp_path)
    for x, expected in (
        ([3.0, 1.0, 2.0], [0.0, 0.0, 1.0]),
        ([4.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.5, 0.5]),
        ([2.0, 1.0, 2.0, 5.0, 2.0], [1 / 3, 0.0, 1 / 3, 0.0, 1 / 3]),
        ([2.0, 2.0, 1.0, 5.0], [0.5, 0.5, 0.0, 0.0]),
    ):
        value, dx = grad(np.array(x))
        assert value == np.median(x)
        assert np.allclose(dx, expected), (x, dx)
