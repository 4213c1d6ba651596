"""Plain Python, round six (issue 37, holdout 5): what the fifth holdout set refused, by class.

- ``math.copysign`` / ``np.copysign``: abs(x) with y's sign (``rules/elementwise.py``).

Each served case generates ``grad_f`` and checks its value against the user's function and its
gradient against central finite differences.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

CASES: dict[str, tuple[str, list]] = {
    "math_copysign": (
        """
        def f(a, b):
            return math.hypot(a, b) + math.copysign(a * a, b) + math.copysign(2.0, a) * b
        """,
        [0.7, -1.3],
    ),
    "np_copysign_arrays": (
        """
        def f(x, y):
            return np.sum(np.copysign(x, y) * x) + np.sum(np.copysign(x ** 3, -1.0))
        """,
        [np.array([0.4, -1.2, 0.9]), np.array([-1.0, 2.0, 0.5])],
    ),
}


def _source(body: str) -> str:
    return "import functools\nimport math\nfrom functools import partial\n\nimport numpy as np\n\n" + textwrap.dedent(
        body
    )


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
    f, namespace, _ = _compiled(_source(body), tmp_path)
    value, *grads = namespace["grad_f"](*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)
