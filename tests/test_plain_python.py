"""Plain Python (issue 22): static code passes through as the user wrote it.

Only values that depend differentiably on a ``--wrt`` parameter need rules; shapes, counters,
flags, messages and data the function does not differentiate are Python the generated code
runs as written (``frontend/passthrough.py``).  Each case is a file of everyday idioms: the
generated gradient is run against central finite differences of the user's own function (and
its value against the function's), the same way as ``test_language``.  The refusals check
that an idiom with no rule on a *differentiated* value is still refused, located.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .test_language import check_gradient, generated_function, import_user, leaves, write_project

CASES: dict[str, tuple[str, object, list[str] | None]] = {}


def case(name: str, source: str, args, wrt: list[str] | None = None):
    CASES[name] = (textwrap.dedent(source), args, wrt)


def arrays(*shapes):
    return lambda rng: [rng.normal(size=s) for s in shapes]


case(
    "assert_and_raise",
    """
    import numpy as np

    def f(x, w):
        assert x.ndim == 1, "x must be 1-D"
        if x.shape != w.shape:
            raise ValueError(f"shapes differ: {x.shape} and {w.shape}")
        return np.sum(np.tanh(x) * w)
    """,
    arrays((4,), (4,)),
)
case(
    "none_default",
    """
    import numpy as np

    def f(x, w=None):
        if w is None:
            w = np.ones_like(x)
        return np.sum(w * x ** 2)
    """,
    arrays((5,)),
)
case(
    "none_default_given",
    """
    import numpy as np

    def f(x, w=None):
        if w is not None:
            x = x * w
        return np.sum(np.sin(x))
    """,
    arrays((5,), (5,)),
    wrt=["x", "w"],  # w=None is an option: no gradient unless named
)
case(
    "shape_unpacking",
    """
    import numpy as np

    def f(X, theta):
        n, d = X.shape
        t = np.linspace(0.0, 1.0, d)
        return np.sum((X @ theta) ** 2) / n + np.sum(t * theta)
    """,
    arrays((6, 3), (3,)),
)
case(
    "params_unpacking",
    """
    import numpy as np

    def f(params, x):
        a, b, c = params
        return np.sum((a * x ** 2 + b * x + c - np.cos(x)) ** 2)
    """,
    arrays((3,), (7,)),
)
case(
    "boolean_operators",
    """
    import numpy as np

    def f(x, n):
        total = 0.0
        for i in range(len(x)):
            if i % 2 == 0 and not i // 2 >= n or i == len(x) - 1:
                total = total + x[i] ** 2
        return total
    """,
    lambda rng: [rng.normal(size=7), 2],
)
case(
    "debug_print_in_a_branch",
    """
    import numpy as np

    VERBOSE = False

    def f(x):
        y = np.exp(x)
        if VERBOSE:
            print("y =", y)
        s = np.sum(y)
        if s > 1e300:
            print(f"overflow: {s}")
        return s
    """,
    arrays((3,)),
)
case(
    "counters_with_modulo_and_divmod",
    """
    import numpy as np

    def f(x):
        n = x.shape[0]
        half = n // 2
        q, r = divmod(n, 3)
        acc = 0.0
        for k in range(n):
            acc = acc + x[k] * (k % 3 + q + r + half)
        return acc ** 2
    """,
    arrays((8,)),
)
case(
    # % of a differentiated value has a rule (mod): d/dx = 1, d/dy = -floor(x / y); the counter's
    # k % 3 beside it is plain integer arithmetic
    "modulo_of_a_differentiated_value",
    """
    import numpy as np

    def f(x, p):
        acc = 0.0
        for k in range(x.shape[0]):
            acc = acc + (x[k] % p) * (k % 3)
        phase = x % 1.0
        return acc + np.sum(phase ** 2) + np.sum(np.mod(x, 0.75 * p))
    """,
    lambda rng: [rng.uniform(-3.0, 3.0, 6), 1.3],
)
case(
    "static_numpy_calls",
    """
    import numpy as np

    def f(x):
        n = x.size
        grid = np.linspace(-1.0, 1.0, n)
        eye = np.eye(n)
        w = np.full(n, 0.5) + np.arange(n) / n
        return np.sum((eye @ x) * grid * w)
    """,
    arrays((5,)),
)
case(
    "nested_function_closure",
    """
    import numpy as np

    def f(x, scale):
        offset = 0.5

        def shifted(v):
            return np.tanh(scale * v + offset)

        return np.sum(shifted(x) ** 2)
    """,
    lambda rng: [rng.normal(size=4), 1.3],
)
case(
    "lambda_passed_to_a_helper",
    """
    import numpy as np

    def apply(g, v):
        return g(v) + g(2.0 * v)

    def f(x):
        return np.sum(apply(lambda t: t * np.sin(t), x))
    """,
    arrays((4,)),
)
case(
    "augmented_modulo_on_a_counter",
    """
    import numpy as np

    def f(x):
        k = 7
        acc = 0.0
        for i in range(len(x)):
            k %= 5
            k += 3
            acc = acc + k * x[i]
        return acc * acc
    """,
    arrays((6,)),
)
case(
    "string_and_dict_of_constants",
    """
    import numpy as np

    def f(x, mode="l2"):
        weights = {"l1": 0.5, "l2": 2.0}
        if mode == "l2":
            return weights[mode] * np.sum(x ** 2)
        return weights[mode] * np.sum(np.abs(x))
    """,
    arrays((4,)),
)
case(
    "isinstance_and_len",
    """
    import numpy as np

    def f(x, eps=1e-3):
        if not isinstance(eps, float) or eps <= 0:
            raise ValueError("eps must be a positive float")
        return np.sum(np.sqrt(x ** 2 + eps)) / len(x)
    """,
    arrays((6,)),
)
case(
    "chained_comparison_on_a_counter",
    """
    import numpy as np

    def f(x):
        acc = 0.0
        for i in range(len(x)):
            if 0 < i < len(x) - 1:
                acc = acc + x[i] * x[i - 1]
        return acc
    """,
    arrays((6,)),
)

case(
    "list_append_in_a_loop",
    """
    import numpy as np

    def f(x, w):
        terms = []
        for i in range(len(x)):
            terms.append(x[i] * w[i])
        return np.sum(np.array(terms) ** 2) + sum(terms) + terms[-1] * terms[0]
    """,
    arrays((5,), (5,)),
)
case(
    "trajectory_of_an_integrator",
    """
    import numpy as np

    def f(x0, k, steps=6):
        xs = [x0]
        for _ in range(steps):
            x = xs[-1]
            xs.append(x + 0.1 * np.sin(k * x))
        traj = np.stack(xs)
        return np.sum(traj[1:] ** 2) + np.sum(xs[-1])
    """,
    lambda rng: [rng.normal(size=3), 1.7],
)
case(
    "list_of_rows_then_mean",
    """
    import numpy as np

    def f(W, X):
        rows = []
        for x in X:
            rows.append(np.tanh(W @ x))
        H = np.array(rows)
        return np.mean(H ** 2) + len(rows) * 0.0
    """,
    arrays((3, 4), (5, 4)),
)
case(
    "list_appended_in_a_branch",
    """
    import numpy as np

    def f(x):
        kept = [0.0]
        for i in range(len(x)):
            if i % 2 == 1:
                kept.append(x[i] ** 3)
        return sum(kept) + np.sum(np.array(kept[1:]))
    """,
    arrays((6,)),
)
case(
    "list_in_straight_line_code",
    """
    import numpy as np

    def f(a, b):
        parts = []
        parts.append(a * b)
        parts.append(np.sin(a))
        return np.sum(np.stack(parts))
    """,
    arrays((3,), (3,)),
)

case(
    "module_constants_by_expression",
    """
    import numpy as np

    REST = [1.0] * 6 + [2.0] * 3
    TWO_PI = 2 * np.pi
    W0 = np.array([0.5, -1.0, 2.0])
    EDGES = [(0, 1), (1, 2), (0, 2)]
    RATES = {"fast": 2.0, "slow": 0.5}

    def f(x):
        e = 0.0
        for (i, j), L0 in zip(EDGES, REST):
            d = x[i] - x[j]
            e = e + (d * d - L0) ** 2
        return e + TWO_PI * np.sum(W0 * x) + RATES["fast"] * np.sum(W0 + W0 * x)
    """,
    arrays((3,)),
)
case(
    "zip_over_rows",
    """
    import numpy as np

    def f(w, X, Y):
        loss = 0.0
        for x, y in zip(X, Y):
            loss = loss + (x @ w - y) ** 2
        return loss / len(X)
    """,
    arrays((3,), (5, 3), (5,)),
)
case(
    "dynamic_slices",
    """
    import numpy as np

    def f(x, k=3):
        n = len(x)
        odd = x[1::2]
        even = x[::2]
        s = np.sum(even[: len(odd)] * odd)
        for i in range(n - k + 1):
            s = s + np.sum(x[i:i + k]) ** 2
        return s
    """,
    arrays((7,)),
)
case(
    "conversions",
    """
    import numpy as np

    def f(x):
        a = float(x.sum())
        b = x.astype(float)
        c = np.asarray(x)
        return a * np.sum(b * c) + x.max().item() + float(np.sum(x.astype(int)))
    """,
    arrays((5,)),
)
case(
    "while_with_and",
    """
    import numpy as np

    def f(x, tol=1e-8):
        err = 1.0
        i = 0
        y = x
        while i < 50 and err > tol:
            y_new = 0.5 * (y + x / y)
            err = np.max(np.abs(y_new - y))
            y = y_new
            i += 1
        return np.sum(y)
    """,
    lambda rng: [rng.uniform(1.0, 3.0, size=4)],
)
case(
    "early_return_in_a_loop_with_an_accumulator",
    """
    import numpy as np

    def f(x):
        total = 0.0
        for i in range(len(x)):
            if x[i] > 10.0:
                return total
            total += x[i] ** 2
        return total
    """,
    arrays((5,)),
)
case(
    "dict_of_parameters",
    """
    import numpy as np

    def f(params, x):
        h = np.tanh(params["W1"] @ x + params["b1"])
        return np.sum((params["W2"] @ h) ** 2)
    """,
    lambda rng: [
        {"W1": rng.normal(size=(4, 3)), "b1": rng.normal(size=4), "W2": rng.normal(size=(2, 4))},
        rng.normal(size=3),
    ],
)

case(
    "for_else_and_while_else",
    """
    import numpy as np

    def f(x, limit=1.0):
        s = 0.0
        for i in range(len(x)):
            if x[i] > limit:
                s = s * 2.0
                break
            s = s + x[i] ** 2
        else:
            s = s + np.sum(x)
        k = 0
        while k < 3:
            s = s + np.sin(x[k])
            k += 1
        else:
            s = s * 3.0
        return s
    """,
    lambda rng: [np.array([0.3, -0.2, 1.5, 0.1, 0.4])],
)
case(
    "for_else_without_a_break",
    """
    import numpy as np

    def f(x, limit=10.0):
        s = 0.0
        for i in range(len(x)):
            if x[i] > limit:
                break
            s = s + x[i] ** 2
        else:
            s = s + np.sum(x)
        return s
    """,
    arrays((5,)),
)

case(
    "dict_of_values",
    """
    import numpy as np

    def layer(p, x):
        return np.tanh(p["W"] @ x + p["b"])

    def f(W, b, x):
        p = {"W": W, "b": b}
        p["scale"] = 2.0
        h = layer(p, x)
        terms = dict(sq=np.sum(h ** 2), lin=np.sum(h))
        total = 0.0
        for name, value in terms.items():
            total = total + p.get("scale", 1.0) * value
        return total + len(terms)
    """,
    arrays((3, 2), (3,), (2,)),
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, tmp_path):
    source, make_args, wrt = CASES[name]
    path = write_project(tmp_path, source)
    user = import_user(tmp_path)
    f = user.f
    text = generate(source, str(path), ["f"], wrt=wrt).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    grad = namespace["grad_f"]
    args = make_args(np.random.default_rng(0))
    before = copy.deepcopy(args)
    value, *grads = grad(*args)
    for a, b in zip(args, before):  # the generated code never changes the caller's data
        for (_, x), (_, y) in zip(leaves(a), leaves(b)):
            assert np.array_equal(x, y)
    assert np.allclose(value, f(*copy.deepcopy(args)), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)
    assert "__yota" not in text


def test_static_code_is_written_as_the_user_wrote_it(tmp_path):
    source, _, _ = CASES["shape_unpacking"]
    text, _ = generated_function(write_project(tmp_path, source), "f")
    assert "t = np.linspace(0.0, 1.0, d)" in text
    source, _, _ = CASES["assert_and_raise"]
    text, _ = generated_function(write_project(tmp_path, source), "f")
    assert "assert x.ndim == 1, 'x must be 1-D'" in text
    assert "raise ValueError(f'shapes differ: {x.shape} and {w.shape}')" in text


def test_a_raise_in_the_generated_code_raises_like_the_function(tmp_path):
    source, _, _ = CASES["assert_and_raise"]
    _, grad = generated_function(write_project(tmp_path, source), "f")
    with pytest.raises(ValueError, match="shapes differ"):
        grad(np.ones(3), np.ones(4))
    with pytest.raises(AssertionError, match="x must be 1-D"):
        grad(np.ones((2, 2)), np.ones((2, 2)))


def test_unpacking_checks_the_length_like_python(tmp_path):
    source, _, _ = CASES["params_unpacking"]
    _, grad = generated_function(write_project(tmp_path, source), "f")
    with pytest.raises(ValueError, match="expected 3 values to unpack"):
        grad(np.ones(4), np.ones(2))


def test_print_runs_once_per_call_in_the_forward_sweep_only(tmp_path):
    source = textwrap.dedent(
        """
        import numpy as np

        def f(x):
            total = 0.0
            for i in range(len(x)):
                print("step", i)
                total = total + np.sin(x[i])
            return total
        """
    )
    path = tmp_path / "p.py"
    path.write_text(source, encoding="utf-8")
    out = tmp_path / "grad_p.py"
    (tmp_path / "run.py").write_text(
        "import numpy as np\nfrom grad_p import grad_f\ngrad_f(np.ones(3))\n", encoding="utf-8"
    )
    out.write_text(generate(source, str(path), ["f"]).text, encoding="utf-8")
    printed = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert printed.stdout.splitlines() == ["step 0", "step 1", "step 2"]


# ----------------------------------------------------------------------------- still refused

REFUSALS: dict[str, tuple[str, tuple[str, int, int]]] = {
    "unknown call on a differentiated value": (
        "import numpy as np\nfrom mylib import smooth\n\n\ndef f(x):\n    return np.sum(smooth(x))\n",
        ("YS031", 6, 19),
    ),
    "boolean operator giving a differentiated value": (
        "import numpy as np\n\n\ndef f(x, y):\n    z = x or y\n    return np.sum(z * z)\n",
        ("YS020", 5, 9),
    ),
    "in-place method on a value": (
        "import numpy as np\n\n\ndef f(x):\n    y = x * 2.0\n    y.sort()\n    return np.sum(y)\n",
        ("YS018", 6, 5),
    ),
    "list arithmetic": (
        (
            "import numpy as np\n\n\ndef f(x):\n    a = []\n    for i in range(3):\n        a.append(x[i])\n"
            "    return np.sum(a * 2)\n"
        ),
        ("YS034", 8, 19),
    ),
    "append to another name's list": (
        (
            "import numpy as np\n\n\ndef f(x):\n    a = []\n    b = a\n    for i in range(3):\n        a.append(x[i])\n"
            "    return np.sum(np.array(b))\n"
        ),
        ("YS017", 8, 9),
    ),
    "in-place library call": (
        "import numpy as np\n\n\ndef f(x):\n    y = x * 2.0\n    np.copyto(y, x)\n    return np.sum(y)\n",
        ("YS018", 6, 5),
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


def test_static_code_that_is_never_differentiated_is_not_refused(tmp_path):
    # np.nextafter (no rule) of the parameter not differentiated: static, passed through
    source = "import numpy as np\n\n\ndef f(x, y):\n    return np.sum(np.nextafter(y, 2.0) * x)\n"
    path = tmp_path / "t.py"
    path.write_text(source, encoding="utf-8")
    text = generate(source, str(path), ["f"], wrt=["x"]).text
    assert "np.nextafter(y, 2.0)" in text
    with pytest.raises(UserError) as info:
        generate(source, str(path), ["f"], wrt=["y"])
    assert info.value.code == "YS031"


def test_a_loop_appends_in_place_where_nothing_else_holds_the_list(tmp_path):
    source, _, _ = CASES["list_append_in_a_loop"]
    text, _ = generated_function(write_project(tmp_path, source), "f")
    assert "terms.append(" in text
    assert "[*terms" not in text


def test_a_library_submodule_read_for_a_function_names_the_function(tmp_path):
    # scipy.signal.convolve(x, y): the message names the function and writes its rule, not
    # "the function scipy.signal is used as a value"
    source = (
        "import numpy as np\nimport scipy.signal\n\n\ndef f(x, y):\n    return np.sum(scipy.signal.convolve(x, y))\n"
    )
    with pytest.raises(UserError) as info:
        generate(source, str(tmp_path / "t.py"), ["f"])
    assert info.value.code == "YS031" and "scipy.signal.convolve()" in info.value.message
    assert "def convolve(x, y): dx = ...; dy = ..." in info.value.message


def test_the_api_reads_a_dict_argument_by_key(tmp_path):
    (tmp_path / "dictloss.py").write_text(
        "import numpy as np\n\n\ndef loss(p):\n    return np.sum(p['a'] ** 2) + np.sum(p['b'])\n", encoding="utf-8"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import dictloss

        from yota_s2s import grad

        value, (dp,) = grad(dictloss.loss, {"a": np.ones(2), "b": np.arange(3.0)})
    finally:
        sys.path.remove(str(tmp_path))
    assert value == 5.0 and dp["a"].tolist() == [2.0, 2.0] and dp["b"].tolist() == [1.0, 1.0, 1.0]


def test_check_grads_takes_a_tuple_parameters_tuple_gradient():
    from yota_s2s.verify import check_grads

    source = "import numpy as np\n\n\ndef f(t):\n    a, b = t\n    return np.sum(a ** 2) + np.sum(np.sin(b))\n"
    namespace: dict = {}
    exec(compile(generate(source, "t.py", ["f"]).text, "grad_t.py", "exec"), namespace)  # noqa: S102
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102
    t = (np.ones(2), np.arange(3.0))
    _, dt = namespace["grad_f"](t)
    assert isinstance(dt, tuple) and len(dt) == 2
    check_grads(user["f"], namespace["grad_f"], (t,))


def test_the_named_elements_of_a_decomposition():
    # NumPy 2's named tuples: slogdet(a).logabsdet, eigh(a).eigenvalues/.eigenvectors, svd(a).S
    from yota_s2s.verify import check_grads

    source = (
        "import numpy as np\n\n\ndef f(a, b):\n    res = np.linalg.slogdet(a)\n"
        "    e = np.linalg.eigh(b @ b.T + np.eye(3))\n    s = np.linalg.svd(a)\n"
        "    return res.logabsdet + np.sum(e.eigenvalues) + np.sum(s.S) + np.sum(e.eigenvectors[:, 0] ** 2)\n"
    )
    namespace: dict = {}
    exec(compile(generate(source, "t.py", ["f"]).text, "grad_t.py", "exec"), namespace)  # noqa: S102
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102
    rng = np.random.default_rng(3)
    check_grads(user["f"], namespace["grad_f"], (rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=(3, 3))))


def test_a_dict_parameter_tested_by_static_code_is_still_read_by_key(tmp_path):
    # isinstance(params, dict), len(...) in a condition, "W" in params: the parameter itself in the
    # static code, not an array input (which made params["W"] a refused index)
    case = (
        "import numpy as np\n\n\ndef f(params, x):\n    assert isinstance(params, dict), 'a dict'\n"
        "    if len(params) != 2 or 'W' not in params:\n        raise ValueError('expected W and b')\n"
        "    return np.sum(np.tanh(params['W'] @ x + params['b']) ** 2)\n"
    )
    namespace: dict = {}
    exec(compile(generate(case, str(tmp_path / "t.py"), ["f"], wrt=["params"]).text, "g.py", "exec"), namespace)  # noqa: S102
    user: dict = {}
    exec(compile(case, "t.py", "exec"), user)  # noqa: S102
    rng = np.random.default_rng(5)
    params, x = {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)}, rng.normal(size=3)
    from yota_s2s.verify import check_grads

    check_grads(user["f"], namespace["grad_f"], (params, x), wrt=["params"])
    with pytest.raises((ValueError, KeyError)):  # (the entries are read first: KeyError before the check)
        namespace["grad_f"]({"W": params["W"]}, x)
    with pytest.raises(ValueError, match="expected W and b"):
        namespace["grad_f"]({**params, "c": 1.0}, x)


def test_an_inner_loop_whose_bounds_an_outer_loop_sets_unrolls_with_it(tmp_path):
    # params[f"W{i}{j}"] in for j in range(i + 1): the inner bounds are constant once the outer
    # loop is unrolled; with a bound known only at run time, the read is refused where it is
    from yota_s2s.verify import check_grads

    source = (
        "import numpy as np\n\n\ndef f(params, x):\n    h = x\n    for i in range(2):\n"
        "        for j in range(i + 1):\n            h = np.tanh(params[f'W{i}{j}'] @ h)\n    return np.sum(h ** 2)\n"
    )
    namespace: dict = {}
    exec(compile(generate(source, "t.py", ["f"], wrt=["params"]).text, "g.py", "exec"), namespace)  # noqa: S102
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102
    rng = np.random.default_rng(0)
    params = {k: 0.5 * rng.normal(size=(3, 3)) for k in ("W00", "W10", "W11")}
    check_grads(user["f"], namespace["grad_f"], (params, rng.normal(size=3)), wrt=["params"])
    with pytest.raises(UserError) as info:
        generate(source.replace("range(2)", "range(n)").replace("(params, x)", "(params, x, n)"), "t.py", ["f"])
    assert (info.value.code, info.value.line) == ("YS034", 8)
