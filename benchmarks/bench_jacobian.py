"""Jacobians of polynomial systems: ``jac_NAME`` against one evaluation, SymPy and JAX (``python -m benchmarks.bench_jacobian``).

The systems (katsura-n, cyclic-n, noon-n, eco-n) are written as Python source in scalar-expression
form, ``np.array([<expression of x[0], x[1], ...>, ...])``, by the generators below (katsura-n
has n + 1 unknowns, the others n).  For each system and size, one process times, on one thread (the thread
variables of OpenBLAS, OpenMP and XLA are set before NumPy and JAX load):

- ``f``: one evaluation of the system, the source function itself, on a 1-D float64 ``x``;
- ``jac``: yota-s2s's ``jac_NAME(x)`` (the ``--jacobian`` module, generated in memory), which returns
  the value and the Jacobian;
- ``sympy``: ``sympy.Matrix(f).jacobian(x)`` turned into a function by ``lambdify(..., cse=True,
  modules="numpy")`` (built once, not timed), called on the same ``x``;
- ``jacfwd``, ``jacrev``: ``jax.jit(jax.jacfwd(f))`` and ``jax.jit(jax.jacrev(f))`` of the same
  source with ``jax.numpy`` for ``np`` (x64 enabled, compiled before timing, ``block_until_ready``).

Then the batched form, ``x`` of shape ``(n, B)`` (each ``x[i]`` a row of ``B`` points, ``B = 10**5``
unless ``--batch``): ``jac_NAME(x)`` returns ``J`` of shape ``(n_out, n, B)`` (the Jacobian of each
point, the batch axis last), against ``jax.jit(jax.vmap(jax.jacfwd(f), in_axes=1, out_axes=2))``,
which gives the same layout, and one batched evaluation of ``f``.

Each cell is the median over ``--rounds`` batches of the CPU time per call (``time.process_time``:
with one thread, robust to other processes sharing the machine), with glibc's thresholds fixed as
``python -m benchmarks --malloc steady`` fixes them (``--malloc default`` leaves them).  The last
column counts the multiplications of the Jacobian as written: those after ``jac_NAME``'s
``# backward`` line, and all of SymPy's function's.  Every Jacobian is checked
against the SymPy one (1-D) or the JAX one (batched) before it is timed.  Results are benchmark
figures for docs/performance.md, not timed tests.

>>> katsura(1)
['x[0] * x[0] + 2.0 * (x[1] * x[1]) - x[0]', 'x[0] + 2.0 * x[1] - 1.0']
>>> cyclic(3)
['x[0] + x[1] + x[2]', 'x[0] * x[1] + x[1] * x[2] + x[2] * x[0]', 'x[0] * x[1] * x[2] - 1.0']
>>> noon(2)
['x[0] * (x[1] * x[1]) - 1.1 * x[0] + 1.0', 'x[1] * (x[0] * x[0]) - 1.1 * x[1] + 1.0']
>>> eco(3)
['(x[0] + x[0] * x[1]) * x[2] - 1.0', 'x[1] * x[2] - 2.0', 'x[0] + x[1] + 1.0']
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

SIZES = (6, 7, 8, 9, 10)


# ------------------------------------------------------------------------------ the systems


def katsura(n: int) -> list[str]:
    """katsura-n in the n + 1 unknowns x[0] .. x[n] (u_k = x[|k|], zero past n), as expressions:
    ``sum_l u_l u_(m-l) - u_m`` for m < n, and ``u_0 + 2 sum_(l>0) u_l - 1``; like products merged
    (``2.0 * (x[0] * x[1])``)."""
    rows = [" + ".join(_katsura_row(n + 1, m)) + f" - x[{m}]" for m in range(n)]
    rows.append("x[0] + " + " + ".join(f"2.0 * x[{i}]" for i in range(1, n + 1)) + " - 1.0")
    return rows


def _katsura_row(n: int, m: int) -> list[str]:
    """The products of row m of katsura: sum over l in -(n-1)..(n-1) of x[|l|] x[|m-l|], like terms merged."""
    count: dict[tuple[int, int], int] = {}
    for l in range(-(n - 1), n):
        a, b = abs(l), abs(m - l)
        if b < n:
            key = (min(a, b), max(a, b))
            count[key] = count.get(key, 0) + 1
    terms = []
    for (a, b), c in sorted(count.items()):
        product = f"x[{a}] * x[{b}]"
        terms.append(product if c == 1 else f"{float(c)} * ({product})")
    return terms


def cyclic(n: int) -> list[str]:
    """cyclic-n: the elementary cyclic sums ``sum_i x_i x_(i+1) ... x_(i+k-1)``, k < n, and ``prod x - 1``."""
    rows = []
    for k in range(1, n):
        rows.append(" + ".join(" * ".join(f"x[{(i + j) % n}]" for j in range(k)) for i in range(n)))
    rows.append(" * ".join(f"x[{i}]" for i in range(n)) + " - 1.0")
    return rows


def noon(n: int) -> list[str]:
    """noon-n (a neural network model): ``x_i sum_(j != i) x_j^2 - 1.1 x_i + 1``."""
    rows = []
    for i in range(n):
        squares = " + ".join(f"x[{j}] * x[{j}]" for j in range(n) if j != i)
        rows.append(f"x[{i}] * ({squares}) - 1.1 * x[{i}] + 1.0")
    return rows


def eco(n: int) -> list[str]:
    """eco-n (an economics model): ``(x_k + sum_(i<n-k-1) x_i x_(i+k)) x_(n-1) - k`` for k = 1 .. n-1
    (1-based x_k is x[k-1]), and ``sum_(i<n-1) x_i + 1``."""
    rows = []
    for k in range(1, n):
        inner = " + ".join([f"x[{k - 1}]", *(f"x[{i}] * x[{i + k}]" for i in range(n - k - 1))])
        inner = f"({inner})" if n - k - 1 else inner
        rows.append(f"{inner} * x[{n - 1}] - {float(k)}")
    rows.append(" + ".join(f"x[{i}]" for i in range(n - 1)) + " + 1.0")
    return rows


SYSTEMS: dict[str, Callable[[int], list[str]]] = {"katsura": katsura, "cyclic": cyclic, "noon": noon, "eco": eco}


def source(name: str, rows: list[str]) -> str:
    """The module defining ``name(x)``: ``np.array([...])`` of the rows."""
    body = ",\n        ".join(rows)
    return f"import numpy as np\n\n\ndef {name}(x):\n    return np.array([\n        {body},\n    ])\n"


def unknowns(system: str, n: int) -> int:
    """The number of unknowns of ``system``-``n`` (katsura-n has n + 1)."""
    return n + 1 if system == "katsura" else n


# ------------------------------------------------------------------------------ timing


def _limit_threads() -> None:
    """One thread for OpenBLAS, OpenMP and XLA: set before NumPy and JAX load."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    flags = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + flags).strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def time_call(call: Callable[[], object], rounds: int, batch_s: float) -> float:
    """The median over ``rounds`` batches of the CPU seconds per call (each batch about ``batch_s``)."""
    call()
    count, start = 1, time.process_time()
    call()
    once = max(time.process_time() - start, 1e-7)
    count = max(1, int(batch_s / once))
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(count):
            call()
        times.append((time.process_time() - start) / count)
    return statistics.median(times)


def _ours(name: str, text: str) -> tuple[Callable, Callable, str]:
    """``(f, jac_f, its text)``: the source function and yota-s2s's ``jac_NAME``, generated in memory."""
    from yota_s2s.pipeline import generate

    namespace: dict = {}
    exec(compile(text, f"{name}.py", "exec"), namespace)  # noqa: S102 - the generated system
    generated: dict = {}
    written = generate(text, f"{name}.py", mode="jacobian").text
    exec(compile(written, f"jac_{name}.py", "exec"), generated)  # noqa: S102
    return namespace[name], generated[f"jac_{name}"], written


def multiplications(text: str, function: str, after: str | None = None) -> int:
    """The ``*`` operators in the body of the function ``function`` of the module ``text`` (its
    arithmetic as written, what a batch of points pays a pass over memory each for); only in the
    lines after the comment ``after`` when one is given (``# backward``: the Jacobian's part)."""
    import ast

    tree = ast.parse(text)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    lines = text.splitlines()
    start = 0
    if after is not None:
        start = next(i for i in range(node.lineno, len(lines)) if lines[i].strip() == after) + 1
    return sum(
        1 for n in ast.walk(node) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and n.lineno > start
    )


def _jax_function(name: str, text: str) -> Callable:
    """The same source with ``jax.numpy`` for ``np``."""
    namespace: dict = {}
    exec(compile(text.replace("import numpy as np", "import jax.numpy as np"), f"{name}.py", "exec"), namespace)  # noqa: S102
    return namespace[name]


def _sympy_jacobian(rows: list[str], n: int) -> Callable:
    import sympy

    xs = sympy.symbols(f"x0:{n}")
    exprs = [eval(r, {"x": xs}) for r in rows]
    J = sympy.Matrix(exprs).jacobian(xs)
    return sympy.lambdify([xs], J, modules="numpy", cse=True)


def bench_one(system: str, n: int, rounds: int, batch_s: float, batch: int) -> dict[str, float]:
    """The figures of one system at one size (seconds per call; ``None`` where not run)."""
    import jax
    import numpy as np

    rows = SYSTEMS[system](n)
    name = f"{system}{n}"
    k = unknowns(system, n)
    import inspect

    f, jac, written = _ours(name, source(name, rows))
    rng = np.random.default_rng(n)
    x = rng.uniform(-1.0, 1.0, k)
    lam = _sympy_jacobian(rows, k)
    J_ref = np.asarray(lam(x), dtype=float)
    g = _jax_function(name, source(name, rows))
    jf, jr = jax.jit(jax.jacfwd(g)), jax.jit(jax.jacrev(g))
    xj = jax.numpy.asarray(x)
    for J in (jac(x)[1], np.asarray(jf(xj)), np.asarray(jr(xj))):
        np.testing.assert_allclose(J, J_ref, rtol=1e-10, atol=1e-12)
    out = {
        "mults": multiplications(written, f"jac_{name}", "# backward"),
        "sympy_mults": multiplications(inspect.getsource(lam), lam.__name__),
        "f": time_call(lambda: f(x), rounds, batch_s),
        "jac": time_call(lambda: jac(x), rounds, batch_s),
        "sympy": time_call(lambda: lam(x), rounds, batch_s),
        "jacfwd": time_call(lambda: jf(xj).block_until_ready(), rounds, batch_s),
        "jacrev": time_call(lambda: jr(xj).block_until_ready(), rounds, batch_s),
    }
    if batch:
        X = rng.uniform(-1.0, 1.0, (k, batch))
        jv = jax.jit(jax.vmap(jax.jacfwd(g), in_axes=1, out_axes=2))
        Xj = jax.numpy.asarray(X)
        ref = np.asarray(jv(Xj))
        try:
            mine = jac(X)[1]
        except ValueError as exc:  # the tool refuses a batch
            out["jac_B_error"] = str(exc).split(":")[0]
        else:
            np.testing.assert_allclose(mine, ref, rtol=1e-10, atol=1e-12)
            out["jac_B"] = time_call(lambda: jac(X), rounds, batch_s)
        out["f_B"] = time_call(lambda: f(X), rounds, batch_s)
        out["vmap_jacfwd_B"] = time_call(lambda: jv(Xj).block_until_ready(), rounds, batch_s)
    return out


# ------------------------------------------------------------------------------ report


def _us(t: float | None) -> str:
    return "—" if t is None else f"{t * 1e6:.1f}" if t < 1e-3 else f"{t * 1e6:.0f}"


def table(results: dict[tuple[str, int], dict[str, float]], batch: int) -> str:
    """The markdown tables: µs per call and the ratios the targets name."""
    lines = [
        "| system | unknowns | f (µs) | jac (µs) | SymPy cse (µs) | JAX jacfwd (µs) | JAX jacrev (µs) | jac/f "
        + "| jac/SymPy | jac/jacfwd | jac/jacrev | `*` in J: jac / SymPy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (system, n), r in results.items():
        lines.append(
            f"| {system}-{n} | {unknowns(system, n)} | {_us(r['f'])} | {_us(r['jac'])} | {_us(r['sympy'])} "
            f"| {_us(r['jacfwd'])} | {_us(r['jacrev'])} | {r['jac'] / r['f']:.2f} | {r['jac'] / r['sympy']:.2f} "
            f"| {r['jac'] / r['jacfwd']:.2f} | {r['jac'] / r['jacrev']:.2f} | {r['mults']} / {r['sympy_mults']} |"
        )
    if batch:
        lines += [
            "",
            f"Batched, x of shape (unknowns, {batch}); J of shape (equations, unknowns, {batch}):",
            "",
            "| system | unknowns | f (µs) | jac (µs) | JAX vmap(jacfwd) (µs) | jac/f | jac/vmap |",
            "|---|---|---|---|---|---|---|",
        ]
        for (system, n), r in results.items():
            mine = r.get("jac_B")
            ratio = "—" if mine is None else f"{mine / r['vmap_jacfwd_B']:.2f}"
            over_f = "—" if mine is None else f"{mine / r['f_B']:.2f}"
            cell = _us(mine) if mine is not None else "refused"
            lines.append(
                f"| {system}-{n} | {unknowns(system, n)} | {_us(r['f_B'])} | {cell} | {_us(r['vmap_jacfwd_B'])} "
                f"| {over_f} | {ratio} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_jacobian", description=__doc__.split("\n")[0])
    p.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated, of " + ", ".join(SYSTEMS))
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated n (default 6..10)")
    p.add_argument("--rounds", type=int, default=7, help="batches timed per cell (the median is reported)")
    p.add_argument("--batch-ms", type=float, default=40.0, help="CPU milliseconds per batch")
    p.add_argument("--batch", type=int, default=10**5, help="points of the batched form (0: skip it)")
    p.add_argument(
        "--malloc",
        choices=("steady", "default"),
        default="steady",
        help="steady (the default, as python -m benchmarks): glibc keeps freed memory, so a batch's arrays are not "
        "mapped and faulted in at every call; default: glibc's own thresholds",
    )
    p.add_argument("--md", help="also write the tables to this file")
    opts = p.parse_args(argv)
    _limit_threads()
    if opts.malloc == "steady":
        from .run import _steady_malloc

        _steady_malloc()
    import jax

    jax.config.update("jax_enable_x64", True)
    results = {}
    for system in opts.systems.split(","):
        for n in (int(s) for s in opts.sizes.split(",")):
            results[(system, n)] = bench_one(system, n, opts.rounds, opts.batch_ms / 1e3, opts.batch)
            print(f"{system}-{n}: done", file=sys.stderr, flush=True)
    text = table(results, opts.batch)
    sys.stdout.write(text)
    if opts.md:
        with open(opts.md, "w", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
