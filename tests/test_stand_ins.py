"""Values the gradients read only for their shape are not computed (``transform.finish.stand_ins``).

``np.sum(W @ x + b[:, None])`` without its value needs the product only for its shape: the
gradient-only form makes ``_like_matmul(W, x)`` (an uninitialised array of that shape and dtype)
instead.  The corpus checks every such gradient against finite differences (test_corpus.py);
this file checks what is replaced, that shapes and dtypes are exact for every rank, and that the
results equal the value form's, which computes the product.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.runtime.core import _like, _like_matmul

from .test_no_value import body_of, grad_function

LINEAR = """
    import numpy as np


    def linear(W, b, x):
        return np.sum(W @ x + b[:, None])
    """

PD = """
    import numpy as np


    def pd(x):
        m = x.T @ x
        v = np.diag(m)
        return np.sum(v[:, None] + v[None, :] - 2 * m)
    """


def code_lines(text: str, name: str) -> list[str]:
    return [line.strip() for line in body_of(text, name).splitlines() if not line.lstrip().startswith("#")]


def test_a_product_read_only_for_its_shape_is_not_computed():
    text, ns = grad_function(LINEAR, "linear", value=False)
    lines = code_lines(text, "linear")
    # the product's shape and dtype are read (to spread the gradient over); the sum's size only
    assert "_t1 = _like_matmul(W, x)" in lines and "_t3 = np.broadcast(_t1, _t2)" in lines
    assert not any("@" in line for line in lines)  # the gradient's products are in the helpers
    text_value, ns_value = grad_function(LINEAR, "linear")  # the value form computes W @ x for the value
    assert "_t1 = W @ x" in code_lines(text_value, "linear")
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal((4, 5)))
    for got, want in zip(ns["grad_linear"](*args), ns_value["grad_linear"](*args)[1:], strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        assert np.allclose(got, want, rtol=1e-13, atol=0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_and_batched_operands_match_the_computed_form(dtype):
    _, ns = grad_function(LINEAR, "linear", value=False)
    _, ns_value = grad_function(LINEAR, "linear")
    rng = np.random.default_rng(1)
    # a stack of two matrices W: the product broadcasts, b[:, None] against its rows
    args = (
        rng.standard_normal((2, 3, 4)).astype(dtype),
        rng.standard_normal(3).astype(dtype),
        rng.standard_normal((4, 5)).astype(dtype),
    )
    for got, want in zip(ns["grad_linear"](*args), ns_value["grad_linear"](*args)[1:], strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype == dtype
        assert np.allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-13)


def test_pd_computes_neither_the_gram_matrix_nor_the_distances():
    text, ns = grad_function(PD, "pd", value=False)
    lines = code_lines(text, "pd")
    assert "m = _like_matmul(x.T, x)" in lines and "v = _diag(m, k=0)" in lines  # a view of the stand-in
    assert not any(" + " in line or "@" in line for line in lines if line.startswith(("m =", "v =", "_t3", "_t4")))
    assert "_t4 = np.broadcast(_t1, _t2, m)" in lines  # (v[:, None] + v[None, :]) - 2 * m: its size
    x = np.random.default_rng(2).standard_normal((4, 6))
    (dx,) = ns["grad_pd"](x)
    n = x.shape[1]
    assert np.allclose(dx, 4.0 * n * x - 4.0 * x.sum(axis=1)[:, None], rtol=1e-12)


@pytest.mark.parametrize(
    ("xs", "ys"),
    [
        ((3, 4), (4, 5)),
        ((4,), (4,)),
        ((4,), (4, 5)),
        ((3, 4), (4,)),
        ((2, 3, 4), (4, 5)),
        ((4,), (2, 4, 5)),
        ((2, 3, 4), (4,)),
        ((2, 1, 3, 4), (5, 4, 6)),
    ],
)
def test_like_matmul_has_the_products_shape_and_dtype(xs, ys):
    x, y = np.ones(xs, dtype=np.float32), np.ones(ys, dtype=np.int64)
    got, want = _like_matmul(x, y), x @ y
    assert got.shape == np.shape(want) and got.dtype == np.result_type(want)


@pytest.mark.parametrize(("xs", "ys"), [((3, 4), (5, 6)), ((4,), (5,)), ((), (4,)), ((2, 3, 4), (3,))])
def test_like_matmul_refuses_what_the_product_refuses(xs, ys):
    x, y = np.ones(xs), np.ones(ys)
    with pytest.raises(ValueError):
        x @ y
    with pytest.raises(ValueError, match="do not match"):
        _like_matmul(x, y)


def test_mismatched_operands_fail_as_the_function_does():
    _, ns = grad_function(LINEAR, "linear", value=False)
    with pytest.raises(ValueError, match="do not match"):
        ns["grad_linear"](np.ones((3, 4)), np.ones(3), np.ones((5, 6)))
    with pytest.raises(ValueError):  # b does not broadcast against the rows of W @ x
        ns["grad_linear"](np.ones((3, 4)), np.ones(2), np.ones((4, 6)))


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (np.ones((3, 1), dtype=np.float32), np.ones(4, dtype=np.float32)),
        (np.ones((3, 1), dtype=np.float32), 2.0),  # a Python number does not widen the dtype
        (2, np.arange(5)),
        (np.ones((2, 3), dtype=np.float32), np.ones((2, 3))),
        (np.ones(3, dtype=bool), np.ones(3, dtype=bool)),
    ],
)
def test_like_has_the_shape_and_dtype_of_sum_difference_and_product(x, y):
    got = _like(x, y)
    for want in (np.add(x, y), np.multiply(x, y)):
        assert got.shape == np.shape(want) and got.dtype == np.result_type(want)


def test_a_value_read_for_its_dtype_keeps_like_and_cupy_never_writes_np_broadcast():
    # z - lse spreads the gradient of y * (z - lse): read for its shape and dtype, it is _like;
    # np.broadcast (a shape, no dtype) only stands in for values read for their size, shape or
    # rank.  A CuPy target never writes np.broadcast (it would pull device arrays to the host).
    source = """
    import numpy as np


    def f(z, y):
        zmax = np.max(z, axis=-1, keepdims=True)
        lse = np.log(np.sum(np.exp(z - zmax), axis=-1, keepdims=True)) + zmax
        return -np.sum(y * (z - lse))
    """
    text, ns = grad_function(source, "f", value=False, wrt=["z"])
    _, ns_value = grad_function(source, "f", wrt=["z"])
    body = body_of(text, "f")
    assert "_like(z, lse)" in body and "np.broadcast" not in body
    # lse = log(s) + zmax is read for its shape and dtype only, and s (a sum of exp) is a float:
    # log(s) has its shape and dtype, so the log is not computed
    assert not any("np.log(" in line for line in code_lines(text, "f"))
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        z, y = rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal((4, 3)).astype(dtype)
        (got,), (_, want) = ns["grad_f"](z, y), ns_value["grad_f"](z, y)
        assert got.dtype == want.dtype == dtype and np.allclose(got, want, rtol=1e-5)
    from yota_s2s.pipeline import generate

    cupy_text = generate(textwrap.dedent(LINEAR), "t.py", ["linear"], target="cupy", value=False).text
    body = body_of(cupy_text, "linear")
    assert "_t3 = _like(_t1, _t2)" in body and "broadcast(" not in body


def test_a_function_of_an_integer_keeps_its_dtype_through_a_stand_in():
    # np.log(k) of an integer k is a float64 while k is not: only a float operand (exp, a sum of
    # exps, a quotient, ...) may stand in for the function of it
    source = """
    import numpy as np


    def f(w, k):
        return np.sum(w * (k + np.log(k)))
    """
    text, ns = grad_function(source, "f", value=False, wrt=["k"])
    _, ns_value = grad_function(source, "f", wrt=["k"])
    assert "_t1 = _like(k, np.log(k))" in code_lines(text, "f")
    w, k = np.ones((2, 3), dtype=np.float32), np.arange(1, 4, dtype=np.int8)
    with pytest.raises(TypeError, match="the argument k is integer"):  # refused now (as JAX's grad)
        ns["grad_f"](w, k)
    for k in (np.arange(1, 4, dtype=np.float32), np.arange(1.0, 4.0)):
        (got,), (_, want) = ns["grad_f"](w, k), ns_value["grad_f"](w, k)
        assert got.dtype == want.dtype and np.allclose(got, want, rtol=1e-6)
