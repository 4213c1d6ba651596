"""What issue 37's fresh files found (``benchmarks/fresh``), each fixed at its root.

- ``np.stack(lst, axis=k)`` and ``np.concatenate(lst, axis=k)`` of a list a loop appends to were
  refused (YS032) but for ``np.stack(lst)``: the heads of an attention block, the columns of a
  design matrix, a mixture's components.
- a helper holding a comprehension of run-time length inside a call (``np.array([... for v in x])``)
  and called twice raised "unknown name '_items7_20'" (YS030): the first inlining rewrote the
  helper's own tree (``lists._Replace`` shared its list fields).
- ``for m, (a, b) in enumerate(MEMBERS)`` over a module-level list of pairs was refused (YS011).
- ``np.roll(phi, -1, axis=mu)`` in ``for mu in range(2)`` was refused as "computed from a
  differentiated value": a static parameter computed from the index of a loop of constant bounds
  unrolls the loop.
- ``np.eye(2, dtype=complex)`` (a transfer matrix) was refused (YS022): it is ``np.eye(2) + 0j``.
- ``sum(map(lambda v: v * v, x))`` was refused (no rule for ``builtins.map``): it is the generator
  ``(f(v) for v in x)``, a loop where ``x``'s length is known at run time only.
- ``np.linalg.eigvals`` in module-level code (an echo-state reservoir scaled to a spectral radius)
  ran the rule's real-symmetric check, and the generated code raised: module-level code reads no
  parameter, so it runs as NumPy runs it.

Each served case compares the value with the user's function and the gradient with central
differences.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

SERVED: dict[str, tuple[str, object]] = {
    "stack_axis_1": (
        """
        def f(x):
            cols = []
            for k in range(1, 3):
                cols.append(np.sin(k * x))
                cols.append(np.cos(k * x))
            return np.sum(np.stack(cols, axis=1) @ np.arange(4.0))
        """,
        lambda rng: [rng.normal(size=5)],
    ),
    "stack_axis_minus_1_of_a_run_time_length": (
        """
        def f(W, x):
            rows = []
            for k in range(len(W)):
                rows.append(np.tanh(W[k] * x))
            return np.sum(np.stack(rows, axis=-1) ** 2 * np.arange(len(W)))
        """,
        lambda rng: [rng.normal(size=(3, 4)), rng.normal(size=4)],
    ),
    "concatenate_last_axis": (
        """
        def f(W, x):
            heads = []
            for i in range(2):
                heads.append(x @ W[:, 2 * i : 2 * i + 2])
            return np.sum(np.concatenate(heads, axis=-1) * np.arange(4.0))
        """,
        lambda rng: [rng.normal(size=(3, 4)), rng.normal(size=(5, 3))],
    ),
    "concatenate_first_axis": (
        """
        def f(x):
            parts = []
            for k in range(3):
                parts.append(x[k:k + 2] * (k + 1))
            return np.sum(np.concatenate(parts) * np.arange(6.0))
        """,
        lambda rng: [rng.normal(size=5)],
    ),
    "helper_with_a_comprehension_called_twice": (
        """
        def cdf(x):
            return np.array([0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])

        def f(x):
            return np.sum(cdf(x) * cdf(2.0 * x))
        """,
        lambda rng: [rng.normal(size=4)],
    ),
    "enumerate_module_pairs": (
        """
        MEMBERS = [(0, 1), (1, 2), (0, 2)]

        def f(x):
            e = 0.0
            for m, (a, b) in enumerate(MEMBERS):
                e = e + (m + 1) * (x[a] - x[b]) ** 2
            return e
        """,
        lambda rng: [rng.normal(size=3)],
    ),
    "roll_axis_of_a_loop_index": (
        """
        def f(phi):
            hop = 0.0
            for mu in range(2):
                hop = hop + np.sum(phi * np.roll(phi, -1, axis=mu))
            return hop
        """,
        lambda rng: [rng.normal(size=(3, 4))],
    ),
    "complex_dtype_makers": (
        """
        def f(t):
            M = np.eye(2, dtype=complex)
            Z = np.zeros(2, dtype=np.complex128)
            for d in t:
                M = M @ np.array([[np.cos(d), 1j * np.sin(d)], [1j * np.sin(d), np.cos(d)]])
            r = (M[0, 0] + M[0, 1] - M[1, 0] - M[1, 1] + Z[0]) / 4.0
            return np.abs(r) ** 2
        """,
        lambda rng: [rng.normal(size=3)],
    ),
    "map_of_a_lambda": (
        """
        def f(x, w):
            return sum(map(lambda v: v * v, x)) + sum(map(lambda a, b: a * b, x, w))
        """,
        lambda rng: [rng.normal(size=4), rng.normal(size=4)],
    ),
    "eigvals_in_module_level_code": (
        """
        RNG = np.random.default_rng(1)
        W = RNG.normal(size=(4, 4))
        RADIUS = np.max(np.abs(np.linalg.eigvals(W)))

        def f(x):
            return np.sum(np.tanh(0.9 * W @ x / RADIUS))
        """,
        lambda rng: [rng.normal(size=4)],
    ),
}


@pytest.mark.parametrize("name", sorted(SERVED))
def test_served_and_checked_against_finite_differences(name, tmp_path):
    body, make_args = SERVED[name]
    source = "import math\n\nimport numpy as np\n" + textwrap.dedent(body)
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    args = make_args(np.random.default_rng(0))
    value, *grads = namespace["grad_f"](*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_gradient(f, args, grads)


def test_lowering_leaves_the_helper_s_tree_as_the_source_wrote_it():
    """Lowering read the comprehension as a loop by rewriting the helper's own tree: the second
    call of the helper found a name with no loop to build it."""
    import ast

    from yota_s2s.dsl.load import load_rules
    from yota_s2s.frontend.fence import fence
    from yota_s2s.frontend.lower import lower

    body = SERVED["helper_with_a_comprehension_called_twice"][0]
    module = fence("import math\nimport numpy as np\n" + textwrap.dedent(body), "m.py", ["f"])
    before = ast.dump(module.functions["cdf"])
    lower(module, "f", load_rules())
    assert ast.dump(module.functions["cdf"]) == before


def test_the_error_functions_in_numpy_match_the_standard_library():
    """``math.erf``/``erfc`` (and ``scipy.special``'s) are written with NumPy alone (runtime/special.py)."""
    import math

    from yota_s2s.runtime.special import _erf, _erfc

    x = np.concatenate([np.linspace(-30.0, 30.0, 6001), [0.0, -0.0, 1e-300, 1e-10, 0.999999, 1.0, -1.0, 1.000001]])
    for helper, exact in ((_erf, math.erf), (_erfc, math.erfc)):
        want = np.array([exact(v) for v in x])
        normal = np.abs(want) > 1e-300  # (erfc's subnormal tail: an absolute error)
        for got in (helper(x), np.array([helper(v) for v in x])):  # arrays, and numbers one by one
            assert np.max(np.abs(got - want)[normal] / np.abs(want[normal])) < 1e-14
            assert np.max(np.abs(got - want)[~normal], initial=0.0) < 1e-300
    assert (_erf(np.inf), _erf(-np.inf), _erfc(np.inf), _erfc(-np.inf)) == (1.0, -1.0, 0.0, 2.0)
    assert np.isnan(_erf(np.nan)) and np.isnan(_erfc(np.array([np.nan, 2.0]))[0])
    assert type(_erf(0.5)) is np.float64 and _erfc(np.float32(2.0)).dtype == np.float32


def test_a_gradient_through_math_erf_imports_numpy_only(tmp_path):
    source = (
        "import math\n\nimport numpy as np\n\n\ndef f(x):\n    return sum(math.erf(v) + math.erfc(2 * v) for v in x)\n"
    )
    path = write_project(tmp_path, source)
    f = import_user(tmp_path).f
    text = generate(source, str(path), ["f"]).text
    assert "scipy" not in text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    x = np.array([-1.7, -0.3, 0.2, 0.9, 1.4, 3.0])
    value, grad = namespace["grad_f"](x)
    assert abs(value - f(x)) < 1e-13
    check_gradient(f, [x], [grad])
