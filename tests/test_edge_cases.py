"""Edge cases found in review: each once a bug, each checked by running the generated code."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad


def compiled(source: str, name: str = "f", **kwargs) -> tuple[dict, dict]:
    """(the source's namespace, the generated module's namespace)."""
    source = textwrap.dedent(source)
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    generated: dict = {}
    exec(compile(generate(source, "t.py", [name], **kwargs).text, "grad.py", "exec"), generated)  # noqa: S102
    return user, generated


def refusal(source: str) -> UserError:
    with pytest.raises((UserError, UserErrors)) as info:
        generate(textwrap.dedent(source), "t.py")
    err = info.value
    return err.errors[0] if isinstance(err, UserErrors) else err


def test_augmented_assignment_on_a_shared_array_is_refused():
    err = refusal(
        """
        import numpy as np


        def f(x):
            y = x
            y += 1.0
            return np.sum(y * x)
        """
    )
    assert (err.code, err.line, err.col) == ("YS017", 7, 5)
    assert "'x' refers to the same array" in err.message and "y = y + ..." in err.message


def test_augmented_assignment_on_a_view_is_refused():
    err = refusal("import numpy as np\n\n\ndef f(x):\n    r = x[0]\n    r *= 2.0\n    return np.sum(r)\n")
    assert (err.code, err.line) == ("YS017", 6)
    assert "view" in err.message


def test_augmented_assignment_on_numbers_and_fresh_values_is_a_new_value():
    user, gen = compiled(
        """
        import numpy as np


        def f(x):
            s = 0.0
            s += np.sum(x * x)
            t = np.exp(x)
            t += 1.0
            return s * np.sum(t)
        """
    )
    x = np.array([0.3, -0.2])
    value, dx = gen["grad_f"](x)
    assert np.isclose(value, user["f"](x))
    assert_close(dx, numeric_grad(user["f"], (x,), 0), "dx")


def test_provenance_returns_to_the_caller_after_an_inlined_helper():
    source = "def l(x):\n    return x[0] + 3 * x[1]\n\n\ndef f(x):\n    return l(x) ** 4 - l(x) ** 2\n"
    tape = generate(source, "t.py", ["f"]).tapes["lower"][0]
    lines = {e.prim: e.span.line for e in tape.eqns}
    assert lines["getindex"] == 2 and lines["power"] == 6 and lines["sub"] == 6


def test_a_parameter_named_np_does_not_hide_numpy():
    user, gen = compiled(
        """
        import numpy


        def f(np, x):
            return numpy.sum(np * numpy.exp(x))
        """
    )
    a, x = np.array([1.0, 2.0]), np.array([0.1, 0.2])
    value, dnp, dx = gen["grad_f"](a, x)
    assert np.isclose(value, user["f"](a, x))
    assert_close(dnp, numeric_grad(user["f"], (a, x), 0), "dnp")
    assert_close(dx, numeric_grad(user["f"], (a, x), 1), "dx")


def test_generators_and_async_functions_are_refused_with_their_code():
    assert refusal("def f(x):\n    yield x\n").code == "YS016"
    assert refusal("async def f(x):\n    return x\n").code == "YS037"
    with pytest.raises(UserError) as info:
        generate("async def f(x):\n    return x\n", "t.py", ["f"])
    assert (info.value.code, info.value.line) == ("YS037", 1)


def test_bad_command_line_arguments_use_the_diagnostic_format(tmp_path):
    (tmp_path / "f.py").write_text("def f(x):\n    return x * x\n")
    for extra in (["--bogus"], ["--wrt", ","]):
        proc = subprocess.run(
            [sys.executable, "-m", "yota_s2s", str(tmp_path / "f.py"), *extra],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 2
        assert proc.stderr.strip().splitlines()[-1].startswith("yota-s2s: error: ")
        assert proc.stderr.strip().endswith("(YS005)")


def test_a_user_rule_for_a_numpy_function_is_emitted_by_its_numpy_name(tmp_path):
    rules = tmp_path / "my_rules.py"
    rules.write_text(
        "@diffrule(names=['numpy.ldexp'], shape='elementwise')\n"
        "def ldexp(x, n):\n"
        "    nondiff(n)\n"
        "    dx = dout * 2.0 ** n\n"
    )
    user, gen = compiled("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.ldexp(x, 3) ** 2)\n", rules=[rules])
    x = np.array([0.5, -1.5])
    value, dx = gen["grad_f"](x)
    assert np.isclose(value, user["f"](x))
    assert_close(dx, numeric_grad(user["f"], (x,), 0), "dx")


def test_a_not_implemented_gradient_points_at_the_call(tmp_path):
    rules = tmp_path / "my_rules.py"
    rules.write_text(
        "@diffrule(names=['numpy.spacing'], shape='elementwise')\ndef spacing(x):\n    dx = not_implemented('left for later')\n"
    )
    source = "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.spacing(x))\n"
    with pytest.raises(UserError) as info:
        generate(source, "t.py", rules=[rules])
    err = info.value
    assert (err.code, err.line, err.col) == ("YS107", 5, 19)
    assert err.source_line == "    return np.sum(np.spacing(x))"
    assert "left for later" in err.message


def test_dot_with_a_scalar_operand():
    user, gen = compiled("import numpy as np\n\n\ndef f(a, x):\n    return np.sum(np.dot(a, x) ** 2)\n")
    a, x = 1.5, np.array([0.5, -1.0, 2.0])
    value, da, dx = gen["grad_f"](a, x)
    assert np.isclose(value, user["f"](a, x))
    assert_close(da, numeric_grad(user["f"], (a, x), 0), "da")
    assert_close(dx, numeric_grad(user["f"], (a, x), 1), "dx")


def test_library_constants_as_defaults_and_float_gradients_stay_floats():
    _, gen = compiled("import numpy as np\n\n\ndef f(x, y, c=np.pi):\n    return x * y * c\n")
    value, dx, dy, dc = gen["grad_f"](2.0, 3.0)
    assert np.isclose(value, 6.0 * np.pi)
    assert np.isclose(dx, 3.0 * np.pi) and np.isclose(dy, 2.0 * np.pi) and np.isclose(dc, 6.0)


def test_a_gradient_equal_to_a_float_argument_is_a_float():
    _, gen = compiled("def f(x, y):\n    return x * y\n")
    _, dx, dy = gen["grad_f"](2.0, 3.0)
    assert type(dx) is float and dx == 3.0 and type(dy) is float and dy == 2.0


def test_mean_needs_no_shape_checks():
    text = generate("import numpy as np\n\n\ndef f(x):\n    return np.mean(x ** 2)\n", "t.py").text
    assert "_unbroadcast" not in text and "np.size" in text


def test_random_draws_are_never_merged_and_give_no_gradient():
    source = textwrap.dedent(
        """
        import numpy as np


        def f(mu):
            a = np.random.standard_normal(3)
            b = np.random.standard_normal(3)
            return np.sum(mu * a - mu * b)
        """
    )
    g = generate(source, "t.py")
    draws = [e for e in g.tapes["optimize"][0].eqns if e.prim == "standard_normal"]
    assert len(draws) == 2  # two calls, two values: CSE leaves impure primitives alone
    namespace: dict = {}
    exec(compile(g.text, "grad.py", "exec"), namespace)  # noqa: S102 - the generated module
    np.random.seed(0)
    value, dmu = namespace["grad_f"](np.ones(3))
    np.random.seed(0)
    a, b = np.random.standard_normal(3), np.random.standard_normal(3)
    assert np.isclose(value, np.sum(a - b)) and np.allclose(dmu, a - b)


@pytest.mark.parametrize("value", [True, False])
def test_a_draw_whose_value_is_unused_still_advances_the_generator(value):
    """The gradient draws what the function draws, in a loop too, so a draw after it sees the
    same stream (dead-code elimination keeps a loop or branch that draws)."""
    source = textwrap.dedent(
        """
        import numpy as np


        def f(mu, n):
            warmup = 0.0
            for _ in range(n):
                warmup = warmup + np.random.standard_normal()
            if n > 1:
                warmup = np.random.random()
            return np.sum(mu * np.random.standard_normal(3))
        """
    )
    namespace: dict = {}
    exec(compile(generate(source, "t.py", value=value).text, "grad.py", "exec"), namespace)  # noqa: S102
    np.random.seed(1)
    dmu = namespace["grad_f"](np.ones(3), 4)[-2]
    np.random.seed(1)
    np.random.standard_normal(4)
    np.random.random()
    assert np.array_equal(dmu, np.random.standard_normal(3))


def test_module_constants_unpacked_from_tuples_and_chained():
    user, gen = compiled(
        """
        import numpy as np

        A, (B, AXES) = 1.5, (2.0, [0, 1])
        C = D = 3


        def f(x):
            return np.sum(A * x**2 + B * np.sum(x, axis=tuple(AXES)) + C * D * x)
        """
    )
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    value, dx = gen["grad_f"](x)
    assert np.isclose(value, user["f"](x))
    assert np.allclose(dx, 3.0 * x + 2.0 * x.size + 9.0, rtol=1e-14)  # B * sum(x) counts once per entry


def test_static_parameters_from_module_constants_with_lists_and_infinities():
    user, gen = compiled(
        """
        import numpy as np

        AXES = ([1, 0], [0, 1])


        def f(x, y):
            return np.tensordot(x, y, axes=AXES) + np.linalg.norm(x, -np.inf) + np.linalg.norm(y, np.inf)
        """
    )
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    value, dx, dy = gen["grad_f"](x, y)
    assert np.isclose(value, user["f"](x, y))
    assert_close(dx, numeric_grad(user["f"], (x, y), 0), "dx")
    assert_close(dy, numeric_grad(user["f"], (x, y), 1), "dy")


def test_infinities_are_written_readably():
    text = generate("import numpy as np\n\n\ndef f(x):\n    return np.linalg.norm(x, -np.inf)\n", "t.py").text
    assert "ord=-float('inf')" in text and "1e309" not in text


def test_augmented_assignment_on_a_diagonal_view_is_refused():
    err = refusal("import numpy as np\n\n\ndef f(x):\n    d = np.diagonal(x)\n    d += 1.0\n    return np.sum(d)\n")
    assert (err.code, err.line) == ("YS017", 6)


def test_a_gradient_through_a_comparison_mask_stays_float(tmp_path):
    rules = tmp_path / "relu_rules.py"
    rules.write_text(
        "@diffrule(names=['mylib.relu'], shape='elementwise')\ndef relu(x):\n    dx = dout * greater(x, 0.0)\n"
    )
    source = "import numpy as np\nimport mylib\n\n\ndef f(x):\n    return np.sum(mylib.relu(x))\n"
    text = generate(source, "t.py", rules=[rules]).text
    namespace: dict = {"mylib": type(sys)("mylib")}
    namespace["mylib"].relu = lambda v: np.maximum(v, 0.0)
    sys.modules["mylib"] = namespace["mylib"]
    try:
        exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the generated module
        _, dx = namespace["grad_f"](np.array([-1.0, 2.0]))
    finally:
        del sys.modules["mylib"]
    assert dx.dtype == np.float64 and dx.tolist() == [0.0, 1.0]


def test_the_spread_gradient_of_a_sum_has_the_dtype_of_arithmetic():
    """np.full_like would keep an integer argument's dtype and truncate the gradient to 0.  An
    integer array is refused now (TypeError, as JAX's grad): a Python int still gives a float."""
    source = """
        import numpy as np


        def f(x, a):
            return np.mean(x + a)


        def g(x, n):
            for _ in range(n):
                x = x * 0.5
            return np.sum(x)
        """
    user, gen = compiled(source, "f")
    with pytest.raises(TypeError, match=r"grad_f\(\): the argument x is integer \(int64\)"):
        gen["grad_f"](np.arange(4), 2)
    value, dx, da = gen["grad_f"](np.arange(4.0), 2)
    assert value == user["f"](np.arange(4.0), 2)
    np.testing.assert_array_equal(dx, np.full(4, 0.25))
    assert dx.dtype == np.float64 and isinstance(da, float) and np.asarray(da).dtype == np.float64 and da == 1.0
    _, dx32, _ = gen["grad_f"](np.ones(4, np.float32), np.float32(2))
    assert dx32.dtype == np.float32  # a float32 argument keeps float32 gradients
    _, gen = compiled(source, "g")
    _, dx, _ = gen["grad_g"](np.arange(3.0), 3)
    np.testing.assert_array_equal(dx, np.full(3, 0.125))


@pytest.mark.parametrize(
    "body",
    [
        "v = x * 1.0\n    v[0] = 0.0\n    return np.sum(v) + v[1]",
        "v = x * 2.0\n    v[2] = 1.0\n    return np.sum(v * v) + v[1] + v[0] * 3.0",
        "v = np.exp(x)\n    v[1] = 0.5\n    v[3] = x[0]\n    return np.sum(v) + v[2] * v[0]",
    ],
)
def test_a_write_after_an_element_read_of_a_spread_gradient(body):
    """The gradient of ``v`` is the spread of the sum plus 1 at ``v[1]``, then ``v[0] = 0.0`` zeroes
    one element: the addition starts the in-place group on a new array (once a NameError)."""
    user, _ = compiled(f"import numpy as np\n\n\ndef f(x):\n    {body}\n")
    for value in (True, False):
        _, gen = compiled(f"import numpy as np\n\n\ndef f(x):\n    {body}\n", value=value)
        x = np.array([0.3, -1.2, 0.7, 2.0])
        result = gen["grad_f"](x.copy())
        if value:
            assert np.isclose(result[0], user["f"](x.copy()))
        assert_close(result[-1], numeric_grad(lambda a: user["f"](a.copy()), (x,), 0), "dx")


BRANCH_SHARING = {
    # a view in one branch (v[0] of a 2-D v): z *= 3.0 would change v
    "view": "if c > 0:\n        z = v[0]\n    else:\n        z = v * 2.0\n    z *= 3.0\n    return np.sum(z) + np.sum(v)",
    # the same view in both branches, z read only by its update
    "both": "if c > 0:\n        z = v[0]\n    else:\n        z = v[0]\n    z -= 1\n    return np.sum(v)",
    # an argument kept by one branch: z += 1.0 would change the caller's v
    "kept": "if c > 0:\n        z = v\n    else:\n        z = v * 2.0\n    z += 1.0\n    return np.sum(z) + np.sum(v)",
    # another name keeps the array one branch leaves in z
    "named": "z = v * 2.0\n    w = z\n    if c > 0:\n        z = z * 3.0\n    z += 1.0\n    return np.sum(z * w)",
    "expression": "z = v[0] if c > 0 else v * 2.0\n    z[0] = 5.0\n    return np.sum(z) + np.sum(v)",
    # a loop's result: a view an iteration makes, an array it keeps, or the view before it (no iteration)
    "loop_view": "for i in range(len(v)):\n        z = v[i]\n    z -= 1\n    return np.sum(v)",
    "loop_kept": "z = v * 1.0\n    for i in range(len(v)):\n        z = v\n    z += 1.0\n    return np.sum(v)",
    "loop_none": "z = v[0]\n    for i in range(len(v) - 2):\n        z = z * 2.0\n    z -= 1\n    return np.sum(v)",
    # the view a loop's first iteration updates (NumPy: v changes twice; once 17.0 for 21.0, exit 0)
    "carried_view": "z = v[0]\n    for i in range(2):\n        z += c\n    return np.sum(z) + np.sum(v)",
    "carried_kept": "z = v\n    while c < 3.0:\n        z -= 1.0\n        c = c + 1.0\n    return np.sum(z * v)",
}


@pytest.mark.parametrize("case", sorted(BRANCH_SHARING))
def test_an_update_of_an_array_a_branch_may_share_is_refused(case):
    """NumPy updates in place an array that one branch may leave shared (a view, or an array another
    name holds), so the other name changes too; the tool modelled the update as a new value (a wrong
    value, exit 0).  Refused like the same code without a branch."""
    source = f"import numpy as np\n\n\ndef f(v, c):\n    {BRANCH_SHARING[case]}\n"
    err = refusal(source)
    where = "in the loop at line" if case.startswith("loop") else "in a branch of the 'if' at line"
    where = "before the loop at line" if case.startswith("carried") else where
    assert err.code == "YS017" and where in err.message, err.message
    # what the update computes as a new array (the model the tool had): NumPy's value differs
    updates = {"z *= 3.0": "z = z * 3.0", "z -= 1": "z = z - 1", "z += 1.0": "z = z + 1.0", "z += c": "z = z + c"}
    updates["z[0] = 5.0"] = "z = z.copy()\n    z[0] = 5.0"
    model = source
    for old, new in updates.items():
        model = model.replace(old, new)
    user: dict = {}
    unshared: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    exec(compile(model, "t.py", "exec"), unshared)  # noqa: S102 - the test's own source
    v = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert any(user["f"](v.copy(), c) != unshared["f"](v.copy(), c) for c in (1.0, -1.0, 0.0))


def test_a_write_into_an_attribute_array_of_an_argument_is_refused():
    """``x = m.w; x[0] = 2.0`` changes ``m.w``, which a later ``m.w`` reads again; the tool read the
    argument's array anew (a wrong value and gradient, exit 0).  Refused, like a shared name."""
    source = (
        "import numpy as np\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass M:\n    w: np.ndarray\n\n\n"
        "def f(m):\n    x = m.w\n    x[0] = 2.0\n    return np.sum(x * m.w)\n"
    )
    err = refusal(source)
    assert err.code == "YS017" and "the argument's array m.w" in err.message and err.line == 12, err.message
    fresh = source.replace("x = m.w\n", "x = m.w.copy()\n")
    assert "def grad_f" in generate(fresh, "t.py").text


BRANCH_FRESH = {
    "fresh": "if c > 0:\n        z = v * 2.0\n    else:\n        z = v * 3.0\n    z += 1.0\n    return np.sum(z * z)",
    "kept_own": "z = v * 2.0\n    if c > 0:\n        z = z * 3.0\n    z += 1.0\n    return np.sum(z * z)",
    "renamed": "z = v * 2.0\n    if c > 0:\n        w = z\n        z = w * 3.0\n    z += 1.0\n    return np.sum(z * z)",
    "unread": "if c > 0:\n        z = v * 2.0\n    else:\n        z = v * 3.0\n    z -= 1\n    return np.sum(v * v)",
    "loop": "for i in range(2):\n        z = v * c\n    z -= 1\n    return np.sum(v * v)",
    "loop_fresh": "z = v * 2.0\n    for i in range(2):\n        z = z * c\n    z -= 1.0\n    return np.sum(z * z)",
    "expression": "z = v * 2.0 if c > 0 else v * c\n    z[0] = 5.0\n    return np.sum(z * z)",
}


@pytest.mark.parametrize("case", sorted(BRANCH_FRESH))
def test_an_update_after_a_branch_of_new_arrays_is_computed(case):
    """No branch shares the array: the update is computed (once refused with YS030 'unknown name'
    when the name was only updated after the branch: ``z -= 1`` reads z)."""
    user, gen = compiled(f"import numpy as np\n\n\ndef f(v, c):\n    {BRANCH_FRESH[case]}\n")
    for v, c in ((np.array([[1.0, 2.0], [3.0, 4.0]]), 1.5), (np.array([0.5, -1.0, 2.0]), -0.5)):
        value, dv, dc = gen["grad_f"](v.copy(), c)
        assert np.isclose(value, user["f"](v.copy(), c))
        assert_close(dv, numeric_grad(lambda a, b: user["f"](a.copy(), b), (v, c), 0), "dv")
        numeric = numeric_grad(lambda a, b: user["f"](a.copy(), b), (v, c), 1)
        if dc is None:  # c only chooses the branch
            assert numeric == 0.0
        else:
            assert_close(dc, numeric, "dc")


@pytest.mark.parametrize(
    "body",
    [
        "w = v * 2.0\n    z = w if c > 0 else v * 3.0\n    w *= 3.0\n    return np.sum(z)",
        "w = v * 2.0\n    if c > 0:\n        z = w\n    else:\n        z = v * 3.0\n    w += 1.0\n    return np.sum(z * v)",
        "w = v * 2.0\n    z = v * 3.0\n    for i in range(2):\n        z = w\n    w -= 1.0\n    return np.sum(z)",
    ],
)
def test_an_update_of_an_array_another_name_may_hold_after_a_branch_is_refused(body):
    """``z = w if c > 0 else u; w *= 3.0``: NumPy changes ``z`` too where the branch kept ``w``; the
    tool updated ``w`` as a new value (the fuzzer's ALIAS_BRANCH, a wrong value with exit 0)."""
    source = f"import numpy as np\n\n\ndef f(v, c):\n    {body}\n"
    err = refusal(source)
    assert err.code == "YS017" and "'z' may refer to the same array" in err.message, err.message
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    model: dict = {}
    new = (
        source.replace("w *= 3.0", "w = w * 3.0").replace("w += 1.0", "w = w + 1.0").replace("w -= 1.0", "w = w - 1.0")
    )
    exec(compile(new, "t.py", "exec"), model)  # noqa: S102 - the test's own source
    v = np.array([1.0, 2.0])
    assert user["f"](v.copy(), 1.0) != model["f"](v.copy(), 1.0)  # NumPy's value is not the model's


@pytest.mark.parametrize("call", ["np.prod(y, axis=0)", "np.prod(y, axis=-1, keepdims=True)", "np.cumsum(y, axis=0)"])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_a_reduction_over_axis_0_of_a_0d_array(call, shape):
    """NumPy reduces a 0-d array over axis 0 or -1 to itself (cumsum makes it 1-d): the gradient
    once took the axis modulo a rank of 0 (ZeroDivisionError)."""
    user, generated = compiled(f"import numpy as np\n\n\ndef f(y):\n    return np.sum(np.sin({call}))\n")
    y = np.linspace(0.4, 0.9, 3).reshape(shape) if shape else np.array(0.7)
    value, dy = generated["grad_f"](y)
    assert np.shape(dy) == shape and np.isclose(value, user["f"](y))
    assert_close(dy, numeric_grad(user["f"], (y,), 0), f"dy of {call}")


@pytest.mark.parametrize(
    ("expr", "shapes"),
    [
        ("np.sum(x + y)", [(), (0,)]),
        ("np.sum(x * y) + np.sum(x)", [(), (0,)]),
        ("np.sum(x + y)", [(1,), (0,)]),
        ("np.sum(x + y)", [(), (3,)]),
        ("np.sum(np.einsum('ij,j->i', y, x))", [(0,), (1, 1)]),
        ("np.sum(np.einsum('ij,j->i', y, x))", [(1,), (2, 3)]),
        ("np.sum(np.einsum('ij,j->i', y, x))", [(3,), (2, 3)]),
        ("np.sum(np.mean(x, axis=1)) + np.sum(y)", [(0, 1), (0,)]),
        ("np.sum(np.prod(np.outer(x, x), axis=1)) + np.sum(y)", [(0,), (0,)]),
        ("np.sum(np.prod(np.outer(x, y), axis=1))", [(2,), (0,)]),
        ("np.sum(np.prod(np.outer(x, y), axis=0))", [(2,), (0,)]),
    ],
)
def test_gradients_with_empty_arrays(expr, shapes):
    """The spread gradient of a sum once divided by the size of an empty array (0 / 0), and
    einsum's adjoint took a length-1 axis broadcast against a 0-length one as length 1."""
    user, generated = compiled(f"import numpy as np\n\n\ndef f(x, y):\n    return {expr}\n")
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(s) if s else np.array(0.7) for s in shapes]
    value, *grads = generated["grad_f"](*args)
    assert np.isclose(value, user["f"](*args))
    for i, g in enumerate(grads):
        assert np.shape(g) == shapes[i]
        assert_close(g, numeric_grad(user["f"], args, i), f"d{i} of {expr} at {shapes}")


#: A power of a comparison's result: NumPy's ``b ** 2`` is an integer (int8 for an array of bools),
#: ``b * b`` a bool, whose log1p is a float16: the strength reduction keeps the power for values
#: that may be bools, there and where a loop, a branch or ``np.where`` carries them.
BOOL_POWERS = {
    "straight": "    b = z >= 0.25\n    return np.sum(np.log1p(b ** 2) + z * z)\n",
    "cubed": "    b = z > 0.0\n    return np.sum(np.log1p(b ** 3 - 0.5) * z)\n",
    "where": "    b = np.where(z > 0.0, z < 1.0, z < -1.0)\n    return np.sum(np.log1p(b ** 2) + z ** 2)\n",
    "in_a_loop": "    b = z >= 0.25\n    s = 0.0\n    for i in range(3):\n        s = s + np.sum(np.log1p(b ** 2) * z)\n"
    "    return s\n",
    "carried": "    b = z > 5.0\n    s = 0.0\n    for i in range(2):\n        s = s + np.sum(np.log1p(b ** 2) * z)\n"
    "        b = z > 0.0\n    return s\n",
    "branch": "    if np.sum(z) > 0.0:\n        b = z > 0.5\n    else:\n        b = z < 0.5\n"
    "    return np.sum(np.log1p(b ** 2) + z)\n",
}


@pytest.mark.parametrize("case", sorted(BOOL_POWERS))
def test_a_power_of_a_comparison_keeps_numpys_dtype(case):
    source = "import numpy as np\n\n\ndef f(z):\n" + BOOL_POWERS[case]
    user, generated = compiled(source)
    for z in (np.array([0.3, -0.4, 0.7]), np.array([0.9, 1.5]), np.array(0.6), np.array([-0.3, -0.2])):
        value, dz = generated["grad_f"](z.copy())
        assert value == pytest.approx(user["f"](z.copy()), rel=1e-12), (case, z)
        assert_close(dz, numeric_grad(user["f"], [z.copy()], 0), f"{case}: dz")


def test_a_power_of_a_float_is_still_a_product():
    text = generate("import numpy as np\n\n\ndef f(x):\n    b = x > 0.0\n    return np.sum(x ** 3 + b)\n", "t.py").text
    assert "_t1 = x * x" in text and "f = np.sum(_t1 * x + b)" in text


@pytest.mark.parametrize(
    ("body", "code", "col", "message"),
    [
        ("i = 3[0]", "YS047", 9, "'int' object is not subscriptable"),
        ("i = None[0]", "YS047", 9, "'NoneType' object is not subscriptable"),
        ("i = True[0]", "YS047", 9, "'bool' object is not subscriptable"),
        ("i = 2.5[1:2]", "YS047", 9, "'float' object is not subscriptable"),
        ("c = 2.0\n    i = c[n]", "YS047", 9, "'float' object is not subscriptable"),
        ("i = 3.0.T", "YS047", 9, "'float' object has no attribute 'T'"),
        ("i = None.shape", "YS047", 9, "'NoneType' object has no attribute 'shape'"),
        ("c = None\n    i = c.x", "YS047", 9, "'NoneType' object has no attribute 'x'"),
        ("i = (1.0)(x)", "YS020", 10, "not callable"),
        ("i = None(x)", "YS020", 9, "not callable"),
    ],
)
def test_a_constant_indexed_called_or_read_for_a_missing_attribute_is_a_located_error(body, code, col, message):
    """Python raises TypeError or AttributeError on these; they once crashed lowering
    (``internal error: 'Lit' object has no attribute 'hint'``)."""
    err = refusal(f"import numpy as np\n\n\ndef f(x, n):\n    {body}\n    return np.sum(x) * i\n")
    assert (err.code, err.line, err.col) == (code, 5 + body.count("\n"), col), err
    assert message in err.message


def test_a_constant_indexed_exits_2_with_a_located_error_on_the_command_line(tmp_path):
    (tmp_path / "f.py").write_text("def f(x):\n    i = 3[0]\n    return x\n")
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s", str(tmp_path / "f.py"), "--out", str(tmp_path / "g.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert f"{tmp_path / 'f.py'}:2:9: error: 'int' object is not subscriptable" in proc.stderr
    assert proc.stderr.rstrip().endswith("^") and not (tmp_path / "g.py").exists()


def test_a_constant_s_own_attribute_and_a_tuple_constant_s_item_are_still_read():
    source = (
        "import numpy as np\n\nW = (0.5, 2.0)\n\n\ndef f(x):\n    return np.sum(x * W[1]) * 3.0.real + (2.0).imag\n"
    )
    user, generated = compiled(source)
    x = np.array([0.3, -1.2])
    value, dx = generated["grad_f"](x.copy())
    assert value == pytest.approx(user["f"](x.copy()))
    assert_close(dx, numeric_grad(user["f"], [x.copy()], 0), "dx")


def test_an_integer_exponent_parameter_at_a_negative_base_has_a_finite_gradient():
    """``x ** n`` with an int ``n`` and ``x < 0``: d/dn is ``x ** n * log|x|`` (the slope of the
    real part of ``x ** p`` at the integer), not NaN from ``log(x)``; at ``x > 0`` it is the
    derivative in ``n`` as before (checked against finite differences with a float ``n``), at
    ``x == 0`` 0."""
    user, generated = compiled("import numpy as np\n\n\ndef f(x, n):\n    return np.sum(x ** n)\n")
    x = np.array([-1.5, -0.5, 0.0, 0.75, 2.0])
    for n in (0, 1, 2, 3):
        value, dx, dn = generated["grad_f"](x.copy(), n)
        assert value == pytest.approx(user["f"](x.copy(), n))
        assert_close(dx, numeric_grad(user["f"], [x.copy(), n], 0), f"dx at n = {n}")
        expected = np.sum(np.where(x == 0, 0.0, x**n * np.log(np.abs(np.where(x == 0, 1.0, x)))))
        assert np.isfinite(dn) and dn == pytest.approx(expected), n
    positive = np.array([0.5, 1.5, 2.0])
    for n in (2.0, 3.0):
        _, _, dn = generated["grad_f"](positive.copy(), n)
        assert_close(dn, numeric_grad(user["f"], [positive.copy(), n], 1), f"dn at n = {n}")
    _, _, dn = generated["grad_f"](np.array([-1.5, 2.0]), np.array([2.0, 3.0]))  # integer-valued floats
    np.testing.assert_allclose(dn, [2.25 * np.log(1.5), 8.0 * np.log(2.0)])
    with pytest.raises(TypeError, match="argument n is integer"):  # an integer array has no gradient buffer
        generated["grad_f"](np.array([-1.5, 2.0]), np.array([2, 3]))


@pytest.mark.parametrize(
    "body",
    [
        "v = np.minimum(x, 0.5)\n    for r in v:\n        v *= x\n        s = r\n    return s",
        "v = x * 2.0\n    s = 0.0\n    for i, r in enumerate(v):\n        v[len(v) - 1 - i] = r * 3.0\n        s = s + r\n    return s",
    ],
)
def test_an_in_place_update_of_the_array_a_loop_iterates_over_is_refused(body):
    """``for r in v: v *= x``: NumPy's later rows see the update; the tool read the rows of ``v``
    as it was before the loop (the fuzzer's seeds 25658, 25811, 26028: wrong values, exit 0)."""
    source = f"import numpy as np\n\n\ndef f(x):\n    {body}\n"
    err = refusal(source)
    assert err.code == "YS017" and "iterates over it" in err.message, err.message


def test_a_loop_over_the_indices_of_an_array_it_writes_is_computed():
    source = (
        "import numpy as np\n\n\ndef f(x):\n    v = x * 2.0\n    for i in range(len(v)):\n"
        "        r = v[i]\n        v[i] = r * r\n    return np.sum(v)\n"
    )
    user, gen = compiled(source)
    x = np.array([0.3, -1.2, 0.7])
    value, dx = gen["grad_f"](x.copy())
    assert np.isclose(value, user["f"](x.copy()))
    assert_close(dx, numeric_grad(lambda a: user["f"](a.copy()), (x,), 0), "dx")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        # a view of the array, held by another name (np.expand_dims, .T): fuzzer seed 35679
        ("v = x * 2.0\n    w = np.expand_dims(v, 0)\n    v *= 0.5\n    return np.sum(w)", "'w' may be a view"),
        # a name a branch may bind to the array a loop then updates in place: fuzzer seed 30063
        (
            (
                "v = np.tanh(x)\n    w = x\n    if np.sum(x) > 0.0:\n        w = v\n    for r in range(2):\n"
                "        v += 0.5\n    return np.sum(w)"
            ),
            "'w' may refer to the same array",
        ),
    ],
)
def test_an_update_another_name_sees_through_a_view_or_a_branch_is_refused(body, why):
    source = f"import numpy as np\n\n\ndef f(x):\n    {body}\n"
    err = refusal(source)
    assert err.code == "YS017" and why in err.message, err.message
