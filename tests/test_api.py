"""The Python API: grad, simplegrad, gradsource, gradtape, update, reset, check_grads.

Every gradient is compared with central finite differences of the function itself.
"""

from __future__ import annotations

import copy
import linecache
import traceback
from dataclasses import dataclass

import numpy as np
import pytest

import yota_s2s
from yota_s2s import api, grad, gradsource, gradtape, reset, simplegrad, update
from yota_s2s.assemble import assemble
from yota_s2s.errors import UserError, UserErrors

from .gradcheck import _fd, assert_close, load_module

RNG = np.random.default_rng(7)

# ---------------------------------------------------------------------------- functions under test

SCALE = 0.5


def squash(x):
    return np.tanh(x) * SCALE


def mse(w, x, y):
    return np.mean((squash(x @ w) - y) ** 2)


def scalar_poly(a, b):
    return a**3 * b - 2.0 * a * b**2


@dataclass
class Dense:
    W: np.ndarray
    b: np.ndarray


class TwoLayer:
    def __init__(self, first, second):
        self.first = first
        self.second = second


def dense_apply(layer, x):
    return np.tanh(layer.W @ x + layer.b[:, None])


def two_layer_loss(m, x, y):
    h = dense_apply(m.first, x)
    return np.sum((m.second.W @ h + m.second.b[:, None] - y) ** 2)


def reads_W(m):
    return np.sum(m.W * m.W)


def uses_array(a):
    return np.sum(a * a)


class Regressor:
    def __init__(self, W):
        self.W = W

    def predict(self, x):
        return self.W @ x

    def cost(self, x, y):
        return np.sum((self.predict(x) - y) ** 2)


# ---------------------------------------------------------------------------- finite differences


def _leaves(value, path=()):
    """Paths to the arrays and numbers inside an argument (attributes and list items)."""
    if value is None:
        return
    if isinstance(value, np.ndarray | float | int):
        yield path
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        for k, v in vars(value).items():
            yield from _leaves(v, (*path, k))


def _get(value, path):
    for p in path:
        value = value[p] if isinstance(p, int) else getattr(value, p)
    return value


def _put(value, path, new):
    *head, last = path
    holder = _get(value, head)
    if isinstance(last, int):
        holder[last] = new
    else:
        setattr(holder, last, new)


def numeric_grads(f, args):
    """One numeric gradient per argument; objects give nested dicts of attribute gradients."""
    out = []
    for i, arg in enumerate(args):
        tree: dict = {}
        for path in _leaves(arg):

            def g(v, path=path, i=i):
                moved = copy.deepcopy(list(args))
                if path:
                    _put(moved[i], path, v)
                else:
                    moved[i] = v
                return float(f(*moved))

            numeric = _fd(g, _get(arg, path), 1e-6)
            if not path:
                tree = numeric
                break
            node = tree
            for p in path[:-1]:
                node = node.setdefault(p, {})
            node[path[-1]] = numeric
        out.append(tree)
    return out


def check_against_fd(f, args, grads):
    for i, (analytic, numeric) in enumerate(zip(grads, numeric_grads(f, args), strict=True)):
        assert_close(analytic, numeric, f"{f.__name__} argument {i}")


@pytest.fixture(autouse=True)
def fresh_cache():
    reset()
    yield
    reset()


@pytest.fixture
def count_generate(monkeypatch):
    """How many times the pipeline ran (one per compilation)."""
    calls = []
    real = api.generate

    def counting(*a, **k):
        calls.append(a[2])
        return real(*a, **k)

    monkeypatch.setattr(api, "generate", counting)
    return calls


def two_layer_model():
    return TwoLayer(
        Dense(RNG.standard_normal((4, 3)), RNG.standard_normal(4)),
        Dense(RNG.standard_normal((2, 4)), RNG.standard_normal(2)),
    )


# ---------------------------------------------------------------------------- grad


def test_grad_of_arrays_calling_helpers_matches_finite_differences():
    args = (RNG.standard_normal(3), RNG.standard_normal((5, 3)), RNG.standard_normal(5))
    value, grads = grad(mse, *args)
    assert value == pytest.approx(mse(*args), rel=1e-12)
    assert len(grads) == 3
    check_against_fd(mse, args, grads)


def test_grad_of_scalars():
    value, (da, db) = grad(scalar_poly, 1.5, -0.5)
    assert value == pytest.approx(scalar_poly(1.5, -0.5))
    check_against_fd(scalar_poly, (1.5, -0.5), (da, db))


def test_grad_of_nested_objects_is_nested_dicts():
    m = two_layer_model()
    args = (m, RNG.standard_normal((3, 6)), RNG.standard_normal((2, 6)))
    value, (dm, dx, dy) = grad(two_layer_loss, *args)
    assert value == pytest.approx(two_layer_loss(*args))
    assert set(dm) == {"first", "second"} and set(dm["first"]) == {"W", "b"}
    assert dm["first"]["W"].shape == (4, 3) and dm["second"]["b"].shape == (2,)
    check_against_fd(two_layer_loss, args, (dm, dx, dy))


def test_grad_wrt_returns_only_the_named_gradients():
    args = (RNG.standard_normal(3), RNG.standard_normal((5, 3)), RNG.standard_normal(5))
    _, grads = grad(mse, *args, wrt=["x", "w"])
    full = grad(mse, *args)[1]
    assert len(grads) == 2
    assert np.array_equal(grads[0], full[1]) and np.array_equal(grads[1], full[0])


def test_grad_of_a_bound_method_puts_the_object_first():
    reg = Regressor(RNG.standard_normal((2, 3)))
    x, y = RNG.standard_normal(3), RNG.standard_normal(2)
    value, (dreg, dx, dy) = grad(reg.cost, x, y)
    assert value == pytest.approx(reg.cost(x, y))
    check_against_fd(Regressor.cost, (reg, x, y), (dreg, dx, dy))


def test_grad_of_a_closure_reads_its_numbers():
    def make(k):
        def scaled(x):
            return np.sum(np.sin(x) * k)

        return scaled

    x = RNG.standard_normal(4)
    f = make(3.0)
    value, (dx,) = grad(f, x)
    assert value == pytest.approx(f(x))
    check_against_fd(f, (x,), (dx,))


# ---------------------------------------------------------------------------- caching


def test_grad_compiles_once_per_structure_not_per_shape(count_generate):
    for n in (3, 4, 5):
        grad(uses_array, RNG.standard_normal(n))
    grad(uses_array, 2.0)
    assert len(count_generate) == 1
    grad(reads_W, Dense(np.ones(2), np.zeros(2)))
    grad(reads_W, Dense(np.ones((3, 3)), np.zeros(1)))
    assert len(count_generate) == 2
    grad(uses_array, RNG.standard_normal(3), wrt=["a"])
    assert len(count_generate) == 3


def test_an_object_then_an_array_does_not_reuse_the_wrong_function(count_generate):
    _, (dm,) = grad(reads_W, Dense(np.array([1.0, 2.0]), np.zeros(2)))
    assert dm["W"].tolist() == [2.0, 4.0]
    with pytest.raises(TypeError, match=r"reads_W\(\) reads m\.W, but m is an ndarray with no attribute 'W'"):
        grad(reads_W, np.array([1.0, 2.0]))
    assert len(count_generate) == 2  # the array call was compiled and checked on its own
    # the object structure's function is still the cached one, and still right
    assert grad(reads_W, Dense(np.array([3.0]), np.zeros(1)))[1][0]["W"].tolist() == [6.0]
    assert len(count_generate) == 2
    with pytest.raises(TypeError):  # the failed structure was not cached as if it were fine
        grad(reads_W, np.array([1.0, 2.0]))
    assert len(count_generate) == 3


def test_an_array_then_an_object_is_refused_clearly():
    assert grad(uses_array, np.array([2.0]))[1][0].tolist() == [4.0]
    with pytest.raises(TypeError, match=r"uses_array\(\) uses a as an array, but it is a Dense"):
        grad(uses_array, Dense(np.ones(2), np.ones(2)))


def test_an_object_missing_an_attribute_is_refused():
    class Half:
        def __init__(self):
            self.first = Dense(np.ones((2, 2)), np.zeros(2))

    with pytest.raises(TypeError, match=r"reads m\.second\.W, but m is a Half with no attribute 'second'"):
        grad(two_layer_loss, Half(), np.ones((2, 1)), np.ones((2, 1)))


def test_wrong_number_of_arguments():
    with pytest.raises(TypeError, match=r"takes 3 arguments \(4 given\)"):
        grad(mse, 1.0, 2.0, 3.0, 4.0)
    with pytest.raises(TypeError, match=r"missing the argument 'y'"):
        grad(mse, np.ones(2), np.ones((2, 2)))


def test_simplegrad_is_cached_and_reset_clears(count_generate):
    g = simplegrad(mse)
    assert simplegrad(mse) is g
    assert simplegrad(mse, wrt=["w"]) is not g
    assert len(count_generate) == 2
    args = (RNG.standard_normal(3), RNG.standard_normal((5, 3)), RNG.standard_normal(5))
    _, dw, dx, dy = g(*args)
    check_against_fd(mse, args, (dw, dx, dy))
    grad(mse, *args)
    reset()
    assert api._cache == {}
    assert simplegrad(mse) is not g
    grad(mse, *args)
    assert len(count_generate) == 5


def test_a_redefined_function_is_compiled_again():
    def cell(source, name):
        # a notebook cell: its source is in linecache under the cell's file name
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        namespace = {"np": np}
        exec(compile(source, name, "exec"), namespace)  # noqa: S102 - a notebook cell
        return namespace["f"]

    first = cell("def f(x):\n    return np.sum(x * x)\n", "<cell-a>")
    second = cell("def f(x):\n    return np.sum(3.0 * x)\n", "<cell-b>")
    assert grad(first, np.array([2.0]))[1][0].tolist() == [4.0]
    assert grad(second, np.array([2.0]))[1][0].tolist() == [3.0]


def test_closures_with_different_constants_are_compiled_apart(count_generate):
    def make(k):
        def scaled(x):
            return np.sum(x * k)

        return scaled

    x = np.ones(2)
    assert grad(make(3.0), x)[1][0].tolist() == [3.0, 3.0]
    assert grad(make(2.0), x)[1][0].tolist() == [2.0, 2.0]
    assert grad(make(3.0), x)[1][0].tolist() == [3.0, 3.0]
    assert len(count_generate) == 2


def test_a_notebook_constant_or_helper_changed_later_recompiles(count_generate):
    ns = _notebook_cell(
        "import numpy as np\nK = 2.0\ndef helper(x):\n    return x * K\ndef f(x):\n    return np.sum(helper(x))\n",
        "<cell-k>",
    )
    x = np.ones(2)
    assert grad(ns["f"], x)[1][0].tolist() == [2.0, 2.0]
    assert grad(ns["f"], x)[1][0].tolist() == [2.0, 2.0]
    assert len(count_generate) == 1
    ns["K"] = 5.0  # a later cell sets K
    assert grad(ns["f"], x)[1][0].tolist() == [5.0, 5.0]
    linecache.cache["<cell-h>"] = (0, None, ["def helper(x):\n", "    return x * x\n"], "<cell-h>")
    exec(compile("def helper(x):\n    return x * x\n", "<cell-h>", "exec"), ns)  # noqa: S102 - a later cell
    assert grad(ns["f"], np.array([3.0]))[1][0].tolist() == [6.0]
    assert len(count_generate) == 3


# ---------------------------------------------------------------------------- where the source comes from


def _notebook_cell(source: str, name: str) -> dict:
    """Run ``source`` as IPython runs a cell: compiled under a name that linecache knows."""
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, name, "exec"), namespace)  # noqa: S102 - a notebook cell
    return namespace


def test_notebook_function_calling_helpers_and_constants():
    ns = _notebook_cell(
        "import math\nimport numpy as np\nfrom numpy import exp as e\n"
        "K = np.float64(2.0)\n"
        "def inner(x):\n    return e(x) * K + math.pi\n"
        "def helper(x):\n    return np.sin(inner(x))\n"
        "def loss(x):\n    return np.sum(helper(x) ** 2)\n",
        "<cell-helpers>",
    )
    x = RNG.standard_normal(4)
    value, (dx,) = grad(ns["loss"], x)
    assert value == pytest.approx(ns["loss"](x))
    check_against_fd(ns["loss"], (x,), (dx,))
    text = assemble(ns["loss"], ()).text
    assert "from numpy import exp as e" in text and "K = 2.0" in text and "import math" in text
    # the tape's provenance is the cell's lines, not the assembled module's
    assert "# <cell-helpers>:6  return e(x) * K + math.pi" in gradtape(ns["loss"], "lower")


def test_notebook_function_with_a_method_of_its_argument():
    ns = _notebook_cell(
        "import numpy as np\n"
        "class Model:\n"
        "    def __init__(self, W):\n        self.W = W\n"
        "    def forward(self, x):\n        return self.W @ x\n"
        "def loss(m, x):\n    return np.sum(m.forward(x) ** 2)\n",
        "<cell-method>",
    )
    m, x = ns["Model"](RNG.standard_normal((2, 3))), RNG.standard_normal(3)
    _, (dm, dx) = grad(ns["loss"], m, x)
    check_against_fd(ns["loss"], (m, x), (dm, dx))


def test_notebook_method_found_without_arguments():
    ns = _notebook_cell(
        "import numpy as np\n"
        "class Stats:\n    def sum(self):\n        return 0.0\n"
        "class Net:\n    def __init__(self, W):\n        self.W = W\n"
        "    def forward(self, x):\n        return self.W @ x\n"
        "def loss(m, x):\n    return np.sum(x.sum() * m.forward(x))\n",
        "<cell-nomethod>",
    )
    # simplegrad and gradtape have no argument to tell m's class: Net is the cell's class with forward()
    assert "inp %1 m.W" in gradtape(ns["loss"], "lower")
    assert "class Stats" not in assemble(ns["loss"], ()).text  # x.sum() is NumPy's sum
    m, x = ns["Net"](RNG.standard_normal((2, 3))), RNG.standard_normal(3)
    _, dm, dx = simplegrad(ns["loss"])(m, x)
    check_against_fd(ns["loss"], (m, x), (dm, dx))


def test_function_without_source_is_a_clear_error():
    namespace: dict = {"np": np}
    exec("def f(x):\n    return np.sum(x)\n", namespace)  # noqa: S102 - like the plain python prompt
    with pytest.raises(UserError) as info:
        grad(namespace["f"], np.ones(2))
    assert info.value.code == "YS002" and "typed at the python prompt" in str(info.value)


def test_unsupported_code_in_a_notebook_is_located_in_its_cell():
    ns = _notebook_cell(
        "import numpy as np\n\ndef helper(x):\n    global COUNT\n    return x\n\ndef loss(x):\n    return np.sum(helper(x))\n",
        "<cell-bad>",
    )
    with pytest.raises(UserErrors) as info:
        grad(ns["loss"], np.ones(2))
    (error,) = info.value.errors
    assert (error.code, error.path, error.line, error.col) == ("YS015", "<cell-bad>", 4, 5)
    # the traceback stops at grad(): no frames from inside yota-s2s
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__) if "yota_s2s" in f.filename]
    assert frames == ["grad"]


def test_unsupported_code_in_a_file_is_located_in_the_file(tmp_path):
    path = tmp_path / "userloss.py"
    path.write_text(
        "import numpy as np\n\n\ndef loss(x):\n    for i in range(3):\n        x = x * 2\n        yield x\n"
        "    return np.sum(x)\n"
    )
    module = load_module(path, "userloss_for_api_test")
    with pytest.raises(UserErrors) as info:
        grad(module.loss, np.ones(2))
    (error,) = info.value.errors
    assert (error.code, error.path, error.line, error.col) == ("YS016", str(path), 7, 9)
    assert str(error).splitlines()[1].strip() == "yield x"


@pytest.mark.parametrize("f", [np.sin, max, lambda x: x])
def test_things_that_are_not_def_functions(f):
    with pytest.raises(TypeError, match="'def'"):
        grad(f, 1.0)


# ---------------------------------------------------------------------------- gradsource, gradtape


def test_gradsource_of_a_function_runs_and_matches(tmp_path):
    text = gradsource(mse, wrt=["w"])
    assert text.startswith("# Code generated by yota-s2s")
    assert "--func mse --wrt w" in text
    out = tmp_path / "grad_mse.py"
    out.write_text(text)
    args = (RNG.standard_normal(3), RNG.standard_normal((5, 3)), RNG.standard_normal(5))
    _, dw = load_module(out).grad_mse(*args)
    assert_close(dw, numeric_grads(mse, args)[0], "dw")


def test_gradsource_of_a_path(tmp_path):
    path = tmp_path / "losses.py"
    path.write_text(
        "import numpy as np\n\n\ndef a(x):\n    return np.sum(x)\n\n\ndef b(x):\n    return np.sum(x * x)\n"
    )
    both = gradsource(path)
    assert "def grad_a(x" in both and "def grad_b(x" in both
    only_b = gradsource(str(path), func="b")
    assert "def grad_a" not in only_b and "def grad_b(x" in only_b
    assert gradsource(path, func=["a", "b"]) == both.replace(f"yota-s2s {path}", f"yota-s2s {path} --func a --func b")
    with pytest.raises(UserError, match="YS002"):
        gradsource(tmp_path / "missing.py")
    with pytest.raises(ValueError, match="unknown target 'fortran'"):
        gradsource(path, target="fortran")
    with pytest.raises(TypeError, match="func names functions of a file"):
        gradsource(mse, func="mse")


def test_gradtape_every_stage():
    for stage in ("lower", "primal", "differentiate", "optimize"):
        text = gradtape(mse, stage)
        assert text.startswith("tape mse(w, x, y)\n") and "out %" in text
    assert "tanh" in gradtape(mse, "lower")  # the helper squash() is inlined
    assert "inp %1 w" in gradtape(mse, "differentiate", wrt=["w"])
    with pytest.raises(ValueError, match="unknown stage"):
        gradtape(mse, "parse")


# ---------------------------------------------------------------------------- update


def test_update_nested_objects_in_place():
    m = two_layer_model()
    before = copy.deepcopy(m)
    x, y = RNG.standard_normal((3, 6)), RNG.standard_normal((2, 6))
    _, (dm, _, _) = grad(two_layer_loss, m, x, y)
    assert update(m, dm, lambda w, d: w - 0.1 * d) is None
    for layer in ("first", "second"):
        for attr in ("W", "b"):
            old = getattr(getattr(before, layer), attr)
            new = getattr(getattr(m, layer), attr)
            assert np.allclose(new, old - 0.1 * dm[layer][attr])


def test_update_trains_a_model():
    m = two_layer_model()
    x, y = RNG.standard_normal((3, 20)), RNG.standard_normal((2, 20))
    losses = []
    for _ in range(30):
        value, (dm, _, _) = grad(two_layer_loss, m, x, y)
        losses.append(float(value))
        update(m, dm, lambda w, d: w - 0.01 * d)
    assert losses[-1] < 0.5 * losses[0]


def test_update_skips_none_and_ignored_and_handles_lists_and_dicts():
    class Holder:
        def __init__(self):
            self.layers = [Dense(np.ones(2), np.ones(2)), Dense(np.ones(2), np.ones(2))]
            self.table = {"scale": np.ones(3)}
            self.frozen = np.ones(1)

    h = Holder()
    grads = {
        "layers": [{"W": np.ones(2), "b": None}, {"W": np.full(2, 2.0), "b": np.ones(2)}],
        "table": {"scale": np.full(3, 3.0)},
        "frozen": np.ones(1),
    }
    update(h, grads, lambda w, d: w - d, ignore=["frozen", "layers.1.b"])
    assert h.layers[0].W.tolist() == [0.0, 0.0] and h.layers[0].b.tolist() == [1.0, 1.0]
    assert h.layers[1].W.tolist() == [-1.0, -1.0] and h.layers[1].b.tolist() == [1.0, 1.0]
    assert h.table["scale"].tolist() == [-2.0, -2.0, -2.0]
    assert h.frozen.tolist() == [1.0]


def test_update_an_array_in_place_and_refusals():
    w = np.ones(3)
    alias = w
    update(w, np.full(3, 2.0), lambda x, d: x - 0.5 * d)
    assert alias.tolist() == [0.0, 0.0, 0.0]

    @dataclass(frozen=True)
    class Frozen:
        W: np.ndarray

    with pytest.raises(TypeError, match="cannot set W on a Frozen"):
        update(Frozen(np.ones(2)), {"W": np.ones(2)}, lambda x, d: x - d)
    with pytest.raises(TypeError, match="cannot update a float"):
        update(1.0, 2.0, lambda x, d: x - d)


# ---------------------------------------------------------------------------- exports


def test_lazy_exports():
    assert yota_s2s.grad is grad and yota_s2s.update is update
    assert {"grad", "simplegrad", "gradsource", "gradtape", "update", "reset", "check_grads"} <= set(yota_s2s.__all__)
    with pytest.raises(AttributeError):
        yota_s2s.no_such_name  # noqa: B018


def test_check_grads_is_exported():
    checking = pytest.importorskip("yota_s2s.verify")
    assert yota_s2s.check_grads is checking.check_grads
    args = (RNG.standard_normal(3), RNG.standard_normal((5, 3)), RNG.standard_normal(5))
    yota_s2s.check_grads(mse, simplegrad(mse), args)  # the right gradient passes

    def wrong(w, x, y):
        value, dw, dx, dy = simplegrad(mse)(w, x, y)
        return value, 2.0 * dw, dx, dy

    with pytest.raises(AssertionError):
        yota_s2s.check_grads(mse, wrong, args)
