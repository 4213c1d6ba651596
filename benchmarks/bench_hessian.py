"""Second order: ``hvp_NAME`` and ``hess_NAME`` against the gradient, and against JAX's ``hessian``.

Issue 24's targets: the Hessian-vector product of Rosenbrock and of a small MLP loss at most 4x
the gradient (``grad_NAME``), and the Hessian of Rosenbrock at n = 100 no slower than JAX
``jit(hessian(f))``; beside it, the Hessians of Rosenbrock at n = 1,000, of a polynomial energy of
slices and of the MLP loss (with respect to ``W1``), each in the batched sweep and in the loop over
unit vectors it replaced (``codegen.batched.BATCH_ROWS`` False), the first three also by their
diagonals (``codegen.banded``: the default where the sweep keeps them), against JAX's; and the Hessian of
a polynomial of ``x[0]``, ..., ``x[7]`` (30 terms), whose rows ``hess_NAME`` writes out.  All three functions (``grad_``, ``hvp_``, ``hess_``) are generated here from
the same source, in memory; JAX (the ``arrayapi`` extra installs it) runs on the CPU, on one
thread, as the benchmark's other peers do (``benchmarks/run.py --threads 1``).  Each time is the
best of 7 rounds of the process's CPU time (robust to other load on a shared machine).

    python -m benchmarks.bench_hessian            # prints one table
    python -m benchmarks.bench_hessian --md FILE  # and writes it to FILE

Every figure is checked first: the HVP against the Hessian times ``v``, each form of the Hessian against JAX's.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .pieces import _best_us  # (the process time per call, best of 7 rounds)

SOURCE = """\
import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    p = h @ W2
    return np.mean((p - y) ** 2)


def energy(x):
    return np.sum(x**4) - 2.0 * np.sum(x[:-1] * x[1:]) + 0.5 * np.dot(x, x) + np.sum(x[1:] ** 2 * x[:-1] ** 3)
"""


def _poly_terms(n: int = 8, terms: int = 30) -> str:
    """A fixed random polynomial of x[0], ..., x[n-1]: ``terms`` products c * x[i] * x[j] ** 2 * x[k]."""
    import numpy as np

    rng = np.random.default_rng(1)
    out = []
    for _ in range(terms):
        i, j, k = rng.integers(0, n, 3)
        out.append(f"{rng.normal():.3f} * x[{i}] * x[{j}] ** 2 * x[{k}]")
    return " + ".join(out)


def _one_thread() -> None:
    """One thread for every library, before NumPy and JAX start (as ``benchmarks/run.py --threads 1``)."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    flags = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + flags).strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _generated(mode: str, wrt: dict, batch: bool = True, bands: bool = True) -> dict:
    from yota_s2s.codegen import batched
    from yota_s2s.pipeline import generate

    batched.BATCH_ROWS = batch  # (False: the loop over unit vectors, the form before the batched sweep)

    source = SOURCE + "\n\ndef poly(x):\n    return " + _poly_terms() + "\n"
    try:
        # (bands False: --form rows, the batched sweep where the Hessian is banded, the form before the diagonals)
        form = "rows" if mode == "hessian" and not bands else "auto"
        text = generate(source, "second.py", list(wrt), wrt, mode=mode, form=form).text
    finally:
        batched.BATCH_ROWS = True
    namespace: dict = {}
    exec(compile(text, f"<{mode}>", "exec"), namespace)  # noqa: S102 - the tool's output
    namespace["__text__"] = text
    return namespace


def rows() -> list[tuple[str, float, float, str]]:
    """(what, ours µs, reference µs, the reference's name) of each row of the table."""
    import numpy as np

    wrt = {"rosen": ["x"], "mlp": ["W1"], "poly": ["x"], "energy": ["x"]}
    grad, hvp, hess = (_generated(m, wrt) for m in ("grad", "hvp", "hessian"))
    loop = _generated("hessian", wrt, batch=False)
    dense = _generated("hessian", wrt, bands=False)
    rng = np.random.default_rng(0)
    out = []
    for n in (100, 10_000):
        x, v = rng.normal(size=n), rng.normal(size=n)
        if n == 100:
            H = hess["hess_rosen"](x)[2]
            assert np.allclose(hvp["hvp_rosen"](x, v)[2], H @ v, rtol=1e-10, atol=1e-8)
        g = _best_us(lambda x=x: grad["grad_rosen"](x))
        h = _best_us(lambda x=x, v=v: hvp["hvp_rosen"](x, v))
        out.append((f"hvp_rosen, n = {n:,}", h, g, "grad_rosen"))
    X, y = rng.normal(size=(64, 10)), rng.normal(size=(64, 3))
    W1, b1, W2 = rng.normal(size=(10, 32)) * 0.3, rng.normal(size=32), rng.normal(size=(32, 3)) * 0.3
    V = rng.normal(size=W1.shape)
    args = (W1, b1, W2, X, y)
    H = hess["hess_mlp"](*args)[2].reshape(W1.size, W1.size)
    assert np.allclose(hvp["hvp_mlp"](*args, V)[2].ravel(), H @ V.ravel(), rtol=1e-9, atol=1e-9)
    g = _best_us(lambda: grad["grad_mlp"](*args))
    h = _best_us(lambda: hvp["hvp_mlp"](*args, V))
    out.append(("hvp_mlp (X 64 x 10, W1 10 x 32, W2 32 x 3; wrt W1)", h, g, "grad_mlp"))
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return out
    jax.config.update("jax_enable_x64", True)

    def rosen(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def energy(x):
        return jnp.sum(x**4) - 2.0 * jnp.sum(x[:-1] * x[1:]) + 0.5 * jnp.dot(x, x) + jnp.sum(x[1:] ** 2 * x[:-1] ** 3)

    def mlp(W1, b1, W2, X, y):
        return jnp.mean((jnp.tanh(X @ W1 + b1) @ W2 - y) ** 2)

    jax_us = {}
    for name, f, n in (("rosen", rosen, 100), ("rosen", rosen, 1000), ("energy", energy, 100)):
        x = rng.normal(size=n)
        jax_hessian, xj = jax.jit(jax.hessian(f)), jnp.asarray(x)
        H = hess[f"hess_{name}"](x)[2]
        assert np.allclose(np.asarray(jax_hessian(xj)), H, rtol=1e-12, atol=1e-9)
        assert np.allclose(loop[f"hess_{name}"](x)[2], H, rtol=1e-12, atol=1e-9)
        theirs = _best_us(lambda jax_hessian=jax_hessian, xj=xj: jax_hessian(xj).block_until_ready())
        jax_us[name, n] = theirs
        assert np.allclose(dense[f"hess_{name}"](x)[2], H, rtol=1e-12, atol=1e-9)
        assert "_rows_diagonal" in hess["__text__"].split(f"def hess_{name}(")[1].split("\ndef ")[0]
        ours = _best_us(lambda name=name, x=x: hess[f"hess_{name}"](x))
        batched = _best_us(lambda name=name, x=x: dense[f"hess_{name}"](x))
        before = _best_us(lambda name=name, x=x: loop[f"hess_{name}"](x))
        for form, us in (("the loop over unit vectors", before), ("batched sweep", batched), ("by diagonals", ours)):
            out.append((f"hess_{name}, n = {n:,} ({form})", us, theirs, "JAX jit(hessian(f))"))
    jax_hessian = jax.jit(jax.hessian(mlp))
    jargs = tuple(jnp.asarray(a) for a in args)
    H = hess["hess_mlp"](*args)[2]
    assert np.allclose(np.asarray(jax_hessian(*jargs)), H, rtol=1e-10, atol=1e-12)
    theirs = _best_us(lambda: jax_hessian(*jargs).block_until_ready())
    before = _best_us(lambda: loop["hess_mlp"](*args))
    ours = _best_us(lambda: hess["hess_mlp"](*args))
    what = "hess_mlp (W1 10 x 32: H 320 x 320)"
    out.append((f"{what} (the loop over unit vectors, before)", before, theirs, "JAX jit(hessian(f))"))
    out.append((f"{what} (batched sweep)", ours, theirs, "JAX jit(hessian(f))"))

    fresh = _fresh_process_us(hess["__text__"], "hess_rosen", 100)
    out.append(
        (
            "hess_rosen, n = 100 (by diagonals, alone in a new process)",
            fresh,
            jax_us["rosen", 100],
            "JAX jit(hessian(f))",
        )
    )

    poly = eval("lambda x: " + _poly_terms(), {})  # (our own fixed text)

    x = rng.normal(size=8)
    jax_hessian, xj = jax.jit(jax.hessian(poly)), jnp.asarray(x)
    assert np.allclose(np.asarray(jax_hessian(xj)), hess["hess_poly"](x)[2], rtol=1e-12, atol=1e-12)
    ours = _best_us(lambda: hess["hess_poly"](x))
    theirs = _best_us(lambda: jax_hessian(xj).block_until_ready())
    out.append(("hess_poly, 8 unknowns, 30 terms (rows written out)", ours, theirs, "JAX jit(hessian(f))"))
    return out


def _fresh_process_us(text: str, name: str, n: int) -> float:
    """``name``'s time at ``x`` of ``n`` numbers, alone in a new Python process: glibc's malloc thresholds
    as a user's program starts with them (in this process, JAX's and the large Hessians' allocations
    have raised them, which spares NumPy's mid-sized arrays the page faults: runtime/rows.py)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "generated.py").write_text(text, encoding="utf-8")
        code = (
            "import numpy as np, generated\n"
            "from benchmarks.pieces import _best_us\n"
            f"x = np.random.default_rng(0).normal(size={n})\n"
            f"print(_best_us(lambda: generated.{name}(x)))\n"
        )
        path = os.pathsep.join([folder, str(Path(__file__).resolve().parent.parent)])
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": path},
        )
    return float(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_hessian", description=__doc__.split("\n\n")[0])
    p.add_argument("--md", metavar="FILE", help="also write the table here")
    opts = p.parse_args(argv)
    _one_thread()
    lines = ["| what | yota-s2s µs | against µs | ratio |", "|---|--:|--:|--:|"]
    for what, ours, theirs, name in rows():
        lines.append(f"| {what} | {ours:,.1f} | {theirs:,.1f} ({name}) | {ours / theirs:.2f} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if opts.md:
        Path(opts.md).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
