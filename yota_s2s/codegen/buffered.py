"""``--buffers``: the generated module (text) and its tapes in, the same module plus a buffered class out.

For each ``grad_NAME`` the module keeps, a class ``GradNAME`` is added whose instances are
called like ``grad_NAME`` and return the same ``(value, *grads)``.  An instance keeps, per
shapes and dtypes of its arguments, one array per array result of an elementwise operation or
matrix product at the top level of the function, and writes that result into it with ``out=``
at every later call with those shapes::

    _t1 = X @ w if _b[0] is None else np.matmul(X, w, out=_b[0])

The first call with new shapes runs the plain expressions (``_b[k]`` is None) and, when it
returns, keeps the results that are arrays as the buffers; a result that is a number stays
``None`` and is computed per call.  Only names the plain code assigns once get a buffer.  Two
results share an array only when they have the same shape and dtype and the first one's life
(up to the last statement reading it, or reading a name that may alias it) ends before the
second is computed, so a buffer is never an input of the operation that writes it; it is never a
view of an argument (the first call's results are new arrays).  An argument that is (a view of)
one of the buffers (a gradient of the previous call passed back in) is copied first.  The
returned gradients may be the buffers themselves: the next call with the same shapes overwrites
them.  Also written into buffers: the matrix case of ``_matmul_dx``/``_matmul_dy`` and
``np.full_like``/``np.zeros_like``/``_grad_zeros`` (refilled).

A function whose intermediate shapes may depend on the values and not only on the argument
shapes (``if``/``while``, a boolean mask, a loop with a computed trip count), or with nothing
to buffer, keeps the plain code: its class calls ``grad_NAME``.

    >>> import textwrap
    >>> from yota_s2s.pipeline import generate
    >>> text = generate("import numpy as np\\ndef f(x):\\n    return np.sum(np.exp(x))\\n", "f.py", buffers=True).text
    >>> print(textwrap.dedent(text[text.index("    def __call__") :]).strip())
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

from ..ir.core import Lit, Tape, Var
from ..ir.primitives import BINOPS, PRIMITIVES, primitive
from ..ir.regions import VALUE_SHAPED, all_tapes
from .target import Backend

#: Python operators written as the ufunc they call (``a ** 2`` is ``np.square``, as NumPy does it).
_OPERATORS = {p.operator: p.ufunc for p in PRIMITIVES.values() if p.ufunc and p.operator in BINOPS}
#: ``np.NAME(a, ...)`` calls that take ``out=`` and return a new array of the broadcast shape.
_UFUNCS = frozenset(p.ufunc for p in PRIMITIVES.values() if p.ufunc)
#: Calls whose result is a number when they have no axis (their user's operation is not buffered).
_REDUCTIONS = frozenset(["sum", "mean", "max", "min", "prod", "std", "var", "size", "ndim", "vdot", "trace"])
#: Calls that fill an array of a given shape with one value, written as ``_filled`` into a buffer.
_FILLS = frozenset({"full_like", "zeros_like", "_grad_zeros", "_unreduce"})

_RUNTIME = '''
def _shape_key(*args):
    """What fixes the shapes of the intermediate arrays: each array's shape and dtype, each
    integer's value (it may be a size), each other number's type; lists, tuples, dicts and objects
    by their items."""
    return tuple((a.shape, a.dtype) if type(a) is np.ndarray else _value_key(a) for a in args)


def _value_key(a):
    if isinstance(a, np.ndarray):
        return (type(a), a.shape, a.dtype)
    if isinstance(a, bool | int | str | None):
        return (type(a), a)
    if isinstance(a, float | complex | np.generic):
        return type(a)
    if isinstance(a, list | tuple):
        return (type(a), _shape_key(*a))
    if isinstance(a, dict):
        return (dict, tuple(a), _shape_key(*a.values()))
    fields = vars(a)
    return (type(a), tuple(fields), _shape_key(*fields.values()))


def _detached(owners, *args):
    """The arguments, each one that is a buffer (or a view of one: ``owners`` holds the buffers'
    ids) copied: the buffers are written before the arguments are read."""
    return tuple(np.copy(a) if id(a) in owners or id(getattr(a, "base", None)) in owners else a for a in args)


def _kept(lives, *results):
    """The buffers a first call leaves, and their ids: its arrays (None for a number, computed at
    every call).  ``lives[k]`` is (the statement computing result k, the last statement reading it):
    a result takes the array of an earlier one of the same shape and dtype whose life has ended."""
    buffers, ended = [], []  # ended: (the last statement reading it, an array)
    for (start, end), r in zip(lives, results):
        if type(r) is not np.ndarray:
            buffers.append(None)
            continue
        for i, (last, b) in enumerate(ended):
            if last < start and b.shape == r.shape and b.dtype == r.dtype:
                r = ended.pop(i)[1]
                break
        buffers.append(r)
        ended.append((end, r))
    return buffers, {id(b) for b in buffers if b is not None}


def _filled(buffer, value):
    """``buffer`` set to ``value`` (broadcast), as ``np.full_like`` does it, into a buffer."""
    np.copyto(buffer, value, casting="unsafe")
    return buffer
'''


def buffered_module(text: str, plain: str, tapes: list[Tape], backend: Backend) -> str:
    """``text`` (the module for ``tapes``) with the buffered class of each function added.

    The classes are made from ``plain``, the same module without column blocks (``columns``):
    the buffers are the whole arrays, allocated once.
    """
    tree = ast.parse(plain)
    lines = plain.splitlines()
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    taken = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)} | set(functions)
    taken |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arg) for a in [n]}
    classes = []
    for tape in tapes:
        fn = functions[f"grad_{tape.name}"]
        name = _class_name(tape.name, taken)
        taken.add(name)
        classes.append(_BufferedClass(fn, lines, tape, backend, name, taken).source())
    runtime = _RUNTIME.strip().replace("np.", f"{backend.alias}.")
    if not any("_filled(" in c for c in classes):
        runtime = runtime[: runtime.index("\n\n\ndef _filled")]
    return text.rstrip("\n") + "\n\n\n" + runtime + "\n\n\n" + "\n\n\n".join(classes) + "\n"


def _class_name(func: str, taken: set[str]) -> str:
    """``grad_my_loss`` -> ``GradMyLoss`` (a suffix if that name is taken)."""
    base = "Grad" + "".join(part[:1].upper() + part[1:] for part in func.split("_"))
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{n}"
    return name


def plain_reason(tape: Tape, fn: ast.FunctionDef) -> str | None:
    """Why the function keeps the plain code (None: it is buffered)."""
    if any(isinstance(n, ast.Return) for s in fn.body[:-1] for n in ast.walk(s)):
        return "it returns from inside a block"
    sizes: set[int] = {i.var.id for i in tape.inputs}
    indexes: set[int] = set()
    eqns = [e for t in all_tapes(tape) for e in t.eqns]
    for eqn in eqns:
        if eqn.prim in ("for", "for_back"):
            indexes.add(eqn.regions[-1].inputs[0].var.id)
        static = primitive(eqn.prim).python_value or (
            eqn.prim in ("getindex", "add", "sub", "mul", "floordiv")
            and all(isinstance(a, Lit) or a.id in sizes for a in eqn.args)
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


class _BufferedClass:
    def __init__(self, fn: ast.FunctionDef, lines: list[str], tape: Tape, backend: Backend, name: str, taken: set[str]):
        self.fn = fn
        self.lines = lines
        self.tape = tape
        self.backend = backend
        self.name = name
        self.taken = set(taken)
        self.slots = 0
        self.kept: list[str] = []  # the name holding each slot's result
        self.slot_names: list[str] = []
        self.events: list[tuple[set[str], set[str]]] = []  # per statement of the body: names read, written
        self.defined_at: dict[str, int] = {}  # a slot's name -> the statement computing it
        self.temps = 0
        self.scalars: set[str] = set()
        self.assigned: dict[str, int] = {}  # how many times each name is assigned
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.assigned[node.id] = self.assigned.get(node.id, 0) + 1

    def fresh(self, base: str) -> str:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def temp(self) -> str:
        while True:
            self.temps += 1
            name = f"_u{self.temps}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def source(self) -> str:
        fn = self.fn
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        signature = ast.unparse(fn.args)
        value_doc = ast.get_docstring(fn) or ""
        returns = value_doc.split(":")[0].removeprefix("Return ").strip()
        reason = plain_reason(self.tape, fn)
        self.taken.update(params)
        self_name = self.fresh("self")
        call_args = ", ".join(params)
        doc = (
            f'    """``{fn.name}`` with buffers: an instance is called like it and returns the same {returns}.\n\n'
            "    Array results of elementwise operations and matrix products are written (``out=``) into arrays\n"
            "    allocated by the first call with given argument shapes and dtypes, and reused by the later calls\n"
            "    with the same ones.  The returned gradients may be these arrays: the next call with the same\n"
            "    shapes OVERWRITES them; copy a gradient (np.copy) to keep it.  ``clear()`` frees the buffers.\n"
            '    """'
        )
        if reason is not None:
            doc = (
                f'    """``{fn.name}``, computed per call: this function keeps the plain code ({reason}).\n\n'
                f"    An instance is called like ``{fn.name}`` and returns the same {returns} (fresh arrays).\n"
                '    """'
            )
        head = [
            f"class {self.name}:",
            doc,
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
            f"    def __call__({self_name}, {signature}):",
            f'        """Return {returns} as {fn.name} does, into the buffers of these argument shapes."""',
        ]
        if reason is not None:
            return "\n".join([*head, f"        return {fn.name}({call_args})"])
        buf, key, first = self.fresh("_b"), self.fresh("_key"), self.fresh("_first")
        self.self_name, self.key = self_name, key
        body = self.body(buf, first)
        if not self.slots:
            reason = "it has no array operation outside its loops and branches"
            head[1] = (
                f'    """``{fn.name}``, computed per call: this function keeps the plain code ({reason}).\n\n'
                f"    An instance is called like ``{fn.name}`` and returns the same {returns} (fresh arrays).\n"
                '    """'
            )
            return "\n".join([*head, f"        return {fn.name}({call_args})"])
        unpack = f"({call_args},)" if len(params) == 1 else call_args
        prologue = [
            f"        {buf} = {self_name}.buffers.get({key} := _shape_key({call_args}))",
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
            f"            return {fn.name}({call_args})",
        ]
        if params:
            prologue += ["        else:", f"            {unpack} = _detached({self_name}.owners[{key}], {call_args})"]
        return "\n".join([*head, *prologue, *body])

    def body(self, buf: str, first: str) -> list[str]:
        fn = self.fn
        stmts = fn.body[1:] if ast.get_docstring(fn) is not None else fn.body
        assigned = self.assigned
        out: list[str] = []
        start = stmts[0].lineno if stmts else fn.end_lineno + 1
        # comments between the docstring and the first statement
        first_line = (fn.body[0].end_lineno + 1) if ast.get_docstring(fn) is not None else fn.lineno + 1
        out.extend(_indent(self.lines[first_line - 1 : start - 1]))
        for n, stmt in enumerate(stmts):
            end = stmts[n + 1].lineno - 1 if n + 1 < len(stmts) else fn.end_lineno
            original = self.lines[stmt.lineno - 1 : stmt.end_lineno]
            trailing = self.lines[stmt.end_lineno : end]
            if isinstance(stmt, ast.Return):
                if self.slots:
                    out.append(f"        if {first}:  # this call's arrays: the buffers of these shapes")
                    me, key = self.self_name, self.key
                    kept = f"            {me}.buffers[{key}], {me}.owners[{key}] = _kept("
                    line = f"{kept}{me}.lives, {', '.join(self.kept)})"
                    if len(line) > 110:  # one result a line
                        line = f"{kept}\n                {me}.lives,\n"
                        line += "".join(f"                {k},\n" for k in self.kept)
                        line += "            )"
                    out.append(line)
                out.extend(_indent(original))
                self.events.append(_reads_writes(stmt))
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and assigned.get(stmt.targets[0].id) == 1
            ):
                target = stmt.targets[0].id
                new: list[ast.stmt] = []
                slots = self.slots
                if self.scalar_like(stmt.value):
                    self.scalars.add(target)
                value = self.split(stmt.value, new, buf, target)
                new.append(ast.Assign([ast.Name(target, ast.Store())], value, lineno=0))
                if self.slots == slots:  # nothing buffered: the statement as it was
                    out.extend(_indent(original))
                    self.events.append(_reads_writes(stmt))
                else:
                    out.extend("        " + ast.unparse(s) for s in new)
                    for s in new:
                        name = s.targets[0].id
                        if name in self.slot_names:
                            self.defined_at[name] = len(self.events)
                            self.events.append((_reads_writes(s)[0], set()))  # a new array: no alias
                        else:
                            self.events.append(_reads_writes(s))
            else:
                out.extend(_indent(original))
                self.events.append(_reads_writes(stmt))
            out.extend(_indent(trailing))
        return out

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
        ``_matmul_dx``, ``_matmul_dy``, ``full_like``, ``zeros_like``, ``_grad_zeros`` (written by ``into``)."""
        if isinstance(node, ast.Call) and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("_matmul_dx", "_matmul_dy") and len(node.args) == 3:
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
                result = self.temp()
                self.scalars.add(result)
                new.append(ast.Assign([ast.Name(result, ast.Store())], plain, lineno=0))
                return ast.Name(result, ast.Load())
            return plain
        if name in ("_matmul_dx", "_matmul_dy") and not all(self.stable(a) for a in simple[1:]):
            plain = rebuild(node, simple)
            if target is not None:
                return plain
            result = self.temp()
            new.append(ast.Assign([ast.Name(result, ast.Store())], plain, lineno=0))
            return ast.Name(result, ast.Load())
        slot = self.slots
        self.slots += 1
        result = target or self.temp()
        where = ast.Subscript(ast.Name(buf, ast.Load()), ast.Constant(slot), ast.Load())
        into = self.into(name, simple, where)
        kept = result
        if name in ("_matmul_dx", "_matmul_dy"):  # the helper computes a matrix product for matrices only
            x, y = (ast.unparse(a) for a in simple[1:])
            alias = self.backend.alias
            kept = f"{result} if {alias}.ndim({x}) == 2 and {alias}.ndim({y}) == 2 else None"
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
        result = self.temp()
        if self.scalar_like(value):
            self.scalars.add(result)
        new.append(ast.Assign([ast.Name(result, ast.Store())], value, lineno=0))
        return ast.Name(result, ast.Load())

    def into(self, name: str, operands: list[ast.expr], where: ast.expr) -> ast.expr:
        """The operation ``name`` on ``operands``, written into the buffer ``where``."""
        out = [ast.keyword("out", where)]
        if name == "_matmul_dx":  # g @ y.T for matrices
            g, _, y = operands
            return ast.Call(self.backend.attr("matmul"), [g, ast.Attribute(y, "T", ast.Load())], out)
        if name == "_matmul_dy":  # x.T @ g for matrices
            g, x, _ = operands
            return ast.Call(self.backend.attr("matmul"), [ast.Attribute(x, "T", ast.Load()), g], out)
        if name in _FILLS:
            value = {"full_like": operands[-1], "_unreduce": operands[0]}.get(name, ast.Constant(0))
            return ast.Call(ast.Name("_filled", ast.Load()), [where, value], [])
        return ast.Call(self.backend.attr(name), operands, out)

    def stable(self, node: ast.expr) -> bool:
        """``node`` has the same value at the end of the function (read by the record of the buffers)."""
        return all(
            self.assigned.get(n.id, 0) <= 1
            for n in ast.walk(node)
            if isinstance(n, ast.Name) and n.id != self.backend.alias
        )


def ufunc_call(node: ast.expr, alias: str) -> tuple[str, list[ast.expr]] | None:
    """The ufunc ``node`` calls (an operator, or ``np.NAME(...)`` with ``alias`` the module's name)
    and its operands, when it can be written ``np.NAME(*operands, out=...)``; or None.

    >>> ufunc_call(ast.parse("a * (b + 1)", mode="eval").body, "np")[0]
    'multiply'
    >>> ufunc_call(ast.parse("a ** 3", mode="eval").body, "np") is None
    True
    """
    if isinstance(node, ast.BinOp):
        operands = [node.left, node.right]
        if isinstance(node.op, ast.Pow):
            right = node.right
            if isinstance(right, ast.Constant) and type(right.value) in (int, float) and right.value == 2:
                return "square", [node.left]
            return None
        name = _OPERATORS.get(type(node.op))
        return (name, operands) if name else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
        return "negative", [node.operand]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == alias
        and node.func.attr in _UFUNCS
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        return node.func.attr, list(node.args)
    return None


def rebuild(node: ast.expr, operands: list[ast.expr]) -> ast.expr:
    """The plain expression of ``node`` (an operation ``ufunc_call`` found) on the ``operands``."""
    if isinstance(node, ast.BinOp):
        return ast.BinOp(operands[0], node.op, operands[1] if len(operands) > 1 else node.right)
    if isinstance(node, ast.UnaryOp):
        return ast.UnaryOp(node.op, operands[0])
    return ast.Call(node.func, operands, [])


def is_atom(node: ast.expr) -> bool:
    """A name, a constant, an attribute or a constant index of one (``x.T``, ``x[:, None]``)."""
    if isinstance(node, ast.Name | ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return is_atom(node.value)
    if isinstance(node, ast.Subscript):
        index = (ast.Constant, ast.Slice, ast.Tuple, ast.Name, ast.UnaryOp, ast.Load, ast.USub)
        return is_atom(node.value) and all(isinstance(n, index) for n in ast.walk(node.slice))
    return False


def _indent(lines: list[str]) -> list[str]:
    return [("    " + line) if line.strip() else "" for line in lines]


def _reads_writes(stmt: ast.stmt) -> tuple[set[str], set[str]]:
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
