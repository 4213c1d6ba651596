"""The fuzzer's programs through the other modes: ``--hvp``, ``--hessian`` and ``--jvp``.

    python -m tests.fuzz.modes --n 600 --seed 3000000 --out findings.json

For each smooth program of the generator with an array or float parameter ``x`` (the first one),
the gradient, HVP, Hessian and JVP with respect to ``x`` are generated in-process; where the
gradient is written (the first-order oracle checks it, ``tests.fuzz.oracle``), each of the others
is checked against it:

- ``hvp_f(..., v)``: the value and ``dx`` equal the gradient's, ``Hv`` equals the central
  difference of the gradient along ``v`` (rtol 1e-4);
- ``hess_f``: ``H`` contracted with ``v`` is that same difference, ``dx`` the gradient's;
- ``jvp_f(..., x_dot=v)``: ``dvalue == sum(dx * v)``, the value the gradient's.

A refusal (``UserError``) is counted by its code, never a failure; an exception in the generated
code or the generator is a failure (``crash``).  Found three faults of second order through loops
when it was written (docs/reliability.md).
"""

from __future__ import annotations

import argparse
import collections
import json
import signal
import sys
import traceback

import numpy as np

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .gen import generate_program
from .oracle import load, make_args

MODES = ("grad", "hvp", "hessian", "jvp")


class _Timeout(Exception):
    pass


def _alarm(*_: object) -> None:
    raise _Timeout


def _check(program, seed: int, stats: collections.Counter) -> list[dict]:
    """The failures of one program (counted in ``stats``)."""
    spec = next((s for s in program.params if s[0] in ("array", "float")), None)
    if program.vector or not program.smooth or spec is None:
        stats["not applicable"] += 1
        return []
    name = spec[1]
    at = [s[1] for s in program.params].index(name)
    ns = load(program.source)
    rng = np.random.default_rng(seed)
    args = make_args(program, ns, rng)
    try:
        ns["f"](*args)
    except Exception:  # noqa: BLE001 - the generator's program fails on its inputs
        stats["invalid"] += 1
        return []
    made = {}
    for mode in MODES:
        try:
            made[mode] = load(generate(program.source, "t.py", ["f"], {"f": [name]}, mode=mode).text)
        except (UserError, UserErrors) as exc:
            stats[f"{mode}: refused {getattr(exc, 'code', 'several')}"] += 1
    if "grad" not in made:
        return []
    x = args[at]
    value, dx = made["grad"]["grad_f"](*args)
    if dx is None:
        stats["not applicable"] += 1
        return []
    v = rng.standard_normal(np.shape(x))
    v = v if np.ndim(x) else float(v)

    def moved(step: float) -> np.ndarray:
        return np.asarray(made["grad"]["grad_f"](*args[:at], x + step * v, *args[at + 1 :])[1])

    eps = 1e-5
    numeric = (moved(eps) - moved(-eps)) / (2 * eps)
    scale = max(1.0, float(np.abs(numeric).max()) if np.size(numeric) else 1.0)
    failures = []

    def record(mode: str, ok: bool, error: float) -> None:
        stats[f"{mode}: {'right' if ok else 'WRONG'}"] += 1
        if not ok:
            failures.append({"seed": seed, "mode": mode, "error": error, "source": program.source})

    def same(a: object, b: object, rtol: float, atol: float) -> bool:
        return bool(np.allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol))

    if "hvp" in made:
        got = made["hvp"]["hvp_f"](*args, v=v)
        hv = np.asarray(got[2])
        ok = same(got[0], value, 1e-10, 0) and same(got[1], dx, 1e-10, 1e-12)
        record("hvp", ok and same(hv, numeric, 1e-4, 1e-5 * scale), float(np.abs(hv - numeric).max()))
    if "hessian" in made:
        got = made["hessian"]["hess_f"](*args)
        hv = np.tensordot(np.asarray(got[2]), v, axes=np.ndim(v)) if np.ndim(v) else np.asarray(got[2]) * v
        ok = same(got[1], dx, 1e-10, 1e-12) and same(hv, numeric, 1e-4, 1e-5 * scale)
        record("hessian", ok, float(np.abs(hv - numeric).max()))
    if "jvp" in made:
        got = made["jvp"]["jvp_f"](*args, **{name + "_dot": v})
        expected = float(np.sum(np.asarray(dx) * v))
        ok = same(got[0], value, 1e-10, 0) and same(got[1], expected, 1e-8, 1e-10 * scale)
        record("jvp", ok, abs(float(np.asarray(got[1])) - expected))
    return failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.modes")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=3000000)
    ap.add_argument("--timeout", type=int, default=30, help="seconds a program may take")
    ap.add_argument("--out", default=None, help="a JSON file of the failures")
    opts = ap.parse_args(argv)
    signal.signal(signal.SIGALRM, _alarm)
    stats: collections.Counter = collections.Counter()
    failures: list[dict] = []
    for seed in range(opts.seed, opts.seed + opts.n):
        signal.alarm(opts.timeout)
        try:
            failures += _check(generate_program(seed), seed, stats)
        except _Timeout:
            stats["timeout"] += 1
        except Exception as exc:  # noqa: BLE001 - a crash of the tool or of its output is a finding
            stats[f"crash: {type(exc).__name__}"] += 1
            failures.append({"seed": seed, "mode": "crash", "error": traceback.format_exc()[-2000:]})
        finally:
            signal.alarm(0)
    for key in sorted(stats):
        print(f"  {key:<32} {stats[key]}")
    if opts.out:
        with open(opts.out, "w", encoding="utf-8") as fh:
            json.dump(failures, fh, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
