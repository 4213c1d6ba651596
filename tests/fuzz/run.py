"""The fuzzer's long mode as a command: run many programs, shrink the failures, report them.

    python -m tests.fuzz.run --n 2000 --seed 0 --out findings.jsonl

prints the counts (programs, refusals per code, failures per kind, the slowest generation) and
writes one JSON line per failure: its seed, kind, detail, and the shrunk program (source and
parameters) for the first ``--shrink`` failures of each kind, ready for ``regressions.py``.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time

from .gen import generate_program
from .oracle import check
from .shrink import shrink


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.run")
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shrink", type=int, default=3, help="failures of each kind to shrink")
    ap.add_argument("--shrink-budget", type=float, default=60.0)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    counts: collections.Counter = collections.Counter()
    shrunk: collections.Counter = collections.Counter()
    slowest = (0.0, None)
    out = open(a.out, "a", encoding="utf-8") if a.out else None  # noqa: SIM115
    start = time.perf_counter()
    for seed in range(a.seed, a.seed + a.n):
        program = generate_program(seed)
        outcome = check(program, seed, timeout=a.timeout)
        counts[outcome.signature] += 1
        if outcome.gen_seconds > slowest[0]:
            slowest = (outcome.gen_seconds, seed)
        if outcome.status != "failure":
            continue
        record = {"seed": seed, "kind": outcome.kind, "detail": outcome.detail[:2000]}
        if shrunk[outcome.kind] < a.shrink:
            shrunk[outcome.kind] += 1
            small = shrink(program, outcome, seed, budget_s=a.shrink_budget)
            again = check(small, seed, timeout=a.timeout)
            record.update(source=small.source, params=small.params, dims=small.dims, smooth=small.smooth,
                          vector=small.vector, shrunk_detail=again.detail[:2000])  # fmt: skip
        print(f"seed {seed}: {outcome.kind}: {outcome.detail[:200]}", flush=True)
        if out:
            out.write(json.dumps(record) + "\n")
            out.flush()
    elapsed = time.perf_counter() - start
    print(f"\n{a.n} programs in {elapsed:.0f} s; slowest generation {slowest[0]:.2f} s (seed {slowest[1]})")
    for (status, kind), n in sorted(counts.items()):
        print(f"  {status:8} {kind:28} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
