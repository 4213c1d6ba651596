"""The batched form of a Jacobian whose rows are written out (``codegen/batched_rows.py``):
``jac_NAME`` on a batch of points, ``x`` of shape ``(n, ...)``, runs ``_jac_NAME_batch`` on blocks
of columns (``runtime/blocks.py``), writing the value and ``J`` in place.

Each check: the batched value and Jacobian are the same numbers (bit for bit) as ``jac_NAME`` gives
each point alone (the Python-float code), and the Jacobian of each point matches central finite
differences of the source function; with blocks of a few columns (``_BLOCK_COLUMNS`` set small),
so that the joins of the blocks are checked on small batches.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

from benchmarks.bench_jacobian import SYSTEMS, source, unknowns
from yota_s2s.codegen.batched_rows import batch_form
from yota_s2s.codegen.statements import Line
from yota_s2s.pipeline import generate

from .test_jacobian import load, numeric_jacobian

RNG = np.random.default_rng(24)


def _generated(text: str, name: str) -> tuple[dict, dict, str]:
    """(the source's namespace, the generated module's, its text)."""
    written = generate(text, f"{name}.py", mode="jacobian").text
    return load(text), load(written), written


def _check_batch(f, jac, ns, X, blocks=(5, 16, 10**6)):
    """``jac(X)`` by blocks of ``blocks`` columns: the numbers of each point alone, and finite differences."""
    points = np.moveaxis(X.reshape(X.shape[0], -1), 1, 0)  # (the points, as 1-D x)
    alone = [jac(x) for x in points]
    for columns in blocks:
        ns["_BLOCK_COLUMNS"] = columns
        value, J = jac(X)
        assert value.shape == (len(alone[0][0]),) + X.shape[1:] and value.dtype == X.dtype
        assert J.shape == (len(alone[0][0]),) + X.shape and J.dtype == X.dtype
        flat_v, flat_J = value.reshape(value.shape[0], -1), J.reshape(J.shape[:2] + (-1,))
        for b, (v, Jb) in enumerate(alone):
            assert np.array_equal(flat_v[:, b], np.asarray(v, X.dtype)), (columns, b)
            assert np.array_equal(flat_J[:, :, b], np.asarray(Jb, X.dtype)), (columns, b)
    for b in range(0, len(points), max(1, len(points) // 3)):
        x = points[b].astype(float)
        np.testing.assert_allclose(flat_J[:, :, b], numeric_jacobian(f, (x,), 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("n", [4, 7])
def test_polynomial_systems_batched_form_is_exact(system, n):
    name = f"{system}{n}"
    f_ns, ns, written = _generated(source(name, SYSTEMS[system](n)), name)
    assert f"def _jac_{name}_batch(x, {name}, J_x):" in written
    X = RNG.uniform(-1.0, 1.0, (unknowns(system, n), 37))
    _check_batch(f_ns[name], ns[f"jac_{name}"], ns, X)


FORMS = """\
import numpy as np


def forms(x):
    return np.array([
        x[1] - x[2] * x[3] / (x[1] * x[1] + 2.0),
        -x[3] * (x[1] - 0.5) - x[2],
        x[2],
        (x[1] + x[2]) * (x[3] - x[1]) / 4.0 - -x[3],
    ])
"""


def test_subtraction_division_negation_and_an_unread_row():
    """``- /``, a unary minus, a row that is ``x[2]``, and ``x[0]`` never read (its column of J
    zeros): the batched form writes them all, exactly.  (No row that is a number: beside rows of
    products, the optimizer breaks the tape, an InternalError before this change too.)"""
    f_ns, ns, written = _generated(FORMS, "forms")
    assert "def _jac_forms_batch(x, forms, J_x):" in written
    batch = written[written.index("def _jac_forms_batch") :]
    assert "np.true_divide(" in batch and "np.negative(" in batch
    X = RNG.uniform(-1.0, 1.0, (4, 23))
    _check_batch(f_ns["forms"], ns["jac_forms"], ns, X)
    assert not ns["jac_forms"](X)[1][:, 0].any()


def test_a_batch_of_more_axes_and_float32():
    """``x`` of shape ``(n, 3, 5)`` (blocks of the last axis), and float32: its own dtype kept, the
    numbers of the plain path's float32 arithmetic (a point alone is computed on Python floats)."""
    name = "cyclic5"
    f_ns, ns, _ = _generated(source(name, SYSTEMS["cyclic"](5)), name)
    jac, f = ns["jac_cyclic5"], f_ns[name]
    _check_batch(f, jac, ns, RNG.uniform(-1.0, 1.0, (5, 3, 5)), blocks=(2, 16))
    X32 = RNG.uniform(-1.0, 1.0, (5, 9)).astype(np.float32)
    ns["_BLOCK_COLUMNS"] = 4
    value, J = jac(X32)
    assert J.dtype == np.float32 == value.dtype
    plain = jac(list(X32))  # (a list of rows: the plain path, float32 arithmetic as the batched form's)
    assert plain[1].dtype == np.float32
    assert np.array_equal(J, plain[1]) and np.array_equal(value, plain[0])
    np.testing.assert_allclose(J, jac(X32.astype(float))[1], rtol=1e-5, atol=1e-6)


def test_complex_declared_system_batched_form():
    """A system declared complex takes the batched form for complex points: J and 1j J match
    differences along 1 and 1j (holomorphic)."""
    text = "import numpy as np\n\n\ndef g(x: complex):\n    return np.array([x[0] * x[1] - 2.0, x[1] * x[1] * x[0] + x[0]])\n"
    f_ns, ns, written = _generated(text, "g")
    assert "x.dtype.kind == 'c'" in written
    X = RNG.standard_normal((2, 11)) + 1j * RNG.standard_normal((2, 11))
    ns["_BLOCK_COLUMNS"] = 3
    _, J = ns["jac_g"](X)
    assert np.array_equal(J, ns["jac_g"](list(X))[1])  # (the plain path's arithmetic on the same arrays)
    for b in range(11):
        x = X[:, b]
        for d in (1.0, 1j):
            fd = np.stack([(f_ns["g"](x + 1e-6 * d * e) - f_ns["g"](x - 1e-6 * d * e)) / 2e-6 for e in np.eye(2)], 1)
            np.testing.assert_allclose(fd, d * J[:, :, b], rtol=1e-6, atol=1e-8)


def test_other_batches_keep_the_plain_path():
    """A list of rows, a batch whose first axis is not n, an integer batch: ``jac_NAME`` as before
    (the plain path, which gives the batched form's numbers on a list of the same rows)."""
    name = "eco5"
    f_ns, ns, _ = _generated(source(name, SYSTEMS["eco"](5)), name)
    jac, f = ns["jac_eco5"], f_ns[name]
    X = RNG.uniform(-1.0, 1.0, (5, 4))
    J = jac(X)[1]
    assert np.array_equal(jac([X[k] for k in range(5)])[1], J)
    X6 = RNG.uniform(-1.0, 1.0, (6, 4))  # (a sixth row, never read: its column of J zeros)
    J6 = jac(X6)[1]
    assert J6.shape == (5, 6, 4) and not J6[:, 5].any()
    assert np.array_equal(J6[:, :5], jac(X6[:5])[1])
    np.testing.assert_allclose(J6[:, :5, 1], numeric_jacobian(f, (X6[:5, 1],), 0), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="integer"):  # (refused, as before)
        jac(np.arange(20).reshape(5, 4))


def test_what_the_batched_form_does_not_write_keeps_the_plain_path():
    """A row with a call (``np.sqrt``) is not written in the batched form: no ``_batch`` function,
    and the batch is computed as before (and right)."""
    text = "import numpy as np\n\n\ndef h(x):\n    return np.array([np.sqrt(x[0] * x[0] + 1.0), x[0] * x[1]])\n"
    f_ns, ns, written = _generated(text, "h")
    assert "_batch" not in written and "_jacobian_blocks" not in written
    X = RNG.uniform(-1.0, 1.0, (2, 5))
    J = ns["jac_h"](X)[1]
    for b in range(5):
        np.testing.assert_allclose(J[:, :, b], numeric_jacobian(f_ns["h"], (X[:, b],), 0), rtol=1e-5, atol=1e-6)


def test_batch_form_reuses_dead_arrays_and_writes_entries_in_place():
    """The form as written: entries of J computed in place, a dead temporary's array reused, and
    every name it binds read later (ruff's F841 would flag one that is not)."""
    name = "cyclic6"
    _, _, written = _generated(source(name, SYSTEMS["cyclic"](6)), name)
    tree = ast.parse(written)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_jac_cyclic6_batch")
    text = ast.unparse(fn)
    assert "out=J_x[5, 1])" in text and "J_x[0, 0] = 1.0" in text
    assert "d_t5 = np.multiply(_t2, x0, out=_t21)" in text  # (_t21's last reader was before)
    bound = {t.id for s in fn.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert bound - {"x0", "x1", "x2", "x3", "x4", "x5"} <= read


def test_batch_form_gives_up_on_a_name_assigned_twice():
    """Text it does not recognise (a name assigned twice) gives None: jac_NAME is kept as written."""
    text = (
        "def jac_f(x):\n"
        "    x_items = x\n"
        "    x0, x1 = x_items if x_items is not x else (x[0], x[1])\n"
        "    a = x0 * x1\n"
        "    a = a + x0\n"
        "    f = np.array([a, x1])\n"
        "    dx = [x1, x0]\n"
        "    dx_1 = [0.0, 1.0]\n"
        "    J_x = None if x_items is not x else _jacobian_rows(x, [dx, dx_1])\n"
        "    return f, J_x\n"
    )
    assert _form(text) is None
    assert _form(text.replace("    a = a + x0\n", "")) is not None
    # numbers only in a part (not an array to write into), a call, a name from elsewhere
    for part in ("x0 * (2.0 * 3.0)", "np.exp(x0)", "x0 * y"):
        assert _form(text.replace("    a = a + x0\n", "").replace("a = x0 * x1", "a = " + part)) is None


def _form(text: str) -> tuple | None:
    """``batch_form`` of the statements of the function ``text`` (as the writer's lines)."""
    fn = ast.parse(text).body[0]
    return batch_form([Line(None, None, stmt, 0) for stmt in fn.body], fn.args.args[0].arg, fn.name)
