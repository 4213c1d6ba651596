"""--vjp, --jvp and --jacobian with ``--target array-api``: each mode's array-API module gives the NumPy
target's numbers on NumPy arrays and on ``array-api-strict`` arrays (the standard's reference namespace).

The two features landed apart (the modes on the NumPy target, the target for gradients); together they
first failed inside code generation (``np.shape`` has no array-API name; a Jacobian's rows written with
``_rows`` were read before they were named).  The NumPy target's numbers are themselves checked against
finite differences in tests/test_jacobian.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from yota_s2s.errors import UserError
from yota_s2s.pipeline import generate

from .gradcheck import load_module

SOURCES = {
    "system": (
        "import numpy as np\n\n\ndef f(x):\n"
        "    return np.array([x[0] ** 2 + x[1] * x[2], x[0] * x[1] - 1.0, np.sin(x[2]) + x[0]])\n"
    ),
    "stacked": (
        "import numpy as np\n\n\ndef f(x):\n"
        "    rows = []\n"
        "    for k in range(3):\n"
        "        rows.append(x[k] * x[(k + 1) % 3] - 0.5)\n"
        "    return np.stack(rows)\n"
    ),
    "layer": "import numpy as np\n\n\ndef f(x, W):\n    return np.tanh(W @ x) * 2.0\n",
    "elementwise": "import numpy as np\n\n\ndef f(x):\n    return np.exp(x) * x - x ** 3\n",
    "horner": (
        "import numpy as np\n\nC = (0.5, -1.0, 2.0, 0.25)\n\n\ndef f(x, y):\n"
        "    acc = x * 0.0\n"
        "    for c in C:\n"
        "        acc = acc * x + c * y\n"
        "    return acc\n"
    ),
}
ARGS = {
    "system": lambda rng: [rng.normal(size=3)],
    "stacked": lambda rng: [rng.normal(size=3)],
    "layer": lambda rng: [rng.normal(size=3), rng.normal(size=(2, 3))],
    "elementwise": lambda rng: [rng.normal(size=4)],
    "horner": lambda rng: [rng.normal(size=3), 1.5],
}
MODES = {"vjp": "vjp_f", "jvp": "jvp_f", "jacobian": "jac_f"}


def _modules(tmp_path, case: str, mode: str):
    """The NumPy and the array-API modules of ``case`` in ``mode``, or None where the mode refuses it
    (the same refusal on both targets: the array-API target adds none of its own here)."""
    source = SOURCES[case]
    try:
        numpy_text = generate(source, f"{case}.py", ["f"], target="numpy", mode=mode).text
    except UserError as exc:
        with pytest.raises(UserError) as again:
            generate(source, f"{case}.py", ["f"], target="array-api", mode=mode)
        assert again.value.code == exc.code
        return None
    try:
        standard_text = generate(source, f"{case}.py", ["f"], target="array-api", mode=mode).text
    except UserError as exc:  # what the standard lacks (a scatter-add at an index computed at run time)
        assert exc.code == "YS040" and exc.line is not None and "array API standard" in str(exc), str(exc)
        return None
    paths = tmp_path / f"np_{case}_{mode}.py", tmp_path / f"xp_{case}_{mode}.py"
    paths[0].write_text(numpy_text, encoding="utf-8")
    paths[1].write_text(standard_text, encoding="utf-8")
    return load_module(paths[0]), load_module(paths[1])


def _extra(mode: str, value, params, rng):
    """dout for a VJP (the value's shape), a tangent for each parameter for a JVP, nothing for a Jacobian."""
    if mode == "vjp":
        return [rng.normal(size=np.shape(value))]
    if mode == "jvp":
        return [rng.normal(size=np.shape(p)) for p in params]
    return []


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("case", sorted(SOURCES))
def test_each_mode_gives_the_numpy_targets_numbers(case, mode, tmp_path):
    modules = _modules(tmp_path, case, mode)
    if modules is None:
        pytest.skip(f"--{mode} of {case} is refused (the same on both targets, or a located YS040)")
    ref, new = modules
    rng = np.random.default_rng(25)
    params = ARGS[case](rng)
    source = tmp_path / f"{case}.py"
    source.write_text(SOURCES[case], encoding="utf-8")
    value = load_module(source).f(*params)
    args = [*params, *_extra(mode, value, params, rng)]
    want = getattr(ref, MODES[mode])(*args)
    got = getattr(new, MODES[mode])(*args)
    assert len(want) == len(got)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-12, atol=1e-14)

    strict = pytest.importorskip("array_api_strict")
    got_strict = getattr(new, MODES[mode])(*[strict.asarray(a) for a in args])
    for a, b in zip(want, got_strict, strict=True):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-12, atol=1e-14)
