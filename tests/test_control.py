"""Loops and branches beyond finite differences (tests/test_corpus.py checks every gradient of
tests/corpus_control.py): the output's size, its shape, and the loop forms that are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from yota_s2s.pipeline import generate

from . import corpus_control as corpus

SOURCE = Path(corpus.__file__).read_text(encoding="utf-8")


def test_a_loop_stays_a_loop_whatever_the_trip_count():
    """The output of a 10-step and a 1000-step rollout differ only in the bound."""
    small = generate(SOURCE, "tests/corpus_control.py", ["euler_10"]).text.split("def grad_euler_10")[1]
    large = generate(SOURCE, "tests/corpus_control.py", ["euler_1000"]).text.split("def grad_euler_1000")[1]
    assert len(small.splitlines()) == len(large.splitlines())
    assert small.replace("10", "N").replace("euler_N", "e") == large.replace("1000", "N").replace("euler_N", "e")
    assert "for _ in range(10):" in small and "for _ in reversed(range(1000)):" in large.replace("__1", "_")


def test_a_branch_records_the_taken_side_and_the_backward_sweep_follows_it():
    text = generate(SOURCE, "tests/corpus_control.py", ["branch_sign"]).text
    body = text.split("def grad_branch_sign")[1]
    assert body.count("if _t1:") == 2 or body.count("if np.sum(x) > 0:") == 1, body
    code = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))
    assert code.count("np.exp(") == 1  # the backward branch reuses the forward exp


def test_reads_of_x_in_and_around_loops_add_into_one_buffer_in_place():
    """x[i] read in two loops and x[0], x[1] before them: the backward loops and the reads after
    them write into one gradient array in place. A copy per write (``_index_add``) made the
    gradient quadratic in the trip count (DESIGN: per-index gradient arrays)."""
    text = generate(SOURCE, "tests/corpus_control.py", ["loop_reads_outside_reads"]).text
    body = text.split("def grad_loop_reads_outside_reads")[1]
    assert "_index_add" not in text and body.count("_grad_zeros(x)") == 1
    assert "dx_1[i] += " in body and "dx[i_1] += " in body and "dx_1[0] += " in body


def test_a_while_loop_is_replayed_from_its_stack():
    text = generate(SOURCE, "tests/corpus_control.py", ["newton_sqrt"]).text
    assert "while np.max(np.abs(" in text and "while _stack:" in text


@pytest.mark.parametrize(
    ("source", "code", "line", "col"),
    [
        (
            "def f(x):\n    for i in range(3):\n        x = x + 1\n    else:\n        x = 0\n    return x\n",
            "YS011",
            2,
            5,
        ),
        ("def f(x):\n    while x > 1:\n        x = x / 2\n    else:\n        x = 0\n    return x\n", "YS011", 2, 5),
        (
            "def f(x, y):\n    s = 0.0\n    for a, b in zip(x, y):\n        s = s + a * b\n    return s\n",
            "YS011",
            3,
            17,
        ),
        (
            "def f(x, W1):\n    for W in (W1, W1):\n        if x > 0:\n            break\n        x = W @ x\n    return x\n",
            "YS011",
            2,
            5,
        ),
        ("def f(x):\n    for i in range(3):\n        return\n    return x\n", "YS021", 3, 9),
    ],
)
def test_unsupported_loop_forms_are_located_errors(source, code, line, col):
    from yota_s2s.errors import UserError, UserErrors

    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, "t.py", ["f"])
    errors = getattr(info.value, "errors", [info.value])
    assert (errors[0].code, errors[0].line, errors[0].col) == (code, line, col)
