"""A dict parameter none of whose keys the function reads by name, read by ``.items()``,
``.values()``, ``.keys()``, ``len()`` or ``for k in params: params[k]`` (issue 37, refused in every holdout set as YS041): an input
tree, the list of its values in the dict's own order at run time, its gradient the dict of the same
keys in the same order (as autograd and JAX give for a dict pytree).

Each gradient is checked against central differences of the user's own function, for dicts of
arrays of different shapes, of one shape (the gradient buffer is one array: its rows), and of numbers.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import yota_s2s
from yota_s2s.errors import UserError, UserErrors
from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user, write_project

CASES: dict[str, str] = {
    "a_loop_over_items_with_a_branch_on_the_key": """
        import numpy as np

        def f(params, x):
            total = 0.0
            for name, w in params.items():
                if name.startswith("b"):
                    total = total + np.sum(np.tanh(w)) * x
                else:
                    total = total + np.sum(w ** 2)
            return total
        """,
    "sum_of_a_generator_over_values": """
        import numpy as np

        def f(params, x):
            return sum(np.sum(v ** 2) for v in params.values()) * x
        """,
    "a_generator_over_items_and_len": """
        import numpy as np

        def f(params, x):
            return x * sum(np.sum(np.sin(w)) for _, w in params.items()) / len(params)
        """,
    "enumerate_values_and_zip_of_keys_and_values": """
        import numpy as np

        def f(params, x):
            total = 0.0
            for i, w in enumerate(params.values()):
                total = total + (i + 1) * np.sum(w ** 2)
            for k, w in zip(params.keys(), params.values()):
                total = total + len(k) * np.sum(w ** 3) * x
            return total
        """,
    "a_list_comprehension_of_norms": """
        import numpy as np

        def penalty(p):
            norms = [np.sqrt(np.sum(w ** 2) + 1.0) for w in p.values()]
            return sum(norms)

        def f(params, x):
            return penalty(params) * x ** 2
        """,
    # for k in params: params[k] (frontend/keyed_loops.py): the loop over its items it means
    "a_loop_over_the_keys_reading_the_entries": """
        import numpy as np

        def f(params, x):
            total = 0.0
            for k in params:
                scale = 2.0 if k.startswith("b") else x
                total = total + scale * np.sum(params[k] ** 2)
            return total
        """,
    "a_generator_over_the_keys_reading_the_entries": """
        import numpy as np

        def f(params, x):
            return x * sum(np.sum(np.sin(params[name])) for name in params if len(name) > 0)
        """,
}

TREES = {
    "shapes": lambda rng: {"W": rng.normal(size=(3, 2)), "bias": rng.normal(size=2), "c": float(rng.normal())},
    "one_shape": lambda rng: {"a": rng.normal(size=3), "bb": rng.normal(size=3)},
    "numbers": lambda rng: {"k1": float(rng.normal()), "b2": float(rng.normal())},
}


def _grad_f(tmp_path, source):
    text = generate(source, str(write_project(tmp_path, source)), ["f"]).text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    return text, namespace["grad_f"]


@pytest.mark.parametrize("tree", sorted(TREES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_is_a_dict_of_the_same_keys_matching_finite_differences(name, tree, tmp_path):
    source = textwrap.dedent(CASES[name])
    text, grad_f = _grad_f(tmp_path, source)
    assert "list(params.values())" in text or "list(p.values())" in text
    f = import_user(tmp_path).f
    params, x = TREES[tree](np.random.default_rng(0)), 1.3
    value, dparams, dx = grad_f(params, x)
    assert np.allclose(value, f(params, x), rtol=1e-12, atol=1e-12)
    assert list(dparams) == list(params)  # the same keys, in the dict's order
    check_gradient(f, [params, x], [dparams, dx])


def test_one_generated_function_serves_dicts_of_any_keys_in_their_order(tmp_path):
    source = textwrap.dedent(CASES["a_loop_over_items_with_a_branch_on_the_key"])
    _, grad_f = _grad_f(tmp_path, source)
    f = import_user(tmp_path).f
    rng = np.random.default_rng(1)
    for params in ({"b": rng.normal(size=4), "W": rng.normal(size=(2, 2))}, {"x": 0.5}, {}):
        value, dparams, dx = grad_f(params, 0.7)
        assert list(dparams) == list(params)
        assert np.isclose(value, f(params, 0.7))
        check_gradient(f, [params, 0.7], [dparams, dx])


def test_an_attribute_holding_a_dict(tmp_path):
    source = textwrap.dedent(
        """
        import numpy as np

        def f(m, x):
            return x * sum(np.sum(v ** 2) for v in m.params.values())
        """
    )
    _, grad_f = _grad_f(tmp_path, source)

    class M:
        pass

    m = M()
    m.params = {"a": np.array([1.0, 2.0]), "b": 3.0}
    value, dm, dx = grad_f(m, 2.0)
    assert value == 28.0 and dx == 14.0
    assert list(dm) == ["params"] and list(dm["params"]) == ["a", "b"]
    assert np.allclose(dm["params"]["a"], [4.0, 8.0]) and np.isclose(dm["params"]["b"], 12.0)


def test_the_api_grad_reads_the_tree(tmp_path):
    source = textwrap.dedent(CASES["sum_of_a_generator_over_values"])
    write_project(tmp_path, source)
    f = import_user(tmp_path).f
    params = {"w": np.array([1.0, -2.0]), "v": np.ones((2, 2))}
    value, (dparams, dx) = yota_s2s.grad(f, params, 0.5)
    assert np.isclose(value, 4.5) and np.isclose(dx, 9.0)
    assert np.allclose(dparams["w"], [1.0, -2.0]) and np.allclose(dparams["v"], np.ones((2, 2)))


def test_a_value_read_at_a_key_is_refused_located(tmp_path):
    # a dict of dicts iterated (for name, layer in params.items(): layer["W"]): its inner keys are
    # static, but the items' values are one list of a run-time length: refused at the read
    source = (
        "import numpy as np\n\n\ndef f(params, x):\n    for name, layer in params.items():\n"
        '        x = np.tanh(layer["W"] @ x)\n    return np.sum(x)\n'
    )
    path = tmp_path / "t.py"
    path.write_text(source, encoding="utf-8")
    with pytest.raises((UserError, UserErrors)) as info:
        generate(source, str(path), ["f"])
    err = info.value.errors[0] if isinstance(info.value, UserErrors) else info.value
    assert (err.code, err.line) == ("YS034", 6), err.format()


def test_a_loop_over_an_array_of_indices_is_not_read_as_a_dict(tmp_path):
    # for i in perm: x[perm[i]] uses the key as an index: perm is an array, left as written
    source = "def f(perm, x):\n    t = 0.0\n    for i in perm:\n        t = t + x[perm[i]] * x[i]\n    return t\n"
    text = generate(source, str(write_project(tmp_path, source)), ["f"], wrt=["x"]).text
    assert ".items()" not in text
    namespace: dict = {}
    exec(compile(text, "grad.py", "exec"), namespace)  # noqa: S102 - the tool's output
    perm, x = np.array([2, 0, 1]), np.array([0.5, -1.0, 2.0])
    value, dx = namespace["grad_f"](perm, x)
    assert np.isclose(value, sum(x[perm[i]] * x[i] for i in perm))
    check_gradient(lambda x: sum(x[perm[i]] * x[i] for i in perm), [x], [dx])
