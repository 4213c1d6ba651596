"""Writes without copies in loops (transform/writes.py, codegen/appends.in_place_writes): an element
or slice written inside a loop is written in place, the backward loop restores nothing it need not,
a parameter's array is never changed, and the gradients stay exact (central differences)."""

from __future__ import annotations

import copy

import numpy as np

from yota_s2s.pipeline import generate

from .test_control import gradients_match

RNG = np.random.default_rng(39)


def _body(text: str, function: str = "f") -> str:
    """The function ``grad_FUNCTION`` of a generated module (before the helpers)."""
    start = text.index(f"def grad_{function}(")
    return text[start : text.index("\n# ", start)]


PAIRS = """
import numpy as np


def f(X):
    n = X.shape[0]
    F = np.zeros_like(X)
    for i in range(n):
        for j in range(i + 1, n):
            d = X[i] - X[j]
            r2 = np.sum(d * d) + 1.0
            f = d / (r2 * r2)
            F[i] += f
            F[j] -= f
    return np.sum(F * F)
"""


def test_a_pair_force_loop_writes_in_place_and_restores_nothing():
    text = gradients_match(PAIRS, [RNG.normal(size=(6, 3))])
    body = _body(text)
    assert "copy" not in body  # no array copied per write (twice per write before)
    assert "F[i] = " in body and "F[j] = " in body
    backward = body.split("# backward")[1]
    assert "dF[" in backward and "dF[i] = " not in backward and "dF[j] = " not in backward  # dF is read only


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


def test_element_assembly_accumulates_its_gradient_in_place():
    text = gradients_match(ASSEMBLY, [RNG.normal(size=7), RNG.uniform(0.5, 1.5, 6)])
    backward = _body(text).split("# backward")[1]
    assert "_index_add(" not in backward and "np.add.at" not in backward  # du[e + 1] += ..., not a copy
    assert "du[_t" in backward


WRITES_A_PARAMETER = """
import numpy as np


def f(x):
    for i in range(x.shape[0]):
        x[i] = 2.0 * x[i] + np.sin(x[i - 1])
    return np.sum(x * x)
"""


def test_a_parameters_array_is_never_changed():
    gradients_match(WRITES_A_PARAMETER, [RNG.normal(size=5)])
    generated: dict = {}
    exec(compile(generate(WRITES_A_PARAMETER.lstrip(), "t.py", ["f"]).text, "grad.py", "exec"), generated)  # noqa: S102
    x = RNG.normal(size=5)
    kept = x.copy()
    generated["grad_f"](x)
    assert np.array_equal(x, kept)


OLD_ELEMENT_READ_AFTER_ITS_WRITE = """
import numpy as np


def f(A, w):
    F = A * 1.0
    G = A * A
    s = 0.0
    for i in range(A.shape[0]):
        r = F[i]
        g = G[i]
        F[i] = r * w + 1.0
        G[i] = g * F[i]
        s = s + r * F[i] + np.tanh(F[i - 1]) * g
    return s + np.sum(F * G)
"""


def test_an_element_read_before_its_write_keeps_its_old_value():
    """``r`` is read after ``F[i]`` is written: it is the old element (copied where it could be a view)."""
    text = gradients_match(OLD_ELEMENT_READ_AFTER_ITS_WRITE, [RNG.normal(size=5), 0.8])
    assert "F[i] = " in _body(text) and "G[i] = " in _body(text)


WHILE_AND_BREAK = """
import numpy as np


def f(x, c):
    F = np.zeros(4)
    i = 0
    while i < 4:
        F[i] += c * x[i] ** 2
        F[(i + 1) % 4] -= np.sin(x[i])
        i = i + 1
    G = np.zeros(4)
    for j in range(4):
        G[j] = F[j] * c + G[j - 1]
        if G[j] > 3.0:
            break
    return np.sum(G * F)
"""


def test_while_loops_and_breaks_keep_exact_gradients():
    gradients_match(WHILE_AND_BREAK, [RNG.normal(size=4), 0.7])


NESTED_SLICES = """
import numpy as np


def f(x):
    K = np.zeros((4, 4))
    for e in range(3):
        for a in range(2):
            K[e + a, e : e + 2] += x[e] * np.array([1.0, -1.0]) * (a + 1)
    return np.sum(np.tanh(K) * K)
"""


def test_slices_written_in_nested_loops():
    gradients_match(NESTED_SLICES, [RNG.normal(size=3)])


def test_the_gradient_of_a_loop_that_writes_does_not_change_its_arguments_between_calls():
    generated: dict = {}
    exec(compile(generate(PAIRS.lstrip(), "t.py", ["f"]).text, "grad.py", "exec"), generated)  # noqa: S102
    X = RNG.normal(size=(5, 3))
    first = generated["grad_f"](copy.deepcopy(X))
    second = generated["grad_f"](X)
    assert first[0] == second[0] and np.array_equal(first[1], second[1])


TWO_LISTS = """
import numpy as np


def f(x):
    a = []
    b = []
    for i in range(3):
        a.append(x[i] * 2.0)
        b.append(x[i] ** 2)
    return np.sum(np.stack(a)) + np.sum(np.stack(b))
"""


def test_two_empty_lists_stay_two_lists_each_appended_in_place():
    """CSE keeps two ``[]`` apart (``Primitive.distinct``): merged, neither could be appended in place,
    and each iteration built a new list of all the items so far (quadratic)."""
    body = _body(gradients_match(TWO_LISTS, [RNG.normal(size=4)]))
    assert "a.append(" in body and "b.append(" in body
    assert "[*" not in body
