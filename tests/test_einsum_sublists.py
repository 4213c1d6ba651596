"""np.einsum's sublist form (``frontend/adapters_einsum.py``): ``np.einsum(a, [0, 1], b, [1, 2], [0, 2])``.

It lowers to the ``einsum`` primitive with the equivalent subscripts; each form is checked against
central finite differences and its value against NumPy's own sublist call, and the lists that are
not constant labels are located errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad

HEADER = "import numpy as np\n\nLABELS = [1, 2]\n\n\n"


def run(expr: str, *args: np.ndarray) -> tuple[list, str]:
    """The gradients of ``sum(w * sin(expr))`` (operands x, y, z; ``w`` of the shape of ``expr``),
    checked against finite differences and NumPy's value; with the generated text."""
    names = ["x", "y", "z"][: len(args)]
    source = HEADER + f"def f({', '.join([*names, 'w'])}):\n    return np.sum(w * np.sin({expr}))\n"
    source += f"\n\ndef e({', '.join(names)}):\n    return {expr}\n"
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the test's own source
    g = generate(source, "case.py", ["f"])
    assert "einsum" in [eq.prim for eq in g.tapes["lower"][0].eqns]
    generated: dict = {}
    exec(compile(g.text, "grad_case.py", "exec"), generated)  # noqa: S102 - the code under test
    shape = np.shape(user["e"](*args))
    w = np.random.default_rng(7).standard_normal(shape) if shape else 0.7
    full = [*args, w]
    value, *grads = generated["grad_f"](*full)
    assert np.allclose(value, user["f"](*full), rtol=1e-12, atol=1e-12)
    for i, (name, grad) in enumerate(zip([*names, "w"], grads)):
        assert_close(grad, numeric_grad(user["f"], full, i), f"{expr}: d{name}")
    return grads, g.text


R = np.random.default_rng(3)
A, B, C = R.standard_normal((2, 3)), R.standard_normal((3, 4)), R.standard_normal((4, 2))
S = R.standard_normal((3, 3))
T = R.standard_normal((2, 2, 3))


@pytest.mark.parametrize(
    ("expr", "args", "subscripts"),
    [
        ("np.einsum(x, [0, 1], y, [1, 2], [0, 2])", (A, B), "AB,BC->AC"),
        ("np.einsum(x, [0, 1], y, [1, 2])", (A, B), "AB,BC"),  # implicit output: NumPy's order
        ("np.einsum(x, [1, 0], y, [1, 2])", (A.T, B), "BA,BC"),  # implicit: A then C, as NumPy
        ("np.einsum(x, [0, 1], [1, 0])", (A,), "AB->BA"),
        ("np.einsum(x, [0, 0])", (S,), "AA"),  # the trace
        ("np.einsum(x, [0, 0], [0])", (S,), "AA->A"),  # the diagonal
        ("np.einsum(x, [0], y, [1], [0, 1])", (A[0], B[0]), "A,B->AB"),
        ("np.einsum(x, [0, 1], y, [1, 2], z, [2, 3], [0, 3])", (A, B, C), "AB,BC,CD->AD"),
        ("np.einsum(x, [0, 1], y, [1, 0], [])", (A, A.T), "AB,BA->"),
        ("np.einsum(x, [Ellipsis, 1], y, [1, 2], [Ellipsis, 2])", (T, B), "...B,BC->...C"),
        ("np.einsum(x, [..., 0, 1], y, [..., 1, 0], [...])", (T, np.swapaxes(T, 1, 2)), "...AB,...BA->..."),
        ("np.einsum(x, [0, 51], y, [51, 26])", (A, B), "Az,za"),
        ("np.einsum(x, (0, 1), y, LABELS, (0, 2))", (A, B), "AB,BC->AC"),  # tuples, a module constant
    ],
)
def test_sublist_form(expr, args, subscripts):
    _, text = run(expr, *args)
    assert f"np.einsum('{subscripts}'," in text


def test_the_implicit_output_orders_labels_as_numpy():
    # NumPy writes label k as the k-th letter of A..Za..z and sorts the implicit output's letters:
    # labels (30, 1) give the output axes (1, 30), a transpose (0..25 as a..z would not: 'E' < 'b')
    x = R.standard_normal((2, 3))
    source = "import numpy as np\n\n\ndef f(x):\n    return np.einsum(x, [30, 1])[2, 1]\n"
    generated: dict = {}
    exec(compile(generate(source, "case.py", ["f"]).text, "g.py", "exec"), generated)  # noqa: S102
    value, dx = generated["grad_f"](x)
    assert np.einsum(x, [30, 1]).shape == (3, 2)
    assert value == np.einsum(x, [30, 1])[2, 1] == x[1, 2]
    assert dx.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("np.einsum(x, [0, k], y, [1, 2])", "axis labels are constant integers in [0, 52) or Ellipsis"),
        ("np.einsum(x, [0, 52], y, [1, 2])", "axis labels are constant integers in [0, 52) or Ellipsis"),
        ("np.einsum(x, [0, -1], y, [1, 2])", "axis labels are constant integers in [0, 52) or Ellipsis"),
        ("np.einsum(x, [0, 1.0], y, [1, 2])", "axis labels are constant integers in [0, 52) or Ellipsis"),
        ("np.einsum(x, [0, 1], y, y)", "interleaves operands and constant lists of axis labels"),
        ("np.einsum(x, y)", "np.einsum() takes constant subscripts first"),
    ],
)
def test_a_list_that_is_not_labels_is_a_located_error(call, message):
    source = f"import numpy as np\n\n\ndef f(x, y):\n    k = 1\n    return np.sum({call})\n"
    if "k]" in call:  # a label computed from the argument
        source = source.replace("k = 1", "k = x.shape[0]")
    with pytest.raises(UserError) as info:
        generate(source, "case.py", ["f"])
    assert info.value.code == "YS032" and message in info.value.message
    assert (info.value.line, info.value.col) == (6, 19)
