"""Loops at scale (issue 39): the gradient of long loops against their forward, the form before the
loop's saved values were cut and its writes made in place (``transform.remat.SAVE_LESS`` and
``transform.writes.IN_PLACE`` False), a hand-written adjoint, and JAX.

- a rollout ``u = u + dt * np.sin(u)`` of a state of 10^4 numbers, T = 1,000 and 10,000 steps:
  time, and the ``tracemalloc`` peak of one gradient call in states (the state's bytes) per step;
- an RK4 rollout of a two-species Lotka-Volterra model, its four parameters read from ``p``
  inside the step (T = 1,000);
- a pair-force energy written with element writes (``F[i] += f``), at 20, 80 and 200 atoms;
- an element-assembly loop of a chain of springs (``K[e:e+2] += ...``), 200 elements;
- the rollout with ``--checkpoint 10`` and ``30`` (binomial checkpointing): its time against the
  forward and against ``grad_NAME`` without it, and its peak in states (not per step: it does not
  grow with T), measured in this process and in a fresh one (where the interpreter's free lists
  are empty: what a first call costs).

Both forms of ``grad_NAME`` are generated here from the same source, in memory.  JAX (the
``arrayapi`` extra installs it) runs ``jit(grad)`` of the same loop written with ``lax.scan``, on
the CPU, on one thread.  Each time is the best of a few rounds of the process's CPU time (robust
to other load on a shared machine); every gradient is checked against the hand-written one first.

    python -m benchmarks.bench_loops            # prints one table
    python -m benchmarks.bench_loops --md FILE  # and writes it to FILE
    python -m benchmarks.bench_loops --quick    # T = 1,000 only, fewer rounds
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import tracemalloc
from functools import partial
from pathlib import Path

from .bench_hessian import _one_thread

SOURCE = """\
import numpy as np


def rollout(u, dt, T: int):
    for _ in range(T):
        u = u + dt * np.sin(u)
    return np.sum(u * u)


def lv_rk4(y, p, dt, T: int):
    for _ in range(T):
        a, b, c, d = p[0], p[1], p[2], p[3]
        x1, y1 = y[0], y[1]
        k1x = a * x1 - b * x1 * y1
        k1y = d * x1 * y1 - c * y1
        x2 = x1 + 0.5 * dt * k1x
        y2 = y1 + 0.5 * dt * k1y
        k2x = a * x2 - b * x2 * y2
        k2y = d * x2 * y2 - c * y2
        x3 = x1 + 0.5 * dt * k2x
        y3 = y1 + 0.5 * dt * k2y
        k3x = a * x3 - b * x3 * y3
        k3y = d * x3 * y3 - c * y3
        x4 = x1 + dt * k3x
        y4 = y1 + dt * k3y
        k4x = a * x4 - b * x4 * y4
        k4y = d * x4 * y4 - c * y4
        y = np.array([x1 + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x), y1 + dt / 6 * (k1y + 2 * k2y + 2 * k3y + k4y)])
    return np.sum(y)


def pair_energy(X):
    n = X.shape[0]
    F = np.zeros_like(X)
    for i in range(n):
        for j in range(i + 1, n):
            d = X[i] - X[j]
            r2 = np.sum(d * d) + 1.0
            f = d / (r2 * r2)
            F[i] += f
            F[j] -= f
    return np.sum(F * F)


def assembly(u, k):
    n = u.shape[0]
    F = np.zeros_like(u)
    for e in range(n - 1):
        s = k[e] * (u[e + 1] - u[e]) ** 3
        F[e] -= s
        F[e + 1] += s
    return np.sum(F * u)
"""


def _generated(save_less: bool, checkpoint: int = 0) -> dict:
    from yota_s2s.pipeline import generate
    from yota_s2s.transform import remat, writes

    remat.SAVE_LESS = writes.IN_PLACE = save_less
    wrt = {"rollout": ["u", "dt"], "lv_rk4": ["y", "p"], "pair_energy": ["X"], "assembly": ["u", "k"]}
    try:
        text = generate(SOURCE, "loops.py", list(wrt), wrt, checkpoint=checkpoint).text
    finally:
        remat.SAVE_LESS = writes.IN_PLACE = True
    namespace: dict = {}
    exec(compile(SOURCE, "loops.py", "exec"), namespace)  # noqa: S102 - the benchmark's own source
    exec(compile(text, "grad_loops.py", "exec"), namespace)  # noqa: S102 - our output
    return namespace


# ---------------------------------------------------------------- hand-written adjoints


def hand_rollout(u, dt, T):
    import numpy as np

    us = []
    for _ in range(T):
        us.append(u)
        u = u + dt * np.sin(u)
    value = np.sum(u * u)
    du, ddt = 2 * u, 0.0
    for _ in range(T):
        v = us.pop()
        s = np.sin(v)
        ddt += np.dot(du, s)
        du = du + dt * du * np.cos(v)
    return value, du, ddt


def hand_pair(X):
    """The pair forces accumulated in place, their gradient in place: what one writes by hand."""
    import numpy as np

    n = X.shape[0]
    F = np.zeros_like(X)
    for i in range(n):
        for j in range(i + 1, n):
            d = X[i] - X[j]
            r2 = d @ d + 1.0
            f = d / (r2 * r2)
            F[i] += f
            F[j] -= f
    value = np.sum(F * F)
    dF = 2 * F
    dX = np.zeros_like(X)
    for i in range(n):
        for j in range(i + 1, n):
            d = X[i] - X[j]
            r2 = d @ d + 1.0
            g = dF[i] - dF[j]  # the adjoint of f
            dd = g / (r2 * r2) - 4.0 * (g @ d) / r2**3 * d
            dX[i] += dd
            dX[j] -= dd
    return value, dX


# ---------------------------------------------------------------- JAX


def _jax() -> dict | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def rollout(u, dt, T):
        def step(u, _):
            return u + dt * jnp.sin(u), None

        u, _ = jax.lax.scan(step, u, None, length=T)
        return jnp.sum(u * u)

    def lv(y, p, dt, T):
        a, b, c, d = p[0], p[1], p[2], p[3]

        def f(x, y):
            return a * x - b * x * y, d * x * y - c * y

        def step(s, _):
            x1, y1 = s[0], s[1]
            k1x, k1y = f(x1, y1)
            k2x, k2y = f(x1 + 0.5 * dt * k1x, y1 + 0.5 * dt * k1y)
            k3x, k3y = f(x1 + 0.5 * dt * k2x, y1 + 0.5 * dt * k2y)
            k4x, k4y = f(x1 + dt * k3x, y1 + dt * k3y)
            x = x1 + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            return jnp.stack([x, y1 + dt / 6 * (k1y + 2 * k2y + 2 * k3y + k4y)]), None

        y, _ = jax.lax.scan(step, y, None, length=T)
        return jnp.sum(y)

    return {
        "rollout": jax.jit(jax.value_and_grad(rollout, argnums=(0, 1)), static_argnums=2),
        "lv_rk4": jax.jit(jax.value_and_grad(lv, argnums=(0, 1)), static_argnums=3),
    }


# ---------------------------------------------------------------- measuring


def _cpu_us(call, rounds: int) -> float:
    """The best process time of one call, over ``rounds`` rounds (each round calls enough times
    to last 20 ms)."""
    n = 1
    while True:
        t0 = time.process_time()
        for _ in range(n):
            call()
        if time.process_time() - t0 >= 0.02 or n >= 1 << 16:
            break
        n *= 2
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(n):
            call()
        best = min(best, (time.process_time() - t0) / n)
    return best * 1e6


def _ready(f, *args):
    """A JAX call, waited for."""
    return f(*args)[0].block_until_ready()


def _peak(call) -> int:
    """The ``tracemalloc`` peak of one call, in bytes, above what was allocated before it."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _fresh_peak(S: int, T: int) -> float:
    """The rollout's ``tracemalloc`` peak with ``--checkpoint S``, in states, in a fresh process."""
    code = f"from benchmarks.bench_loops import fresh_peak; print(fresh_peak({S}, {T}))"
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def fresh_peak(S: int, T: int) -> float:
    """(In the fresh process of ``_fresh_peak``.)"""
    import numpy as np

    module = _generated(True, S)
    u0 = np.random.default_rng(0).uniform(-1.0, 1.0, 10_000)
    return _peak(partial(module["grad_rollout"], u0, 0.01, T)) / u0.nbytes


def _close(a, b) -> None:
    import numpy as np

    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-9, atol=1e-12)


def measure(quick: bool = False) -> list[tuple[str, ...]]:
    import numpy as np

    new, old, jx = _generated(True), _generated(False), _jax()
    checkpointed = {S: _generated(True, S) for S in (10, 30)}
    rounds = 3 if quick else 5
    rows: list[tuple[str, ...]] = []
    rng = np.random.default_rng(0)
    u0 = rng.uniform(-1.0, 1.0, 10_000)
    state = u0.nbytes
    for T in (1_000,) if quick else (1_000, 10_000):
        args = (u0, 0.01, T)
        ref = hand_rollout(*args)
        _close(new["grad_rollout"](*args), ref)
        _close(old["grad_rollout"](*args), ref)
        fwd = _cpu_us(partial(new["rollout"], *args), rounds)
        cells = {
            "grad": _cpu_us(partial(new["grad_rollout"], *args), rounds),
            "before": _cpu_us(partial(old["grad_rollout"], *args), rounds),
            "hand": _cpu_us(partial(hand_rollout, *args), rounds),
        }
        if jx is not None:
            j = jx["rollout"]
            j(*args)[0].block_until_ready()
            cells["jax"] = _cpu_us(partial(_ready, j, *args), rounds)
        peaks = {
            "grad": _peak(partial(new["grad_rollout"], *args)),
            "before": _peak(partial(old["grad_rollout"], *args)),
            "hand": _peak(partial(hand_rollout, *args)),
        }
        name = f"rollout 10^4, T = {T:,}"
        rows.append(_row(name, fwd, cells))
        rows.append(
            (f"{name}: peak states/step", "", *(f"{peaks[k] / state / T:.2f}" for k in ("grad", "before", "hand")), "")
        )
        for S, module in checkpointed.items():
            _close(module["grad_rollout"](*args), ref)
            time_s = _cpu_us(partial(module["grad_rollout"], *args), rounds)
            peak = _peak(partial(module["grad_rollout"], *args)) / state
            rows.append((f"{name}, --checkpoint {S}", _us(fwd), f"{time_s / fwd:.2f}x", "", "", ""))
            rows.append(
                (
                    f"{name}, --checkpoint {S}: its time / grad_NAME's, peak states (here; fresh process)",
                    "",
                    f"{time_s / cells['grad']:.2f}x",
                    f"{peak:.2f} states; {_fresh_peak(S, T):.2f}",
                    "",
                    "",
                )
            )
    y0, p = np.array([1.0, 0.5]), np.array([1.1, 0.4, 0.4, 0.1])
    args = (y0, p, 0.01, 1_000)
    _close(new["grad_lv_rk4"](*args), old["grad_lv_rk4"](*args))
    fwd = _cpu_us(partial(new["lv_rk4"], *args), rounds)
    cells = {
        "grad": _cpu_us(partial(new["grad_lv_rk4"], *args), rounds),
        "before": _cpu_us(partial(old["grad_lv_rk4"], *args), rounds),
    }
    if jx is not None:
        j = jx["lv_rk4"]
        _close(j(*args)[1], new["grad_lv_rk4"](*args)[1:])
        cells["jax"] = _cpu_us(partial(_ready, j, *args), rounds)
    rows.append(_row("RK4 Lotka-Volterra, T = 1,000", fwd, cells))
    for n in (20, 80, 200):
        X = rng.normal(size=(n, 3))
        _close(new["grad_pair_energy"](X), hand_pair(X))
        fwd = _cpu_us(partial(new["pair_energy"], X), rounds)
        cells = {
            "grad": _cpu_us(partial(new["grad_pair_energy"], X), rounds),
            "before": _cpu_us(partial(old["grad_pair_energy"], X), rounds),
            "hand": _cpu_us(partial(hand_pair, X), rounds),
        }
        rows.append(_row(f"pair forces, {n} atoms", fwd, cells))
    u, k = rng.normal(size=201), rng.uniform(0.5, 1.5, 200)
    _close(new["grad_assembly"](u, k), old["grad_assembly"](u, k))
    fwd = _cpu_us(partial(new["assembly"], u, k), rounds)
    cells = {
        "grad": _cpu_us(partial(new["grad_assembly"], u, k), rounds),
        "before": _cpu_us(partial(old["grad_assembly"], u, k), rounds),
    }
    rows.append(_row("element assembly, 200 elements", fwd, cells))
    return rows


def _row(name: str, fwd: float, cells: dict[str, float]) -> tuple[str, ...]:
    def ratio(key: str) -> str:
        return f"{cells[key] / fwd:.2f}x" if key in cells else "-"

    return (name, _us(fwd), ratio("grad"), ratio("before"), ratio("hand"), ratio("jax"))


def _us(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} µs"


HEADER = ("loop", "forward", "grad_NAME", "before (all pushed, writes copied)", "hand-written", "JAX jit(grad), scan")


def table(rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_loops", description=__doc__.splitlines()[0])
    parser.add_argument("--md", type=Path, help="also write the table to this Markdown file")
    parser.add_argument("--quick", action="store_true", help="T = 1,000 only, fewer rounds")
    args = parser.parse_args(argv)
    _one_thread()
    text = "Times as ratios to the forward (the source function), one run; peaks in states per step.\n\n"
    text += table(measure(args.quick))
    sys.stdout.write(text)
    if args.md:
        args.md.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
