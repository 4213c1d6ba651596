"""Tall Jacobians (few inputs, many outputs): ``jac_NAME`` by forward columns against reverse rows and JAX.

Issue 24: "few inputs: forward columns".  Two residual vectors of least-squares fits, ``m``
outputs of ``n`` parameters:

- ``logistic(theta, X, y) = 1 / (1 + exp(-(X @ theta))) - y``, ``X`` of ``m`` x ``n`` (n = 2, 4, 8);
- ``damped(p, t, y) = decay(t, p[1]) * p[0] * cos(p[2] * t + p[3]) - y`` (n = 4, a helper call,
  the parameters read by their elements).

For each, ``m`` = 1,000, 10,000 and 100,000, one process times on one thread (as
``benchmarks/run.py --threads 1``):

- ``columns``: ``jac_NAME`` as the tool writes it, which takes its forward columns when it runs
  (``np.size(value) > n``): the JVP on blocks of unit tangents;
- ``rows``: ``jac_NAME`` generated with reverse rows alone (``--form rows``), one reverse sweep
  per output (``codegen.batched.BATCH_ROWS`` False: what ``--jacobian`` wrote before) (``m`` up to 10,000: at 100,000
  it would take minutes);
- ``jacfwd``, ``jacrev``: ``jax.jit(jax.jacfwd(f))`` and ``jax.jit(jax.jacrev(f, argnums=0))`` of the same
  function with ``jax.numpy`` (x64, compiled before timing, ``block_until_ready``); ``jacrev`` at
  ``m`` = 1,000 only (its vmap over ``m`` cotangents makes ``m`` x ``m`` arrays: 800 MB at 10,000).

Each time is the best of 7 rounds of the process's CPU time per call (``benchmarks.pieces._best_us``).
Every Jacobian is checked against JAX's ``jacfwd`` (and ``rows`` against ``columns``) before it is timed.

    python -m benchmarks.bench_jacobian_tall            # prints one table
    python -m benchmarks.bench_jacobian_tall --md FILE  # and writes it to FILE
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .bench_hessian import _one_thread
from .pieces import _best_us

SOURCE = """\
import numpy as np


def logistic(theta, X, y):
    return 1.0 / (1.0 + np.exp(-(X @ theta))) - y


def decay(t, k):
    return np.exp(-k * t)


def damped(p, t, y):
    return decay(t, p[1]) * p[0] * np.cos(p[2] * t + p[3]) - y
"""

SIZES = (1_000, 10_000, 100_000)
ROWS_UP_TO = 10_000
JACREV_UP_TO = 1_000


def _generated(columns: bool) -> dict:
    from yota_s2s.codegen import batched
    from yota_s2s.pipeline import generate

    batched.BATCH_ROWS = columns  # (False: one reverse sweep per row, as --jacobian wrote before)
    try:
        wrt = {"logistic": ["theta"], "damped": ["p"]}
        form = "auto" if columns else "rows"  # (--form rows: the rows alone)
        text = generate(SOURCE, "tall.py", list(wrt), wrt, mode="jacobian", form=form).text
    finally:
        batched.BATCH_ROWS = True
    namespace: dict = {}
    exec(compile(text, "<jacobian>", "exec"), namespace)  # noqa: S102 - the tool's output
    return namespace


def rows() -> list[tuple[str, int, int, dict[str, float | None]]]:
    """(function, n, m, {form: µs or None}) of each row of the table."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    jax.config.update("jax_enable_x64", True)

    def logistic(theta, X, y):
        return 1.0 / (1.0 + jnp.exp(-(X @ theta))) - y

    def damped(p, t, y):
        return jnp.exp(-p[1] * t) * p[0] * jnp.cos(p[2] * t + p[3]) - y

    ours, before = _generated(True), _generated(False)
    rng = np.random.default_rng(0)
    out = []
    cases = [("logistic", n) for n in (2, 4, 8)] + [("damped", 4)]
    for name, n in cases:
        for m in SIZES:
            if name == "logistic":
                args = (rng.normal(size=n), rng.normal(size=(m, n)), rng.normal(size=m))
                f = logistic
            else:
                args = (np.array([1.5, 0.3, 2.0, 0.1]), np.linspace(0.0, 10.0, m), rng.normal(size=m))
                f = damped
            jargs = tuple(jnp.asarray(a) for a in args)
            fwd, rev = jax.jit(jax.jacfwd(f)), jax.jit(jax.jacrev(f))
            J = ours["jac_" + name](*args)[1]
            assert J.shape == (m, n) and np.allclose(J, np.asarray(fwd(*jargs)), rtol=1e-12, atol=1e-12)
            times: dict[str, float | None] = {
                "columns": _best_us(lambda name=name, args=args: ours["jac_" + name](*args))
            }
            times["rows"] = None
            if m <= ROWS_UP_TO:
                assert np.allclose(before["jac_" + name](*args)[1], J, rtol=1e-12, atol=1e-12)
                times["rows"] = _best_us(lambda name=name, args=args: before["jac_" + name](*args))
            times["jacfwd"] = _best_us(lambda fwd=fwd, jargs=jargs: fwd(*jargs).block_until_ready())
            times["jacrev"] = None
            if m <= JACREV_UP_TO:
                times["jacrev"] = _best_us(lambda rev=rev, jargs=jargs: rev(*jargs).block_until_ready())
            out.append((name, n, m, times))
    return out


def _cell(us: float | None) -> str:
    return "—" if us is None else f"{us:,.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{a / b:.2f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_jacobian_tall", description=__doc__.split("\n\n")[0])
    p.add_argument("--md", metavar="FILE", help="also write the table here")
    opts = p.parse_args(argv)
    _one_thread()
    lines = [
        "| function | n | m | columns µs | rows µs | JAX jacfwd µs | JAX jacrev µs | rows / columns | columns / jacfwd |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for name, n, m, t in rows():
        cells = [_cell(t[k]) for k in ("columns", "rows", "jacfwd", "jacrev")]
        ratios = [_ratio(t["rows"], t["columns"]), _ratio(t["columns"], t["jacfwd"])]
        lines.append(f"| {name} | {n} | {m:,} | " + " | ".join(cells + ratios) + " |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if opts.md:
        Path(opts.md).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
