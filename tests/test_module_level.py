"""Module-level code (issue 37): a module-level name's value is what the module's statements leave in it.

``frontend/module_level.py`` runs the module's statements in order; before it, a name was read
as its first binding (``POWERS = []`` then a loop of ``POWERS.append(p)`` gave a gradient of
0.0 with exit 0).  Each served case generates ``grad_f``, compares its value with the user's
function and its gradient with central finite differences; each refusal is located (YS048)
at the statement the tool does not follow.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

SERVED: dict[str, str] = {
    "loop_append": """
        POWERS = []
        for p in range(1, 4):
            POWERS.append(p)

        def f(x):
            s = 0.0
            for p in POWERS:
                s = s + np.sum(x ** p)
            return s
    """,
    "extend_and_insert": """
        C = [1.0]
        C.extend([2.0, 3.0])
        C.insert(0, 0.5)

        def f(x):
            return np.sum(np.polyval(C, x))
    """,
    "array_in_place": """
        W = np.ones(3)
        W *= 4.0
        W += np.arange(3.0)

        def f(x):
            return np.sum(W * x ** 2)
    """,
    "dict_item": """
        D = {}
        D["k"] = 3.0
        D["w"] = np.linspace(0.0, 1.0, 3)

        def f(x):
            return D["k"] * np.sum(D["w"] * np.sin(x))
    """,
    "dict_item_array_literal": """
        D = {}
        D["a"] = 0.5
        D["b"] = np.array([0.25, -0.5])

        def f(x):
            return (D["a"] + np.sum(D["b"])) * np.sum(x ** 2)
    """,
    "module_if": """
        MODE = "fast"
        if MODE == "fast":
            K = 2.0
        else:
            K = 3.0

        def f(x):
            return K * np.sum(x ** 2)
    """,
    "nested_comprehension": """
        n = 3
        PAIRS = [(i, j) for i in range(n) for j in range(i + 1, n)]

        def f(x):
            s = 0.0
            for i, j in PAIRS:
                s = s + x[i] * x[j]
            return s
    """,
    "unpacked_call": """
        XI, W = np.polynomial.legendre.leggauss(3)

        def f(x):
            return np.sum(W * np.sin(XI * x))
    """,
    "rebound_after_read": """
        S = 2.0
        T = np.ones(3) * S
        S = 5.0

        def f(x):
            return S * np.sum(T * x)
    """,
    "list_of_arrays_appended": """
        ROWS = []
        for i in range(3):
            ROWS.append(np.ones(3) * i)

        def f(x):
            return np.sum(np.stack(ROWS) @ x)
    """,
    "seeded_draws_in_order": """
        RNG = np.random.default_rng(0)
        A = RNG.normal(size=3)
        B = RNG.normal(size=3)

        def f(x):
            return np.sum(B * x) + np.sum(A * x ** 2)
    """,
    "seeded_draw_read_alone": """
        RNG = np.random.default_rng(0)
        A = RNG.normal(size=3)
        B = RNG.normal(size=3)

        def f(x):
            return np.sum(B * x)
    """,
    "main_block_not_read": """
        SCALE = 2.0

        def f(x):
            return SCALE * np.sum(x ** 3)

        if __name__ == "__main__":
            x0 = np.random.randn(3)
            print(f(x0))
    """,
}


def _source(body: str) -> str:
    return "import numpy as np\n" + textwrap.dedent(body)


@pytest.mark.parametrize("name", sorted(SERVED))
def test_module_level_values_are_what_the_statements_leave(name, tmp_path):
    source = _source(SERVED[name])
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    x = np.array([0.3, -0.7, 1.1])
    value, grad = namespace["grad_f"](x)
    assert np.allclose(value, f(x), rtol=1e-12, atol=1e-12)
    check_gradient(f, [x], [grad])
    assert np.any(grad != 0.0)


REFUSED: dict[str, tuple[str, int, str]] = {
    "unseeded_draw": (
        """
        OMEGA = np.random.randn(3)

        def f(x):
            return np.sum(OMEGA * x)
        """,
        3,
        "unseeded random draw (numpy.random.randn)",
    ),
    "unseeded_generator": (
        """
        RNG = np.random.default_rng()
        A = RNG.normal(size=3)

        def f(x):
            return np.sum(A * x)
        """,
        3,
        "unseeded random draw (numpy.random.default_rng)",
    ),
    "main_block_rebinds": (
        """
        SCALE = 1.0

        def f(x):
            return SCALE * np.sum(x)

        if __name__ == "__main__":
            SCALE = 2.0
        """,
        9,
        "changed under if __name__",
    ),
    "alias_changed_in_place": (
        """
        W = np.ones(3)
        V = W
        W *= 2.0

        def f(x):
            return np.sum(V * x)
        """,
        5,
        "holds W",
    ),
    "array_item_written": (
        """
        A = np.arange(3.0)
        A[0] = 5.0

        def f(x):
            return np.sum(A * x)
        """,
        4,
        "has an item written",
    ),
    "loop_over_unknown_values": (
        """
        WS = np.ones(3)
        TOTAL = 0.0
        for w in WS:
            TOTAL += w

        def f(x):
            return TOTAL * np.sum(x)
        """,
        6,
        "changed in a loop",
    ),
    "changed_by_a_call": (
        """
        IDX = np.arange(3)
        np.random.shuffle(IDX)

        def f(x):
            return np.sum(x[IDX] * x)
        """,
        4,
        "passed to a call",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_value_the_tool_cannot_follow_is_refused_at_its_statement(name):
    body, line, words = REFUSED[name]
    with pytest.raises((UserError, UserErrors)) as info:
        generate(_source(body), "m.py", ["f"])
    error = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert error.code == "YS048", str(error)
    assert error.line == line, str(error)
    assert words in error.message


def test_a_seeded_draw_the_function_does_not_read_is_still_drawn(tmp_path):
    """B is the generator's second draw: the first (A) is made even though nothing reads it."""
    source = _source(SERVED["seeded_draw_read_alone"])
    text = generate(source, "m.py", ["f"]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    _, grad = namespace["grad_f"](np.zeros(3))
    rng = np.random.default_rng(0)
    rng.normal(size=3)
    assert np.array_equal(grad, rng.normal(size=3))


def test_sum_of_a_generator_over_static_data_runs_as_python_ran_it(tmp_path):
    """``sum(math.log(d) for d in data)`` was written ``np.sum(<generator>)`` (a TypeError)."""
    source = textwrap.dedent(
        """
        import math
        import numpy as np

        def f(x, data):
            c = sum(math.log(d) for d in data) + max(d * d for d in data)
            return c * np.sum(x ** 2)
        """
    )
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"], wrt=["x"]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    x, data = np.array([0.3, -0.7, 1.1]), [1.5, 2.0, 3.0]
    value, grad = namespace["grad_f"](x, data)
    assert np.allclose(value, f(x, data), rtol=1e-12, atol=1e-12)
    check_gradient(lambda x: f(x, data), [x], [grad])
