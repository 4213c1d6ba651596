"""A view read after a write into its array (transform/aliasing.py): NumPy's view sees the write,
the tape's values would not.  Each variant is refused where it is taken (a view whatever the
arguments: YS017), raises when the generated code runs where only the arguments' rank makes it a
view (``r = F[i]`` of a matrix), and is exact where it is a number (a vector's ``F[i]``): the value
of the user's function itself and central differences."""

from __future__ import annotations

import copy
import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .test_control import gradients_match

RNG = np.random.default_rng(539)


def _source(body: str) -> str:
    return "import numpy as np\n\n\n" + textwrap.dedent(body).lstrip("\n")


def _refusal(body: str) -> UserError:
    with pytest.raises((UserError, UserErrors)) as info:
        generate(_source(body), "t.py", ["f"])
    err = info.value
    return err.errors[0] if isinstance(err, UserErrors) else err


# A view whatever the arguments: refused at the read, the fix in the message.
ALWAYS_VIEWS = {
    "slice": (
        """
        def f(F, g):
            r = F[0:2]
            F[1] = F[1] * g
            return np.sum(r)  # read
        """,
        "r = F[0:2].copy()",
    ),
    "slice_of_a_vector": (
        """
        def f(F, g):
            x = F[0] * 1.0
            r = x[1:3]
            x[1:3] = r * g[:2]
            return np.sum(r) + np.sum(x)  # read
        """,
        "r = x[1:3].copy()",
    ),
    "row_by_slice": (
        """
        def f(F, g):
            r = F[1, :]
            F[1, 2] = 7.0
            return np.sum(r * g)  # read
        """,
        "r = F[1, :].copy()",
    ),
    "transpose": (
        """
        def f(F, g):
            r = F.T
            F[1] = F[1] * g
            return np.sum(r[0])  # read
        """,
        "r = F.T.copy()",
    ),
    "reshape": (
        """
        def f(F, g):
            r = F.reshape(-1)
            F[1] = F[1] * g
            return np.sum(r)  # read
        """,
        "r = F.reshape(-1).copy()",
    ),
    "ellipsis": (
        """
        def f(F, g):
            r = F[...]
            F[0] = F[0] * g
            return np.sum(r)  # read
        """,
        "r = F[...].copy()",
    ),
    "row_of_a_matrix_indexed_twice": (  # F[i, j] elsewhere: F has two dimensions, F[0] is a row
        """
        def f(F, g):
            r = F[0]
            F[0, 1] = F[1, 1] * g[0]
            return np.sum(r * g)  # read
        """,
        "r = F[0].copy()",
    ),
    "in_a_loop": (
        """
        def f(F, g):
            s = 0.0
            for i in range(F.shape[0]):
                r = F[i, :]
                F[i] = r * g
                s = s + np.sum(r)  # read
            return s
        """,
        "r = F[i, :].copy()",
    ),
    "taken_before_a_loop_read_in_it": (  # the second iteration reads what the first wrote
        """
        def f(F, g):
            r = F[0:1]
            s = 0.0
            for i in range(F.shape[0]):
                s = s + np.sum(r * g)  # read
                F[i] = F[i] * g
            return s
        """,
        "r = F[0:1].copy()",
    ),
    "written_in_a_branch": (
        """
        def f(F, g):
            r = F[:, 0]
            if g[0] > 0:
                F[0] = g
            return np.sum(r)  # read
        """,
        "r = F[:, 0].copy()",
    ),
}


@pytest.mark.parametrize("name", sorted(ALWAYS_VIEWS))
def test_a_view_read_after_a_write_into_its_array_is_refused(name):
    body, fix = ALWAYS_VIEWS[name]
    err = _refusal(body)
    line = next(n for n, text in enumerate(_source(body).splitlines(), 1) if text.endswith("# read"))
    assert (err.code, err.line) == ("YS017", line), (err.code, err.line, err.message)
    assert "is a view of" in err.message and fix in err.message, err.message


# A view of a matrix, a number of a vector: the generated code raises for a matrix, is exact for a
# vector.
RANK_DECIDES = {
    "row": """
        def f(F, g):
            r = F[1]
            F[1] = F[1] * g
            return np.sum(r * F[0])
        """,
    "augmented_assignment": """
        def f(F, g):
            r = F[1]
            F += g
            return np.sum(r * g) + np.sum(F)
        """,
    "augmented_element": """
        def f(F, g):
            r = F[1]
            F[1] += g
            return np.sum(r * g) + np.sum(F[1])
        """,
    "taken_before_a_loop": """
        def f(F, g):
            r = F[0]
            s = 0.0
            for i in range(F.shape[0]):
                F[i] = F[i] * g
                s = s + np.sum(r * F[i])
            return s + np.sum(r)
        """,
    "taken_before_a_loop_read_first": """
        def f(F, g):
            r = F[0]
            s = 0.0
            for i in range(F.shape[0]):
                s = s + np.sum(r * g)
                F[i] = F[i] * g
            return s
        """,
    "in_a_loop": """
        def f(F, g):
            s = 0.0
            for i in range(F.shape[0]):
                r = F[i]
                F[i] = r * g
                s = s + np.sum(r * F[i])
            return s
        """,
    "swap": """
        def f(F, g):
            t = F[0]
            F[0] = F[1]
            F[1] = t
            return np.sum(F[0] * g) + np.sum(F[1] * g * g)
        """,
    "a_helper_returns_it": """
        def first(A):
            return A[0]


        def f(F, g):
            r = first(F)
            F[0] = F[0] * g
            return np.sum(r * g)
        """,
    "a_local_array": """
        def f(F, g):
            A = F * 2.0
            r = A[1]
            A[1] = A[1] * g
            return np.sum(r * A[0])
        """,
    "in_a_while_loop": """
        def f(F, g):
            s = 0.0
            k = 0
            while k < 2:
                r = F[k]
                F[k] = F[k] * g
                s = s + np.sum(r * g)
                k += 1
            return s
        """,
}


@pytest.mark.parametrize("name", sorted(RANK_DECIDES))
def test_a_row_of_a_matrix_read_after_a_write_raises_when_it_runs(name):
    source = _source(RANK_DECIDES[name])
    generated: dict = {}
    exec(compile(generate(source, "t.py", ["f"]).text, "grad.py", "exec"), generated)  # noqa: S102
    with pytest.raises(ValueError, match=r"t\.py:\d+: .* is a view of .*\(YS017\)"):
        generated["grad_f"](RNG.normal(size=(3, 4)), RNG.normal(size=4))


@pytest.mark.parametrize("name", sorted(RANK_DECIDES))
def test_an_element_of_a_vector_read_after_a_write_is_exact(name):
    gradients_match(_source(RANK_DECIDES[name]), [RNG.normal(size=5), float(RNG.normal())])


@pytest.mark.parametrize("name", ["row", "in_a_loop", "swap"])
def test_a_copied_row_of_a_matrix_is_exact(name):
    body = RANK_DECIDES[name]
    body = body.replace("r = F[1]\n", "r = F[1].copy()\n").replace("r = F[i]\n", "r = F[i].copy()\n")
    body = body.replace("t = F[0]\n", "t = F[0].copy()\n")
    gradients_match(_source(body), [RNG.normal(size=(3, 4)), RNG.normal(size=4)])


def test_a_view_read_before_the_write_only_is_exact():
    source = _source(
        """
        def f(F, g):
            r = F[1]
            F[1] = r / np.sum(r * r) * g
            t = F[0:2]
            return np.sum(F) + np.sum(t * t)
        """
    )
    text = gradients_match(source, [RNG.normal(size=(3, 4)), RNG.normal(size=4)])
    assert "YS017" not in text  # no check: no view is read after a write


def test_the_vector_check_keeps_the_loop_writing_in_place():
    text = generate(_source(RANK_DECIDES["in_a_loop"]), "t.py", ["f"]).text
    loop = text[text.index("for i in range(_t1)") : text.index("# backward")]
    assert "F_1[i] = " in loop and "F_1.copy()" not in loop and "np.ndim(F_1) > 1" in loop


def test_a_module_level_view_of_an_array_changed_after_it_is_refused():
    source = """
        R = W[0]
        for k in range(3):
            W[k] = W[k] * 2.0
        S = R.sum()


        def f(x):
            return np.sum(S * x)
        """
    source = "W = np.arange(12.0).reshape(3, 4)\n" + textwrap.dedent(source)
    with pytest.raises((UserError, UserErrors)) as info:
        generate(_source(source), "t.py", ["f"])
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert err.code == "YS048" and "'R' holds W" in err.message, err.message


def test_the_users_function_is_what_the_tests_compare_against():
    """(The tests above run the source itself: a copy of each argument per call.)"""
    source = _source(RANK_DECIDES["row"])
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    F = RNG.normal(size=(3, 4))
    g = RNG.normal(size=4)
    # NumPy: r is the row, written before it is read
    assert np.isclose(user["f"](copy.deepcopy(F), g), np.sum(F[1] * g * F[0]))
