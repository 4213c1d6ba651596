"""The layout's shortcuts give what the slow way gave (issue 38): the texts of one unparse are
``ast.unparse``'s, node by node; the logical-line scan finds what Python's tokenizer finds; and a
module whose long lines all start logical lines is broken as the whole-module check would have
broken it, while a long line inside a string still leaves the module as it was.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize
from pathlib import Path

import pytest

from yota_s2s.codegen import layout
from yota_s2s.codegen.layout import _after, _before, _op_text, fit_module
from yota_s2s.codegen.logical_lines import logical_starts
from yota_s2s.codegen.unparsing import _FSTRING, _WORDS, LineTexts, NodeTexts, compiled_text, same_tree

ROOT = Path(__file__).resolve().parent.parent
#: Sources with every kind of expression the project writes or reads: its own code and examples.
SOURCES = sorted((ROOT / "yota_s2s").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))


def _expressions(path: Path):
    """The expressions directly under each statement of ``path``'s tree."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.stmt):
            yield from (v for v in ast.iter_child_nodes(stmt) if isinstance(v, ast.expr))


def test_the_texts_of_one_unparse_are_ast_unparse_node_by_node():
    checked = 0
    for expr in (e for path in SOURCES[::4] for e in _expressions(path)):
        texts = NodeTexts()
        texts.alone(expr)
        for node in ast.walk(expr):
            assert texts.alone(node) == ast.unparse(node)
            if isinstance(node, ast.BinOp) and texts.in_parent(node.right) is not None:
                assert texts.in_parent(node.right) == _after(
                    ast.BinOp(ast.Name("_"), node.op, node.right), _op_text(node.op)
                )
                assert texts.in_parent(node.left) == _before(ast.BinOp(node.left, node.op, ast.Name("_")))
            checked += 1
    assert checked > 10_000


def test_the_texts_read_from_an_unparsed_line_are_ast_unparse_node_by_node():
    checked = read = 0
    for expr in (e for path in SOURCES[1::2] for e in _expressions(path)):
        line = "_ = " + ast.unparse(expr)  # (a line as the writers print it)
        stmt = ast.parse(line).body[0]
        texts = LineTexts(line, stmt)
        read += texts.code is not None
        for sub in ast.walk(stmt.value):
            assert texts.alone(sub) == ast.unparse(sub)
            if isinstance(sub, ast.BinOp) and texts.operands(sub, _op_text(sub.op)) is not None:
                left, right = texts.operands(sub, _op_text(sub.op))
                assert right == _after(ast.BinOp(ast.Name("_"), sub.op, sub.right), _op_text(sub.op))
                assert left == _before(ast.BinOp(sub.left, sub.op, ast.Name("_")))
                checked += 1
    assert checked > 1_000 and read > 1_000


def test_the_compilers_text_is_ast_unparse_where_the_layout_reads_a_line():
    """``unparsing.canonical`` trusts the compiler's unparser (C) to write what ``ast.unparse``
    writes, on expressions without f-strings or the words where the two differ."""
    compared = 0
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.expr) and not isinstance(node, ast.FormattedValue | ast.Starred | ast.Slice):
                text = ast.unparse(node)
                if text.isascii() and not _FSTRING.search(text) and not _WORDS.search(text):
                    assert compiled_text(text) in (text, None), text
                    compared += 1
    assert compared > 50_000


def test_a_line_written_otherwise_than_ast_unparse_is_not_read():
    for line in [
        "y = (0.1 * 3) * x",
        "y = a  +  b",
        "y = f(a,b)",
        "y = x[(1, 2)]",
        "y = 1e-3 * x",
        "y = a and not b",
        "y = x ** -1",
    ]:
        assert LineTexts(line, ast.parse(line).body[0]).code is None, line
    for line in ["y = 0.1 * 3 * x", "y = f(a, b)[1, 2] ** (-c)", "y = (a + b) * -(c - d) / e.f"]:
        assert LineTexts(line, ast.parse(line).body[0]).code == line


def test_the_parentheses_a_node_takes_from_its_parent():
    node = ast.parse("-(a + b) ** 2 * (c - d) - (e if f else g)", mode="eval").body
    texts = NodeTexts()
    assert texts.alone(node) == "-(a + b) ** 2 * (c - d) - (e if f else g)"
    assert (texts.in_parent(node.right), texts.alone(node.right)) == ("(e if f else g)", "e if f else g")
    product = node.left
    assert (texts.in_parent(product.right), texts.alone(product.right)) == ("(c - d)", "c - d")
    assert texts.in_parent(node) is None  # (the root: no parent wrote it)


def test_same_tree_is_dump_equality():
    pairs = [("a + b", "(a + b)"), ("a + b", "a - b"), ("f(x, y=1)", "f(x, y=1.0)"), ("x[1:2]", "x[1:2, ]")]
    pairs += [("'a' 'b'", "'ab'"), ("1e400", "1e999"), ("-0.0", "0.0"), ("a if b else c", "(a if b else c)")]
    for one, two in pairs:
        a, b = ast.parse(one), ast.parse(two)
        assert same_tree(a, b) == (ast.dump(a) == ast.dump(b)), (one, two)


def _tokenizer_starts(text: str) -> set[int]:
    """The lines (from 0) where Python's tokenizer starts a logical line (after a NEWLINE or NL
    token outside brackets, or at the start)."""
    starts = {0}
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type in (tokenize.NEWLINE, tokenize.NL) and depth == 0:
            starts.add(tok.end[0])
    return starts


@pytest.mark.parametrize("path", SOURCES[::5], ids=lambda p: p.name)
def test_the_scan_finds_the_tokenizers_logical_lines(path):
    text = path.read_text(encoding="utf-8")
    found = logical_starts(text)
    if found is None:  # an f-string: the caller checks the whole module
        assert "f'" in text or 'f"' in text
        return
    lines = text.count("\n")
    assert {n for n in found if n < lines} == {n for n in _tokenizer_starts(text) if n < lines}


def test_the_scan_gives_up_on_what_it_does_not_read():
    assert logical_starts("x = f'{a}'\n") is None
    assert logical_starts("x = (1,\n") is None
    assert logical_starts("x = 'open\n") is None
    assert logical_starts('x = """open\n') is None


LONG = " + ".join(f"a{i} * b{i}" for i in range(40))


def test_a_long_line_inside_a_string_leaves_the_module_as_it_was(monkeypatch):
    text = f'def f():\n    """Doc.\n\n    y = {LONG}\n    """\n    return 1\n'
    assert fit_module(text) == text  # (the line parses alone, but it is the docstring's)
    whole = []
    monkeypatch.setattr(layout, "_tree", lambda t: whole.append(t) or ast.dump(ast.parse(t)))
    fit_module(text)
    assert whole  # the module was parsed again to find it


def test_long_statements_are_broken_without_parsing_the_module_again(monkeypatch):
    text = f'def f(x):\n    """{"word " * 30}end."""\n    y = {LONG}  # a comment\n    return y\n'
    expected = fit_module(text)
    assert expected != text and expected.count("\n") > text.count("\n")
    monkeypatch.setattr(layout, "_tree", lambda t: pytest.fail("the whole module was parsed again"))
    assert fit_module(text) == expected


def test_a_rewrapped_string_that_is_no_docstring_leaves_the_module_as_it_was():
    text = f'def f(x):\n    y = 1\n    "{"word " * 30}end."\n    return y\n'
    assert fit_module(text) == text  # (its value would change: it is no docstring)


def test_a_long_line_inside_brackets_keeps_the_module_tree():
    text = f"x = [\n    {LONG},\n]\n"
    fitted = fit_module(text)
    assert ast.dump(ast.parse(fitted)) == ast.dump(ast.parse(text))


@pytest.mark.slow
def test_each_broken_line_of_the_generated_modules_keeps_its_syntax_tree(monkeypatch):
    """The breaker does not parse what it wrote (issue 38): each line it breaks is made of the texts
    of its own nodes.  Here each broken line of every source's NumPy module is parsed and compared."""
    from tests.snapshot import collect, sources

    fit_line, broken = layout._fit_line, []

    def checked(line: str, width: int):
        fitted, rewrapped = fit_line(line, width)
        if fitted != [line] and not rewrapped:
            code = line.strip()
            compound = code.endswith(":")
            tail = "\n    pass" if compound else ""
            before = ast.parse(layout._split_comment(code)[0] + tail).body[0]
            after = ast.parse(textwrap.dedent("\n".join(fitted)) + tail).body[0]
            assert same_tree(after, before), "\n".join(fitted)
            broken.append(line)
        return fitted, rewrapped

    monkeypatch.setattr(layout, "_fit_line", checked)
    collect(keys=[f"{s.key}::numpy-value" for s in sources()])
    assert len(broken) > 100
