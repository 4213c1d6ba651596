"""Generation time of yota-s2s against program size (issues 5 and 38).

Writes polynomial sources of growing size, runs the real ``yota-s2s`` pipeline
on each and prints the time it takes, plus the ratio between sizes 10x apart;
then the Hessian series: ``hess_NAME`` of the katsura least-squares energy of
8, 16, 32 and 64 unknowns, its lines against ``grad_NAME``'s and the
time each takes to generate.

    python benchmarks/gentime.py            # 1k, 10k, 100k terms, a long expression, the Hessians
    python benchmarks/gentime.py --quick    # 1k and 10k terms, the Hessians of 8 and 16 unknowns
    python benchmarks/gentime.py --sizes 1000,10000 --expr 0 --hessian 0   # the polynomials alone
    python benchmarks/gentime.py --sizes 0 --expr 0 --hessian 0 --examples  # each example of pyproject.toml
    python benchmarks/gentime.py --sizes 0 --expr 0 --hessian 0 --startup   # each example as a command

Two shapes of source:

``poly``   ``n`` terms written as statements of 100 terms each, summed at the end::

               def f(x):
                   t0 = 0.5 * x[3] * x[7] ** 2 + ... (100 terms)
                   t1 = ...
                   return t0 + t1 + ...

``expr``   all ``n`` terms in one expression (a left-deep chain of ``+``/``-``),
           the shape that hits recursion limits in naive tree walks.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

NVARS = 20


def _term(rng: random.Random) -> str:
    coef = rng.choice(["0.5", "1.5", "2", "3", "0.25", "1.25"])
    factors = [coef]
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(NVARS)
        p = rng.choice(["", "", " ** 2", " ** 3"])
        factors.append(f"x[{i}]{p}")
    return " * ".join(factors)


def _sum(terms: list[str], rng: random.Random) -> str:
    out = terms[0]
    for t in terms[1:]:
        out += rng.choice([" + ", " - "]) + t
    return out


def poly_source(n_terms: int, per_stmt: int = 100, seed: int = 0) -> str:
    """A function ``f(x)`` summing ``n_terms`` monomials, ``per_stmt`` per statement."""
    rng = random.Random(seed)
    lines = ["def f(x):"]
    names = []
    for s in range(0, n_terms, per_stmt):
        k = min(per_stmt, n_terms - s)
        name = f"t{len(names)}"
        names.append(name)
        lines.append(f"    {name} = {_sum([_term(rng) for _ in range(k)], rng)}")
    lines.append(f"    return {' + '.join(names)}")
    return "\n".join(lines) + "\n"


def expr_source(n_terms: int, seed: int = 0) -> str:
    """A function ``f(x)`` returning one expression of ``n_terms`` monomials."""
    rng = random.Random(seed)
    return f"def f(x):\n    return {_sum([_term(rng) for _ in range(n_terms)], rng)}\n"


def katsura_source(n: int) -> str:
    """``energy(x)``: the sum of the squared residuals of the katsura system of ``n`` unknowns
    ``x[0], ..., x[n-1]``, written as straight-line code (``benchmarks/workloads.katsura8``'s
    form, each residual a statement)::

        u0 = x[0]
        ...
        e0 = 2 * (u1 ** 2 + ...) + u0 ** 2 - u0              # u_m = sum_l u_|l| u_|m-l|
        e1 = 2 * (u0 * u1 + u1 * u2 + ...) - u1
        ...
        e{n-1} = u0 + 2 * (u1 + ... + u{n-1}) - 1           # the normalisation
        return e0 ** 2 + e1 ** 2 + ...
    """
    names = [f"u{i}" for i in range(n)]
    lines = ["def energy(x):", *(f"    u{i} = x[{i}]" for i in range(n))]
    for m in range(n - 1):
        pairs: dict[tuple[int, int], int] = {}
        for k in range(-(n - 1), n):
            i, j = sorted((abs(k), abs(m - k)))
            if j < n:
                pairs[i, j] = pairs.get((i, j), 0) + 1
        doubled = [f"{names[i]} * {names[j]}" for (i, j), c in sorted(pairs.items()) if i != j and c == 2]
        doubled += [f"{names[i]} ** 2" for (i, j), c in sorted(pairs.items()) if i == j and c == 2]
        single = [f"{names[i]} ** 2" for (i, j), c in sorted(pairs.items()) if i == j and c == 1]
        parts = ([f"2 * ({' + '.join(doubled)})"] if doubled else []) + single
        lines.append(f"    e{m} = {' + '.join(parts)} - {names[m]}")
    lines.append(f"    e{n - 1} = {names[0]} + 2 * ({' + '.join(names[1:])}) - 1")
    lines.append(f"    return {' + '.join(f'e{m} ** 2' for m in range(n))}")
    return "\n".join(lines) + "\n"


def generation_seconds(source: str, path: str = "poly.py", mode: str = "grad") -> tuple[float, float]:
    """(wall, CPU) seconds ``yota-s2s`` takes to turn ``source`` into a gradient module.

    The pipeline is the CLI's (``yota_s2s.pipeline.generate``), run in this process.
    """
    return _generated(source, path, mode)[1:]


def _generated(source: str, path: str, mode: str) -> tuple[str, float, float]:
    """The module ``yota-s2s`` writes for ``source`` in ``mode``, and (wall, CPU) seconds."""
    from yota_s2s.pipeline import generate

    wall, cpu = time.perf_counter(), time.process_time()
    text = generate(source, path, mode=mode).text
    return text, time.perf_counter() - wall, time.process_time() - cpu


def _function_lines(text: str, name: str) -> int:
    """The lines of the function ``name`` in the module ``text`` (to the next top-level line)."""
    lines = text.split("\n")
    start = next(k for k, line in enumerate(lines) if line.startswith(f"def {name}("))
    end = next((k for k in range(start + 1, len(lines)) if lines[k][:1] not in ("", " ")), len(lines))
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end - start


def hessian_rows(sizes: list[int]) -> None:
    """Print, for each number of unknowns, ``hess_energy``'s lines against ``grad_energy``'s
    and the seconds each takes to generate."""
    print(
        f"{'katsura energy':<20}{'grad lines':>11}{'hess lines':>11}{'ratio':>7}{'grad s':>8}{'hess s':>9}{'CPU s':>8}"
    )
    for n in sizes:
        source = katsura_source(n)
        grad, _, grad_cpu = _generated(source, "katsura.py", "grad")
        hess, wall, cpu = _generated(source, "katsura.py", "hessian")
        g, h = _function_lines(grad, "grad_energy"), _function_lines(hess, "hess_energy")
        row = f"{f'{n} unknowns':<20}{g:>11}{h:>11}{h / g:>7.1f}{grad_cpu:>8.2f}{wall:>9.2f}{cpu:>8.2f}"
        print(row, flush=True)


def example_rows(root: str = ".") -> None:
    """Print the CPU seconds each generated file of the project's ``[tool.yota-s2s]`` table takes
    to generate (the pipeline the command line runs), the slowest first, and the total."""
    from pathlib import Path

    from yota_s2s.pipeline import generate
    from yota_s2s.project import find_project

    project = find_project(Path(root).resolve())
    rows = []
    for entry in project.entries if project else []:
        source = (project.root / entry.source).read_text(encoding="utf-8")
        rules = [str(project.root / r) for r in entry.rules]
        cpu = time.process_time()
        generate(
            source,
            entry.source,
            entry.funcs,
            entry.wrt,
            entry.target,
            rules,
            entry.command(),
            entry.buffers,
            entry.value,
            mode=entry.mode,
            sparse=entry.sparse,
            checkpoint=entry.checkpoint,
        )
        rows.append((time.process_time() - cpu, entry.out))
    rows.sort(reverse=True)
    print(f"{'generated file (the slowest five)':<60}{'CPU s':>8}")
    for cpu, out in rows[:5]:
        print(f"{out:<60}{cpu:>8.2f}")
    print(f"{f'all {len(rows)} files':<60}{sum(c for c, _ in rows):>8.2f}")


def startup_rows(root: str = ".", rounds: int = 4) -> None:
    """Print the CPU seconds of each ``yota-s2s`` command of the project's ``[tool.yota-s2s]`` table
    run on its own (``python -m yota_s2s ARGS``, the output to a scratch file): what a user pays per
    file, start-up included (the imports, the rules, the runtime helpers), the least of ``rounds``
    runs, the bytecode cached in a scratch folder (a first run writes it)."""
    import os
    import resource
    import subprocess
    import tempfile
    from pathlib import Path

    from yota_s2s.project import find_project

    project = find_project(Path(root).resolve())
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(scratch, "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for entry in project.entries if project else []:
            argv = list(entry.argv())
            if "--out" in argv:
                argv[argv.index("--out") + 1] = os.path.join(scratch, "out.py")
            best = None
            for _ in range(rounds):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                command = [sys.executable, "-m", "yota_s2s", *argv]
                subprocess.run(command, cwd=project.root, env=env, capture_output=True, check=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                best = cpu if best is None else min(best, cpu)
            rows.append((best, entry.out))
    rows.sort(reverse=True)
    print(f"{'one command per generated file (the slowest five)':<60}{'CPU s':>8}")
    for cpu, out in rows[:5]:
        print(f"{out:<60}{cpu:>8.2f}")
    if rows:
        print(f"{f'the median of {len(rows)} commands':<60}{sorted(c for c, _ in rows)[len(rows) // 2]:>8.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the 100k-term polynomial")
    parser.add_argument("--sizes", default=None, help="comma-separated term counts (default 1000,10000,100000)")
    parser.add_argument("--expr", type=int, default=5000, help="terms of the single long expression (0: skip)")
    parser.add_argument(
        "--hessian",
        default=None,
        help="comma-separated unknowns of the katsura Hessians (default 8,16,32,64; --quick 8,16; 0: skip)",
    )
    parser.add_argument("--examples", action="store_true", help="also each file of the project's [tool.yota-s2s]")
    parser.add_argument("--startup", action="store_true", help="also each of those files as a command of its own")
    args = parser.parse_args(argv)
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",") if int(s)]
    else:
        sizes = [1000, 10000] if args.quick else [1000, 10000, 100000]
    generation_seconds(poly_source(10))  # imports and rule loading, not counted
    rows: list[tuple[str, int, float, float]] = []
    print(f"{'source':<32}{'lines':>7}{'wall s':>9}{'CPU s':>9}")
    for n in sizes:
        src = poly_source(n)
        wall, cpu = generation_seconds(src)
        rows.append((f"poly, {n} terms", n, wall, cpu))
        print(f"{rows[-1][0]:<32}{src.count(chr(10)):>7}{wall:>9.2f}{cpu:>9.2f}", flush=True)
    if args.expr:
        wall, cpu = generation_seconds(expr_source(args.expr))
        print(f"{f'one expression, {args.expr} terms':<32}{2:>7}{wall:>9.2f}{cpu:>9.2f}", flush=True)
    by_size = {n: (wall, cpu) for _, n, wall, cpu in rows}
    for n in sizes:
        if 10 * n in by_size:
            (w1, c1), (w10, c10) = by_size[n], by_size[10 * n]
            print(f"10x the terms ({n} -> {10 * n}): {w10 / w1:.1f}x the wall time, {c10 / c1:.1f}x the CPU time")
    hessians = args.hessian or ("8,16" if args.quick else "8,16,32,64")
    if hessians != "0":
        hessian_rows([int(s) for s in hessians.split(",")])
    if args.examples:
        example_rows()
    if args.startup:
        startup_rows()
    return 0


if __name__ == "__main__":
    sys.exit(main())
