"""``--no-value``: ``grad_NAME`` returns only the gradients, without the work only the value needs.

The corpus runs both forms against finite differences (test_corpus.py); this file checks the
option's surface (CLI, header, project config, --verify, API, --buffers), what the form drops,
and that the run-time scalar check survives on a cheaper value of the same shape.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import yota_s2s
from yota_s2s.codegen.module import HELPERS_BANNER
from yota_s2s.pipeline import generate
from yota_s2s.verify import check_grads

from .gradcheck import assert_close, numeric_grad
from .test_workflow import LOSS, assert_user_error, run, write

POLY = """
    import numpy as np


    def poly(x):
        return x[3] * x[8] ** 3 - 3 * x[3] * x[8] * x[6] ** 2 + x[1] * x[2] - 1.5
    """

LOGISTIC = """
    import numpy as np


    def logistic(x):
        return np.sum(1.0 / (1.0 + np.exp(-x)))
    """


def grad_function(source: str, name: str, value: bool = True, **options):
    namespace: dict = {}
    text = generate(_dedent(source), f"{name}.py", [name], value=value, **options).text
    exec(compile(text, f"grad_{name}.py", "exec"), namespace)  # noqa: S102 - our output
    return text, namespace


def _dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def ns_value(source: str, name: str):
    namespace: dict = {}
    exec(compile(_dedent(source), f"{name}.py", "exec"), namespace)  # noqa: S102 - test source
    return namespace[name]


def body_of(text: str, name: str) -> str:
    """The text of ``grad_NAME`` and what follows it, up to the runtime helpers written after the functions."""
    return text[text.index(f"def grad_{name}(") :].split(HELPERS_BANNER)[0]


# ------------------------------------------------------------------------------------------- what it drops


def test_the_value_and_the_work_only_it_needs_are_gone():
    text, ns = grad_function(LOGISTIC, "logistic", value=False)
    body = body_of(text, "logistic")
    assert '"""Return (dx,): the gradients of logistic(x)."""' in body
    code = [line for line in body.splitlines() if not line.lstrip().startswith("#")]
    assert not any("np.sum" in line or "logistic =" in line for line in code)
    x = np.linspace(-2.0, 2.0, 7)
    (dx,) = ns["grad_logistic"](x)
    s = 1.0 / (1.0 + np.exp(-x))
    assert np.allclose(dx, s * (1.0 - s), rtol=1e-14, atol=0.0)


def test_a_reciprocal_read_once_is_merged_into_the_backward_quotient():
    """Without the value, 1 / b is read once, by the gradient: (1 / b) / b * e is e / (b * b)."""
    text, ns = grad_function(LOGISTIC, "logistic", value=False)
    assert "dx = _t1 / (_t2 * _t2)\n" in text and "1.0 / _t2" not in text
    with_value, _ = grad_function(LOGISTIC, "logistic")
    assert "_t3 = 1.0 / _t2" in with_value and "dx = _t3 / _t2 * _t1\n" in with_value  # the value reads it
    source = """
        import numpy as np


        def f(x, y):
            return np.sum(x / (1 + y * y)) + np.sum(2.0 / (x * x + 3.0))
        """
    text, ns = grad_function(source, "f", value=False)
    user: dict = {}
    exec(_dedent(source), user)  # noqa: S102 - the test's own source
    for x, y in [(np.linspace(-2.0, 2.0, 5), np.linspace(0.5, 1.5, 5)), (0.7, -1.2)]:
        for i, g in enumerate(ns["grad_f"](x, y)):
            assert_close(g, numeric_grad(user["f"], [x, y], i), f"d{i}")
    # the reciprocal of a count is one division of a number: the array is multiplied, not divided
    text, ns = grad_function("import numpy as np\ndef f(x):\n    return np.mean(np.sin(x))\n", "f", value=False)
    assert "dx = 1.0 / _or_one(np.size(x)) * np.cos(x)" in text  # (_or_one: 1 for an empty x)
    # integers: 1 + y * y is exact, (1 + y * y) ** 2 would overflow int64: not merged
    source = """
        import numpy as np


        def f(x, y):
            return np.sum(x / (1 + y * y))
        """
    text, ns = grad_function(source, "f", value=False)
    y = np.array([100_000, -3])
    with pytest.raises(TypeError, match="the argument y is integer"):  # refused now, as JAX does
        ns["grad_f"](np.array([1.0, 2.0]), y)
    dy = ns["grad_f"](np.array([1.0, 2.0]), y.astype(float))[1]
    b = 1.0 + y.astype(float) ** 2
    np.testing.assert_allclose(dy, -np.array([1.0, 2.0]) * 2 * y / (b * b), rtol=1e-12)


def test_scalar_code_checks_the_scalar_on_an_item_not_on_the_value():
    text, ns = grad_function(POLY, "poly", value=False)
    body = body_of(text, "poly")
    assert "poly =" not in body  # the polynomial's value is not computed
    # x[3] has the value's shape; an element of the list x_items is a float
    assert "if x_items is x and np.ndim(x3) != 0:" in body
    x = np.linspace(-1.0, 1.0, 9)
    (dx,) = ns["grad_poly"](x)
    assert_close(dx, numeric_grad(ns_value(POLY, "poly"), (x,), 0), "dx")
    # the check still refuses a non-scalar function, as the value form does
    with pytest.raises(ValueError, match="must return a scalar"):
        ns["grad_poly"](np.ones((9, 2)))


def test_a_value_whose_shape_has_no_witness_is_still_computed_for_the_check():
    source = """
        def f(x, y):
            return x * y + x
        """
    text, ns = grad_function(source, "f", value=False)
    body = body_of(text, "f")
    assert "np.ndim(" in body  # the class of x * y + x is two shapes: no single value stands for it
    dx, dy = ns["grad_f"](2.0, 3.0)
    assert (dx, dy) == (4.0, 2.0)
    with pytest.raises(ValueError, match="must return a scalar"):
        ns["grad_f"](np.ones(2), 3.0)


def test_one_gradient_is_a_one_tuple_and_none_stays_none():
    source = """
        import numpy as np


        def f(x, n, flag=True):
            return np.sum(x * x) * n
        """
    text, ns = grad_function(source, "f", value=False, wrt=["x"])
    assert "return (dx,)" in body_of(text, "f")
    result = ns["grad_f"](np.arange(3.0), 2)
    assert isinstance(result, tuple) and len(result) == 1
    assert result[0].tolist() == [0.0, 4.0, 8.0]
    _, ns_all = grad_function(source, "f", value=False)  # flag=True is an option: not in the default --wrt
    dx, dn = ns_all["grad_f"](np.arange(3.0), 2)
    assert dx.tolist() == [0.0, 4.0, 8.0] and dn == 5.0
    _, ns_flag = grad_function(source, "f", value=False, wrt=["x", "n", "flag"])
    dx, dn, dflag = ns_flag["grad_f"](np.arange(3.0), 2)
    assert dx.tolist() == [0.0, 4.0, 8.0] and dn == 5.0 and dflag is None


def test_a_loop_whose_result_only_gives_a_shape_is_not_run():
    """The adjoint of ``sum`` after a scaling loop is spread over the loop's initial value, which
    has its result's shape, so the forward loop is dead once the value is dropped."""
    source = """
        import numpy as np


        def iterative(x, n):
            for i in range(n):
                x = 2 * x
            return np.sum(x)
        """
    text, ns = grad_function(source, "iterative", value=False, wrt=["x"])
    body = body_of(text, "iterative")
    loops = [line.strip() for line in body.splitlines() if line.lstrip().startswith("for ")]
    assert loops == ["for i in reversed(range(n)):"]  # the backward loop alone
    assert "_unreduce(dx, x)" in body
    for x in (np.linspace(-1.0, 1.0, 5), np.ones((2, 3), dtype=np.float32), np.arange(4.0)):
        (dx,) = ns["grad_iterative"](x, 3)
        assert dx.shape == x.shape and dx.dtype == np.result_type(x, 1.0)
        assert np.all(dx == 8.0)
    f = ns_value(source, "iterative")
    x = np.linspace(-1.0, 1.0, 5)
    assert_close(ns["grad_iterative"](x, 0)[0], numeric_grad(f, (x, 0), 0), "dx, no iteration")


# ------------------------------------------------------------------------------------------- the surface


def test_cli_writes_it_says_it_in_the_header_and_check_agrees(tmp_path):
    write(tmp_path / "loss.py", LOSS)
    proc = run(tmp_path, "loss.py", "--wrt", "w", "--no-value", "--out", "grad_loss.py")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "grad_loss.py").read_text()
    assert "regenerate: yota-s2s loss.py --wrt w --out grad_loss.py --no-value" in text
    assert run(tmp_path, "loss.py", "--wrt", "w", "--no-value", "--out", "grad_loss.py", "--check").returncode == 0
    # the value form is another file: --check without the option reports it stale
    assert run(tmp_path, "loss.py", "--wrt", "w", "--out", "grad_loss.py", "--check").returncode == 1


def test_verify_checks_the_gradient_only_form(tmp_path):
    write(tmp_path / "loss.py", LOSS)
    proc = run(tmp_path, "loss.py", "--no-value", "--verify", "--shape", "w=3", "--shape", "x=5,3", "--shape", "y=5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OK: grad_loss matches central differences")


def test_project_key_value_false_gives_what_the_command_gives(tmp_path):
    write(tmp_path / "loss.py", LOSS)
    write(
        tmp_path / "pyproject.toml",
        """
        [[tool.yota-s2s.generate]]
        source = "loss.py"
        out = "grad_loss.py"
        value = false
        """,
    )
    assert run(tmp_path).returncode == 0
    by_config = (tmp_path / "grad_loss.py").read_text()
    assert run(tmp_path, "loss.py", "--out", "grad_loss.py", "--no-value").returncode == 0
    assert (tmp_path / "grad_loss.py").read_text() == by_config
    assert "--no-value" in by_config
    write(
        tmp_path / "pyproject.toml",
        """
        [[tool.yota-s2s.generate]]
        source = "loss.py"
        out = "grad_loss.py"
        value = "no"
        """,
    )
    proc = run(tmp_path, "--check")
    assert_user_error(proc, "YS007")
    assert "value must be true or false" in proc.stderr


def test_no_value_without_a_source_is_refused_like_other_per_source_options(tmp_path):
    write(tmp_path / "pyproject.toml", '[[tool.yota-s2s.generate]]\nsource = "a.py"\nout = "b.py"\n')
    proc = run(tmp_path, "--no-value")
    assert proc.returncode == 2 and "--no-value needs a SOURCE.py" in proc.stderr


def test_api_simplegrad_gradsource_and_check_grads():
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    w, x = np.linspace(-1.0, 1.0, 3), np.arange(15.0).reshape(5, 3) / 10
    g = yota_s2s.simplegrad(loss, value=False)
    assert g is yota_s2s.simplegrad(loss, value=False) and g is not yota_s2s.simplegrad(loss)
    dw, dx = g(w, x)
    _, dw_v, dx_v = yota_s2s.simplegrad(loss)(w, x)
    assert np.array_equal(dw, dw_v) and np.array_equal(dx, dx_v)
    check_grads(loss, g, (w, x), value=False)
    with pytest.raises(AssertionError, match="gradient for w is wrong"):
        check_grads(loss, lambda w, x: (2 * dw, dx), (w, x), value=False)
    header = yota_s2s.gradsource(loss, value=False).splitlines()[3]
    assert header.startswith("# regenerate: yota-s2s") and header.endswith("--no-value")


def test_buffers_class_returns_the_same_gradients_only():
    _, ns = grad_function(LOGISTIC, "logistic", value=False, buffers=True)
    x = np.linspace(-2.0, 2.0, 5)
    buffered = ns["GradLogistic"]()
    for _ in range(3):
        (dx,) = buffered(x)
        assert np.array_equal(dx, ns["grad_logistic"](x)[0])


def test_a_value_used_only_for_its_size_is_replaced_by_a_live_one_of_its_shape():
    source = """
        import numpy as np


        def mse(w, X, y):
            r = X @ w - y
            return np.mean(r * r)
        """
    text, ns = grad_function(source, "mse", value=False, wrt=["w"])
    code = "\n".join(line for line in body_of(text, "mse").splitlines() if not line.lstrip().startswith("#"))
    assert "r * r" not in code and "r.size" in code  # the mean's count, from r itself
    w, X, y = np.array([0.5, -1.0]), np.arange(6.0).reshape(3, 2), np.array([1.0, 0.0, 2.0])
    (dw,) = ns["grad_mse"](w, X, y)
    assert_close(dw, numeric_grad(lambda w_: np.mean((X @ w_ - y) ** 2), (w,), 0), "dw")


@pytest.mark.parametrize(
    "body",
    [
        "v = x if x > 0 else y\n    return v * v",
        "if x > 0:\n        v = x\n    else:\n        v = y\n    return v * v * 2.0",
        "v = x if x > 0 else y\n    return v * v + x * 3.0",
    ],
)
def test_the_scalar_check_witness_is_a_value_computed_before_the_backward_sweep(body):
    """The witness of the scalar check was once ``2 * v``, a backward value of the same shape class
    (an internal error: the check is written before it is computed)."""
    source = f"import numpy as np\n\n\ndef f(x, y):\n    {body}\n"
    user = ns_value(source, "f")
    for value in (True, False):
        _, ns = grad_function(source, "f", value=value)
        for x, y in ((0.5, -2.0), (-0.5, 1.5), (np.float64(2.0), np.array(3.0))):
            grads = ns["grad_f"](x, y)[1 if value else 0 :]
            assert_close(grads[0], numeric_grad(user, (x, y), 0), f"dx at {x}")
            assert_close(grads[1], numeric_grad(user, (x, y), 1), f"dy at {x}")
        with pytest.raises(ValueError, match="must return a scalar"):
            ns["grad_f"](-0.5, np.array([1.0, 2.0]))  # v is y, an array: the value is not a scalar


def test_a_size_is_never_taken_from_an_array_of_another_length():
    """``np.zeros(3)`` stood in for ``np.zeros(1)``'s size (one shape class for both): the
    gradient was 3 times too small.  The stand-in is ``v1`` itself, written in place, not copied."""
    source = """
        import numpy as np


        def f(x):
            v0 = np.zeros(3)
            v1 = np.zeros(1)
            v1[0] = x
            return np.sum(np.sin(v1) + x * np.sum(v0))
        """
    text, ns = grad_function(source, "f", value=False)
    assert "v1.size" in text and "v0.size" not in text and ".copy()" not in text
    user = ns_value(source, "f")
    for x in (0.3, -1.2):
        (dx,) = ns["grad_f"](x)
        assert_close(dx, numeric_grad(user, (x,), 0), f"dx at {x}")
