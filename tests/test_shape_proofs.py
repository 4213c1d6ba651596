"""Shape proofs and the rewrites built on them, each checked where it fires and where it must not.

Every generated gradient here is run on several input shapes (size-1 axes, other ranks) and
compared with central finite differences of the source function: a rewrite that fires on a wrong
proof gives a wrong gradient on one of them.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.codegen.module import HELPERS_BANNER
from yota_s2s.dsl.load import load_rules
from yota_s2s.ir.core import Dyn, Lit, Slice, Tape
from yota_s2s.ir.shapes import shape_classes
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad


def functions(text: str) -> str:
    """The generated module's functions, without the runtime helpers written after them."""
    return text.split(HELPERS_BANNER)[0]


def generated(source: str, name: str = "f") -> tuple[object, object, str]:
    """(the source function, its generated gradient, the generated text)."""
    source = "import numpy as np\n\n\n" + textwrap.dedent(source)
    user: dict = {}
    exec(compile(source, "t.py", "exec"), user)  # noqa: S102 - the test's own source
    text = generate(source, "t.py", [name]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102
    return user[name], namespace[f"grad_{name}"], text.split(f"def grad_{name}")[1]


def check(f, grad_f, *args) -> None:
    value, *grads = grad_f(*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    for i, g in enumerate(grads):
        assert_close(g, numeric_grad(f, list(args), i), f"d{i} at shapes {[np.shape(a) for a in args]}")


def rng_arrays(*shapes):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s) for s in shapes]


# --------------------------------------------------------------------------- the classes themselves


def test_a_keepdims_reduction_broadcast_against_its_input_has_the_input_class():
    t = Tape("f")
    z = t.add_input("z")
    w = t.add_input("w")
    zmax = t.add_eqn("max", [z], {"axis": 1, "keepdims": True})
    zsum = t.add_eqn("sum", [z], {"axis": (1,), "keepdims": True})
    centered = t.add_eqn("sub", [z, zmax])
    other = t.add_eqn("sub", [w, zmax])
    removed = t.add_eqn("max", [z], {"axis": 1, "keepdims": False})
    put_back = t.add_eqn("getindex", [removed], {"index": (Slice(), None)})
    put_back_0 = t.add_eqn("getindex", [removed], {"index": (None, Slice())})
    t.outputs = [t.add_eqn("sum", [centered], {"axis": None, "keepdims": False})]
    sc = shape_classes(t, load_rules())
    assert sc.of(centered) == sc.of(z)
    assert sc.of(zmax) == sc.of(zsum) == sc.of(put_back)  # max or sum, 1 or (1,), keepdims or [:, None]
    assert sc.keepdims_of(sc.of(zmax), sc.of(z)) == 1
    assert sc.of(put_back_0) != sc.of(zmax)  # m[None, :] puts the axis back elsewhere
    assert sc.keepdims_of(sc.of(zmax), sc.of(w)) is False
    assert sc.of(other) != sc.of(w)  # w - zmax: w may be (1, n) or (n,) and broadcast up


def test_arrays_made_from_different_numbers_have_different_classes():
    """np.zeros(3) and np.zeros(1): a number's class is () whatever its value, the shapes differ
    (they once shared a class: the gradient of ``v0 * np.sin(v1)`` to v1 lost its unbroadcast)."""
    t = Tape("f")
    x = t.add_input("x")
    n = t.add_eqn("len", [x])
    m = t.add_eqn("size", [x])
    three, one = t.add_eqn("zeros", [Lit(3)]), t.add_eqn("zeros", [Lit(1)])
    again = t.add_eqn("zeros", [Lit(3)])
    by_n, by_m = t.add_eqn("arange", [n]), t.add_eqn("arange", [m])
    x3, xi = t.add_eqn("getindex", [x], {"index": (3,)}), t.add_eqn("getindex", [x, n], {"index": (Dyn(0),)})
    xj = t.add_eqn("getindex", [x, m], {"index": (Dyn(0),)})
    t.outputs = [t.add_eqn("sum", [three], {"axis": None, "keepdims": False})]
    sc = shape_classes(t, load_rules())
    assert sc.of(three) != sc.of(one) and sc.of(three) == sc.of(again)
    assert sc.of(by_n) != sc.of(by_m)
    assert sc.of(xi) == sc.of(xj)  # any integer index drops one axis
    assert sc.of(x3) != sc.of(one)


@pytest.mark.parametrize("n", [1, 3])
def test_the_gradient_through_arrays_of_different_sizes_made_locally(n):
    f, grad_f, text = generated(
        f"""
        def f(x):
            v0 = np.zeros({n}) + 2.0
            v1 = np.zeros(1)
            v1[0] = x
            return np.sum(v0 * np.sin(v1))
        """
    )
    assert "_unbroadcast(" in text  # v0 * sin(v1) may be larger than v1
    check(f, grad_f, 0.3)


def test_arrays_made_from_an_integer_parameter_and_its_successor_differ():
    f, grad_f, _ = generated(
        """
        def f(x, n):
            v0 = np.zeros(n + 2) + 2.0
            v1 = np.zeros(n)
            v1[0] = x
            return np.sum(v0 * np.sin(v1))
        """
    )
    value, dx, dn = grad_f(0.3, 1)
    assert np.isclose(value, f(0.3, 1)) and dn is None
    assert_close(dx, numeric_grad(lambda x: f(x, 1), [0.3], 0), "dx")


# --------------------------------------------------------------------------- unbroadcast against a keepdims reduction

SOFTMAX = """
def f(z):
    zmax = np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - zmax), axis=1, keepdims=True)) + zmax
    return np.sum((z - lse) * np.tanh(z))
"""


@pytest.mark.parametrize("shape", [(4, 3), (4, 1), (1, 3), (1, 1), (2, 3, 2)])
def test_unbroadcast_against_a_keepdims_reduction_is_a_sum_over_its_axes(shape):
    f, grad_f, text = generated(SOFTMAX)
    assert "_unbroadcast" not in text
    assert ".sum(axis=1, keepdims=True)" in functions(text).split("# backward")[1]  # the unbroadcast became a sum
    check(f, grad_f, *rng_arrays(shape))


LOG_SOFTMAX_LOSS = """
def f(z, y):
    zmax = np.max(z, axis=-1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - zmax), axis=-1, keepdims=True)) + zmax
    return -np.sum(y * (z - lse))
"""


@pytest.mark.parametrize("shape", [(4, 3), (4, 1), (1, 3), (2, 3, 2)])
def test_the_max_of_a_stable_log_sum_exp_gets_no_gradient(shape):
    # d lse / d zmax = 1 - sum(exp(z - zmax)) / s = 0: the backward sweep factors dlse / s out of
    # the sum over the axis (constant along it), meets the forward's s there (CSE), and the max's
    # share dlse - dlse is zero.  No mask, no tie-splitting, fewer passes over z.
    f, grad_f, text = generated(LOG_SOFTMAX_LOSS)
    backward = functions(text).split("# backward")[1]
    assert "==" not in backward and "zmax" not in backward, backward
    check(f, grad_f, *rng_arrays(shape, shape))
    z = np.tile(np.array([1.0, 3.0, 3.0]), (2, 1))  # ties at the maximum: lse is smooth there
    check(f, grad_f, z, rng_arrays((2, 3))[0])


FACTORS_OF_SUMS = """
def f(x, w):
    m = np.sum(x * w, axis=0, keepdims=True)
    r = x / m
    return np.sum(r * r) + np.sum(w * (m - m) * x)
"""


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (3, 4)), ((3, 4), (1, 4)), ((1, 4), (1, 4))])
def test_sum_factors_and_zero_gradients_keep_their_shapes(shapes):
    # a factor constant along the summed axis leaves the sum, a zero gradient (m - m) stays zero
    # through products; each on operands that broadcast, so a shape lost would show
    f, grad_f, text = generated(FACTORS_OF_SUMS)
    backward = functions(text).split("# backward")[1]
    assert "_t2 = m - m" in text and ", _t2)" not in backward  # dm gets d_t2 - d_t2: zero, not computed
    check(f, grad_f, *rng_arrays(*shapes))


REMOVED_AND_PUT_BACK = """
def f(z):
    m = np.max(z, axis=1)
    return np.sum(np.exp(z - m[:, None]) * m[:, None]) + np.sum(z.var(axis=-1) * z.mean(axis=-1))
"""


@pytest.mark.parametrize("shape", [(4, 3), (4, 1), (1, 3), (3, 2, 2)])
def test_an_axis_removed_and_put_back_is_a_keepdims_shape(shape):
    f, grad_f, text = generated(REMOVED_AND_PUT_BACK)
    assert "_unbroadcast" not in text
    check(f, grad_f, *rng_arrays(shape))


ANOTHER_ARRAY = """
def f(z, w, y):
    wmax = np.max(w, axis=1, keepdims=True)
    return np.sum(y * (z - wmax))
"""


@pytest.mark.parametrize(
    "shapes",
    [
        [(4, 3), (4, 5), (4, 3)],
        [(4, 3), (1, 5), (4, 3)],  # wmax (1, 1): broadcast along both axes of z
        [(4, 3), (4, 5), (1, 3)],  # y smaller than z - wmax
        [(1, 3), (4, 5), (4, 3)],  # z smaller than z - wmax
        [(4, 3), (4, 5), (3,)],  # y of another rank
        [(2, 4, 3), (4, 5), (4, 3)],  # z of a higher rank than wmax
    ],
)
def test_a_keepdims_reduction_of_another_array_keeps_the_generic_unbroadcast(shapes):
    f, grad_f, text = generated(ANOTHER_ARRAY)
    assert "dz = _unbroadcast(d_t1, z)" in text and "dwmax = _unbroadcast(-d_t1, wmax)" in text
    check(f, grad_f, *rng_arrays(*shapes))


NEGATIVE_AND_POSITIVE = """
def f(z):
    return np.sum(z * (z - np.mean(z, axis=-1, keepdims=True)) + np.max(z, axis=0, keepdims=True))
"""


@pytest.mark.parametrize("shape", [(3, 4), (1, 4), (3, 1), (2, 3, 4)])
def test_keepdims_reductions_over_negative_and_positive_axes(shape):
    f, grad_f, text = generated(NEGATIVE_AND_POSITIVE)
    assert "_unbroadcast" not in text
    check(f, grad_f, *rng_arrays(shape))


# --------------------------------------------------------------------------- x.T @ x and x @ x.T


@pytest.mark.parametrize(
    ("expr", "helper"),
    [("x.T @ x", "_xtx_dx"), ("x @ x.T", "_xxt_dx"), ("np.dot(x.T, x)", "_xtx_dx"), ("np.transpose(x) @ x", "_xtx_dx")],
)
@pytest.mark.parametrize("shape", [(3, 2), (1, 4), (4, 1), (3,), (2, 2, 2)])
def test_the_adjoint_of_a_gram_product_is_one_product(expr, helper, shape):
    f, grad_f, text = generated(f"def f(x):\n    m = {expr}\n    return np.sum(np.sin(m) * (m + 1.0))\n")
    assert helper in text and "_matmul_d" not in functions(text).split("# backward")[1]
    check(f, grad_f, *rng_arrays(shape))


@pytest.mark.parametrize(
    "source",
    [
        "def f(x, y):\n    return np.sum(np.sin(x.T @ y))\n",  # another right operand
        "def f(x):\n    return np.sum(np.sin(np.transpose(x, (1, 0)) @ x))\n",  # explicit axes
        "def f(x):\n    return np.sum(np.sin(x.T @ (2.0 * x)))\n",  # not the same value
    ],
)
def test_other_products_keep_the_two_adjoints(source):
    f, grad_f, text = generated(source)
    assert "_xtx_dx" not in text and "_xxt_dx" not in text
    check(f, grad_f, *rng_arrays(*[(3, 3)] * (2 if "y" in source.split(")")[0] else 1)))


@pytest.mark.parametrize(
    ("expr", "shape"),
    [
        ("np.max(z, axis=1)[None, :]", (3, 3)),  # put back as axis 0: z - m[None, :] is (3, 3)
        ("np.max(z, axis=1)[None, :]", (3, 1)),  # (3, 1) - (1, 3) broadcasts both
        ("np.max(z, axis=-1)[:, None]", (2, 3, 3)),  # axis -1 of a 3-D z is not axis 1
        ("np.max(z, axis=-1)[:, None]", (3, 3)),  # (right for a matrix, but the rank is not known)
        ("np.sum(z, axis=0)", (1, 3)),  # no axis put back: broadcast against the leading axes
    ],
)
def test_axes_put_back_elsewhere_keep_the_generic_unbroadcast(expr, shape):
    f, grad_f, text = generated(f"def f(z):\n    return np.sum(z * (z - {expr}))\n")
    assert "_unbroadcast(" in text
    check(f, grad_f, *rng_arrays(shape))


# --------------------------------------------------------------------------- the runtime helpers' fast paths


@pytest.mark.parametrize(
    ("g_shape", "x_shape"),
    [
        ((3, 5), (3, 1)),
        ((3, 5), (5,)),
        ((3, 5), (1, 5)),
        ((3, 5), (1, 1)),
        ((3, 5), ()),
        ((2, 3, 5), (3, 1)),
        ((2, 3, 5), (1, 3, 5)),
        ((4, 0), (1, 0)),  # a length-0 axis broadcast from 1
        ((4, 0), (4, 1)),
        ((3, 1), (1, 1)),
        ((), (3,)),  # g smaller than x: spread, not summed
    ],
)
def test_unbroadcast_sums_exactly_the_broadcast_axes(g_shape, x_shape):
    from yota_s2s.runtime.core import _unbroadcast

    rng = np.random.default_rng(0)
    g = rng.standard_normal(g_shape) if g_shape else 2.0
    x = rng.standard_normal(x_shape)
    out = _unbroadcast(g, x)
    assert np.shape(out) == x.shape
    # the adjoint of broadcasting: <broadcast_to(x), g> == <x, unbroadcast(g, x)>
    spread = np.broadcast_to(x, np.shape(g)) if g_shape else x
    assert np.isclose(np.sum(spread * g), np.sum(x * out))
    if g_shape == x_shape:
        assert out is g


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (1, 4), (4, 1)])
@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
def test_the_gradient_of_a_diagonal_with_an_offset(shape, k):
    f, grad_f, _ = generated(f"def f(m):\n    d = np.diag(m, {k})\n    return np.sum(np.sin(d) * d)\n")
    check(f, grad_f, *rng_arrays(shape))


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (4,), (1, 1)])
@pytest.mark.parametrize("k", [-1, 0, 2])
def test_diag_is_np_diag(shape, k):
    """``_diag``: a matrix's diagonal by its method, the same (read-only) view as ``np.diag``;
    a vector's matrix; other operands (a list) as ``np.diag``."""
    from yota_s2s.runtime.core import _diag

    v = np.random.default_rng(0).standard_normal(shape)
    got, expected = _diag(v, k), np.diag(v, k)
    assert got.shape == expected.shape and got.dtype == expected.dtype and np.array_equal(got, expected)
    if v.ndim == 2:
        assert not got.flags.writeable and (got.size == 0 or np.shares_memory(got, v))
    assert np.array_equal(_diag(v.tolist(), k), expected)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_matrix_helpers_multiply_as_matmul(layout):
    """The helpers' matrix products (the method ``dot``) are ``@``'s, bit for bit."""
    from yota_s2s.runtime.core import _matmul_dx, _matmul_dy, _xtx_dx, _xxt_dx

    rng = np.random.default_rng(1)
    x, y, g = rng.standard_normal((4, 6)), rng.standard_normal((6, 3)), rng.standard_normal((4, 3))
    if layout == "F":
        x, y, g = np.asfortranarray(x), np.asfortranarray(y), np.asfortranarray(g)
    elif layout == "strided":
        x, y, g = np.repeat(x, 2, axis=1)[:, ::2], np.repeat(y, 2, axis=0)[::2], g[:, ::1]
    assert np.array_equal(_matmul_dx(g, x, y), g @ y.T) and np.array_equal(_matmul_dy(g, x, y), x.T @ g)
    s, t = rng.standard_normal((6, 6)), rng.standard_normal((4, 4))
    assert np.array_equal(_xtx_dx(s, x), x @ (s + s.T)) and np.array_equal(_xxt_dx(t, x), (t + t.T) @ x)
    g1 = rng.standard_normal(4)  # x @ v with a vector v: not the matrix path
    assert np.allclose(_matmul_dy(g1, x, rng.standard_normal(6)), x.T @ g1)


# --------------------------------------------------------------------------- X.shape[0]


@pytest.mark.parametrize("shape", [(4, 3), (1, 3), (4, 1)])
def test_an_element_of_a_shape_is_a_number(shape):
    f, grad_f, text = generated("def f(X, w):\n    return -np.sum(np.tanh(X * w)) / X.shape[0] * w.shape[-1]\n")
    assert "np.ndim(" not in text  # the value is provably a scalar: no run-time check
    check(f, grad_f, *rng_arrays(shape, shape[-1:]))


def test_a_value_divided_by_an_array_element_keeps_its_run_time_check():
    f, grad_f, text = generated("def f(X, n):\n    return np.sum(np.tanh(X)) / n[0]\n")
    assert "np.ndim(f) != 0" in text  # n[0] may be a row of a 2-D n
    check(f, grad_f, *rng_arrays((4, 3)), np.array([2.0, 3.0]))


def test_slices_that_leave_out_as_many_elements_have_one_shape():
    """x[:-2], x[1:-1] and x[2:] are each two shorter than x (or empty, for every n): one class, so
    the unbroadcasts between them fold (the stencil's sparse sweeps lost four helper calls a color);
    x[:3] (a stop from the front) and x[1:] (one shorter) are of other classes."""
    from yota_s2s.dsl.load import load_rules
    from yota_s2s.ir.core import Slice, Tape
    from yota_s2s.ir.shapes import shape_classes

    t = Tape("f")
    x = t.add_input("x")
    a, b, c, d, e, whole = (
        t.add_eqn("getindex", [x], {"index": (s,)})
        for s in (Slice(None, -2), Slice(1, -1), Slice(2, None), Slice(None, 3), Slice(1, None), Slice())
    )
    t.outputs = [t.add_eqn("sum", [t.add_eqn("add", [a, c])])]
    sc = shape_classes(t, load_rules())
    assert sc.of(a) == sc.of(b) == sc.of(c)
    assert len({sc.of(a), sc.of(d), sc.of(e), sc.of(x)}) == 4 and sc.of(whole) == sc.of(x)
    for n in range(6):  # NumPy agrees, empty slices included
        v = np.arange(float(n))
        assert v[:-2].shape == v[1:-1].shape == v[2:].shape
