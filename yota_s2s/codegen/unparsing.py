"""The texts ``ast.unparse`` writes for an expression and every node in it, from one unparse.

The layout (``layout.py``) breaks a long line by the texts of its parts: each operand of a
long sum as the sum writes it (``(a + b)`` where it needs its parentheses), each argument of a
call.  Unparsing each part again, at every level where the line may break, costs several times
the line's own unparse.  ``NodeTexts`` unparses a tree once, recording where each node's text
starts and ends in the result, and answers from that record:

- ``alone(node)``: ``ast.unparse(node)``, the node on its own;
- ``in_parent(node)``: the node's text where its parent writes it, with the parentheses the
  parent's precedence adds (``a - (b + c)``: ``(b + c)``), None where the record has none.

A node the record cannot answer for (inside an f-string, a tuple under a subscript, a Python
whose ``ast`` has no ``_Unparser`` to record with) is unparsed on its own, as before: the texts
are ``ast.unparse``'s in every case.  ``same_tree`` compares two trees as ``ast.dump`` does,
without writing either.

    >>> import ast
    >>> texts = NodeTexts()
    >>> node = ast.parse("a - (b + c) * d", mode="eval").body
    >>> texts.alone(node), texts.alone(node.right.left), texts.in_parent(node.right.left)
    ('a - (b + c) * d', 'b + c', '(b + c)')
"""

from __future__ import annotations

import ast
import itertools

try:  # CPython's unparser (ast.unparse is ``_Unparser().visit``); where it is missing, no record
    from ast import _Precedence, _Unparser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python whose ast module is laid out otherwise
    _Precedence = _Unparser = None


class NodeTexts:
    """``ast.unparse``'s texts of nodes, each tree unparsed once (see the module docstring).

    Nodes are held by the record (never looked up by ``id``), so a node made and dropped while
    the record lives cannot be mistaken for another.
    """

    def __init__(self) -> None:
        self._alone: dict[ast.AST, str] = {}
        self._in_parent: dict[ast.AST, str] = {}

    def alone(self, node: ast.AST) -> str:
        """``ast.unparse(node)``."""
        text = self._alone.get(node)
        if text is None:
            text = self._record(node)
        return text

    def in_parent(self, node: ast.AST) -> str | None:
        """``node``'s text as its parent wrote it in a tree recorded before, or None."""
        return self._in_parent.get(node)

    def _record(self, root: ast.AST) -> str:
        if _Unparser is None:
            text = self._alone[root] = ast.unparse(root)
            return text
        recorder = _Recorder()
        text = recorder.visit(root)
        ends = list(itertools.accumulate((len(piece) for piece in recorder.pieces), initial=0))
        test = _Precedence.TEST
        for node, start, end in recorder.spans:
            written = text[ends[start] : ends[end]]
            if node is not root:
                self._in_parent.setdefault(node, written)
            own = recorder.own.get(node)
            context = recorder.get_precedence(node)
            if own is not None:  # its parentheses are the only mark of its context
                inner = written[1:-1] if context > own else written
                self._alone.setdefault(node, f"({inner})" if test > own else inner)
            elif context == test or not isinstance(node, ast.Tuple):  # (a tuple's parentheses depend on it too)
                self._alone.setdefault(node, written)
        self._alone[root] = text
        return text


if _Unparser is not None:

    class _Recorder(_Unparser):
        """CPython's unparser, noting each node's span among the pieces it writes, and the
        precedence below which a node writes itself in parentheses (``require_parens``)."""

        def __init__(self, **kwargs) -> None:
            super().__init__(**kwargs)
            self.spans: list[tuple[ast.AST, int, int]] = []
            self.own: dict[ast.AST, object] = {}
            self.pieces: list[str] = []

        def visit(self, node):
            self._source = self.pieces = []
            self.traverse(node)
            return "".join(self.pieces)

        def traverse(self, node):
            if isinstance(node, list):
                super().traverse(node)
                return
            source = self._source
            start = len(source)
            super().traverse(node)
            if source is self.pieces and self._source is source:  # (not into a buffer of its own)
                self.spans.append((node, start, len(source)))

        def require_parens(self, precedence, node):
            self.own[node] = precedence
            return super().require_parens(precedence, node)


def same_tree(a: object, b: object) -> bool:
    """``ast.dump(a) == ast.dump(b)``: the same node types, fields and values, positions aside.

    >>> same_tree(ast.parse("(a +\\n b)"), ast.parse("a + b")), same_tree(ast.parse("-0.0"), ast.parse("0.0"))
    (True, False)
    """
    stack = [(a, b)]
    pop, push = stack.pop, stack.append
    while stack:
        x, y = pop()
        if x is y:
            continue
        kind = type(x)
        if kind is not type(y):
            return False
        if kind is str or kind is int:  # (a name, an int: equal values have equal texts)
            if x != y:
                return False
        elif isinstance(x, ast.AST):
            for f in x._fields:
                push((getattr(x, f, None), getattr(y, f, None)))
        elif kind is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif repr(x) != repr(y):  # (as dump writes them: -0.0 is not 0.0, nan is nan)
            return False
    return True
