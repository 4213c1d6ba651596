"""The array-API target on Dask: a batched polynomial gradient on a local cluster against NumPy.

``poly8_batched`` (tests/corpus.py: the sum over N columns of a 9-variable polynomial, x of shape
(9, N)) is generated twice, for ``--target numpy`` and ``--target array-api``.  The NumPy module
runs in this process on one NumPy array; the array-API module runs on the same points as a Dask
array in chunks of columns, on a ``dask.distributed.LocalCluster`` of worker processes started
here.  Each time is the best of ``--repeat`` runs and covers the value and the whole gradient
(the Dask one is persisted on the workers, not gathered: the data stays where it is, as it would
on a real cluster).  The points are made on the workers first and are not timed.

    python benchmarks/bench_dask.py                    # 10^7 points, 2 workers, 8 chunks
    python benchmarks/bench_dask.py --n 1000000 --chunks 4 --workers 2 --repeat 3
    python benchmarks/bench_dask.py --n 100000000 --chunks 100 --by-chunks --repeat 2   # 10^8 points

It prints one table (docs/scale.md has the figures and how they scale).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "corpus.py"


def _module(folder: Path, target: str):
    """The generated module of poly8_batched for ``target``, imported."""
    from yota_s2s.pipeline import generate

    text = generate(SOURCE.read_text(encoding="utf-8"), "tests/corpus.py", ["poly8_batched"], target=target).text
    path = folder / f"grad_poly8_batched_{target.replace('-', '_')}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _best(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(n: int, chunks: int, workers: int, repeat: int) -> dict:
    """The times (seconds) of one gradient of poly8_batched on ``n`` points: NumPy, and Dask on the cluster."""
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    folder = Path(tempfile.mkdtemp(prefix="bench_dask_"))
    numpy_module, standard_module = _module(folder, "numpy"), _module(folder, "array-api")
    x = np.random.default_rng(0).uniform(-1.0, 1.0, size=(9, n))
    numpy_time = _best(lambda: numpy_module.grad_poly8_batched(x), repeat)
    expected = numpy_module.grad_poly8_batched(x)
    standard_numpy_time = _best(lambda: standard_module.grad_poly8_batched(x), repeat)
    x = None  # (freed before the cluster starts)
    width = -(-n // chunks)
    with (
        LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        xd = da.random.default_rng(0).uniform(-1.0, 1.0, size=(9, n), chunks=(9, width)).persist()
        wait(xd)

        def run():
            value, dx = standard_module.grad_poly8_batched(xd)
            value, dx = client.persist([value, dx])
            wait([value, dx])
            return value, dx

        dask_time = _best(run, repeat)
        value, dx = run()
        # the same points (NumPy's generator, chunk by chunk, differ): check against NumPy on the gathered x
        check = numpy_module.grad_poly8_batched(xd.compute())
        got = (float(value.compute()), float(da.sum(dx * dx).compute()))
        want = (float(check[0]), float(np.sum(check[1] * check[1])))
        assert np.allclose(got, want, rtol=1e-9), (got, want)
    del expected
    return {
        "n": n,
        "chunks": chunks,
        "workers": workers,
        "numpy": numpy_time,
        "array_api_on_numpy": standard_numpy_time,
        "dask": dask_time,
    }


def _points(chunk: int, width: int) -> np.ndarray:
    """The points of chunk ``chunk`` (9 x ``width``), the same wherever they are made."""
    return np.random.default_rng(chunk).uniform(-1.0, 1.0, size=(9, width))


def measure_blocks(n: int, chunks: int, workers: int, repeat: int) -> dict:
    """As ``measure``, for more points than one process holds with its gradient (10^8: x alone is
    7.2 GB): each side computes the whole gradient chunk by chunk and keeps its reductions, the
    value and the sum of the squared gradient, not the gradient.  NumPy, in this process, holds
    every chunk's points and runs the NumPy module on one chunk at a time (one NumPy array of 10^8
    points, its gradient and the temporaries would need over 30 GB); Dask holds them on the
    workers, and each chunk's gradient is reduced where it is computed.  The points of chunk k are
    ``_points(k, ...)`` on both sides: their reductions must agree."""
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    folder = Path(tempfile.mkdtemp(prefix="bench_dask_"))
    numpy_module, standard_module = _module(folder, "numpy"), _module(folder, "array-api")
    width = -(-n // chunks)
    widths = [min(width, n - k * width) for k in range(chunks)]
    blocks = [_points(k, w) for k, w in enumerate(widths)]

    def numpy_run():
        value, squares = 0.0, 0.0
        for x in blocks:
            v, dx = numpy_module.grad_poly8_batched(x)
            value += float(v)
            squares += float(np.sum(dx * dx))
        return value, squares

    numpy_time = _best(numpy_run, repeat)
    want = numpy_run()
    blocks = None  # (freed before the cluster starts)
    with (
        LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        parts = [da.from_delayed(dask.delayed(_points)(k, w), (9, w), np.float64) for k, w in enumerate(widths)]
        xd = da.concatenate(parts, axis=1).persist()
        wait(xd)

        def run():
            value, dx = standard_module.grad_poly8_batched(xd)
            return client.compute([value, da.sum(dx * dx)], sync=True)

        dask_time = _best(run, repeat)
        got = [float(v) for v in run()]
    assert np.allclose(got, want, rtol=1e-9), (got, want)
    return {"n": n, "chunks": chunks, "workers": workers, "numpy": numpy_time, "dask": dask_time, "by_chunks": True}


def table(r: dict) -> str:
    """The figures of ``measure`` as a Markdown table."""
    cluster = f"LocalCluster of {r['workers']} processes"
    if r.get("by_chunks"):  # (measure_blocks: the gradients reduced chunk by chunk on both sides)
        rows = [
            (f"NumPy target, NumPy arrays, this process, {r['chunks']} chunks one after the other", r["numpy"]),
            (f"array-api target, Dask array ({r['chunks']} chunks), {cluster}", r["dask"]),
        ]
    else:
        rows = [
            ("NumPy target, NumPy array, this process", r["numpy"]),
            ("array-api target, NumPy array, this process", r["array_api_on_numpy"]),
            (f"array-api target, Dask array ({r['chunks']} chunks), {cluster}", r["dask"]),
        ]
    lines = [f"poly8_batched gradient, N = {r['n']:,} points (x: 9 x N float64)", ""]
    lines += ["| run | seconds | / NumPy target |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {t:.3f} | {t / r['numpy']:.2f} |" for name, t in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10_000_000, help="the number of points (default 10^7)")
    p.add_argument("--chunks", type=int, default=8, help="Dask chunks of columns (default 8)")
    p.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster (default 2)")
    p.add_argument("--repeat", type=int, default=3, help="runs of each, the best is kept (default 3)")
    p.add_argument(
        "--by-chunks",
        action="store_true",
        help="both sides chunk by chunk, the gradient reduced, not kept (for 10^8 points: measure_blocks)",
    )
    args = p.parse_args(argv)
    run = measure_blocks if args.by_chunks else measure
    print(table(run(args.n, args.chunks, args.workers, args.repeat)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
