"""No generated function computes one expression twice (issue 34: "no repeated right-hand side").

Scanned: the goldens (``tests/goldens/*.py``) and the modules committed in ``examples/``, every
public function.  A right-hand side counts where it calls nothing (a call may have effects, and a
buffer such as ``_grad_zeros(x)`` is made twice on purpose) and is more than a name or a number.  A
value recomputed in a loop's backward step from what the forward step saved is a call
(``np.tanh(_t1 + b)``) and is not counted: it is another step's value.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from yota_s2s.pipeline import generate

from .test_golden_figures import GENERATED, ROOT


def repeated(text: str) -> dict[str, list[str]]:
    """``{function: [expression, ...]}``: the right-hand sides each public function computes twice."""
    out: dict[str, list[str]] = {}
    for fn in ast.parse(text).body:
        if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
            continue
        seen: dict[str, int] = defaultdict(int)
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            value = node.value
            if isinstance(value, ast.Name | ast.Constant) or any(isinstance(n, ast.Call) for n in ast.walk(value)):
                continue
            seen[ast.unparse(value)] += 1
        twice = [expr for expr, n in seen.items() if n > 1]
        if twice:
            out[fn.name] = twice
    return out


def test_the_scan_finds_an_expression_computed_twice():
    text = "def hess_f(x):\n    a = x * x\n    b = np.sum(x)\n    if b > 0:\n        c = x * x\n    return a, c\n"
    assert repeated(text) == {"hess_f": ["x * x"]}
    assert repeated("def grad_f(x):\n    a = _grad_zeros(x)\n    b = _grad_zeros(x)\n    return a, b\n") == {}


def test_no_golden_or_example_computes_an_expression_twice():
    files = sorted((ROOT / "tests" / "goldens").glob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    found = {
        str(p.relative_to(ROOT)): twice
        for p, text in texts.items()
        if text.startswith(GENERATED) and (twice := repeated(text))
    }
    assert len([p for p, t in texts.items() if t.startswith(GENERATED)]) > 40
    assert not found, found


CHAIN = Path(ROOT / "examples" / "newton" / "chain.py").read_text(encoding="utf-8")
ROSEN = (
    "import numpy as np\n\ndef rosen(x):\n    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)\n"
)


def test_the_band_form_reads_what_the_forward_sweep_named():
    """The band form (written after the optimizer) computed ``stretch * stretch`` again where the
    forward sweep had named it; it now reads the name, and its diagonals' terms merge."""
    for source, name, wrt in ((CHAIN, "energy", ["u"]), (ROSEN, "rosen", ["x"])):
        for form in ("auto", "band"):
            text = generate(source, "t.py", [name], wrt=wrt, mode="hessian", form=form).text
            assert "written diagonal by diagonal" in text
            assert repeated(text) == {}, (name, form)
