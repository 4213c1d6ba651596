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
import re

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


#: The nodes whose text alone is the text they are written with inside a line, parentheses aside
#: (a tuple's depend on where it stands; a walrus, a lambda, an f-string's parts: unparsed instead).
_AS_WRITTEN = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Call,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.List,
    ast.Dict,
    ast.Set,
)
#: An f-string's opening quote (the positions of the nodes inside one are not the text's before 3.12).
_FSTRING = re.compile(r"(?<![\w])[rRbBuU]?[fF][rR]?['\"]")
#: The words of the expressions the compiler's unparser writes otherwise than ``ast.unparse``
#: (``a and (not b)``, ``f((x for x in y))``, the third comparison of a chain in parentheses).
_WORDS = re.compile(r"\b(?:not|and|or|for|if|lambda|await|yield)\b")


class LineTexts(NodeTexts):
    """The texts of the nodes of one line that ``ast.unparse`` wrote, read from the line itself.

    ``code`` is a statement's text as the writers print it, ``stmt`` its parse (the nodes asked
    for are its nodes): the text of a node is the slice of ``code`` between the columns the parser
    gave it, with no unparse at all.  That is ``ast.unparse``'s text only where the line is
    ``ast.unparse``'s own text; a writer may print a constant as the source wrote it
    (``(0.1 * 3) * x``), which the layout has always written as ``ast.unparse`` does.  So the
    line is read only where each expression of the statement is the text the compiler writes for
    it (``canonical``), in C, several times faster than an unparse in Python; elsewhere (and in a
    line that is not ASCII, whose columns count bytes, or holds an f-string) the texts are
    ``NodeTexts``'s, and so for a node whose text alone is not its text in the line
    (``_AS_WRITTEN``: a tuple's parentheses depend on where it stands).

        >>> code = "y = a - (b + c) * d"
        >>> stmt = ast.parse(code).body[0]
        >>> texts, node = LineTexts(code, stmt), stmt.value
        >>> texts.alone(node), texts.operands(node, "-"), texts.alone(node.right.left), texts.code is None
        ('a - (b + c) * d', ('a', '(b + c) * d'), 'b + c', False)
        >>> LineTexts("y = (0.1 * 3) * x", ast.parse("y = (0.1 * 3) * x").body[0]).code is None
        True
    """

    def __init__(self, code: str, stmt: ast.stmt) -> None:
        super().__init__()
        self.code = code if canonical(code, stmt) else None

    def alone(self, node: ast.AST) -> str:
        text = self._alone.get(node)
        if text is not None:
            return text
        code = self.code
        if code is not None and isinstance(node, _AS_WRITTEN) and node.lineno == node.end_lineno == 1:
            text = self._alone[node] = code[node.col_offset : node.end_col_offset]
            return text
        return self._record(node)

    def operands(self, binop: ast.BinOp, symbol: str) -> tuple[str, str] | None:
        """The texts of ``binop``'s left and right operands as it writes them (in parentheses
        where they take them) around its operator ``symbol``, or None where the line does not tell."""
        code = self.code
        if code is None or not binop.lineno == binop.end_lineno == binop.left.end_lineno == 1:
            return None
        start, cut = binop.col_offset, binop.left.end_col_offset
        if code[cut : cut + 1] == ")":  # (the left operand's parentheses)
            cut += 1
        between = f" {symbol} "
        if code[cut : cut + len(between)] != between:
            return None
        return code[start:cut], code[cut + len(between) : binop.end_col_offset]


def canonical(code: str, stmt: ast.stmt) -> bool:
    """``code``, an ASCII line parsed as ``stmt``, holds no f-string and no word of ``_WORDS``, and
    each expression of ``stmt`` is written there as the compiler writes it (``compiled_text``),
    which on such expressions is ``ast.unparse``'s text (``tests/test_layout_scans.py``)."""
    if not code.isascii() or _FSTRING.search(code) or _WORDS.search(code):
        return False
    for node in ast.iter_child_nodes(stmt):
        if isinstance(node, ast.expr):
            if not node.lineno == node.end_lineno == 1:
                return False
            text = code[node.col_offset : node.end_col_offset]
            if compiled_text(text) != text:
                return False
    return True


def compiled_text(expression: str) -> str | None:
    """The text CPython's compiler writes for ``expression`` (its unparser in C, which makes the
    strings of annotations under ``from __future__ import annotations``), or None.

    Only a ``def`` is run, to read its annotation: the expression itself is never evaluated.

        >>> compiled_text("(a+b)*c"), compiled_text("(-x)**2"), compiled_text("a +")
        ('(a + b) * c', '(-x) ** 2', None)
    """
    namespace: dict = {}
    try:
        code = compile(f"from __future__ import annotations\ndef _() -> ({expression}): pass\n", "<layout>", "exec")
        exec(code, namespace)  # noqa: S102 - a def whose annotation is kept as a string
    except (SyntaxError, ValueError):
        return None
    text = namespace["_"].__annotations__.get("return")
    return text if isinstance(text, str) else None


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
