"""Generation time of yota-s2s against program size (issue 5).

Writes polynomial sources of growing size, runs the real ``yota-s2s`` pipeline
on each and prints the time it takes, plus the ratio between sizes 10x apart.

    python benchmarks/gentime.py            # 1k, 10k, 100k terms + a long expression
    python benchmarks/gentime.py --quick    # 1k and 10k terms only

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


def generation_seconds(source: str, path: str = "poly.py") -> tuple[float, float]:
    """(wall, CPU) seconds ``yota-s2s`` takes to turn ``source`` into a gradient module.

    The pipeline is the CLI's (``yota_s2s.pipeline.generate``), run in this process.
    """
    from yota_s2s.pipeline import generate

    wall, cpu = time.perf_counter(), time.process_time()
    generate(source, path)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the 100k-term polynomial")
    parser.add_argument("--sizes", default=None, help="comma-separated term counts (default 1000,10000,100000)")
    parser.add_argument("--expr", type=int, default=5000, help="terms of the single long expression (0: skip)")
    args = parser.parse_args(argv)
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
