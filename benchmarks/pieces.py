"""Where the generated gradients lose time: ``python -m benchmarks.pieces [--md FILE]``.

Input: nothing (it generates the gradients it needs with the real ``yota-s2s``).  Output: a
markdown table that times pieces of the generated code against what the mechanical
hand-written gradient does in their place, on the inputs of the benchmark row they come
from: the evidence behind "Where yota-s2s is slower" in docs/performance.md.  Each piece
uses the helper functions copied into the generated module, so the figures follow the
generator; a piece the generator no longer emits is left out.  Timed
with the process's CPU time (best of 7 runs), on one thread.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
import time
from pathlib import Path


def _best_us(call, seconds: float = 0.05) -> float:
    n = 1
    while True:
        t0 = time.process_time()
        for _ in range(n):
            call()
        if time.process_time() - t0 >= seconds or n >= 1 << 20:
            break
        n *= 2
    best = float("inf")
    for _ in range(7):
        t0 = time.process_time()
        for _ in range(n):
            call()
        best = min(best, (time.process_time() - t0) / n)
    return best * 1e6


def pieces(workdir: Path) -> list[tuple[str, str, object, object]]:
    """(row, piece, generated code, hand-written equivalent) for the pieces to time."""
    import numpy as np

    from .peers import Case, generate
    from .workloads import WORKLOADS

    def module(name, size):
        w = WORKLOADS[name]
        folder = workdir / f"{name}_{size}"
        folder.mkdir(exist_ok=True)
        return generate(Case(w, size, w.make_inputs(size), folder)), w.make_inputs(size)

    out = []
    mp, (xp,) = module("poly8", "small")
    code = inspect.getsource(mp.grad_poly8)
    s = np.float64(0.5)

    def scatter():
        dx = np.zeros_like(xp)
        for i in range(1, 9):
            dx[i] += s
        return dx

    if "dx = np.zeros_like(x)" in code and "dx[8] += " in code:
        what = "`dx = np.zeros_like(x)` then `dx[i] += ...` for 8 entries"
        out.append(("poly8 small", what, scatter, lambda: np.array((0.0, s, s, s, s, s, s, s, s))))
    if "np.ndim(poly8) != 0" in code:
        out.append(("poly8 small", "the check `np.ndim(value) != 0` of a scalar loss", lambda: np.ndim(s) != 0, None))
    ml, (W, b, x) = module("linear", "small")
    g = np.ones((W.shape[0], x.shape[1]))
    if hasattr(ml, "_matmul_dx"):
        out.append(
            ("linear small", "`_matmul_dx(g, W, x)` (any rank)", lambda: ml._matmul_dx(g, W, x), lambda: g @ x.T)
        )
        out.append(
            ("linear small", "`_matmul_dy(g, W, x)` (any rank)", lambda: ml._matmul_dy(g, W, x), lambda: W.T @ g)
        )
    if hasattr(ml, "_unbroadcast"):
        col = b[:, None]
        full = np.ones((W.shape[0], x.shape[1]))
        out.append(
            (
                "linear small",
                "`np.reshape(_unbroadcast(g, b[:, None]), np.shape(b))`",
                lambda: np.reshape(ml._unbroadcast(full, col), np.shape(b)),
                lambda: full.sum(axis=1),
            )
        )
        out.append(
            ("linear small", "`_unbroadcast(g, t)` when the shapes are equal", lambda: ml._unbroadcast(g, g), None)
        )
    mm, (_, _, W2, _, X, _) = module("mlp", "small")
    backward = inspect.getsource(mm.grad_mlp).split("# backward")[1]
    statements = [line for line in backward.splitlines() if not line.strip().startswith("#")]
    if any("np.sum(" in line and "keepdims=True)" in line for line in statements):  # not g.sum(...)
        gz = np.ones((X.shape[0], W2.shape[1]))
        out.append(
            (
                "mlp small",
                "`np.sum(g, axis=1, keepdims=True)`: the adjoint of broadcasting `zmax` (was `_unbroadcast`)",
                lambda: np.sum(gz, axis=1, keepdims=True),
                lambda: gz.sum(axis=1, keepdims=True),
            )
        )
    md, (xd,) = module("pd", "large")
    dm = np.ones((xd.shape[1], xd.shape[1]))
    if hasattr(md, "_xtx_dx"):
        out.append(
            (
                "pd large",
                "the adjoint of `x.T @ x`: `_xtx_dx(dm, x)`",
                lambda: md._xtx_dx(dm, xd),
                lambda: xd @ (dm + dm.T),
            )
        )
    elif hasattr(md, "_matmul_dx"):
        xt = xd.T
        out.append(
            (
                "pd large",
                "the adjoint of `x.T @ x` as two matmuls",
                lambda: md._matmul_dy(dm, xt, xd) + md._matmul_dx(dm, xt, xd).T,
                lambda: xd @ (dm + dm.T),
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.pieces", description=__doc__.split("\n\n")[0])
    p.add_argument("--md", metavar="FILE", help="also write the table here")
    opts = p.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"  # before NumPy is imported
    lines = ["| row | piece of the generated code | µs | hand-written equivalent µs |", "|---|---|--:|--:|"]
    with tempfile.TemporaryDirectory(prefix="yota_pieces_") as tmp:
        for row, what, generated, hand in pieces(Path(tmp)):
            ours = _best_us(generated)
            theirs = "(none: not needed)" if hand is None else f"{_best_us(hand):,.1f}"
            lines.append(f"| {row} | {what} | {ours:,.1f} | {theirs} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if opts.md:
        Path(opts.md).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
