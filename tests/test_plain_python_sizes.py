"""Plain Python, round three (issue 37): sizes read at run time, the gamma family without SciPy,
the Hessian of a scalar, and diagnostics that name the right place.

- ``len()`` and ``.shape`` of a differentiated array are static numbers: ``np.vander(t, len(coef))``
  is ``t[:, None] ** powers`` (``frontend/adapters_shape.py``), and a comprehension over
  ``range(washout, len(states))`` (or a list built at run time) is the loop it stands for
  (``frontend/lists.py``).
- ``math.lgamma`` is written with NumPy alone (``runtime/special.py``), accurate to ~1e-13.
- ``hess_NAME`` of a scalar gives H as a number.
- ``assert x.min() > -10.0`` and a dict parameter's string in a ``raise`` message pass through.

Each served case generates ``grad_f`` and checks its value against the user's function and its
gradient against central finite differences.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

CASES: dict[str, tuple[str, list]] = {
    "vander_of_len": (
        """
        def f(coef, t):
            V = np.vander(t, len(coef))
            return np.sum((V @ coef) ** 2)
        """,
        [np.array([0.5, -1.0, 2.0]), np.array([0.0, 0.3, -0.8, 1.2])],
    ),
    "vander_of_shape_increasing": (
        """
        def f(coef, t):
            V = np.vander(t, coef.shape[0], increasing=True)
            return np.sum(np.sin(V @ coef))
        """,
        [np.array([0.5, -1.0, 2.0, 0.1]), np.array([0.0, 0.3, -0.8])],
    ),
    "comprehension_over_run_time_range": (
        """
        def f(states, w):
            washout = 2
            vals = [np.sum(states[i] * w) for i in range(washout, len(states))]
            return sum(v ** 2 for v in vals)
        """,
        [np.random.default_rng(0).normal(size=(6, 3)), np.array([0.2, -0.4, 0.9])],
    ),
    "comprehension_with_a_condition_over_shape": (
        """
        def f(x):
            n = x.shape[0]
            terms = [x[i] * x[i + 1] for i in range(n - 1) if i % 2 == 0]
            return np.sum(np.array(terms)) + len(terms)
        """,
        [np.array([0.3, -0.7, 1.1, 0.4, 2.0])],
    ),
    "nested_comprehension_of_constant_length": (
        """
        def f(x):
            return sum(x[i] * x[j] for i in range(3) for j in range(i + 1, 3) if j != 2 or i == 0)
        """,
        [np.array([0.3, -0.7, 1.1])],
    ),
    "nested_comprehension_of_run_time_length_under_a_condition": (
        """
        def f(x):
            n = len(x)
            pairs = [(x[i] - x[j]) ** 2 for i in range(n) for j in range(i + 1, n)] if n <= 4 else []
            return np.sum(x ** 2) + 0.1 * sum(pairs)
        """,
        [np.array([0.3, -0.7, 1.1, 0.2])],
    ),
    "comprehension_over_zip_of_a_list_and_a_range": (
        """
        def f(w, states, targets, washout=3):
            preds = [states[t] @ w for t in range(washout, len(states))]
            errs = [(p - targets[t]) ** 2 for p, t in zip(preds, range(washout, len(states)))]
            return np.mean(np.array(errs)) + 1e-3 * np.sum(w ** 2)
        """,
        [np.array([0.5, -0.2, 0.3]), np.random.default_rng(2).normal(size=(7, 3)), np.linspace(0.0, 1.0, 7)],
    ),
    "comprehensions_over_rows_and_range_n": (
        """
        def f(x, n):
            return sum([v * v for v in x]) + sum(x[i] for i in range(n))
        """,
        [np.array([0.3, -0.7, 1.1]), 2],
    ),
    "stack_of_a_list_appended_in_a_run_time_loop": (
        """
        def f(x, w):
            rows = []
            for i in range(len(w)):
                rows.append(np.tanh(x * w[i]))
            R = np.stack(rows)
            return np.sum(R ** 2)
        """,
        [np.array([0.3, -0.7, 1.1]), np.array([0.5, 2.0])],
    ),
    "lgamma_without_scipy": (
        """
        def f(a, x):
            return math.lgamma(a) + a * np.sum(x) - sum(math.lgamma(v + 1.0) for v in [2.0, 3.5])
        """,
        [3.3, np.array([0.1, 0.2])],
    ),
    "cross_with_axes": (
        """
        def f(a, b, w):
            c = np.cross(a, b, axisa=0, axisb=1, axisc=0)
            return np.sum(c * w) + np.sum(np.cross(a, b, axis=0) ** 2) + np.sum(np.fabs(a))
        """,
        [np.random.default_rng(1).normal(size=(3, 3)) for _ in range(3)],
    ),
    "assert_on_a_reduction": (
        """
        def f(x):
            assert x.min() > -10.0, "x out of range"
            return np.sum(x ** 2)
        """,
        [np.array([0.3, -0.7, 1.1])],
    ),
    "dict_string_in_a_raise_message": (
        """
        def f(x, cfg):
            s = np.sum(x ** 2) * cfg["scale"]
            if x.ndim != 1:
                raise ValueError("bad mode " + cfg["mode"])
            return s
        """,
        [np.array([0.3, -0.7, 1.1]), {"scale": 2.0, "mode": "sq"}],
    ),
}


def _source(body: str) -> str:
    return "import math\n\nimport numpy as np\n\n" + textwrap.dedent(body)


def _compiled(source: str, tmp_path, **options) -> tuple[object, dict, str]:
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"], **options).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    return f, namespace, text


@pytest.mark.parametrize("name", sorted(CASES))
def test_served_and_checked_against_finite_differences(name, tmp_path):
    body, args = CASES[name]
    f, namespace, text = _compiled(_source(body), tmp_path)
    value, *grads = namespace["grad_f"](*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)
    assert "scipy" not in text


def test_the_gamma_family_in_numpy_matches_the_standard_library_and_scipy():
    from yota_s2s.runtime.special import _digamma, _gammaln, _polygamma

    x = np.concatenate([np.linspace(-30.3, 60.0, 2001), [0.5, 1.0, 2.0, 1e-8, 1e5, -0.5, -2.5]])
    x = x[np.abs(x - np.round(x)) > 1e-3]  # away from the poles (and their conditioning)
    lgamma = np.array([math.lgamma(v) for v in x])
    assert np.max(np.abs(_gammaln(x) - lgamma) / np.maximum(1.0, np.abs(lgamma))) < 1e-13
    special = pytest.importorskip("scipy.special")
    assert np.allclose(_digamma(x), special.digamma(x), rtol=1e-13, atol=1e-13)
    for n in (1, 2, 3):
        assert np.allclose(_polygamma(n, x), special.polygamma(n, x), rtol=1e-13, atol=1e-13)
    assert _gammaln(0.0) == np.inf and _gammaln(-2.0) == np.inf and np.isnan(_digamma(-2.0))
    assert type(_gammaln(3.5)) is np.float64 and _gammaln(np.float32(2.5)).dtype == np.float32


def test_hessian_of_a_scalar_is_a_number(tmp_path):
    source = _source(
        """
        def f(a):
            return a ** 3 + np.sin(a) * math.lgamma(a)
        """
    )
    f, namespace, text = _compiled(source, tmp_path, mode="hessian")
    value, grad, hessian = namespace["hess_f"](1.7)
    assert np.ndim(hessian) == 0 and isinstance(hessian, float)
    h = 1e-4
    assert abs(value - f(1.7)) < 1e-12
    assert abs(grad - (f(1.7 + 1e-6) - f(1.7 - 1e-6)) / 2e-6) < 1e-6
    numeric = (f(1.7 + h) - 2 * f(1.7) + f(1.7 - h)) / h**2
    assert abs(hessian - numeric) < 1e-5 * max(1.0, abs(numeric))
    assert "scipy" not in text


def test_an_untaken_branch_with_an_unknown_name_is_what_python_runs(tmp_path):
    """A branch on a module constant that is not taken is passed over, as Python passes over it (the
    function runs, and so does its gradient); taken, its unknown name is located at its line."""
    source = "import numpy as np\n\nMODE = 'a'\n\n\ndef f(x):\n    if MODE == 'b':\n        return np.sum(x) * missing\n    return np.sum(x ** 2)\n"
    f, namespace, text = _compiled(source, tmp_path)
    assert "missing" not in text
    x = np.array([0.5, -1.5, 2.0])
    value, dx = namespace["grad_f"](x)
    assert value == pytest.approx(f(x))
    check_gradient(f, [x], [dx])
    taken = source.replace("MODE = 'a'", "MODE = 'b'")
    path = tmp_path / "t.py"
    path.write_text(taken, encoding="utf-8")
    with pytest.raises((UserError, UserErrors)) as info:
        generate(taken, str(path), ["f"])
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert (err.code, err.line, err.col) == ("YS030", 8, 28), err.format()


def test_an_error_inside_a_raise_message_is_located_in_the_statement(tmp_path):
    source = (
        "import numpy as np\n\n\ndef f(x, cfg):\n    s = np.sum(x ** 2) * cfg.scale\n    if x.ndim != 1:\n"
        "        raise ValueError('bad ' + str(np.sum(cfg)))\n    return s\n"
    )
    path = tmp_path / "t.py"
    path.write_text(source, encoding="utf-8")
    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, str(path), ["f"])
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert (err.code, err.line, err.col) == ("YS036", 7, 46), err.format()
    assert err.col <= len(source.splitlines()[err.line - 1])


def test_cross_moving_the_product_of_two_2_vectors_raises_like_numpy_ignores_it(tmp_path):
    source = _source(
        """
        def f(a, b):
            return np.sum(np.cross(a, b, axisc=0))
        """
    )
    f, namespace, _ = _compiled(source, tmp_path)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    value, da, db = namespace["grad_f"](a, b)
    assert np.isclose(value, f(a, b))
    check_gradient(f, [a, b], [da, db])
    with pytest.raises(ValueError, match="no vector axis"):
        namespace["grad_f"](rng.normal(size=(4, 2)), rng.normal(size=(4, 2)))
