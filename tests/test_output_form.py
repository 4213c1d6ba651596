"""The generated code's form at scale (docs/cli.md#the-outputs-form): no line over 120 characters,
constants as the user wrote them, no placeholder calls.

The lines are checked on an 881-term polynomial and other long forms (a long signature, a long
row of numbers, a long message, long source lines echoed in comments) in every mode and target,
and on every text of the snapshot (``tests/snapshot.py``); the broken lines compute what the one
long line did (each gradient is checked against finite differences).
"""

from __future__ import annotations

import functools
import itertools
import random
import subprocess
import sys

import numpy as np
import pytest

from yota_s2s.codegen.layout import WIDTH, fit_module
from yota_s2s.pipeline import generate

from .snapshot import shard_params, shard_texts
from .test_jacobian import RNG, check_jacobian, check_jvp, check_vjp, load

TARGETS = ("numpy", "cupy", "array-api")
#: (mode, value) of each form written.
FORMS = [("grad", True), ("grad", False), ("vjp", True), ("jvp", True), ("jvp", False), ("jacobian", True)]


def _polynomial(n_terms: int, seed: int, arg: str = "x") -> str:
    """A dense polynomial in ``arg[0..3]`` of degree up to 10: ``n_terms`` terms ``c * x[0] ** a * ...``."""
    rng = random.Random(seed)
    monomials = [m for m in itertools.product(range(11), repeat=4) if 0 < sum(m) <= 10]
    terms = []
    for m in sorted(rng.sample(monomials, n_terms)):
        c = rng.choice([2, 3, 5, 7, 0.5, 1.5, 2.25, -1, -3, -0.75])
        factors = [f"{arg}[{i}] ** {e}" if e > 1 else f"{arg}[{i}]" for i, e in enumerate(m) if e]
        terms.append(" * ".join([repr(c), *factors]))
    return " + ".join(terms).replace("+ -", "- ")


ROW = ", ".join(repr(round(0.01 * k + 0.003, 4)) for k in range(40))
PARAMS = [f"weight_{k}" for k in range(24)]
SOURCE = f"""import numpy as np


def poly881(x):
    return {_polynomial(881, 25)}


def system(x):
    return np.array([{_polynomial(60, 1)}, {_polynomial(60, 2)}, {_polynomial(60, 3)}])


def weighted(x):
    w = np.array([{ROW}])
    assert x.shape == (40,), "weighted(x) takes forty numbers, one for each weight of the row written in its body"
    return np.sum(w * x * x)


def many({", ".join(PARAMS)}):
    return {" + ".join(f"{p} * {p}" for p in PARAMS)}
"""
SCALARS = ("poly881", "weighted", "many")


@functools.cache
def _text(target: str, mode: str, value: bool) -> str:
    funcs = ["system"] if mode in ("vjp", "jvp", "jacobian") else list(SCALARS)
    return generate(SOURCE, "long_forms.py", funcs, target=target, mode=mode, value=value).text


def _args(name: str) -> tuple:
    rng = np.random.default_rng(7)
    if name == "weighted":
        return (rng.uniform(-1.0, 1.0, 40),)
    if name == "many":
        return tuple(float(v) for v in rng.uniform(-1.0, 1.0, len(PARAMS)))
    return (rng.uniform(-0.9, 0.9, 4),)


def _long_lines(text: str) -> list[str]:
    """The lines over ``WIDTH`` characters, but for the header's command (a path is never cut)."""
    return [line for line in text.splitlines() if len(line) > WIDTH and not line.startswith("# regenerate:")]


#: The forms of each target.
WRITTEN = [(t, m, v) for t in TARGETS for m, v in FORMS]


@pytest.mark.parametrize(("target", "mode", "value"), WRITTEN)
def test_no_line_is_longer_than_120_characters(target, mode, value):
    text = _text(target, mode, value)
    assert not _long_lines(text), _long_lines(text)[:3]
    if mode == "grad" and value:  # the source's long lines are there, cut, in the comments
        assert "    # return 2 * x[3] " in text or "    # return " in text
        assert any(line.strip().startswith("# return") and line.endswith("...") for line in text.splitlines())


def test_the_long_forms_were_long():
    """Without the breaking, the same modules have lines of thousands of characters."""
    text = _text("numpy", "grad", True)
    joined = generate(SOURCE, "long_forms.py", list(SCALARS)).text
    assert joined == text
    one_line = max(len(line) for line in SOURCE.splitlines())
    assert one_line > 6000
    assert text.count("\n") > 600  # (the sums run over many lines)


def test_a_long_sum_is_broken_before_its_operators_in_parentheses():
    text = _text("numpy", "grad", True)
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("    poly881 = ("))
    end = next(n for n in range(start, len(lines)) if lines[n] == "    )")
    body = lines[start + 1 : end]
    assert len(body) > 10
    assert all(line.startswith("        ") for line in body)
    assert all(line.lstrip()[:2] in ("+ ", "- ") for line in body[1:])


@pytest.mark.parametrize("name", SCALARS)
@pytest.mark.parametrize("value", [True, False])
def test_the_broken_gradients_are_right(name, value):
    from .gradcheck import numeric_grad

    ns = load(SOURCE)
    grad = load(_text("numpy", "grad", value))[f"grad_{name}"]
    args = _args(name)
    out = grad(*args)
    grads = out[1:] if value else out
    if value:
        assert np.allclose(out[0], ns[name](*args), rtol=1e-12)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, numeric_grad(ns[name], args, i), rtol=1e-6, atol=1e-6)


def test_the_broken_vjp_jvp_and_jacobian_are_right():
    f = load(SOURCE)["system"]
    x = RNG.uniform(-0.9, 0.9, 4)
    check_jacobian(f, load(_text("numpy", "jacobian", True))["jac_system"], (x,))
    check_vjp(f, load(_text("numpy", "vjp", True))["vjp_system"], (x,))
    check_jvp(f, load(_text("numpy", "jvp", True))["jvp_system"], (x,))


def test_the_array_api_form_runs_on_numpy_and_gives_the_numpy_numbers():
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    for name in SCALARS:
        args = _args(name)
        want = load(_text("numpy", "grad", True))[f"grad_{name}"](*args)
        got = load(_text("array-api", "grad", True))[f"grad_{name}"](*args)
        for a, b in zip(want, got, strict=True):
            np.testing.assert_allclose(np.asarray(b), a, rtol=1e-13, atol=1e-13)


def test_the_broken_modules_are_ruff_clean(tmp_path):
    paths = []
    for target, mode, value in WRITTEN:
        path = tmp_path / f"m_{target.replace('-', '_')}_{mode}_{int(value)}.py"
        path.write_text(_text(target, mode, value), encoding="utf-8")
        paths.append(str(path))
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", *paths],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout


def test_the_header_names_many_functions_on_lines_of_their_own():
    names = [f"function_with_a_long_name_{k}" for k in range(6)]
    source = "".join(f"def {n}(x):\n    return x * x\n\n\n" for n in names)
    text = generate(source, "f.py").text
    first, functions, more = text.splitlines()[:3]
    assert first.startswith("# Code generated by yota-s2s ") and first.endswith(
        " from f.py (target numpy). DO NOT EDIT."
    )
    assert functions.startswith("# functions: function_with_a_long_name_0, ") and more.startswith("#            ")
    assert not _long_lines(text)


def test_breaking_keeps_the_syntax_tree():
    """A line the breaker cannot break is kept whole, never changed in meaning."""
    long_name = "a" * 130
    text = f"x = {long_name}\ny = f({', '.join(['b'] * 80)})\n"
    out = fit_module(text)
    assert out.splitlines()[0] == f"x = {long_name}"
    assert out.splitlines()[1] == "y = f(" and max(len(line) for line in out.splitlines()[1:]) <= WIDTH
    assert "#" not in out


# ----------------------------------------------------------------------------- the snapshot's texts


@pytest.mark.slow
@pytest.mark.parametrize("shard", shard_params())
def test_no_text_of_the_snapshot_has_a_line_over_120_characters(shard):
    """Each part of the snapshot, generated once for this check and tests/test_snapshot.py's."""
    long = {}
    for key, text in shard_texts(shard).items():
        if text.startswith("# Code generated") and (found := _long_lines(text)):
            long[key] = found[0]
    assert not long, list(long.items())[:5]


# ----------------------------------------------------------------------------- constants as written

CONSTANTS = """import numpy as np

DT = 0.01


def consts(x):
    a = 0.1 * 3
    b = 1.1 ** 2
    c = 0.1 + 0.2
    d = 2 * 0.15
    e = 1 / 3
    return np.sum(a * x + b * x ** 2 + c * np.sin(x) + d * x ** 3 + x ** e + DT / 6.0 * x)
"""


@pytest.mark.parametrize("value", [True, False])
def test_a_constant_whose_folded_repr_reads_badly_is_written_as_the_source_wrote_it(value):
    text = generate(CONSTANTS, "c.py", value=value).text
    body = text[text.index("def grad_consts") :]
    for ugly in ("0.30000000000000004", "1.2100000000000002", "0.3333333333333333", "0.0016666666666666668"):
        assert ugly not in body
    for written in ("0.1 * 3", "1.1 ** 2", "0.1 + 0.2", "1 / 3", "0.01 / 6.0"):
        assert written in body, written
    assert "0.3 * " in body  # 2 * 0.15 is 0.3: folded
    assert " * 1.0" not in body and "1.0 * " not in body  # (the seed's 1.0 times a constant: the constant)


def test_the_written_constants_give_the_sources_numbers_bit_for_bit():
    from .gradcheck import numeric_grad

    f = load(CONSTANTS)["consts"]
    x = np.array([0.3, 0.7, 1.1, 2.5])
    value, dx = load(generate(CONSTANTS, "c.py").text)["grad_consts"](x)
    assert value == f(x)  # the same operations on the same floats, in the same order
    np.testing.assert_allclose(dx, numeric_grad(f, (x,), 0), rtol=1e-7)
    (dx_only,) = load(generate(CONSTANTS, "c.py", value=False).text)["grad_consts"](x)
    assert np.array_equal(dx_only, dx)


def test_fold_lits_keeps_the_expression_of_a_float_that_would_not_read_as_written():
    from yota_s2s.ir.core import Lit
    from yota_s2s.ir.folding import fold_lits

    for prim, a, b in [("mul", 0.1, 3), ("power", 1.1, 2), ("add", 0.1, 0.2), ("truediv", 1, 3), ("sub", 0.3, 0.1)]:
        folded = fold_lits(prim, [Lit(a), Lit(b)])
        assert folded.text is not None and eval(folded.text) == folded.value
    assert fold_lits("mul", [Lit(2), Lit(0.15)]) == Lit(0.3) and fold_lits("mul", [Lit(2), Lit(0.15)]).text is None
    assert fold_lits("add", [Lit(1), Lit(2)]).value == 3
    assert fold_lits("mul", [Lit(3.141592653589793), Lit(2)]).text is None  # (as long as the constant it comes from)
    third = fold_lits("truediv", [Lit(1), Lit(3)])
    assert fold_lits("mul", [Lit(1.0), third]) is third and fold_lits("sub", [third, Lit(False)]) is third
    assert fold_lits("mul", [Lit(-2), third]).text == "-2 * (1 / 3)"


# ----------------------------------------------------------------------------- no placeholder calls

LIKE = """import numpy as np


def square_sum(w, x):
    return np.sum(w * x ** 2)


def scaled(x):
    y = np.exp(x)
    return np.sum(y * y * 2.0)
"""


@pytest.mark.parametrize("target", ["numpy", "cupy"])
def test_no_value_writes_no_placeholder_for_a_value_of_an_operands_shape(target):
    """``_like(x, x)`` (the shape of ``x * x``) is ``x``; ``_like(y, 2.0)`` of a float ``y`` is ``y``."""
    text = generate(LIKE, "l.py", target=target, value=False).text
    assert "_like(x, x)" not in text and "_like(y, y)" not in text and "2.0)" not in text.split("def _like")[0]
    import re

    for call in re.findall(r"_like\(([^()]*)\)", text):
        a, b = (s.strip() for s in call.split(","))
        assert a != b, call


def test_no_value_gradients_without_placeholders_are_right():
    from .gradcheck import numeric_grad

    ns = load(LIKE)
    grads = load(generate(LIKE, "l.py", value=False).text)
    rng = np.random.default_rng(3)
    w, x = rng.uniform(-1, 1, 5), rng.uniform(-1, 1, 5)
    dw, dx = grads["grad_square_sum"](w, x)
    np.testing.assert_allclose(dw, numeric_grad(ns["square_sum"], (w, x), 0), rtol=1e-6)
    np.testing.assert_allclose(dx, numeric_grad(ns["square_sum"], (w, x), 1), rtol=1e-6)
    (dx,) = grads["grad_scaled"](x)
    np.testing.assert_allclose(dx, numeric_grad(ns["scaled"], (x,), 0), rtol=1e-6)


def test_the_array_api_no_value_form_runs():
    """The array-API target has ``_like`` too (the product, computed: the standard cannot give the
    promoted dtype of an array and a Python number in every library)."""
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    rng = np.random.default_rng(3)
    w, x = rng.uniform(-1, 1, 5), rng.uniform(-1, 1, 5)
    want = load(generate(LIKE, "l.py", value=False).text)["grad_square_sum"](w, x)
    got = load(generate(LIKE, "l.py", target="array-api", value=False).text)["grad_square_sum"](w, x)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_allclose(np.asarray(b), a, rtol=1e-14)
