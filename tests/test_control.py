"""Every corpus function: generate its gradient module, run it, compare with finite differences."""

from __future__ import annotations

import copy
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
    source_f = getattr(corpus, name)

    def f(*a):  # some functions write into their arguments (gauss_seidel): each call gets copies
        return source_f(*copy.deepcopy(a))

    args = corpus.CASES[name](np.random.default_rng(0))
    before = copy.deepcopy(args)
    module = load_module(generated(name, generated_dir))
    value, *grads = getattr(module, f"grad_{name}")(*args)
    for a, b in zip(args, before):  # the generated gradient never writes into the caller's data
        assert not isinstance(a, np.ndarray) or np.array_equal(a, b), f"{name} changed an argument"
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    params = list(inspect.signature(source_f).parameters)
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


def test_a_loop_stays_a_loop_whatever_the_trip_count():
    """The output of a 10-step and a 1000-step rollout differ only in the bound."""
    small = generate(SOURCE, "tests/corpus_control.py", ["euler_10"]).text.split("def grad_euler_10")[1]
    large = generate(SOURCE, "tests/corpus_control.py", ["euler_1000"]).text.split("def grad_euler_1000")[1]
    assert len(small.splitlines()) == len(large.splitlines())
    assert small.replace("10", "N").replace("euler_N", "e") == large.replace("1000", "N").replace("euler_N", "e")
    assert "for _ in range(10):" in small and "for _ in reversed(range(1000)):" in large.replace("__1", "_")


def test_a_branch_records_the_taken_side_and_the_backward_sweep_follows_it():
    text = generate(SOURCE, "tests/corpus_control.py", ["branch_sign"]).text
    body = text.split("def grad_branch_sign")[1]
    assert body.count("if _t1:") == 2 or body.count("if np.sum(x) > 0:") == 1, body
    code = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))
    assert code.count("np.exp(") == 1  # the backward branch reuses the forward exp


def test_a_while_loop_is_replayed_from_its_stack():
    text = generate(SOURCE, "tests/corpus_control.py", ["newton_sqrt"]).text
    assert "while np.max(np.abs(" in text and "while _stack:" in text


@pytest.mark.parametrize(
    ("source", "code", "line", "col"),
    [
        (
            "def f(x):\n    for i in range(3):\n        x = x + 1\n    else:\n        x = 0\n    return x\n",
            "YS011",
            2,
            5,
        ),
        ("def f(x):\n    while x > 1:\n        x = x / 2\n    else:\n        x = 0\n    return x\n", "YS011", 2, 5),
        (
            "def f(x, y):\n    s = 0.0\n    for a, b in zip(x, y):\n        s = s + a * b\n    return s\n",
            "YS011",
            3,
            17,
        ),
        (
            "def f(x, W1):\n    for W in (W1, W1):\n        if x > 0:\n            break\n        x = W @ x\n    return x\n",
            "YS011",
            2,
            5,
        ),
        ("def f(x):\n    for i in range(3):\n        return\n    return x\n", "YS021", 3, 9),
    ],
)
def test_unsupported_loop_forms_are_located_errors(source, code, line, col):
    from yota_s2s.errors import UserError, UserErrors

    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, "t.py", ["f"])
    errors = getattr(info.value, "errors", [info.value])
    assert (errors[0].code, errors[0].line, errors[0].col) == (code, line, col)
