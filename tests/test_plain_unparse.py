"""``codegen.plain_unparse.unparse`` writes ``ast.unparse``'s text (the generated text depends on it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from yota_s2s.codegen.plain_unparse import unparse

ROOT = Path(__file__).resolve().parent.parent


def _statements(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)):
            yield node
            if getattr(node, "value", None) is not None:
                yield node.value


def test_generated_modules_and_project_sources():
    """Every statement (and its value alone) of the committed generated modules, the project's
    sources and its tests, as ``ast.unparse`` writes it."""
    paths = sorted((ROOT / "examples").rglob("*.py")) + sorted((ROOT / "yota_s2s").rglob("*.py"))
    paths += sorted((ROOT / "tests").glob("test_*.py"))
    count = 0
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _statements(tree):
            assert unparse(node) == ast.unparse(node), (path, node.lineno)
            count += 1
    assert count > 20_000


@pytest.mark.parametrize(
    "code",
    [
        "y = -x ** 2",
        "y = (-x) ** 2",
        "y = x ** -y ** 2",
        "y = (a ** b) ** c",
        "y = a - (b - c) - d",
        "y = a / (b * c) // d % e @ f",
        "y = (a + b).T",
        "y = 3 .real + 3.5.real + (-3).real",
        "y = x[1:, None, ::2]",
        "y = x[()]",
        "y = x[(1,)]",
        "y = x[1, :]",
        "y = (a,)",
        "y = ()",
        "a, b = c",
        "(a, b), c = d",
        "y = f(*a, **k)",
        "y = f(a, b=(c, d), **k)",
        "y = a < b <= (c < d) is not e",
        "y = (a < b) + 1",
        "y = not a",
        "y = a if b else c",
        "y = 'it\\'s' + \"q\" + '\\n'",
        "y = f'{x}'",
        "y = [a, (b, c), []]",
        "y = 1e309 + -1e309",
        "y += a * (b + c)",
        "y[0] -= 1",
        "return",
        "return a, b",
        "f(x)",
        "y = a & b | c ^ d << e >> f",
        "y = ~a + +b",
        "y = lambda: 0",
        "y = x.flat[_k]",
        "y = 1j * x",
    ],
)
def test_statements(code):
    """The cases where ``ast.unparse``'s rules bite (precedence, tuples, constants), and those it
    hands back (``not``, ``lambda``, f-strings, complex constants: ``ast.unparse`` itself)."""
    node = ast.parse(code if not code.startswith("return") else f"def f():\n    {code}").body[0]
    node = node.body[0] if isinstance(node, ast.FunctionDef) else node
    assert unparse(node) == ast.unparse(node)


def test_shared_nodes_and_made_constants():
    """A node in two places of one tree takes the precedence its last parent set (as in
    ``ast.unparse``); constants the writer makes that the parser never does (negative, inf, nan)."""
    s = ast.BinOp(ast.Name("a"), ast.Add(), ast.Name("b"))
    tree = ast.Assign(
        [ast.Name("y", ast.Store())],
        ast.Call(ast.Name("f"), [s, ast.BinOp(s, ast.Mult(), ast.Name("c")), s], []),
        lineno=0,
    )
    assert unparse(tree) == ast.unparse(tree)
    for value in (-1.0, -2, float("inf"), float("nan"), -float("inf"), True, None, "a'b\""):
        power = ast.BinOp(ast.Constant(value), ast.Pow(), ast.Name("x"))
        node = ast.Expr(ast.Attribute(power, "T", ast.Load()))
        assert unparse(node) == ast.unparse(node)
        assert unparse(ast.Constant(value)) == ast.unparse(ast.Constant(value))
