"""``--buffers``: every corpus function's buffered class gives exactly what its plain ``grad_`` gives.

Each case (tests/corpus.py and tests/corpus_control.py) is generated with ``buffers=True``; the
class ``GradNAME`` of the module is called three times (two inputs of the same shapes, where the
second call writes into the buffers the first one allocated, then other shapes when the function
takes them) and compared with ``grad_NAME`` of the same module, bit for bit, and with finite
differences.  The arguments must not change; the returned gradients are the buffers (overwritten by
the next call); an argument that is a returned gradient is read before the buffers are written.
"""

from __future__ import annotations

import copy
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.cli import main
from yota_s2s.codegen.buffered import plain_reason
from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, load_module, numeric_grad
from .test_corpus import CASES, IDS, _path, _source

ROOT = Path(__file__).resolve().parent.parent


def _class(name: str) -> str:
    return "Grad" + "".join(part[:1].upper() + part[1:] for part in f"grad_{name}".split("_")[1:])


@pytest.fixture(scope="module")
def buffered_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("buffered")


def buffered(corpus, name: str, folder: Path) -> Path:
    path = folder / f"grad_{Path(corpus.__file__).stem}_{name}.py"
    if not path.exists():
        path.write_text(generate(_source(corpus), _path(corpus), [name], buffers=True).text, encoding="utf-8")
    return path


class _Larger:
    """A random generator whose arrays have every dimension of 2 or more grown by 2."""

    def __init__(self, rng):
        self.rng = rng

    @staticmethod
    def grow(size):
        if size is None:
            return None
        if isinstance(size, int):
            return size + 2 if size >= 2 else size
        return tuple(d + 2 if d >= 2 else d for d in size)

    def standard_normal(self, size=None):
        return self.rng.standard_normal(self.grow(size))

    def random(self, size=None):
        return self.rng.random(self.grow(size))

    def uniform(self, low=0.0, high=1.0, size=None):
        return self.rng.uniform(low, high, self.grow(size))

    def integers(self, low, high=None, size=None):
        return self.rng.integers(low, high, self.grow(size))


def _other_shapes(corpus, name: str, plain):
    """Arguments of other shapes (every dimension of 2 or more grown by 2), or None when the
    function needs its shapes."""
    larger = corpus.CASES[name](_Larger(np.random.default_rng(2)))
    try:
        getattr(corpus, name)(*copy.deepcopy(larger))
        plain(*copy.deepcopy(larger))
    except Exception:  # noqa: BLE001 - the function needs these shapes
        return None
    return larger


def test_most_corpus_functions_take_other_shapes():
    from . import corpus

    names = [n for c, n in CASES if c is corpus]
    taken = [n for n in names if _other_shapes(corpus, n, getattr(corpus, n)) is not None]
    assert len(taken) >= len(names) - 5, sorted(set(names) - set(taken))


def _same(a, b, what: str) -> None:
    """``a`` and ``b`` are equal, bit for bit (dicts of gradients key by key)."""
    if isinstance(b, dict):
        assert isinstance(a, dict) and a.keys() == b.keys(), what
        for k in b:
            _same(a[k], b[k], f"{what}.{k}")
        return
    if b is None:
        assert a is None, what
        return
    assert type(a) is type(b) or (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)), (what, type(a), type(b))
    assert np.shape(a) == np.shape(b) and np.asarray(a).dtype == np.asarray(b).dtype, what
    np.testing.assert_array_equal(a, b, err_msg=what, strict=False)


def _snapshot(result):
    """A deep copy of a result (the buffered class's arrays are overwritten by its next call)."""
    return copy.deepcopy(result)


@pytest.mark.parametrize(("corpus", "name"), CASES, ids=IDS)
def test_buffered_class_gives_the_plain_results(corpus, name, buffered_dir):
    module = load_module(buffered(corpus, name, buffered_dir))
    plain = getattr(module, f"grad_{name}")
    grad = getattr(module, _class(name))()
    source_f = getattr(corpus, name)
    calls = [corpus.CASES[name](np.random.default_rng(0)), corpus.CASES[name](np.random.default_rng(1))]
    larger = _other_shapes(corpus, name, plain)
    if larger is not None:
        calls.append(larger)
    for n, args in enumerate(calls):
        before = copy.deepcopy(args)
        expected = plain(*copy.deepcopy(args))
        got = _snapshot(grad(*args))
        for a, b in zip(args, before):
            assert not isinstance(a, np.ndarray) or np.array_equal(a, b), f"{name}: call {n} changed an argument"
        assert len(got) == len(expected)
        for i, (g, e) in enumerate(zip(got, expected)):
            _same(g, e, f"{name}: call {n}, output {i}")
    # the same shapes again (the buffers are allocated now), checked against finite differences
    args = calls[1]
    value, *grads = _snapshot(grad(*args))

    def f(*a):
        return source_f(*copy.deepcopy(a))

    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    for i, (param, g) in enumerate(zip(list(inspect.signature(source_f).parameters)[: len(args)], grads)):
        if param not in corpus.NONDIFF.get(name, ()):
            assert_close(g, numeric_grad(f, args, i), f"{name}: d{param}")


def test_buffers_are_reused_and_the_returned_gradients_are_them():
    source = "import numpy as np\n\n\ndef loss(w, x):\n    return np.sum(np.tanh(x @ w) ** 2)\n"
    namespace: dict = {}
    exec(generate(source, "loss.py", buffers=True).text, namespace)  # noqa: S102 - our output
    grad = namespace["GradLoss"]()
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    _, _dw1, dx1 = grad(w, x)
    first = dx1.copy()
    _, _dw2, dx2 = grad(2 * w, x)
    assert dx2 is dx1  # the same buffer: the first call's gradient is overwritten
    assert not np.array_equal(dx1, first)
    _, _, expected = namespace["grad_loss"](2 * w, x)
    np.testing.assert_array_equal(dx2, expected)
    assert len(grad.buffers) == 1
    _, _, dx3 = grad(w[:2], x[:, :2])  # other shapes: a second set of buffers
    assert len(grad.buffers) == 2 and dx3 is not dx1 and dx3.shape == (4, 2)
    np.testing.assert_array_equal(grad(w, x)[2], namespace["grad_loss"](w, x)[2])
    grad.clear()
    assert grad.buffers == {}


def test_a_returned_gradient_passed_back_in_is_read_before_it_is_overwritten():
    source = "import numpy as np\n\n\ndef loss(w, x):\n    return np.sum(np.sin(x * w) * x)\n"
    namespace: dict = {}
    exec(generate(source, "loss.py", buffers=True).text, namespace)  # noqa: S102 - our output
    grad, plain = namespace["GradLoss"](), namespace["grad_loss"]
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal(5), rng.standard_normal(5)
    _, dw, _dx = grad(w, x)
    for arg in (dw, dw[::-1]):  # the buffer itself, and a view of it
        expected = plain(arg.copy(), x)
        got = _snapshot(grad(arg, x))
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g, e)


def test_value_dependent_shapes_keep_the_plain_code():
    source = (
        "import numpy as np\n\n\ndef loss(x):\n    if np.sum(x) > 0:\n        return np.sum(x * x)\n"
        "    return np.sum(np.exp(x))\n"
    )
    text = generate(source, "loss.py", buffers=True).text
    assert "keeps the plain code (its shapes may depend on the values (if))" in text
    assert "        return grad_loss(x)\n" in text
    namespace: dict = {}
    exec(text, namespace)  # noqa: S102 - our output
    x = np.array([1.0, -3.0])
    for g, e in zip(namespace["GradLoss"]()(x), namespace["grad_loss"](x)):
        np.testing.assert_array_equal(g, e)


def test_the_plain_reasons():
    from yota_s2s.codegen.module import write_function
    from yota_s2s.codegen.target import NUMPY
    from yota_s2s.dsl.load import load_rules
    from yota_s2s.frontend.fence import fence
    from yota_s2s.pipeline import _differentiate_one

    def reason(body: str) -> str | None:
        source = f"import numpy as np\n\n\ndef f(x, n):\n{body}"
        tape = _differentiate_one(
            fence(source, "f.py", ["f"]),
            "f",
            load_rules(),
            None,
            {s: [] for s in ("lower", "primal", "differentiate", "optimize")},
        )
        return plain_reason(tape, write_function(tape, load_rules(), NUMPY).lines)

    assert reason("    return np.sum(np.exp(x) * n)\n") is None
    assert reason("    s = 0.0\n    for i in range(n):\n        s = s + np.sum(x * i)\n    return s\n") is None
    assert "mask" in reason("    return np.sum(x[x > 0])\n")
    assert "trip count" in reason(
        "    s = 0.0\n    for i in range(np.argmax(x)):\n        s = s + np.sum(x)\n    return s\n"
    )
    assert reason("    return x[0] * x[1] * x[2]\n") is None  # numbers for a 1-D x, rows of a 2-D x


@pytest.mark.slow
def test_generation_with_buffers_is_deterministic_and_ruff_clean(buffered_dir):
    from . import corpus

    names = sorted(corpus.CASES)
    first = generate(_source(corpus), _path(corpus), names, buffers=True).text
    assert first == generate(_source(corpus), _path(corpus), names, buffers=True).text
    paths = [str(buffered(c, n, buffered_dir)) for c, n in CASES]
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", *paths],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for path in paths:
        imports = [line for line in Path(path).read_text().splitlines() if line.startswith(("import ", "from "))]
        assert imports == ["import numpy as np"], (path, imports)


def test_the_cli_flag(tmp_path, capsys):
    src = tmp_path / "loss.py"
    src.write_text("import numpy as np\n\n\ndef loss(w):\n    return np.sum(np.exp(w) * w)\n")
    out = tmp_path / "grad_loss.py"
    assert main([str(src), "--buffers", "--out", str(out)]) == 0
    text = out.read_text()
    assert "class GradLoss:" in text and "def grad_loss(w" in text
    assert f"# regenerate: yota-s2s {src} --out {out} --buffers" in text
    assert "np.exp(w, out=_b[0])" in text
    assert main([str(src), "--buffers", "--out", str(out), "--check"]) == 0
    assert main([str(src), "--out", str(out), "--check"]) == 1  # without the flag: another module


def test_cupy_target_is_refused_with_a_located_error(tmp_path, capsys):
    src = tmp_path / "loss.py"
    src.write_text("import numpy as np\n\n\ndef loss(w):\n    return np.sum(np.exp(w))\n")
    assert main([str(src), "--buffers", "--target", "cupy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{src}: error: --buffers writes NumPy code only (not --target cupy) (YS043)")
    with pytest.raises(UserError, match="YS043"):
        generate(src.read_text(), str(src), target="cupy", buffers=True)


def test_the_project_config_and_the_api_take_buffers(tmp_path, monkeypatch):
    from yota_s2s.api import gradsource

    (tmp_path / "loss.py").write_text("import numpy as np\n\n\ndef loss(w):\n    return np.sum(np.exp(w) * w)\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.yota-s2s]\n\n[[tool.yota-s2s.generate]]\nsource = "loss.py"\nout = "grad_loss.py"\nbuffers = true\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main([]) == 0
    text = (tmp_path / "grad_loss.py").read_text()
    assert "class GradLoss:" in text and "# regenerate: yota-s2s loss.py --out grad_loss.py --buffers" in text
    assert "class GradLoss:" in gradsource(tmp_path / "loss.py", buffers=True)
    assert "class GradLoss:" not in gradsource(tmp_path / "loss.py")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.yota-s2s]\n\n[[tool.yota-s2s.generate]]\nsource = "loss.py"\nout = "grad_loss.py"\nbuffers = "yes"\n'
    )
    assert main([]) == 2


def test_results_whose_lives_do_not_overlap_share_an_array():
    source = (ROOT / "examples/logistic.py").read_text()
    namespace: dict = {}
    exec(generate(source, "logistic.py", wrt=["w", "b"], buffers=True).text, namespace)  # noqa: S102 - our output
    grad, plain = namespace["GradLoss"](), namespace["grad_loss"]
    rng = np.random.default_rng(0)
    for _ in range(3):
        w, b, X = rng.standard_normal(3), 0.3, rng.standard_normal((50, 3))
        y = (rng.random(50) > 0.5).astype(float)
        for g, e in zip(_snapshot(grad(w, b, X, y)), plain(w, b, X, y)):
            np.testing.assert_array_equal(g, e)
    (buffers,) = grad.buffers.values()
    arrays = [a for a in buffers if a is not None]
    distinct = {id(a) for a in arrays}
    assert len(arrays) == 23 and len(distinct) == 11, (len(arrays), len(distinct))
    assert list(grad.owners.values()) == [distinct]


def test_a_result_read_through_an_alias_keeps_its_array():
    """``_unbroadcast(g, x)`` returns ``g`` itself when the shapes agree: ``g``'s array lives as
    long as the name that may hold it."""
    source = "import numpy as np\n\n\ndef loss(a, b):\n    c = np.exp(a) + b\n    return np.sum(c * np.sin(c))\n"
    text = generate(source, "loss.py", buffers=True).text
    namespace: dict = {}
    exec(text, namespace)  # noqa: S102 - our output
    grad, plain = namespace["GradLoss"](), namespace["grad_loss"]
    rng = np.random.default_rng(1)
    for shapes in [((4, 3), (3,)), ((4, 3), (3,)), ((2, 5), (2, 5))]:
        a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
        for g, e in zip(_snapshot(grad(a, b)), plain(a, b)):
            np.testing.assert_array_equal(g, e)


def test_a_function_that_needs_no_numpy_still_imports_it_for_its_class():
    """``grad_f`` of ``x + x`` reads no NumPy name (``2 * x``, and a constant gradient), but its
    class calls ``np.multiply(..., out=)`` and the runtime helpers read ``np.ndarray``: the module
    imports NumPy (found by the fuzzer: NameError at the first call)."""
    source = "def f(x):\n    t1 = x\n    return x + t1\n"
    text = generate(source, "f.py", buffers=True).text
    assert "import numpy as np\n" in text
    namespace: dict = {}
    exec(text, namespace)  # noqa: S102 - our output
    grad, plain = namespace["GradF"](), namespace["grad_f"]

    def f(x):
        return x + x

    for x in (0.7, -1.5, np.float64(2.0), np.array(0.25)):
        got = _snapshot(grad(x))
        for g, e in zip(got, plain(x)):
            np.testing.assert_array_equal(g, e)
        assert np.allclose(got[0], f(x))
        assert_close(got[1], numeric_grad(f, [x], 0), "dx")
