"""The benchmark runner: ``python -m benchmarks [options]``.

Input: the workloads, sizes and peers to run.  Output: a markdown table (stdout, and
``--md FILE``) of the median µs per gradient call for each workload × size row, each
peer's peak traced memory per call beside its time, and the ratios of the yota-s2s
gradient to the NumPy forward, to the mechanical hand-written gradient and to the best
automatic peer, all measured in the same run; ``--json FILE`` keeps the raw figures.

For each row the runner builds every peer, checks its gradient against the hand-written
one (``allclose``, rtol 1e-7; yota-s2s's value also against the forward, rtol 1e-8),
measures the peak memory of one call with tracemalloc, then times the peers interleaved:
in each round every peer runs a batch of about ``--batch-ms`` of calls (after an untimed
warm-up), and the figure is the median per-call time over ``--rounds`` rounds.  Peers of
one runtime family (NumPy, XLA, torch) run together, after a short sleep when several
threads are allowed: a multi-threaded runtime's workers spin after their work and would
starve the next runtime's on a small machine.  A peer that is missing, fails, gives a
wrong gradient or is refused by yota-s2s is reported in the table, and the run goes on.

Nothing here imports NumPy before the options are read: ``--threads`` must set the
thread-count variables of OpenBLAS, OpenMP and XLA before those libraries start.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
import zlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DEFAULT_ROUNDS = 15
RTOL = 1e-7
#: the references of the ratios: they run whatever --peers says
ALWAYS = ("numpy_fwd", "hand", "hand_mech")

#: glibc malloc settings of ``--malloc steady``: allocations below 32 MiB come from the heap and freed
#: memory is kept, so no peer pays page faults for memory another peer made the allocator give back.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time yota-s2s gradients against the NumPy forward, hand-written gradients and AD tools.",
        epilog="Docs: docs/performance.md. Robust on a shared machine: --threads 1 --clock cpu",
    )
    p.add_argument("--workloads", default="", help="comma list (default: all)")
    p.add_argument("--sizes", default="small,large", help="comma list (default: %(default)s)")
    p.add_argument(
        "--peers",
        default="",
        help="comma list (default: every installed peer; numpy_fwd, hand and hand_mech always run)",
    )
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="timed rounds per row (default %(default)s)")
    p.add_argument("--batch-ms", type=float, default=10.0, help="length of one peer's batch in a round")
    p.add_argument("--max-s-per-peer", type=float, default=2.5, help="fewer rounds (at least 3) for slower peers")
    p.add_argument("--threads", type=int, default=0, help="threads for every library (default: their own choice)")
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall: time.perf_counter; cpu: the process's CPU time (with --threads 1, robust to other load)",
    )
    p.add_argument(
        "--malloc",
        choices=("steady", "default"),
        default="steady",
        help="steady: fixed glibc thresholds, no page-fault churn between peers; default: glibc's own",
    )
    p.add_argument(
        "--settle-ms",
        type=float,
        default=None,
        help="sleep before each runtime family (default 150, 0 with --threads 1)",
    )
    p.add_argument("--md", metavar="FILE", help="also write the markdown report here")
    p.add_argument("--json", metavar="FILE", help="write the raw results here")
    return p


# ------------------------------------------------------------------------------ set-up


def _limit_threads(n: int) -> object | None:
    """Environment variables for libraries not loaded yet; threadpoolctl for those already loaded."""
    if not n:
        return None
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)
    if n == 1:
        flags = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + flags).strip()
    return n


def _apply_threadpool_limits(n: int) -> object | None:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=n)


def _steady_malloc() -> bool:
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)) and bool(libc.mallopt(M_TRIM_THRESHOLD, 1 << 30))
    except (OSError, AttributeError):  # not glibc
        return False


def _cpu_snapshot() -> tuple[float, float, float]:
    """(CPU seconds used by the whole machine, by this process, wall seconds)."""
    try:
        with open("/proc/stat") as fh:
            ticks = [int(v) for v in fh.readline().split()[1:9]]
        busy = (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")
    except OSError:
        busy = 0.0
    return busy, time.process_time(), time.perf_counter()


def _foreign_load(before, after) -> float:
    """Cores used by other processes between two snapshots."""
    wall = after[2] - before[2]
    return max(0.0, ((after[0] - before[0]) - (after[1] - before[1])) / wall) if wall > 0 else 0.0


# --------------------------------------------------------------------- build and check


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:200]}" if text else type(exc).__name__


def _compare(got: tuple, ref: tuple) -> float:
    """The largest error of ``got`` against ``ref``, relative to each gradient's scale; inf if shapes differ."""
    import numpy as np

    if len(got) != len(ref):
        return float("inf")
    worst = 0.0
    for g, r in zip(got, ref, strict=True):
        g = np.asarray(g, dtype=float)
        if g.shape != r.shape:
            return float("inf")
        if r.size:
            scale = max(1.0, float(np.abs(r).max()))
            if not np.allclose(g, r, rtol=RTOL, atol=1e-9 * scale):
                return max(float(np.abs(g - r).max()) / scale, RTOL * 10)
            worst = max(worst, float(np.abs(g - r).max()) / scale)
    return worst


def _peak_bytes(call) -> int:
    """Peak memory traced during one call, above what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = call()
        peak = tracemalloc.get_traced_memory()[1] - base
        del result
    finally:
        tracemalloc.stop()
    return peak


def build_case(case, names: list[str]) -> tuple[dict, dict]:
    """Build, check and measure the memory of each peer of ``case``: (report per peer, calls to time)."""
    from .peers import PEERS, Unsupported

    ref = PEERS["hand"].build(case).call()
    report, calls = {}, {}
    for name in names:
        peer = PEERS[name]
        t0 = time.perf_counter()
        try:
            built = peer.build(case)
            if built is None:
                report[name] = {"status": "n/a"}
                continue
            result = built.call()  # the first call compiles, warms caches
            setup_s = time.perf_counter() - t0
            err = None if built.grads is None else _compare(built.grads(result), ref)
        except Unsupported as exc:
            report[name] = {"status": "unsupported", "note": str(exc)}
            continue
        except Exception as exc:  # noqa: BLE001 - a failing peer is a table entry, not the end of the run
            report[name] = {"status": "error", "note": _first_line(exc)}
            continue
        if err is not None and err > RTOL:
            report[name] = {"status": "mismatch", "note": f"max relative error {err:.1e} against hand"}
            continue
        built.call()
        report[name] = {"status": "ok", "setup_s": setup_s, "max_rel_err": err, "traced": built.traced}
        report[name]["peak_bytes"] = _peak_bytes(built.call) if built.traced else None
        calls[name] = built.call
    return report, calls


# ------------------------------------------------------------------------------ timing


def time_interleaved(calls: dict, families: dict, opts, seed: int) -> dict:
    """Median seconds per call of each of ``calls`` over interleaved rounds (see the module docstring)."""
    clock = time.process_time if opts.clock == "cpu" else time.perf_counter
    per_call = {}
    for name, call in calls.items():  # calibrate on the wall clock: how many calls make a batch
        n = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            dt = time.perf_counter() - t0
            if dt >= 0.002 or n >= 1 << 20:
                break
            n *= 4
        per_call[name] = dt / n
    batch = {p: max(1, round(opts.batch_ms / 1e3 / per_call[p])) for p in calls}
    warm = {p: max(1, round(0.002 / per_call[p])) for p in calls}
    want = {p: max(3, min(opts.rounds, int(opts.max_s_per_peer / (batch[p] * per_call[p])))) for p in calls}
    groups: dict[str, list[str]] = {}
    for p in calls:
        groups.setdefault(families[p], []).append(p)
    order = list(groups)
    samples: dict[str, list[float]] = {p: [] for p in calls}
    rnd = random.Random(seed)
    gc.collect()
    for r in range(opts.rounds):
        rnd.shuffle(order)
        for family in order:
            members = [p for p in groups[family] if r < want[p]]
            if members and opts.settle_ms and len(groups) > 1:
                time.sleep(opts.settle_ms / 1e3)
            rnd.shuffle(members)
            for p in members:
                call, k = calls[p], batch[p]
                for _ in range(warm[p]):
                    call()
                gc.disable()
                t0 = clock()
                for _ in range(k):
                    call()
                t1 = clock()
                gc.enable()
                samples[p].append((t1 - t0) / k)
    out = {}
    for p, s in samples.items():
        s.sort()
        q = statistics.quantiles(s, n=4) if len(s) >= 2 else [s[0]] * 3
        out[p] = {"median_s": statistics.median(s), "q1_s": q[0], "q3_s": q[2], "rounds": len(s), "batch": batch[p]}
    return out


# ---------------------------------------------------------------------------- the run


def select_peers(requested: list[str]) -> tuple[list[str], dict[str, str]]:
    """(installed peers to run, peers skipped -> why), in table order; the ``ALWAYS`` peers always run."""
    from .peers import PEERS

    unknown = [p for p in requested if p not in PEERS]
    if unknown:
        raise SystemExit(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}")
    wanted = [p for p in PEERS if not requested or p in requested or p in ALWAYS]
    run, skipped = [], {}
    for p in wanted:
        if PEERS[p].installed():
            run.append(p)
        else:
            skipped[p] = f"not installed (pip install {PEERS[p].install})"
    return run, skipped


def run(opts) -> dict:
    """Run the benchmark described by the parsed options; returns the results (what --json writes)."""
    from .peers import PEERS, Case
    from .workloads import WORKLOADS

    names, skipped = select_peers([p for p in opts.peers.split(",") if p])
    os.environ.setdefault("JAX_PLATFORMS", "cpu")  # JAX on the CPU even where it finds an accelerator
    for p in list(names):  # import the runtimes before timing anything, and before threadpoolctl looks
        if PEERS[p].module and PEERS[p].module != "yota_s2s":
            try:
                __import__(PEERS[p].module)
            except Exception as exc:  # noqa: BLE001 - a broken install is reported, not fatal
                names.remove(p)
                skipped[p] = f"import failed: {_first_line(exc)}"
    limits = _apply_threadpool_limits(opts.threads) if opts.threads else None
    families = {p: PEERS[p].family for p in names}
    workloads = [w for w in opts.workloads.split(",") if w] or list(WORKLOADS)
    for w in workloads:
        if w not in WORKLOADS:
            raise SystemExit(f"unknown workload {w}; known: {', '.join(WORKLOADS)}")
    cases = []
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="yota_bench_") as tmp:
        for wname in workloads:
            for size in [s for s in opts.sizes.split(",") if s]:
                w = WORKLOADS[wname]
                print(f"[{time.perf_counter() - t_start:5.0f}s] {wname} {size}", file=sys.stderr, flush=True)
                workdir = Path(tmp) / f"{wname}_{size}"
                workdir.mkdir()
                case = Case(w, size, w.make_inputs(size), workdir, opts.threads)
                report, calls = build_case(case, names)
                before = _cpu_snapshot()
                timing = time_interleaved(calls, families, opts, zlib.crc32(f"{wname}/{size}".encode()))
                load = _foreign_load(before, _cpu_snapshot())
                for p, t in timing.items():
                    report[p].update(t)
                cases.append({"workload": wname, "size": size, "inputs": w.shapes[size], "peers": report, "load": load})
    if limits is not None:
        limits.restore_original_limits()
    return {
        "command": "python -m benchmarks " + " ".join(opts.argv),
        "peers": names,
        "skipped": skipped,
        "options": {k: getattr(opts, k) for k in ("rounds", "batch_ms", "threads", "clock", "malloc", "settle_ms")},
        "malloc_applied": opts.malloc_applied,
        "wall_s": time.perf_counter() - t_start,
        "environment": _environment(names),
        "cases": cases,
    }


def _environment(names: list[str]) -> dict:
    info = {"python": platform.python_version(), "machine": platform.machine(), "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as fh:
            info["cpu"] = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    from .peers import PEERS, yota_command

    modules = {"numpy", "threadpoolctl"} | {PEERS[p].module for p in names if PEERS[p].module}
    dists = {"numpy": "numpy", "jax": "jax", "autograd": "autograd", "torch": "torch", "sympy": "sympy"}
    dists |= {"tangent": "tangent-ad", "yota_s2s": "yota-s2s", "threadpoolctl": "threadpoolctl"}
    versions = {}
    for module, dist in dists.items():
        if module in modules:
            try:
                versions[dist] = version(dist)
            except PackageNotFoundError:
                versions[dist] = "missing"
    info["versions"] = versions
    command = yota_command()
    info["yota_s2s_command"] = " ".join([Path(command[0]).name, *command[1:]])
    return info


# -------------------------------------------------------------------------- rendering


def _us(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:.2f}" if us < 10 else f"{us:.1f}" if us < 100 else f"{us:,.0f}"


def _bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB" if n < 10 * 1024 else f"{n / 1024:.0f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def _ratio(r: float) -> str:
    return f"{r:.2f}×" if r < 10 else f"{r:.0f}×"


def _median(peers: dict, name: str) -> float | None:
    d = peers.get(name, {})
    return d.get("median_s") if d.get("status") == "ok" else None


def render(results: dict) -> str:
    """The markdown report of a run: the table, its footnotes, how it was measured."""
    from .peers import PEERS

    cases = results["cases"]
    shown = [p for p in results["peers"] if any(c["peers"].get(p, {}).get("status") != "n/a" for c in cases)]
    head = ["workload", "size", "inputs", *(PEERS[p].label for p in shown)]
    head += ["yota/fwd", "yota/hand mech", "yota/best AD (who)"]
    buffered = "yota_s2s_buffers" in shown
    head += ["buffers/yota"] if buffered else []
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 3 + "--:|" * (len(head) - 3)]
    notes: list[str] = []
    validated = supported = validated_buffers = 0
    for c in cases:
        peers = c["peers"]
        row = [c["workload"], c["size"], c["inputs"]]
        for p in shown:
            d = peers.get(p, {"status": "n/a"})
            if d["status"] == "ok":
                cell = _us(d["median_s"])
                if d.get("peak_bytes") is not None:
                    cell += f" ({_bytes(d['peak_bytes'])})"
                row.append(cell)
            elif d["status"] == "n/a":
                row.append("= hand" if p == "hand_mech" else "n/a")
            else:
                notes.append(f"{c['workload']}/{c['size']} {p}: {d['status']}: {d.get('note', '')}")
                row.append(f"{d['status']} [{len(notes)}]")

        yota = _median(peers, "yota_s2s")
        fwd = _median(peers, "numpy_fwd")
        mech = _median(peers, "hand_mech") or _median(peers, "hand")
        auto = [(_median(peers, p), p) for p in shown if PEERS[p].automatic and p != "yota_s2s"]
        auto = [(m, p) for m, p in auto if m]
        if "yota_s2s" in peers and peers["yota_s2s"]["status"] != "unsupported":
            supported += 1
        validated += yota is not None
        row.append(_ratio(yota / fwd) if yota and fwd else "—")
        row.append(_ratio(yota / mech) if yota and mech else "—")
        if yota and auto:
            best, who = min(auto)
            row.append(f"{_ratio(yota / best)} ({PEERS[who].label})")
        else:
            row.append("—")
        if buffered:
            with_buffers = _median(peers, "yota_s2s_buffers")
            validated_buffers += with_buffers is not None
            row.append(_ratio(with_buffers / yota) if with_buffers and yota else "—")
        lines.append("| " + " | ".join(row) + " |")
    out = lines
    if notes:
        out += [""] + [f"[{i}] {n}" for i, n in enumerate(notes, 1)]
    o = results["options"]
    env = results["environment"]
    loads = [c["load"] for c in cases]
    clock = "process CPU time" if o["clock"] == "cpu" else "wall time"
    any_auto = any(PEERS[p].automatic for p in shown if p != "yota_s2s")
    out += [
        "",
        (
            f"- Median µs per call ({clock}, threads: {o['threads'] or 'library defaults'}) over up to "
            f"{o['rounds']} interleaved rounds of ~{o['batch_ms']:g} ms batches. In parentheses: the peak memory "
            "of one call as tracemalloc sees it (NumPy buffers and Python objects; JAX and PyTorch allocate "
            "outside its view, so their cells have no memory figure)."
        ),
        (
            "- Ratios use medians from this same run. `hand mech` is the mechanical hand-written adjoint "
            "(`= hand` where it is the same code); `yota/best AD` compares with the fastest automatic peer "
            f"of the row{'' if any_auto else ' (none ran)'}."
        ),
    ]
    if "yota_s2s" in results["peers"]:
        refused = len(cases) - supported
        out.append(
            f"- yota_s2s: {validated} of {len(cases)} rows generated by `{env['yota_s2s_command']} --no-value` "
            f"(the gradients only, as every other column computes them) and validated against `hand` before "
            f"timing (gradients rtol {RTOL:g}){f'; {refused} refused as unsupported' if refused else ''}."
        )
    if "yota_s2s_value" in shown:
        out.append(
            "- yota_s2s +value: the default form of the same command (without `--no-value`), which returns "
            "`(value, gradients)`; its value checked against the forward (rtol 1e-08), its gradients against `hand`."
        )
    if buffered:
        out.append(
            f"- yota_s2s buffers: {validated_buffers} of {len(cases)} rows: the `--buffers` class of the yota_s2s "
            "command, called once before it is checked and timed (the call that allocates its buffers is not "
            "timed); its gradients validated against `hand` like the yota column. `buffers/yota` is its time "
            "over the plain `grad_` function's."
        )
    for p, why in results["skipped"].items():
        out.append(f"- Skipped {PEERS[p].label}: {why}.")
    versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items())
    malloc = "glibc thresholds fixed" if results["malloc_applied"] else "allocator defaults"
    out += [
        (
            f"- Command: `{results['command']}` ({results['wall_s']:.0f} s; malloc: {malloc}). Other processes "
            f"used {statistics.mean(loads or [0]):.2f} cores on average while rows were timed "
            f"(at most {max(loads or [0]):.2f})."
        ),
        f"- Python {env['python']}, {versions}; {env['cores']} cores, {env.get('cpu', env['machine'])}.",
    ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    opts = _parser().parse_args(argv)
    opts.argv = argv
    if opts.settle_ms is None:
        opts.settle_ms = 0.0 if opts.threads == 1 else 150.0
    _limit_threads(opts.threads)  # before NumPy is imported
    opts.malloc_applied = opts.malloc == "steady" and _steady_malloc()
    results = run(opts)
    text = render(results)
    sys.stdout.write(text)
    if opts.md:
        Path(opts.md).write_text(text, encoding="utf-8")
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0
