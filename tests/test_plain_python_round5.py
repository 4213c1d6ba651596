"""Plain Python, round five (issue 37, holdout 4): the classes its first run found.

Each case is a file the generated gradient of which is run against central finite differences of
the user's own function (its value against the function's), as in ``test_plain_python``; the
refusals check that what is still refused is refused located.
"""

from __future__ import annotations

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


# -- iterators in a for header: the generated loop runs by index and length (was: exit 0, then
# "object of type 'itertools.combinations' has no len()")
case(
    "itertools_combinations",
    """
    import itertools

    def f(x):
        total = 0.0
        for i, j in itertools.combinations(range(len(x)), 2):
            total += (x[i] - x[j]) ** 2
        return total
    """,
    arrays((5,)),
)
case(
    "itertools_product_in_a_generator",
    """
    from itertools import product

    def f(x, y):
        return sum(x[i] * y[j] * (i + 1) for i, j in product(range(len(x)), range(len(y))))
    """,
    arrays((3,), (2,)),
)
case(
    "a_set_and_map_and_filter_iterated",
    """
    import numpy as np

    def f(x):
        t = 0.0
        for i in {0, 2, len(x) - 1}:
            t += x[i] ** 2
        for i in map(int, np.arange(len(x))):
            t += x[i] * 0.5
        for i in filter(lambda j: j % 2 == 0, range(len(x))):
            t += np.sin(x[i])
        for i in sorted({len(x) - 1, 0}):  # (sorted of static code's set: Python's sorted)
            t += x[i] ** 3
        return t
    """,
    arrays((4,)),
)

# -- NamedTuple classes (was YS032 "takes no arguments") and properties (was YS020)
case(
    "namedtuple_module_constant_and_made_in_the_function",
    """
    from typing import NamedTuple

    import numpy as np

    class Config(NamedTuple):
        steps: int
        rate: float = 0.4

    class Pair(NamedTuple):
        a: float
        b: np.ndarray

    CFG = Config(steps=3)

    def f(x, s):
        for _ in range(CFG.steps):
            x = x - CFG.rate * np.tanh(x)
        p = Pair(s * 2.0, x)
        return np.sum(p.b**2) * p.a
    """,
    lambda rng: [rng.normal(size=4), 0.7],
)
case(
    "dataclass_property",
    """
    from dataclasses import dataclass
    from functools import cached_property

    @dataclass
    class Spring:
        k: float = 2.0
        rest: float = 1.0

        @property
        def half_k(self):
            return 0.5 * self.k

        @cached_property
        def stiff(self):
            return self.k**2

        def energy(self, length):
            return self.half_k * (length - self.rest) ** 2 + self.stiff * length

    def f(lengths, k):
        spring = Spring(k=k)
        return sum(spring.energy(v) for v in lengths)
    """,
    lambda rng: [1.0 + 0.3 * rng.normal(size=3), 3.0],
)

# -- match, the walrus and try (were YS010, YS020, YS013): frontend/desugar.py
case(
    "match_literals_alternatives_capture_and_guard",
    """
    import numpy as np

    def loss(r, kind):
        match kind.lower():
            case "l1" | "abs":
                return np.sum(np.abs(r))
            case "huber" if r.size > 2:
                return np.sum(np.where(np.abs(r) < 1.0, 0.5 * r**2, np.abs(r) - 0.5))
            case None:
                return 0.0
            case other:
                return np.sum(r**2) * len(other)

    def f(x):
        return loss(x, "L1") + 2.0 * loss(x, "huber") + loss(x * 3.0, "sq")
    """,
    lambda rng: [rng.uniform(0.2, 1.5, size=5) * np.where(rng.normal(size=5) > 0, 1.0, -1.0)],
)
case(
    "walrus_in_if_elif_and_nested",
    """
    import numpy as np

    def f(x):
        if (n := len(x)) > 10:
            return np.sum(x)
        elif (s := np.sum(x**2)) > 100.0:
            return s
        y = (m := (k := n // 2) + 1) * x[:k]
        return np.sum(y**2) + s * m
    """,
    arrays((6,)),
)
case(
    "try_except_else_finally",
    """
    import numpy as np

    def f(x):
        try:
            scale = 1.0 / len(x)
        except ZeroDivisionError:
            scale = 0.0
        else:
            scale = scale * 2.0
        finally:
            x = x * 1.5
        return scale * np.sum(np.sin(x) ** 2)
    """,
    arrays((4,)),
)

# -- a dict parameter's items (was YS041): the keys the function reads of it by name, checked at run time
case(
    "dict_parameter_items_and_values_of_keys_read_by_name",
    """
    import numpy as np

    def hill(params, dose):
        bottom, top = params["bottom"], params["top"]
        return bottom + (top - bottom) / (1.0 + (params["ec50"] / dose) ** params["slope"])

    def f(params, x):
        p = hill(params, x)
        prior = sum(0.01 * v**2 for k, v in params.items() if k != "ec50")
        stacked = np.array(list(params.values()))
        for name in params.keys():
            prior = prior + len(name) * params[name] ** 2
        return np.sum(p**2) + prior + np.sum(stacked * np.arange(4.0))
    """,
    lambda rng: [
        {"bottom": 0.05, "top": 0.9, "ec50": 0.8 + 0.1 * rng.normal(), "slope": 1.2},
        rng.uniform(0.5, 2.0, 4),
    ],
)

# -- max/min with key= (was YS031): the item at the keys' argmax (the choice is constant between ties)
case(
    "max_min_with_key",
    """
    import numpy as np

    NAMES = ("a", "bbb", "cc")

    def f(a, b, c, x):
        vecs = [a, b, c]
        biggest = max(vecs, key=lambda v: np.sum(v**2))
        i = max(range(len(x)), key=lambda k: x[k])
        lo, hi = min([(x[0], 1.0), (x[1], 2.0), (x[2], 3.0)], key=lambda p: p[0] ** 2)
        longest = max(NAMES, key=len)
        smallest = min(a[0], b[0], c[0], key=abs)
        return np.sum(biggest) * len(longest) + x[i] ** 2 + lo * hi + smallest + np.sum(max(x, key=abs) * x)
    """,
    lambda rng: [rng.normal(size=3), 2.0 + rng.normal(size=3), rng.normal(size=3), rng.normal(size=4)],
)

# -- np.float64(x) casts, math.fsum, np.block (were YS031)
case(
    "float64_cast_fsum_and_block",
    """
    import math

    import numpy as np

    def f(x, A, B):
        s = np.float64(x[0]) + np.float64(2) + np.double(x[1]) ** 2
        t = math.fsum([x[0] ** 2, x[1] * x[2], 0.5])
        M = np.block([[A, B], [B.T, np.eye(2)]])
        v = np.block([x, x[:2] * 2.0])
        return s * np.sum(x) + t + np.sum(M @ M) + np.sum(v**2)
    """,
    arrays((3,), (2, 2), (2, 2)),
)

# -- np.fill_diagonal(K, v) (was YS018): the item write K[r, r] = v of a 2-D K
case(
    "fill_diagonal",
    """
    import numpy as np

    def f(x, s):
        K = np.exp(-((x[:, None] - x[None, :]) ** 2))
        np.fill_diagonal(K, s * 2.0)
        T = np.outer(x, x[:2])
        np.fill_diagonal(T, 0.0)
        return np.sum(K**2) + np.sum(T)
    """,
    lambda rng: [rng.normal(size=4), 0.7],
)

# -- scipy.integrate's simpson, trapezoid, cumulative_trapezoid; scipy.linalg's solve_triangular,
# cholesky, cho_factor, cho_solve; ufunc outer; where=, initial=, logsumexp's b= (were YS031/YS032)
case(
    "scipy_integrate_and_triangular_solves",
    """
    import numpy as np
    import scipy.integrate
    import scipy.linalg
    from scipy.special import logsumexp

    T = np.linspace(0.0, 1.0, 11)
    TU = np.array([0.0, 0.1, 0.25, 0.5, 0.6, 0.9, 1.0])

    def f(a, A, b):
        s = scipy.integrate.simpson(np.exp(-a * T**2), x=T) + scipy.integrate.simpson(np.sin(a * TU), x=TU)
        s = s + scipy.integrate.simpson(np.cos(a * T), dx=0.1) + scipy.integrate.trapezoid(np.exp(-a * T), T)
        s = s + np.sum(scipy.integrate.cumulative_trapezoid(np.sin(a * T), T, initial=0))
        M = A @ A.T + 3.0 * np.eye(3)
        L = np.linalg.cholesky(M)
        z = scipy.linalg.solve_triangular(L, b, lower=True) + scipy.linalg.solve_triangular(L.T, b, trans="T")
        U = scipy.linalg.cholesky(M)
        c = scipy.linalg.cho_factor(M)
        q = b @ scipy.linalg.cho_solve(c, b) + 2.0 * np.sum(np.log(np.diag(c[0]))) + np.sum(U)
        o = np.sum(np.multiply.outer(b, T[:2]) ** 2) + np.sum(np.subtract.outer(b, b) ** 2)
        r = np.sum(b**2, where=b > 0) + np.mean(b, where=b < 1.0) + np.max(b, initial=0.0) + np.min(b, initial=5.0)
        return s + z @ z + q + o + r + logsumexp(b, b=np.array([0.5, 1.0, 2.0]))
    """,
    lambda rng: [0.7, rng.normal(size=(3, 3)), rng.normal(size=3)],
)

# max/min with key= of constants is static code as written (was: read as the definition, whose
# np.asarray of a dict's keys raised in the generated code)
case(
    "max_min_with_key_of_constants",
    """
    import numpy as np

    D = {"a": 1.0, "b": 3.0}

    def f(x):
        best = max(D, key=D.get)
        worst = min(D.items(), key=lambda kv: kv[1])[0]
        return D[best] * np.sum(x) + D[worst] * x[0] ** 2
    """,
    arrays((3,)),
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, tmp_path):
    source, make_args, wrt = CASES[name]
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"], wrt=wrt).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    args = make_args(np.random.default_rng(0))
    value, *grads = namespace["grad_f"](*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)


REFUSALS: dict[str, tuple[str, tuple[str, int, int]]] = {
    "incomplete gamma in its first argument": (
        "import numpy as np\nimport scipy.special\n\n\ndef f(a, x):\n    return np.sum(scipy.special.gammainc(a, x))\n",
        ("YS107", 6, 19),
    ),
    "match of a class pattern": (
        (
            "import numpy as np\n\n\ndef f(x):\n    match x:\n        case [a, b]:\n            return a\n"
            "        case _:\n            return np.sum(x)\n"
        ),
        ("YS010", 5, 5),
    ),
    "walrus in a comprehension": (
        "import numpy as np\n\n\ndef f(x):\n    return sum((y := v * 2.0) for v in (1.0, 2.0)) * np.sum(x)\n",
        ("YS020", 5, 17),
    ),
    "walrus in a while test": (
        "import numpy as np\n\n\ndef f(x):\n    while (s := np.sum(x)) > 1.0:\n        x = x / 2.0\n    return s\n",
        ("YS020", 5, 12),
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refusal_is_located(name, tmp_path):
    source, (code, line, col) = REFUSALS[name]
    path = tmp_path / "t.py"
    path.write_text(source, encoding="utf-8")
    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, str(path), ["f"])
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert (err.code, err.line, err.col) == (code, line, col), err.format()


def test_a_dict_parameter_whose_items_are_read_is_checked_for_its_keys_and_their_order(tmp_path):
    source, make_args, wrt = CASES["dict_parameter_items_and_values_of_keys_read_by_name"]
    text = generate(source, str(write_project(tmp_path, source)), ["f"], wrt=wrt).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    params, x = make_args(np.random.default_rng(0))
    with pytest.raises(ValueError, match="must have the keys 'bottom', 'top', 'ec50', 'slope' in this order"):
        namespace["grad_f"]({**params, "extra": 1.0}, x)
    with pytest.raises(ValueError, match="in this order"):
        namespace["grad_f"](dict(reversed(params.items())), x)


def test_bessel_and_inverse_error_functions_say_they_import_scipy_special(tmp_path):
    # the autograd suite's largest refused classes: rules in rules/special.py, checked against
    # sympy.diff and central differences in tests/test_rules.py; the module imports scipy.special
    source = textwrap.dedent(
        """
        import numpy as np
        from scipy import special

        def f(x):
            return np.sum(special.j1(x) * special.y0(x) + special.iv(2, x) + special.erfinv(x / 4.0)
                          + special.gammaincc(1.5, x) + special.yn(1, x))
        """
    )
    text = generate(source, str(write_project(tmp_path, source)), ["f"]).text
    assert "\nimport scipy.special\n" in text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    f = import_user(tmp_path).f
    x = np.array([0.4, 1.3, 2.2])
    value, dx = namespace["grad_f"](x)
    assert np.isclose(value, f(x), rtol=1e-12)
    check_gradient(f, [x], [dx])


def test_a_generated_module_is_read_as_written(tmp_path):
    # its runtime helpers hold try blocks; rewriting them (desugar) made their text not the
    # runtime's, so differentiating through grad_NAME was refused (YS031)
    energy = "import numpy as np\n\n\ndef rosen(x):\n    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)\n"
    (tmp_path / "energy.py").write_text(energy, encoding="utf-8")
    (tmp_path / "grad_energy.py").write_text(generate(energy, "energy.py", ["rosen"]).text, encoding="utf-8")
    hv = "import numpy as np\n\nfrom grad_energy import grad_rosen\n\n\ndef hv(x, v):\n    _, g = grad_rosen(x)\n    return np.sum(g * v)\n"
    (tmp_path / "hv.py").write_text(hv, encoding="utf-8")
    text = generate(hv, str(tmp_path / "hv.py"), ["hv"], wrt=["x"]).text
    assert "def grad_hv(x, v)" in text
