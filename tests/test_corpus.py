"""Every corpus function (tests/corpus.py: straight-line code; tests/corpus_control.py: loops,
branches, writes into arrays): generate its gradient module, run it, compare with finite differences."""

from __future__ import annotations

import copy
import inspect
import subprocess
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.pipeline import generate

from . import corpus as corpus_plain
from . import corpus_control
from .gradcheck import assert_close, load_module, numeric_grad

CORPORA = [corpus_plain, corpus_control]
CASES = [(c, name) for c in CORPORA for name in sorted(c.CASES)]
IDS = [f"{c.__name__.rsplit('.', 1)[-1]}::{name}" for c, name in CASES]


def _path(corpus) -> str:
    return "tests/" + Path(corpus.__file__).name


def _source(corpus) -> str:
    return Path(corpus.__file__).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def generated_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated")


def generated(corpus, name: str, folder: Path, value: bool = True):
    path = folder / f"grad_{Path(corpus.__file__).stem}_{name}{'' if value else '_no_value'}.py"
    if not path.exists():
        path.write_text(generate(_source(corpus), _path(corpus), [name], value=value).text, encoding="utf-8")
    return path


def run_generated(corpus, name: str, folder: Path, args: tuple, value: bool = True) -> tuple[object, list]:
    """``(value, gradients)`` of the generated ``grad_NAME``; the value is None for the ``--no-value`` form."""
    result = getattr(load_module(generated(corpus, name, folder, value)), f"grad_{name}")(*args)
    assert isinstance(result, tuple)
    return (result[0], list(result[1:])) if value else (None, list(result))


@pytest.mark.parametrize("value", [True, False], ids=["value", "no_value"])
@pytest.mark.parametrize(("corpus", "name"), CASES, ids=IDS)
def test_gradient_matches_finite_differences(corpus, name, value, generated_dir):
    """Both forms (``--no-value`` returns only the gradients) against central differences."""
    source_f = getattr(corpus, name)

    def f(*a):  # some functions write into their arguments (gauss_seidel): each call gets copies
        return source_f(*copy.deepcopy(a))

    args = corpus.CASES[name](np.random.default_rng(0))
    before = copy.deepcopy(args)
    got, grads = run_generated(corpus, name, generated_dir, args, value)
    for a, b in zip(args, before):  # the generated gradient never writes into the caller's data
        assert not isinstance(a, np.ndarray) or np.array_equal(a, b), f"{name} changed an argument"
    if value:
        assert np.allclose(got, f(*args), rtol=1e-12, atol=1e-12)
    params = list(inspect.signature(source_f).parameters)
    assert len(grads) == len(params)
    for i, (param, g) in enumerate(zip(params[: len(args)], grads)):
        if param in corpus.NONDIFF.get(name, ()):
            assert g is None, f"{param} has no differentiable path, expected None"
            continue
        assert_close(g, numeric_grad(f, args, i), f"{name}: d{param}")


@pytest.mark.parametrize(("corpus", "name"), CASES, ids=IDS)
def test_gradient_has_the_parameter_shape_and_dtype(corpus, name, generated_dir):
    args = corpus.CASES[name](np.random.default_rng(1))
    _, grads = run_generated(corpus, name, generated_dir, args)
    _, only = run_generated(corpus, name, generated_dir, args, value=False)
    for arg, g, g_only in zip(args, grads, only):
        if isinstance(arg, np.ndarray) and g is not None:
            assert g.shape == arg.shape and g.dtype == arg.dtype
            # the --no-value form computes the same gradients (it only drops the value's own work)
            assert g_only.shape == g.shape and g_only.dtype == g.dtype
            assert np.allclose(g_only, g, rtol=1e-13, atol=0.0)


@pytest.mark.slow
def test_generated_corpus_is_ruff_clean(generated_dir):
    paths = [str(generated(corpus, name, generated_dir, value)) for corpus, name in CASES for value in (True, False)]
    proc = subprocess.run(
        ["ruff", "check", "--no-cache", "--isolated", *paths], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_modules_import_only_numpy(generated_dir):
    for corpus, name in CASES:
        text = generated(corpus, name, generated_dir).read_text()
        imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
        assert imports in (["import numpy as np"], []), (name, imports)


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.__name__.rsplit(".", 1)[-1])
def test_generation_is_deterministic(corpus):
    names = sorted(corpus.CASES)
    first = generate(_source(corpus), _path(corpus), names).text
    assert first == generate(_source(corpus), _path(corpus), names).text
