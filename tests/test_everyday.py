"""Everyday idioms of issue 37's third round (holdout 2 of ``benchmarks/fresh``), each checked
against central finite differences of the user's own function, and its value against the
function's: order statistics (np.median, np.quantile, np.percentile), starred unpacking,
``list(x)`` of a run-time length, ``functools.reduce``, objects of the file's classes (plain
classes with ``__init__`` and methods, dataclasses), module-level dict entries updated in place.
"""

from __future__ import annotations

import copy
import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

CASES: dict[str, tuple[str, object, list[str] | None]] = {}


def case(name: str, source: str, args, wrt: list[str] | None = None):
    CASES[name] = (textwrap.dedent(source), args, wrt)


def arrays(*shapes):
    return lambda rng: [rng.normal(size=s) for s in shapes]


def compiled(source: str, tmp_path, wrt=None, name="f"):
    path = write_project(tmp_path, source)
    text = generate(source, str(path), [name], wrt=wrt).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    return text, namespace[f"grad_{name}"]


# ----------------------------------------------------------------------------- order statistics

case(
    "median_odd_and_even",
    """
    import numpy as np

    def f(x, y):
        return np.median(x**2) + 3.0 * np.median(np.sin(y)) + np.mean(x)
    """,
    arrays((7,), (8,)),
)
case(
    "median_axis_keepdims",
    """
    import numpy as np

    def f(X):
        m = np.median(X, axis=0)
        c = X - np.median(X, axis=1, keepdims=True)
        return np.sum(m**2) + np.sum(c**3) + np.median(X, axis=(0, 1)) + X.shape[0]
    """,
    arrays((4, 5)),
)
case(
    "median_absolute_deviation",
    """
    import numpy as np

    def f(x):
        return np.median(np.abs(x - np.median(x)))
    """,
    arrays((9,)),
)
case(
    "percentile_spread",
    """
    import numpy as np

    def f(x):
        return np.percentile(x, 90) - np.percentile(x, 10) + np.percentile(x, 50.0)
    """,
    arrays((12,)),
)
case(
    "quantile_array_of_q_along_an_axis",
    """
    import numpy as np

    def f(X):
        q = np.quantile(X, [0.1, 0.5, 0.8], axis=1, keepdims=True)
        return np.sum(q**2 * np.arange(1.0, 4.0)[:, None, None])
    """,
    arrays((3, 6)),
)
case(
    "quantile_methods",
    """
    import numpy as np

    def f(x):
        total = 0.0
        for m in ("lower", "higher", "nearest", "midpoint", "linear"):
            total = total + np.quantile(x, 0.33, method=m) ** 2 + np.quantile(x, 0.87, method=m)
        return total
    """,
    arrays((11,)),
)
case(
    "quantile_and_percentile_in_q",
    """
    import numpy as np

    def f(x, q, p):
        return np.quantile(x, q) * 2.0 + np.percentile(x, p) ** 2
    """,
    lambda rng: [rng.normal(size=9), 0.37, 63.0],
)


# ----------------------------------------------------------------------------- sequences

case(
    "star_unpacking_of_an_array",
    """
    import numpy as np

    def f(x):
        head, *tail = x
        a, *mid, b = x
        *init, last = x
        return head * sum(tail) + a * b + sum(v**2 for v in mid) + len(mid) + np.sum(np.array(init)) * last
    """,
    arrays((5,)),
)
case(
    "star_unpacking_of_a_list_parameter",
    """
    import numpy as np

    def f(layers, y):
        h = y
        *hidden, last = layers
        for W, b in hidden:
            h = np.tanh(W @ h + b)
        W, b = last
        first, *others = [h[0], h[1], 2.0]
        return np.sum(W @ h + b) * first + sum(others)
    """,
    lambda rng: [
        [(rng.normal(size=(3, 2)), rng.normal(size=3)), (rng.normal(size=(2, 3)), rng.normal(size=2))],
        rng.normal(size=2),
    ],
)
case(
    "list_of_a_run_time_length",
    """
    import numpy as np

    def f(x, X):
        values = list(x)
        rows = list(X)
        return values[0] * values[-1] + len(values) + sum(values[1:]) + np.sum(rows[-1] ** 2)
    """,
    arrays((5,), (3, 2)),
)
case(
    "functools_reduce",
    """
    import functools
    from functools import reduce

    import numpy as np

    def f(x, M):
        p = functools.reduce(lambda a, b: a * b, x, 1.0)
        s = reduce(lambda a, b: a + b * b, x)
        m = reduce(np.matmul, [M, M, M])
        return p + s + np.sum(m)
    """,
    lambda rng: [rng.uniform(0.5, 1.5, size=5), 0.5 * rng.normal(size=(2, 2))],
)

case(
    "enumerate_with_a_start",
    """
    import numpy as np

    def f(c, t, x):
        s = 0.0
        for k, ck in enumerate(c, start=1):  # a polynomial's derivative
            s = s + k * ck * t ** (k - 1)
        for i, w in enumerate((0.5, 1.5), 1):
            s = s + i * w * x[i - 1]
        return s + sum(i * v for i, v in enumerate(x, 1)) + sum([i * v * v for i, v in enumerate(x, start=2) if i > 2])
    """,
    lambda rng: [rng.normal(size=4), 0.7, rng.normal(size=4)],
)
case(
    "reversed_and_sum_with_a_start",
    """
    import numpy as np

    def f(x, c):
        s = 0.0
        for v in reversed(x):
            s = s * 0.5 + v
        for i in reversed(range(len(x))):  # (was exit 0, then a TypeError: len() of a range_iterator)
            s = s * 0.5 + x[i] * c[i % 3]
        for w in reversed((0.5, 1.5)):
            s = s * w
        t = sum(v * w for v, w in zip(reversed(x), c)) + sum((v**2 for v in reversed(c)), 1.0)
        return s + t + sum(x, 2.0)
    """,
    arrays((4,), (3,)),
)
case(
    "where_of_a_condition_alone_and_list_of_a_generator",
    """
    import numpy as np

    def f(x):
        idx = np.where(x > 0)[0]
        sq = lambda v: v**2 + 1.0
        return np.sum(x[idx] ** 2) + sum(list(map(sq, x))) + sum(list(v * 2.0 for v in x))
    """,
    arrays((6,)),
)

case(
    "python_list_arithmetic_joins_and_repeats",
    """
    import numpy as np

    C = [1.0, 2.0]

    def f(x):
        rep = [x[0]] * 3
        joined = [x[0], x[1]] + [x[2]]
        d = C + [3.0]
        return sum(rep) + len(rep) + sum(joined) * len(joined) + np.sum(np.array(d) * x) + np.sum(C * 2) + np.sum(x * [0.5, 1.5, 2.5])
    """,
    arrays((3,)),
)
case(
    "lambdas_made_in_a_comprehension_read_its_last_name",
    """
    import numpy as np

    def f(x):
        fs = [lambda v: v * k for k in range(3)]
        return sum(g(np.sum(x)) for g in fs)
    """,
    arrays((3,)),
)
case(
    "dict_copies",
    """
    TABLE = {"a": 1.0, "b": 2.0}

    def f(x):
        t = dict(TABLE)
        t["a"] = x[0]
        u = TABLE.copy()
        u["b"] = x[1]
        d = {"v": x[0]}
        e = d.copy()
        e["v"] = 3.0
        return t["a"] * TABLE["a"] + t["b"] + u["a"] * u["b"] + d["v"] * e["v"]
    """,
    arrays((2,)),
)

# ----------------------------------------------------------------------------- objects of the file's classes

case(
    "class_with_init_and_methods",
    """
    import math

    class Stream:
        def __init__(self, mdot, cp=4180.0):
            self.mdot = mdot
            self.cp = cp

        def capacity(self):
            return self.mdot * self.cp

    class Exchanger:
        U = 850.0

        def __init__(self, area):
            self.area = area
            self.ua = self.U * area

        def effectiveness(self, c_min, c_max):
            ntu = self.ua / c_min
            cr = c_min / c_max
            e = math.exp(-ntu * (1.0 - cr))
            return (1.0 - e) / (1.0 - cr * e)

        def duty(self, hot, cold):
            c_hot, c_cold = hot.capacity(), cold.capacity()
            return self.effectiveness(min(c_hot, c_cold), max(c_hot, c_cold)) * min(c_hot, c_cold) * 70.0

    def f(area, split):
        hx = Exchanger(area)
        q = hx.duty(Stream(2.0 * split), Stream(3.0 * (1.0 - split), cp=4000.0))
        return 1e-8 * (q - 2.5e5) ** 2 + Exchanger.U * area**0.6
    """,
    lambda rng: [8.0, 0.45],
)
case(
    "dataclass_objects",
    """
    from dataclasses import dataclass, field

    import numpy as np

    @dataclass
    class Params:
        scale: float = 2.0
        shift: float = 0.5

    @dataclass(frozen=True)
    class Affine:
        w: np.ndarray
        b: float = 0.0

        def __post_init__(self):
            pass

        def __call__(self, x):
            return self.w * x + self.b

        def apply(self, x):
            return np.tanh(self.w * x + self.b)

    def f(x, w):
        p = Params()
        q = Params(shift=x[0])
        layer = Affine(w, b=p.shift)
        return np.sum((p.scale * x + q.shift) ** 2) + np.sum(layer.apply(x))
    """,
    arrays((4,), (4,)),
)
case(
    "objects_passed_to_helpers_and_subclassed",
    """
    import numpy as np

    class Base:
        def __init__(self, k):
            self.k = k

        def energy(self, x):
            return 0.5 * self.k * np.sum(x**2)

    class Spring(Base):
        def __init__(self, k, rest):
            super_k = 2.0 * k
            self.k = super_k
            self.rest = rest

        def stretch(self, x):
            return x - self.rest

    def total(s, x):
        return s.energy(s.stretch(x))

    def f(x, k):
        springs = [Spring(k, 0.5), Spring(k * k, -0.25)]
        return sum(total(s, x) for s in springs)
    """,
    lambda rng: [rng.normal(size=3), 1.3],
)

# ----------------------------------------------------------------------------- module-level tables

case(
    "module_level_dict_entries_updated_in_place",
    """
    import numpy as np

    D = {"a": 0.5}
    D["a"] += 0.25
    D["b"] = np.array([0.25, -0.5])
    D["b"] *= 2.0
    D["a"] -= 0.125
    E = {"k": 1.0}
    for key in E:
        E[key] = 0.5 * E[key]
    E["k"] *= 3.0
    W = np.zeros(3)
    W[0] = 0.5
    W[1:] = np.array([-0.25, 0.75])
    W[2] += 0.25
    ROWS = np.array([[0.5, -0.25], [1.0, 0.125], [0.25, 0.25]])
    NORMS = np.zeros(len(ROWS))
    for i, row in enumerate(ROWS):
        NORMS[i] = np.sum(row**2)

    def f(x):
        return D["a"] * np.sum(D["b"] * x[:2]) + E["k"] * x[0] + np.sum(W * x) + NORMS @ x**2
    """,
    arrays((3,)),
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, tmp_path):
    source, make_args, wrt = CASES[name]
    text, grad = compiled(source, tmp_path, wrt)
    f = import_user(tmp_path).f
    args = make_args(np.random.default_rng(0))
    value, *grads = grad(*copy.deepcopy(args))
    assert np.allclose(value, f(*copy.deepcopy(args)), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)
    assert "yota_s2s" not in text


def test_gamma_is_written_with_numpy_alone(tmp_path):
    # math.gamma, scipy.special.gamma and rgamma: NumPy-only helpers (no SciPy import), values to
    # 1e-13 against math.gamma on both sides of 0, gradient gamma * digamma by central differences
    source = (
        "import math\n\nimport numpy as np\nimport scipy.special\n\n\ndef f(x, a):\n"
        "    return math.gamma(a) + np.sum(scipy.special.gamma(x) + scipy.special.rgamma(x))\n"
    )
    text, grad = compiled(source, tmp_path)
    assert "scipy" not in text.split("def ")[0]
    f = import_user(tmp_path).f
    for x, a in ((np.array([0.3, 2.5, -0.5, -1.5, 7.25]), 3.7), (np.array([1.0, 4.0]), -2.5)):
        value, dx, da = grad(x, a)
        assert np.isclose(value, f(x, a), rtol=1e-13)
        check_gradient(f, [x, a], [dx, da])


def test_nan_reductions_leave_the_nans_out(tmp_path):
    # np.nansum, np.nanmean, np.nanmax: a NaN's gradient is 0, the others' as without it
    source = "import numpy as np\n\n\ndef f(x):\n    return np.nansum(x * 3.0) + np.nanmean(x) + np.nanmax(x)\n"
    _, grad = compiled(source, tmp_path)
    x = np.array([1.0, np.nan, 4.0, 2.0])
    value, dx = grad(x)
    assert value == 3.0 * 7.0 + 7.0 / 3.0 + 4.0
    assert np.allclose(dx, [3.0 + 1 / 3, 0.0, 3.0 + 1 / 3 + 1.0, 3.0 + 1 / 3])


def test_elements_that_tie_at_the_median_share_its_gradient(tmp_path):
    # a subgradient, as np.sort's and np.max's: equal elements share evenly what their places get
    _, grad = compiled("import numpy as np\n\n\ndef f(x):\n    return np.median(x)\n", tmp_path)
    for x, expected in (
        ([3.0, 1.0, 2.0], [0.0, 0.0, 1.0]),
        ([4.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.5, 0.5]),
        ([2.0, 1.0, 2.0, 5.0, 2.0], [1 / 3, 0.0, 1 / 3, 0.0, 1 / 3]),
        ([2.0, 2.0, 1.0, 5.0], [0.5, 0.5, 0.0, 0.0]),
    ):
        value, dx = grad(np.array(x))
        assert value == np.median(x)
        assert np.allclose(dx, expected), (x, dx)


def test_a_dict_parameter_iterated_is_an_input_tree(tmp_path):
    # its keys are known only at run time (was YS041): its values, in the dict's order, are read when
    # called, and the gradient is a dict of the same keys (tests/test_dict_trees.py has the rest)
    source = "def f(p):\n    total = 0.0\n    for k, v in p.items():\n        total += v**2\n    return total\n"
    _, grad = compiled(source, tmp_path)
    value, dp = grad({"b": 2.0, "a": 1.5})
    assert value == 6.25 and list(dp) == ["b", "a"] and dp == {"b": 4.0, "a": 3.0}


INPLACE = {
    "ufunc_at": ("out = np.zeros(3)\n    np.add.at(out, np.array([0, 2, 0]), x[:3])", "np.add.at() changes"),
    "out_keyword": ("out = x * 2.0\n    np.clip(out, 0.0, 1.0, out=out)", "out=out) writes its result into out"),
    "generator_shuffle": ("out = x * 1.0\n    np.random.default_rng(0).shuffle(out)", "shuffle(out) changes out"),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_a_call_that_writes_into_its_argument_is_refused(name, tmp_path):
    # (they passed through as effects: the array changed at run time, its gradient did not)
    body, message = INPLACE[name]
    source = f"import numpy as np\n\n\ndef f(x):\n    {body}\n    return np.sum(out * x[:3])\n"
    with pytest.raises((UserError, UserErrors)) as info:
        compiled(source, tmp_path)
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert (err.code, err.line) == ("YS018", 6), err.format()
    assert message in err.message


def test_star_unpacking_checks_the_length_like_python(tmp_path):
    _, grad = compiled("def f(x):\n    a, *mid, b = x\n    return a * b\n", tmp_path)
    with pytest.raises(ValueError, match="not enough values to unpack"):
        grad(np.array([1.0]))


def test_an_object_changed_outside_its_init_is_refused(tmp_path):
    source = (
        "class C:\n    def __init__(self, k):\n        self.k = k\n\n    def bump(self):\n"
        "        self.k = self.k + 1.0\n        return self.k\n\n\ndef f(x):\n    return C(x).bump()\n"
    )
    with pytest.raises((UserError, UserErrors)) as info:
        compiled(source, tmp_path)
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert (err.code, err.line) == ("YS042", 6), err.format()
