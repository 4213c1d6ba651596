"""Jacobians of polynomial systems (issue 24): katsura-4..8, cyclic-5/7, noon and eco, each in several
source forms, against central finite differences.

The forms: ``np.array([...])`` and ``np.stack([...])`` of scalar expressions (the rows written out,
straight-line), a list built in a loop then ``np.array``/``np.stack``, a comprehension, and array
arithmetic on slices (``np.convolve``, slices of ``np.concatenate([x, x])``, ``np.sum``): those
are differentiated by the loop over the rows.  The scalar-expression forms also take a batch of
points, ``x`` of shape ``(n, B)``: their Jacobian, of shape ``(rows, n, B)``, is checked point by
point.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_jacobian import SYSTEMS as EXPRESSIONS
from benchmarks.bench_jacobian import source, unknowns
from yota_s2s.pipeline import generate

from .test_jacobian import check_jacobian, load, numeric_jacobian

RNG = np.random.default_rng(2024)


def _module(name: str, body: str) -> str:
    return f"import numpy as np\n\n\ndef {name}(x):\n{body}"


def katsura_loop(n: int) -> str:
    """katsura-n: a list built in nested loops, ``abs`` of the loop indices, then ``np.array``."""
    m = n + 1
    return _module(
        "katsura",
        f"""    rows = []
    for m in range({n}):
        s = -x[m]
        for l in range(m - {n}, {m}):
            s = s + x[abs(l)] * x[abs(m - l)]
        rows.append(s)
    rows.append(x[0] + 2.0 * np.sum(x[1:]) - 1.0)
    return np.array(rows)
""",
    )


def katsura_slices(n: int) -> str:
    """katsura-n by array arithmetic: ``u = (x[n], .., x[1], x[0], .., x[n])``, the sums of products
    are ``np.convolve(u, u)``."""
    m = n + 1
    return _module(
        "katsura",
        f"""    u = np.concatenate([x[:0:-1], x])
    c = np.convolve(u, u)
    return np.concatenate([c[{2 * m - 2}:{3 * m - 3}] - x[:-1], np.array([x[0] + 2.0 * np.sum(x[1:]) - 1.0])])
""",
    )


def cyclic_loop(n: int) -> str:
    """cyclic-n: nested loops over scalars, ``x[(i + j) % n]``."""
    return _module(
        "cyclic",
        f"""    rows = []
    for k in range(1, {n}):
        s = 0.0
        for i in range({n}):
            p = 1.0
            for j in range(k):
                p = p * x[(i + j) % {n}]
            s = s + p
        rows.append(s)
    rows.append(np.prod(x) - 1.0)
    return np.stack(rows)
""",
    )


def cyclic_slices(n: int) -> str:
    """cyclic-n by array arithmetic: the products of k consecutive elements, slices of ``[x, x]``."""
    return _module(
        "cyclic",
        f"""    y = np.concatenate([x, x])
    rows = [np.sum(x)]
    p = x
    for k in range(1, {n - 1}):
        p = p * y[k : k + {n}]
        rows.append(np.sum(p))
    rows.append(np.prod(x) - 1.0)
    return np.array(rows)
""",
    )


def noon_loop(n: int) -> str:
    return _module(
        "noon",
        f"""    squares = np.sum(x * x)
    rows = []
    for i in range({n}):
        rows.append(x[i] * (squares - x[i] * x[i]) - 1.1 * x[i] + 1.0)
    return np.array(rows)
""",
    )


def noon_slices(n: int) -> str:
    return _module("noon", "    s = np.sum(x * x)\n    return x * (s - x * x) - 1.1 * x + 1.0\n")


def eco_comprehension(n: int) -> str:
    return _module(
        "eco",
        f"""    y = x[:-1]
    rows = [(y[k - 1] + np.sum(y[: {n - 1} - k] * y[k:])) * x[-1] - float(k) for k in range(1, {n})]
    rows.append(np.sum(y) + 1.0)
    return np.array(rows)
""",
    )


def eco_loop(n: int) -> str:
    return _module(
        "eco",
        f"""    rows = []
    for k in range(1, {n}):
        s = x[k - 1]
        for i in range({n - 1} - k):
            s = s + x[i] * x[i + k]
        rows.append(s * x[{n - 1}] - k)
    rows.append(np.sum(x[:-1]) + 1.0)
    return np.stack(rows)
""",
    )


def expressions(family: str, call: str):
    """The scalar-expression form (``np.array([...])`` or ``np.stack([...])``) of the benchmark."""

    def text(n: int) -> str:
        return source(family, EXPRESSIONS[family](n)).replace("np.array([", f"{call}([")

    return text


FORMS = {
    "katsura": {"array": expressions("katsura", "np.array"), "loop": katsura_loop, "slices": katsura_slices},
    "cyclic": {"stack": expressions("cyclic", "np.stack"), "loop": cyclic_loop, "slices": cyclic_slices},
    "noon": {"array": expressions("noon", "np.array"), "loop": noon_loop, "slices": noon_slices},
    "eco": {"array": expressions("eco", "np.array"), "comprehension": eco_comprehension, "loop": eco_loop},
}
SIZES = {"katsura": (4, 5, 6, 7, 8), "cyclic": (5, 7), "noon": (5, 7), "eco": (5, 7)}
CASES = [(family, n, form) for family, forms in FORMS.items() for n in SIZES[family] for form in forms]


def _jac(text: str, family: str):
    return load(generate(text, f"{family}.py", mode="jacobian").text)[f"jac_{family}"]


@pytest.mark.parametrize(("family", "n", "form"), CASES, ids=[f"{f}{n}-{form}" for f, n, form in CASES])
def test_system_jacobian(family, n, form):
    text = FORMS[family][form](n)
    f = load(text)[family]
    k = unknowns(family, n)
    x = RNG.uniform(-1.0, 1.0, k)
    reference = load(source(family, EXPRESSIONS[family](n)))[family]
    np.testing.assert_allclose(f(x), reference(x), rtol=1e-12, atol=1e-12)  # the forms are one system
    written = generate(text, f"{family}.py", mode="jacobian").text
    straight = form in ("array", "stack", "comprehension")  # (a comprehension of a constant range is unrolled)
    assert ("for _k in range(" not in written) == straight  # rows written out, or the loop over the rows
    check_jacobian(f, load(written)[f"jac_{family}"], (x,))


BATCHED = [(family, n) for family in FORMS for n in SIZES[family][:2]]


@pytest.mark.parametrize(("family", "n"), BATCHED, ids=[f"{f}{n}" for f, n in BATCHED])
def test_batched_jacobian(family, n):
    """x of shape (n, B): the Jacobian at each point, J[:, :, b] the Jacobian at x[:, b]."""
    text = next(iter(FORMS[family].values()))(n)
    f = load(text)[family]
    k = unknowns(family, n)
    X = RNG.uniform(-1.0, 1.0, (k, 4))
    value, J = _jac(text, family)(X)
    assert J.shape == (len(value), k, 4)
    np.testing.assert_allclose(value, f(X), rtol=1e-12, atol=1e-12)
    for b in range(4):
        np.testing.assert_allclose(J[:, :, b], numeric_jacobian(f, (X[:, b],), 0), rtol=1e-5, atol=1e-6)
    one = RNG.uniform(-1.0, 1.0, (k, 1))  # a batch of one point, and a batch of 2-D points
    np.testing.assert_allclose(_jac(text, family)(one)[1][:, :, 0], _jac(text, family)(one[:, 0])[1], rtol=1e-14)
    grid = RNG.uniform(-1.0, 1.0, (k, 2, 3))
    assert _jac(text, family)(grid)[1].shape == (len(value), k, 2, 3)


BATCH_REFUSED = """import numpy as np


def summed(x):
    return np.array([np.sum(x[0]) * x[1], x[0] - x[1]])


def whole(x, a):
    return np.array([a * x[0], x[1] * x[0]])


def clipped(x):
    return np.array([np.max(x[0]) * np.clip(x[1], -0.5, 0.5), x[0] - x[1]])
"""


@pytest.mark.parametrize("name", ["summed", "whole", "clipped"])
def test_batch_refused_where_not_elementwise(name):
    """A reduction of a row, or a parameter read whole, is no Jacobian per point: the elements must be
    numbers (a ValueError when they are arrays), and with numbers the Jacobian is right."""
    text = generate(BATCH_REFUSED, "refused.py", [name], mode="jacobian").text
    assert "np.shape(x)[1:]" not in text
    jac = load(text)[f"jac_{name}"]
    f = load(BATCH_REFUSED)[name]
    args = (RNG.uniform(-1.0, 1.0, 2),) + ((0.7,) if name == "whole" else ())
    check_jacobian(f, jac, args)
    batch = (RNG.uniform(-1.0, 1.0, (2, 3)),) + ((0.7,) if name == "whole" else ())
    with pytest.raises(ValueError, match="which must be numbers: its value has shape"):
        jac(*batch)


def test_batch_of_two_parameters_must_agree():
    text = "import numpy as np\n\n\ndef f(x, y):\n    return np.array([x[0] * y[1], x[1] - y[0] * y[0]])\n"
    jac = load(generate(text, "two.py", mode="jacobian").text)["jac_f"]
    f = load(text)["f"]
    X, Y = RNG.uniform(-1.0, 1.0, (2, 5)), RNG.uniform(-1.0, 1.0, (2, 5))
    value, Jx, Jy = jac(X, Y)
    assert Jx.shape == Jy.shape == (2, 2, 5)
    np.testing.assert_allclose(value, f(X, Y), rtol=1e-12)
    for b in range(5):
        np.testing.assert_allclose(Jx[:, :, b], numeric_jacobian(f, (X[:, b], Y[:, b]), 0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(Jy[:, :, b], numeric_jacobian(f, (X[:, b], Y[:, b]), 1), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="of the same batch as y"):
        jac(X, Y[:, :1])  # broadcasting y would make its Jacobian a sum over the batch


def test_batch_of_elementwise_functions():
    """Any elementwise function of the rows (ufuncs, powers, np.where, np.clip) has a Jacobian per point."""
    text = """import numpy as np


def f(x):
    return np.array([
        np.sin(x[0]) * np.exp(x[1]),
        x[0] ** 3 / (1.0 + x[1] ** 2),
        np.tanh(x[0] - x[2]) + np.where(x[2] > 0.0, x[2], -2.0 * x[2]),
        np.clip(x[1], -0.5, 0.5) * np.sqrt(1.5 + x[0]),
    ])
"""
    written = generate(text, "f.py", mode="jacobian").text
    assert "!= (4,) + np.shape(x)[1:]" in written
    f, jac = load(text)["f"], load(written)["jac_f"]
    X = RNG.uniform(-1.0, 1.0, (3, 6))
    value, J = jac(X)
    np.testing.assert_allclose(value, f(X), rtol=1e-12)
    for b in range(6):
        np.testing.assert_allclose(J[:, :, b], numeric_jacobian(f, (X[:, b],), 0), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------- examples/homotopy

HOMOTOPY = Path(__file__).resolve().parent.parent / "examples" / "homotopy"


def test_homotopy_example_jacobian_is_right_and_up_to_date():
    """The committed jac_katsura.py is what the tool writes, and its Jacobians (one point, a batch) are right."""
    src = "examples/homotopy/katsura.py"
    command = f"yota-s2s {src} --out examples/homotopy/jac_katsura.py --jacobian"
    text = generate((HOMOTOPY / "katsura.py").read_text(encoding="utf-8"), src, mode="jacobian", command=command).text
    assert (HOMOTOPY / "jac_katsura.py").read_text(encoding="utf-8") == text
    f = load((HOMOTOPY / "katsura.py").read_text(encoding="utf-8"))["katsura4"]
    reference = load(source("katsura", EXPRESSIONS["katsura"](4)))["katsura"]
    jac = load(text)["jac_katsura4"]
    x = RNG.uniform(-1.0, 1.0, 5)
    np.testing.assert_allclose(f(x), reference(x), rtol=1e-12, atol=1e-12)  # katsura-4, factored by hand
    check_jacobian(f, jac, (x,))
    X = RNG.uniform(-1.0, 1.0, (5, 3))
    J = jac(X)[1]
    for b in range(3):
        np.testing.assert_allclose(J[:, :, b], numeric_jacobian(f, (X[:, b],), 0), rtol=1e-5, atol=1e-6)


def test_homotopy_example_finds_the_real_solutions():
    """solve.py prints its committed output: 12 distinct real solutions of katsura-4, each a root."""
    proc = subprocess.run([sys.executable, "solve.py"], cwd=HOMOTOPY, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (HOMOTOPY / "output.txt").read_text(encoding="utf-8")
    f = load((HOMOTOPY / "katsura.py").read_text(encoding="utf-8"))["katsura4"]
    roots = [
        np.array([float(v) for v in line.split("[")[1].rstrip("]").split(",")]) for line in proc.stdout.splitlines()[2:]
    ]
    assert len(roots) == 12
    for x in roots:
        assert np.abs(f(x)).max() < 1e-5  # (printed to 6 decimals)


def test_total_degree_example_jacobians_are_right_and_up_to_date():
    """The committed jac_total_degree.py is what the tool writes; its complex Jacobians (one complex
    point, a batch) match differences along 1 and along 1j (J and 1j J: holomorphic)."""
    src = "examples/homotopy/total_degree.py"
    command = f"yota-s2s {src} --out examples/homotopy/jac_total_degree.py --jacobian"
    text = generate(
        (HOMOTOPY / "total_degree.py").read_text(encoding="utf-8"), src, mode="jacobian", command=command
    ).text
    assert (HOMOTOPY / "jac_total_degree.py").read_text(encoding="utf-8") == text
    source_ns, generated = load((HOMOTOPY / "total_degree.py").read_text(encoding="utf-8")), load(text)
    X = RNG.standard_normal((5, 3)) + 1j * RNG.standard_normal((5, 3))
    for name in ("katsura4", "start"):
        f, jac = source_ns[name], generated[f"jac_{name}"]
        _, J = jac(X)
        assert J.shape == (5, 5, 3) and J.dtype == complex
        for b in range(3):
            x = X[:, b]
            assert np.abs(jac(x)[1] - J[:, :, b]).max() < 1e-14
            for d in (1.0, 1j):
                fd = np.stack([(f(x + 1e-6 * d * e) - f(x - 1e-6 * d * e)) / 2e-6 for e in np.eye(5)], axis=1)
                np.testing.assert_allclose(fd, d * J[:, :, b], rtol=1e-6, atol=1e-8)


def test_total_degree_example_finds_all_16_solutions():
    """track.py prints its committed output: all 16 paths arrive, at the 16 solutions of katsura-4
    (12 real, those solve.py finds, and 4 complex, two conjugate pairs), each a root."""
    proc = subprocess.run([sys.executable, "track.py"], cwd=HOMOTOPY, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (HOMOTOPY / "track_output.txt").read_text(encoding="utf-8")
    lines = proc.stdout.splitlines()
    assert lines[0] == "paths: 16 (the Bezout number 2**4), arrived at t = 1: 16"
    assert lines[1] == "distinct solutions: 16, 12 real and 4 complex"
    assert lines[2] == "largest residual |f(x)|: < 1e-12"  # (a bound: the figure's last bits vary by CPU)
    f = load((HOMOTOPY / "katsura.py").read_text(encoding="utf-8"))["katsura4"]
    roots = [
        np.array([complex(v.replace(" ", "")) for v in line.split("[")[1].rstrip("]").split(",")]) for line in lines[3:]
    ]
    assert len(roots) == 16
    for x in roots:
        assert np.abs(f(x)).max() < 1e-5  # (printed to 6 decimals)
    real = sorted(tuple(x.real.round(6)) for x in roots if not np.any(x.imag))
    found = [line for line in (HOMOTOPY / "output.txt").read_text(encoding="utf-8").splitlines()[2:]]
    assert real == sorted(tuple(float(v) for v in line.split("[")[1].rstrip("]").split(",")) for line in found)


def test_batch_without_the_value():
    """--no-value: the batched Jacobian alone, the same as with the value."""
    text = source("cyclic", EXPRESSIONS["cyclic"](5))
    X = RNG.uniform(-1.0, 1.0, (5, 7))
    (J,) = load(generate(text, "cyclic.py", mode="jacobian", value=False).text)["jac_cyclic"](X)
    np.testing.assert_allclose(J, _jac(text, "cyclic")(X)[1], rtol=1e-14)


def test_the_benchmark_runs_and_checks_its_peers(tmp_path):
    """python -m benchmarks.bench_jacobian on one small case: every Jacobian is checked against SymPy's or
    JAX's before it is timed (an assertion error otherwise), and the tables are written."""
    pytest.importorskip("jax")
    pytest.importorskip("sympy")
    md = tmp_path / "jac.md"
    cmd = [sys.executable, "-m", "benchmarks.bench_jacobian", "--systems", "eco,katsura", "--sizes", "6"]
    cmd += ["--rounds", "1", "--batch-ms", "1", "--batch", "50", "--md", str(md)]
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    table = md.read_text(encoding="utf-8")
    assert proc.stdout == table
    assert "| eco-6 | 6 |" in table and "| katsura-6 | 7 |" in table and "refused" not in table
