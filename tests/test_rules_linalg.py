"""Reduction and linear-algebra rules, each run through a generated module against central finite differences.

``tests/test_rules.py`` checks every source name from the tables in ``tests/rule_specs/linalg.py``;
this file covers what those tables cannot say: zeros in ``prod``, ``logsumexp`` and the softmaxes
at +-800, every ``ord`` of ``norm``, well-conditioned and symmetric positive-definite matrices,
``cholesky`` under symmetric perturbations, the forms of ``einsum`` and ``tensordot``, the
adjoint rules of the helper primitives, and the decompositions (``eigh``, ``eig``, ``svd``,
``pinv``): every spelling, entry by entry and under symmetric perturbations, stacks, repeated
eigenvalues and singular values, and what is refused when generating or at run time.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

from yota_s2s.codegen.interp import evaluate
from yota_s2s.dsl.load import load_rules
from yota_s2s.errors import UserError, UserErrors
from yota_s2s.ir.core import Param, Tape
from yota_s2s.pipeline import generate
from yota_s2s.runtime.linalg import _norm_dx
from yota_s2s.transform.differentiate import differentiate

from .gradcheck import assert_close, numeric_grad

HEADER = "import numpy as np\nimport scipy.special\n\n\n"
RNG_SEED = 3


def compile_grad(expr: str, names: list[str], prelude: str = "") -> tuple[object, object, str]:
    """``f(*names, w) = sum(w * sin(expr))`` and its generated ``grad_f``, and the generated text.

    ``prelude``: module-level lines before ``f`` (constants).
    """
    source = HEADER + prelude + f"def f({', '.join([*names, 'w'])}):\n    return np.sum(w * np.sin({expr}))\n"
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the test's own source
    text = generate(source, "case.py", ["f"]).text
    generated: dict = {}
    exec(compile(text, "grad_case.py", "exec"), generated)  # noqa: S102 - the code under test
    return user["f"], generated["grad_f"], text


def check(expr: str, *args: object, seed: int = RNG_SEED, prelude: str = "") -> list:
    """Check every gradient of ``sum(w * sin(expr))`` (operands x, y, z) by finite differences."""
    names = ["x", "y", "z"][: len(args)]
    f, grad_f, _ = compile_grad(expr, names, prelude)
    rng = np.random.default_rng(seed)
    out_shape = np.shape(f(*args, 1.0))
    w = rng.standard_normal(out_shape) if out_shape else float(rng.standard_normal())
    full = [*args, w]
    value, *grads = grad_f(*full)
    assert np.allclose(value, f(*full), rtol=1e-12, atol=1e-12)
    for i, (name, grad) in enumerate(zip([*names, "w"], grads)):
        assert_close(grad, numeric_grad(f, full, i), f"{expr}: d{name}")
        if isinstance(full[i], np.ndarray):
            assert grad.dtype == full[i].dtype
    return grads


def signed(rng, *shape: int) -> np.ndarray:
    """Values with |v| in [0.5, 2] and random signs: away from 0 and from ties."""
    return np.asarray(rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape))


def well_conditioned(rng, *shape: int) -> np.ndarray:
    """Matrices (or stacks) that are strictly diagonally dominant: invertible, condition number < 10."""
    n = shape[-1]
    return rng.uniform(-1.0, 1.0, shape) + (n + 1.0) * np.eye(n)


def spd(rng, *shape: int) -> np.ndarray:
    """Symmetric positive-definite matrices (or stacks)."""
    b = rng.uniform(-1.0, 1.0, shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


# ============================================================================= reductions

SHAPES = [(), (3,), (2, 3)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(
    "expr", ["np.prod(x)", "x.prod()", "np.var(x)", "x.var()", "np.cumsum(x)", "x.cumsum()", "np.linalg.norm(x)"]
)
def test_whole_array_reductions(expr, shape):
    check(expr, signed(np.random.default_rng(1), *shape))


@pytest.mark.parametrize(
    "expr",
    [
        "np.prod(x, axis=0)",
        "np.prod(x, 1, keepdims=True)",
        "x.prod(axis=(0, 1))",
        "np.var(x, axis=1)",
        "np.var(x, axis=0, ddof=1)",
        "x.var(1, keepdims=True)",
        "np.std(x)",
        "np.std(x, axis=1, ddof=1)",
        "x.std(axis=0, keepdims=True)",
        "np.cumsum(x, axis=0)",
        "np.cumsum(x, 1)",
        "x.cumsum(axis=-1)",
    ],
)
def test_reductions_over_axes(expr):
    check(expr, signed(np.random.default_rng(2), 2, 3))


def test_std_of_a_vector():
    check("np.std(x) + np.std(x, ddof=1)", signed(np.random.default_rng(22), 3))


@pytest.mark.parametrize(
    "expr",
    [
        "np.sum(np.var(x, axis=1))",
        "np.sum(np.std(x, axis=0, keepdims=True))",
        "np.sum(scipy.special.softmax(x, axis=0) * x)",
        "np.sum(scipy.special.log_softmax(x, axis=0))",
        "np.sum(scipy.special.logsumexp(x, axis=1))",
    ],
)
def test_the_lazy_gradient_of_a_sum_reaches_the_rule_with_its_full_shape(expr):
    # the gradient of np.sum stays a scalar through elementwise steps: a rule that reduces
    # dout again must still see it spread over the whole shape
    source = HEADER + f"def f(x):\n    return {expr}\n"
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    namespace: dict = {}
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    x = signed(np.random.default_rng(21), 2, 3)
    value, dx = namespace["grad_f"](x)
    assert value == pytest.approx(user["f"](x))
    assert_close(dx, numeric_grad(user["f"], [x], 0), expr)


# ----------------------------------------------------------------------------- prod with zeros


@pytest.mark.parametrize(
    ("x", "axis", "expected"),
    [
        ([2.0, 0.0, 3.0], None, [0.0, 6.0, 0.0]),
        ([2.0, 0.0, 0.0], None, [0.0, 0.0, 0.0]),
        ([0.0, 5.0], None, [5.0, 0.0]),
        ([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]], 1, [[0.0, 2.0, 0.0], [0.0, 0.0, 0.0]]),
        ([[1.0, 0.0, 2.0], [4.0, 0.0, 3.0]], 0, [[4.0, 0.0, 3.0], [1.0, 0.0, 2.0]]),
        ([[1.0, 0.0, 2.0], [4.0, 5.0, 3.0]], None, [[0.0, 120.0, 0.0], [0.0, 0.0, 0.0]]),
    ],
)
def test_prod_is_exact_where_x_holds_zeros(x, axis, expected):
    source = HEADER + f"def f(x):\n    return np.sum(np.prod(x, axis={axis}))\n"
    namespace: dict = {}
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    x = np.array(x)
    _, dx = namespace["grad_f"](x)
    assert np.all(np.isfinite(dx))
    assert dx.tolist() == expected
    assert_close(dx, numeric_grad(lambda v: np.sum(np.prod(v, axis=axis)), [x], 0), "prod with zeros")


def test_prod_with_zeros_under_a_weight():
    x = np.array([[1.5, 0.0, -2.0], [0.0, 0.0, 3.0]])
    check("np.prod(x, axis=1)", x)
    check("np.prod(x)", x)


# ----------------------------------------------------------------------------- logsumexp and the softmaxes


@pytest.mark.parametrize(
    "expr",
    [
        "scipy.special.logsumexp(x)",
        "scipy.special.logsumexp(x, axis=0)",
        "scipy.special.logsumexp(x, axis=1, keepdims=True)",
        "scipy.special.logsumexp(x, axis=(0, 1))",
        "scipy.special.softmax(x)",
        "scipy.special.softmax(x, axis=1)",
        "scipy.special.softmax(x, 0)",
        "scipy.special.log_softmax(x)",
        "scipy.special.log_softmax(x, axis=-1)",
    ],
)
def test_logsumexp_and_softmaxes(expr):
    check(expr, signed(np.random.default_rng(4), 2, 3))


@pytest.mark.parametrize("shape", SHAPES)
def test_logsumexp_and_softmaxes_of_any_rank(shape):
    x = signed(np.random.default_rng(5), *shape)
    check("scipy.special.logsumexp(x) + np.sum(scipy.special.softmax(x) * scipy.special.log_softmax(x))", x)


def test_from_import_and_module_alias_reach_the_same_rules():
    source = (
        "import numpy as np\nfrom scipy import special\nfrom scipy.special import logsumexp\n\n\n"
        "def f(x):\n    return logsumexp(x) + np.sum(special.softmax(x) * x)\n"
    )
    namespace: dict = {}
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    x = np.array([0.3, -1.2, 2.0])
    value, dx = namespace["grad_f"](x)

    def f(v):
        return scipy.special.logsumexp(v) + np.sum(scipy.special.softmax(v) * v)

    assert value == pytest.approx(f(x))
    assert_close(dx, numeric_grad(f, [x], 0), "dx")


EXTREME = [np.array([800.0, -800.0, 799.0]), np.array([[800.0, 0.0, -800.0], [-800.0, -799.0, -801.0]])]


@pytest.mark.parametrize("x", EXTREME, ids=["vector", "matrix"])
def test_logsumexp_and_softmaxes_are_finite_at_800(x):
    source = HEADER + (
        "def f(x, w):\n"
        "    a = scipy.special.logsumexp(x, axis=-1)\n"
        "    b = scipy.special.softmax(x, axis=-1)\n"
        "    c = scipy.special.log_softmax(x, axis=-1)\n"
        "    return np.sum(a) + np.sum(w * b) + np.sum(w * c)\n"
    )
    namespace: dict = {}
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    w = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # exp(-1600) may underflow to 0
        value, dx, dw = namespace["grad_f"](x, w)
    assert np.isfinite(value) and np.all(np.isfinite(dx)) and np.all(np.isfinite(dw))
    # the gradients written with the stable SciPy functions
    s = scipy.special.softmax(x, axis=-1)
    ws = np.sum(w * s, axis=-1, keepdims=True)
    expected = s + s * (w - ws) + (w - s * np.sum(w, axis=-1, keepdims=True))
    assert np.allclose(dx, expected, rtol=1e-12, atol=1e-300)
    assert np.allclose(dw, s + scipy.special.log_softmax(x, axis=-1), rtol=1e-12)


# ----------------------------------------------------------------------------- norm


@pytest.mark.parametrize("ord", ["None", "1", "2", "np.inf", "0", "3", "0.5", "-2"])
def test_vector_norms(ord):
    check(f"np.linalg.norm(x, {ord})", signed(np.random.default_rng(6), 4))


@pytest.mark.parametrize(
    "expr",
    [
        "np.linalg.norm(x, axis=1)",
        "np.linalg.norm(x, 1, axis=0)",
        "np.linalg.norm(x, ord=np.inf, axis=1, keepdims=True)",
        "np.linalg.norm(x, 3, -1)",
        "np.linalg.norm(x, keepdims=True)",
    ],
)
def test_vector_norms_over_an_axis(expr):
    check(expr, signed(np.random.default_rng(7), 2, 3))


@pytest.mark.parametrize("ord", [None, "'fro'", "'nuc'", 1, -1, 2, -2, "np.inf"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3)])
def test_matrix_norms(ord, shape):
    x = signed(np.random.default_rng(8), *shape)
    check(f"np.linalg.norm(x, {ord})", x)


@pytest.mark.parametrize("ord", ["'fro'", "'nuc'", 1, -1, 2, -2, "np.inf"])
def test_matrix_norms_of_a_stack_over_axes_in_any_order(ord):
    x = signed(np.random.default_rng(9), 2, 3, 4)
    check(f"np.linalg.norm(x, {ord}, axis=(2, 1))", x)
    check(f"np.linalg.norm(x, {ord}, axis=(0, 2), keepdims=True)", x)


def test_norm_ties_share_the_gradient():
    # |x| has two maxima (inf) and the rows of the matrix two maximal sums: split evenly
    namespace: dict = {}
    source = HEADER + "def f(x, m):\n    return np.linalg.norm(x, np.inf) + np.linalg.norm(m, np.inf)\n"
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    x = np.array([-2.0, 1.0, 2.0])
    m = np.array([[1.0, -2.0], [3.0, 0.0]])
    _, dx, dm = namespace["grad_f"](x, m)
    assert dx.tolist() == [-0.5, 0.0, 0.5]
    assert dm.tolist() == [[0.5, -0.5], [0.5, 0.0]]


@pytest.mark.parametrize(
    ("ord", "axis", "shape"), [(-np.inf, None, (4,)), (-np.inf, 1, (2, 3)), (-np.inf, (0, 1), (3, 4))]
)
def test_minus_inf_norms_in_the_helper(ord, axis, shape):
    # check the helper itself, for every ord
    x = signed(np.random.default_rng(10), *shape)
    w = np.random.default_rng(11).standard_normal(np.shape(np.linalg.norm(x, ord, axis)))

    def f(v):
        return np.sum(w * np.linalg.norm(v, ord, axis))

    dx = _norm_dx(w, x, np.linalg.norm(x, ord, axis), ord=ord, axis=axis)
    assert_close(dx, numeric_grad(f, [x], 0), f"norm ord={ord} axis={axis}")


def test_minus_inf_ord_can_be_written():
    check("np.linalg.norm(x, -np.inf)", signed(np.random.default_rng(23), 3))


# ============================================================================= products and contractions


@pytest.mark.parametrize(
    ("expr", "shapes"),
    [
        ("np.vdot(x, y)", [(3,), (3,)]),
        ("np.vdot(x, y)", [(2, 3), (3, 2)]),
        ("np.vdot(x, y)", [(), ()]),
        ("np.inner(x, y)", [(3,), (3,)]),
        ("np.inner(x, y)", [(2, 3), (4, 3)]),
        ("np.inner(x, y)", [(2, 2, 3), (3,)]),
        ("np.inner(x, y)", [(), (2, 3)]),
        ("np.inner(x, y)", [(3,), ()]),
        ("np.outer(x, y)", [(3,), (4,)]),
        ("np.outer(x, y)", [(2, 3), (2,)]),
        ("np.outer(x, y)", [(), (3,)]),
        ("np.tensordot(x, y)", [(2, 3), (2, 3)]),
        ("np.tensordot(x, y, 1)", [(2, 3), (3, 4)]),
        ("np.tensordot(x, y, axes=0)", [(2,), (3,)]),
        ("np.tensordot(x, y, axes=2)", [(4, 2, 3), (2, 3, 2)]),
        ("np.tensordot(x, y, axes=(0, 1))", [(3, 2), (4, 3)]),
        ("np.tensordot(x, y, axes=(-1, 0))", [(2, 3), (3, 2)]),
        ("np.tensordot(x, y, axes=AXES)", [(2, 3), (3, 2)]),
        ("np.tensordot(x, y, axes=AXES_NEGATIVE)", [(2, 2, 3), (4, 3, 2)]),
    ],
)
def test_products(expr, shapes):
    r = np.random.default_rng(12)
    prelude = "AXES = ((1, 0), (0, 1))\nAXES_NEGATIVE = ((2,), (-2,))\n\n\n"
    check(expr, *(signed(r, *s) for s in shapes), prelude=prelude)


def test_tensordot_axes_written_as_a_pair_of_tuples_in_the_call():
    r = np.random.default_rng(12)
    check("np.tensordot(x, y, axes=((1, 0), (0, 1)))", signed(r, 2, 3), signed(r, 3, 2))


@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),  # matmul
        ("ii->", [(3, 3)]),  # trace
        ("i,j->ij", [(2,), (3,)]),  # outer
        ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),  # batched matmul
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),  # three operands
        ("i,ij,j->", [(2,), (2, 3), (3,)]),  # a bilinear form
        ("ii->i", [(3, 3)]),  # a diagonal
        ("iij->ji", [(2, 2, 3)]),  # a diagonal of a stack
        ("ij->i", [(2, 3)]),  # an index summed in one operand only
        ("ij->ji", [(2, 3)]),  # a transpose
        ("ij,jk", [(2, 3), (3, 4)]),  # implicit output
        ("ba,ca", [(2, 3), (4, 3)]),  # implicit output in alphabetical order
        ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),  # ellipsis with broadcasting
        ("i...->...", [(2, 3, 4)]),
        ("ij,j->i", [(2, 1), (3,)]),  # a length-1 axis broadcast against a longer one
        (",i->i", [(), (3,)]),  # a 0-d operand
    ],
)
def test_einsum(subscripts, shapes):
    r = np.random.default_rng(13)
    names = ", ".join(["x", "y", "z"][: len(shapes)])
    check(f"np.einsum('{subscripts}', {names})", *(signed(r, *s) for s in shapes))


def test_einsum_of_one_operand_twice_adds_both_contributions():
    check("np.einsum('ij,ij->i', x, x) + np.einsum('ij,kj->ik', x, x)[0]", signed(np.random.default_rng(24), 2, 3))


def test_einsum_is_written_with_its_subscripts():
    _, _, text = compile_grad("np.einsum('ij,jk->ik', x, y)", ["x", "y"])
    assert "np.einsum('ij,jk->ik', x, y)" in text
    assert "_einsum_dx(" in text and "subscripts='ij,jk->ik', k=1" in text


def test_einsum_subscripts_must_be_a_constant_string():
    source = HEADER + "def f(x, s):\n    return np.sum(np.einsum(s, x))\n"
    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, "t.py", ["f"])
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert err.code == "YS032" and "np.einsum('ij,jk->ik', a, b)" in err.message


@pytest.mark.parametrize(
    ("expr", "shape"),
    [
        ("np.trace(x)", (3, 3)),
        ("x.trace()", (2, 3)),
        ("np.trace(x, 1)", (3, 4)),
        ("np.trace(x, offset=-1)", (3, 3)),
        ("np.trace(x, axis1=1, axis2=2)", (2, 3, 3)),
        ("x.trace(0, 2, 0)", (3, 2, 4)),
        ("np.diagonal(x)", (3, 3)),
        ("x.diagonal()", (2, 3)),
        ("np.diagonal(x, 1)", (3, 4)),
        ("x.diagonal(offset=-1)", (4, 3)),
        ("np.diagonal(x, 0, 2, 1)", (2, 3, 3)),
        ("np.diagonal(x, -1, axis1=0, axis2=2)", (3, 2, 4)),
    ],
)
def test_trace_and_diagonal(expr, shape):
    check(expr, signed(np.random.default_rng(14), *shape))


# ============================================================================= inverses, determinants, solves


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3, 3)])
@pytest.mark.parametrize(
    "expr", ["np.linalg.inv(x)", "np.linalg.det(x)", "np.linalg.slogdet(x)[1]", "np.linalg.inv(x) @ np.linalg.inv(x)"]
)
def test_inverse_and_determinants(expr, shape):
    check(expr, well_conditioned(np.random.default_rng(15), *shape))


def test_slogdet_of_a_negative_determinant_and_its_constant_sign():
    x = well_conditioned(np.random.default_rng(25), 3, 3)[::-1]  # rows swapped: det < 0
    assert np.linalg.det(x) < 0
    check("np.linalg.slogdet(x)[1] * np.linalg.slogdet(x)[0]", x)
    source = HEADER + "def f(x):\n    sign, logdet = np.linalg.slogdet(x)\n    return sign * logdet\n"
    namespace: dict = {}
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    value, dx = namespace["grad_f"](x)
    assert value == pytest.approx(-np.log(-np.linalg.det(x)))
    assert np.allclose(dx, -np.linalg.inv(x).T)
    sign_only = HEADER + "def f(x):\n    return np.linalg.slogdet(x)[0] * 2.0\n"
    namespace = {}
    exec(compile(generate(sign_only, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    assert namespace["grad_f"](x) == (-2.0, None)


def test_det_of_an_unshifted_matrix():
    x = np.array([[0.5, -1.2, 0.3], [2.0, 0.1, -0.7], [0.4, 1.1, 1.5]])
    assert np.linalg.cond(x) < 10
    check("np.linalg.det(x)", x)


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 2)), ((2, 3, 3), (3, 1)), ((2, 3, 3), (3,)), ((1, 1), (1,))],
)
def test_solve(a_shape, b_shape):
    r = np.random.default_rng(16)
    check("np.linalg.solve(x, y)", well_conditioned(r, *a_shape), signed(r, *b_shape))


# ----------------------------------------------------------------------------- cholesky


@pytest.mark.parametrize(
    ("expr", "shape"),
    [
        ("np.linalg.cholesky(x @ x.T + 1.0 * np.eye(1))", (1, 1)),
        ("np.linalg.cholesky(x @ x.T + 3.0 * np.eye(3))", (3, 3)),
        ("np.linalg.cholesky(x @ np.transpose(x, (0, 2, 1)) + 3.0 * np.eye(3))", (2, 3, 3)),
    ],
)
def test_cholesky_of_a_symmetric_matrix_built_in_the_code(expr, shape):
    # A = x x^T + n I: perturbing x perturbs A symmetrically
    check(expr, np.random.default_rng(17).uniform(-1.0, 1.0, shape))


def symmetric_numeric_grad(f, a: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The gradient of ``f`` on symmetric matrices: A[i, j] and A[j, i] perturbed together, the
    directional derivative split evenly between the two (a symmetric matrix)."""
    out = np.zeros_like(a)
    n = a.shape[-1]
    for batch in np.ndindex(a.shape[:-2]):
        for i in range(n):
            for j in range(i + 1):
                e = np.zeros_like(a)
                e[(*batch, i, j)] = e[(*batch, j, i)] = 1.0
                d = (f(a + eps * e) - f(a - eps * e)) / (2 * eps)
                out[(*batch, i, j)] = out[(*batch, j, i)] = d if i == j else d / 2
    return out


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (4, 4), (2, 3, 3)])
def test_cholesky_gradient_is_symmetric_and_exact_for_symmetric_perturbations(shape, upper):
    source = HEADER + f"def f(a, w):\n    return np.sum(w * np.linalg.cholesky(a, upper={upper}))\n"
    namespace: dict = {}
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    r = np.random.default_rng(18)
    a = spd(r, *shape)
    w = r.standard_normal(shape)
    value, da, dw = namespace["grad_f"](a, w)
    assert value == pytest.approx(np.sum(w * np.linalg.cholesky(a, upper=upper)))
    assert np.allclose(da, np.swapaxes(da, -1, -2), rtol=0, atol=1e-12)
    assert_close(da, symmetric_numeric_grad(lambda v: np.sum(w * np.linalg.cholesky(v, upper=upper)), a), "da")
    assert_close(dw, np.linalg.cholesky(a, upper=upper), "dw")


def test_cholesky_of_a_non_symmetric_input_follows_the_symmetric_convention():
    # NumPy reads the lower triangle only: entry by entry, the derivative is 2 tril(S, -1) + diag(S)
    # for the symmetric gradient S that the rule returns
    source = HEADER + "def f(a, w):\n    return np.sum(w * np.linalg.cholesky(a))\n"
    namespace: dict = {}
    exec(compile(generate(source, "t.py").text, "grad.py", "exec"), namespace)  # noqa: S102
    r = np.random.default_rng(20)
    a = spd(r, 3, 3) + np.triu(r.uniform(-1.0, 1.0, (3, 3)), 1)
    w = r.standard_normal((3, 3))
    _, s, _ = namespace["grad_f"](a, w)
    entrywise = numeric_grad(lambda v, w: np.sum(w * np.linalg.cholesky(v)), [a, w], 0)
    assert np.allclose(s, s.T, rtol=0, atol=1e-12)
    assert_close(2.0 * np.tril(s, -1) + np.diag(np.diag(s)), entrywise, "entry-by-entry derivative")
    assert not np.allclose(s, entrywise, atol=1e-3)


# ============================================================================= the helpers' own rules


def _helper_tape(prim: str, g_shape: tuple, x_shape: tuple, params: dict) -> Tape:
    """A tape ``sum(w * prim(g, x, **params))``, to differentiate with respect to ``g``."""
    tape = Tape("f")
    g, x, w = tape.add_input("g"), tape.add_input("x"), tape.add_input("w")
    tape.params = [Param("g"), Param("x"), Param("w")]
    y = tape.add_eqn(prim, [g, x], params)
    tape.outputs = [tape.add_eqn("sum", [tape.add_eqn("mul", [w, y])], {"axis": None, "keepdims": False})]
    return tape


@pytest.mark.parametrize(
    ("prim", "g_shape", "x_shape", "params"),
    [
        ("prod_dx", (2,), (2, 3), {"axis": 1, "keepdims": False}),
        ("prod_dx", (), (2, 3), {"axis": None, "keepdims": False}),
        ("cumsum_dx", (6,), (2, 3), {"axis": None}),
        ("cumsum_dx", (2, 3), (2, 3), {"axis": 0}),
        ("diagonal_dx", (2,), (2, 3), {"offset": 1, "axis1": 0, "axis2": 1}),
        ("trace_dx", (4,), (3, 4, 3), {"offset": 0, "axis1": 0, "axis2": 2}),
    ],
)
def test_linear_helpers_have_exact_adjoints(prim, g_shape, x_shape, params):
    table = load_rules()
    tape = _helper_tape(prim, g_shape, x_shape, params)
    grad = differentiate(tape, ["g"], table)
    r = np.random.default_rng(19)
    g, x = signed(r, *g_shape), signed(r, *x_shape)
    w = r.standard_normal(x_shape)
    value, dg = evaluate(grad, {("g",): g, ("x",): x, ("w",): w}, table)

    def f(v):
        return evaluate(tape, {("g",): v, ("x",): x, ("w",): w}, table)[0]

    assert value == pytest.approx(f(g))
    assert_close(dg, numeric_grad(f, [g], 0), f"d{prim}/dg")


def test_second_derivatives_are_refused_with_a_reason():
    table = load_rules()
    tape = Tape("f")
    g, x = tape.add_input("g"), tape.add_input("x")
    tape.params = [Param("g"), Param("x")]
    n = tape.add_eqn("sum", [x], {"axis": None, "keepdims": False})
    y = tape.add_eqn("norm_dx", [g, x, n], {"ord": "nuc", "axis": None, "keepdims": False})
    tape.outputs = [tape.add_eqn("sum", [y], {"axis": None, "keepdims": False})]
    with pytest.raises(UserError) as info:
        differentiate(tape, ["x"], table)
    assert info.value.code == "YS107" and "second derivatives through norm of ord='nuc'" in info.value.message


# ============================================================================= decompositions


def compile_source(body: str, params: str) -> tuple[object, object]:
    """``def f(params): body`` and its generated ``grad_f``."""
    source = HEADER + f"def f({params}):\n" + "".join(f"    {line}\n" for line in body.split("\n"))
    user: dict = {}
    exec(compile(source, "case.py", "exec"), user)  # noqa: S102 - the test's own source
    generated: dict = {}
    exec(compile(generate(source, "case.py", ["f"]).text, "grad_case.py", "exec"), generated)  # noqa: S102
    return user["f"], generated["grad_f"]


def check_all(f, grad_f, *args: object) -> list:
    """The value and every gradient of ``grad_f`` against ``f`` and central differences, entry by entry."""
    value, *grads = grad_f(*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    for i, grad in enumerate(grads):
        numeric = numeric_grad(f, list(args), i)
        if grad is None:  # an argument the function does not read
            assert np.all(numeric == 0.0)
            continue
        assert np.all(np.isfinite(grad))
        assert_close(grad, numeric, f"d{i}")
    return grads


def symmetric(rng, *shape: int) -> np.ndarray:
    """Symmetric matrices (or stacks) with eigenvalues at least 0.4 apart (0, 4, 8, ... plus at most 1.8)."""
    x = rng.uniform(-0.3, 0.3, shape)
    return x + np.swapaxes(x, -1, -2) + np.diag(4.0 * np.arange(shape[-1]))


def separated(rng, *shape: int) -> np.ndarray:
    """Matrices (or stacks) with singular values about 4, 8, 12, ...: distinct, far from 0."""
    m, n = shape[-2:]
    d = np.zeros((m, n))
    d[range(min(m, n)), range(min(m, n))] = 4.0 * np.arange(1, min(m, n) + 1)
    return rng.uniform(-0.3, 0.3, shape) + d


def rotated(values: list[float], seed: int = 30) -> np.ndarray:
    """``q diag(values) q^T`` for a random orthogonal ``q``: a symmetric matrix of these eigenvalues."""
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(values), len(values))))
    a = q @ np.diag(values) @ q.T
    return 0.5 * (a + a.T)


#: Losses of the eigenvalues and eigenvectors, invariant to the sign of each eigenvector, through
#: each spelling: unpacked, indexed, the UPLO keyword, v @ diag(c) @ v.T, the eigenvalue functions.
EIGH_LOSSES = [
    "w, v = np.linalg.eigh(a)\nreturn np.sum(w * (v**2 @ c))",
    "res = np.linalg.eigh(a)\nreturn np.sum(res[0] * (res[1] ** 2 @ c))",
    "w, v = np.linalg.eigh(a, UPLO='U')\nreturn np.sum(w * (v**2 @ c))",
    "w, v = np.linalg.eigh(a, 'L')\nreturn np.sum(np.sin(v @ (v * (c * w)[..., None, :]).T))",
    "v = np.linalg.eigh(a)[1]\nreturn np.sum(np.sin(v @ np.diag(c) @ v.T))",
    "return np.sum(np.linalg.eigh(a)[0] ** 2 * c)",
    "return np.sum(np.sin(np.linalg.eigvalsh(a) * c))",
    "return np.sum(np.linalg.eigvalsh(a, UPLO='U') * c)",
]
EIG_LOSSES = [
    "w, v = np.linalg.eig(a)\nreturn np.sum(w * (v**2 @ c))",
    "res = np.linalg.eig(a)\nreturn np.sum(res[0] * c) + np.sum(np.sin(res[1] @ np.diag(c) @ res[1].T))",
    "return np.sum(np.sin(np.linalg.eigvals(a) * c))",
    "return np.sum(np.linalg.eig(a)[0] ** 3 * c)",
]


@pytest.mark.parametrize("body", EIGH_LOSSES + EIG_LOSSES)
def test_eigenvalues_and_eigenvectors_of_a_symmetric_matrix(body):
    # entry by entry: eig reads all of a (a perturbation of one entry leaves a symmetric a, where
    # the rule is exact); eigh reads one triangle (the other entries have gradient 0)
    f, grad_f = compile_source(body, "a, c")
    r = np.random.default_rng(31)
    a, c = symmetric(r, 3, 3), r.standard_normal(3)
    da, _ = check_all(f, grad_f, a, c)
    # symmetric perturbations: the mean of the two entries' gradients
    assert_close(0.5 * (da + da.T), symmetric_numeric_grad(lambda m: f(m, c), a), "symmetric perturbations")


@pytest.mark.parametrize("body", EIGH_LOSSES + EIG_LOSSES[:1] + EIG_LOSSES[2:])
def test_eigendecompositions_of_a_stack(body):
    f, grad_f = compile_source(body.replace(".T", ".swapaxes(-1, -2)"), "a, c")
    r = np.random.default_rng(32)
    check_all(f, grad_f, symmetric(r, 2, 3, 3), r.standard_normal(3))


@pytest.mark.parametrize("body", EIGH_LOSSES)
def test_eigh_reads_one_triangle(body):
    # a not symmetric: eigh uses the triangle UPLO names; the gradient is 0 on the other side
    f, grad_f = compile_source(body, "a, c")
    r = np.random.default_rng(33)
    a = symmetric(r, 3, 3) + np.triu(r.uniform(-1.0, 1.0, (3, 3)), 1)
    a = a if "'U'" not in body else a.T
    da, _ = check_all(f, grad_f, a, r.standard_normal(3))
    assert np.all((np.triu(da, 1) if "'U'" not in body else np.tril(da, -1)) == 0.0)


def test_eigh_of_one_by_one_and_float32():
    f, grad_f = compile_source(EIGH_LOSSES[0], "a, c")
    check_all(f, grad_f, np.array([[2.5]]), np.array([0.7]))
    a = symmetric(np.random.default_rng(34), 3, 3).astype(np.float32)
    _, da, dc = grad_f(a, np.ones(3, np.float32))
    assert da.dtype == dc.dtype == np.float32


@pytest.mark.parametrize(
    "body",
    [
        "return np.sum(np.linalg.eigvalsh(a) ** 2)",
        "return np.sum(np.linalg.eigh(a)[0] * c)",
        # the eigenvector of the single eigenvalue: no gradient reaches the pair's vectors
        "w, v = np.linalg.eigh(a)\nreturn np.sum(v[:, 2] ** 2 * c) + np.sum(w)",
    ],
)
def test_repeated_eigenvalues_need_no_distinctness_for_eigenvalues(body):
    # eigenvalues 1, 1, 3: c is equal on the repeated pair (a function of w symmetric in them,
    # differentiable), and the gradient is finite, no NaN
    f, grad_f = compile_source(body, "a, c")
    check_all(f, grad_f, rotated([1.0, 1.0, 3.0]), np.array([0.5, 0.5, 2.0]))


@pytest.mark.parametrize(
    "body",
    [
        "return np.sum(np.linalg.eigvals(a) ** 2) + np.sum(np.linalg.eig(a)[0] ** 3)",
        "w, v = np.linalg.eig(a)\nreturn np.sum(v[:, np.argmax(w)] ** 2 * np.array([0.3, -0.5, 2.0]))",
    ],
)
def test_repeated_eigenvalues_of_eig(body):
    # eig's order is LAPACK's, and a perturbation that is not symmetric may split a repeated pair
    # into complex eigenvalues: symmetric perturbations, functions symmetric in the pair
    f, grad_f = compile_source(body, "a")
    a = rotated([1.0, 1.0, 3.0])
    value, da = grad_f(a)
    assert value == pytest.approx(f(a)) and np.all(np.isfinite(da))
    assert_close(0.5 * (da + da.T), symmetric_numeric_grad(f, a), "symmetric perturbations")


@pytest.mark.parametrize(
    ("body", "a"),
    [
        ("w, v = np.linalg.eigh(a)\nreturn np.sum(w * (v**2 @ c))", rotated([1.0, 1.0, 3.0])),
        ("v = np.linalg.eigh(a)[1]\nreturn np.sum(np.sin(v @ np.diag(c) @ v.T))", rotated([1.0, 1.0, 3.0])),
        ("w, v = np.linalg.eigh(a)\nreturn np.sum(v[:, 0] ** 2 * c)", rotated([1.0, 1.0 + 1e-17, 3.0])),
        ("return np.sum(np.linalg.eigh(a)[1][0] ** 2 * c)", np.zeros((3, 3))),
        ("w, v = np.linalg.eig(a)\nreturn np.sum(w * (v**2 @ c))", rotated([1.0, 1.0, 3.0])),
    ],
)
def test_repeated_eigenvalues_refuse_the_eigenvectors_gradient_at_run_time(body, a):
    _, grad_f = compile_source(body, "a, c")
    with pytest.raises(ValueError, match="needs distinct eigenvalues: two are equal within rounding"):
        grad_f(a, np.array([0.3, 0.5, 2.0]))


@pytest.mark.parametrize(
    "body",
    [
        "w, v = np.linalg.eig(a)\nreturn np.sum(w * c)",
        "return np.sum(np.linalg.eig(a)[1] ** 2)",
        "return np.sum(np.linalg.eigvals(a))",
        "return np.sum(np.linalg.eigvals(c)) * np.sum(a)",  # no gradient through eigvals: refused too
    ],
)
def test_eig_of_a_matrix_that_is_not_symmetric_is_refused_at_run_time(body):
    _, grad_f = compile_source(body, "a, c")
    r = np.random.default_rng(35)
    a = symmetric(r, 3, 3)
    grad_f(a, a)  # symmetric: runs
    with pytest.raises(ValueError, match=r"np.linalg.eig(vals)? is differentiated for real symmetric matrices only"):
        grad_f(a + np.triu(np.ones((3, 3)), 1), a + np.triu(np.ones((3, 3)), 1))


def test_eig_of_a_rounded_symmetric_product_is_accepted():
    f, grad_f = compile_source(
        "m = b @ b.T + 3.0 * np.eye(4)\nw, v = np.linalg.eig(m)\nreturn np.sum(w * (v**2 @ c))", "b, c"
    )
    r = np.random.default_rng(36)
    check_all(f, grad_f, r.standard_normal((4, 4)), np.array([0.1, -0.4, 0.9, 0.3]))


# ----------------------------------------------------------------------------- svd, svdvals, pinv

SVD_LOSSES = [
    "u, s, vh = np.linalg.svd(a, full_matrices=False)\nreturn np.sum(np.sin(u @ np.diag(s * c) @ vh))",
    "res = np.linalg.svd(a, False)\nreturn np.sum(res[0] ** 2 @ c) + np.sum(res[2] ** 2 * res[1][..., None])",
    "return np.sum(np.linalg.svd(a)[1] * c)",
    "return np.sum(np.sin(np.linalg.svdvals(a) * c))",
    "return np.sum(np.sin(np.linalg.pinv(a)))",
]


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (1, 1)])
@pytest.mark.parametrize("body", SVD_LOSSES)
def test_svd_and_pinv(body, shape):
    f, grad_f = compile_source(body, "a, c")
    r = np.random.default_rng(37)
    check_all(f, grad_f, separated(r, *shape), r.standard_normal(min(shape)))


@pytest.mark.parametrize("shape", [(2, 4, 3), (2, 3, 4)])
@pytest.mark.parametrize("body", SVD_LOSSES)
def test_svd_and_pinv_of_a_stack(body, shape):
    f, grad_f = compile_source(body.replace("np.diag(s * c)", "((s * c)[..., None] * np.eye(3))"), "a, c")
    r = np.random.default_rng(38)
    check_all(f, grad_f, separated(r, *shape), r.standard_normal(3))


def test_svd_of_a_square_matrix_by_default():
    # full_matrices=True is the reduced SVD of a square matrix
    f, grad_f = compile_source("u, s, vh = np.linalg.svd(a)\nreturn np.sum(np.sin(u * s @ vh + u ** 2 + vh))", "a")
    check_all(f, grad_f, separated(np.random.default_rng(39), 3, 3))


@pytest.mark.parametrize("shape", [(4, 2), (2, 4)])
def test_full_matrices_of_a_rectangle_where_the_extra_vectors_are_unused(shape):
    f, grad_f = compile_source("u, s, vh = np.linalg.svd(a)\nreturn np.sum(np.sin((u[:, :2] * s) @ vh[:2]))", "a")
    check_all(f, grad_f, separated(np.random.default_rng(40), *shape))


@pytest.mark.parametrize(
    ("body", "shape"),
    [("return np.sum(np.linalg.svd(a)[0] ** 2 @ c)", (4, 2)), ("return np.sum(np.linalg.svd(a)[2] ** 2 @ c)", (2, 4))],
)
def test_full_matrices_of_a_rectangle_refuse_the_extra_vectors_at_run_time(body, shape):
    _, grad_f = compile_source(body, "a, c")
    with pytest.raises(ValueError, match="reaches its extra singular vectors.*write full_matrices=False"):
        grad_f(separated(np.random.default_rng(41), *shape), np.arange(4.0))


def test_repeated_singular_values():
    q, _ = np.linalg.qr(np.random.default_rng(42).standard_normal((3, 3)))  # singular values 1, 1, 1
    f, grad_f = compile_source("return np.sum(np.linalg.svdvals(a)) + np.sum(np.linalg.svd(a)[1] ** 2)", "a")
    (da,) = check_all(f, grad_f, q)
    assert np.allclose(da, 3.0 * q)  # u vh + 2 u s vh
    _, grad_f = compile_source("u, s, vh = np.linalg.svd(a)\nreturn np.sum(u ** 2 @ c)", "a, c")
    with pytest.raises(ValueError, match="needs distinct singular values"):
        grad_f(q, np.arange(3.0))


def test_singular_vectors_of_a_rank_deficient_rectangle_are_refused_at_run_time():
    _, grad_f = compile_source("u, s, vh = np.linalg.svd(a, full_matrices=False)\nreturn np.sum(u ** 2 @ c)", "a, c")
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])  # rank 1
    with pytest.raises(ValueError, match="needs its singular values nonzero"):
        grad_f(a, np.array([1.0, -2.0]))


def test_pinv_of_a_rank_deficient_matrix_is_refused_at_run_time():
    _, grad_f = compile_source("return np.sum(np.linalg.pinv(a))", "a")
    with pytest.raises(ValueError, match="np.linalg.pinv needs a matrix of full rank"):
        grad_f(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("np.linalg.svd(a, compute_uv=False)", "has no parameter 'compute_uv'"),
        ("np.linalg.svd(a, False, False)", "takes at most 2 arguments"),
        ("np.linalg.svd(a, hermitian=True)[1]", "has no parameter 'hermitian'"),
        ("np.linalg.pinv(a, 1e-3)", "takes at most 1 arguments"),
        ("np.linalg.pinv(a, rcond=1e-3)", "has no parameter 'rcond'"),
        ("np.linalg.pinv(a, hermitian=True)", "has no parameter 'hermitian'"),
        ("np.linalg.pinv(a, rtol=1e-3)", "has no parameter 'rtol'"),
    ],
)
def test_unsupported_arguments_are_refused_where_written(call, message):
    source = HEADER + f"def f(a):\n    return np.sum({call})\n"
    with pytest.raises(UserError) as info:
        generate(source, "t.py", ["f"])
    assert (info.value.code, info.value.line) == ("YS032", 6) and message in info.value.message


@pytest.mark.parametrize("attr", ["eigenvalues", "eigenvectors"])
def test_named_tuple_attributes_are_the_elements(attr):
    # NumPy 2's result attributes (res.eigenvalues): the elements they name; another is refused
    source = HEADER + f"def f(a):\n    res = np.linalg.eigh(a)\n    return np.sum(res.{attr} ** 2)\n"
    text = generate(source, "t.py", ["f"]).text
    namespace: dict = {}
    exec(compile(text, "grad_t.py", "exec"), namespace)  # noqa: S102 - the code under test
    a = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, -1.5]])
    value, _ = namespace["grad_f"](a)
    assert np.isclose(value, np.sum(getattr(np.linalg.eigh(a), attr) ** 2))
    with pytest.raises(UserError) as info:
        generate(HEADER + "def f(a):\n    return np.sum(np.linalg.eigh(a).U)\n", "t.py", ["f"])
    assert info.value.code == "YS020" and "unsupported attribute 'U'" in info.value.message


@pytest.mark.parametrize(
    ("prim", "args", "reason"),
    [
        ("eigh_values_dx", 2, "second derivatives through eigh"),
        ("eigh_vectors_dx", 3, "second derivatives through eigh"),
        ("eig_vectors_dx", 4, "second derivatives through eig"),
        ("svd_u_dx", 4, "second derivatives through svd"),
        ("svdvals_dx", 2, "second derivatives through svdvals"),
        ("pinv_dx", 3, "second derivatives through pinv"),
    ],
)
def test_second_derivatives_through_decompositions_are_refused(prim, args, reason):
    tape = Tape("f")
    xs = [tape.add_input(f"x{k}") for k in range(args)]
    tape.params = [Param(f"x{k}") for k in range(args)]
    y = tape.add_eqn(prim, xs, {})
    tape.outputs = [tape.add_eqn("sum", [y], {"axis": None, "keepdims": False})]
    with pytest.raises(UserError) as info:
        differentiate(tape, ["x1"], load_rules())
    assert info.value.code == "YS107" and reason in info.value.message


def test_qr_of_a_wide_or_rank_deficient_matrix_is_refused_at_run_time():
    _, grad_f = compile_source("q, r = np.linalg.qr(a)\nreturn np.sum(q) + np.sum(r)", "a")
    with pytest.raises(ValueError, match="np.linalg.qr needs a matrix with m >= n of full column rank"):
        grad_f(np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match="np.linalg.qr needs"):
        grad_f(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]))
