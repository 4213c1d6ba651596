"""The CuPy target: every corpus case generated with ``--target cupy``, checked against the real CuPy.

CuPy imports on a machine without a GPU (only allocations fail), so the names and the calls
of each generated file are checked against the installed CuPy itself: every ``cp.``/``cupyx.``
name exists, every call's arguments bind to the real function's signature.  The numbers are
checked by running each file against a stand-in for ``cupy`` that exposes only what the real
CuPy has, checks each call against CuPy's own signature, and computes with NumPy.  On a machine
with a GPU, the tests marked ``gpu`` run the same files on CuPy itself.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import inspect
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special

from yota_s2s.codegen import cupy_api
from yota_s2s.codegen.helpers import helper_names, helper_source
from yota_s2s.codegen.module import HELPERS_BANNER
from yota_s2s.codegen.target import BACKENDS, CUPY
from yota_s2s.errors import CODES, UserError
from yota_s2s.pipeline import generate

from . import corpus, corpus_control, rule_specs, test_rules
from .gradcheck import assert_close, load_module, numeric_grad

cupy = pytest.importorskip("cupy")
cupyx = pytest.importorskip("cupyx")
pytest.importorskip("cupyx.scipy.special")

ROOT = Path(__file__).resolve().parent.parent

#: The corpora whose every case is generated for CuPy; a case is "PATH::NAME".
CORPORA = {"tests/corpus.py": corpus, "tests/corpus_control.py": corpus_control}
SOURCES = {path: (ROOT / path).read_text(encoding="utf-8") for path in CORPORA}
ALL_CASES = [f"{path}::{name}" for path, module in CORPORA.items() for name in sorted(module.CASES)]


def corpus_case(case: str) -> tuple[object, str]:
    """The corpus module of ``case`` and the function's name."""
    path, name = case.split("::")
    return CORPORA[path], name


@functools.cache
def generate_case(case: str, target: str = "cupy") -> str:
    """The module of ``case`` for ``target`` (generated once in a process: several tests read it)."""
    path, name = case.split("::")
    return generate(SOURCES[path], path, [name], target=target).text


def _supported(case: str) -> bool:
    try:
        generate_case(case)
    except UserError:
        return False
    return True


#: The cases every test runs on: the whole corpus, which test_the_corpus_is_supported checks generates (a
#: filter here would generate every case while pytest collects, in each process of ``-n``).
SUPPORTED = ALL_CASES


@pytest.fixture(scope="module")
def generated_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("generated_cupy")


def generated(case: str, folder: Path) -> Path:
    path = folder / ("grad_" + Path(case.split("::")[0]).stem + "_" + case.split("::")[1] + ".py")
    if not path.exists():
        path.write_text(generate_case(case), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- the real CuPy


def _real(dotted: str) -> object:
    """The object ``cupy.linalg.inv`` names in the installed CuPy (AttributeError if it has none)."""
    root, *parts = dotted.split(".")
    obj = {"cupy": cupy, "cupyx": cupyx}[root]
    for part in parts:
        obj = getattr(obj, part)
    return obj


_CHECKED: dict[tuple, str | None] = {}


def real_call_problem(obj: object, positional: int, keywords: list[str]) -> str | None:
    """``_real_call_problem``, remembered (the stand-in asks it on every call)."""
    key = (id(obj), positional, tuple(keywords))
    if key not in _CHECKED:
        _CHECKED[key] = _real_call_problem(obj, positional, keywords)
    return _CHECKED[key]


def _real_call_problem(obj: object, positional: int, keywords: list[str]) -> str | None:
    """Why the real ``obj(<positional>, <keywords>)`` would be refused before touching a GPU, or None.

    ``positional`` -1: unknown (``f(*xs)``), only the keywords are checked.
    A Python function: its ``inspect.signature``.  A ufunc: at most ``nin + nout`` positional
    arguments, and each keyword tried on the ufunc itself (CuPy rejects an unknown keyword
    before it allocates).  A Cython function: the signature its docstring states.
    """
    if isinstance(obj, cupy.ufunc):
        if positional >= 0 and not obj.nin <= positional <= obj.nin + obj.nout:
            return f"{obj.name} takes {obj.nin} inputs, got {positional} positional arguments"
        refused = [k for k in keywords if _refuses_keyword(obj, k)]
        if refused:
            return f"{obj.name} takes no keyword {refused[0]!r}"
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        text = cupy_api._docstring_signature(obj)
        assert text is not None, f"cannot read the signature of {obj!r}"
        sig = cupy_api.parse_signature(text)
    try:
        if positional < 0:
            sig.bind_partial(**dict.fromkeys(keywords))
        else:
            sig.bind(*[None] * positional, **dict.fromkeys(keywords))
    except TypeError as exc:
        return str(exc)
    return None


def _refuses_keyword(ufunc, keyword: str) -> bool:
    try:
        ufunc(*[1.0] * ufunc.nin, **{keyword: None})
    except TypeError as exc:
        return "Wrong arguments" in str(exc)
    except Exception:  # noqa: BLE001 - no GPU here: the keyword itself was taken
        return False
    return False


def cupy_uses(text: str) -> tuple[list[str], list[tuple[str, int, list[str]]]]:
    """The ``cupy``/``cupyx`` names a generated module reads, and its calls (name, positional count, keywords)."""
    tree = ast.parse(text)
    roots = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in ("cupy", "cupyx"):
                    roots[alias.asname or top] = alias.name if alias.asname else top
    assert "numpy" not in {a.name.split(".")[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names}

    def dotted(node: ast.expr) -> str | None:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in roots and parts:
            return ".".join([roots[node.id], *reversed(parts)])
        return None

    nodes = list(ast.walk(tree))
    prefixes = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
    names = sorted({d for n in nodes if isinstance(n, ast.Attribute) and id(n) not in prefixes if (d := dotted(n))})
    calls = []
    for n in nodes:
        if isinstance(n, ast.Call) and (d := dotted(n.func)):
            starred = any(isinstance(a, ast.Starred) for a in n.args)  # f(g, *xs): the keywords only
            calls.append((d, -1 if starred else len(n.args), [k.arg for k in n.keywords]))
    return names, calls


def test_the_api_table_is_the_installed_cupy():
    """cupy_api.json is what `python -m yota_s2s.codegen.cupy_api --write` writes from the installed CuPy.

    After a CuPy upgrade this fails until the table is written again (and the diff reviewed).
    """
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s.codegen.cupy_api", "--check"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert cupy_api.load().version == cupy.__version__


def test_the_api_table_agrees_with_the_real_signatures():
    """Each recorded function takes the keywords the table says it takes, and refuses one it does not."""
    api = cupy_api.load()
    for name, text in api.names.items():
        obj = _real(name)
        if text is None:
            continue
        params = cupy_api.parse_signature(text).parameters.values()
        positional = sum(
            1 for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        )
        keywords = [
            p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty
        ]
        for k in keywords:
            assert api.problem(name, positional, [k]) is None
            assert real_call_problem(obj, positional, [k]) is None, (name, k)
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            assert api.problem(name, positional, ["no_such_keyword"]) is not None, name
            assert real_call_problem(obj, positional, ["no_such_keyword"]) is not None, name


def test_the_issue_examples_are_what_cupy_lacks():
    api = cupy_api.load()
    for missing in ("cupy.linalg.multi_dot", "cupy.errstate", "cupy.nanquantile"):
        assert not api.has(missing) and not hasattr(
            cupy.linalg if "linalg" in missing else cupy, missing.split(".")[-1]
        )
    assert api.problem("cupy.clip", 1, ["min"]) == "cupy.clip() has no keyword 'min' in CuPy " + api.version
    assert real_call_problem(cupy.clip, 1, ["min"]) is not None
    assert api.has("cupy.add.at") and api.has("cupyx.scipy.special.erf") and not api.has("cupy.exp.at")


@pytest.mark.parametrize("case", SUPPORTED)
def test_every_cupy_name_exists_and_every_call_binds(case, generated_dir):
    text = generated(case, generated_dir).read_text()
    names, calls = cupy_uses(text)
    assert names, "a CuPy-target module that uses no CuPy name"
    for dotted in names:
        _real(dotted)  # AttributeError: the installed CuPy has no such name
    for dotted, positional, keywords in calls:
        problem = real_call_problem(_real(dotted), positional, keywords)
        assert problem is None, f"{dotted}: {problem}"


@pytest.mark.slow
def test_the_corpus_is_supported():
    """The whole corpus generates for CuPy, and no file uses NumPy."""
    assert [c for c in ALL_CASES if not _supported(c)] == []
    for case in SUPPORTED:
        text = generate_case(case)
        assert not any(isinstance(n, ast.Name) and n.id == "np" for n in ast.walk(ast.parse(text)))


def test_every_runtime_helper_uses_only_what_cupy_has():
    """All helpers, as copied into a CuPy-target file (``xp`` renamed ``cp``), against the table and the real CuPy."""
    for helper in sorted(helper_names()):
        text = "import cupy as cp\n\n\n" + helper_source(helper, CUPY.alias)
        assert CUPY.problems(ast.parse(text)) == [], helper
        names, calls = cupy_uses(text)
        for dotted in names:
            _real(dotted)
        for dotted, positional, keywords in calls:
            assert real_call_problem(_real(dotted), positional, keywords) is None, (helper, dotted)


# ----------------------------------------------------------------------------- a stand-in CuPy computing with NumPy


class StandIn:
    """What the real CuPy object ``real`` has, each call checked against it, computed by the NumPy ``twin``."""

    def __init__(self, name: str, real: object, twin: object, log: list[str]):
        self._name, self._real, self._twin, self._log = name, real, twin, log

    def __getattr__(self, attr: str) -> object:
        name = f"{self._name}.{attr}"
        real = getattr(self._real, attr)  # AttributeError: CuPy has no such name
        twin = getattr(self._twin, attr)
        if real is twin:  # cp.float64, cp.dtype: NumPy's own (cp.dtype(cp.float64) is NumPy's float64)
            return twin
        if callable(real) or inspect.ismodule(real):
            return StandIn(name, real, twin, self._log)
        return twin  # cp.inf, cp.s_

    def __call__(self, *args, **kwargs):
        problem = real_call_problem(self._real, len(args), list(kwargs))
        if problem is not None:
            raise TypeError(f"{self._name}: {problem}")
        self._log.append(self._name)
        return self._twin(*args, **kwargs)


def load_with_stand_in(path: Path, monkeypatch, log: list[str]):
    """Import a CuPy-target file with ``cupy`` and ``cupyx`` replaced by stand-ins."""
    twin_cupyx = _Namespace(scipy=_Namespace(special=scipy.special), scatter_add=np.add.at)
    fake = StandIn("cupy", cupy, np, log)
    fake_x = StandIn("cupyx", cupyx, twin_cupyx, log)
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setitem(sys.modules, "cupyx", fake_x)
    monkeypatch.setitem(sys.modules, "cupyx.scipy", fake_x.scipy)
    monkeypatch.setitem(sys.modules, "cupyx.scipy.special", fake_x.scipy.special)
    return load_module(path)


@dataclasses.dataclass
class _Namespace:
    scipy: object = None
    special: object = None
    scatter_add: object = None


@pytest.mark.parametrize("case", SUPPORTED)
def test_gradient_matches_finite_differences_on_a_stand_in(case, generated_dir, monkeypatch):
    source, name = corpus_case(case)
    source_f = getattr(source, name)

    def f(*a):  # gauss_seidel writes into its argument: each call gets copies
        return source_f(*copy.deepcopy(a))

    args = source.CASES[name](np.random.default_rng(0))
    log: list[str] = []
    module = load_with_stand_in(generated(case, generated_dir), monkeypatch, log)
    value, *grads = getattr(module, f"grad_{name}")(*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    params = list(inspect.signature(source_f).parameters)
    for i, (param, g) in enumerate(zip(params[: len(args)], grads)):
        if param in source.NONDIFF.get(name, ()):
            assert g is None
            continue
        assert_close(g, numeric_grad(f, args, i), f"{name}: d{param}")
    text = generated(case, generated_dir).read_text()
    # (scalar code on Python floats may need no CuPy call at all: the scalar check skips np.ndim)
    if "cp." in text.split(HELPERS_BANNER)[0].split("def grad_")[-1] and any(isinstance(a, np.ndarray) for a in args):
        assert log, "the gradient called no CuPy function through the stand-in"


def test_the_stand_in_refuses_what_cupy_lacks(monkeypatch):
    fake = StandIn("cupy", cupy, np, [])
    with pytest.raises(AttributeError):
        fake.linalg.multi_dot  # noqa: B018
    with pytest.raises(TypeError, match="unexpected keyword argument .min."):
        fake.clip(np.arange(3.0), 0.0, 1.0, min=1.0)
    with pytest.raises(TypeError, match="'where'"):
        fake.exp(np.arange(3.0), where=True)
    assert np.array_equal(fake.clip(np.arange(3.0), 0.5, 1.5), [0.5, 1.0, 1.5])


@pytest.mark.parametrize("case", SUPPORTED)
@pytest.mark.gpu
def test_gradient_on_the_gpu(case, generated_dir):
    if not cupy.is_available():
        pytest.skip("no GPU: cupy.is_available() is false")
    source, name = corpus_case(case)
    source_f = getattr(source, name)

    def f(*a):  # gauss_seidel writes into its argument: each call gets copies
        return source_f(*copy.deepcopy(a))

    args = source.CASES[name](np.random.default_rng(0))
    module = load_module(generated(case, generated_dir))

    def to_gpu(a):
        if isinstance(a, np.ndarray):
            return cupy.asarray(a)
        if dataclasses.is_dataclass(a):
            return dataclasses.replace(a, **{k.name: to_gpu(getattr(a, k.name)) for k in dataclasses.fields(a)})
        return a

    def to_host(a):
        if isinstance(a, dict):
            return {k: to_host(v) for k, v in a.items()}
        return cupy.asnumpy(a) if isinstance(a, cupy.ndarray) else a

    value, *grads = getattr(module, f"grad_{name}")(*[to_gpu(a) for a in args])
    assert np.allclose(to_host(value), f(*args), rtol=1e-10, atol=1e-10)
    params = list(inspect.signature(f).parameters)
    for i, (param, g) in enumerate(zip(params[: len(args)], grads)):
        if param not in source.NONDIFF.get(name, ()):
            assert_close(to_host(g), numeric_grad(f, args, i), f"{name}: d{param} on the GPU")


# ----------------------------------------------------------------------------- every rule, through the stand-in


def rule_case_source(case) -> tuple[str, list[str]]:
    names = ["x", "y"][: len(case.shapes)]
    source = "import math\nimport operator\n\nimport numpy as np\nimport scipy.special\n\n\n"
    source += f"def f({', '.join(names)}, w):\n    return np.sum(w * np.sin({case.expr}))\n"
    return source, names


#: What the Bessel rules' derivatives read that CuPy 14 lacks (the order-``v`` functions): a
#: ``--target cupy`` of them is refused at the user's line (YS040), never written wrong.
CUPY_LACKS = {"iv", "ive", "jv", "yv"}


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in test_rules.CASES])
def test_every_rule_case_for_cupy(case, tmp_path, monkeypatch):
    """tests/test_rules.py's case for every source name, generated for CuPy: real names, then the numbers."""
    source, names = rule_case_source(case)
    try:
        text = generate(source, "case.py", ["f"], target="cupy").text
    except UserError as err:  # a rule whose derivative reads what CuPy lacks: refused, located
        lacking = re.search(r"has no cupyx\.scipy\.special\.(\w+)", err.message)
        assert err.code == "YS040" and lacking and lacking[1] in CUPY_LACKS, err.message
        assert (err.line, err.source_line.strip()) == (9, source.splitlines()[8].strip())
        return
    used, calls = cupy_uses(text)
    for dotted in used:
        _real(dotted)
    for dotted, positional, keywords in calls:
        assert real_call_problem(_real(dotted), positional, keywords) is None, dotted
    namespace: dict = {}
    exec(compile(source, "case.py", "exec"), namespace)  # noqa: S102 - the test's own source
    f = namespace["f"]
    rng = np.random.default_rng(0)
    method = case.name.startswith("ndarray.")
    operands = test_rules.TABLE[case.prim].operand_names(len(case.shapes))
    args = [
        test_rules._value(sh, rule_specs.domain(case.prim, op), method, rng) for op, sh in zip(operands, case.shapes)
    ]
    out_shape = np.shape(f(*args, 1.0))
    args.append(rng.standard_normal(out_shape) if out_shape else float(rng.standard_normal()))
    path = tmp_path / "grad_case.py"
    path.write_text(text, encoding="utf-8")
    module = load_with_stand_in(path, monkeypatch, [])
    value, *grads = module.grad_f(*args)
    assert np.allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    for i, (param, grad) in enumerate(zip([*names, "w"], grads)):
        numeric = numeric_grad(f, args, i)
        if grad is None and np.all(numeric == 0.0):
            continue
        assert_close(grad, numeric, f"{case.id}: d{param}")


def test_the_rule_cases_use_scatter_add_and_cupyx():
    """Scatter-adds are CuPy's own ufunc.at, scipy.special is cupyx.scipy.special."""
    cases = [c for c in test_rules.CASES if c.prim in ("take", "erf")]
    texts = [generate(rule_case_source(c)[0], "case.py", ["f"], target="cupy").text for c in cases]
    assert any("cp.add.at(" in t for t in texts)
    assert any("cupyx.scipy.special." in t and "import cupyx.scipy.special" in t for t in texts)


@pytest.mark.gpu
def test_the_example_on_the_gpu():
    if not cupy.is_available():
        pytest.skip("no GPU: cupy.is_available() is false")
    module = load_module(ROOT / "examples/cupy/grad_probit.py")
    source = load_module(ROOT / "examples/cupy/probit.py")
    rng = np.random.default_rng(6)
    w, X = rng.standard_normal(3), rng.standard_normal((10, 3))
    y, batch = (rng.random(10) > 0.5) * 1.0, rng.integers(0, 10, 16)
    value, dw = module.grad_loss(*(cupy.asarray(a) for a in (w, X, y, batch)))
    assert np.isclose(float(value), source.loss(w, X, y, batch))
    assert_close(cupy.asnumpy(dw), numeric_grad(source.loss, (w, X, y, batch), 0, eps=1e-5), "dw on the GPU")


# ----------------------------------------------------------------------------- refusals and output


def test_generated_cupy_corpus_is_ruff_clean(generated_dir):
    paths = [str(generated(case, generated_dir)) for case in SUPPORTED]
    proc = subprocess.run(
        ["ruff", "check", "--no-cache", "--isolated", *paths], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_cupy_output_is_the_numpy_program_with_other_names():
    """Same statements; only the module names differ (np -> cp, scipy.special -> cupyx.scipy.special)."""

    def code(text: str) -> str:  # the statements after the imports, docstrings left out
        tree = ast.parse(text)
        for fn in tree.body:
            if isinstance(fn, ast.FunctionDef) and isinstance(fn.body[0], ast.Expr):
                fn.body = fn.body[1:]
        return ast.unparse([n for n in tree.body if not isinstance(n, ast.Import)])

    class ElementsReadDirectly(ast.NodeTransformer):
        """The intended differences: NumPy output computes a large sum over columns by blocks of
        columns (a GPU wants whole arrays: no _by_columns, no columns form _grad_NAME_columns),
        and it reads x[3], x[8], ... from x.tolist() on the CPU (x_items), and builds their
        gradient dx[3], dx[8], ... from a list of Python floats (np.fromiter, np.asarray, or
        dx_items) when x is 1-D; an element of that list is a float (the scalar check's x_items is x);
        and a loop whose step computes on numbers checks it once (_numbers = _shaped(...)) and skips
        its unbroadcasts under that flag, on the CPU only."""

        def visit_Name(self, node):
            return ast.Name(node.id.removesuffix("_items"), node.ctx)

        def visit_FunctionDef(self, node):
            if node.name in _BUFFER_HELPERS or node.name.endswith("_columns") or node.name == "_shaped":
                return None
            return self.generic_visit(node)

        def visit_Call(self, node):  # _grad_rows(x, rows): zeros where no row is assigned
            if isinstance(node.func, ast.Name) and node.func.id == "_grad_rows":
                return ast.Call(ast.Name("_grad_zeros", ast.Load()), node.args[:1], [])
            return self.generic_visit(node)

        def visit_If(self, node):
            calls = [n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
            if "_by_columns" in calls:
                return None
            first = node.test.values[0] if isinstance(node.test, ast.BoolOp) else None
            if isinstance(first, ast.Compare) and ast.unparse(first.left).endswith("_items"):
                # if x_items is x and np.ndim(x3) != 0: (an element of a list is a float)
                witness = node.test.values[1].left.args[0]
                is_float = ast.Call(ast.Name("isinstance", ast.Load()), [witness, ast.Name("float", ast.Load())], [])
                node.test.values[0] = ast.UnaryOp(ast.Not(), is_float)
            return self.generic_visit(node)

        def visit_IfExp(self, node):  # g if _numbers else _unbroadcast(g, x): a loop's step on numbers
            if isinstance(node.test, ast.Name) and node.test.id == "_numbers":
                return self.visit(node.orelse)
            return self.generic_visit(node)

        def visit_Assign(self, node):
            value, (target,) = node.value, node.targets
            if isinstance(target, ast.Name) and target.id in ("_FLOATS", "_numbers"):  # x_items' dtypes; the
                return None  # flag of a loop's step on numbers (NumPy's only: on a GPU the step is on arrays)
            listed = isinstance(value, ast.IfExp) and isinstance(value.test, ast.Compare)
            if listed and isinstance(value.test.ops[0], ast.IsNot):  # ... if x_items is not x else ...
                made = ast.unparse(value.body).startswith(("np.asarray(", "np.fromiter("))
                if made and isinstance(value.orelse, ast.Name):
                    return None  # dx = np.asarray(dx_items, x.dtype) if x_items is not x else dx_items
                # dx_items = [0.0] * len(x_items) if x_items is not x else _grad_zeros(x);
                # dx = np.asarray(dx, x.dtype) if x_items is not x else _grad_stack(x, dx)
                node.value = value.orelse
                if isinstance(target, ast.Tuple):  # _, x1 = x_items if x_items is not x else (None, x[1])
                    kept = [i for i, e in enumerate(node.value.elts) if not isinstance(e, ast.Constant)]
                    target.elts = [target.elts[i] for i in kept]
                    node.value.elts = [node.value.elts[i] for i in kept]
            elif isinstance(value, ast.IfExp) and ast.unparse(target).endswith("_items"):
                return None  # x_items = x.tolist() if ... else x
            if (
                isinstance(target, ast.Subscript)
                and isinstance(value, ast.BinOp)
                and isinstance(value.op, ast.Add)
                and ast.unparse(value.left) == ast.unparse(target)
            ):
                return self.generic_visit(ast.AugAssign(target, ast.Add(), value.right))  # dx[3] = dx[3] + g
            return self.generic_visit(node)

    def elements_read_directly(text: str) -> str:
        return ast.unparse(ElementsReadDirectly().visit(ast.parse(text)))

    def without_buffer_helpers(text: str) -> str:
        tree = ast.parse(text)
        tree.body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name in _BUFFER_HELPERS)]
        floats = [n for n in tree.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "_FLOATS"]
        tree.body = [n for n in tree.body if n not in floats]  # (_real_args' dtypes: dropped from NumPy's too)
        return ast.unparse(tree)

    for case in SUPPORTED:
        numpy_code = elements_read_directly(code(generate_case(case, "numpy")))
        renamed = numpy_code.replace("np.", "cp.").replace("scipy.special.", "cupyx.scipy.special.")
        assert renamed == without_buffer_helpers(code(generate_case(case))), case


#: Runtime helpers the NumPy output may use where the CuPy output uses the other (left out of the comparison).
_BUFFER_HELPERS = frozenset({"_by_columns", "_grad_rows", "_grad_zeros", "_grad_items"})


def test_a_keyword_cupy_lacks_is_a_located_error(tmp_path):
    src = tmp_path / "chol.py"
    src.write_text("import numpy as np\n\n\ndef f(a):\n    return np.sum(np.linalg.cholesky(a, upper=True))\n")
    proc = subprocess.run(
        [sys.executable, "-m", "yota_s2s", str(src), "--target", "cupy"],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == (
        f"{src}:5:19: error: the cupy target cannot write this: cupy.linalg.cholesky() has no keyword 'upper' "
        f"in CuPy {cupy_api.load().version} (YS040)"
    )
    assert lines[2] == " " * 22 + "^" and "Traceback" not in proc.stderr
    assert "YS040" in CODES


def test_a_function_cupy_lacks_is_a_located_error(tmp_path):
    """A custom rule for a NumPy function CuPy does not have: refused where it is called."""
    rules = tmp_path / "extra_rules.py"
    rules.write_text(
        '@diffrule(names=["numpy.nanquantile"], shape="elementwise")\ndef nanquantile(x, q):\n'
        "    nondiff(q)\n    dx = dout\n"
    )
    source = "import numpy as np\n\n\ndef f(x):\n    y = np.exp(x)\n    return np.nanquantile(y, 0.5)\n"
    with pytest.raises(UserError) as info:
        generate(source, "q.py", target="cupy", rules=[str(rules)])
    err = info.value
    assert (err.code, err.line, err.col) == ("YS040", 6, 12)
    assert "CuPy " + cupy_api.load().version + " has no cupy.nanquantile" in err.message
    assert "np.nanquantile(y, 0.5)" in generate(source, "q.py", rules=[str(rules)]).text  # NumPy has it


def test_a_helper_using_what_cupy_lacks_is_refused_where_its_gradient_is_needed(monkeypatch):
    """A helper copied into the output is checked too: the error names it and points at the source line."""
    real = cupy_api.load()
    names = {k: v for k, v in real.names.items() if k != "cupy.swapaxes"}
    lacking = dataclasses.replace(CUPY, api=lambda: cupy_api.CupyApi(real.version, names))
    monkeypatch.setitem(BACKENDS, "cupy", lacking)
    source = "import numpy as np\n\n\ndef f(a):\n    return np.linalg.slogdet(a)[1]\n"
    with pytest.raises(UserError) as info:
        generate(source, "d.py", target="cupy")
    err = info.value
    assert (err.code, err.line) == ("YS040", 5)
    assert err.message == (
        "the cupy target cannot write the gradient of this: CuPy "
        f"{real.version} has no cupy.swapaxes (in the helper _mT)"
    )


def test_generation_needs_no_cupy(tmp_path):
    """The table is data: generating for CuPy works where CuPy is not installed."""
    code = (
        "import sys; sys.modules['cupy'] = None; sys.modules['cupyx'] = None\n"
        "from yota_s2s.pipeline import generate\n"
        "print(generate(open(sys.argv[1]).read(), 'p.py', target='cupy').text)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "examples/poly.py")], capture_output=True, text=True, check=True
    )
    assert "import cupy as cp" in proc.stdout


def test_the_example_is_correct_on_the_stand_in(monkeypatch):
    """examples/cupy/grad_probit.py (kept current by tests/test_examples.py), checked by finite differences."""
    log: list[str] = []
    module = load_with_stand_in(ROOT / "examples/cupy/grad_probit.py", monkeypatch, log)
    source = load_module(ROOT / "examples/cupy/probit.py")
    rng = np.random.default_rng(6)
    w, X = rng.standard_normal(3), rng.standard_normal((10, 3))
    y, batch = (rng.random(10) > 0.5) * 1.0, rng.integers(0, 10, 16)
    assert len(set(batch.tolist())) < len(batch)  # a row drawn twice: the scatter-add accumulates
    value, dw = module.grad_loss(w, X, y, batch)
    assert np.isclose(value, source.loss(w, X, y, batch))
    assert_close(dw, numeric_grad(source.loss, (w, X, y, batch), 0, eps=1e-5), "dw")  # erf: 1e-6 is noise
    assert {"cupy.add.at", "cupyx.scipy.special.erf", "cupy.swapaxes"} <= set(log)
