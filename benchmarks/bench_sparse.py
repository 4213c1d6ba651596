"""Sparse Jacobians (issue 36): ``jac_NAME`` of ``--sparse --jacobian`` against asdex (JAX: automatic
sparsity detection and coloring) and sparsejac (JAX, the pattern given: ours), on the issue's families.

For each family and size: the time per call after the first (the pattern and the coloring cached),
the preparation time (generation not counted: the first call, which finds the pattern, colors it and
runs the sweeps; for JAX, tracing, detection, coloring and compilation with the first call), the
colors (sweeps per call) and the Jacobian's nonzeros.  JAX runs jitted on the CPU, on one thread,
in double precision, as the other benchmarks' peers; the Jacobians are checked against each other
first.  Each time per call is the best of 7 rounds of the process's CPU time.

    python -m benchmarks.bench_sparse                 # prints one table
    python -m benchmarks.bench_sparse --quick         # the small sizes only
    python -m benchmarks.bench_sparse --md FILE       # and writes it to FILE
    python -m benchmarks.bench_sparse --only hessians # one of the two tables
    python -m benchmarks.bench_sparse --ideal         # two sweeps against the same written by hand
    python -m benchmarks.bench_sparse --pairs 3       # ours and asdex's alternately, 3 pairs a family

CasADi (SX) is not in the table yet: each family would need its own CasADi form (see docs/sparse.md).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

from .bench_hessian import _one_thread
from .pieces import _best_us

SOURCE = """\
import numpy as np


def bratu(u, lam):
    h = 1.0 / (u.shape[0] + 1)
    up = np.concatenate([np.zeros(1), u, np.zeros(1)])
    return (up[:-2] - 2 * up[1:-1] + up[2:]) / h**2 + lam * np.exp(u)


def laplace2d(U):
    r = 4 * U[1:-1, 1:-1] - U[:-2, 1:-1] - U[2:, 1:-1] - U[1:-1, :-2] - U[1:-1, 2:]
    return r + U[1:-1, 1:-1] ** 3


def brusselator(u, v, a, b):
    lap_u = np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4 * u
    lap_v = np.roll(v, 1, axis=0) + np.roll(v, -1, axis=0) + np.roll(v, 1, axis=1) + np.roll(v, -1, axis=1) - 4 * v
    fu = a + u * u * v - (b + 1) * u + 0.1 * lap_u
    fv = b * u - u * u * v + 0.1 * lap_v
    return np.stack([fu, fv])


def springs(x, I, J, k):
    d = x[I] - x[J]
    return np.concatenate([k * d**3 + d, np.roll(x, 1) * x])


def arrowhead(x):
    inner = x[1:-1] ** 2 - x[:-2] * x[2:]
    return np.concatenate([inner, np.sum(x**2, keepdims=True)])
"""

HESSIANS = """\
import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def arrowh(x):
    return np.sum(x[1:] ** 2 * x[0]) + np.sum((x[1:] - x[:-1]) ** 4)


def grid(U):
    return np.sum((U[1:, :] - U[:-1, :]) ** 4) + np.sum(np.cos(U[:, 1:] * U[:, :-1]))
"""

WRT = {"bratu": ["u"], "laplace2d": ["U"], "brusselator": ["u", "v"], "springs": ["x"], "arrowhead": ["x"]}


def _cases(quick: bool):
    """(family, size label, wrt arrays, other arguments)"""
    import numpy as np

    rng = np.random.default_rng(36)
    cases = [
        ("bratu", "n=2,000", [rng.random(2000)], [0.5]),
        ("laplace2d", "m=30", [rng.random((30, 30))], []),
        ("brusselator", "m=16", [rng.random((16, 16)), rng.random((16, 16))], [1.0, 3.0]),
        ("springs", "n=1,000", [rng.random(1000)], [rng.integers(0, 1000, 2000), rng.integers(0, 1000, 2000), 2.0]),
        ("arrowhead", "n=2,000", [rng.random(2000)], []),
    ]
    if not quick:
        cases += [
            ("bratu", "n=100,000", [rng.random(100_000)], [0.5]),
            ("laplace2d", "m=100", [rng.random((100, 100))], []),
            ("brusselator", "m=64", [rng.random((64, 64)), rng.random((64, 64))], [1.0, 3.0]),
            ("springs", "n=10,000", [rng.random(10_000)], [*rng.integers(0, 10_000, (2, 20_000)), 2.0]),
            ("arrowhead", "n=100,000", [rng.random(100_000)], []),
        ]
    return cases


def _hessian_cases(quick: bool):
    """(function, size label, its one argument)"""
    import numpy as np

    rng = np.random.default_rng(37)
    cases = [("rosen", "n=2,000", rng.random(2000)), ("arrowh", "n=2,000", rng.random(2000))]
    cases += [("grid", "m=30", rng.random((30, 30)))]
    if not quick:
        cases += [("rosen", "n=100,000", rng.random(100_000)), ("arrowh", "n=100,000", rng.random(100_000))]
        cases += [("grid", "m=100", rng.random((100, 100)))]
    return cases


def _flat(f, xs, others, lib):
    """``f`` as a function of one flat vector (the ``--wrt`` arrays one after the other) to a flat vector."""
    shapes = [x.shape for x in xs]
    sizes = [x.size for x in xs]

    def g(w):
        parts, start = [], 0
        for shape, size in zip(shapes, sizes, strict=True):
            parts.append(w[start : start + size].reshape(shape))
            start += size
        return lib.ravel(f(*parts, *others))

    return g


def _yota(module, name, xs, others) -> dict:
    import numpy as np

    jac = getattr(module, f"jac_{name}")
    getattr(module, f"_JAC_{name.upper()}_CACHE").clear()
    t0 = time.perf_counter()
    value, *blocks = jac(*xs, *others)
    prep = time.perf_counter() - t0
    prepared = next(iter(getattr(module, f"_JAC_{name.upper()}_CACHE").values()))
    J = blocks[0] if len(blocks) == 1 else __import__("scipy.sparse").sparse.hstack(blocks, format="csr")
    per_call = _best_us(lambda: jac(*xs, *others))
    colors = f"{len(prepared['seeds'])} {'rows' if prepared['by_rows'] else 'cols'}"
    return {"us": per_call, "prep": prep, "colors": colors, "nnz": J.nnz, "J": J, "value": np.ravel(value)}


def _asdex(f, w) -> dict:
    import asdex
    import jax

    t0 = time.perf_counter()
    coloring = asdex.jacobian_coloring(f, w)
    jac = jax.jit(asdex.jacobian_from_coloring(f, coloring))
    out = jac(w)
    out.data.block_until_ready()
    prep = time.perf_counter() - t0
    per_call = _best_us(lambda: jac(w).data.block_until_ready())
    mode = "rows" if "VJP" in repr(coloring).splitlines()[0] else "cols"
    return {"us": per_call, "prep": prep, "colors": f"{coloring.num_colors} {mode}", "J": out}


def _yota_hessian(module, name, x) -> dict:
    hess = getattr(module, f"hess_{name}")
    getattr(module, f"_HESS_{name.upper()}_CACHE").clear()
    t0 = time.perf_counter()
    _, _, H = hess(x)
    prep = time.perf_counter() - t0
    (prepared,) = getattr(module, f"_HESS_{name.upper()}_CACHE").values()
    per_call = _best_us(lambda: hess(x))
    return {"us": per_call, "prep": prep, "colors": str(len(prepared["seeds"])), "nnz": H.nnz, "J": H}


def _asdex_hessian(f, w) -> dict:
    import asdex
    import jax

    t0 = time.perf_counter()
    coloring = asdex.hessian_coloring(f, w)
    hess = jax.jit(asdex.hessian_from_coloring(f, coloring))
    out = hess(w)
    out.data.block_until_ready()
    prep = time.perf_counter() - t0
    per_call = _best_us(lambda: hess(w).data.block_until_ready())
    return {"us": per_call, "prep": prep, "colors": str(coloring.num_colors), "J": out}


def hessians(quick: bool = False) -> str:
    """The table of the sparse Hessians against asdex's (``run`` sets JAX up first)."""
    import jax.numpy as jnp

    from yota_s2s.pipeline import generate

    t0 = time.perf_counter()
    text = generate(HESSIANS, "hessians.py", mode="hessian", sparse=True).text
    gen = time.perf_counter() - t0
    module: dict = {}
    exec(compile(text, "<generated>", "exec"), module)  # noqa: S102 - the tool's output
    plain_jax: dict = {}
    jax_source = HESSIANS.replace("import numpy as np", "import jax.numpy as np")
    exec(compile(jax_source, "hessians.py", "exec"), plain_jax)  # noqa: S102 - the functions above, on JAX
    namespace = type("M", (), module)
    rows = [
        "| Hessian | size | yota_s2s | asdex | yota/asdex | prep yota | prep asdex | colors yota | colors asdex | nnz |",
        "|---|---|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for name, label, x in _hessian_cases(quick):
        ours = _yota_hessian(namespace, name, x)
        f = plain_jax[name]
        theirs = _asdex_hessian(lambda w, f=f, shape=x.shape: f(w.reshape(shape)), jnp.asarray(x.ravel()))
        diff = abs(ours["J"] - _to_scipy(theirs["J"]))
        assert diff.max() <= 1e-8 * max(1.0, abs(ours["J"]).max()), (name, label, diff.max())
        rows.append(
            f"| {name} | {label} | {ours['us']:,.0f} µs | {theirs['us']:,.0f} µs | {ours['us'] / theirs['us']:.2f} | "
            f"{ours['prep'] * 1e3:,.0f} ms | {theirs['prep'] * 1e3:,.0f} ms | {ours['colors']} | {theirs['colors']} | "
            f"{ours['nnz']:,} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    rows.append("")
    rows.append(f"Generation of the three sparse Hessians (one module): {gen:.2f} s.")
    return "\n".join(rows) + "\n"


def _sparsejac(f, w, pattern, by_rows: bool) -> dict:
    import jax
    import sparsejac
    from jax.experimental import sparse as jsparse

    t0 = time.perf_counter()
    sparsity = jsparse.BCOO.from_scipy_sparse(pattern.tocoo())
    jac = jax.jit((sparsejac.jacrev if by_rows else sparsejac.jacfwd)(f, sparsity))
    out = jac(w)
    out.data.block_until_ready()
    prep = time.perf_counter() - t0
    per_call = _best_us(lambda: jac(w).data.block_until_ready())
    return {"us": per_call, "prep": prep, "J": out}


def run(quick: bool = False, only: str | None = None) -> str:
    """Both tables (``only``: ``"jacobians"`` or ``"hessians"``, that one)."""
    _one_thread()
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np

    from yota_s2s.pipeline import generate

    if only == "hessians":
        return hessians(quick)
    t0 = time.perf_counter()
    text = generate(SOURCE, "families.py", list(WRT), WRT, mode="jacobian", sparse=True).text
    gen = time.perf_counter() - t0
    module: dict = {}
    exec(compile(text, "<generated>", "exec"), module)  # noqa: S102 - the tool's output
    plain_jax: dict = {}
    jax_source = SOURCE.replace("import numpy as np", "import jax.numpy as np")
    exec(compile(jax_source, "families.py", "exec"), plain_jax)  # noqa: S102 - the families above, on JAX
    namespace = type("M", (), module)
    rows = [
        (
            "| family | size | yota_s2s | asdex | sparsejac | yota/asdex | prep yota | prep asdex | "
            "colors yota | colors asdex | nnz |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for name, label, xs, others in _cases(quick):
        ours = _yota(namespace, name, xs, others)
        f = _flat(plain_jax[name], xs, [jnp.asarray(o) if isinstance(o, np.ndarray) else o for o in others], jnp)
        w = jnp.asarray(np.concatenate([x.ravel() for x in xs]))
        theirs = _asdex(f, w)
        given = _sparsejac(f, w, ours["J"], ours["colors"].endswith("rows"))
        for other in (theirs, given):  # the same Jacobian, entry for entry (to rounding)
            diff = abs(ours["J"] - _to_scipy(other["J"]))
            assert diff.max() <= 1e-8 * max(1.0, abs(ours["J"]).max()), (name, label, diff.max())
        rows.append(
            f"| {name} | {label} | {ours['us']:,.0f} µs | {theirs['us']:,.0f} µs | {given['us']:,.0f} µs | "
            f"{ours['us'] / theirs['us']:.2f} | {ours['prep'] * 1e3:,.0f} ms | {theirs['prep'] * 1e3:,.0f} ms | "
            f"{ours['colors']} | {theirs['colors']} | {ours['nnz']:,} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    rows.append("")
    rows.append(f"Generation of the five sparse Jacobians (one module): {gen:.2f} s.")
    return "\n".join(rows) + "\n" + ("" if only == "jacobians" else "\n" + hessians(quick))


def _ideal_springs(x, I, J, k, T):
    """springs' compressed forward sweep written by hand in NumPy (the floor of a sweep that makes one
    NumPy call per operation): the value and ``J @ S`` for the tangents ``T`` of shape (colors, n)."""
    import numpy as np

    from yota_s2s.runtime.shape import _roll  # (np.roll by two copies)

    d = x[I] - x[J]
    r = _roll(x, 1, 0)
    d2 = d * d
    value = np.concatenate([k * (d2 * d) + d, r * x])
    dd = np.take(T, I, axis=1) - np.take(T, J, axis=1)
    return value, np.concatenate([dd * (3.0 * k * d2 + 1.0), T * r + _roll(T, 1, 1) * x], axis=1)


def _ideal_brusselator(u, v, a, b, dout):
    """brusselator's compressed reverse sweep written by hand in NumPy: the value and ``S.T @ J`` (its
    two blocks) for the seeds ``dout`` of shape (colors, 2) + u.shape."""
    import numpy as np

    from yota_s2s.runtime.shape import _roll  # (np.roll by two copies)

    def lap(w, axes):
        return _roll(w, 1, axes[0]) + _roll(w, -1, axes[0]) + _roll(w, 1, axes[1]) + _roll(w, -1, axes[1])

    uuv = u * u * v
    value = np.stack(
        [a + uuv - (b + 1) * u + 0.1 * (lap(u, (0, 1)) - 4 * u), b * u - uuv + 0.1 * (lap(v, (0, 1)) - 4 * v)]
    )
    gu, gv = dout[:, 0], dout[:, 1]
    uv2 = 2 * u * v
    du = gu * (uv2 - b - 1.4) + gv * (b - uv2) + 0.1 * lap(gu, (1, 2))
    dv = (gu - gv) * (u * u) - 0.4 * gv + 0.1 * lap(gv, (1, 2))
    return value, du, dv


def ideal() -> str:
    """The compressed sweeps of springs (by columns) and brusselator (by rows) against the same sweeps
    written by hand in NumPy (decompression apart), in one run: the floor of a NumPy sweep."""
    import numpy as np

    from yota_s2s.pipeline import generate

    _one_thread()
    text = generate(SOURCE, "families.py", list(WRT), WRT, mode="jacobian", sparse=True).text
    module: dict = {}
    exec(compile(text, "<generated>", "exec"), module)  # noqa: S102 - the tool's output
    rows = ["| family | size | colors | ours (sweep) | by hand | ours / by hand |", "|---|---|---|---:|---:|---:|"]
    for name, label, xs, others in _cases(False):
        if name not in ("springs", "brusselator"):
            continue
        pattern = module[f"_jac_{name}_pattern"](*xs, *others)
        prepared = module["_sp_prepare"](*pattern, by_rows=name == "brusselator")  # (the side the hand writes)
        if name == "springs":
            seeds = module["_sp_tangents"](prepared, tuple(xs))
            hand = functools.partial(_ideal_springs, *xs, *others, *seeds)
        else:
            seeds = (prepared["seeds"],)
            hand = functools.partial(_ideal_brusselator, *xs, *others, *seeds)
        how = "jvp" if name == "springs" else "vjp"
        fixed = module.get(f"_{how}_{name}_fixed")  # (the values kept per prepared pattern: given)
        kept = fixed(*xs, *others, *seeds) if fixed is not None else ()
        ours = functools.partial(module[f"_{how}_{name}_colors"], *xs, *others, *seeds, *kept)
        for a, b in zip(ours(), hand(), strict=True):
            assert np.allclose(a, b, rtol=1e-12, atol=1e-12), name
        t_ours, t_hand = _best_us(ours), _best_us(hand)
        rows.append(
            f"| {name} | {label} | {len(prepared['seeds'])} | {t_ours:,.0f} µs | {t_hand:,.0f} µs | {t_ours / t_hand:.2f} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return "\n".join(rows) + "\n"


def interleaved(rounds: int = 3) -> str:
    """Each family's time per call, ours and asdex's timed alternately ``rounds`` times in one
    process (each prepared once): the ratios of a shared machine, pair by pair."""
    _one_thread()
    import jax

    jax.config.update("jax_enable_x64", True)
    import asdex
    import jax.numpy as jnp
    import numpy as np

    from yota_s2s.pipeline import generate

    module: dict = {}
    text = generate(SOURCE, "families.py", list(WRT), WRT, mode="jacobian", sparse=True).text
    exec(compile(text, "<generated>", "exec"), module)  # noqa: S102 - the tool's output
    hessians: dict = {}
    exec(compile(generate(HESSIANS, "h.py", mode="hessian", sparse=True).text, "<h>", "exec"), hessians)  # noqa: S102
    plain: dict = {}
    exec(compile(SOURCE.replace("import numpy as np", "import jax.numpy as np"), "f.py", "exec"), plain)  # noqa: S102
    exec(compile(HESSIANS.replace("import numpy as np", "import jax.numpy as np"), "h.py", "exec"), plain)  # noqa: S102
    pairs = []
    for name, label, xs, others in _cases(False):
        if name == "bratu":  # (by diagonals: another engineer's)
            continue
        f = _flat(plain[name], xs, [jnp.asarray(o) if isinstance(o, np.ndarray) else o for o in others], jnp)
        w = jnp.asarray(np.concatenate([x.ravel() for x in xs]))
        theirs = jax.jit(asdex.jacobian_from_coloring(f, asdex.jacobian_coloring(f, w)))
        pairs.append((name, label, functools.partial(module[f"jac_{name}"], *xs, *others), theirs, w))
    for name, label, x in _hessian_cases(False):
        if name == "rosen":
            continue
        f = plain[name]
        g = lambda w, f=f, shape=x.shape: f(w.reshape(shape))
        w = jnp.asarray(x.ravel())
        theirs = jax.jit(asdex.hessian_from_coloring(g, asdex.hessian_coloring(g, w)))
        pairs.append((f"{name} (H)", label, functools.partial(hessians[f"hess_{name}"], x), theirs, w))
    rows = ["| family | size | " + " | ".join(f"pair {k + 1}" for k in range(rounds)) + " |"]
    rows.append("|---|---|" + "---:|" * rounds)
    for name, label, ours, theirs, w in pairs:
        ours()
        theirs(w).data.block_until_ready()
        ratios = []
        for _ in range(rounds):
            t_ours = _best_us(ours)
            t_theirs = _best_us(lambda theirs=theirs, w=w: theirs(w).data.block_until_ready())
            ratios.append(f"{t_ours:,.0f} / {t_theirs:,.0f} = {t_ours / t_theirs:.2f}")
        rows.append(f"| {name} | {label} | " + " | ".join(ratios) + " |")
        print(rows[-1], file=sys.stderr, flush=True)
    return "\n".join(rows) + "\n"


def _to_scipy(J):
    """A JAX BCOO Jacobian as a scipy.sparse array."""
    from scipy import sparse

    data, idx = J.data, J.indices
    return sparse.csr_array((data, (idx[:, 0], idx[:, 1])), shape=J.shape)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small sizes only")
    parser.add_argument("--md", type=Path, help="also write the table to this file")
    parser.add_argument("--only", choices=["jacobians", "hessians"], help="one of the two tables")
    parser.add_argument("--ideal", action="store_true", help="two sweeps against the same written by hand")
    parser.add_argument("--pairs", type=int, metavar="N", help="ours and asdex's timed alternately, N pairs")
    args = parser.parse_args(argv)
    if args.pairs:
        table = interleaved(args.pairs)
    else:
        table = ideal() if args.ideal else run(args.quick, args.only)
    sys.stdout.write(table)
    if args.md:
        args.md.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
