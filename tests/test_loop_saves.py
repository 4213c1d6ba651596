"""What a forward loop pushes for its backward loop (transform/remat.py): a loop-invariant value and
an elementwise chain of the carried state are recomputed by the backward body, not pushed; the
gradients stay exact (central differences), and a rollout keeps one state per step."""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest

from yota_s2s.pipeline import generate
from yota_s2s.runtime.core import _unbroadcast
from yota_s2s.transform import remat

from .test_control import gradients_match


def _pushed(text: str, function: str) -> list[list[str]]:
    """The names each ``_stack...append(...)`` of ``grad_FUNCTION`` pushes."""
    body = text[text.index(f"def grad_{function}(") :]
    pushes = re.findall(r"_stack\w*\.append\(\(?(.*?)\)?\)\n", body, re.DOTALL)
    return [[n.strip() for n in p.split(",") if n.strip()] for p in pushes]


ROLLOUT = """
import numpy as np


def f(u, dt, n: int):
    for _ in range(n):
        u = u + dt * np.sin(u)
    return np.sum(u * u)
"""


def test_a_rollout_pushes_one_state_per_step_and_recomputes_its_sine():
    text = gradients_match(ROLLOUT, [np.linspace(-1.0, 1.0, 5), 0.1, 4])
    assert _pushed(text, "f") == [["u_1"]]
    assert "np.sin(u_2)" in text.split("# backward")[1]


def test_a_rollout_peak_memory_is_one_state_per_step():
    """The issue's bound without checkpointing: at most 1.2 states per step (two before)."""
    source = ROLLOUT.lstrip("\n")
    module: dict = {}
    exec(compile(generate(source, "t.py", ["f"]).text, "grad.py", "exec"), module)  # noqa: S102 - our output
    u, steps = np.linspace(-1.0, 1.0, 20_000), 50
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        module["grad_f"](u, 0.01, steps)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak / u.nbytes / steps <= 1.2


LOTKA = """
import numpy as np


def f(y, p, dt):
    for _ in range(3):
        a, b, c, d = p[0], p[1], p[2], p[3]
        h = 0.5 * dt
        x1, y1 = y[0], y[1]
        k1x = a * x1 - b * x1 * y1
        k1y = d * x1 * y1 - c * y1
        x2 = x1 + h * k1x
        y2 = y1 + h * k1y
        y = np.array([x1 + dt * (a * x2 - b * x2 * y2), y1 + dt * (d * x2 * y2 - c * y2)])
    return np.sum(y * y)
"""


def test_loop_invariant_values_are_not_pushed():
    """The four parameters read from ``p`` never change in the loop: they are read once, before it
    (``regions.hoist_reads``: Python floats from ``p.tolist()``), and ``0.5 * dt``, made in the
    loop, is recomputed by the backward body: none is pushed."""
    text = gradients_match(LOTKA, [np.array([1.0, 0.5]), np.array([1.1, 0.4, 0.4, 0.1]), 0.1])
    (pushed,) = _pushed(text, "f")
    before, loop = text[text.index("def grad_f(") :].split("# backward")[0].split("\n    for _ in range(3):\n")
    assert "a, b, c, d = p_items if p_items is not p else (p[0], p[1], p[2], p[3])" in before
    assert "p[" not in loop and not {"a", "b", "c", "d"} & set(pushed), (loop, pushed)
    invariant = {m.group(1) for m in re.finditer(r"(\w+) = 0\.5 \* dt\n", loop)}
    assert len(invariant) == 1 and not invariant & set(pushed), (invariant, pushed)


@pytest.mark.parametrize(
    ("source", "args"),
    [
        (  # a while loop: its chain of the carried state recomputed
            """
            import numpy as np

            def f(x):
                while np.max(np.abs(x)) > 0.1:
                    x = 0.5 * np.tanh(x) * np.exp(-x * x)
                return np.sum(x)
            """,
            [np.array([0.9, -0.7, 0.4])],
        ),
        (  # a break: the index saved, the chain recomputed from the popped state
            """
            import numpy as np

            def f(x, w):
                for i in range(6):
                    x = np.cos(x) * w[i] + np.sin(w[0])
                    if np.sum(x) > 4.0:
                        break
                return np.sum(x * x)
            """,
            [np.array([0.3, -0.2]), np.linspace(0.5, 1.5, 6)],
        ),
        (  # nested loops: the inner chain and the outer invariant
            """
            import numpy as np

            def f(x, a):
                for i in range(3):
                    for j in range(2):
                        x = x + 0.1 * np.exp(-x) * np.sin(a * 2.0)
                    x = x * np.cos(a)
                return np.sum(x)
            """,
            [np.array([0.3, -0.2, 0.5]), 0.7],
        ),
        (  # an element of the state and of a parameter, read by the index
            """
            import numpy as np

            def f(x, w):
                s = 0.0
                for i in range(4):
                    t = np.sin(x[i]) * w[i]
                    s = s + t * t
                    x = x * 0.9
                return s
            """,
            [np.linspace(0.1, 0.8, 4), np.linspace(1.0, 2.0, 4)],
        ),
    ],
)
def test_recomputed_values_keep_gradients_exact(source, args):
    gradients_match(source, args)
    remat.SAVE_LESS = False
    try:
        gradients_match(source, args)  # (the form that pushes everything: the same gradients)
    finally:
        remat.SAVE_LESS = True


def test_a_value_of_two_state_operands_is_pushed():
    """``x * y`` of two carried values is not a link of a chain: it is pushed, as a reduction is."""
    source = """
    import numpy as np

    def f(x, y):
        for _ in range(3):
            p = x * y
            q = np.sum(p)
            x, y = np.sin(p) + q, y * 0.5
        return np.sum(x)
    """
    text = gradients_match(source, [np.array([0.3, 0.5]), np.array([0.2, -0.4])])
    (pushed,) = _pushed(text, "f")
    assert "p" in pushed or any(n.startswith("p_") for n in pushed), pushed


def test_unbroadcast_of_two_numbers_is_the_gradient_itself():
    for g, x in [(np.float64(2.0), 1.0), (2.0, np.float64(1.0)), (np.float64(2.0), np.float64(1.0))]:
        assert _unbroadcast(g, x) is g
    assert _unbroadcast(np.ones(3), np.float64(1.0)) == 3.0
    assert _unbroadcast(np.float64(2.0), np.ones(2)).tolist() == [2.0, 2.0]


def test_the_loop_benchmark_references_are_right():
    """benchmarks/bench_loops.py checks every gradient against its hand-written adjoints: those
    against central differences here, and both forms of the generated ones against them."""
    from benchmarks import bench_loops

    from .gradcheck import assert_close, numeric_grad

    new, old = bench_loops._generated(True), bench_loops._generated(False)
    u = np.linspace(-1.0, 1.0, 6)
    value, du, ddt = bench_loops.hand_rollout(u, 0.1, 5)
    assert_close(du, numeric_grad(new["rollout"], [u, 0.1, 5], 0), "du")
    assert_close(ddt, numeric_grad(new["rollout"], [u, 0.1, 5], 1), "ddt")
    X = np.random.default_rng(0).normal(size=(5, 3))
    assert_close(bench_loops.hand_pair(X)[1], numeric_grad(new["pair_energy"], [X], 0), "dX")
    for module in (new, old):
        bench_loops._close(module["grad_rollout"](u, 0.1, 5), (value, du, ddt))
        bench_loops._close(module["grad_pair_energy"](X), bench_loops.hand_pair(X))
