"""Names the tool makes never meet the user's: a generated batch of programs whose parameters,
locals, module constants and helper functions are called like what the generated code uses.

For each template below, every name its generated module uses (the flags lowering adds, the
temporaries, the runtime helpers, the array module's alias, the library modules, the builtins
the functions call, the buffered class's own names) is given in turn to a parameter, a local, a
module constant and a helper function of the template; each program's gradient (with and without
the value, and its ``--buffers`` class) is checked against finite differences.  A collision once
gave wrong values (a parameter ``_skip1`` read as the ``continue`` flag) or a module that raised
(``_unbroadcast``, ``np`` with ``--buffers``).
"""

from __future__ import annotations

import ast
import builtins
import keyword
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.codegen.helpers import helper_names
from yota_s2s.codegen.naming import CALLED_BUILTINS, Names, module_spelling, prefixed
from yota_s2s.pipeline import generate

from .gradcheck import assert_close, numeric_grad

#: Programs of three arguments ``x`` (3,), ``W`` (2, 3) and a number ``NAME``: loops with
#: ``continue`` and ``return`` (flags), ``@`` and broadcasting (helpers), element reads (a list
#: of floats), writes into an array, a library function (``scipy.special``).
TEMPLATES = {
    "loop": """
        import numpy


        def f(x, W, NAME):
            s = 0.0
            for i in range(3):
                if x[i] > 0.5:
                    continue
                s = s + x[i] * NAME
            h = numpy.tanh(W @ x)
            return s + numpy.mean(h ** 2) + numpy.sum(x[:, None] * W.T) * NAME
        """,
    "items": """
        import numpy


        def f(x, W, NAME):
            v = x * 1.0
            v[0] = NAME
            for i in range(2):
                if v[i] > 10.0:
                    return v[i] * NAME
            return x[0] * x[1] * NAME + numpy.sum(v * v) + x[2] ** 2 * W[0, 1]
        """,
    "poly": """
        import numpy


        def f(x, W, NAME):
            return x[0] * x[1] ** 2 * NAME - x[2] * W[0, 0] + x[1] * W[1, 2]
        """,
    "library": """
        import numpy
        from scipy.special import expit


        def f(x, W, NAME):
            return numpy.sum(expit(x) * NAME) + numpy.sum(W.sum(axis=0) * x)
        """,
}
USER = {"numpy", "expit", "f", "x", "W", "NAME", "s", "i", "h", "v", "c"}  # (expit: erf is written in NumPy)
X = np.array([0.2, 0.9, 0.3])
W = np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]])
C = 0.7


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).lstrip("\n")


def generated_names(template: str) -> set[str]:
    """Every name of the template's generated module (with ``--buffers``, with and without the
    value) that the template does not use, and the builtins the written functions call."""
    names: set[str] = set()
    for value in (True, False):
        text = generate(_dedent(template).replace("NAME", "c"), "f.py", ["f"], value=value, buffers=True).text
        tree = ast.parse(text)
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
        names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        names |= {
            a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
    names |= {"_skip1", "_stop1", "_returned0", "_value0", "_returned1", "_value1", "_np", "_scipy_special"}
    names |= set(CALLED_BUILTINS)
    # (a builtin the template calls itself cannot be hidden: its own program would not run)
    names -= {n.id for n in ast.walk(ast.parse(_dedent(template))) if isinstance(n, ast.Name)}
    return {n for n in names - USER if not keyword.iskeyword(n) and n not in ("True", "False", "None")}


def programs(template: str, name: str):
    """(form, source, value) for ``name`` as a parameter, and (the ``loop`` template, with flags and
    a loop's temporaries) as a local, a module constant, a helper function."""
    text = _dedent(template)
    head, _, rest = text.partition("\n\n\ndef f(")
    yield "parameter", text.replace("NAME", name), True
    yield "parameter", text.replace("NAME", name), False
    if template != TEMPLATES["loop"]:
        return
    local = rest.replace(", NAME):\n", f", c):\n    {name} = c * 1.5\n", 1).replace("NAME", name)
    yield "local", f"{head}\n\n\ndef f({local}", True
    const = rest.replace(", NAME):", ", c):", 1).replace("NAME", f"{name} * c")
    yield "constant", f"{head}\n{name} = 1.25\n\n\ndef f({const}", False
    helper = rest.replace(", NAME):", ", c):", 1).replace("NAME", f"{name}(c)")
    yield "function", f"{head}\n\n\ndef {name}(v):\n    return v * 1.5\n\n\ndef f({helper}", True


CASES = [(t, n) for t in sorted(TEMPLATES) for n in sorted(generated_names(TEMPLATES[t]))]


@pytest.mark.parametrize(("template", "name"), CASES, ids=[f"{t}-{n}" for t, n in CASES])
def test_a_user_name_like_a_generated_one_changes_nothing(template, name):
    checked = 0
    for form, source, value in programs(TEMPLATES[template], name):
        user: dict = {}
        try:
            exec(compile(source, "f.py", "exec"), user)  # noqa: S102 - the test's own program
            user["f"](X.copy(), W.copy(), C)
        except Exception:  # noqa: BLE001, S112 - the program hides a builtin it calls (range)
            continue
        text = generate(source, "f.py", ["f"], value=value, buffers=True).text
        gen: dict = {}
        exec(compile(text, "grad_f.py", "exec"), gen)  # noqa: S102 - our output
        what = f"{name} as a {form} ({'value' if value else 'no value'})"
        plain = gen["grad_f"](X.copy(), W.copy(), C)
        buffered = next(v for k, v in gen.items() if k.startswith("Grad") and isinstance(v, type))()
        buffered(X.copy(), W.copy(), C)
        again = buffered(X.copy(), W.copy(), C)  # the second call writes into the first one's arrays
        if value:
            assert np.isclose(plain[0], user["f"](X.copy(), W.copy(), C)), what
        grads = plain[1:] if value else plain
        args = [X.copy(), W.copy(), C]
        for i, g in enumerate(grads):
            assert_close(g, numeric_grad(lambda *a, f=user["f"]: f(a[0].copy(), *a[1:]), args, i), f"{what}: d{i}")
        for a, b in zip(plain, again, strict=True):
            assert np.array_equal(a, b), f"{what}: the buffered class differs"
        checked += 1
    assert checked >= (4 if template == "loop" else 2)  # the parameter forms, and the local or the constant


@pytest.mark.slow
def test_the_batch_is_ruff_clean(tmp_path):
    """The renamed flags, helpers, aliases and imports are clean code too (a flag once became
    ``_skip1_``, which ruff does not take for a dummy: an unused variable)."""
    paths = []
    for template, name in CASES:
        for _, source, value in list(programs(TEMPLATES[template], name))[:3]:
            paths.append(tmp_path / f"grad_{len(paths)}.py")
            paths[-1].write_text(generate(source, "f.py", ["f"], value=value, buffers=True).text, encoding="utf-8")
    ruff = [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", *map(str, paths)]
    proc = subprocess.run(ruff, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_batch_covers_every_kind_of_generated_name():
    names = {n for _, n in CASES}
    assert {"_skip1", "_unbroadcast", "_grad_zeros", "_matmul_dy", "_FLOATS", "_shape_key", "grad_f", "np"} <= names
    assert {"_t1", "_stack", "self", "isinstance", "ValueError", "range", "scipy", "_scipy_special"} <= names


@pytest.mark.slow
def test_the_builtins_the_written_functions_call_are_all_listed():
    """A builtin the generated functions call and ``CALLED_BUILTINS`` does not list could be
    hidden by a local value or a parameter of its name."""
    root = Path(__file__).resolve().parent
    listed = set(CALLED_BUILTINS) | {"True", "False", "None"}
    sources = [(p.read_text(encoding="utf-8"), p.name) for p in (root / "corpus.py", root / "corpus_control.py")]
    sources += [(_dedent(t).replace("NAME", "c"), "f.py") for t in TEMPLATES.values()]
    for source, path in sources:
        for value in (True, False):
            tree = ast.parse(generate(source, path, value=value, buffers=True).text)
            written = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name not in helper_names()]
            written += [
                m
                for c in tree.body
                if isinstance(c, ast.ClassDef)
                for m in c.body
                if getattr(m, "name", "") == "__call__"
            ]
            assert written
            for fn in written:
                called = {
                    n.id
                    for n in ast.walk(fn)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in dir(builtins)
                }
                assert called <= listed, f"{path}: {fn.name} calls {called - listed}"


def test_spellings():
    assert module_spelling(
        {"x", "_unbroadcast", "len"}, {"_unbroadcast", "len", "_unreduce"}, {"scipy.special"}, ()
    ) == {
        "_unbroadcast": "_unbroadcast_1",
        "len": "len_1",
    }
    assert module_spelling({"scipy"}, set(), {"scipy.special", "math"}, ()) == {"scipy.special": "_scipy_special"}
    names = Names({"np", "_np"})
    assert names.fresh("np", prefixed) == "_np_1"  # never __np: a class's method reads it mangled


COLUMNS = "import numpy\n\n\ndef f(x, NAME):\n    return 0.5 * numpy.sum(numpy.tanh(x * NAME) ** 2) - numpy.sum(numpy.exp(-NAME)) / 3\n"
HIDDEN = ["_joined", "_by_columns", "isinstance", "type", "float", "_unbroadcast", "np", "_np", "ValueError", "len"]


@pytest.mark.parametrize("name", HIDDEN)
def test_a_parameter_like_a_name_of_the_columns_form_changes_nothing(name):
    """Large arguments take the columns form (``_by_columns``): it gives what the same function
    with a parameter of another name gives (whose plain code the small cases check)."""
    text = generate(COLUMNS.replace("NAME", name), "f.py", ["f"]).text
    assert "def _grad_f_columns(" in text
    gen: dict = {}
    ref: dict = {}
    exec(compile(text, "grad_f.py", "exec"), gen)  # noqa: S102 - our output
    exec(compile(generate(COLUMNS.replace("NAME", "y"), "f.py", ["f"]).text, "ref.py", "exec"), ref)  # noqa: S102
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(3, 4000)), rng.normal(size=(3, 4000))
    for a, b in zip(gen["grad_f"](x, y), ref["grad_f"](x, y), strict=True):
        assert np.allclose(a, b, rtol=1e-12, atol=0.0)


#: A local named like a loop flag, alive across a loop whose body sets that flag: the fuzzer's
#: ``_skip1 = 0.0; for ...: if 0.5: continue; return _skip1 + np.sum(y)`` once read the flag
#: (True) as the local (0.0).  Jumps under a constant condition, as the last statement, and
#: nested loops (the inner loop's flags are ``_skip2``, ``_stop2``).
FLAG_PROGRAMS = {
    "continue": "    NAME = 0.5\n    for i in range(len(y)):\n        if 0.5:\n            continue\n"
    "    return NAME + np.sum(y)\n",
    "continue_then": "    NAME = 0.5\n    for i in range(len(y)):\n        NAME = NAME + y[i]\n        if y[i] > 0.0:\n"
    "            continue\n        NAME = NAME * 2.0\n    return NAME + np.sum(y)\n",
    "break": "    NAME = 1.0\n    for i in range(len(y)):\n        NAME = NAME * y[i]\n        if 1:\n            break\n"
    "    return NAME + np.sum(y)\n",
    "return": "    NAME = 1.0\n    for i in range(len(y)):\n        NAME = NAME + y[i]\n        if y[i] > 0.5:\n"
    "            return NAME * 3.0\n    return NAME + np.sum(y)\n",
    "nested": "    NAME = 1.0\n    for i in range(len(y)):\n        for j in range(2):\n            NAME = NAME + y[i]\n"
    "            if j > 0:\n                continue\n            if y[i] > 0.5:\n                return NAME * 3.0\n"
    "    return NAME\n",
}
FLAG_NAMES = ["_skip1", "_stop1", "_skip2", "_stop2", "_returned0", "_value0", "_returned1", "_value1", "_skip1_1"]


@pytest.mark.parametrize("program", sorted(FLAG_PROGRAMS))
@pytest.mark.parametrize("name", FLAG_NAMES)
def test_a_local_named_like_a_loop_flag_keeps_its_value(program, name):
    source = "import numpy as np\n\n\ndef f(y):\n" + FLAG_PROGRAMS[program].replace("NAME", name)
    user: dict = {}
    exec(compile(source, "f.py", "exec"), user)  # noqa: S102 - the test's own program
    gen: dict = {}
    exec(compile(generate(source, "f.py", ["f"]).text, "grad_f.py", "exec"), gen)  # noqa: S102 - our output
    for y in (np.array([0.3, -0.4, 0.7]), np.array([-0.2]), np.array([0.9, 0.1])):
        value, dy = gen["grad_f"](y.copy())
        assert np.isclose(value, user["f"](y.copy())), (program, name, y)
        assert_close(dy, numeric_grad(user["f"], [y.copy()], 0), f"{program} with {name}: dy")
