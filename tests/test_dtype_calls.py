"""``dtype=`` on the array makers (issue 37): np.array, asarray, zeros, ones, full, arange, eye, empty.

A float dtype is the call then a float cast (differentiable); another dtype (``bool`` for a causal
mask, ``int``) is static code written as the source wrote it.  Each case's gradient is checked
against central finite differences and its value against the user's function.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

CASES = {
    "causal_mask": """
        def f(x):
            T = x.shape[0]
            mask = np.tril(np.ones((T, T), dtype=bool))
            return np.sum(np.where(mask, np.outer(x, x), 0.0))
    """,
    "float_constants": """
        def f(x):
            a = np.array([1, 2, 3], dtype=float)
            b = np.array([[1, 0, 0], [0, 2, 0], [0, 0, 3]], dtype=np.float64)
            return np.sum(x / a) + np.sum(b @ x)
    """,
    "makers": """
        def f(x):
            z = np.zeros(3, dtype=float) + x
            c = np.arange(3, dtype=float)
            e = np.eye(3, dtype=np.float64)
            k = np.full(3, 2, dtype=float)
            n = np.empty(3, dtype=float)
            n[:] = 1.5
            return np.sum(z * c * k * n) + np.sum(e @ np.sin(x))
    """,
    "cast_of_a_value": """
        def f(x):
            z = np.asarray(x, dtype=float)
            w = np.array(x * 2.0, dtype=float)
            idx = np.arange(x.shape[0], dtype=int)
            return np.sum(z ** 3) + np.sum(w[idx] ** 2)
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_dtype_keyword(name, tmp_path):
    source = "import numpy as np\n" + textwrap.dedent(CASES[name])
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    x = np.array([0.3, -0.7, 1.1])
    value, grad = namespace["grad_f"](x)
    assert np.allclose(value, f(x), rtol=1e-12, atol=1e-12)
    check_gradient(f, [x], [grad])


def test_a_number_cast_with_dtype_float_is_served(tmp_path):
    source = "import numpy as np\n\ndef f(x):\n    return np.sum(np.asarray(x, dtype=float) ** 2)\n"
    namespace: dict = {}
    exec(compile(generate(source, "m.py", ["f"]).text, "grad.py", "exec"), namespace)  # noqa: S102
    value, grad = namespace["grad_f"](1.5)
    assert value == 2.25 and grad == 3.0
