"""A loop whose step computes on numbers (ir/loop_shapes.numbers_step, codegen/steps.py): its backward
step's unbroadcasts are the identity under one flag checked before the loop, and its vectors'
elements are read at once, as Python floats; the reads of a parameter at constant indices are made
once, before the loop (transform/regions.hoist_reads).  The gradients are exact on both sides of
the flag (central differences): the shapes it assumes, and the shapes that break them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from yota_s2s.pipeline import generate
from yota_s2s.runtime.steps import _shaped

from .test_control import gradients_match

RK4 = """
import numpy as np


def f(y, p, dt):
    for _ in range(4):
        a, b, c, d = p[0], p[1], p[2], p[3]
        x1, y1 = y[0], y[1]
        k1x = a * x1 - b * x1 * y1
        k1y = d * x1 * y1 - c * y1
        x2 = x1 + 0.5 * dt * k1x
        y2 = y1 + 0.5 * dt * k1y
        k2x = a * x2 - b * x2 * y2
        k2y = d * x2 * y2 - c * y2
        y = np.array([x1 + dt * k2x, y1 + dt * k2y])
    return np.sum(y * y)
"""

P = np.array([1.1, 0.4, 0.4, 0.1])


def test_the_step_on_numbers_is_written_under_one_flag():
    text = gradients_match(RK4, [np.array([1.0, 0.5]), P, 0.1])
    body = text[text.index("def grad_f(") : text.index("# ---- the runtime helpers")]
    assert "_numbers = _shaped((dt, 0), (a, 0), (b, 0), (c, 0), (d, 0), (y, (2,)))" in body
    # every unbroadcast of the backward step is on the flag's other side
    assert body.count("_unbroadcast(") == len(re.findall(r"\belse\s+_unbroadcast\(", body)) > 0
    assert "x1, y1 = y_1.tolist() if _numbers and y_1.dtype == np.float64 else (y_1[0], y_1[1])" in body
    assert "a, b, c, d = p_items if p_items is not p else (p[0], p[1], p[2], p[3])" in body


@pytest.mark.parametrize(
    "args",
    [
        [np.array([1.0, 0.5]), [1.1, 0.4, 0.4, 0.1], 0.1],  # a list of parameters
        [np.array([1.0, 0.5]), P, np.array([0.1, 0.2])],  # dt a vector: the flag is False
        [np.array([[1.0, 0.9], [0.5, 0.6]]), P, 0.1],  # a state of rows
        [np.array([1.0, 0.5]), np.array([[1.1, 1.0], [0.4, 0.3], [0.4, 0.5], [0.1, 0.2]]), 0.1],  # p of rows
        [np.array([1.0, 0.5, 0.3]), P, 0.1],  # a state of three: (2,) after the first step
    ],
)
def test_the_gradients_are_exact_where_the_shapes_differ(args):
    gradients_match(RK4, args)


def test_a_float32_state_keeps_numpys_scalars():
    """Only float64 elements are read as Python floats; float32 ones compute as NumPy's float32 (the
    gradient in float32 is the float64 one rounded: central differences in float32 are too coarse)."""
    module: dict = {}
    exec(compile(generate(RK4.lstrip("\n"), "t.py", ["f"]).text, "grad.py", "exec"), module)  # noqa: S102 - our output
    low = module["grad_f"](np.array([1.0, 0.5], dtype=np.float32), P.astype(np.float32), 0.1)
    high = module["grad_f"](np.array([1.0, 0.5]), P, 0.1)
    for got, want in zip(low, high, strict=True):
        assert np.asarray(got).dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_a_checkpointed_step_on_numbers():
    source = RK4.lstrip("\n").replace("range(4)", "range(n)").replace("def f(y, p, dt)", "def f(y, p, dt, n: int)")
    text = generate(source, "t.py", ["f"], checkpoint=2).text
    module: dict = {}
    exec(compile(text, "grad.py", "exec"), module)  # noqa: S102 - our output
    plain: dict = {}
    exec(compile(generate(source, "t.py", ["f"]).text, "grad.py", "exec"), plain)  # noqa: S102 - our output
    for dt in (0.1, np.array([0.1, 0.2])):
        args = (np.array([1.0, 0.5]), P, dt, 9)
        for got, want in zip(module["grad_f"](*args), plain["grad_f"](*args), strict=True):
            if want is None:  # (the trip count's)
                assert got is None
                continue
            np.testing.assert_allclose(got, want, rtol=1e-12)
    assert "_numbers" in text


DIVIDES = """
import numpy as np


def f(y, p):
    for _ in range(3):
        x1, y1 = y[0], y[1]
        y = np.array([x1 + p[0] / (1.0 + y1 * y1), y1 - p[1] * x1])
    return np.sum(y * y)
"""


def test_a_step_that_divides_by_a_value_keeps_numpys_scalars():
    """Python floats raise on a division by 0.0 where NumPy gives inf: no ``tolist()`` there."""
    text = gradients_match(DIVIDES, [np.array([0.3, 0.7]), np.array([0.5, 0.2])])
    body = text[text.index("def grad_f(") : text.index("# ---- the runtime helpers")]
    assert "_numbers = _shaped(" in body and ".tolist() if _numbers" not in body


def test_shaped_checks_ranks_and_shapes_and_refuses_ragged_lists():
    assert _shaped((0.1, 0), (np.zeros(4), 1), (np.zeros(2), (2,)))
    assert not _shaped((np.zeros(2), 0))
    assert not _shaped((np.zeros(3), (2,)))
    assert not _shaped(([np.zeros(2), np.zeros(3)], 1))


ASSEMBLY = """
import numpy as np


def f(u, k):
    n = u.shape[0]
    F = np.zeros_like(u)
    for e in range(n - 1):
        s = k[e] * (u[e + 1] - u[e]) ** 3
        F[e] -= s
        F[e + 1] += s
    return np.sum(F * u)
"""


def test_element_assembly_reads_numbers_at_the_loop_index():
    """``u[e]``, ``k[e]`` and ``F[e]`` of 1-D arrays at the loop's integers are numbers."""
    rng = np.random.default_rng(3)
    text = gradients_match(ASSEMBLY, [rng.normal(size=6), rng.uniform(0.5, 1.5, 5)])
    body = text[text.index("def grad_f(") : text.index("# ---- the runtime helpers")]
    assert "_numbers = _shaped((k, 1), (u, 1), (F, 1))" in body
    loop = body[body.index("for e in reversed(") :]  # (the two before it are sums of F * u's gradient)
    assert loop.count("_unbroadcast(") == len(re.findall(r"\belse\s+_unbroadcast\(", loop)) == 4


@pytest.mark.parametrize("shapes", [((6, 2), (5,)), ((6, 2), (5, 2)), ((6, 3), (5, 1))])
def test_element_assembly_of_rows_takes_the_general_step(shapes):
    rng = np.random.default_rng(4)
    gradients_match(ASSEMBLY, [rng.normal(size=shapes[0]), rng.uniform(0.5, 1.5, shapes[1])])
