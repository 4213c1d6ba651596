"""``--sparse`` by diagonals at the largest sizes (issue 36): ``jac_bratu`` and ``hess_rosen`` at
n = 100,000 (and 2,000) against asdex and against the same derivative written by hand in NumPy (the
floor of a NumPy call: the value, the gradient and the diagonals in as few passes as one can
write, into the CSR data at once), interleaved in one process and repeated, since the machine is
shared and a single table moves with its load.

    python -m benchmarks.bench_bands                 # 3 rounds, n = 2,000 and 100,000
    python -m benchmarks.bench_bands --rounds 5 --sizes 100000

Each cell is the best of 7 repeats of the process's CPU time per call (``pieces._best_us``), the
three taken one after the other in each round; the page faults a call of ours makes (the
allocator giving memory back and taking it again) are counted too.
"""

from __future__ import annotations

import argparse
import resource
import sys

from .bench_hessian import _one_thread
from .bench_sparse import HESSIANS, SOURCE
from .pieces import _best_us


def _ideal_bratu(structure: dict):
    """jac_bratu by hand: the value in five passes after ``exp``, the data filled with ``1 / h**2``
    and its diagonal written by one strided pass, on an index structure made once per size."""
    import numpy as np
    from scipy import sparse

    def jac(u, lam):
        n = u.shape[0]
        c = (n + 1.0) ** 2
        le = lam * np.exp(u)
        value = -2.0 * u
        value[1:] += u[:-1]
        value[:-1] += u[1:]
        value *= c
        value += le
        if n not in structure:
            band = sparse.diags_array([np.ones(n - 1), np.ones(n), np.ones(n - 1)], offsets=[-1, 0, 1], format="csr")
            structure[n] = (band.indices, band.indptr)
        data = np.empty(3 * n - 2)
        data.fill(c)
        np.subtract(le, 2.0 * c, out=data[0::3])
        return value, sparse.csr_array((data, *structure[n]), shape=(n, n))

    return jac


def _ideal_rosen(structure: dict):
    """hess_rosen by hand: the value, the gradient and the three diagonals of H (two of them one
    vector), written into the data by three strided passes."""
    import numpy as np
    from scipy import sparse

    def hess(x):
        n = x.shape[0]
        a, b = x[:-1], x[1:]
        a2 = a * a
        r = b - a2
        s = 1.0 - a
        value = (100.0 * (r * r) + s * s).sum()
        r200 = 200.0 * r
        grad = np.empty(n)
        grad[-1] = 0.0
        np.multiply(r200, -2.0 * a, out=grad[:-1])
        grad[:-1] -= 2.0 * s
        grad[1:] += r200
        if n not in structure:
            band = sparse.diags_array([np.ones(n - 1), np.ones(n), np.ones(n - 1)], offsets=[-1, 0, 1], format="csr")
            structure[n] = (band.indices, band.indptr)
        data = np.empty(3 * n - 2)
        off = -400.0 * a
        data[1::3] = off  # (i, i + 1)
        data[2::3] = off  # (i + 1, i)
        diagonal = data[0::3]
        np.multiply(a2, 1200.0, out=diagonal[:-1])
        diagonal[:-1] += 2.0 - 400.0 * b
        diagonal[1:] += 200.0
        diagonal[-1] = 200.0 if n > 1 else 0.0
        return value, grad, sparse.csr_array((data, *structure[n]), shape=(n, n))

    return hess


def _faults(call, times: int = 20) -> float:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(times):
        call()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / times


def _setup(name: str, n: int, mine, f, hand, args: tuple) -> tuple:
    """(name, n, ours, asdex's, by hand): three calls of no arguments, checked equal first."""
    import asdex
    import jax
    import jax.numpy as jnp
    import numpy as np

    w = jnp.asarray(args[0])
    hessian = name.startswith("hess")
    coloring = (asdex.hessian_coloring if hessian else asdex.jacobian_coloring)(f, w)
    compiled = jax.jit((asdex.hessian_from_coloring if hessian else asdex.jacobian_from_coloring)(f, coloring))
    a, b = mine(*args)[-1], hand(*args)[-1]
    assert abs(a - b).max() <= 1e-9 * abs(a).max() and (a.indices == b.indices).all(), name
    assert np.allclose(mine(*args)[0], hand(*args)[0], rtol=1e-12, atol=1e-9), name
    assert abs(a - _scipy(compiled(w))).max() <= 1e-8 * abs(a).max(), name
    return name, n, lambda: mine(*args), lambda: compiled(w).data.block_until_ready(), lambda: hand(*args)


def _scipy(J):
    from scipy import sparse

    return sparse.csr_array((J.data, (J.indices[:, 0], J.indices[:, 1])), shape=J.shape)


def run(rounds: int, sizes: list[int]) -> str:
    _one_thread()
    import jax

    jax.config.update("jax_enable_x64", True)
    import numpy as np

    from yota_s2s.pipeline import generate

    ours: dict = {}
    jacobian = generate(SOURCE, "families.py", ["bratu"], {"bratu": ["u"]}, mode="jacobian", sparse=True).text
    hessian = generate(HESSIANS, "hessians.py", ["rosen"], mode="hessian", sparse=True).text
    for text in (jacobian, hessian):
        exec(compile(text, "<generated>", "exec"), ours)  # noqa: S102 - the tool's output
    plain: dict = {}
    for text in (SOURCE, HESSIANS):  # (the same functions on JAX, for asdex)
        exec(compile(text.replace("import numpy as np", "import jax.numpy as np"), "f.py", "exec"), plain)  # noqa: S102
    rows = ["| round | call | n | ours | asdex | by hand | ours/asdex | by hand/asdex | faults a call (ours) |"]
    rows.append("|---|---|---|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(36)
    setups = []
    for n in sizes:
        u, x = rng.random(n), rng.random(n)
        setups.append(
            _setup("jac_bratu", n, ours["jac_bratu"], lambda w: plain["bratu"](w, 0.5), _ideal_bratu({}), (u, 0.5))
        )
        setups.append(_setup("hess_rosen", n, ours["hess_rosen"], plain["rosen"], _ideal_rosen({}), (x,)))
    for r in range(rounds):
        for name, n, mine, theirs, hand in setups:
            t_ours, t_asdex, t_hand = _best_us(mine), _best_us(theirs), _best_us(hand)
            rows.append(
                f"| {r + 1} | {name} | {n:,} | {t_ours:,.0f} µs | {t_asdex:,.0f} µs | {t_hand:,.0f} µs | "
                f"{t_ours / t_asdex:.2f} | {t_hand / t_asdex:.2f} | {_faults(mine):.0f} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 100_000])
    args = parser.parse_args(argv)
    sys.stdout.write(run(args.rounds, args.sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
