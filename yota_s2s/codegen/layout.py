"""Lines of at most 120 characters: a generated module's long lines broken where a reader expects.

The writers print each statement on one line (``ast.unparse``); ``fit_module`` breaks the
lines longer than ``WIDTH`` afterwards, without changing what the module computes:

- a long sum (or product, ``and``/``or`` chain, comparison) is put in parentheses and broken
  before its top-level operators, as many terms to a line as fit::

      _t5 = (
          2 * x0 * x1 + 3 * x2 ** 2 + ...
          - 4 * x3 ** 3 * x0
      )

- a long call, list, tuple, dict or subscript puts its items one level in: all on one line
  if they fit, as many to a line as fit when they are short (a row of numbers), else one to
  a line, each broken again if it is still too long; a trailing comma ends the last; a call
  of one list or tuple hugs its brackets (``np.stack([`` ... ``])``);
- a long string is cut at spaces into pieces that Python joins again (``"a " "b"``);
- a long docstring is wrapped into a multi-line docstring;
- a comment line (the source line a group of statements comes from) is cut, ending ``...``;
  a statement's trailing comment that no longer fits goes on the line above it.

A broken statement is made of the texts of its own nodes, joined where its syntax allows a
break (inside brackets, or in parentheses put around a chain), so it has the syntax tree it had:
it is not parsed again (``tests/test_layout_scans.py`` parses each broken line of the generated
modules and compares its tree with the line's).  The module is parsed again only where a broken
line does not start a logical line (``logical_lines``: it may be inside a string).
The texts a line is broken into are those of one unparse of it (``unparsing.NodeTexts``), never
of each part again.  The header's ``# regenerate:`` and ``# also-read:`` lines hold a command and
a path, which are never cut.

    >>> text = "x = f(" + ", ".join(f"a{i}" for i in range(40)) + ")\\n"
    >>> print(fit_module(text))  # doctest: +NORMALIZE_WHITESPACE
    x = f(
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23,
        a24, a25, a26, a27, a28, a29, a30, a31, a32, a33, a34, a35, a36, a37, a38, a39,
    )
"""

from __future__ import annotations

import ast
import functools
import io
import textwrap
import tokenize

from .logical_lines import logical_starts
from .unparsing import LineTexts, NodeTexts

#: The longest line a generated module holds (the project's ruff line length).
WIDTH = 120
#: The header lines that are never cut (a shell command, a path).
UNCUT = ("# regenerate:", "# also-read:")
#: Items up to this long are packed several to a line (numbers, names); longer ones one to a line.
SHORT_ITEM = 32
_STEP = 4

#: The operators of a chain written on one level: those of one precedence, left-associative.
_LEVELS = [
    (ast.Add, ast.Sub),
    (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.MatMult),
    (ast.BitOr,),
    (ast.BitXor,),
    (ast.BitAnd,),
    (ast.LShift, ast.RShift),
]


def fit_module(text: str, width: int = WIDTH) -> str:
    """``text`` with each line longer than ``width`` broken (see the module docstring).

    Where every broken line starts a logical line (``logical_lines``), and a rewrapped docstring
    is the first statement of a ``def``, a ``class`` or the module, the module's tree is the one it
    had; else the whole module is parsed again and compared (a line inside a string would be
    broken too).
    """
    lines = text.split("\n")
    if all(len(line) <= width for line in lines):
        return text
    starts = logical_starts(text)
    in_place = starts is not None
    out: list[str] = []
    for n, line in enumerate(lines):
        if len(line) <= width:
            out.append(line)
            continue
        fitted, rewrapped = _fit_line(line, width)
        if in_place and fitted != [line]:
            in_place = n in starts and (not rewrapped or _opens_body(lines, n, starts))
        out.extend(fitted)
    fitted_text = "\n".join(out)
    if not in_place and _tree(fitted_text) != _tree(text):
        return text
    return fitted_text


def _opens_body(lines: list[str], n: int, starts: set[int]) -> bool:
    """Line ``n`` (a logical line's start) is the first statement of the module, or of a
    ``def`` or ``class`` whose header ends on the code line before it."""
    k = n - 1
    while k >= 0 and (not lines[k].strip() or k in starts and lines[k].lstrip().startswith("#")):
        k -= 1
    if k < 0:
        return True
    header = k
    while header not in starts:
        header -= 1
    return lines[k].rstrip().endswith(":") and lines[header].lstrip().startswith(("def ", "class "))


def fit_line(line: str, width: int = WIDTH) -> list[str]:
    """One long line as lines of at most ``width`` characters where it can be broken."""
    return _fit_line(line, width)[0]


def _fit_line(line: str, width: int) -> tuple[list[str], bool]:
    """``fit_line``'s lines, and whether they are a docstring rewrapped (its words the same,
    its whitespace not)."""
    body = line.lstrip(" ")
    ind = len(line) - len(body)
    if body.startswith("#"):
        if body.startswith(UNCUT):
            return [line], False
        return [line[: width - 3].rstrip() + "..."], False
    code, comment = _split_comment(body)
    if code is None:
        return [line], False
    compound = code.endswith(":")
    try:
        tree = ast.parse(code + "\n    pass" if compound else code)
    except SyntaxError:
        return [line], False
    if len(tree.body) != 1:
        return [line], False
    node = tree.body[0]
    if _is_docstring(node):
        wrapped = _docstring(node.value.value, ind, width)
        return (wrapped, True) if wrapped is not None else ([line], False)
    fitted = _statement(node, ind, width, compound, LineTexts(code, node))
    if fitted is None:
        return [line], False
    if comment:
        if len(fitted[0]) + 2 + len(comment) <= width:
            fitted[0] += "  " + comment
        else:
            fitted.insert(0, " " * ind + comment)
    return fitted, False


def _split_comment(body: str) -> tuple[str | None, str]:
    """The code of a line and its trailing comment ("" if none); None when it does not tokenize."""
    if "#" not in body:  # (no comment: the parse that follows finds what does not tokenize)
        return body, ""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(body + "\n").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None, ""
    comments = [t for t in tokens if t.type == tokenize.COMMENT]
    if not comments:
        return body, ""
    start = comments[-1].start[1]
    return body[:start].rstrip(), body[start:]


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _docstring(value: str, ind: int, width: int) -> list[str] | None:
    """A one-line docstring as a wrapped multi-line one (None where it holds quotes or escapes)."""
    if "\n" in value or '"""' in value or "\\" in value or not value.isprintable():
        return None
    pad = " " * ind
    wrapped = textwrap.wrap(value, width - ind - 3, break_long_words=False, break_on_hyphens=False)
    return [f'{pad}"""{wrapped[0]}', *(pad + w for w in wrapped[1:]), f'{pad}"""']


def _statement(node: ast.stmt, ind: int, width: int, compound: bool, texts: NodeTexts) -> list[str] | None:
    """The lines of a simple statement, or of a compound statement's first line (its nodes'
    texts from ``texts``)."""
    f = _Fitter(width, texts)
    pad = " " * ind
    if compound:
        if isinstance(node, ast.If | ast.While):
            return f.join(pad + ("if " if isinstance(node, ast.If) else "while "), [(node.test, ind)], ":")
        if isinstance(node, ast.For) and not node.orelse:
            return f.join(pad + "for " + _bare(node.target) + " in ", [(node.iter, ind)], ":")
        if isinstance(node, ast.FunctionDef) and not node.decorator_list and node.returns is None:
            return f.items(f"{pad}def {node.name}(", [(p, None) for p in _parameters(node.args)], "):", ind)
        return None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if len(pad) + len(_bare(target)) + 3 <= width // 2:
            return f.join(pad + _bare(target) + " = ", [(node.value, ind)], "")
        return f.join(pad, [(target, ind), " = ", (node.value, ind)], "")
    if isinstance(node, ast.AugAssign):
        op = _op_text(node.op)
        return f.join(pad + ast.unparse(node.target) + f" {op}= ", [(node.value, ind)], "")
    if isinstance(node, ast.Return) and node.value is not None:
        return f.join(pad + "return ", [(node.value, ind)], "")
    if isinstance(node, ast.Raise) and node.exc is not None and node.cause is None:
        return f.join(pad + "raise ", [(node.exc, ind)], "")
    if isinstance(node, ast.Expr):
        return f.join(pad, [(node.value, ind)], "")
    return None


def _bare(target: ast.expr) -> str:
    """An assignment target's text, a tuple without its parentheses (``a, b``)."""
    if isinstance(target, ast.Tuple) and len(target.elts) > 1:
        return ", ".join(ast.unparse(e) for e in target.elts)
    return ast.unparse(target)


def comparisons(node: ast.expr) -> bool:
    """``node`` is a chain of three or more comparisons joined by ``and`` (or ``or``), which
    ``ast.unparse`` writes with parentheses around the third and later ones."""
    return (
        isinstance(node, ast.BoolOp) and len(node.values) > 2 and all(isinstance(v, ast.Compare) for v in node.values)
    )


def unparsed(node: ast.expr, texts: NodeTexts | None = None) -> str:
    """``ast.unparse(node)``, a chain of comparisons (``comparisons``) without those parentheses
    (the texts from ``texts`` where given: each node unparsed once)."""
    alone = ast.unparse if texts is None else texts.alone
    if comparisons(node):
        return (" and " if isinstance(node.op, ast.And) else " or ").join(alone(v) for v in node.values)
    return alone(node)


@functools.cache
def _op_symbol(op: type[ast.operator]) -> str:
    return ast.unparse(ast.BinOp(ast.Name("a"), op(), ast.Name("b")))[2:-2]


def _op_text(op: ast.operator) -> str:
    return _op_symbol(type(op))


def _parameters(args: ast.arguments) -> list[str]:
    """A signature's parameters, each as written (``a``, ``b=1.0``, ``*``, ``/``)."""
    text = ast.unparse(args)
    parts, depth, start = [], 0, 0
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == "," and depth == 0:
            parts.append(text[start : tok.start[1]].strip())
            start = tok.end[1]
    parts.append(text[start:].strip())
    return [p for p in parts if p]


class _Fitter:
    """Breaks expressions into lines of at most ``width`` characters."""

    def __init__(self, width: int, texts: NodeTexts) -> None:
        self.width = width
        self.texts = texts  # (each node of the line read from it, or unparsed once)

    def join(self, head: str, parts: list, tail: str) -> list[str]:
        """``head``, then each part (an ``(expr, indent)`` or a string), then ``tail``, broken as needed."""
        lines = [head]
        for n, part in enumerate(parts):
            if isinstance(part, str):
                lines[-1] += part
                continue
            node, ind = part
            after = len(tail) if n == len(parts) - 1 else 3
            text = self.expr(node, ind, len(lines[-1]), after)
            lines[-1] += text[0]
            lines.extend(text[1:])
        lines[-1] += tail
        return lines

    def expr(self, node: ast.expr, ind: int, col: int, tail: int) -> list[str]:
        """``node``'s text from column ``col`` (its continuation lines ``ind`` in), ``tail``
        characters to follow it: one line where it fits, else broken by its kind."""
        text = unparsed(node, self.texts)
        if col + len(text) + tail <= self.width:
            return [text]
        return self.broken(node, ind) or [text]

    def operand(self, binop: ast.BinOp, side: ast.expr) -> str:
        """``side`` (``binop.left`` or ``.right``) as ``binop`` writes it, in parentheses where
        it needs them: the line's own text (``unparsing.LineTexts``), else that of the line's
        one unparse (``unparsing.NodeTexts``)."""
        texts = self.texts
        if isinstance(texts, LineTexts):
            both = texts.operands(binop, _op_text(binop.op))
            if both is not None:
                return both[0] if side is binop.left else both[1]
        text = self.texts.in_parent(side)
        if text is None:
            self.texts.alone(binop)  # (a part broken before it was written whole: recorded now)
            text = self.texts.in_parent(side)
        if text is not None:
            return text
        if side is binop.left:  # (a node the record has no text for: an f-string's)
            return _before(ast.BinOp(side, binop.op, ast.Name("_")))
        return _after(ast.BinOp(ast.Name("_"), binop.op, side), _op_text(binop.op))

    def broken(self, node: ast.expr, ind: int) -> list[str] | None:
        """``node`` over several lines, or None where its kind is not broken."""
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Pow):
            level = next(lv for lv in _LEVELS if isinstance(node.op, lv))
            terms = []
            cur: ast.expr = node
            while isinstance(cur.left, ast.BinOp) and isinstance(cur.left.op, level):
                terms.append((_op_text(cur.op), self.operand(cur, cur.right), cur.right))
                cur = cur.left
            terms.append((_op_text(cur.op), self.operand(cur, cur.right), cur.right))
            terms.append((None, self.operand(cur, cur.left), cur.left))
            return self.chain(terms[::-1], ind)
        if isinstance(node, ast.BoolOp):
            word = "and" if isinstance(node.op, ast.And) else "or"
            texts = [_after(ast.BoolOp(node.op, [ast.Name("_"), v]), word) for v in node.values]
            return self.chain(
                [(None if n == 0 else word, t, v) for n, (t, v) in enumerate(zip(texts, node.values))], ind
            )
        if isinstance(node, ast.Compare):
            terms = [(None, _before(ast.Compare(node.left, [node.ops[0]], [ast.Name("_")])), node.left)]
            for op, right in zip(node.ops, node.comparators, strict=True):
                terms.append((_op_word(op), _after(ast.Compare(ast.Name("_"), [op], [right]), _op_word(op)), right))
            return self.chain(terms, ind)
        if isinstance(node, ast.IfExp):
            blank = ast.Name("_")
            body = ast.unparse(ast.IfExp(blank, node.body, blank))[: -len(" if _ else _")]
            test = ast.unparse(ast.IfExp(node.test, blank, blank))[len("_ if ") : -len(" else _")]
            orelse = ast.unparse(ast.IfExp(blank, blank, node.orelse))[len("_ if _ else ") :]
            return self.chain([(None, body, node.body), ("if", test, node.test), ("else", orelse, node.orelse)], ind)
        if isinstance(node, ast.Call):
            head = ast.unparse(ast.Call(node.func, [], []))[:-1]
            if isinstance(node.func, ast.Attribute) and (
                not node.args and not node.keywords or len(head) > self.width // 2
            ):
                fitted = self.method_call(node, ind)
                if fitted is not None or not (node.args or node.keywords):
                    return fitted
            if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.List | ast.Tuple | ast.Dict):
                inner = self.broken(node.args[0], ind)  # np.stack([ ... ]): the brackets hug
                if inner is not None:
                    return [head + inner[0], *inner[1:-1], inner[-1] + ")"]
            args = [*node.args, *node.keywords]
            return self.items(head, [_item(a) for a in args], ")", ind)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            if not node.elts:
                return None
            opening, closing = {ast.List: "[]", ast.Tuple: "()", ast.Set: "{}"}[type(node)]
            return self.items(opening, [_item(e) for e in node.elts], closing, ind)
        if isinstance(node, ast.Dict):
            if not node.keys or any(k is None for k in node.keys):
                return None
            pairs = [(ast.unparse(k) + ": ", v) for k, v in zip(node.keys, node.values, strict=True)]
            return self.items("{", pairs, "}", ind)
        if isinstance(node, ast.Subscript):
            head = ast.unparse(ast.Subscript(node.value, ast.Name("_")))[:-2]
            if len(head) > self.width // 2:  # f(... long ...)[:-1]: the value broken, its index after it
                index = ast.unparse(ast.Subscript(ast.Name("_"), node.slice))[1:]
                value = self.suffixed(node.value, index, head.startswith("("), ind)
                if value is not None:
                    return value
            if isinstance(node.slice, ast.Tuple) and len(node.slice.elts) > 1:
                return self.items(head, [_item(e) for e in node.slice.elts], "]", ind)
            lines = [head + "["]
            inner = self.expr(node.slice, ind + _STEP, ind + _STEP, 0)
            return [*lines, " " * (ind + _STEP) + inner[0], *inner[1:], " " * ind + "]"]
        if isinstance(node, ast.Attribute):
            head = ast.unparse(ast.Attribute(node.value, "_"))[:-2]
            if head != ast.unparse(node.value):  # (a + b + ...).T: broken in its parentheses, .T after them
                return self.suffixed(node.value, "." + node.attr, True, ind)
            value = self.expr(node.value, ind, ind, 0)
            if len(value) == 1:
                return None
            value[-1] += "." + node.attr
            return value
        if isinstance(node, ast.UnaryOp):
            sign = ast.unparse(ast.UnaryOp(node.op, ast.Name("_")))[:-1]
            inner = self.broken(node.operand, ind)
            wrapped = ast.unparse(node)[len(sign) :].startswith("(") and not ast.unparse(node.operand).startswith("(")
            if inner is None or wrapped and inner[0] != "(":
                return None
            return [sign + inner[0], *inner[1:]]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.string(node.value, ind)
        return None

    def method_call(self, node: ast.Call, ind: int) -> list[str] | None:
        """``(a + b + ...).sum()`` whose object is too long: the object broken, ``.sum()`` after it."""
        func = node.func
        call = "." + func.attr + ast.unparse(ast.Call(ast.Name("_"), node.args, node.keywords))[1:]
        return self.suffixed(func.value, call, ast.unparse(ast.Attribute(func.value, "_")).startswith("("), ind)

    def suffixed(self, value: ast.expr, suffix: str, parenthesized: bool, ind: int) -> list[str] | None:
        """``value`` broken and ``suffix`` (``[:-1]``, ``.T``, ``.sum()``) after its last line; where the
        text around it puts ``value`` in parentheses it does not have itself (``parenthesized``, a
        chain's), only a break that starts with them keeps them (None otherwise)."""
        lines = self.broken(value, ind)
        if lines is None or parenthesized and not ast.unparse(value).startswith("(") and lines[0] != "(":
            return None
        lines[-1] += suffix
        return lines

    def chain(self, terms: list[tuple[str | None, str, ast.expr]], ind: int) -> list[str]:
        """``(`` then the terms of a chain (operator, text in the chain, expression), as many to a
        line as fit, each line after the first starting with its operator; ``)``."""
        inner = ind + _STEP
        pad = " " * inner
        lines: list[str] = []
        for op, text, node in terms:
            lead = "" if op is None else op + " "
            if lines and len(lines[-1]) + 1 + len(lead) + len(text) <= self.width:
                lines[-1] += " " + lead + text
            elif inner + len(lead) + len(text) <= self.width:
                lines.append(pad + lead + text)
            else:  # a term longer than a line: broken in turn (in parentheses where the chain has them)
                parts = self.broken(node, inner)
                if (
                    parts is None
                    or text.startswith("(")
                    and not self.texts.alone(node).startswith("(")
                    and parts[0] != "("
                ):
                    parts = [text]
                lines.append(pad + lead + parts[0])
                lines.extend(parts[1:])
        return ["(", *lines, " " * ind + ")"]

    def items(self, head: str, items: list[tuple[str, ast.expr | None]], closing: str, ind: int) -> list[str] | None:
        """``head`` then the items (each a prefix and an expression: ``k=``, ``"a": ``; a text and
        None for a parameter), ``closing``."""
        if not items:
            return None
        inner = ind + _STEP
        pad = " " * inner
        texts = [prefix + ("" if e is None else self.texts.alone(e)) for prefix, e in items]
        one = ", ".join(texts)
        comma = "," if closing == ")" and head == "(" and len(texts) == 1 else ""
        if inner + len(one) + len(comma) <= self.width:
            return [head, pad + one + comma, " " * ind + closing]
        lines: list[str] = []
        if all(len(t) <= SHORT_ITEM for t in texts):  # a row of numbers, of names
            for text in texts:
                if lines and len(lines[-1]) + 2 + len(text) <= self.width:
                    lines[-1] += " " + text + ","
                else:
                    lines.append(pad + text + ",")
            return [head, *lines, " " * ind + closing]
        for prefix, e in items:
            text = [""] if e is None else self.expr(e, inner, inner + len(prefix), 1)
            if len(text) > 2 and text[0] == "(" and isinstance(e, ast.BinOp | ast.BoolOp | ast.Compare | ast.IfExp):
                # a chain among the items: the brackets hold it, its own parentheses go
                self.width -= 1 + len(prefix)  # (room for the comma after the last line, the key before the first)
                try:
                    text = self.broken(e, inner - _STEP)[1:-1]
                finally:
                    self.width += 1 + len(prefix)
                text[0] = text[0].lstrip()
            lines.append(pad + prefix + text[0])
            lines.extend(text[1:])
            lines[-1] += ","
        return [head, *lines, " " * ind + closing]

    def string(self, value: str, ind: int) -> list[str] | None:
        """A long string as pieces Python joins again, cut after spaces, in parentheses."""
        room = self.width - ind - _STEP
        pieces: list[str] = []
        current = ""
        for word in value.split(" "):
            candidate = word if not current else current + " " + word
            if current and len(repr(candidate + " ")) > room:
                pieces.append(current + " ")
                current = word
            else:
                current = candidate
        pieces.append(current)
        if len(pieces) < 2 or "".join(pieces) != value:
            return None
        pad = " " * (ind + _STEP)
        return ["(", *(pad + repr(p) for p in pieces), " " * ind + ")"]


def _op_word(op: ast.cmpop) -> str:
    return ast.unparse(ast.Compare(ast.Name("a"), [op], [ast.Name("b")]))[2:-2]


def _after(whole: ast.BinOp | ast.BoolOp | ast.Compare, word: str) -> str:
    """The text of the right operand of ``_ OP right`` as it is written there (parenthesized where needed)."""
    return ast.unparse(whole)[len("_ " + word + " ") :]


def _before(whole: ast.BinOp | ast.Compare) -> str:
    """The text of the left operand of ``left OP _`` as it is written there."""
    text = ast.unparse(whole)
    if isinstance(whole, ast.Compare):
        return text[: -len(" " + _op_word(whole.ops[0]) + " _")]
    return text[: -len(" " + _op_text(whole.op) + " _")]


def _item(node: ast.expr) -> tuple[str, ast.expr]:
    """A call's argument or a literal's element: its prefix (``k=``, ``**``) and expression."""
    if isinstance(node, ast.keyword):
        return ("**" if node.arg is None else node.arg + "=", node.value)
    return ("", node)


def _tree(text: str) -> str:
    """The syntax tree of a module, its docstrings' whitespace collapsed (``_docstring`` rewraps them)."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and node.body and _is_docstring(node.body[0]):
            doc = node.body[0].value
            doc.value = " ".join(doc.value.split())
    return ast.dump(tree)
