"""The statements of a generated function: what the writer decided, as ``ast`` nodes, before they are printed.

A ``Line`` is one statement and where it came from: its section (forward or backward), the
source span its provenance comment names, its nesting depth, and the node.  A compound
statement the writer fills in line by line (``for``, ``while``, ``if``) is a *header*: its
node's body is empty and the statements of its body follow it one level deeper (an ``else:``
is the ``Else`` node).  ``render`` prints the lines with the comments that say where each group
of statements comes from::

    # forward
    # return np.sum(np.exp(x))
    _t1 = np.exp(x)

Every statement is a node, never text, so the buffered form (``buffered``) can read what a
statement reads and writes from the same objects the function is printed from.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from ..ir.core import Section, Span, Tape
from .layout import WIDTH, comparisons, unparsed
from .plain_unparse import unparse


class Else(ast.stmt):
    """The ``else:`` line of an ``if`` header (its statements follow, one level deeper)."""

    _fields = ()


@dataclass
class Line:
    """One statement of a generated function: its node, section, provenance and depth."""

    section: Section | None
    span: Span | None
    node: ast.stmt
    depth: int
    header: bool = False  # the first line of a compound statement whose body follows
    comment: str = ""  # printed after the statement's first line


def statement_text(line: Line) -> str:
    """The text of one line's statement (several lines for a complete compound statement)."""
    node = line.node
    if isinstance(node, Else):
        text = "else:"
    elif line.header and isinstance(node, ast.For):
        text = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}:"
    elif line.header and isinstance(node, ast.While):
        text = f"while {ast.unparse(node.test)}:"
    elif line.header and isinstance(node, ast.If):
        text = f"if {unparsed(node.test)}:"
    elif isinstance(node, ast.If) and comparisons(node.test):
        first, *rest = ast.unparse(node).split("\n")
        text = "\n".join([f"if {unparsed(node.test)}:", *rest])
    elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) > 1:
        text = "return " + ", ".join(unparse(e) for e in node.value.elts)
    elif isinstance(node, ast.Assign) and _one_item(node.targets[0]):  # (a,) = saved, not a, = saved
        text = f"({unparse(node.targets[0].elts[0])},) = {unparse(node.value)}"
    else:
        text = unparse(node)
    if line.comment:
        first, *rest = text.split("\n")
        text = "\n".join([f"{first}  # {line.comment}", *rest])
    return text


def _one_item(target: ast.expr) -> bool:
    return isinstance(target, ast.Tuple) and len(target.elts) == 1


def render(lines: list[Line], function: str, indent: int = 1) -> list[str]:
    """The text lines of a function body, ``indent`` levels in, with its comments (``chunks``)."""
    return [text for comments, statement in chunks(lines, function, indent) for text in (*comments, *statement)]


def chunks(lines: list[Line], function: str, indent: int = 1) -> list[tuple[list[str], list[str]]]:
    """For each line: the comment lines printed before it, and its statement's text lines,
    ``indent`` levels in.  The comments are ``# forward`` and ``# backward`` where the section
    changes at the top level, and the source line a group of statements comes from (``# grad of:
    ...`` in the backward sweep; ``(in helper)`` when it is not ``function``'s own)."""
    out: list[tuple[list[str], list[str]]] = []
    last_key = None
    section = None
    for line in lines:
        sec, span, depth = line.section, line.span, line.depth
        pad = "    " * (depth + indent)
        comments: list[str] = []
        if sec is not None and sec != section and not isinstance(line.node, ast.Return) and depth == 0:
            comments.append(f"{'    ' * indent}# {sec}")
            section = sec
            last_key = None
        key = (span.path, span.line) if span else None
        if key is not None and key != last_key and span.text:
            prefix = "" if sec == Section.FORWARD else "grad of: "
            where = f" (in {span.func})" if span.func and span.func != function else ""
            comments.append(f"{pad}# {prefix}{_cut(span.text, WIDTH - len(pad) - len(prefix) - len(where) - 2)}{where}")
        if key is not None:
            last_key = key
        out.append((comments, [pad + text for text in statement_text(line).splitlines()]))
    return out


def _cut(text: str, room: int) -> str:
    """A source line echoed in a comment, cut to ``room`` characters (ending ``...``)."""
    return text if len(text) <= room else text[: max(room - 3, 8)].rstrip() + "..."


def parsed(node: ast.stmt) -> ast.stmt:
    """A copy of ``node`` whose names have the contexts the parser gives them (``Store`` for an
    assignment's target, ``Load`` elsewhere, also in a subscript's value), so that reading and
    writing can be told by ``ctx`` as in parsed code."""
    node = copy.deepcopy(node)
    for sub in ast.walk(node):
        if hasattr(sub, "ctx"):
            sub.ctx = ast.Load()

    def store(target: ast.expr) -> None:
        if isinstance(target, ast.Name | ast.Subscript | ast.Attribute | ast.Starred | ast.Tuple | ast.List):
            target.ctx = ast.Store()
        if isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                store(elt)
        elif isinstance(target, ast.Starred):
            store(target.value)

    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign):
            for target in sub.targets:
                store(target)
        elif isinstance(sub, ast.AugAssign | ast.AnnAssign | ast.For | ast.comprehension):
            store(sub.target)
    return node


def function_name(tape: Tape) -> str:
    """``grad_NAME``, ``vjp_NAME``, ``jac_NAME``, ...: the function written for ``tape`` (its mode's prefix)."""
    return tape.facts.mode.prefix + tape.name
