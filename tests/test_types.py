"""The types the generated code assumes (issue 23): complex values the tool cannot follow refused when
generating (YS022; the others: tests/test_complex.py) and complex arguments of parameters not declared
complex when running (TypeError), integer and boolean arguments refused when running, a number's
gradient a number, methods only on NumPy values, a vector value refused (YS024), ``--dump-ir`` of a
list of objects."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from yota_s2s.codegen.helpers import helper_for
from yota_s2s.codegen.target import NOT_CALLED
from yota_s2s.dsl.load import load_rules
from yota_s2s.errors import UserError, UserErrors
from yota_s2s.ir.primitives import primitive
from yota_s2s.ir.printer import format_tape
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad


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


def refusals(source: str, name: str | None = None) -> list[UserError]:
    with pytest.raises((UserError, UserErrors)) as info:
        generate(src(source), "t.py", [name] if name else None)
    error = info.value
    return error.errors if isinstance(error, UserErrors) else [error]


def check_gradients(f, grad_f, args: list) -> tuple:
    """Run ``grad_f``, compare its value with ``f`` and each gradient with finite differences."""
    value, *grads = grad_f(*args)
    assert np.allclose(value, f(*args), rtol=1e-12)
    for i, g in enumerate(grads):
        if g is None:  # no differentiable path (a flag, a count): checked by the caller
            continue
        assert_close(g, numeric_grad(f, args, i), f"d{i}")
    return value, *grads


# ----------------------------------------------------------------------------- complex values in the source


@pytest.mark.parametrize(
    ("line", "found", "at"),
    [
        ("c = x * complex(1.0, 2.0)", "the type complex (write a + 1j * b for complex(a, b))", "complex("),
        ("c = np.ones(3, dtype='c16') * x", "the complex dtype 'c16'", "'c16'"),
        ("c = x.astype('complex64')", "the complex dtype 'complex64'", "'complex64'"),
        ("c = np.fft.fft(x)", "np.fft.fft, a function of complex values", "np.fft.fft"),
        ("c = x * cdouble(1.0)", "the complex type cdouble", "cdouble"),
    ],
)
def test_a_complex_value_in_the_source_is_refused_where_it_is_written(line, found, at):
    source = f"""
        import numpy as np
        from numpy import cdouble

        I = 1j


        def f(x):
            {line}
            return np.sum(np.abs(c) ** 2)
        """
    (error,) = refusals(source)
    assert (error.code, error.line) == ("YS022", 8)
    assert error.message.startswith(f"{found}: complex values are made by complex literals")
    assert error.source_line.strip() == line
    assert error.col == error.source_line.index(at) + 1


def test_a_complex_array_maker_is_served_as_the_real_array_plus_0j():
    """``np.zeros(3, dtype=np.complex128)`` (refused before issue 37) is the real array plus 0j: the
    gradient of a real loss through it is right."""
    source = "import numpy as np\n\n\ndef f(x):\n    c = np.zeros(3, dtype=np.complex128) + x\n    return np.sum(np.abs(c) ** 2)\n"
    namespace: dict = {}
    exec(compile(generate(source, "f.py").text, "<grad>", "exec"), namespace)  # noqa: S102 - the tool's output
    x = np.array([0.5, -1.5, 2.0])
    value, dx = namespace["grad_f"](x)
    assert np.isclose(value, np.sum(x**2)) and np.allclose(dx, 2 * x, rtol=1e-14)


def test_a_complex_intermediate_of_real_parameters_is_differentiated_in_a_helper_too():
    # the program: a real loss of real parameters through complex coefficients (refused
    # before complex differentiation; tests/test_complex.py has more)
    source = """
        def p(z):
            return (0.5 + 2j) * z * z + 1.0


        def loss(a, b):
            return abs(p(a + 1j * b)) ** 2
        """
    user, gen, _ = compiled(source, "loss")
    _, da, db = check_gradients(user["loss"], gen["grad_loss"], [0.7, -0.3])
    assert isinstance(da, float) and isinstance(db, float)


def test_a_complex_value_that_is_not_one_is_accepted():
    # a local named like a module constant, a string that is not a dtype
    user, gen, _ = compiled(
        """
        import numpy as np

        I = 1j


        def f(x):
            I = 2.0
            y = x * I
            name = "complex"
            return np.sum(y * y) + len(name)
        """
    )
    x = np.array([0.5, -1.5])
    check_gradients(user["f"], gen["grad_f"], [x])


@pytest.mark.parametrize(
    "expr", ["np.sum(np.real(z * np.conj(z)))", "np.sum(z.imag * 2.0)", "np.sum(np.real(z)) + 1.0"]
)
def test_a_complex_part_of_a_real_differentiated_value_is_its_real_value(expr):
    # (refused before complex differentiation: of a real z, np.real(z) and np.conj(z) are z, np.imag(z) 0)
    user, gen, _ = compiled(f"import numpy as np\n\n\ndef f(z):\n    return {expr}\n")
    check_gradients(user["f"], gen["grad_f"], [np.array([0.5, -1.5, 2.0])])


def test_a_complex_part_in_a_loop_and_a_branch_of_a_real_value():
    source = """
        import numpy as np


        def f(x, n):
            s = 0.0
            for i in range(n):
                if i > 1:
                    s = s + np.sum(x.conj() * 2.0 + x.imag)
                else:
                    s = s + np.sum(x)
            return s
        """
    user, gen, _ = compiled(source)
    x = np.array([0.5, -1.5])
    assert_close(gen["grad_f"](x, 4)[1], numeric_grad(lambda x: user["f"](x, 4), [x], 0), "dx")


def test_a_complex_part_of_a_value_that_is_not_differentiated_is_left_as_written():
    """Bug 3 too: np.real(c) of a Python float is a Python float, which has no .sum() (the
    generated code wrote _t1.sum() for np.sum(np.real(c) * x))."""
    user, gen, text = compiled("import numpy as np\n\n\ndef f(x, c):\n    return np.sum(np.real(c) * x)\n", wrt=["x"])
    assert ".sum()" not in text
    for x, c in [(1.5, 2.0), (np.array([0.5, 1.5]), 2.0), (1.5, np.array([1.0, 3.0]))]:
        value, dx = gen["grad_f"](x, c)
        assert np.allclose(value, user["f"](x, c))
        assert_close(dx, numeric_grad(user["f"], [x, c], 0), "dx")


# ----------------------------------------------------------------------------- complex, integer, boolean arguments


SUM_OF_SQUARES = "import numpy as np\n\n\ndef f(z):\n    return np.sum(np.abs(z) ** 2)\n"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.array([1.0 + 2.0j, 3.0]), r"grad_f\(\): the argument z is complex \(complex128\)"),
        (1.0 + 2.0j, r"the argument z is complex \(complex128\): this gradient was generated for a real z"),
        (np.complex64(1.0), r"the argument z is complex \(complex64\)"),
        (np.arange(3), r"the argument z is integer \(int64\): .* pass z as floats"),
        (np.array([True, False]), r"the argument z is boolean \(bool\)"),
        (True, r"the argument z is boolean \(bool\)"),
        (np.int32(3), r"the argument z is integer \(int32\)"),
        ([1.0, 2j], r"the argument z is complex"),
    ],
)
def test_an_argument_the_rules_are_not_proven_for_is_a_type_error(value, message):
    """The issue's np.sum(np.abs(z) ** 2) of a complex z gave the conjugate gradient, exit 0."""
    _, gen, _ = compiled(SUM_OF_SQUARES)
    with pytest.raises(TypeError, match=message):
        gen["grad_f"](value)


@pytest.mark.parametrize(
    "value",
    [
        1.5,
        3,
        np.float64(1.5),
        np.float32(1.5),
        np.array(1.5),
        np.array([0.5, -1.5]),
        [0.5, -1.5],
        np.ones(3, np.float16),
    ],
    ids=["float", "int", "float64", "float32", "0-d", "array", "list", "float16"],
)
def test_a_real_floating_argument_or_a_python_int_passes(value):
    user, gen, _ = compiled(SUM_OF_SQUARES)
    value_, dz = gen["grad_f"](value)
    assert np.allclose(value_, user["f"](value))
    assert np.allclose(dz, 2.0 * np.asarray(value, dtype=np.float64), rtol=1e-3)
    if type(value) is int:  # a Python int: its gradient is a float, and right
        assert isinstance(dz, float)
        assert_close(dz, numeric_grad(user["f"], [value], 0), "dz")


def test_the_arguments_without_a_gradient_are_not_checked():
    source = """
        import numpy as np


        def f(x, idx, n, flag):
            s = x[idx] * 2.0
            for _ in range(n):
                s = s * 0.5
            if flag:
                s = s + 1.0
            return np.sum(s)
        """
    user, gen, text = compiled(source)
    assert "_real_args('grad_f', ('x',), (), x)" in text  # (idx, n and flag: integers and a bool, not checked)
    args = [np.array([0.5, 1.5, 2.5]), np.array([2, 0]), 3, True]
    _, dx, didx, dn, dflag = gen["grad_f"](*args)
    assert didx is None and dn is None and dflag is None
    assert_close(dx, numeric_grad(user["f"], args, 0), "dx")


def test_an_attribute_is_checked_by_its_path():
    source = """
        import numpy as np


        def f(m, x):
            return np.sum(np.tanh(x @ m.layers[0].W) * m.scale)
        """

    class Layer:
        def __init__(self, W):
            self.W = W

    class Model:
        def __init__(self, W, scale):
            self.layers = [Layer(W)]
            self.scale = scale

    _, gen, _ = compiled(source)
    x = np.array([[0.5, -1.0]])
    _, dm, _ = gen["grad_f"](Model(np.eye(2), 2.0), x)
    assert set(dm) == {"layers", "scale"} and isinstance(dm["scale"], float)
    with pytest.raises(TypeError, match=r"the argument m\.layers\[0\]\.W is complex"):
        gen["grad_f"](Model(np.eye(2) * 1j, 2.0), x)
    with pytest.raises(TypeError, match=r"the argument m\.scale is integer"):
        gen["grad_f"](Model(np.eye(2), np.int64(2)), x)


@pytest.mark.parametrize("options", [{"buffers": True}, {"value": False}, {"target": "cupy"}])
def test_every_form_checks_its_arguments(options):
    text = generate(SUM_OF_SQUARES, "t.py", **options).text
    assert "_real_args('grad_f', ('z',), (), z)" in text
    if options.get("target") == "cupy":
        return
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the code under test
    run = namespace["GradF"]() if options.get("buffers") else namespace["grad_f"]
    with pytest.raises(TypeError, match="the argument z is complex"):
        run(np.array([1.0 + 1.0j]))
    with pytest.raises(TypeError, match="the argument z is complex"):
        run(np.array([1.0 + 1.0j]))  # (a buffered instance: the second call too)


# ----------------------------------------------------------------------------- a number's gradient is a number


NUMBERS = """
    import numpy as np


    def branch(x, b, flag):
        if flag:
            return x * b
        return x * 2.0


    def mean(x):
        return np.mean(x)


    def total(x):
        return np.sum(x)


    def relu(x):
        return np.sum(np.maximum(x, 0.0) * 2.0)


    def select(x):
        return np.sum(np.where(x > 0, x, 0.0) * 3.0)


    def looped(x, n):
        s = 0.0
        for i in range(n):
            s = s + x * x
        return s


    def scaled(x, y):
        return np.sum(np.sin(x) * y) + np.sum(x)
    """
CALLS = {
    "branch": [(1.5, 2.0, False), (1.5, 2.0, True)],
    "mean": [(1.5,)],
    "total": [(1.5,)],
    "relu": [(1.5,), (-0.5,)],
    "select": [(1.5,)],
    "looped": [(1.5, 3)],
    "scaled": [(1.5, 2.0)],
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_gradient_of_a_number_is_a_number(name):
    """It was a 0-d array in a branch that ignores it (_grad_zeros(b)), through np.mean and np.sum
    (_unreduce) and np.where: the value right, the type wrong."""
    user, gen, _ = compiled(NUMBERS, name)
    for args in CALLS[name]:
        _, *grads = check_gradients(user[name], gen[f"grad_{name}"], list(args))
        for a, g in zip(args, grads):
            if g is not None and isinstance(a, float):
                assert isinstance(g, float) and not isinstance(g, np.ndarray), (name, args, type(g))


@pytest.mark.parametrize("name", ["mean", "total", "relu", "select"])
def test_the_gradient_of_an_array_is_an_array_of_its_shape_and_dtype(name):
    user, gen, _ = compiled(NUMBERS, name)
    for x in (np.array([0.5, -1.5, 2.0]), np.ones((2, 2), np.float32), np.array(0.75)):
        _, dx = gen[f"grad_{name}"](x)
        assert np.shape(dx) == x.shape and dx.dtype == x.dtype
        if x.ndim:
            assert type(dx) is np.ndarray
        assert_close(dx, numeric_grad(user[name], [x.astype(np.float64)], 0), "dx", rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------- methods only on NumPy values


def test_a_method_is_written_only_on_a_value_numpy_gives_as_a_numpy_value():
    """Bug 3's root: ``has_methods`` took np.NAME(...) for a NumPy value, but np.real(2.0) is the
    Python float 2.0 (np.random.normal(0.0, 1.0) too).  Every primitive whose result is taken
    for a NumPy value by its NumPy name gives one on Python numbers."""
    table = load_rules()
    for name, rule in sorted(table.rules.items()):
        record = primitive(name)
        names = [n for n in rule.names if not n.startswith(NOT_CALLED)]
        if not names or not names[0].startswith("numpy.") or helper_for(name) is not None:
            continue
        if record.python_arithmetic or record.python_value or record.boolean:
            continue  # has_methods does not trust these
        fn = np
        try:
            for part in names[0].split(".")[1:]:
                fn = getattr(fn, part)
        except AttributeError:
            continue
        for args in ((1.5,), (0.5, 0.25), (0.5, 0.25, 0.75)):
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = fn(*args)
            except Exception:  # noqa: BLE001,S112 - not a call this primitive takes
                continue
            assert isinstance(result, np.ndarray | np.generic | tuple), (name, args, type(result))


def test_a_reduction_of_a_random_draw_of_numbers_is_not_a_method():
    user, gen, text = compiled("import numpy as np\n\n\ndef f(x):\n    return np.sum(x * np.random.normal(0.0, 1.0))\n")
    assert ".sum()" not in text
    np.random.seed(0)
    value, dx = gen["grad_f"](1.5)
    np.random.seed(0)
    assert value == user["f"](1.5) and isinstance(dx, float)


# ----------------------------------------------------------------------------- a vector value


@pytest.mark.parametrize(
    ("body", "col", "what"),
    [
        ("e0 = x[0] * 2.0\n    e1 = x[1] * 3.0\n    return np.array([e0, e1])", 12, "an array of at least 1 dimension"),
        ("return np.stack([x, x]) * 2.0", 12, "an array of at least 1 dimension"),
        ("return np.zeros(3) + x", 12, "an array of at least 1 dimension"),
        ("return np.ones((2, 3)) * 2.0 + np.array([[1.0, 2.0, 3.0]]) * x[0]", 12, "an array of at least 2 dimensions"),
        ("return np.ones((2, 3)) * 2.0", 12, "an array of shape (2, 3)"),
        ("return np.sum(np.ones((2, 3)) * x, axis=0)", 12, "an array of at least 1 dimension"),
    ],
)
def test_a_function_shapes_prove_a_vector_is_refused_at_its_return(body, col, what):
    (error,) = refusals(f"import numpy as np\n\n\ndef f(x):\n    {body}\n")
    assert error.code == "YS024" and error.source_line.lstrip().startswith("return ")
    assert error.col == col
    assert error.message.startswith(f"f() returns {what}, not a scalar: yota-s2s differentiates scalar functions")
    assert "write its Jacobian with --jacobian (or vector-Jacobian products with --vjp)" in error.message


def test_a_value_shapes_cannot_prove_a_vector_is_checked_when_it_runs():
    user, gen, text = compiled("import numpy as np\n\n\ndef f(x):\n    return x * 2.0\n")
    assert "must return a scalar" in text
    check_gradients(user["f"], gen["grad_f"], [1.5])
    with pytest.raises(ValueError, match=r"f\(\) must return a scalar"):
        gen["grad_f"](np.array([1.0, 2.0]))


def test_the_command_line_refuses_a_vector_with_exit_2(tmp_path):
    (tmp_path / "v.py").write_text("import numpy as np\n\n\ndef v(x):\n    return np.array([x[0], x[1]])\n")
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s", "v.py"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("v.py:5:12: error: v() returns an array of at least 1 dimension")
    assert proc.stderr.splitlines()[0].endswith("(YS024)")


# ----------------------------------------------------------------------------- --dump-ir of a list of objects


def test_the_ir_names_an_input_in_a_list_of_objects_by_its_index():
    source = src(
        """
        import numpy as np


        def f(m, x):
            h = np.tanh(x @ m.layers[0].W)
            return np.sum(np.tanh(h @ m.layers[1].W))
        """
    )
    g = generate(source, "t.py")
    printed = format_tape(g.tapes["lower"][0])
    assert "  inp %1 m.layers[0].W\n  inp %2 m.layers[1].W\n  inp %3 x\n" in printed


def test_an_argument_read_as_a_value_without_a_gradient_is_not_complex():
    """With --wrt x, a complex w in x * w would make the real rules wrong: checked too; an index,
    a loop count, a flag and an argument read for its size only are not."""
    source = """
        import numpy as np


        def f(x, w, idx, n, flag, shaped):
            s = np.sum(np.abs(x * w) ** 2) + np.sum(x[idx])
            for _ in range(n):
                s = s * 0.5
            if flag:
                s = s + 1.0
            return s + np.size(shaped)
        """
    user, gen, text = compiled(source, wrt=["x"])
    assert (
        "_real_args('grad_f', ('x',), ('w',), x, w)" in text
    )  # (w read as a value: not complex; idx, n, flag, shaped unchecked)
    x, w, idx = np.array([0.5, 1.5]), np.array([1.0, -2.0]), np.array([1, 1])
    _, dx = gen["grad_f"](x, w, idx, 2, True, np.ones(3, complex))
    assert_close(dx, numeric_grad(lambda v: user["f"](v, w, idx, 2, True, np.ones(3)), [x], 0), "dx")
    for bad in (np.array([1.0, 2j]), 1j):
        with pytest.raises(TypeError, match="grad_f\\(\\): the argument w is complex"):
            gen["grad_f"](x, bad, idx, 2, True, np.ones(3))


def test_an_array_value_that_does_not_depend_on_the_parameters_is_still_checked():
    """``f(x)`` returns an array that does not depend on ``x`` (the fuzzer's seed 20749): the
    gradient (None) was returned with the array as the value and no error; f is not a scalar
    function, so the call raises as for any other array value.  Where the array is written by
    index (``np.zeros(1)``, then ``a[0] = ...``), shapes prove it: refused when generating."""
    _, generated, _ = compiled(
        """
        import numpy as np


        def f(x):
            a = np.zeros(len(x))
            a[0] = 0.25
            return a
        """
    )
    with pytest.raises(ValueError, match="must return a scalar"):
        generated["grad_f"](np.ones((2, 2)))
    source = "import numpy as np\n\n\ndef f(x):\n    a = np.zeros(1)\n    a[0] = 0.25\n    return a\n"
    (error,) = refusals(source)
    assert error.code == "YS024" and "shape (1,)" in error.message, error


@pytest.mark.parametrize("value", [True, False])
def test_a_float_parameters_gradient_that_is_a_count_or_an_integer_is_a_float(value):
    """``y * len(x)`` and ``y * n`` of an integer ``n``: the seed's 1.0 had been dropped and the
    gradient of the float ``y`` came back an int (the fuzzer's seed 401887); with ``--no-value``
    too, where the gradient's place among the outputs is shifted (``Tape.gradient_places``)."""
    source = "def f(x, y):\n    return y * len(x)\n\n\ndef g(y, n):\n    return y * n\n"
    for name, args in (("f", (np.zeros(3), 2.0)), ("g", (2.0, 3))):
        _, generated, text = compiled(source, name, wrt=["y"], value=value)
        out = generated[f"grad_{name}"](*args)
        dy = out[-1]
        assert type(dy) is float and dy == 3.0, (name, dy, text)
        assert "    dy = " in text, text
        zero_d = generated[f"grad_{name}"](*(np.array(a) if isinstance(a, float) else a for a in args))[-1]
        assert np.asarray(zero_d).dtype == np.float64, zero_d
