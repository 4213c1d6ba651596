"""The committed examples: golden files for readability, checked numerically, kept up to date."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.codegen.module import HELPERS_BANNER
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, load_module, numeric_grad

ROOT = Path(__file__).resolve().parent.parent
#: example source -> (its generated file, the arguments of the command that generates it)
EXAMPLES = {
    "examples/poly.py": ("examples/grad_poly.py", []),
    "examples/logistic.py": ("examples/grad_logistic.py", ["--wrt", "w,b"]),
    "examples/custom/model.py": ("examples/custom/grad_model.py", ["--rules", "examples/custom/fastmath_rules.py"]),
    "examples/cupy/probit.py": ("examples/cupy/grad_probit.py", ["--wrt", "w", "--target", "cupy"]),
    "examples/buffers/mlp.py": ("examples/buffers/grad_mlp.py", ["--wrt", "W1,b1,W2,b2", "--buffers"]),
    "examples/langevin/density.py": ("examples/langevin/grad_density.py", ["--wrt", "x", "--no-value"]),
    "examples/softmax/nll.py": ("examples/softmax/grad_nll.py", ["--wrt", "W,b"]),
    "examples/arrayapi/energy.py": ("examples/arrayapi/grad_energy.py", ["--target", "array-api"]),
    "examples/complex/response.py": ("examples/complex/grad_response.py", ["--wrt", "b,pole"]),
    "examples/newton/logistic.py": ("examples/newton/hess_logistic.py", ["--wrt", "w", "--hessian"]),
    "examples/newton/rosen.py": ("examples/newton/hvp_rosen.py", ["--hvp"]),
    "examples/newton/chain.py": ("examples/newton/hess_chain.py", ["--wrt", "u", "--hessian", "--form", "band"]),
    "examples/newton/intercept.py": ("examples/newton/hess_intercept.py", ["--wrt", "w,b", "--hessian"]),
    "examples/ode/decay.py": ("examples/ode/jvp_decay.py", ["--wrt", "p", "--jvp"]),
}
FLAGS = ("--buffers", "--no-value", "--hvp", "--hessian", "--jvp")


def _regenerate(src: str) -> str:
    out, extra = EXAMPLES[src]
    flags = [e for e in extra if e in FLAGS]
    extra = [e for e in extra if e not in FLAGS]
    options = dict(zip(extra[::2], extra[1::2]))
    wrt = options["--wrt"].split(",") if "--wrt" in options else None
    rules = [str(ROOT / options["--rules"])] if "--rules" in options else []
    form = options.pop("--form", "auto")  # (written after the mode's flag, as Entry.argv writes it)
    extra = [a for k, v in options.items() for a in (k, v)]
    command = " ".join(["yota-s2s", src, *extra, "--out", out, *flags, *(["--form", form] if form != "auto" else [])])
    target = options.get("--target", "numpy")
    source = (ROOT / src).read_text(encoding="utf-8")
    buffers, value = "--buffers" in flags, "--no-value" not in flags
    mode = next((f[2:] for f in flags if f in ("--hvp", "--hessian", "--jvp")), "grad")
    return generate(
        source,
        src,
        wrt=wrt,
        target=target,
        rules=rules,
        command=command,
        buffers=buffers,
        value=value,
        mode=mode,
        form=form,
    ).text


@pytest.mark.parametrize("src", sorted(EXAMPLES))
def test_committed_gradient_is_up_to_date(src):
    """Golden files: the committed output is exactly what the tool writes today.

    Regenerate with YOTA_UPDATE_GOLDEN=1 after a deliberate change, and review the diff.
    """
    out = ROOT / EXAMPLES[src][0]
    text = _regenerate(src)
    if os.environ.get("YOTA_UPDATE_GOLDEN"):
        out.write_text(text, encoding="utf-8")
    assert out.read_text(encoding="utf-8") == text


def test_poly_gradient_is_correct_and_reads_well():
    module = load_module(ROOT / "examples/grad_poly.py")
    source = load_module(ROOT / "examples/poly.py")
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 9)
    value, dx = module.grad_f(x)
    assert np.allclose(value, source.f(x))
    assert_close(dx, numeric_grad(source.f, (x,), 0), "poly dx")
    with pytest.raises(ValueError, match="must return a scalar"):
        module.grad_f(rng.uniform(-1, 1, (9, 5)))  # an array value has no gradient
    text = (ROOT / "examples/grad_poly.py").read_text()
    body = "\n".join(line for line in text[text.index("def grad_f") :].splitlines() if "#" not in line)
    assert body.count("_grad_stack(x, dx)") == 1  # one gradient array for all the x[i] reads
    assert "_unbroadcast" not in text  # scalar polynomial code needs no shape checks
    for square in ("x5 * x5", "x6 * x6", "x7 * x7", "x8 * x8"):
        assert body.count(square) == 1, square  # each square computed once, shared by x**2, x**3 and the gradient
    assert "**" not in body  # small integer powers are products (NumPy's array pow is ~100x slower)
    assert "* 1.0" not in body


def test_logistic_gradient_is_correct_and_reuses_forward_values():
    module = load_module(ROOT / "examples/grad_logistic.py")
    source = load_module(ROOT / "examples/logistic.py")
    rng = np.random.default_rng(4)
    w, b, X = rng.standard_normal(3), 0.3, rng.standard_normal((8, 3))
    y = (rng.random(8) > 0.5).astype(float)
    value, dw, db = module.grad_loss(w, b, X, y)
    assert np.allclose(value, source.loss(w, b, X, y))
    assert_close(dw, numeric_grad(source.loss, (w, b, X, y), 0), "dw")
    assert_close(db, numeric_grad(source.loss, (w, b, X, y), 1), "db")
    code = [line for line in (ROOT / "examples/grad_logistic.py").read_text().splitlines() if "#" not in line]
    assert sum(line.count("np.exp(") for line in code) == 1  # computed in the forward sweep only


def test_readme_commands_match_ci():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci/run").read_text()
    commands = re.findall(r"```sh\n(.*?)\n```", readme, re.DOTALL)
    assert len(commands) == 2
    assert f"{commands[1]} || exit" in ci, "the README's test command must be exactly what .ci/run runs"
    setup = (ROOT / "docs/getting-started.md").read_text()
    assert f"```sh\n{commands[1]}\n```" in setup, "docs/getting-started.md must show the README's test set-up"
    assert "examples/poly.py --out examples/grad_poly.py" in commands[0]


def test_readme_example_is_the_committed_output():
    readme = (ROOT / "README.md").read_text()
    generated = (ROOT / "examples/grad_logistic.py").read_text()
    shown = re.findall(r"```python\n(def grad_loss.*?)```", readme, re.DOTALL)
    assert shown and generated.split(HELPERS_BANNER)[0].rstrip("\n").endswith(shown[0].rstrip("\n"))


def test_custom_rule_example_calls_the_library_and_is_correct(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "examples/custom"))
    module = load_module(ROOT / "examples/custom/grad_model.py")
    source = load_module(ROOT / "examples/custom/model.py")
    rng = np.random.default_rng(5)
    w, X, y = rng.standard_normal(3), rng.standard_normal((6, 3)), (rng.random(6) > 0.5) * 1.0
    value, dw, dX, dy = module.grad_loss(w, X, y)
    assert np.isclose(value, source.loss(w, X, y))
    for i, grad in enumerate((dw, dX, dy)):
        assert_close(grad, numeric_grad(source.loss, (w, X, y), i), f"d{'wXy'[i]}")
    text = (ROOT / "examples/custom/grad_model.py").read_text()
    assert "import fastmath" in text.splitlines() and "fastmath.softplus(z)" in text


def test_the_project_config_lists_the_examples_and_they_are_up_to_date():
    """This repository's own [tool.yota-s2s] lists the example gradients: `yota-s2s --check` passes."""
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s", "--check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_ode_example_sensitivity_matches_central_differences():
    """examples/ode: jvp_trajectory_end (forward mode through 200 Euler steps) along a direction of
    the parameters is what central differences of the integrator give."""
    proc = subprocess.run(
        [sys.executable, "sensitivity.py"], cwd=ROOT / "examples/ode", capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    lines = {
        line[:12]: line.split("[")[1] for line in proc.stdout.splitlines() if line.startswith(("d state", "central"))
    }
    assert lines["d state alon"] == lines["central diff"] and len(lines["central diff"].split()) == 2
    assert proc.stdout == (ROOT / "examples/ode/output.txt").read_text(encoding="utf-8")  # (the committed output)


def test_the_buffered_example_trains_and_gives_what_grad_loss_gives():
    proc = subprocess.run(
        [sys.executable, "train.py"], cwd=ROOT / "examples/buffers", capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    losses = [float(v) for v in re.findall(r"loss ([\d.]+)", proc.stdout)]
    assert len(losses) == 4 and losses == sorted(losses, reverse=True)
    assert proc.stdout.endswith("same as grad_loss: True\n")


def test_the_langevin_example_samples_with_the_gradients_only_form():
    module = load_module(ROOT / "examples/langevin/grad_density.py")
    source = load_module(ROOT / "examples/langevin/density.py")
    x = np.random.default_rng(4).standard_normal((2, 5))
    result = module.grad_neg_log_density(x)
    assert isinstance(result, tuple) and len(result) == 1  # --no-value: the gradient alone
    assert_close(result[0], numeric_grad(source.neg_log_density, (x,), 0), "dx")
    proc = subprocess.run(
        [sys.executable, "sample.py"], cwd=ROOT / "examples/langevin", capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    mean, var = (float(v) for v in re.findall(r": ([\d.]+) \(exact", proc.stdout))
    assert abs(mean - 1.0) < 0.1 and abs(var - 0.5) < 0.1, proc.stdout


def test_the_softmax_example_has_no_gradient_through_the_max():
    module = load_module(ROOT / "examples/softmax/grad_nll.py")
    source = load_module(ROOT / "examples/softmax/nll.py")
    rng = np.random.default_rng(5)
    W, b, X = rng.standard_normal((4, 3)), np.array([0.1, 0.5, 0.5]), rng.standard_normal((6, 4))
    Y = np.eye(3)[rng.integers(0, 3, 6)]
    X[0] = 0.0  # row 0 of z is b: a tie at its maximum (the loss is smooth there all the same)
    value, dW, db = module.grad_nll(W, b, X, Y)
    assert np.allclose(value, source.nll(W, b, X, Y), rtol=1e-13)
    assert_close(dW, numeric_grad(source.nll, (W, b, X, Y), 0), "dW")
    assert_close(db, numeric_grad(source.nll, (W, b, X, Y), 1), "db")
    backward = (ROOT / "examples/softmax/grad_nll.py").read_text().split(HELPERS_BANNER)[0].split("# backward")[1]
    code = [line for line in backward.splitlines() if not line.lstrip().startswith("#")]
    assert not any("==" in line or "zmax" in line for line in code), backward


def test_the_array_api_example_gives_the_numpy_gradient_on_numpy_and_jax_arrays():
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    sys.path.insert(0, str(ROOT / "examples" / "arrayapi"))
    try:
        import energy
    finally:
        sys.path.pop(0)
    grad = load_module(ROOT / "examples/arrayapi/grad_energy.py").grad_energy
    x, c = np.random.default_rng(1).normal(size=(3, 50)), 0.3
    value, dx, dc = grad(x, c)
    assert np.isclose(float(value), energy.energy(x, c))
    assert_close(np.asarray(dx), numeric_grad(energy.energy, (x, c), 0), "dx")
    assert_close(float(dc), numeric_grad(energy.energy, (x, c), 1), "dc")
    jax = pytest.importorskip("jax", reason="JAX is not installed (pip install -e '.[arrayapi]')")
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)  # float64, as NumPy's numbers are
    try:
        _, jdx, jdc = grad(jax.numpy.asarray(x), c)
        np.testing.assert_allclose(np.asarray(jdx), np.asarray(dx), rtol=1e-12)
        np.testing.assert_allclose(float(jdc), float(dc), rtol=1e-12)
    finally:
        jax.config.update("jax_enable_x64", previous)


def test_the_complex_example_fits_a_pole_with_its_complex_gradient():
    module = load_module(ROOT / "examples/complex/grad_response.py")
    source = load_module(ROOT / "examples/complex/response.py")
    w = np.linspace(0.0, np.pi, 16)
    rng = np.random.default_rng(6)
    b, pole, target = rng.standard_normal(3), 0.3 - 0.2j, rng.standard_normal(16) + 1j * rng.standard_normal(16)
    value, db, dpole = module.grad_loss(b, pole, w, target)
    assert np.isclose(value, source.loss(b, pole, w, target))
    assert db.dtype == np.float64  # real taps: a real gradient
    assert_close(db, numeric_grad(source.loss, (b, pole, w, target), 0), "db")
    along_re = numeric_grad(lambda p: source.loss(b, pole + p, w, target), (0.0,), 0)
    along_im = numeric_grad(lambda p: source.loss(b, pole + 1j * p, w, target), (0.0,), 0)
    assert np.isclose(dpole, along_re + 1j * along_im, rtol=1e-6)  # dL/dRe + 1j dL/dIm
    proc = subprocess.run(
        [sys.executable, "fit.py"], cwd=ROOT / "examples/complex", capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("loss at the fit True\n"), proc.stdout


def test_the_newton_example_converges_with_the_generated_hessian_and_products():
    hess = load_module(ROOT / "examples/newton/hess_logistic.py").hess_loss
    hvp = load_module(ROOT / "examples/newton/hvp_rosen.py").hvp_rosen
    source = load_module(ROOT / "examples/newton/logistic.py")
    rng = np.random.default_rng(6)
    w, X, y = rng.standard_normal(3), rng.standard_normal((7, 3)), (rng.random(7) > 0.5) * 1.0
    value, dw, H = hess(w, X, y)
    assert np.isclose(value, source.loss(w, X, y)) and H.shape == (3, 3)
    assert_close(dw, numeric_grad(source.loss, (w, X, y), 0), "dw")
    columns = [numeric_grad(lambda w, i=i: hess(w, X, y)[1][i], (w,), 0) for i in range(3)]
    assert_close(H, np.array(columns), "H")
    x, v = rng.standard_normal(6), rng.standard_normal(6)
    rows = [numeric_grad(lambda x, i=i: hvp(x, v)[1][i], (x,), 0) for i in range(6)]
    assert_close(hvp(x, v)[2], np.array(rows) @ v, "Hv")
    # the blocks with respect to (w, b): H_wb of shape w.shape + b.shape, against differences of the gradient
    blocks = load_module(ROOT / "examples/newton/hess_intercept.py").hess_loss
    with_b = load_module(ROOT / "examples/newton/intercept.py")
    value, dw, db, ((H_ww, H_wb), (H_bw, H_bb)) = blocks(w, 0.3, X, y)
    assert np.isclose(value, with_b.loss(w, 0.3, X, y)) and H_wb.shape == H_bw.shape == (3,) and H_bb.shape == ()
    assert_close(db, numeric_grad(with_b.loss, (w, 0.3, X, y), 1), "db")
    assert_close(
        H_ww, np.array([numeric_grad(lambda w, i=i: blocks(w, 0.3, X, y)[1][i], (w,), 0) for i in range(3)]), "H_ww"
    )
    assert_close(H_wb, numeric_grad(lambda w: blocks(w, 0.3, X, y)[2], (w,), 0), "H_bw")
    assert_close(H_bb, numeric_grad(lambda b: blocks(w, b, X, y)[2], (0.3,), 0), "H_bb")
    assert np.allclose(H_wb, H_bw, rtol=1e-13)
    proc = subprocess.run(
        [sys.executable, "newton.py"], cwd=ROOT / "examples/newton", capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    gradients = [float(g) for g in re.findall(r"step \d+: loss [\d.]+, \|gradient\| ([\d.e+-]+)", proc.stdout)]
    assert gradients[-1] < 1e-12 and gradients[3] < gradients[2] ** 1.5  # quadratic convergence
    both = [float(g) for g in re.findall(r"on \(w, b\): loss [\d.]+, \|gradient\| ([\d.e+-]+)", proc.stdout)]
    assert len(both) == 6 and both[-1] < 1e-12 and both[3] < both[2] ** 1.5
    assert float(re.findall(r"max \|x - 1\| ([\d.e+-]+)", proc.stdout)[0]) < 1e-8
    chain = [float(g) for g in re.findall(r"on the chain: energy [\d.-]+, \|gradient\| ([\d.e+-]+)", proc.stdout)]
    assert len(chain) == 6 and chain[-1] < 1e-11 and chain[3] < chain[2] ** 1.5
    assert "the chain's Hessian: (2000, 2000), zero outside its three diagonals: True" in proc.stdout


def test_the_chain_hessian_is_computed_by_its_diagonals():
    """examples/newton/hess_chain.py (--form band) computes H by its diagonals alone for a vector u,
    against central differences of the gradient, and refuses a matrix (no band there)."""
    text = (ROOT / "examples/newton/hess_chain.py").read_text(encoding="utf-8")
    assert "# H is banded (3 diagonals)" in text and "_band_window(H, -1, " in text  # (diagonal -1 on [1:])
    assert "--form band" in text and "the rows, batched" not in text and "_rows_seed" not in text
    hess = load_module(ROOT / "examples/newton/hess_chain.py").hess_energy
    rng = np.random.default_rng(8)
    with pytest.raises(ValueError, match="--form band"):
        hess(rng.standard_normal((2, 3)), rng.standard_normal((2, 3)))
    for u in (rng.standard_normal(7), rng.standard_normal(2)):
        load = rng.standard_normal(u.shape)
        H = hess(u, load)[2]
        assert H.shape == u.shape + u.shape
        columns = [numeric_grad(lambda u, i=i, p=load: hess(u, p)[1].flat[i], (u,), 0) for i in range(u.size)]
        assert_close(H.reshape(u.size, u.size), np.array(columns).reshape(u.size, u.size), "H")
