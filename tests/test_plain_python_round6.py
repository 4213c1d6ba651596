"""Plain Python, round six (issue 37, holdout 5): what the fifth holdout set refused, by class.

- ``math.copysign`` / ``np.copysign``: abs(x) with y's sign (``rules/elementwise.py``).
- ``functools.partial(f, *args, **kwargs)``: f with those arguments given first (``frontend/calls.py``).
- ``np.maximum.reduce`` (``minimum``, ``add``, ``multiply``) and ``np.add`` / ``np.multiply.accumulate``:
  the reductions and scans NumPy also spells as functions (``frontend/adapters_keywords.py``).
- A class defined inside the function that reads none of its names: the class defined before it
  (``frontend/desugar.py``); one that reads them (a closure) is refused, located.
- A lambda's or nested function's defaults that read the defining scope (``lambda v, k=k: ...`` in
  a loop) are evaluated where it is defined, as Python does (``frontend/calls.py``).
- ``@classmethod`` (``cls`` the class: its attributes, ``cls(...)``), and static, class and plain
  methods called through the class (``Model.sq(x)``, ``Model.energy(m, x)``) (``frontend/instances.py``).
- ``x.astype(complex)`` is ``x + 0j``, as ``np.eye(n, dtype=complex)`` (``frontend/adapters_keywords.py``).

Each served case generates ``grad_f`` and checks its value against the user's function and its
gradient against central finite differences.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

CASES: dict[str, tuple[str, list]] = {
    "math_copysign": (
        """
        def f(a, b):
            return math.hypot(a, b) + math.copysign(a * a, b) + math.copysign(2.0, a) * b
        """,
        [0.7, -1.3],
    ),
    "np_copysign_arrays": (
        """
        def f(x, y):
            return np.sum(np.copysign(x, y) * x) + np.sum(np.copysign(x ** 3, -1.0))
        """,
        [np.array([0.4, -1.2, 0.9]), np.array([-1.0, 2.0, 0.5])],
    ),
    "partial_of_a_local_function_by_keyword": (
        """
        def huber(r, delta):
            return np.where(np.abs(r) < delta, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta))

        def f(x, d):
            h = partial(huber, delta=d)
            return np.sum(h(x)) + np.sum(h(2.0 * x, delta=0.3))
        """,
        [np.array([-1.5, -0.2, 0.3, 1.1]), 0.7],
    ),
    "partial_positional_of_a_lambda_and_a_library_function": (
        """
        def f(x, s):
            scaled = functools.partial(lambda a, b, c: a * b + c, s)
            clipped = partial(np.clip, a_min=-0.5, a_max=0.8)
            again = partial(scaled, 1.0)
            return np.sum(scaled(x, x ** 2)) + np.sum(clipped(x) ** 2) + np.sum(again(x))
        """,
        [np.array([-1.5, -0.2, 0.3, 1.1]), 1.3],
    ),
    "partial_in_a_comprehension": (
        """
        def kernel(d2, scale):
            return np.exp(-0.5 * d2 / scale ** 2) / scale

        def f(x, s):
            ks = [partial(kernel, scale=c * s) for c in (0.5, 1.0, 2.0)]
            return sum(np.sum(k(x ** 2)) for k in ks)
        """,
        [np.array([-1.5, -0.2, 0.3, 1.1]), 0.9],
    ),
    "ufunc_reduce_and_accumulate": (
        """
        def f(a, b, c, X):
            top = np.maximum.reduce([a, b, c])
            low = np.minimum.reduce(X, axis=1)
            tot = np.add.reduce(X) + np.multiply.reduce(a)
            run = np.add.accumulate(X, axis=1) * np.multiply.accumulate(X)
            return np.sum(top) + np.sum(low ** 2) + np.sum(tot) + np.sum(run)
        """,
        [
            np.array([0.1, 0.9, -0.4]),
            np.array([0.5, -0.3, 0.2]),
            np.array([-0.6, 0.4, 0.8]),
            np.array([[0.3, -0.8, 1.2], [0.7, 0.1, -0.5]]),
        ],
    ),
    "class_defined_inside_the_function": (
        """
        def f(x, w):
            class Model:
                def __init__(self, scale):
                    self.scale = scale

                @staticmethod
                def act(z):
                    return np.tanh(z)

                def forward(self, z):
                    return self.act(z) * self.scale

                def loss(self, z):
                    return np.sum(self.forward(z) ** 2)

            return Model(w).loss(x) + Model(2.0).loss(x * w)
        """,
        [np.array([-1.5, -0.2, 0.3, 1.1]), 0.9],
    ),
    "astype_complex_then_sqrt_of_negatives": (
        """
        def f(x):
            r = np.sqrt(x.astype(complex) - 1.0)
            z = np.exp(1j * x).astype(np.complex128) * x.astype("complex128")
            return np.sum(np.abs(r) ** 2) + np.sum(np.real(r * r.conj())) + np.sum(np.imag(z))
        """,
        [np.array([0.2, 0.5, 1.5, 2.5])],
    ),
    "lambda_defaults_bound_where_defined": (
        """
        def f(x):
            fs = [lambda v, k=k: v * (k + 1.0) for k in range(3)]
            late = [lambda v: v * k for k in range(3)]
            return sum(np.sum(g(x) ** 2) for g in fs) + sum(np.sum(g(x)) for g in late)
        """,
        [np.array([-1.5, -0.2, 0.3])],
    ),
    "nested_def_default_of_a_local": (
        """
        def f(x, s):
            scale = 2.0 * s
            terms = []
            for p in (1.0, 2.0):

                def term(v, p=p, c=scale):
                    return c * v ** p

                terms.append(np.sum(term(x)))
            return sum(terms) + np.sum(term(x, 3.0))
        """,
        [np.array([0.5, -0.2, 1.3]), 0.7],
    ),
    "classmethod_and_methods_through_the_class": (
        """
        class Model:
            SCALE = 3.0

            def __init__(self, w):
                self.w = w

            @classmethod
            def doubled(cls, w):
                return cls(2.0 * w)

            @classmethod
            def scale(cls):
                return cls.SCALE

            @staticmethod
            def sq(v):
                return v ** 2

            def energy(self, v):
                return self.scale() * np.sum(self.sq(v) * self.w)


        def f(x, w):
            m = Model.doubled(w)
            return m.energy(x) + Model.energy(m, x) + np.sum(Model.sq(x)) * Model.scale()
        """,
        [np.array([0.5, -0.2, 1.3]), 0.7],
    ),
}


def _source(body: str) -> str:
    return "import functools\nimport math\nfrom functools import partial\n\nimport numpy as np\n\n" + textwrap.dedent(
        body
    )


def _compiled(source: str, tmp_path, **options) -> tuple[object, dict, str]:
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"], **options).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    return f, namespace, text


@pytest.mark.parametrize("name", sorted(CASES))
def test_served_and_checked_against_finite_differences(name, tmp_path):
    body, args = CASES[name]
    f, namespace, _ = _compiled(_source(body), tmp_path)
    value, *grads = namespace["grad_f"](*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)


def test_a_class_reading_the_functions_names_is_refused_located(tmp_path):
    source = _source(
        """
        def f(x, w):
            class Model:
                def loss(self, z):
                    return np.sum(w * z ** 2)

            return Model().loss(x)
        """
    )
    path = write_project(tmp_path, source)
    with pytest.raises(UserErrors) as info:
        generate(source, str(path), ["f"])
    error = info.value.errors[0]
    assert error.code == "YS014" and error.line == 9


def test_an_array_default_is_refused_saying_how_to_write_it(tmp_path):
    source = _source(
        """
        def f(x, w=np.array([0.5, 1.0, 1.5])):
            return np.sum(w * x ** 2)
        """
    )
    path = write_project(tmp_path, source)
    with pytest.raises(UserError) as info:
        generate(source, str(path), ["f"])
    error = info.value
    assert error.code == "YS032" and error.line == 8 and "if w is None" in error.message
