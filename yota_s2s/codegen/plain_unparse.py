"""``ast.unparse``'s text of the statements the writers make, written without ``ast.unparse``.

The writers print each statement of a generated function (``statements.statement_text``), and
``ast.unparse`` was a tenth of the generation time at scale (a 10,000-term polynomial: 5,400
statements, 100,000 nodes): it dispatches each node through ``NodeVisitor`` by name, and opens a
context manager for each pair of parentheses it might write.  ``unparse`` writes the same text
for the nodes the writers use (names, constants, arithmetic, calls, attributes, subscripts,
tuples, comparisons; ``=``, ``+=``, ``return`` and expression statements) with one function per
node class, keeping ``ast._Unparser``'s rules to the letter: each node's precedence is the one
its parent last set for it (a dict keyed by the node, as ``_Unparser`` keeps it, so that a node
shared by two parents is written as ``ast.unparse`` writes it), and a node the table does not
hold sends the whole statement to ``ast.unparse``.  ``tests/test_plain_unparse.py`` compares the
two on every statement of generated modules.

    >>> import ast
    >>> unparse(ast.parse("y = -(a + b) ** 2 * f(x, k=3)[1:, None].T").body[0])
    'y = -(a + b) ** 2 * f(x, k=3)[1:, None].T'
"""

from __future__ import annotations

import ast

# ``ast._Precedence``'s values (Python 3.9 to 3.13): a parent's precedence for its child
_TUPLE, _YIELD, _TEST, _OR, _AND, _NOT, _CMP = 2, 3, 4, 5, 6, 7, 8
_BXOR, _BAND, _SHIFT, _ARITH, _TERM, _FACTOR, _POWER, _ATOM = 10, 11, 12, 13, 14, 15, 16, 18
_BOR = 9  # (EXPR)

_BINOPS = {
    ast.Add: (" + ", _ARITH),
    ast.Sub: (" - ", _ARITH),
    ast.Mult: (" * ", _TERM),
    ast.MatMult: (" @ ", _TERM),
    ast.Div: (" / ", _TERM),
    ast.Mod: (" % ", _TERM),
    ast.FloorDiv: (" // ", _TERM),
    ast.LShift: (" << ", _SHIFT),
    ast.RShift: (" >> ", _SHIFT),
    ast.BitOr: (" | ", _BOR),
    ast.BitXor: (" ^ ", _BXOR),
    ast.BitAnd: (" & ", _BAND),
    ast.Pow: (" ** ", _POWER),
}
_UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}  # (``not``: ast.unparse)
_COMPARE = {
    ast.Eq: " == ",
    ast.NotEq: " != ",
    ast.Lt: " < ",
    ast.LtE: " <= ",
    ast.Gt: " > ",
    ast.GtE: " >= ",
    ast.Is: " is ",
    ast.IsNot: " is not ",
    ast.In: " in ",
    ast.NotIn: " not in ",
}
_INFSTR = "1e" + repr(__import__("sys").float_info.max_10_exp + 1)  # (ast._INFSTR)


class _Other(Exception):
    """A node this module does not write: the statement is ``ast.unparse``'s."""


def unparse(node: ast.AST) -> str:
    """``ast.unparse(node)``, for a statement or an expression."""
    try:
        return _Writer().statement(node)
    except _Other:
        return ast.unparse(node)


class _Writer:
    """One unparse: the pieces written so far and the precedences parents set (``_Unparser``'s)."""

    __slots__ = ("out", "prec")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.prec: dict[ast.AST, int] = {}

    def statement(self, node: ast.AST) -> str:
        kind = type(node)
        out = self.out
        if kind is ast.Assign:
            if getattr(node, "type_comment", None):
                raise _Other
            for target in node.targets:
                self.prec[target] = _TUPLE
                self.expr(target)
                out.append(" = ")
            self.expr(node.value)
        elif kind is ast.AugAssign:
            self.expr(node.target)
            out.append(_BINOPS[type(node.op)][0][:-1] + "= ")
            self.expr(node.value)
        elif kind is ast.Expr:
            self.prec[node.value] = _YIELD
            self.expr(node.value)
        elif kind is ast.Return:
            out.append("return")
            if node.value:
                out.append(" ")
                self.expr(node.value)
        elif isinstance(node, ast.expr):
            self.expr(node)
        else:
            raise _Other
        return "".join(out)

    def expr(self, node: ast.AST) -> None:
        method = _EXPRESSIONS.get(type(node))
        if method is None:
            raise _Other
        method(self, node)

    def name(self, node: ast.Name) -> None:
        self.out.append(node.id)

    def constant(self, node: ast.Constant) -> None:
        value = node.value
        if node.kind == "u" or type(value) not in _CONSTANTS:
            raise _Other
        if type(value) is float:
            self.out.append(repr(value).replace("inf", _INFSTR).replace("nan", f"({_INFSTR}-{_INFSTR})"))
        else:
            self.out.append(repr(value))

    def binop(self, node: ast.BinOp) -> None:
        op, precedence = _BINOPS[type(node.op)]
        parens = self.prec.get(node, _TEST) > precedence
        out = self.out
        if parens:
            out.append("(")
        if precedence == _POWER:  # (right-associative)
            self.prec[node.left] = precedence + 1
            self.prec[node.right] = precedence
        else:
            self.prec[node.left] = precedence
            self.prec[node.right] = precedence + 1
        self.expr(node.left)
        out.append(op)
        self.expr(node.right)
        if parens:
            out.append(")")

    def unaryop(self, node: ast.UnaryOp) -> None:
        op = _UNARY.get(type(node.op))
        if op is None:
            raise _Other
        parens = self.prec.get(node, _TEST) > _FACTOR
        out = self.out
        if parens:
            out.append("(")
        out.append(op)
        self.prec[node.operand] = _FACTOR
        self.expr(node.operand)
        if parens:
            out.append(")")

    def compare(self, node: ast.Compare) -> None:
        parens = self.prec.get(node, _TEST) > _CMP
        out = self.out
        if parens:
            out.append("(")
        for operand in (node.left, *node.comparators):
            self.prec[operand] = _CMP + 1
        self.expr(node.left)
        for op, operand in zip(node.ops, node.comparators):
            out.append(_COMPARE[type(op)])
            self.expr(operand)
        if parens:
            out.append(")")

    def attribute(self, node: ast.Attribute) -> None:
        value = node.value
        self.prec[value] = _ATOM
        self.expr(value)
        if type(value) is ast.Constant and isinstance(value.value, int):
            self.out.append(" ")
        self.out.append("." + node.attr)

    def call(self, node: ast.Call) -> None:
        self.prec[node.func] = _ATOM
        self.expr(node.func)
        out = self.out
        out.append("(")
        comma = False
        for arg in node.args:
            if comma:
                out.append(", ")
            comma = True
            self.expr(arg)
        for keyword in node.keywords:
            if comma:
                out.append(", ")
            comma = True
            out.append("**" if keyword.arg is None else keyword.arg + "=")
            self.expr(keyword.value)
        out.append(")")

    def subscript(self, node: ast.Subscript) -> None:
        self.prec[node.value] = _ATOM
        self.expr(node.value)
        out = self.out
        out.append("[")
        index = node.slice
        if type(index) is ast.Tuple and index.elts:
            self.items(index.elts)
        else:
            self.expr(index)
        out.append("]")

    def slice(self, node: ast.Slice) -> None:
        if node.lower:
            self.expr(node.lower)
        self.out.append(":")
        if node.upper:
            self.expr(node.upper)
        if node.step:
            self.out.append(":")
            self.expr(node.step)

    def items(self, elts: list[ast.expr]) -> None:
        """``_Unparser.items_view``: ``a, b``, or ``a,`` for one item."""
        if len(elts) == 1:
            self.expr(elts[0])
            self.out.append(",")
            return
        for k, e in enumerate(elts):
            if k:
                self.out.append(", ")
            self.expr(e)

    def tuple(self, node: ast.Tuple) -> None:
        parens = not node.elts or self.prec.get(node, _TEST) > _TUPLE
        if parens:
            self.out.append("(")
        self.items(node.elts)
        if parens:
            self.out.append(")")

    def list(self, node: ast.List) -> None:
        self.out.append("[")
        for k, e in enumerate(node.elts):
            if k:
                self.out.append(", ")
            self.expr(e)
        self.out.append("]")


_CONSTANTS = frozenset({int, float, bool, type(None), str})
_EXPRESSIONS = {
    ast.Name: _Writer.name,
    ast.Constant: _Writer.constant,
    ast.BinOp: _Writer.binop,
    ast.UnaryOp: _Writer.unaryop,
    ast.Compare: _Writer.compare,
    ast.Attribute: _Writer.attribute,
    ast.Call: _Writer.call,
    ast.Subscript: _Writer.subscript,
    ast.Slice: _Writer.slice,
    ast.Tuple: _Writer.tuple,
    ast.List: _Writer.list,
}
