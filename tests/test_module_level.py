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
    "array_item_written": """
        N = 3
        dt = 0.1
        MASSES = np.ones(N)
        MASSES[0] = 2.0
        A = np.eye(3)
        A[0, 1] = dt
        dt = 5.0  # (read after: A keeps the 0.1 its statement wrote)

        def f(x):
            return np.sum(MASSES * x ** 2) + x @ A @ x + dt * x[0]
    """,
    "loop_over_module_arrays": """
        XI, W = np.polynomial.legendre.leggauss(2)
        F_ELEM = np.zeros(2)
        for xi, w in zip(XI, W):
            shape = np.array([(1 - xi) / 2, (1 + xi) / 2])
            F_ELEM += w * shape
        TOTAL = 0.0
        for w in np.ones(3):
            TOTAL += w

        def f(x):
            return np.sum(F_ELEM * x[:2]) * TOTAL
    """,
    "if_on_module_arrays": """
        A = np.arange(3.0)
        if np.max(A) > 1.0:
            A = A / np.max(A)
            B = 2.0
        else:
            B = 3.0

        def f(x):
            return np.sum(A * x ** 2) * B
    """,
    "in_place_reading_itself": """
        RNG = np.random.default_rng(42)
        W = RNG.normal(size=(3, 3))
        W *= 0.9 / np.max(np.abs(np.linalg.eigvals(W)))

        def f(x):
            return np.sum(np.tanh(W @ x))
    """,
    "keys_from_fstrings": """
        TABLE = {}
        for i, s in enumerate([0.5, 1.0, 2.0]):
            TABLE[f"s{i}"] = s

        def f(x):
            return sum(TABLE[k] * np.sum(x ** 2) for k in TABLE) + TABLE["s2"] * x[0]
    """,
    "rebound_from_itself": """
        W = np.ones(3)
        W = W * 2.0
        ROWS = []
        ROWS.append(1.0)
        ROWS = np.array(ROWS)

        def f(x):
            return np.sum(W * x ** 2) + ROWS[0] * x[0]
    """,
    "appended_in_a_loop_over_drawn_values": """
        RNG = np.random.default_rng(11)
        POS = RNG.uniform(0, 3, size=(6, 2))
        EDGES = [(i, j) for i in range(6) for j in range(i + 1, 6) if np.linalg.norm(POS[i] - POS[j]) < 1.5]
        REST = []
        for i, j in EDGES:
            REST.append(np.linalg.norm(POS[i] - POS[j]))
        REST = np.array(REST)

        def f(x):
            return np.sum(REST) * np.sum(x ** 2) + len(EDGES) * x[1]
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
    "set_in_a_loop_only": (
        """
        WS = np.ones(3)
        for w in WS:
            LAST = 2.0 * w

        def f(x):
            return LAST * np.sum(x)
        """,
        4,
        "may leave it unset",
    ),
    "changed_by_a_call": (
        """
        IDX = np.arange(3)
        np.random.shuffle(IDX)

        def f(x):
            return np.sum(x[IDX] * x)
        """,
        4,
        "unseeded random draw (numpy.random.shuffle)",
    ),
    "read_by_a_function_then_changed": (
        """
        SCALE = 1.0

        def helper():
            return SCALE * 3.0

        B = np.ones(2) * helper()
        SCALE = 2.0

        def f(x):
            return np.sum(B * x)
        """,
        8,
        "by helper(), which reads 'SCALE', changed after that line",
    ),
    "item_of_an_item_written": (
        """
        D = {"k": np.zeros(2)}
        D["k"][0] = 3.0

        def f(x):
            return np.sum(D["k"]) * x[0]
        """,
        4,
        "",
    ),
    "changed_by_a_seeded_generator": (
        """
        RNG = np.random.default_rng(0)
        IDX = np.arange(3)
        RNG.shuffle(IDX)

        def f(x):
            return np.sum(x[IDX] * x)
        """,
        5,
        "shuffle",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_value_the_tool_cannot_follow_is_refused_at_its_statement(name):
    body, line, words = REFUSED[name]
    with pytest.raises((UserError, UserErrors)) as info:
        generate(_source(body), "m.py", ["f"])
    error = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert error.code == ("YS017" if name == "item_of_an_item_written" else "YS048"), str(error)
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
