"""A small interpreter: a ``Tape`` and input values in, output values out.

Used by the tests (every optimization must keep the values of a tape) and by
nothing at generation time.  Each equation is evaluated through the same
backend expression the writer writes, so the interpreter runs exactly what
the generated file says.

    >>> import numpy as np
    >>> from yota_s2s.ir.core import Tape
    >>> from yota_s2s.dsl.load import load_rules
    >>> t = Tape("f"); x = t.add_input("x"); t.outputs = [t.add_eqn("exp", [x])]
    >>> evaluate(t, {("x",): 0.0}, load_rules())
    [1.0]
"""

from __future__ import annotations

import ast
import importlib
import importlib as _importlib
import sys

import numpy as np

from ..dsl.rule import RuleTable
from ..ir.core import Eqn, Lit, Tape
from .helpers import RUNTIME_MODULES
from .target import NUMPY, Backend


def _namespace(backend: Backend) -> dict[str, object]:
    ns: dict[str, object] = {backend.alias: np}
    for stem in RUNTIME_MODULES:
        module = _importlib.import_module(f"yota_s2s.runtime.{stem}")
        ns.update({k: v for k, v in vars(module).items() if k.startswith("_") and callable(v)})
    return ns


def evaluate(tape: Tape, inputs: dict[tuple[str, ...], object], table: RuleTable, backend: Backend = NUMPY) -> list:
    """Run ``tape`` on values given by input path; return the output values (flat)."""
    ns = _namespace(backend)
    env: dict[int, object] = {}
    for inp in tape.inputs:
        env[inp.var.id] = inputs[inp.path]

    def value(a):
        return a.value if isinstance(a, Lit) else env[a.id]

    for eqn in tape.eqns:
        env[eqn.out.id] = _run(eqn, [value(a) for a in eqn.args], table, backend, ns)
    return [None if isinstance(a, Lit) and a.value is None else _plain(value(a)) for a in tape.outputs]


def _plain(v: object) -> object:
    return float(v) if isinstance(v, np.floating) else v


def _run(eqn: Eqn, args: list, table: RuleTable, backend: Backend, ns: dict) -> object:
    names = [f"a{i}" for i in range(len(args))]
    imports: set[str] = set()
    expr = backend.expression(eqn, [ast.Name(n, ast.Load()) for n in names], table.rules[eqn.prim], (), imports)
    namespace = dict(ns)
    for module in imports:
        importlib.import_module(module)
        root = module.split(".")[0]
        namespace[root] = sys.modules[root]
    code = compile(ast.fix_missing_locations(ast.Expression(expr)), "<interp>", "eval")
    return eval(code, namespace, dict(zip(names, args)))
