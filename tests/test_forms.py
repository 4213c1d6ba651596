"""``--form``: one algorithm per generated function, where its shapes leave a choice to the call.

``auto`` (the default) keeps each run-time choice as one commented branch; ``rows`` writes the
reverse sweeps batched over the rows and nothing else, ``columns`` a Jacobian by forward columns
alone, ``band`` a Hessian by its diagonals alone.  Each committed form computes the same numbers as
``auto`` (and as central differences), its text holds no branch of another form, and a form a
function cannot be written in is a located YS043 (exit 2, the output untouched).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

from .test_hessian import numeric_hessian
from .test_jacobian_columns import CASES, PARAMS, SOURCE, _numeric, _primal

RNG = np.random.default_rng(2911)

BANDED = """\
import numpy as np


def chain(u, load):
    stretch = u[1:] - u[:-1]
    return np.sum(0.5 * stretch**2 + 0.25 * stretch**4) + np.sum(0.5 * u**2 + 0.1 * u**4 - load * u)


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def coupled(x):
    return np.sum(x) ** 2 + np.sum(x[1:] * x[:-1])


def big(x):
    return np.sum(np.exp(x) * x**2)
"""

#: The text each form must not hold: a branch of another form.
BRANCHES = {
    "rows": ["forward columns", "H is banded", "_by_columns", "_jacobian_blocks"],
    "columns": ["reverse rows", "one reverse sweep per row", "the reverse sweep on a block", "_jacobian_blocks"],
    "band": ["the rows, batched", "_by_columns"],
}


def _load(source: str, wrt: dict, mode: str, form: str) -> tuple[dict, str]:
    text = generate(source, "forms.py", list(wrt), wrt, mode=mode, form=form).text
    namespace: dict = {}
    exec(compile(text, f"<{form}>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace, text


@pytest.mark.parametrize("form", ["rows", "columns"])
@pytest.mark.parametrize("case", ["model-tall", "curve-three", "layer-square", "residual-wide", "outer-tall"])
def test_jacobian_forms_agree_with_auto_and_differences(case, form):
    func, wrt, make = CASES[case]
    args = make()
    auto, _ = _load(SOURCE, {func: wrt}, "jacobian", "auto")
    one, text = _load(SOURCE, {func: wrt}, "jacobian", form)
    body = text.split(f"def jac_{func}(")[1].split("\ndef ")[0]
    assert not [b for b in BRANCHES[form] if b in body], body
    expected = auto["jac_" + func](*args)
    got = one["jac_" + func](*args)
    assert np.allclose(got[0], expected[0], rtol=1e-14, atol=0)
    f = _primal(case)
    for k, w in enumerate(wrt):
        i = PARAMS[func].index(w)
        assert np.allclose(got[1 + k], expected[1 + k], rtol=1e-12, atol=1e-14), (case, w)
        assert np.allclose(got[1 + k], _numeric(f, args, i), rtol=1e-6, atol=1e-7), (case, w)


@pytest.mark.parametrize("n", [1, 2, 5, 30])
@pytest.mark.parametrize("form", ["rows", "band"])
def test_hessian_forms_agree_with_auto_and_differences(form, n):
    wrt = {"chain": ["u"], "rosen": ["x"]}
    auto, _ = _load(BANDED, wrt, "hessian", "auto")
    grad, _ = _load(BANDED, wrt, "grad", "auto")
    one, text = _load(BANDED, wrt, "hessian", form)
    for name, args in (("chain", (RNG.normal(size=n), RNG.normal(size=n))), ("rosen", (RNG.normal(size=n),))):
        body = text.split(f"def hess_{name}(")[1].split("\ndef ")[0]
        assert not [b for b in BRANCHES[form] if b in body], body
        if form == "band":
            assert ("_rows_diagonal(H, " in body or "_band_window(H, " in body) and "_rows_seed" not in body
        H = one["hess_" + name](*args)[2]
        assert np.allclose(H, auto["hess_" + name](*args)[2], rtol=1e-12, atol=1e-13)
        expected = numeric_hessian(grad["grad_" + name], args, 0)
        assert np.allclose(H, expected, rtol=1e-6, atol=1e-6 * max(1.0, np.abs(expected).max()))


def test_band_raises_where_the_shapes_give_no_band():
    """The band form's test of the run-time shapes fails (a matrix u): a ValueError, not a wrong H."""
    one, _ = _load(BANDED, {"chain": ["u"]}, "hessian", "band")
    with pytest.raises(ValueError, match="--form band"):
        one["hess_chain"](RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3)))


def test_rows_drops_the_column_guard_of_a_gradient():
    auto = generate(BANDED, "forms.py", ["big"]).text
    rows = generate(BANDED, "forms.py", ["big"], form="rows").text
    assert "_by_columns" in auto and "_by_columns" not in rows and "_grad_big_columns" not in rows
    namespace: dict = {}
    exec(compile(rows, "<rows>", "exec"), namespace)  # noqa: S102 - the tool's output
    x = RNG.normal(size=20_000)
    value, dx = namespace["grad_big"](x)
    assert np.isclose(value, np.sum(np.exp(x) * x**2), rtol=1e-13)
    assert np.allclose(dx, np.exp(x) * (x**2 + 2 * x), rtol=1e-13)


@pytest.mark.parametrize(
    ("mode", "form", "said"),
    [
        ("grad", "columns", "--form columns (jac_NAME by forward columns) is a form of --jacobian only"),
        ("jacobian", "band", "--form band (hess_NAME by its diagonals) is a form of --hessian only"),
        ("hvp", "band", "is a form of --hessian only"),
    ],
)
def test_a_form_of_another_mode_is_ys043(mode, form, said):
    with pytest.raises(UserError) as caught:
        generate(BANDED, "forms.py", ["coupled"], mode=mode, form=form)
    assert caught.value.code == "YS043" and said in str(caught.value)


@pytest.mark.parametrize(
    ("func", "wrt", "said"),
    [
        ("coupled", ["x"], "hess_coupled is not written by its diagonals"),  # (np.sum(x) ** 2: a dense H)
        ("chain", ["u", "load"], "hess_chain is not written by its diagonals (several parameters)"),
    ],
)
def test_a_hessian_without_a_band_form_is_ys043_at_generation(func, wrt, said):
    with pytest.raises(UserError) as caught:
        generate(BANDED, "forms.py", [func], {func: wrt}, mode="hessian", form="band")
    assert caught.value.code == "YS043" and said in str(caught.value)
    assert caught.value.line > 0  # (located in the source)


def test_columns_where_the_jacobian_has_no_columns_is_ys043():
    source = "import numpy as np\n\n\ndef f(x):\n    return np.array([x[0] * x[1], x[1] ** 2])\n"
    with pytest.raises(UserError) as caught:
        generate(source, "rows.py", mode="jacobian", form="columns")
    assert caught.value.code == "YS043" and "jac_f cannot be written by forward columns" in str(caught.value)


def test_the_cli_takes_the_form_writes_it_in_the_header_and_keeps_the_output_on_error(tmp_path):
    src = tmp_path / "chain.py"
    src.write_text(BANDED, encoding="utf-8")
    out = tmp_path / "hess_chain.py"
    run = [sys.executable, "-m", "yota_s2s", str(src), "--func", "chain", "--wrt", "u", "--hessian"]
    done = subprocess.run([*run, "--form", "band", "--out", str(out)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert "--form band" in text.split("\nimport")[0] and "the rows, batched" not in text
    bad = subprocess.run([*run, "--form", "columns", "--out", str(out)], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "YS043" in bad.stderr and "Traceback" not in bad.stderr
    assert out.read_text(encoding="utf-8") == text
