"""The array-API target: every corpus case generated with ``--target array-api``, run on each array library.

Each accepted case's module is run on NumPy arrays, on ``array-api-strict`` arrays (the standard's
reference namespace: a function or an argument outside the standard fails there), and on JAX,
PyTorch (CPU) and Dask arrays where those are installed (``pip install -e '.[arrayapi]'``), and
must give the numbers of the NumPy target's module on NumPy arrays.  Dask runs on a
``dask.distributed.LocalCluster`` of two worker processes that this module starts.  A case the
target refuses must be refused with a located YS040 naming what the standard lacks; most are not.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.codegen import array_api
from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

from . import corpus, corpus_control
from .gradcheck import load_module

ROOT = Path(__file__).resolve().parent.parent
CORPORA = {"tests/corpus.py": corpus, "tests/corpus_control.py": corpus_control}
SOURCES = {path: (ROOT / path).read_text(encoding="utf-8") for path in CORPORA}
ALL_CASES = [f"{path}::{name}" for path, module in CORPORA.items() for name in sorted(module.CASES)]


@functools.cache
def _generate(case: str, target: str) -> str:
    """The module of ``case`` for ``target``, generated once in a process (several tests read it)."""
    path, name = case.split("::")
    return generate(SOURCES[path], path, [name], target=target).text


@functools.cache
def _outcome(case: str, target: str = "array-api") -> UserError | None:
    """None when ``target`` writes ``case``; its error when it refuses it."""
    try:
        _generate(case, target)
    except UserError as exc:
        return exc
    return None


def _refused() -> dict[str, UserError]:
    """The cases the NumPy target writes and the array-api target refuses, with its error (the cases the
    NumPy target refuses are not the array-api target's to judge)."""
    return {c: e for c in ALL_CASES if _outcome(c, "numpy") is None and (e := _outcome(c)) is not None}


def _accepted() -> list[str]:
    return [c for c in ALL_CASES if _outcome(c, "numpy") is None and _outcome(c) is None]


def _written(case: str) -> str:
    """``case``, where both targets write it; else the test skips (the cases are not filtered while pytest
    collects: that would generate the corpus twice in each process of ``-n``)."""
    if (exc := _outcome(case, "numpy") or _outcome(case)) is not None:
        pytest.skip(
            f"refused ({exc.code}), as test_most_cases_are_accepted_and_each_refusal_is_located_and_named checks"
        )
    return case


def test_most_cases_are_accepted_and_each_refusal_is_located_and_named():
    numpy_cases = [c for c in ALL_CASES if _outcome(c, "numpy") is None]
    refused = _refused()
    assert len(numpy_cases) - len(refused) >= 0.85 * len(numpy_cases), sorted(refused)
    for case, exc in refused.items():
        assert exc.code == "YS040", (case, str(exc))
        assert exc.line > 0 and exc.path == case.split("::")[0], (case, str(exc))
        assert "the array-api target cannot write" in str(exc), str(exc)


def test_a_function_the_standard_lacks_is_refused_where_it_is_called():
    src = "import numpy as np\n\ndef f(a, b):\n    c = np.einsum('ij,jk->ik', a, b)\n    return np.sum(c)\n"
    with pytest.raises(UserError) as info:
        generate(src, "m.py", ["f"], target="array-api")
    assert info.value.code == "YS040" and info.value.line == 4
    assert "the array API standard 2024.12 has no xp.einsum" in str(info.value)


def test_a_write_at_a_computed_index_is_refused():
    """The gradient of a gather ``x[idx]`` is a scatter-add, which the standard lacks (idx may repeat)."""
    src = "import numpy as np\n\ndef f(x, idx):\n    return np.sum(x[idx] ** 2)\n"
    with pytest.raises(UserError) as info:
        generate(src, "m.py", ["f"], target="array-api")
    assert info.value.code == "YS040" and info.value.line == 4
    assert "scatter-add" in str(info.value)


def test_buffers_are_refused():
    src = "import numpy as np\n\ndef f(x):\n    return np.sum(x * x)\n"
    with pytest.raises(UserError, match=r"--buffers writes NumPy code only \(not --target array-api\)"):
        generate(src, "m.py", ["f"], target="array-api", buffers=True)


def test_the_table_is_the_standard_of_array_api_strict():
    """array_api.json is what ``python -m yota_s2s.codegen.array_api --write`` writes from array-api-strict."""
    pytest.importorskip("array_api_strict", reason="array-api-strict is not installed (pip install -e '.[arrayapi]')")
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s.codegen.array_api", "--check"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert array_api.load().version == "2024.12"


@pytest.fixture(scope="module")
def generated_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_array_api")


def _module(case: str, target: str, folder: Path):
    stem = case.replace("tests/", "").replace(".py::", "_") + "_" + target.replace("-", "_")
    path = folder / f"grad_{stem}.py"
    if not path.exists():
        path.write_text(_generate(case, target), encoding="utf-8")
    return load_module(path, f"aapi_{stem}")


@pytest.mark.slow
def test_generated_modules_import_the_standard_library_and_array_api_compat_only(generated_dir):
    for case in _accepted():
        text = _generate(case, "array-api")
        imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
        assert imports == ["import importlib", "import array_api_compat"], (case, imports)
        names = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        assert not names & {"np", "numpy", "cp"}, case


@pytest.mark.slow
def test_generated_modules_are_ruff_clean(generated_dir):
    paths = []
    for case in _accepted():
        path = generated_dir / ("ruff_" + case.replace("tests/", "").replace(".py::", "_") + ".py")
        path.write_text(_generate(case, "array-api"), encoding="utf-8")
        paths.append(str(path))
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", *paths],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout


# ----------------------------------------------------------------------------- the numbers, library by library


def _args(case: str):
    module, name = CORPORA[case.split("::")[0]], case.split("::")[1]
    return module.CASES[name](np.random.default_rng(7))


def _convert(value, to):
    """``value`` with every NumPy array in it made an array of another library by ``to``."""
    if isinstance(value, np.ndarray):
        return to(value)
    if isinstance(value, list | tuple):
        return type(value)(_convert(v, to) for v in value)
    if isinstance(value, dict):
        return {k: _convert(v, to) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(
            value, **{f.name: _convert(getattr(value, f.name), to) for f in dataclasses.fields(value)}
        )
    return value


def _leaves(value) -> list:
    if isinstance(value, list | tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value, key=str) for leaf in _leaves(value[k])]
    return [value]


def _check_case(case: str, folder: Path, to, back=lambda out: out, rtol=1e-9):
    case = _written(case)
    ref = _module(case, "numpy", folder)
    new = _module(case, "array-api", folder)
    name = "grad_" + case.split("::")[1]
    args = _args(case)
    expected = getattr(ref, name)(*_args(case))
    got = back(getattr(new, name)(*_convert(args, to)))
    want, have = _leaves(expected), _leaves(got)
    assert len(want) == len(have), case
    for k, (a, b) in enumerate(zip(want, have)):
        if a is None or b is None:  # (an integer's gradient)
            assert a is b, (case, k, a, b)
            continue
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, (case, k, a.shape, b.shape)
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-12, err_msg=f"{case}: output {k}")


@pytest.mark.parametrize("case", ALL_CASES)
def test_numpy_arrays_give_the_numpy_targets_numbers(case, generated_dir):
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    _check_case(case, generated_dir, lambda a: a, rtol=1e-12)


#: What array-api-strict refuses and every library array_api_compat wraps accepts (known deviations
#: from the letter of the standard, each a case of the corpus; see docs/scale.md).
STRICT_DEVIATIONS = {
    "tests/corpus.py::power_both": "the rule's x ** (y - 1 + (y == 0)) adds a boolean to a number",
    "tests/corpus_control.py::branch_clip_gradient": "a float gradient times an integer array",
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=STRICT_DEVIATIONS[c], strict=True))
        if c in STRICT_DEVIATIONS
        else c
        for c in ALL_CASES
    ],
)
def test_array_api_strict_arrays_give_the_same_numbers(case, generated_dir):
    """array-api-strict has the standard's functions only: anything else the module used would fail here."""
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    strict = pytest.importorskip("array_api_strict", reason="array-api-strict is not installed")
    strict.set_array_api_strict_flags(api_version=array_api.VERSION)
    _check_case(case, generated_dir, strict.asarray, rtol=1e-12)


@pytest.fixture(scope="module")
def jax_numpy():
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    jax = pytest.importorskip("jax", reason="JAX is not installed (pip install -e '.[arrayapi]')")
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)  # float64, as NumPy's numbers are
    yield jax.numpy
    jax.config.update("jax_enable_x64", previous)


@pytest.mark.slow  # (the sweeps on other libraries: ~150 s of CPU together; NumPy's above stays in the fast subset)
@pytest.mark.parametrize("case", ALL_CASES)
def test_jax_arrays_give_the_same_numbers(case, generated_dir, jax_numpy):
    """JAX arrays are immutable: a module that wrote into one would fail here."""
    _check_case(case, generated_dir, jax_numpy.asarray, rtol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("case", ALL_CASES)
def test_torch_tensors_give_the_same_numbers(case, generated_dir):
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install -e '.[arrayapi]')")
    _check_case(case, generated_dir, torch.from_numpy, rtol=1e-10)


@pytest.fixture(scope="module")
def dask_client():
    """A LocalCluster of two worker processes (one thread each), for this module's Dask tests."""
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    pytest.importorskip("dask.array", reason="Dask is not installed (pip install -e '.[arrayapi]')")
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    with (
        distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _dask_array(a: np.ndarray):
    import dask.array as da

    return da.from_array(a, chunks=tuple(max(1, (n + 1) // 2) for n in a.shape))  # two chunks an axis


#: Cases not run on Dask: 1000 sequential steps on a 3-element array are a graph of thousands of tiny tasks
#: (a minute each on the cluster; Dask parallelizes data, not steps: run such loops on NumPy or JAX).
DASK_SKIPPED = {
    f"tests/corpus_control.py::{name}": "1000 sequential steps on 3 elements" for name in ("euler", "euler_1000", "rk4")
}
#: What Dask itself cannot do (a limitation of the library, not of the generated code).
DASK_LIMITS = {
    "tests/corpus.py::mat_reshape": "Dask reshapes only by merging or splitting dimensions of even chunks",
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.skip(reason=DASK_SKIPPED[c]))
        if c in DASK_SKIPPED
        else pytest.param(c, marks=pytest.mark.xfail(reason=DASK_LIMITS[c], strict=True))
        if c in DASK_LIMITS
        else c
        for c in ALL_CASES
    ],
)
def test_dask_arrays_on_a_local_cluster_give_the_same_numbers(case, generated_dir, dask_client):
    import dask

    _check_case(case, generated_dir, _dask_array, lambda out: dask.compute(out)[0], rtol=1e-10)


# ----------------------------------------------------------------------------- numbers, the command line, the benchmark


def test_float_arguments_only_run_on_array_api_compats_numpy(tmp_path):
    """No argument is an array: the namespace is array_api_compat's NumPy, and a float's gradient a 0-d array."""
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    src = "import numpy as np\n\ndef f(a, b):\n    return np.exp(a) * np.sin(b) + 2.0\n"
    path = tmp_path / "grad_f.py"
    path.write_text(generate(src, "f.py", ["f"], target="array-api").text, encoding="utf-8")
    value, da, db = load_module(path).grad_f(0.5, 1.5)
    assert np.shape(value) == np.shape(da) == np.shape(db) == ()
    assert float(value) == pytest.approx(np.exp(0.5) * np.sin(1.5) + 2.0)
    assert float(da) == pytest.approx(np.exp(0.5) * np.sin(1.5))
    assert float(db) == pytest.approx(np.exp(0.5) * np.cos(1.5))


def test_the_command_line_writes_the_target_and_names_it(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import numpy as np\n\ndef f(x):\n    return np.sum(np.arctan(x))\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s", str(src), "--target", "array-api"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "(target array-api)" in proc.stdout.splitlines()[0]
    assert "--target array-api" in proc.stdout.splitlines()[3]
    assert "xp, x = _namespace(x)" in proc.stdout and "xp.atan(x)" in proc.stdout


@pytest.mark.slow
def test_the_dask_benchmark_runs_and_checks_its_numbers():
    """benchmarks/bench_dask.py on a few points: the Dask gradient is NumPy's (it asserts so) and a table comes out."""
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    pytest.importorskip("dask.array", reason="Dask is not installed (pip install -e '.[arrayapi]')")
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import bench_dask
    finally:
        sys.path.pop(0)
    figures = bench_dask.measure(n=4000, chunks=2, workers=2, repeat=1)
    text = bench_dask.table(figures)
    assert "N = 4,000 points" in text and "LocalCluster of 2 processes" in text
    assert all(figures[k] > 0 for k in ("numpy", "array_api_on_numpy", "dask"))
    blocks = bench_dask.measure_blocks(n=4000, chunks=4, workers=2, repeat=1)  # (it asserts NumPy's numbers)
    text = bench_dask.table(blocks)
    assert "4 chunks one after the other" in text and blocks["dask"] > 0 and blocks["numpy"] > 0


def test_numpys_default_dtype_is_written():
    """``np.zeros(n)`` is float64 in NumPy, float32 in PyTorch: the module asks for NumPy's, and a float
    literal where the standard takes an array is a float64 array (``torch.asarray(2.0)`` is float32)."""
    src = "import numpy as np\n\ndef f(x):\n    a = np.zeros(3) + np.ones(3)\n    return np.sum(a * x) + np.sqrt(2.0)\n"
    text = generate(src, "m.py", ["f"], target="array-api").text
    assert "xp.zeros(3, dtype=xp.float64)" in text and "xp.ones(3, dtype=xp.float64)" in text
    assert "xp.asarray(2.0, dtype=xp.float64)" in text
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install -e '.[arrayapi]')")
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed (pip install -e '.[arrayapi]')")
    namespace: dict = {}
    exec(compile(text, "m.py", "exec"), namespace)  # noqa: S102 - the tool's output
    x = np.array([0.1, 0.2, 0.3])
    value, dx = namespace["grad_f"](torch.from_numpy(x))
    assert value.dtype == torch.float64 and dx.dtype == torch.float64
    assert abs(float(value) - (np.sum(x) + np.sqrt(2.0))) < 1e-15  # (float32 would be 1e-7 off)
