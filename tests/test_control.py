"""Every corpus function: generate its gradient module, run it, compare with finite differences."""

from __future__ import annotations

import inspect
import subprocess
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.pipeline import generate

from . import corpus_control as corpus
from .gradcheck import assert_close, load_module, numeric_grad

CORPUS = Path(corpus.__file__)
SOURCE = CORPUS.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def generated_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated")


def generated(name: str, folder: Path):
    path = folder / f"grad_{name}.py"
    if not path.exists():
        path.write_text(generate(SOURCE, "tests/corpus_control.py", [name]).text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(corpus.CASES))
def test_gradient_matches_finite_differences(name, generated_dir):
    f = getattr(corpus, name)
    args = corpus.CASES[name](np.random.default_rng(0))
    module = load_module(generated(name, generated_dir))
    value, *grads = getattr(module, f"grad_{name}")(*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    params = list(inspect.signature(f).parameters)
    assert len(grads) == len(params)
    for i, (param, g) in enumerate(zip(params[: len(args)], grads)):
        if param in corpus.NONDIFF.get(name, ()):
            assert g is None, f"{param} has no differentiable path, expected None"
            continue
        assert_close(g, numeric_grad(f, args, i), f"{name}: d{param}")


@pytest.mark.parametrize("name", sorted(corpus.CASES))
def test_gradient_has_the_parameter_shape_and_dtype(name, generated_dir):
    args = corpus.CASES[name](np.random.default_rng(1))
    module = load_module(generated(name, generated_dir))
    _, *grads = getattr(module, f"grad_{name}")(*args)
    for arg, g in zip(args, grads):
        if isinstance(arg, np.ndarray) and g is not None:
            assert g.shape == arg.shape and g.dtype == arg.dtype


def test_generated_corpus_is_ruff_clean(generated_dir):
    paths = [str(generated(name, generated_dir)) for name in sorted(corpus.CASES)]
    proc = subprocess.run(
        ["ruff", "check", "--no-cache", "--isolated", *paths], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_modules_import_only_numpy(generated_dir):
    for name in sorted(corpus.CASES):
        text = generated(name, generated_dir).read_text()
        imports = [line for line in text.splitlines() if line.startswith(("import ", "from "))]
        assert imports in (["import numpy as np"], []), (name, imports)


def test_generation_is_deterministic():
    names = sorted(corpus.CASES)
    assert (
        generate(SOURCE, "tests/corpus_control.py", names).text
        == generate(SOURCE, "tests/corpus_control.py", names).text
    )
