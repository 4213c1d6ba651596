"""``--buffers``: the written functions (their tapes and statements) in, a buffered class per function out.

For each ``grad_NAME`` a class ``GradNAME`` is added whose instances are called like
``grad_NAME`` and return the same ``(value, *grads)``.  An instance keeps, per shapes and
dtypes of its arguments, one array per array result of an elementwise operation or matrix
product at the top level of the function, and writes that result into it with ``out=`` at
every later call with those shapes::

    _t1 = X @ w if _b[0] is None else np.matmul(X, w, out=_b[0])

The class is written from the statements the writer made for ``grad_NAME`` (``statements.Line``:
``ast`` nodes, never the printed text): each statement that assigns a name the function assigns
once is split so that each buffered operation in it is a statement of its own; the others are
kept as they are.  The first call with new shapes runs the plain expressions (``_b[k]`` is None)
and, when it returns, keeps the results that are arrays as the buffers; a result that is a
number stays ``None`` and is computed per call.  Two results share an array only when they have
the same shape and dtype and the first one's life (up to the last statement reading it, or
reading a name that may alias it) ends before the second is computed, so a buffer is never an
input of the operation that writes it; it is never a view of an argument (the first call's
results are new arrays).  An argument that is (a view of) one of the buffers (a gradient of the
previous call passed back in) is copied first.  The returned gradients may be the buffers
themselves: the next call with the same shapes overwrites them.  Also written into buffers: the
matrix case of ``_matmul_dx``/``_matmul_dy`` (and ``_dot_dx``/``_dot_dy``) and ``np.full_like``/``np.zeros_like``/
``_grad_zeros`` (refilled).  The helpers the classes use are in ``runtime/buffers.py``.

A function whose intermediate shapes may depend on the values and not only on the argument
shapes (``if``/``while``, a boolean mask, a loop with a computed trip count), or with nothing
to buffer, keeps the plain code: its class calls ``grad_NAME``.

    >>> import textwrap
    >>> from yota_s2s.pipeline import generate
    >>> text = generate("import numpy as np\\ndef f(x):\\n    return np.sum(np.exp(x))\\n", "f.py", buffers=True).text
    >>> print(textwrap.dedent(text[text.index("    def __call__") :].split("# ----")[0]).strip())
    def __call__(self, x):
        \"\"\"Return (f(x), dx) as grad_f does, into the buffers of these argument shapes.\"\"\"
        _b = self.buffers.get(_key := _shape_key(x))
        _first = _b is None
        if _first:
            _b = [None] * 1
        elif not self.owners[_key]:  # no array to reuse with these shapes: the plain code
            return grad_f(x)
        else:
            (x,) = _detached(self.owners[_key], x)
        _real_args('grad_f', ('x',), (), x)  # the rules hold for real floats
        # forward
        # return np.sum(np.exp(x))
        _t1 = np.exp(x) if _b[0] is None else np.exp(x, out=_b[0])
        f = _t1.sum()
        if _first:  # this call's arrays: the buffers of these shapes
            self.buffers[_key], self.owners[_key] = _kept(self.lives, _t1)
        return f, _t1
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..ir.core import Lit, Tape, Var
from ..ir.modes import returned
from ..ir.primitives import primitive
from ..ir.regions import VALUE_SHAPED, all_tapes
from .layout import WIDTH
from .naming import Names, counted, primed
from .statements import Else, Line, chunks, parsed
from .target import Backend
from .ufunc import is_atom, rebuild, ufunc_call

#: Calls whose result is a number when they have no axis (their user's operation is not buffered).
_REDUCTIONS = frozenset(["sum", "mean", "max", "min", "prod", "std", "var", "size", "ndim", "vdot", "trace"])
#: Calls that fill an array of a given shape with one value, written as ``_filled`` into a buffer.
_FILLS = frozenset({"full_like", "zeros_like", "_grad_zeros", "_unreduce"})
#: The adjoints of a product that are one matrix product for matrices (``np.dot`` of matrices is
#: ``@``): ``g @ y.T`` for the left operand ("x"), ``x.T @ g`` for the right ("y").
_PRODUCT_ADJOINTS = {"_matmul_dx": "x", "_matmul_dy": "y", "_dot_dx": "x", "_dot_dy": "y"}
#: The runtime helpers of the classes, in the order they are written (``_filled`` only when used).
RUNTIME = ("_shape_key", "_value_key", "_detached", "_kept", "_filled")


@dataclass
class Written:
    """A function the writer wrote: its tape, its signature's text and its statements."""

    tape: Tape
    name: str
    signature: str
    lines: list[Line]


def buffered_classes(
    functions: list[Written], taken: set[str], backend: Backend, spelling: Mapping[str, str] = MappingProxyType({})
) -> tuple[list[str], list[str], bool]:
    """The source of the buffered class of each function, the runtime helpers they use (in
    order), and whether they call the array module (``np.multiply(..., out=...)``) where their
    functions do not.  ``taken`` holds the names the module uses already; ``spelling`` the
    module's names of the helpers a parameter hides (``naming.module_spelling``)."""
    names = Names(taken)
    classes = []
    filled = reads_alias = False
    for fn in functions:  # grad_my_loss -> GradMyLoss (GradMyLoss2 if that is taken)
        name = names.fresh("Grad" + "".join(part[:1].upper() + part[1:] for part in fn.tape.name.split("_")), counted)
        written = _BufferedClass(fn, backend, name, names.taken, spelling)
        classes.append(written.source())
        filled |= written.filled
        reads_alias |= written.reads_alias
    helpers = [h for h in RUNTIME if h != "_filled" or filled]
    return classes, helpers, reads_alias


def plain_reason(tape: Tape, lines: list[Line]) -> str | None:
    """Why the function keeps the plain code (None: it is buffered)."""
    if any(isinstance(n, ast.Return) for line in lines[:-1] for n in ast.walk(line.node)):
        return "it returns from inside a block"
    sizes: set[int] = {i.var.id for i in tape.inputs}
    indexes: set[int] = set()
    eqns = [e for t in all_tapes(tape) for e in t.eqns]
    for eqn in eqns:
        if eqn.prim in ("for", "for_back"):
            indexes.add(eqn.regions[-1].inputs[0].var.id)
        static = primitive(eqn.prim).python_value or (
            eqn.prim in ("getindex", "add", "sub", "mul") and all(isinstance(a, Lit) or a.id in sizes for a in eqn.args)
        )
        if static:
            sizes.update(o.id for o in eqn.outs)
    for eqn in eqns:
        if eqn.prim in VALUE_SHAPED or primitive(eqn.prim).value_shaped:
            return f"its shapes may depend on the values ({eqn.prim})"
        if eqn.prim in ("for", "for_back"):
            bounds = eqn.args[:3]
            if not all(isinstance(a, Lit) or a.id in sizes or a.id in indexes for a in bounds):
                return "a loop's trip count is computed from the values"
        first = primitive(eqn.prim).index_from
        if first is not None:
            dynamic = [a for a in eqn.args[first:] if isinstance(a, Var)]
            if any(a.id not in sizes and a.id not in indexes for a in dynamic):
                return "an index is computed from the values (it may be a mask)"
    return None


def statements(lines: list[Line]) -> list[list[Line]]:
    """The top-level statements of a function body: each a line and the lines of its body."""
    groups: list[list[Line]] = []
    for line in lines:
        if line.depth == 0 and not isinstance(line.node, Else):
            groups.append([])
        groups[-1].append(line)
    return groups


class _BufferedClass:
    """The class of one function: its text (``source``), made from the function's statements."""

    def __init__(self, fn: Written, backend: Backend, name: str, taken: set[str], spelling: Mapping[str, str]):
        self.fn = fn
        self.spell = lambda helper: spelling.get(helper, helper)  # a helper's name in the module
        self.tape = fn.tape
        self.backend = backend
        self.name = name
        self.names = Names(taken)
        self.slots = 0
        self.kept: list[str] = []  # the name holding each slot's result
        self.slot_names: list[str] = []
        self.events: list[tuple[set[str], set[str]]] = []  # per statement of the body: names read, written
        self.defined_at: dict[str, int] = {}  # a slot's name -> the statement computing it
        self.scalars: set[str] = set()
        self.assigned: dict[str, int] = {}  # how many times each name is assigned
        self.filled = False  # a buffer is refilled with one value (_filled)
        self.reads_alias = False  # an operation is written as the array module's (np.multiply(..., out=...))
        self.groups = [[parsed(line.node) for line in group] for group in statements(fn.lines)]
        for node in (n for group in self.groups for stmt in group for n in ast.walk(stmt)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.assigned[node.id] = self.assigned.get(node.id, 0) + 1

    def source(self) -> str:
        name, params = self.fn.name, [p.name for p in self.tape.params]
        returns = returned(self.tape)
        reason = plain_reason(self.tape, self.fn.lines)
        self.names.take(*params)
        self_name = self.names.fresh("self", primed)
        call_args = ", ".join(params)
        head = [
            f"class {self.name}:",
            _class_doc(name, returns, reason),
            "",
            f"    def __init__({self_name}):",
            f"        {self_name}.buffers = {{}}  # shapes of the arguments -> one array (or None) per buffered result",
            f"        {self_name}.owners = {{}}  # shapes of the arguments -> the ids of those arrays",
            "",
            f"    def clear({self_name}):",
            '        """Free the buffers (the next call allocates them again)."""',
            f"        {self_name}.buffers.clear()",
            f"        {self_name}.owners.clear()",
            "",
            f"    def __call__({self_name}, {self.fn.signature}):",
            f'        """Return {returns} as {name} does, into the buffers of these argument shapes."""',
        ]
        if reason is not None:
            return "\n".join([*head, f"        return {self.spell(name)}({call_args})"])
        buf, key, first = (self.names.fresh(n, primed) for n in ("_b", "_key", "_first"))
        self.self_name, self.key = self_name, key
        body = self.body(buf, first)
        if not self.slots:
            head[1] = _class_doc(name, returns, "it has no array operation outside its loops and branches")
            return "\n".join([*head, f"        return {self.spell(name)}({call_args})"])
        unpack = f"({call_args},)" if len(params) == 1 else call_args
        prologue = [
            f"        {buf} = {self_name}.buffers.get({key} := {self.spell('_shape_key')}({call_args}))",
            f"        {first} = {buf} is None",
            f"        if {first}:",
            f"            {buf} = [None] * {self.slots}",
        ]
        lives = ", ".join(f"({a}, {b})" for a, b in self.lives())
        head[head.index("") + 1 : head.index("") + 1] = [
            "    #: for each buffered result: (the statement of __call__ computing it, the last one reading it or",
            "    #: an alias of it); results of the same shape and dtype whose lives do not overlap share an array",
            f"    lives = ({lives}{',' if len(self.slot_names) == 1 else ''})",
            "",
        ]
        prologue += [
            f"        elif not {self_name}.owners[{key}]:  # no array to reuse with these shapes: the plain code",
            f"            return {self.spell(name)}({call_args})",
        ]
        if params:
            prologue += [
                "        else:",
                f"            {unpack} = {self.spell('_detached')}({self_name}.owners[{key}], {call_args})",
            ]
        return "\n".join([*head, *prologue, *body])

    def body(self, buf: str, first: str) -> list[str]:
        """The lines of ``__call__``'s body after the prologue: the function's statements, each
        buffered operation of a statement that assigns a name once written into a buffer."""
        out: list[str] = []
        texts = iter(chunks(self.fn.lines, self.tape.name, indent=2))
        for group in self.groups:
            stmt = group[0]
            lines = [next(texts) for _ in group]
            out.extend(lines[0][0])  # the comments before the statement
            original = [*lines[0][1], *(text for comments, statement in lines[1:] for text in (*comments, *statement))]
            if isinstance(stmt, ast.Return):
                out.extend(self.keep(first))
                out.extend(original)
                self.events.append(_reads_writes(stmt))
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and self.assigned.get(stmt.targets[0].id) == 1
            ):
                out.extend(self.assignment(stmt, buf) or original)
            else:
                out.extend(original)
                self.events.append(_reads_writes(stmt if len(group) == 1 else ast.Module(group, [])))
        return out

    def keep(self, first: str) -> list[str]:
        """The statement that keeps a first call's arrays as the buffers (before the return)."""
        if not self.slots:
            return []
        me, key = self.self_name, self.key
        kept = f"            {me}.buffers[{key}], {me}.owners[{key}] = {self.spell('_kept')}("
        line = f"{kept}{me}.lives, {', '.join(self.kept)})"
        if len(line) > 110:  # one result a line
            line = f"{kept}\n                {me}.lives,\n"
            line += "".join(f"                {k},\n" for k in self.kept)
            line += "            )"
        return [f"        if {first}:  # this call's arrays: the buffers of these shapes", line]

    def assignment(self, stmt: ast.Assign, buf: str) -> list[str] | None:
        """``name = value`` with the buffered operations of ``value`` split out, or None when it
        has none (the statement stays as it was)."""
        target = stmt.targets[0].id
        new: list[ast.stmt] = []
        slots = self.slots
        if self.scalar_like(stmt.value):
            self.scalars.add(target)
        value = self.split(stmt.value, new, buf, target)
        new.append(ast.Assign([ast.Name(target, ast.Store())], value, lineno=0))
        if self.slots == slots:  # nothing buffered
            self.events.append(_reads_writes(stmt))
            return None
        for s in new:
            name = s.targets[0].id
            if name in self.slot_names:
                self.defined_at[name] = len(self.events)
                self.events.append((_reads_writes(s)[0], set()))  # a new array: no alias
            else:
                self.events.append(_reads_writes(s))
        return ["        " + ast.unparse(s) for s in new]

    def lives(self) -> list[tuple[int, int]]:
        """(the statement computing it, the last statement reading it or a name that may share its
        array) of each slot's result."""
        lives = []
        for name in self.slot_names:
            start = self.defined_at[name]
            alias, last = {name}, start
            for i in range(start + 1, len(self.events)):
                reads, writes = self.events[i]
                if reads & alias:
                    last = i
                    alias |= writes - self.scalars - {self.backend.alias}  # a number shares no array
            lives.append((start, last))
        return lives

    def scalar_like(self, node: ast.expr) -> bool:
        """``node`` is a number when the plain code runs (a constant, a full reduction, ...)."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.scalars
        if isinstance(node, ast.UnaryOp):
            return self.scalar_like(node.operand)
        if isinstance(node, ast.BinOp):
            return self.scalar_like(node.left) and self.scalar_like(node.right)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call | ast.Attribute):
            shape = node.value.func if isinstance(node.value, ast.Call) else node.value
            return isinstance(shape, ast.Attribute) and shape.attr == "shape"  # np.shape(x)[0], x.shape[0]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in ("len", "int", "float")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):  # np.sum(x) or x.sum()
            of_module = isinstance(node.func.value, ast.Name) and node.func.value.id == self.backend.alias
            return node.func.attr in _REDUCTIONS and not node.keywords and len(node.args) == int(of_module)
        return False

    def ufunc_of(self, node: ast.expr) -> tuple[str, list[ast.expr]] | None:
        """The ufunc ``node`` calls and its operands, when it can be written with ``out=``; or
        the adjoints of a product (``_matmul_dx``, ``_dot_dy``, ...), ``full_like``, ``zeros_like``,
        ``_grad_zeros`` (written by ``into``)."""
        if isinstance(node, ast.Call) and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
            func = node.func
            if isinstance(func, ast.Name) and func.id in _PRODUCT_ADJOINTS and len(node.args) == 3:
                return func.id, list(node.args)
            if isinstance(func, ast.Name) and func.id == "_unreduce" and len(node.args) == 2:
                return "_unreduce", list(node.args)  # _unreduce(g, x): x's shape filled with g
            if isinstance(func, ast.Name) and func.id == "_grad_zeros" and len(node.args) == 1:
                return "_grad_zeros", list(node.args)
            alias = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            fills = {"full_like": 2, "zeros_like": 1}
            if alias and func.value.id == self.backend.alias and len(node.args) == fills.get(func.attr):
                return func.attr, list(node.args)
        return ufunc_call(node, self.backend.alias)

    def split(self, node: ast.expr, new: list[ast.stmt], buf: str, target: str | None = None) -> ast.expr:
        """``node`` with each buffered operation in it written as a statement of its own (into ``new``)."""
        found = self.ufunc_of(node)
        if found is None:
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute):  # the value of a method call: (a * b).sum()
                    node.func.value = self.split(node.func.value, new, buf)
                node.args = [self.split(a, new, buf) for a in node.args]
                for k in node.keywords:
                    k.value = self.split(k.value, new, buf)
            elif isinstance(node, ast.Tuple | ast.List):
                node.elts = [self.split(a, new, buf) for a in node.elts]
            return node
        name, operands = found
        simple = [self.operand(a, new, buf) for a in operands]
        if all(self.scalar_like(a) for a in simple) and name not in _FILLS:
            plain = rebuild(node, simple)
            if target is None:
                result = self.names.temp("_u")
                self.scalars.add(result)
                new.append(ast.Assign([ast.Name(result, ast.Store())], plain, lineno=0))
                return ast.Name(result, ast.Load())
            return plain
        if name in _PRODUCT_ADJOINTS and not all(self.stable(a) for a in simple[1:]):
            plain = rebuild(node, simple)
            if target is not None:
                return plain
            result = self.names.temp("_u")
            new.append(ast.Assign([ast.Name(result, ast.Store())], plain, lineno=0))
            return ast.Name(result, ast.Load())
        slot = self.slots
        self.slots += 1
        result = target or self.names.temp("_u")
        where = ast.Subscript(ast.Name(buf, ast.Load()), ast.Constant(slot), ast.Load())
        into = self.into(name, simple, where)
        kept = result
        if name in _PRODUCT_ADJOINTS:  # the helper computes a matrix product for matrices only
            x, y = (ast.unparse(a) for a in simple[1:])
            alias = self.backend.alias
            kept = f"{result} if {alias}.ndim({x}) == 2 and {alias}.ndim({y}) == 2 else None"
            self.reads_alias = True
        self.kept.append(kept)
        self.slot_names.append(result)
        test = ast.Compare(where, [ast.Is()], [ast.Constant(None)])
        value = ast.IfExp(test, rebuild(node, simple), into)
        if target is not None:
            return value
        new.append(ast.Assign([ast.Name(result, ast.Store())], value, lineno=0))
        return ast.Name(result, ast.Load())

    def operand(self, node: ast.expr, new: list[ast.stmt], buf: str) -> ast.expr:
        """An operand of a buffered operation, as a name or a constant (evaluated once)."""
        if is_atom(node):
            return node
        value = self.split(node, new, buf)
        if is_atom(value):
            return value
        result = self.names.temp("_u")
        if self.scalar_like(value):
            self.scalars.add(result)
        new.append(ast.Assign([ast.Name(result, ast.Store())], value, lineno=0))
        return ast.Name(result, ast.Load())

    def into(self, name: str, operands: list[ast.expr], where: ast.expr) -> ast.expr:
        """The operation ``name`` on ``operands``, written into the buffer ``where``."""
        out = [ast.keyword("out", where)]
        self.reads_alias |= name not in _FILLS
        if _PRODUCT_ADJOINTS.get(name) == "x":  # g @ y.T for matrices
            g, _, y = operands
            return ast.Call(self.backend.attr("matmul"), [g, ast.Attribute(y, "T", ast.Load())], out)
        if _PRODUCT_ADJOINTS.get(name) == "y":  # x.T @ g for matrices
            g, x, _ = operands
            return ast.Call(self.backend.attr("matmul"), [ast.Attribute(x, "T", ast.Load()), g], out)
        if name in _FILLS:
            self.filled = True
            value = {"full_like": operands[-1], "_unreduce": operands[0]}.get(name, ast.Constant(0))
            return ast.Call(ast.Name(self.spell("_filled"), ast.Load()), [where, value], [])
        return ast.Call(self.backend.attr(name), operands, out)

    def stable(self, node: ast.expr) -> bool:
        """``node`` has the same value at the end of the function (read by the record of the buffers)."""
        return all(
            self.assigned.get(n.id, 0) <= 1
            for n in ast.walk(node)
            if isinstance(n, ast.Name) and n.id != self.backend.alias
        )


def _class_doc(name: str, returns: str, reason: str | None) -> str:
    """The docstring of a buffered class; ``reason`` says why it keeps the plain code, if it does."""
    if reason is not None:  # (lines of at most layout.WIDTH characters: a name may be long)
        first = f'"""``{name}``, computed per call: this function keeps the plain code ({reason}).'
        second = f"An instance is called like ``{name}`` and returns the same {returns} (fresh arrays)."
        wrap = functools.partial(textwrap.fill, width=WIDTH, initial_indent="    ", subsequent_indent="    ")
        return f'{wrap(first)}\n\n{wrap(second)}\n    """'

    first = f'"""``{name}`` with buffers: an instance is called like it and returns the same {returns}.'
    return (
        textwrap.fill(first, width=WIDTH, initial_indent="    ", subsequent_indent="    ") + "\n\n"
        "    Array results of elementwise operations and matrix products are written (``out=``) into arrays\n"
        "    allocated by the first call with given argument shapes and dtypes, and reused by the later calls\n"
        "    with the same ones.  The returned gradients may be these arrays: the next call with the same\n"
        "    shapes OVERWRITES them; copy a gradient (np.copy) to keep it.  ``clear()`` frees the buffers.\n"
        '    """'
    )


def _reads_writes(stmt: ast.AST) -> tuple[set[str], set[str]]:
    """The names a statement reads, and those it (re)binds or changes (``a[i] = v``, ``a.append(v)``)."""
    reads, writes = set(), set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            (writes if isinstance(node.ctx, ast.Store | ast.Del) else reads).add(node.id)
        elif isinstance(node, ast.Subscript | ast.Attribute) and not isinstance(node.ctx, ast.Load):
            writes.update(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            writes.update(n.id for n in ast.walk(node.func.value) if isinstance(n, ast.Name))
    return reads, writes
