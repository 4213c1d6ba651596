"""Complex differentiation (issue 24, docs/complex.md): every rule on complex values against finite
differences in the real and the imaginary directions (and SymPy for the scalar ones), complex
losses in several forms, --holomorphic against the complex difference quotient, the refusals."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

EPS = 1e-6


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def compiled(source: str, name: str = "f", **kwargs) -> tuple[dict, dict, str]:
    """(the source's namespace, the generated module's namespace, the generated text)."""
    source = src(source)
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    text = generate(source, "t.py", [name], **kwargs).text
    generated: dict = {}
    exec(compile(text, "grad.py", "exec"), generated)  # noqa: S102 - the code under test
    return user, generated, text


def refusal(source: str, **kwargs) -> UserError:
    with pytest.raises((UserError, UserErrors)) as info:
        generate(src(source), "t.py", **kwargs)
    error = info.value
    return error.errors[0] if isinstance(error, UserErrors) else error


def complex_fd(f, args: list, i: int, eps: float = EPS):
    """``dL/dRe + 1j * dL/dIm`` of the real ``L = f(*args)`` with respect to ``args[i]``, by central
    differences in both directions (only the real one for a real argument)."""
    a = args[i]
    scalar = np.ndim(a) == 0 and not isinstance(a, np.ndarray)
    x = np.array(a)
    directions = (1.0, 1j) if np.iscomplexobj(x) else (1.0,)
    out = np.zeros(x.shape, complex if np.iscomplexobj(x) else float)
    for idx in np.ndindex(x.shape):
        for d in directions:
            up, down = x.astype(complex if d == 1j else x.dtype), x.astype(complex if d == 1j else x.dtype)
            up[idx] += eps * d
            down[idx] -= eps * d
            if scalar:
                up, down = up[()], down[()]
            hi = f(*args[:i], up, *args[i + 1 :])
            lo = f(*args[:i], down, *args[i + 1 :])
            assert np.isrealobj(hi), "the loss must be real"
            out[idx] += d * (hi - lo) / (2 * eps)
    return out[()] if scalar else out


def check(user_f, grad_f, args: list, rtol: float = 1e-6) -> tuple:
    """Run ``grad_f``: its value is ``user_f``'s; each gradient is the finite differences in the real and
    the imaginary directions; a real argument's gradient is real."""
    value, *grads = grad_f(*args)
    assert np.allclose(value, user_f(*args), rtol=1e-12)
    assert np.isrealobj(value)
    for i, g in enumerate(grads):
        if g is None:
            continue
        expected = complex_fd(user_f, args, i)
        if not np.iscomplexobj(np.asarray(args[i])) and not np.iscomplexobj(expected):
            assert np.isrealobj(g), f"d{i}: a real argument's gradient must be real, got {np.asarray(g).dtype}"
        scale = max(1.0, float(np.max(np.abs(expected))))
        assert np.allclose(g, expected, rtol=rtol, atol=rtol * scale), f"d{i}: {g} != {expected}"
    return value, *grads


RNG = np.random.default_rng(24)


def crandom(*shape: int) -> np.ndarray | complex:
    """Complex numbers in the right half-plane away from 0 (log, sqrt, angle are smooth there)."""
    value = 1.2 + RNG.uniform(0.0, 1.0, shape) + 1j * RNG.uniform(-0.8, 0.8, shape)
    return complex(value) if shape == () else value


# ============================================================================= each rule on complex values


#: (expression of z and y, shape of z, shape of y or None, is y complex).  The loss is
#: sum(real(w * v)) with a complex w, so both the real and the imaginary part of v are read.
RULES = [
    ("z + y", (3,), (3,), True),
    ("z + y", (2, 3), (3,), False),
    ("z - y", (3,), (), True),
    ("y - z", (3,), (3,), False),
    ("z * y", (3,), (3,), True),
    ("z * y", (2, 3), (3,), False),
    ("z / y", (3,), (3,), True),
    ("y / z", (3,), (3,), False),
    ("-z", (3,), None, False),
    ("z ** 3", (3,), None, False),
    ("z ** 2.5", (3,), None, False),
    ("z ** y", (3,), (3,), True),
    ("z ** y", (3,), (3,), False),
    ("y ** z", (3,), (3,), False),
    ("np.square(z)", (3,), None, False),
    ("np.reciprocal(z)", (3,), None, False),
    ("1.0 / z", (3,), None, False),
    ("np.exp(z)", (3,), None, False),
    ("np.log(z)", (3,), None, False),
    ("np.sqrt(z)", (3,), None, False),
    ("np.sin(z)", (3,), None, False),
    ("np.cos(z)", (3,), None, False),
    ("np.tan(z)", (3,), None, False),
    ("np.sinh(z)", (3,), None, False),
    ("np.cosh(z)", (3,), None, False),
    ("np.tanh(z)", (3,), None, False),
    ("np.expm1(z)", (3,), None, False),
    ("np.log1p(z)", (3,), None, False),
    ("np.log10(z)", (3,), None, False),
    ("np.conj(z)", (3,), None, False),
    ("z.conj() * y", (3,), (3,), True),
    ("np.conjugate(z)", (3,), None, False),
    ("np.real(z)", (3,), None, False),
    ("z.real * y", (3,), (3,), True),
    ("np.imag(z)", (3,), None, False),
    ("z.imag * y", (3,), (3,), False),
    ("np.abs(z)", (3,), None, False),
    ("abs(z) * y", (3,), (3,), True),
    ("np.angle(z)", (3,), None, False),
    ("np.sum(z, axis=0)", (2, 3), None, False),
    ("np.mean(z)", (2, 3), None, False),
    ("np.cumsum(z)", (4,), None, False),
    ("z @ y", (2, 3), (3, 2), True),
    ("z @ y", (2, 3), (3,), False),
    ("y @ z", (3, 3), (2, 3), False),
    ("np.dot(z, y)", (3,), (3,), True),
    ("z[1:] * y[0]", (3,), (2,), True),
    ("z[0, 1] + z[1]", (2, 3), None, False),
    ("np.array([z[0], z[1] * y, y])", (2,), (), False),
    ("np.stack([z, y])", (3,), (3,), True),
    ("z.T", (2, 3), None, False),
    ("z.reshape(-1)", (2, 3), None, False),
    ("np.transpose(z) @ y", (3, 2), (3,), True),
    ("np.where(np.real(y) > 1.5, z, y)", (3,), (3,), True),
    ("np.exp2(z)", (3,), None, False),
    ("np.log2(z)", (3,), None, False),
    ("np.concatenate([z, y])", (3,), (2,), True),
    ("np.hstack([z, y])", (3,), (2,), False),
    ("np.vstack([z, y])", (3,), (3,), True),
    ("z.ravel()", (2, 3), None, False),
    ("z.flatten()", (2, 3), None, False),
    ("np.asarray(z)", (3,), None, False),
    ("z.copy()", (3,), None, False),
    ("np.expand_dims(z, 0)", (3,), None, False),
    ("np.squeeze(z)", (1, 3), None, False),
    ("np.flip(z)", (3,), None, False),
    ("np.trace(z)", (3, 3), None, False),
    ("np.diagonal(z)", (3, 3), None, False),
    ("np.real(np.sum(z, axis=1, keepdims=True) * y)", (2, 3), (2, 3), True),
]


@pytest.mark.parametrize(
    ("expr", "zshape", "yshape", "ycomplex"), RULES, ids=[f"{r[0]}-{i}" for i, r in enumerate(RULES)]
)
def test_each_rule_on_complex_values_matches_finite_differences(expr, zshape, yshape, ycomplex):
    params = ["z: complex"] + ([f"y{': complex' if ycomplex else ''}"] if yshape is not None else [])
    source = f"import numpy as np\n\n\ndef f({', '.join(params)}, w: complex):\n"
    source += f"    v = {expr}\n    return np.sum(np.real(w * v))\n"
    wrt = ["z", "y"] if yshape is not None else ["z"]
    user, gen, _ = compiled(source, wrt=wrt)
    args: list = [crandom(*zshape)]
    if yshape is not None:
        args.append(crandom(*yshape) if ycomplex else 1.1 + RNG.uniform(0.0, 1.0, yshape))
    w_shape = np.shape(user["f"](*args, 1.0 + 0j))
    assert w_shape == ()
    out_shape = np.shape(eval(expr, {"np": np}, dict(zip(["z", "y"], args))))
    args.append(RNG.standard_normal(out_shape) + 1j * RNG.standard_normal(out_shape))
    check(user["f"], lambda *a: gen["grad_f"](*a), args)


#: Scalar rules against SymPy: the loss re(w * f(a + ib)) differentiated in a and b exactly.
SYMPY_RULES = {
    "np.exp(z)": sympy.exp,
    "np.log(z)": sympy.log,
    "np.sqrt(z)": sympy.sqrt,
    "np.sin(z)": sympy.sin,
    "np.cos(z)": sympy.cos,
    "np.tan(z)": sympy.tan,
    "np.tanh(z)": sympy.tanh,
    "z ** 3": lambda z: z**3,
    "z ** 2.5": lambda z: z ** sympy.Rational(5, 2),
    "1.0 / z": lambda z: 1 / z,
    "np.conj(z)": sympy.conjugate,
    "np.real(z)": sympy.re,
    "np.imag(z)": sympy.im,
    "np.abs(z)": sympy.Abs,
    "np.angle(z)": sympy.arg,
}


@pytest.mark.parametrize("expr", list(SYMPY_RULES))
def test_scalar_complex_rules_match_sympy(expr):
    a, b = sympy.symbols("a b", real=True)
    w = 0.7 - 1.3j
    loss = sympy.re(sympy.nsimplify(w) * SYMPY_RULES[expr](a + sympy.I * b))
    source = f"import numpy as np\n\n\ndef f(z: complex, w: complex):\n    return np.real(w * {expr})\n"
    _, gen, _ = compiled(source, wrt=["z"])
    for point in (1.3 + 0.4j, 0.6 - 0.9j, 2.1 + 1.7j):
        subs = {a: point.real, b: point.imag}
        expected = complex(sympy.N(sympy.diff(loss, a).subs(subs))) + 1j * complex(
            sympy.N(sympy.diff(loss, b).subs(subs))
        )
        _, dz = gen["grad_f"](point, w)
        assert abs(dz - expected) < 1e-10 * max(1.0, abs(expected)), (expr, point, dz, expected)


# ============================================================================= complex losses in several forms


def test_complex_intermediates_of_real_parameters_give_real_gradients():
    user, gen, text = compiled(
        """
        import numpy as np


        def f(x, c):
            return np.sum(np.abs(np.exp(1j * x) * c) ** 2) + np.sum(np.real(np.exp(1j * x) * c))
        """
    )
    _, dx, dc = check(user["f"], gen["grad_f"], [RNG.standard_normal(4), RNG.standard_normal(4)])
    assert dx.dtype == np.float64 and dc.dtype == np.float64
    assert "np.real(" in text


def test_a_polynomial_with_complex_coefficients_at_real_points():
    source = """
        import numpy as np

        COEFFS = (0.5 + 1j, -2.0, 1.5j, 0.25 - 0.5j)


        def horner(t, coeffs):
            acc = 0.0
            for c in coeffs:
                acc = acc * t + c
            return acc


        def f(x, a):
            p = horner(x, COEFFS) + a * (1.0 - 2j) * x ** 2
            return np.sum(np.abs(p) ** 2)
        """
    user, gen, _ = compiled(source)
    _, _, da = check(user["f"], gen["grad_f"], [RNG.standard_normal(5), 0.3])
    assert isinstance(da, float)


def test_the_issue_program_a_real_loss_through_a_complex_helper():
    source = """
        def p(z):
            return (0.5 + 2j) * z * z + 1.0


        def loss(a, b):
            return abs(p(a + 1j * b)) ** 2
        """
    user, gen, _ = compiled(source, "loss")
    check(user["loss"], gen["grad_loss"], [0.7, -0.3])


def test_a_complex_parameter_gets_dre_plus_1j_dim():
    """|z|**2 has the gradient 2z (PyTorch's z.grad; JAX's grad gives its conjugate 2 conj(z))."""
    user, gen, _ = compiled("import numpy as np\n\n\ndef f(z: complex):\n    return np.sum(np.abs(z) ** 2)\n")
    z = np.array([1.0 + 2.0j, -0.5 + 0.25j])
    _, dz = check(user["f"], gen["grad_f"], [z])
    assert np.allclose(dz, 2 * z)
    _, dz = gen["grad_f"](np.array([1.5, -2.0]))  # a real value of a complex parameter: the same formula
    assert np.allclose(dz, [3.0, -4.0])


@pytest.mark.parametrize(
    "annotation", ["complex", "np.complex128", "complex | np.ndarray", "'complex'", "np.ndarray | np.complex64"]
)
def test_a_parameter_is_declared_complex_by_its_annotation(annotation):
    user, gen, _ = compiled(
        f"import numpy as np\n\n\ndef f(z: {annotation}, x):\n    return np.sum(np.abs(z * x) ** 2)\n"
    )
    check(user["f"], gen["grad_f"], [crandom(3), RNG.standard_normal(3)])


def test_a_real_loss_of_complex_parameters_in_several_forms():
    source = """
        import numpy as np


        def f(z: complex, A: complex, x):
            y = A @ z
            r = np.real(np.sum(y * np.conj(y)))
            s = 0.0
            for k in range(3):
                if k % 2 == 0:
                    s = s + np.imag(np.sum(np.log(z) * k))
                else:
                    s = s + np.sum(np.abs(z - x) ** 1.5)
            phase = np.sum(np.angle(z) * x)
            return r + s + phase + np.mean(np.real(np.exp(1j * x) / z))
        """
    user, gen, _ = compiled(source)
    args = [crandom(3), crandom(2, 3), RNG.standard_normal(3)]
    _, dz, dA, dx = check(user["f"], gen["grad_f"], args)
    assert dz.dtype == dA.dtype == np.complex128 and dx.dtype == np.float64


def test_gradient_descent_on_a_complex_parameter_converges():
    """The convention's point: z - lr * dz decreases a real loss (no conjugation needed)."""
    user, gen, _ = compiled(
        "import numpy as np\n\n\ndef f(z: complex, t: complex):\n    return np.sum(np.abs(z * z - t) ** 2)\n", wrt=["z"]
    )
    t = np.array([1.0 + 1.0j, -2.0 + 0.5j])
    z = np.array([1.0 + 0.2j, 0.3 + 1.1j])
    for _ in range(300):
        _, dz = gen["grad_f"](z, t)
        z = z - 0.05 * dz
    assert user["f"](z, t) < 1e-10


# ============================================================================= --holomorphic


HOLOMORPHIC = [
    "z ** 3 * np.exp(1j * z) / (z + 2.0) + np.log(z) * np.sqrt(z) - 1.0 / z",
    "np.sin(z) * np.cos(z) + np.tanh(z) ** 2",
    "(1.0 + 2j) * z ** (0.5 + 1j)",
    "np.sum(np.exp(z * np.array([1.0, 2j, -0.5])))",
]


@pytest.mark.parametrize("expr", HOLOMORPHIC)
def test_holomorphic_gives_the_complex_derivative(expr):
    user, gen, text = compiled(f"import numpy as np\n\n\ndef f(z):\n    return {expr}\n", mode="holomorphic")
    assert "np.conj" not in text
    f = user["f"]
    for z in (1.3 - 0.4j, 0.7 + 1.1j):
        value, dz = gen["grad_f"](z)
        assert np.isclose(value, f(z))
        along_re = (f(z + EPS) - f(z - EPS)) / (2 * EPS)
        along_im = (f(z + 1j * EPS) - f(z - 1j * EPS)) / (2j * EPS)
        assert np.isclose(dz, along_re, rtol=1e-7) and np.isclose(dz, along_im, rtol=1e-7)


def test_holomorphic_with_respect_to_two_parameters():
    user, gen, _ = compiled("import numpy as np\n\n\ndef f(z, p):\n    return z ** p * np.exp(p)\n", mode="holomorphic")
    z, p = 1.2 + 0.5j, 0.8 - 0.3j
    _, dz, dp = gen["grad_f"](z, p)
    f = user["f"]
    assert np.isclose(dz, (f(z + EPS, p) - f(z - EPS, p)) / (2 * EPS), rtol=1e-7)
    assert np.isclose(dp, (f(z, p + 1j * EPS) - f(z, p - 1j * EPS)) / (2j * EPS), rtol=1e-7)


@pytest.mark.parametrize(
    ("expr", "what"),
    [
        ("np.conj(z) * z", "the conjugate"),
        ("np.real(z) + z", "the real part"),
        ("z.imag * z", "the imaginary part"),
        ("np.abs(z) * z", "the absolute value"),
        ("np.angle(z) + z", "the angle"),
    ],
)
def test_holomorphic_refuses_what_is_not_holomorphic(expr, what):
    error = refusal(f"import numpy as np\n\n\ndef f(z):\n    return {expr}\n", mode="holomorphic")
    assert (error.code, error.line) == ("YS023", 5)
    assert error.message.startswith(f"{what} (") and "not holomorphic" in error.message


# ============================================================================= what is refused


@pytest.mark.parametrize(
    ("expr", "named"),
    [
        ("np.maximum(z, 1.0)", "np.maximum"),
        ("np.sort(z)", "np.sort"),
        ("np.arcsinh(z)", "np.arcsinh"),
        ("np.prod(z)", "np.prod"),
    ],
)
def test_a_primitive_without_a_complex_rule_is_refused_where_it_is_written(expr, named):
    error = refusal(f"import numpy as np\n\n\ndef f(z: complex):\n    v = 2.0 * {expr}\n    return np.sum(np.abs(v))\n")
    assert (error.code, error.line, error.col) == ("YS022", 5, 15)
    assert error.message.startswith(f"{named} of a complex value: no complex derivative rule")


def test_a_primitive_without_a_complex_rule_of_a_constant_complex_value_runs():
    # no gradient goes through np.sort(c): nothing to refuse
    user, gen, _ = compiled(
        "import numpy as np\n\n\ndef f(x, c: complex):\n    return np.sum(np.abs(x * np.sort(c)) ** 2)\n", wrt=["x"]
    )
    check(user["f"], gen["grad_f"], [RNG.standard_normal(3), crandom(3)])


def test_a_complex_value_is_refused_for_a_gradient():
    error = refusal("import numpy as np\n\n\ndef f(x):\n    return np.sum(x * 1j)\n")
    assert (error.code, error.line) == ("YS022", 5)
    assert "may be complex: a gradient is taken of a real value" in error.message


@pytest.mark.parametrize("mode", ["vjp", "jacobian", "jvp", "hvp", "hessian"])
def test_complex_values_in_the_other_modes(mode):
    source = "import numpy as np\n\n\ndef f(x):\n    return np.abs(np.exp(1j * x))\n"
    if mode == "vjp":  # the gradient's convention, any function (tests/test_complex_modes.py)
        vjp = {}
        exec(generate(source, "f.py", mode="vjp").text, vjp)  # noqa: S102 - the tool's output
        assert np.allclose(vjp["vjp_f"](np.array([0.3, 2.0]), np.array([1.0, -1.0]))[1], 0.0)  # (|exp(1j x)| is 1)
        return
    if mode in ("hvp", "hessian"):  # a real f of a real x: its Hessian (tests/test_complex_second.py)
        second = {}
        exec(generate(source, "f.py", mode=mode).text, second)  # noqa: S102 - the tool's output
        H = second["hvp_f" if mode == "hvp" else "hess_f"](0.3, *([1.0] if mode == "hvp" else []))[2]
        assert H == 0.0  # (|exp(1j x)| is 1)
        return
    error = refusal(source, mode=mode)
    assert error.code == "YS023" and f"--{mode} of complex values" in error.message  # (tests/test_complex_jacobian.py)


def test_a_complex_argument_of_a_real_parameter_is_a_type_error():
    _, gen, _ = compiled("import numpy as np\n\n\ndef f(x, z: complex):\n    return np.sum(np.abs(x * z) ** 2)\n")
    with pytest.raises(TypeError, match=r"grad_f\(\): the argument x is complex .*declare x: complex if it may be"):
        gen["grad_f"](np.array([1.0 + 1j]), np.array([2.0 + 0j]))
    gen["grad_f"](np.array([1.0]), np.array([2.0 + 1j]))  # z may be complex


# ============================================================================= the generated code


@pytest.mark.parametrize("target", ["numpy", "cupy"])
def test_the_generated_code_is_ruff_clean_and_uses_its_module_only(target, tmp_path):
    source = src(
        """
        import numpy as np


        def f(z: complex, x):
            y = np.exp(1j * x) * z
            return np.sum(np.abs(y) ** 2) + np.sum(np.angle(y)) + np.sum(np.imag(np.log(y)))
        """
    )
    text = generate(source, "t.py", target=target).text
    prefix = "cp." if target == "cupy" else "np."
    assert f"{prefix}conj(" in text and f"{prefix}real(" in text
    if target == "cupy":  # (generate checks that every cp. name is CuPy's: BACKENDS["cupy"].check_module)
        code = "\n".join(line.split("#")[0] for line in text.splitlines())
        assert not re.search(r"\bnp\.(conj|real|imag|angle|abs)\(", code)
    path = tmp_path / "grad.py"
    path.write_text(text)
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(path)], check=False, capture_output=True, text=True
    )
    assert ruff.returncode == 0, ruff.stdout


# ============================================================================= check_grads and --verify


def test_check_grads_draws_complex_directions():
    from yota_s2s.verify import check_grads

    user, gen, _ = compiled(
        "import numpy as np\n\n\ndef f(z: complex, x):\n    return np.sum(np.abs(np.exp(z) * x - 1j) ** 2)\n"
    )
    args = (crandom(3), RNG.standard_normal(3))
    check_grads(user["f"], gen["grad_f"], args)
    check_grads(user["f"], gen["grad_f"], (np.array([0.5, 1.0, -0.3]), args[1]))  # a real value: still dRe + 1j dIm

    def conjugated(z, x):  # JAX's convention: the conjugate, wrong here
        value, dz, dx = gen["grad_f"](z, x)
        return value, np.conj(dz), dx

    def real_part_only(z, x):  # right along real directions only
        value, dz, dx = gen["grad_f"](z, x)
        return value, np.real(dz), dx

    for wrong in (conjugated, real_part_only):
        with pytest.raises(AssertionError, match="the gradient for z is wrong"):
            check_grads(user["f"], wrong, args, edges=False)


def test_check_grads_of_a_holomorphic_derivative():
    from yota_s2s.ir.modes import HOLOMORPHIC
    from yota_s2s.verify import check_grads
    from yota_s2s.verify_modes import as_gradient

    user, gen, _ = compiled("import numpy as np\n\n\ndef f(z):\n    return z ** 3 * np.exp(z)\n", mode="holomorphic")
    u = 0.3 - 1.1j
    g, grad_g = as_gradient(HOLOMORPHIC, user["f"], gen["grad_f"], u, complex_values=True)
    check_grads(g, grad_g, (1.2 + 0.3j,))

    def conjugated(z):
        value, dz = gen["grad_f"](z)
        return value, np.conj(dz)

    g, grad_g = as_gradient(HOLOMORPHIC, user["f"], conjugated, u, complex_values=True)
    with pytest.raises(AssertionError, match="is wrong"):
        check_grads(g, grad_g, (1.2 + 0.3j,), edges=False)


@pytest.mark.parametrize(
    ("source", "flags"),
    [
        (
            "def f(z: complex, x):\n    return np.sum(np.abs(np.log(z) * x) ** 2)\n",
            ["--shape", "z=3", "--shape", "x=3"],
        ),
        ("def f(z):\n    return np.sin(z) * z ** 2\n", ["--holomorphic", "--example", "EXAMPLE"]),
    ],
)
def test_verify_checks_complex_gradients(source, flags, tmp_path):
    path = tmp_path / "loss.py"
    path.write_text("import numpy as np\n\n\n" + source)
    (tmp_path / "example.py").write_text("args = (1.3 - 0.4j,)\n")
    flags = [str(tmp_path / "example.py") if f == "EXAMPLE" else f for f in flags]
    command = [sys.executable, "-m", "yota_s2s", str(path), "--verify", "--out", str(tmp_path / "grad.py"), *flags]
    run = subprocess.run(command, check=False, capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "OK: grad_f matches central differences" in run.stdout


# ============================================================================= values of unknown dtype


def test_a_value_of_code_passed_through_is_checked_real_where_a_gradient_reads_it(tmp_path):
    """np.load's dtype is unknown when generating: a complex array there made the real rules give a
    complex (wrong) gradient with exit 0; now the generated code raises where it reads it."""
    real, cplx = tmp_path / "real.npy", tmp_path / "complex.npy"
    np.save(real, np.array([1.5, -0.5]))
    np.save(cplx, np.array([1.0 + 2.0j, 0.5 - 1.0j]))
    source = f"""
        import numpy as np


        def f(x, path):
            c = np.load(path)
            unused = np.load({str(real)!r})
            s = 0.0
            for k in range(2):
                s = s + np.sum(np.abs(np.load(path) * x) ** 2)
            return np.sum(np.abs(c * x) ** 2) + s + 0.0 * np.sum(unused)
        """
    user, gen, text = compiled(source, wrt=["x"])
    assert text.count("_real_value(") == 2 + 1  # c, the one in the loop (not unused: no gradient reads it), the helper
    x = RNG.standard_normal(2)
    check(lambda x: user["f"](x, str(real)), lambda x: gen["grad_f"](x, str(real)), [x])
    with pytest.raises(TypeError, match=r"a complex value from code passed through \(c = np.load\(path\)\)"):
        gen["grad_f"](x, str(cplx))


def test_an_array_of_complex_literals_is_complex():
    # np.array([1.0, 2j]) of constants is code passed through: its literal makes it complex
    source = (
        "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.abs(np.exp(x * np.array([1.0, 2j, -0.5]))) ** 2)\n"
    )
    user, gen, text = compiled(source)
    assert "_real_value" not in text
    _, dx = check(user["f"], gen["grad_f"], [RNG.standard_normal(3)])
    assert dx.dtype == np.float64
