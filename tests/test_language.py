"""The Python that real programs use (issue 4, besides loops and branches).

Each case is a small project written to a temporary folder: the pipeline generates the
gradient module, the test runs it and compares every gradient with central finite
differences of the user's own function (imported from the folder).  Objects are
perturbed attribute by attribute, through lists of objects.  Every refusal is checked
for its code, line and column.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.errors import CODES, UserError, UserErrors
from yota_s2s.pipeline import generate

from .gradcheck import _fd

# ----------------------------------------------------------------------------- the project files

PHYSICS = """
import numpy as xp

G = 0.5


def potential(r):
    return G * xp.sum(r * r)


def energy(x, k=2.0):
    return k * potential(x) + xp.sum(xp.cos(x))
"""

CASES: dict[str, tuple[str, object]] = {}


def case(name: str, source: str, args):
    CASES[name] = (textwrap.dedent(source), args)


def arrays(*shapes):
    return lambda rng: [rng.normal(size=s) for s in shapes]


case(
    "lambda_bound",
    """
    import numpy as np

    def f(x):
        sq = lambda t: t * t
        return np.sum(sq(x)) + np.sum(sq(np.sin(x)))
    """,
    arrays((4,)),
)
case(
    "lambda_closure",
    """
    import numpy as np

    def f(x, w):
        act = lambda t, scale=2.0: scale * np.tanh(w * t)
        return np.sum(act(x)) + np.sum(act(x, scale=0.5) ** 2)
    """,
    arrays((3,), ()),
)
case(
    "lambda_module_level",
    """
    import numpy as np

    softplus = lambda t: np.log1p(np.exp(t))

    def f(x):
        return np.sum(softplus(x) * x)
    """,
    arrays((5,)),
)
case(
    "listcomp_range",
    """
    import numpy as np

    def f(x, w):
        ys = [w * x[i] for i in range(3)]
        return sum(ys) + ys[0] * ys[2]
    """,
    arrays((3,), ()),
)
case(
    "listcomp_over_names",
    """
    import numpy as np

    def f(a, b, c):
        norms = [np.sum(p * p) for p in (a, b, c)]
        return norms[0] * norms[1] + np.sqrt(norms[2])
    """,
    arrays((2,), (3,), (2, 2)),
)
case(
    "genexp_in_sum",
    """
    import numpy as np

    def f(x):
        return sum(np.sin(x[i]) * x[i + 1] for i in range(4))
    """,
    arrays((5,)),
)
case(
    "comprehension_zip_enumerate",
    """
    import numpy as np

    def f(a, b):
        pairs = [np.sum(p * q) for p, q in zip((a, b), (b, a))]
        weighted = [k * np.sum(v) for k, v in enumerate((a, b, a * b))]
        return sum(pairs) + sum(weighted)
    """,
    arrays((3,), (3,)),
)
case(
    "comprehension_stacked",
    """
    import numpy as np

    def f(x):
        rows = np.array([x * k for k in (1.0, 2.0, 3.0)])
        return np.sum(np.tanh(rows) @ x)
    """,
    arrays((3,)),
)
case(
    "comprehension_with_static_condition",
    """
    import numpy as np

    def f(x):
        return sum(x[i] ** 2 for i in range(6) if i != 3)
    """,
    arrays((6,)),
)
case(
    "args_forwarding",
    """
    import numpy as np

    def g(a, b, c=1.0):
        return a * b + c

    def h(*xs):
        return g(*xs)

    def f(x, y):
        return np.sum(h(x, y)) + np.sum(h(x, y, np.exp(y)))
    """,
    arrays((3,), (3,)),
)
case(
    "starred_tuple_argument",
    """
    import numpy as np

    def dist(a, b):
        return np.sqrt(np.sum((a - b) ** 2))

    def f(x, y):
        pair = (x, y)
        return dist(*pair) + dist(*(y, 2.0 * x))
    """,
    arrays((3,), (3,)),
)
case(
    "keywords_and_defaults",
    """
    import numpy as np

    def layer(x, w, *, bias=0.0, scale=1.0):
        return scale * np.tanh(x * w + bias)

    def f(x, w, b):
        return np.sum(layer(x, w)) + np.sum(layer(x, w=w, bias=b, scale=3.0))
    """,
    arrays((4,), (4,), ()),
)
case(
    "tuples_from_helpers",
    """
    import numpy as np

    def polar(x, y):
        r = np.sqrt(x * x + y * y)
        return r, np.arctan2(y, x)

    def f(x, y):
        r, theta = polar(x, y)
        (a, b), c = polar(r, theta), r
        return np.sum(a * np.cos(b)) + np.sum(c)
    """,
    lambda rng: [rng.uniform(0.5, 1.5, size=3), rng.uniform(0.5, 1.5, size=3)],
)
case(
    "constants",
    """
    import math
    import numpy as np

    SCALE = 0.25
    WEIGHTS = (1.0, -2.0, 0.5)

    def f(x):
        half = SCALE * 2
        terms = [w * np.sum(x ** (k + 1)) for k, w in enumerate(WEIGHTS)]
        return half * sum(terms) + math.pi * np.sum(x)
    """,
    arrays((3,)),
)

MODEL = """
import numpy as np
from dataclasses import dataclass


@dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray

    def forward(self, x):
        return self.W @ x + self.b


@dataclass
class MLP:
    layers: list[Linear]
    scale: float

    def forward(self, x):
        h = np.tanh(self.layers[0].forward(x))
        return self.scale * self.layers[1].forward(h)
"""


def mlp_args(rng):
    ns: dict = {}
    exec(MODEL, ns)  # noqa: S102 - the test's own source
    layers = [
        ns["Linear"](rng.normal(size=(3, 2)), rng.normal(size=3)),
        ns["Linear"](rng.normal(size=(1, 3)), rng.normal(size=1)),
    ]
    return [ns["MLP"](layers, 0.7), rng.normal(size=2)]


case(
    "object_list_of_layers",
    MODEL
    + """

def loss(m: MLP, x):
    return np.sum(m.forward(x) ** 2) + 0.1 * np.sum(m.layers[0].W ** 2)
""",
    mlp_args,
)

TWO_LAYER = """
import numpy as np


class Dense:
    def __init__(self, W):
        self.W = W

    def forward(self, x):
        return np.tanh(self.W @ x)


class Net:
    def __init__(self, W1, W2):
        self.layer1 = Dense(W1)
        self.layer2 = Dense(W2)

    def forward(self, x):
        return self.layer2.forward(self.layer1.forward(x))

    def loss(self, x, y):
        return np.sum((self.forward(x) - y) ** 2)
"""


def net_args(rng):
    ns: dict = {}
    exec(TWO_LAYER, ns)  # noqa: S102 - the test's own source
    return [ns["Net"](rng.normal(size=(3, 2)), rng.normal(size=(2, 3))), rng.normal(size=2), rng.normal(size=2)]


case(
    "methods_calling_methods",
    TWO_LAYER
    + """

def loss(net: Net, x, y):
    return net.loss(x, y)
""",
    net_args,
)
case(
    "local_array_writes",
    """
    import numpy as np

    def f(x):
        a = np.zeros(3)
        a[0] = x[0] * 2.0
        a[1] = np.sin(x[1])
        a[2] = a[0] * x[2]
        return np.sum(a * a)
    """,
    arrays((3,)),
)
case(
    "local_array_slices",
    """
    import numpy as np

    def f(x, y):
        m = np.zeros((3, 4))
        m[:, 0] = x
        m[1, 1:3] = y * y
        m[2] = np.exp(x[0])
        return np.sum(np.tanh(m) @ np.ones(4))
    """,
    arrays((3,), (2,)),
)
case(
    "write_after_read_copies",
    """
    import numpy as np

    def f(x):
        a = x * 1.5
        b = a * a
        a[1] = np.cos(x[0])
        return np.sum(a * b)
    """,
    arrays((3,)),
)
case(
    "write_into_a_copy",
    """
    import numpy as np

    def f(x):
        y = x.copy()
        y[0] = y[0] * y[1]
        y[2] += 3.0 * y[0]
        return np.sum(y ** 3)
    """,
    arrays((3,)),
)
case(
    "gauss_seidel_into_parameter",
    """
    import numpy as np

    def sweep(u, b):
        u[1] = 0.5 * (u[0] + u[2]) + b[1]
        u[2] = 0.5 * (u[1] + u[3]) + b[2]
        u[1] += 0.1 * u[2]
        return np.sum(u * u)
    """,
    arrays((4,), (4,)),
)
case(
    "loop_builds_a_local_array",
    """
    import numpy as np

    def f(x, n=4):
        a = np.zeros(n)
        for i in range(n):
            a[i] = np.sin(x[i]) * x[0]
        a[1:3] += x[:2] ** 2
        return np.sum(a * a)
    """,
    arrays((4,)),
)
case(
    "gauss_seidel_loop_into_parameter",
    """
    import numpy as np

    def sweep(u, b):
        for k in range(3):
            for i in range(1, len(u) - 1):
                u[i] = 0.5 * (u[i - 1] + u[i + 1]) + b[i]
        return np.sum(u * u)
    """,
    arrays((5,), (5,)),
)
case(
    "list_of_values_written",
    """
    import numpy as np

    def f(x, y):
        parts = [x, y]
        parts[1] = parts[0] * y
        return np.sum(np.stack(parts) ** 2)
    """,
    arrays((3,), (3,)),
)

case(
    "list_of_objects_parameter",
    MODEL
    + """

def loss(layers: list[Linear], x):
    h = x
    for_each = [0, 1]
    h = np.tanh(layers[for_each[0]].forward(h))
    return np.sum(layers[1].forward(h) ** 2) + np.sum(layers[0].b)
""",
    lambda rng: [mlp_args(rng)[0].layers, rng.normal(size=2)],
)
case(
    "args_length",
    """
    import numpy as np

    def mean_of(*xs):
        return sum(xs) / len(xs)

    def f(a, b, c):
        return np.sum(mean_of(a, b, c) ** 2) + np.sum(mean_of(a * b))
    """,
    arrays((3,), (3,), (3,)),
)

PROJECT_FILES = {"physics.py": PHYSICS, "__init__.py": ""}
case(
    "import_from_sibling",
    """
    import numpy as np
    from physics import energy

    def f(x):
        return energy(x) + energy(x * x, k=0.5)
    """,
    arrays((4,)),
)
case(
    "import_relative",
    """
    import numpy as np

    from .physics import G, energy as e

    def f(x):
        return G * e(np.tanh(x))
    """,
    arrays((3,)),
)
case(
    "import_relative_module",
    """
    from . import physics

    def f(x):
        return physics.energy(x, 3.0)
    """,
    arrays((3,)),
)
case(
    "import_module",
    """
    import numpy as np

    import physics

    def f(x):
        return physics.energy(x) * physics.G + physics.potential(2.0 * x)
    """,
    arrays((3,)),
)


# ----------------------------------------------------------------------------- the checks


def write_project(folder: Path, source: str) -> Path:
    pkg = folder / "proj"
    pkg.mkdir(exist_ok=True)
    for name, text in PROJECT_FILES.items():
        (pkg / name).write_text(textwrap.dedent(text), encoding="utf-8")
    path = pkg / "user.py"
    path.write_text(source, encoding="utf-8")
    return path


def import_user(folder: Path):
    for entry in (str(folder), str(folder / "proj")):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    for name in ("proj.user", "proj.physics", "proj", "physics"):
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module("proj.user")


def leaves(value, path=()):
    """(path, array) for every float leaf of an argument: arrays, numbers, objects, lists of them."""
    if isinstance(value, (np.ndarray, float)):
        yield path, value
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))
    elif isinstance(value, dict):  # a dict parameter: params["W1"]
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    elif hasattr(value, "__dict__"):
        for k, v in vars(value).items():
            yield from leaves(v, (*path, k))


def replaced(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, list | tuple):
        items = list(value)
        items[head] = replaced(items[head], rest, new)
        return type(value)(items)
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    obj = copy.copy(value)
    setattr(obj, head, replaced(getattr(value, head), rest, new))
    return obj


def pick(grad, path):
    for part in path:
        if grad is None:
            return None
        if isinstance(grad, list | tuple) and isinstance(part, int):  # a list parameter's: a list
            grad = grad[part] if -len(grad) <= part < len(grad) else None
        else:
            grad = grad.get(part) if isinstance(grad, dict) else None
    return grad


def check_gradient(f, args, grads):
    for i, arg in enumerate(args):
        for path, value in leaves(arg):

            def g(v, i=i, path=path):
                new = copy.deepcopy(args)  # a function that writes into its arguments gets fresh ones
                new[i] = replaced(new[i], path, np.array(v, copy=True) if isinstance(v, np.ndarray) else v)
                return float(np.asarray(f(*new)))

            numeric = _fd(g, value, 1e-6)
            analytic = pick(grads[i], path)
            where = f"d{i}{list(path)}"
            if analytic is None:
                assert np.allclose(numeric, 0.0, atol=1e-6), f"{where}: missing, numeric {numeric}"
                continue
            assert np.shape(analytic) == np.shape(numeric), f"{where}: shape {np.shape(analytic)}"
            assert np.allclose(analytic, numeric, rtol=1e-5, atol=1e-6), f"{where}: {analytic} != {numeric}"


def generated_function(path: Path, name: str):
    text = generate(path.read_text(encoding="utf-8"), str(path), [name]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    return text, namespace[f"grad_{name}"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, tmp_path):
    source, make_args = CASES[name]
    path = write_project(tmp_path, source)
    user = import_user(tmp_path)
    fname = "loss" if hasattr(user, "loss") else "sweep" if hasattr(user, "sweep") else "f"
    f = getattr(user, fname)
    text, grad = generated_function(path, fname)
    args = make_args(np.random.default_rng(0))
    before = copy.deepcopy(args)
    value, *grads = grad(*args)
    for a, b in zip(args, before):  # the generated code never changes the caller's data
        for (_, x), (_, y) in zip(leaves(a), leaves(b)):
            assert np.array_equal(x, y)
    assert np.allclose(value, f(*copy.deepcopy(args)), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)
    assert "yota_s2s" not in text


def test_object_gradient_is_a_tree_keyed_like_the_object(tmp_path):
    source, make_args = CASES["object_list_of_layers"]
    path = write_project(tmp_path, source)
    text, grad = generated_function(path, "loss")
    _, dm, _dx = grad(*make_args(np.random.default_rng(0)))
    assert sorted(dm) == ["layers", "scale"]
    assert sorted(dm["layers"]) == [0, 1] and sorted(dm["layers"][0]) == ["W", "b"]
    assert "m_layers_0_W = m.layers[0].W" in text


def test_method_of_the_annotated_class_is_chosen(tmp_path):
    source, _ = CASES["methods_calling_methods"]
    text, _ = generated_function(write_project(tmp_path, source), "loss")
    assert "net_layer1_W = net.layer1.W" in text and "(in forward)" in text


def test_writes_are_in_place_when_the_old_value_is_dead(tmp_path):
    text, _ = generated_function(write_project(tmp_path, CASES["local_array_writes"][0]), "f")
    forward = text.split("# backward")[0]
    assert "a = np.zeros(3)" in forward and "a[0] = " in forward and "a[1] = " in forward
    # a[0] is read before a[2] is written: that write works on a copy
    assert "a_1 = a.copy()" in forward and "a_1[2] = " in forward


def test_write_into_a_parameter_copies_it(tmp_path):
    text, _grad = generated_function(write_project(tmp_path, CASES["gauss_seidel_into_parameter"][0]), "sweep")
    assert "u_1 = u.copy()" in text
    assert not re.search(r"^\s*u\[.*\] =", text, re.MULTILINE)


def test_helper_from_another_file_uses_its_own_names(tmp_path):
    text, _ = generated_function(write_project(tmp_path, CASES["import_from_sibling"][0]), "f")
    assert "(in energy)" in text and "(in potential)" in text
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert not any("physics" in line or "xp." in line for line in code)


WARN = "import numpy as np\n\n\ndef sweep(u):\n    u[1] = 0.5 * (u[0] + u[2])\n    return np.sum(u * u)\n"


def test_cli_warns_about_a_write_into_an_argument(tmp_path):
    (tmp_path / "gs.py").write_text(WARN, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "yota_s2s", "gs.py", "--out", "grad_gs.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0
    first = out.stderr.splitlines()[0]
    assert first == (
        "gs.py:5:5: warning: sweep() writes into its argument u; the gradient is of the values on entry "
        "and the generated code never changes the caller's array (YS051)"
    )
    assert (tmp_path / "grad_gs.py").exists()


# ----------------------------------------------------------------------------- refusals

REFUSALS: dict[str, tuple[str, tuple[str, int, int]]] = {
    "generator": ("def f(x):\n    yield x * x\n    return x\n", ("YS016", 2, 5)),
    "recursion": ("def f(x):\n    return g(x)\n\n\ndef g(x):\n    return x * f(x)\n", ("YS035", 6, 16)),
    "self recursion": ("def f(x):\n    y = x * 2.0\n    return f(y)\n", ("YS035", 3, 12)),
    "global": ("S = 1.0\n\n\ndef f(x):\n    global S\n    S = 2.0\n    return x * S\n", ("YS015", 5, 5)),
    "nonlocal": ("def f(x):\n    nonlocal x\n    return x\n", ("YS015", 2, 5)),
    "attribute write": ("def f(m, x):\n    m.W = x\n    return x * m.W\n", ("YS042", 2, 5)),
    "self mutation in a method": (
        (
            "class C:\n    def step(self, x):\n        self.count += 1\n        return x * self.W\n\n\n"
            "def f(c, x):\n    return c.step(x)\n"
        ),
        ("YS042", 3, 9),
    ),
    "write into an attribute's array": ("def f(m, x):\n    m.W[0] = x\n    return m.W[0]\n", ("YS042", 2, 5)),
    "open": ("def f(x):\n    s = open('w.txt')\n    return x\n", ("YS038", 2, 9)),
    "input": ("def f(x):\n    return x * float(input())\n", ("YS038", 2, 22)),
    "with": (  # (try is served since issue 37's fifth round: the path on which nothing raises)
        "import numpy as np\n\n\ndef f(x):\n    with np.errstate(all='ignore'):\n        y = x * x\n    return y\n",
        ("YS013", 5, 5),
    ),
    "eval": ("def f(x):\n    return eval('x * x')\n", ("YS039", 2, 12)),
    "exec": ("def f(x):\n    exec('y = 1')\n    return x\n", ("YS039", 2, 5)),
    "async def": ("async def f(x):\n    return x\n", ("YS037", 1, 1)),
    "await": ("def f(x):\n    y = await x\n    return y\n", ("YS037", 2, 9)),
    "unreachable without rule": (
        "from mylib import smooth\n\n\ndef f(x):\n    return smooth(x) * 2.0\n",
        ("YS031", 5, 12),
    ),
    # (a comprehension over an array's rows or range(n) is served: the loop it stands for,
    # tests/test_plain_python_sizes.py)
    "starred array": ("def g(a, b):\n    return a * b\n\n\ndef f(x):\n    return g(*x)\n", ("YS041", 6, 14)),
    "write shared by another name": (
        "def f(x):\n    y = x * 2.0\n    z = y\n    y[0] = 1.0\n    return z[0]\n",
        ("YS017", 4, 5),
    ),
    "write into a view": ("def f(x):\n    y = x[1:]\n    y[0] = 1.0\n    return y[0]\n", ("YS017", 3, 5)),
    "write into a helper's argument": (
        "def g(a):\n    a[0] = 1.0\n    return a\n\n\ndef f(x):\n    y = x * 2.0\n    z = g(y)\n    return y[0] * z[1]\n",
        ("YS017", 2, 5),
    ),
    "entry with *args": ("def f(*xs):\n    return xs[0]\n", ("YS010", 1, 1)),
}


def refusal(source: str, tmp_path: Path) -> UserError:
    path = tmp_path / "t.py"
    path.write_text(source, encoding="utf-8")
    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, str(path), ["f"] if "def f(" in source else None)
    err = info.value
    return err.errors[0] if isinstance(err, UserErrors) else err


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusal_has_its_own_code_and_location(name, tmp_path):
    source, expected = REFUSALS[name]
    err = refusal(source, tmp_path)
    assert (err.code, err.line, err.col) == expected, err.format()
    assert err.code in CODES


def test_unreachable_function_message_shows_the_rule_to_write(tmp_path):
    err = refusal(REFUSALS["unreachable without rule"][0], tmp_path)
    assert "mylib.smooth()" in err.message and "@diffrule(names=['mylib.smooth'])" in err.message


def test_refused_helper_in_another_file_is_located_there(tmp_path):
    (tmp_path / "helpers.py").write_text("def h(x):\n    global G\n    return x * x\n", encoding="utf-8")
    source = "from helpers import h\n\n\ndef f(x):\n    return h(x) * 2.0\n"
    err = refusal(source, tmp_path)
    assert (err.code, Path(err.path).name, err.line, err.col) == ("YS015", "helpers.py", 2, 5)


def test_each_refusal_kind_has_its_own_code():
    kinds = {
        "generator": "YS016",
        "recursion": "YS035",
        "global": "YS015",
        "attribute write": "YS042",
        "open": "YS038",
        "with": "YS013",
        "eval": "YS039",
        "async def": "YS037",
        "unreachable without rule": "YS031",
    }
    assert len(set(kinds.values())) == len(kinds)
    for name, code in kinds.items():
        assert REFUSALS[name][1][0] == code


def test_dataclass_instances_are_objects():
    assert dataclasses.is_dataclass(mlp_args(np.random.default_rng(0))[0])


def test_write_at_a_computed_index(tmp_path):
    source = (
        "import numpy as np\n\n\ndef f(x, i):\n    a = np.zeros(3)\n    a[i] = x[0] * x[1]\n    return np.sum(a * x)\n"
    )
    path = tmp_path / "t.py"
    path.write_text(source, encoding="utf-8")
    text, grad = generated_function(path, "f")
    assert "a[i] = " in text
    x = np.array([0.5, -1.5, 2.0])
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    for i in range(3):
        value, dx, _ = grad(x, i)
        assert np.isclose(value, user["f"](x, i))
        check_gradient(lambda v, i=i: user["f"](v, i), [x], [dx])


def test_the_interpreter_runs_setindex_like_the_generated_code():
    from yota_s2s.codegen.interp import evaluate
    from yota_s2s.dsl.load import load_rules
    from yota_s2s.frontend.fence import fence
    from yota_s2s.frontend.lower import lower

    source = "import numpy as np\n\n\ndef f(x):\n    y = x * 2.0\n    y[1:] = np.sin(x[:2])\n    return np.sum(y * y)\n"
    table = load_rules()
    tape = lower(fence(source, "t.py"), "f", table)
    x = np.array([0.3, -0.2, 0.9])
    y = x * 2.0
    y[1:] = np.sin(x[:2])
    assert np.isclose(evaluate(tape, {("x",): x}, table)[0], np.sum(y * y))
    assert any(e.prim == "setindex" for e in tape.eqns)
