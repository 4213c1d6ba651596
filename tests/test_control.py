"""Loops and branches beyond finite differences (tests/test_corpus.py checks every gradient of
tests/corpus_control.py): the output's size, its shape, and the loop forms that are refused."""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.codegen.module import HELPERS_BANNER
from yota_s2s.pipeline import generate

from . import corpus_control as corpus
from .gradcheck import assert_close, numeric_grad

SOURCE = Path(corpus.__file__).read_text(encoding="utf-8")


def test_a_loop_stays_a_loop_whatever_the_trip_count():
    """The output of a 10-step and a 1000-step rollout differ only in the bound."""
    small = (
        generate(SOURCE, "tests/corpus_control.py", ["euler_10"])
        .text.split("def grad_euler_10")[1]
        .split(HELPERS_BANNER)[0]
    )
    large = (
        generate(SOURCE, "tests/corpus_control.py", ["euler_1000"])
        .text.split("def grad_euler_1000")[1]
        .split(HELPERS_BANNER)[0]
    )
    assert len(small.splitlines()) == len(large.splitlines())
    assert small.replace("10", "N").replace("euler_N", "e") == large.replace("1000", "N").replace("euler_N", "e")
    assert "for _ in range(10):" in small and "for _ in reversed(range(1000)):" in large.replace("__1", "_")


def test_a_branch_records_the_taken_side_and_the_backward_sweep_follows_it():
    text = generate(SOURCE, "tests/corpus_control.py", ["branch_sign"]).text
    body = text.split("def grad_branch_sign")[1].split(HELPERS_BANNER)[0]
    assert body.count("if _t1:") == 2 or body.count("if np.sum(x) > 0:") == 1, body
    code = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))
    assert code.count("np.exp(") == 1  # the backward branch reuses the forward exp


def test_reads_of_x_in_and_around_loops_add_into_one_buffer_in_place():
    """x[i] read in two loops and x[0], x[1] before them: the backward loops and the reads after
    them write into one gradient array in place. A copy per write (``_index_add``) made the
    gradient quadratic in the trip count (DESIGN: per-index gradient arrays)."""
    text = generate(SOURCE, "tests/corpus_control.py", ["loop_reads_outside_reads"]).text
    body = text.split("def grad_loop_reads_outside_reads")[1].split(HELPERS_BANNER)[0]
    assert "_index_add" not in text and body.count("_grad_zeros(x)") == 1
    assert "dx_1[i] += " in body and "dx[i_1] += " in body and "dx_1[0] += " in body


def test_a_while_loop_is_replayed_from_its_stack():
    text = generate(SOURCE, "tests/corpus_control.py", ["newton_sqrt"]).text
    assert "while np.max(np.abs(" in text and "while _stack:" in text


@pytest.mark.parametrize(
    ("source", "code", "line", "col"),
    [
        (
            "def f(x, W1):\n    for W in (W1, W1):\n        if x > 0:\n            break\n        x = W @ x\n    return x\n",
            "YS011",
            2,
            5,
        ),
    ],
)
def test_unsupported_loop_forms_are_located_errors(source, code, line, col):
    from yota_s2s.errors import UserError, UserErrors

    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, "t.py", ["f"])
    errors = getattr(info.value, "errors", [info.value])
    assert (errors[0].code, errors[0].line, errors[0].col) == (code, line, col)


def test_a_path_that_returns_none_raises_at_run_time():
    # Python's f returns None there: no number to differentiate, never a made-up gradient
    source = "def f(x):\n    for i in range(3):\n        if x > i:\n            return\n    return x\n"
    namespace: dict = {}
    exec(compile(generate(source, "t.py", ["f"]).text, "grad_t.py", "exec"), namespace)  # noqa: S102
    assert namespace["grad_f"](-1.0) == (-1.0, 1.0)
    with pytest.raises(TypeError, match="returned None"):
        namespace["grad_f"](2.0)


# --------------------------------------------------------------------------- carried values (issue 23)


def gradients_match(source: str, args: list, name: str = "f") -> str:
    """Both forms of ``grad_NAME`` (with the value and ``--no-value``) against central differences;
    the text of the form with the value."""
    source = textwrap.dedent(source).lstrip("\n")
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source

    def f(*a):  # the source may write into its arguments: each call gets copies
        return user[name](*copy.deepcopy(a))

    texts = []
    for value in (True, False):
        text = generate(source, "t.py", [name], value=value).text
        texts.append(text)
        generated: dict = {}
        exec(compile(text, "grad.py", "exec"), generated)  # noqa: S102 - our output
        result = generated[f"grad_{name}"](*copy.deepcopy(args))
        grads = list(result[1:] if value else result)
        if value:
            assert np.allclose(result[0], f(*args)), (result[0], f(*args))
        for i, g in enumerate(grads):
            if isinstance(args[i], int):
                assert g is None
                continue
            assert_close(g, numeric_grad(f, list(args), i), f"d{i} ({'value' if value else 'no value'})")
            for leaf in g.values() if isinstance(g, dict) else [g]:
                assert np.asarray(leaf).dtype.kind == "f", (i, leaf)  # never dtype object
    return texts[0]


A = [0.3, -0.5, 0.8]
X = [1.0, 2.0, -1.5]

CARRIED = {
    # the backward loop pops into the loop's own name: dx, summed after it, read the popped value
    "carried_value_read_after_its_loop": (
        """
        import numpy as np


        def f(a, x):
            b = a * x
            for k in range(2):
                a = np.tanh(a)
            return np.sum(a * x) + np.sum(b)
        """
    ),
    "carried_value_read_after_its_while_loop_with_break": (
        """
        import numpy as np


        def f(a, x):
            b = a * x
            k = 0
            while True:
                a = np.sin(a) * 0.9
                k += 1
                if k >= 3:
                    break
            return np.sum(a * x) + np.sum(b) + np.sum(a * a)
        """
    ),
    "carried_value_of_a_branch_read_after_the_loop": (
        """
        import numpy as np


        def f(a, x):
            b = a * x
            if np.sum(a) > 0:
                a = np.tanh(a)
            for k in range(2):
                a = np.sin(a)
            return np.sum(a * x) + np.sum(b)
        """
    ),
    # an inner loop's result takes the carried name of the outer backward loop: the new adjoint
    # of a must not take that name while the inner loop's result is still read
    "inner_loop_result_read_after_the_outer_adjoint": (
        """
        import numpy as np


        def f(a, x):
            k = 0
            while k < 3:
                a = np.maximum(a, x) + x
                for j in range(2):
                    t = np.max(x * a)
                k += 1
            return np.sum(t * x) + np.sum(a)
        """
    ),
    # the adjoint of a[0] = ... zeroes element 0 of a copy; a[0] read after the write needs the old one
    "element_written_then_read_in_a_loop": (
        """
        import numpy as np


        def f(a, x):
            b = a * 2.0
            s = 0.0
            for k in range(2):
                b[0] = x[1]
                v = b[0]
                s = s + v * a[2]
            return s
        """
    ),
    "element_written_then_read_in_a_loop_and_after": (
        """
        import numpy as np


        def f(a, x):
            b = a * 2.0
            for k in range(2):
                b[0] = x[k]
                a = a * b[0]
            return np.sum(a) + b[0] * b[1]
        """
    ),
    # the adjoint's first in-place write is into a copy of the carried adjoint (it was never made)
    "write_into_an_argument_in_a_loop_then_read": (
        """
        import numpy as np


        def f(a, x):
            for k in range(1):
                a[2] = np.tanh(0.5)
                t = a[1]
            for j in range(1):
                c = x * t * t
            return np.sum(a * x) + np.sum(c)
        """
    ),
    "nested_loops_write_then_maximum": (
        """
        import numpy as np


        def f(a, x):
            for i in range(1):
                for j in range(1):
                    t = np.sum(np.cos(x))
                    a[0] = t
                a = np.maximum(x, a) - x
                c = a * a
            return np.sum(c * x) + np.sum(c * 0.5)
        """
    ),
    "while_writes_then_the_outer_loop_reassigns": (
        """
        import numpy as np


        def f(a, x):
            for i in range(2):
                k = 0
                while k < 2:
                    a[1] = 1.0
                    k += 1
                a = np.cos(np.cos(a))
                b = a * 0.5 * a
            c = x + a
            return np.sum(np.tanh(np.maximum(a, c)) * x) + np.sum(np.cos(b) + b)
        """
    ),
    # max(a) saved after the branch reassigned a: the saved value was another a, so the mask of
    # the maximum was empty and the gradient 0 / 0 = NaN (or a wrong element)
    "max_of_a_value_a_branch_reassigns_in_nested_loops": (
        """
        import numpy as np


        def f(a, x):
            for i in range(2):
                for k in range(1):
                    a[k] = a[k] * 1.5
                if i == 1:
                    a = x * np.max(a)
            return np.sum(a * x)
        """
    ),
    "max_mask_after_nested_while_loops_and_a_branch": (
        """
        import numpy as np


        def f(a, x):
            s = np.sum(a - a)
            for i in range(2):
                k = 0
                while k < 1:
                    c = x * 1.0
                    k += 1
                j = 0
                while j < 1:
                    a[j] = a[j]
                    j += 1
                if i == 0:
                    pass
                else:
                    a = x * x * np.max(a)
            return np.sum(np.cos(np.tanh(x)) * x) + np.sum(c) + s + np.sum(a)
        """
    ),
}


@pytest.mark.parametrize("name", sorted(CARRIED))
def test_carried_values_and_writes_in_loops_match_finite_differences(name):
    gradients_match(CARRIED[name], [np.array([0.3, -0.5, 0.8]), np.array([1.0, 2.0, -1.5])])


def test_a_value_popped_by_a_backward_loop_never_takes_a_name_read_after_it():
    """The forward loop's result ``a_1`` is read after the backward loop (by dx): the backward loop
    pops into a name of its own."""
    text = gradients_match(CARRIED["carried_value_read_after_its_loop"], [np.array(A), np.array(X)])
    body = text.split("def grad_f")[1].split(HELPERS_BANNER)[0]
    popped = body.split("_stack.pop()")[0].rsplit("\n", 1)[1].split("=")[0].strip()
    assert popped != "a_1" and "a_1 = np.tanh(a_1)" in body and "* a_1, x)" in body.split("reversed")[1]


# --------------------------------------------------------------------------- counters, loop variables


ACCEPTED = {
    # k += 1 in a branch of the body (break makes one): the body's copy of the scope is no other name
    "counter_in_a_while_loop_with_break": (
        """
        import numpy as np


        def f(a, x):
            k = 0
            while True:
                a = np.tanh(a) * x
                if np.sum(a) > 5.0:
                    break
                k += 1
                if k >= 3:
                    break
            return np.sum(a) * k
        """
    ),
    "write_into_an_array_in_a_branch_and_a_loop": (
        """
        import numpy as np


        def f(a, x):
            b = a * 1.0
            if np.sum(x) > 0:
                for k in range(2):
                    b[k] = x[k] * b[2]
            else:
                b[2] = np.max(a)
            return np.sum(b * x)
        """
    ),
    "loop_variable_after_the_loop": (
        """
        import numpy as np


        def f(a, x):
            for i in range(2):
                a = np.sin(a) * x
            return np.sum(a) * i + a[i] * x[i]
        """
    ),
    "loop_variable_after_a_break": (
        """
        import numpy as np


        def f(a, x):
            for i in range(3):
                a = a * x
                if np.sum(a) < 0.0:
                    break
            if i > 0:
                return np.sum(a) * i + a[i]
            return np.sum(a)
        """
    ),
    "loop_variable_reassigned_in_the_body": (
        """
        import numpy as np


        def f(a, x):
            s = 0.0
            for i in range(2):
                s = s + a[i]
                i = i + 1
            return s * x[i]
        """
    ),
    "row_and_index_after_enumerate": (
        """
        import numpy as np


        def f(a, x):
            s = 0.0
            for i, v in enumerate(a):
                s = s + v * x[i]
            return s * v + x[i]
        """
    ),
    "nested_loops_and_their_variables_after": (
        """
        import numpy as np


        def f(a, x):
            s = 0.0
            for i in range(3):
                for j in range(i + 1):
                    s = s + a[j] * x[i]
                s = s + a[j] * i
            return s + a[i] * a[j]
        """
    ),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_counters_and_loop_variables_are_accepted_and_right(name):
    gradients_match(ACCEPTED[name], [np.array(A), np.array(X)])


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_loop_variable_keeps_its_value_before_an_empty_loop(n):
    source = """
        import numpy as np


        def f(a, x, n):
            i = 2
            for i in range(n):
                a = a * x
            return np.sum(a) * i
        """
    gradients_match(source, [np.array(A), np.array(X), n])


def test_a_loop_variable_nothing_reads_after_its_loop_is_not_carried():
    """Two loops over ``i``: the second assigns ``i`` before reading it, so the first loop's ``i``
    is dead after it and the loops carry nothing for it."""
    text = generate(SOURCE, "tests/corpus_control.py", ["loop_reads_outside_reads"]).text
    assert "i = None" not in text and "i = i_" not in text


FIRST_SET_IN_THE_LOOP = {
    # a name first set in the loop, read before it is set by the next iteration (was YS030)
    "read_by_the_next_iteration": (
        """
        def f(m, x):
            s = 0.0
            for t in range(3):
                if t > 0:
                    s = s + np.sum(h * m.b)
                h = np.tanh(m.W @ x[t])
            return s
        """
    ),
    "set_in_a_branch_and_read_in_the_other": (
        """
        def f(m, x):
            s = 0.0
            for t in range(3):
                if t == 0:
                    h = m.W @ x[t]
                else:
                    h = np.tanh(h + m.b)
                s = s + np.sum(h)
            return s
        """
    ),
    "an_attribute_named_in_the_loop_and_read_after": (
        """
        def f(m, x):
            s = 0.0
            for t in range(3):
                W = m.W
                s = s + np.sum(W @ x[t])
            return s + np.sum(W * m.b)
        """
    ),
    "set_in_a_while_loop_and_read_after": (
        """
        def f(m, x):
            k = 0
            while k < 3:
                h = np.tanh(m.W @ x[k] + m.b)
                k += 1
            return np.sum(h * m.b)
        """
    ),
}


@pytest.mark.parametrize("name", sorted(FIRST_SET_IN_THE_LOOP))
def test_a_name_first_set_in_a_loop_gives_float_gradients_of_an_object(name):
    source = (
        "import numpy as np\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass M:\n"
        "    W: np.ndarray\n    b: np.ndarray\n\n" + textwrap.dedent(FIRST_SET_IN_THE_LOOP[name])
    )
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    r = np.random.default_rng(3)
    gradients_match(source, [user["M"](r.standard_normal((3, 3)), r.standard_normal(3)), r.standard_normal((3, 3))])
