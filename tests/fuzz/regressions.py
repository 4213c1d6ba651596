"""Every failure the fuzzer found, shrunk to a minimal program (tests/test_fuzz.py runs them all).

An entry is the shrunk program, the seed its inputs are drawn with, and the bug in one line.
``KNOWN_FAILING`` names the entries whose bug is not fixed on this branch, with their bug class:
they run as ``xfail(strict=True)``, so the fix of a bug turns its entries into unexpected passes,
and then their names come out of ``KNOWN_FAILING``.  ``FAILING_SEEDS`` lists the seeds of the
normal suite's bounded run (``test_fuzz.SUITE_SEEDS``) that fail today, with the same bug classes:
the bounded run leaves them out until the fix.

To add a failure: ``python -m tests.fuzz.run --n 2000 --seed S --out found.jsonl`` shrinks the
first failures of each kind; paste the shrunk program here with its seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .gen import Program


@dataclass(frozen=True)
class Regression:
    name: str
    bug: str
    program: Program
    seed: int = 0
    refusal_ok: bool = False  # a clear refusal is the fix (an array-valued f, complex inputs)
    only: str | None = None  # the check to run (``complex``: it runs for one program in ten otherwise)
    refusal_code: str | None = None  # the code a refusal must carry, where one is the fix


def _p(source: str, *params, dims=(("n", 1), ("m", 1)), smooth=False, vector=False) -> Program:
    return Program(source, tuple(params), dims, smooth, vector)


# The bug classes (the fixes are being made in parallel on other branches of issue 23).
FLOAT_0D = "a 0-d array returned for a Python float parameter"
ALIAS_BRANCH = "aliasing through a branch (an in-place += on a name another name shares)"
STD_ONE = "np.std of one element: nan gradient"
NESTED_SAVED = "saved value after a later reassignment in nested loops"
NAMES = "names colliding with generated names (_skip1, _unbroadcast, ...)"
NO_VALUE_KEYERROR = "--no-value KeyError (internal error)"
VECTOR = "vector-valued returns accepted without an error"
POWER_ZERO = "powers at zero (x ** 0 at x = 0: nan, or 0.0 ** -1 raised)"
INT_EXPONENT = "NEW: an integer parameter used as an exponent gets a nan gradient (a negative base), not None"
BOOL_POWER = "NEW: b ** 2 of a boolean written b * b: a bool, whose log1p is float16 (wrong value)"
BUFFERS_NP = "NEW: --buffers module uses np without importing numpy when grad_f needs no numpy"
NO_VALUE_SIZE = "NEW: --no-value takes the size of np.zeros(3) for that of np.zeros(1) (stand-in size)"
AUG_ALIAS = "NEW: an in-place += / -= through an alias of a parameter (or of a 0-d array) is read as a rebinding"
AXIS_0D = "NEW: a reduction with axis=0 of a 0-d array (NumPy allows it): ZeroDivisionError in the gradient"
EMPTY = "NEW: empty arrays: the gradient divides by np.size of an empty array (ZeroDivisionError)"
COMPLEX = "complex numbers accepted by code whose rules assume real ones"
LOOP_AFTER = "loop-carried value used after its loop (the backward pops clobber it, or an inner loop's value)"
NORM_ZERO = "NEW: np.linalg.norm of a zero vector: a nan gradient even where that vector does not depend on the input"
UNBOUND = "NEW: a name a path leaves unbound returned as None (Python: UnboundLocalError), not an error"
ALIAS_TWO_SIDED = "NEW: an in-place update of a name one branch keeps while another name takes it in the other"
STATIC_METHOD = "NEW: a method of an object parameter called in static code made an array input of the method"
STATIC_LIST_ITEM = "NEW: an object's list element (m.layers[1].w) read in static code was refused"
ALIAS_CARRIED = "NEW: two names a loop carries that held one array before it, one updated in place"
INT_GRADIENT = "NEW: a float parameter's gradient that is a count (y * len(x)): an integer, not a float"
ZERO_D_AXIS = "NEW: a reduction along axis 0/-1 of a 0-d value (NumPy accepts it): the gradient has shape (1,)"
UNDEFINED_ADJOINT = "NEW: writes of constants into a local array, then a read of an unwritten element: NameError dv0"


REGRESSIONS: list[Regression] = [
    Regression(
        "buffers_module_without_numpy",
        BUFFERS_NP,
        _p("import numpy as np\n\n\ndef f(x):\n    t1 = x\n    return x + t1\n", ("float", "x")),
        1253,
    ),
    Regression(
        "float_parameter_0d_gradient",
        FLOAT_0D,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    s1 = 0.0\n    s1 -= x - x\n    return np.arcsinh(s1)\n",
            ("float", "x"),
        ),
        1075,
    ),
    Regression(
        "alias_through_branch",
        ALIAS_BRANCH,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    s1 = x\n    s1 = np.clip(s1, 0.5, 0.5)\n    if s1 < 0.0:\n"
            "        pass\n    else:\n        b4 = s1\n    s1 += s1\n    return np.sum(b4)\n",
            ("array", "x", (1,)),
        ),
        16,
        refusal_ok=True,
        refusal_code="YS017",
    ),
    Regression(
        "std_of_one_element",
        STD_ONE,
        _p(
            "import numpy as np\n\n\ndef f(z):\n    return np.sum(np.std(z, axis=0, keepdims=True))\n",
            ("array", "z", (1,)),
        ),
        120,
    ),
    Regression(
        "no_value_zeros_size",
        NO_VALUE_SIZE,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    v0 = np.zeros(3)\n    v1 = np.zeros(1)\n    v1[0] = x\n"
            "    return np.sum(np.sin(v1) + x * np.sum(v0))\n",
            ("float", "x"),
            smooth=True,
        ),
        128,
    ),
    Regression(
        "nested_loops_saved_value",
        NESTED_SAVED,
        _p(
            "import numpy as np\n\n\ndef f(y):\n    v2 = y\n    for v0 in v2:\n        for v1 in range(3):\n"
            "            v2 = v2\n        v2 = np.tanh(v2 * v0)\n    return np.sum(v2)\n",
            ("array", "y", (1,)),
        ),
        74,
    ),
    Regression(
        "skip_flag_name",
        NAMES,
        _p(
            "import numpy as np\n\n\ndef f(y):\n    _skip1 = 0.0\n    for i13 in range(len(y)):\n        if 0.5:\n"
            "            continue\n    return _skip1 + np.sum(y)\n",
            ("array", "y", (1,)),
        ),
        1875,  # (seed 1874 also draws the complex check: a COMPLEX failure, complex_argument's)
    ),
    Regression(
        "augmented_assignment_through_alias_in_loop",
        AUG_ALIAS,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    t3 = x\n    s4 = x\n    for i4 in x:\n        s4 -= t3\n"
            "    return np.sum(t3)\n",
            ("array", "x", (1,)),
        ),
        1518,
        refusal_ok=True,
        refusal_code="YS017",
    ),
    Regression(
        "attribute_scaled_in_place_through_alias",
        AUG_ALIAS,
        _p(
            "import numpy as np\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Model:\n    b: np.ndarray\n\n\n"
            "def f(m):\n    v1 = m.b\n    v1 *= 0.5\n    return np.sum(m.b)\n",
            ("object", "m", "Model", (("b", ("n",)),)),
            dims=(("n", 2), ("m", 1)),
        ),
        379,
        refusal_ok=True,
        refusal_code="YS017",
    ),
    Regression(
        "empty_array_broadcast_sum",
        EMPTY,
        _p(
            "import numpy as np\n\n\ndef f(x, y):\n    return np.sum(x + y)\n",
            ("array", "x", ()),
            ("array", "y", ("n",)),
            dims=(("n", 2), ("m", 1)),
            smooth=True,
        ),
        3132,
    ),
    Regression(
        "empty_array_mean_axis",
        EMPTY,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.mean(x, axis=1))\n",
            ("array", "x", ("n", 1)),
            dims=(("n", 2), ("m", 1)),
            smooth=True,
        ),
        3210,
    ),
    Regression(
        "prod_axis_0_of_0d_array",
        AXIS_0D,
        _p("import numpy as np\n\n\ndef f(y):\n    return np.prod(y, axis=0)\n", ("array", "y", ())),
        1767,
    ),
    Regression(
        "no_value_unread_element",
        NO_VALUE_KEYERROR,
        _p(
            "import numpy as np\n\n\ndef f(y):\n    v0 = np.zeros(3)\n    v0[2] = y\n    return v0[0]\n", ("float", "y")
        ),
        3378,
    ),
    Regression(
        "constant_writes_then_unwritten_element",
        UNDEFINED_ADJOINT,
        _p(
            "import numpy as np\n\n\ndef f(z):\n    v0 = np.zeros(3)\n    v0[0] = z\n    v0[1] = 0.25\n"
            "    return v0[2] + np.sum(v0)\n",
            ("float", "z"),
        ),
        3249,
    ),
    Regression(
        "array_parameter_returned",
        VECTOR,
        _p(
            "import numpy as np\n\n\ndef f(y):\n    return y\n",
            ("array", "y", ("n",)),
            dims=(("n", 3), ("m", 1)),
            vector=True,
        ),
        3139,
        refusal_ok=True,
    ),
    Regression(
        "power_0_at_zero",
        POWER_ZERO,
        _p("import numpy as np\n\n\ndef f(x):\n    return np.sum(x ** 0 + x)\n", ("array", "x", ("n",)), smooth=True),
    ),
    Regression(
        "integer_exponent_parameter",
        INT_EXPONENT,
        _p(
            "import numpy as np\n\n\ndef f(x, n):\n    return np.sum(x**n)\n",
            ("array", "x", ("n",)),
            ("int", "n", 2),
            dims=(("n", 3), ("m", 1)),
        ),
    ),
    Regression(
        "boolean_squared",
        BOOL_POWER,
        _p(
            "import numpy as np\n\n\ndef f(z):\n    v1 = z >= 0.25\n    return np.log1p(v1**2) + z\n",
            ("array", "z", ()),
        ),
        3421,  # (seed 3420 also draws the complex check: a COMPLEX failure, complex_argument's)
    ),
    Regression(
        "empty_array_einsum_shape",
        EMPTY,
        _p(
            "import numpy as np\n\n\ndef f(x, y):\n    return np.sum(np.einsum('ij,j->i', y, x))\n",
            ("array", "x", ("n",)),
            ("array", "y", (1, 1)),
            dims=(("n", 2), ("m", 1)),
            smooth=True,
        ),
        4237,
    ),
    Regression(
        "loop_result_clobbered_by_backward",
        LOOP_AFTER,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    v1 = 0.0\n    for v0 in x:\n        v1 = v1 + 0.25\n"
            "        v1 = np.tanh(np.sum(x * v1))\n    return v1\n",
            ("array", "x", ("n",)),
            dims=(("n", 2), ("m", 1)),
        ),
        377,
    ),
    Regression(
        "inner_loop_value_after_inner_loop",
        LOOP_AFTER,
        _p(
            "def f(x, n_steps):\n    for v0 in range(4):\n        for v1 in range(n_steps):\n            v2 = x\n"
            "        v2 = v2 + x\n    return v2\n",
            ("float", "x"),
            ("int", "n_steps", 1),
        ),
        156,
    ),
    Regression(
        "while_in_for_value",
        NESTED_SAVED,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    s6 = 1.0\n    for i6 in x:\n        t8 = np.mean(x)\n        k10 = 0\n"
            "        while k10 < 4:\n            k10 = k10 + 1\n            s6 = s6 + 0.25 * np.sin(np.sum(x))\n"
            "        s6 = np.tanh(s6 * t8) + 0.5 * s6\n    return s6\n",
            ("array", "x", ("n",)),
            dims=(("n", 3), ("m", 2)),
        ),
        131,
    ),
    Regression(
        "alias_through_conditional_expression",
        ALIAS_BRANCH,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    v0 = np.expm1(x)\n    v2 = x if x < 0.0 else v0\n    v0 *= 0.5\n"
            "    return np.sum(v2)\n",
            ("array", "x", (1,)),
        ),
        10836,
        refusal_ok=True,
        refusal_code="YS017",
    ),
    Regression(
        "norm_of_zero_vector",
        NORM_ZERO,
        _p(
            "import numpy as np\n\n\ndef f(x):\n    return np.linalg.norm(x - x) + np.sum(x)\n",
            ("array", "x", ("n",)),
            dims=(("n", 3), ("m", 1)),
        ),
        10242,
    ),
    Regression(
        "complex_argument",
        COMPLEX,
        _p("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * x).real\n", ("array", "x", ("n",))),
        refusal_ok=True,
        only="complex",
    ),
    Regression(
        "unbound_name_returned",
        UNBOUND,
        _p(
            "def f(x):\n    if x > 0.0:\n        pass\n    else:\n        v0 = x\n    return v0\n",
            ("array", "x", (1,)),
            vector=True,
        ),
        104176,
        refusal_ok=True,
    ),
    Regression(
        "alias_kept_by_one_branch_taken_by_the_other",
        ALIAS_TWO_SIDED,
        _p(
            "import numpy as np\n\ndef f(x, n_steps):\n    v1 = np.arcsinh(x)\n    if n_steps:\n        v0 = v1\n"
            "    else:\n        v1 = v1\n    v1 -= x\n    return np.sum(v0)\n",
            ("array", "x", (1,)),
            ("int", "n_steps", 1),
        ),
        202825,
        refusal_ok=True,
        refusal_code="YS017",
    ),
    Regression(
        "method_of_an_object_in_static_code",
        STATIC_METHOD,
        _p(
            "import numpy as np\nfrom dataclasses import dataclass\n\n@dataclass\nclass Model0:\n    b: np.ndarray\n"
            "    W: np.ndarray\n\n    def act(self, v):\n        return np.tanh(self.b) * np.sum(v)\n\n"
            "def f(x, y):\n    t2 = x.act(x.W)\n    k4 = 0\n    while k4 < 3 and np.max(x.act(y)) > 0.5:\n"
            "        k4 = k4 + 1\n    return np.sum(t2) * k4\n",
            ("object", "x", "Model0", (("b", ("n",)), ("W", ("m", "n")))),
            ("array", "y", (1, "n")),
            dims=(("n", 3), ("m", 2)),
        ),
        201338,
        refusal_ok=True,
    ),
    Regression(
        "list_element_of_an_object_in_static_code",
        STATIC_LIST_ITEM,
        _p(
            "import numpy as np\nfrom dataclasses import dataclass\n\n@dataclass\nclass Layer1:\n    w: np.ndarray\n"
            "    c: float\n\n@dataclass\nclass Model0:\n    layers: list[Layer1]\n\n"
            "def f(x):\n    s5 = x.layers[0].w\n    k6 = 0\n    while k6 < 2 and np.sum(x.layers[1].w) >= 0.0:\n"
            "        k6 = k6 + 1\n        s5 = s5 + 0.25 * np.cos(s5 * x.layers[1].c)\n    return np.sum(s5)\n",
            ("object", "x", "Model0", (("layers", ("list", "Layer1", 2, (("w", ("n",)), ("c", ())))),)),
            dims=(("n", 2), ("m", 1)),
        ),
        9,
    ),
    Regression(
        "alias_carried_twins",
        ALIAS_CARRIED,
        _p(
            "import numpy as np\n\ndef f(x):\n    v2 = x ** 1\n    v1 = v2\n    for v0 in x:\n        v2 -= x\n"
            "        v1 = v1\n    return np.sum(v1)\n",
            ("array", "x", (1,)),
        ),
        400122,
        refusal_ok=True,
        refusal_code="YS017",
    ),
    Regression(
        "float_parameter_times_a_count",
        INT_GRADIENT,
        _p("def f(x, y):\n    v0 = len(x)\n    v1 = y * v0\n    return v1\n", ("array", "x", (1,)), ("float", "y")),
        401887,
    ),
    Regression(
        "reduction_along_an_axis_of_a_number",
        ZERO_D_AXIS,
        _p("from scipy import special\n\ndef f(y):\n    return special.logsumexp(y, axis=0)\n", ("float", "y")),
        200695,
    ),
    Regression(
        "max_along_an_axis_of_an_element",
        ZERO_D_AXIS,
        _p(
            "import numpy as np\n\ndef f(z):\n    v0 = z[2]\n    return np.max(v0, axis=0)\n",
            ("array", "z", ("n",)),
            dims=(("n", 3), ("m", 1)),
        ),
        103941,
    ),
]

#: Entries whose bug is not fixed on this branch -> its class (xfail(strict=True) until then).
KNOWN_FAILING: dict[str, str] = {}

#: Seeds of the bounded run that fail today -> the bug class (left out of the run until fixed).
FAILING_SEEDS: dict[int, str] = {}
