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
        text = "return " + ", ".join(ast.unparse(e) for e in node.value.elts)
    elif isinstance(node, ast.Assign) and _one_item(node.targets[0]):  # (a,) = saved, not a, = saved
        text = f"({ast.unparse(node.targets[0].elts[0])},) = {ast.unparse(node.value)}"
    else:
        text = ast.unparse(node)
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


#: The prefix of the function each mode writes (``Facts.mode``).
PREFIXES = {"grad": "grad_", "vjp": "vjp_", "jacobian": "jac_", "jvp": "jvp_", "hvp": "hvp_", "hessian": "hess_"}


def function_name(tape: Tape) -> str:
    """``grad_NAME``, ``vjp_NAME`` or ``jac_NAME``: the function written for ``tape``."""
    return PREFIXES[tape.facts.mode] + tape.name


def returned(tape: Tape) -> str:
    """What ``grad_NAME`` returns, as its docstring says it: ``(f(x, y), dx, dy)``, or the
    gradients alone without the value (``(dx,)``); ``J_x`` for a Jacobian."""
    params = ", ".join(p.name for p in tape.params if p.name != tape.facts.seed and p.name not in tape.facts.tangents)
    if tape.facts.mode == "jvp":
        return f"({tape.name}({params}), dvalue)" if tape.facts.value else "(dvalue,)"
    prefix = "J_" if tape.facts.mode == "jacobian" else "d"
    grads = ", ".join(f"{prefix}{w}" for w in tape.facts.wrt)
    if tape.facts.mode in ("hvp", "hessian"):
        several = len(tape.facts.wrt) > 1  # (second_blocks: Hv_A, Hv_B, ...; H the nested blocks)
        products = ", ".join(f"Hv_{w}" for w in tape.facts.wrt) if several else "Hv"
        grads += ", " + products if tape.facts.mode == "hvp" else ", H"
        return f"({tape.name}({params}), {grads})" if tape.facts.value else f"({grads})"
    if not tape.facts.value:
        return f"({grads}{',' if len(tape.facts.wrt) == 1 else ''})"
    return f"({tape.name}({params}), {grads})"


def docstring(tape: Tape) -> str:
    """The docstring of ``grad_NAME`` (``vjp_NAME``, ``jac_NAME``)."""
    params = ", ".join(p.name for p in tape.params if p.name != tape.facts.seed and p.name not in tape.facts.tangents)
    value = f"{tape.name}({params})"
    mode = tape.facts.mode
    if mode == "jvp":
        products = " + ".join(f"J_{w} @ {t}" for w, t in zip(tape.facts.wrt, tape.facts.tangents, strict=True))
        if not tape.facts.value:
            return f'"""Return {returned(tape)}: dvalue = {products}, the Jacobians of {value} times the tangents."""'
        return f'"""Return {returned(tape)}: the value and dvalue = {products}, its Jacobians times the tangents."""'
    if mode == "vjp":
        what = f"dout (the shape of {value}) times its Jacobians"
        if not tape.facts.value:
            return f'"""Return {returned(tape)}: {what}."""'
        return f'"""Return {returned(tape)}: the value and {what}."""'
    if mode == "jacobian":
        w = tape.facts.wrt[0] if tape.facts.wrt else "x"
        what = f"the Jacobians of {value} (J_{w}.shape == np.shape({tape.name}(...)) + np.shape({w}))"
        # rows elementwise in w[0], w[1], ...: a batch of points, a Jacobian per point (Facts.batch)
        batch = (
            f" For a batch of points ({w}[0] an array), J_{w}[i, k] is d value[i] / d {w}[k] at each."
            * tape.facts.batch
        )
        if not tape.facts.value:
            return f'"""Return {returned(tape)}: {what}.{batch}"""'
        return f'"""Return {returned(tape)}: the value and its Jacobians (J_{w}.shape == np.shape(value) + np.shape({w})).{batch}"""'
    if mode in ("hvp", "hessian") and len(tape.facts.wrt) > 1:
        return _blocks_docstring(tape, value)
    if mode in ("hvp", "hessian"):
        w = tape.facts.wrt[0]
        what = f"Hv = H @ {tape.facts.tangents[0]}" if mode == "hvp" else f"H.shape == np.shape({w}) + np.shape({w})"
        what = f"the gradient and the Hessian H of {value} with respect to {w} ({what})"
        return f'"""Return {returned(tape)}: {"the value, " if tape.facts.value else ""}{what}."""'
    if not tape.facts.value:
        return f'"""Return {returned(tape)}: the gradients of {value}."""'
    return f'"""Return {returned(tape)}: the value and its gradients."""'


def _blocks_docstring(tape: Tape, value: str) -> str:
    """The docstring of ``hvp_NAME`` and ``hess_NAME`` with respect to several parameters (``transform.second_blocks``)."""
    wrt = tape.facts.wrt
    if tape.facts.mode == "hvp":
        sums = [" + ".join(f"H_{a}_{b} @ {t}" for b, t in zip(wrt, tape.facts.tangents, strict=True)) for a in wrt]
        what = "; ".join(f"Hv_{a} = {s}" for a, s in zip(wrt, sums, strict=True))
        what = f"times ({', '.join(tape.facts.tangents)}) by blocks: {what}"
    else:
        rows = ", ".join("(" + ", ".join(f"H_{a}_{b}" for b in wrt) + ")" for a in wrt)
        a, b = wrt[0], wrt[1]
        what = f"by blocks: H = ({rows}), H_{a}_{b}.shape == np.shape({a}) + np.shape({b})"
    what = f"the gradients and the Hessian H of {value} with respect to ({', '.join(wrt)}), {what}"
    return f'"""Return {returned(tape)}: {"the value, " if tape.facts.value else ""}{what}."""'
