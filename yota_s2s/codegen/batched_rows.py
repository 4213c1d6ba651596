"""The batched form of a Jacobian whose rows are written out: ``_jac_NAME_batch(x, value, J_x)``.

``jac_NAME`` of a system written by its elements (``np.array([x[0] * x[1] - 1.0, ...])``) is
straight-line arithmetic on the rows ``x0, x1, ...`` of ``x``; on a batch of points (``x`` of shape
``(n, B)``) each operation is a NumPy pass over ``B`` numbers, which makes a new array, and the
value and the Jacobian are then copied into their arrays (``np.array``, ``_jacobian_rows``).  The
batched form is the same statements, in the same order, as ufunc calls that write where the result
is kept::

    _t1 = np.multiply(x0, x1)                    # a new array (the first of its size)
    _t7 = np.multiply(_t1, x2, out=_t3)          # the array of _t3, which nothing reads any more
    dx_51 = np.multiply(d_t1_1, x0, out=J_x[5, 1])  # an entry of the Jacobian, in place
    J_x[1, 0] = dx1                              # an entry that is another's, or a number

and ``jac_NAME`` calls it through ``_jacobian_blocks`` (runtime/blocks.py) on blocks of columns
small enough that every array stays in the cache.  Each operation is the one ``jac_NAME`` makes,
on the same operands in the same order (a ufunc with ``out=`` computes the numbers its operator
would), so the results are the same numbers.  ``batch_form`` reads the statements ``FunctionWriter``
made (``statements.Line``: ``ast`` nodes, never the printed text, as the buffered form does) and
gives up (None) on anything but names, numbers and ``+ - * /``: the form it does not know is kept,
and ``jac_NAME`` computes the batch as before.  Where it is written, the branch that calls it is a
statement of ``jac_NAME``'s, put before the unpacking of ``x``'s rows, and printed with the others.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .statements import Line

_UFUNCS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "true_divide"}

#: Marks the line that ``jac_NAME`` takes the batched form on.
BATCH_COMMENT = "a batch of points: the batched form, by blocks of columns"


class _GiveUp(Exception):
    """A statement the batched form does not write."""


def _number(node: ast.expr) -> bool:
    """A number written in the text: ``2.0``, ``3``, ``-1.1``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


@dataclass
class _Body:
    """What the batched form writes, read from ``jac_NAME``'s statements."""

    x: str  # the argument's name
    n: int  # its rows read (x.shape[0] of a batch)
    rows: list[str]  # the rows' names (x0, x1, ...), "" for a row not read
    listed: bool  # jac_NAME reads a 1-D x as a list, x_items (a batch: x_items is x)
    value: str = ""  # the value's name
    jacobian: str = ""  # the Jacobian's name
    steps: list[tuple[str | None, ast.expr]] = field(default_factory=list)  # name = expression, in order
    alias: dict[str, ast.expr] = field(default_factory=dict)  # name -> the name or number it is
    lists: dict[str, list[ast.expr]] = field(default_factory=dict)  # a row of J -> its entries
    value_rows: list[ast.expr] = field(default_factory=list)
    value_at: int = 0  # the value's rows are computed before the step of this index
    j_rows: list[str] = field(default_factory=list)  # the lists that are J's rows


def batch_form(lines: list[Line], x: str, jac: str, alias: str = "np") -> tuple[int, Line, str] | None:
    """For the statements ``lines`` of a ``jac_NAME`` of one argument ``x`` whose rows are written
    out: ``(k, branch, text)``, the branch that takes a batch of points to the batched form, to be
    inserted before ``lines[k]`` (the unpacking of ``x``'s rows), and ``_jac_NAME_batch``'s text;
    None where the batched form is not written."""
    if any(line.depth or line.header for line in lines):
        return None
    stmts = [line.node for line in lines]
    try:
        body, at = _read(stmts, x)
    except _GiveUp:
        return None
    names = {n.id for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name)} | {jac, x}
    batch = "_" + jac + "_batch"
    if batch in names or "_jacobian_blocks" in names:
        return None
    try:
        text = _Emitter(body, alias, names).function(batch, jac)
    except _GiveUp:
        return None
    complex_ = "_complex_arg" in names  # (x made complex)

    # x_items is x and type(x) is np.ndarray and x.ndim > 1 and x.shape[0] == n and x.dtype.kind == 'f'
    def attr(value: ast.expr, *names: str) -> ast.expr:
        for name in names:
            value = ast.Attribute(value, name, ast.Load())
        return value

    def compare(left: ast.expr, op: ast.cmpop, right: ast.expr) -> ast.expr:
        return ast.Compare(left, [op], [right])

    px = _name(body.x)
    tests = [compare(_name(f"{body.x}_items"), ast.Is(), px)] if body.listed else []
    tests += [
        compare(ast.Call(_name("type"), [px], []), ast.Is(), attr(_name(alias), "ndarray")),
        compare(attr(px, "ndim"), ast.Gt(), ast.Constant(1)),
        compare(ast.Subscript(attr(px, "shape"), ast.Constant(0), ast.Load()), ast.Eq(), ast.Constant(body.n)),
        compare(attr(px, "dtype", "kind"), ast.Eq(), ast.Constant("c" if complex_ else "f")),
    ]
    call = ast.Call(
        ast.Name("_jacobian_blocks", ast.Load()), [_name(batch), _name(x), ast.Constant(len(body.value_rows))], []
    )
    branch = ast.If(ast.BoolOp(ast.And(), tests), [ast.Return(call)], [])
    return at, Line(None, None, branch, 0, comment=BATCH_COMMENT), text


def _name(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _read(stmts: list[ast.stmt], x: str) -> tuple[_Body, int]:
    """What ``jac_NAME``'s statements ``stmts`` compute from their unpacking of ``x``'s rows; the
    unpacking's index."""
    at = next((k for k, s in enumerate(stmts) if _unpack(s, x) is not None), None)
    if at is None:
        raise _GiveUp
    rows, listed = _unpack(stmts[at], x) or ([], False)
    body = _Body(x, len(rows), rows, listed)
    defined = {r for r in rows if r}
    for stmt in stmts[at + 1 :]:
        if isinstance(stmt, ast.If) and _shape_check(stmt):
            continue  # (the batched form makes the value's shape)
        if isinstance(stmt, ast.Return):
            _result(stmt, body)
            break
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            raise _GiveUp
        name, value = stmt.targets[0].id, stmt.value
        if name in defined:
            raise _GiveUp  # a name assigned twice
        defined.add(name)
        if isinstance(value, ast.Name) or _number(value):
            body.alias[name] = _arith(value, body)
        elif isinstance(value, ast.List):
            body.lists[name] = [_arith(e, body) for e in value.elts]
        elif _is_call(value, "array"):
            body.value, body.value_rows = name, [_arith(e, body) for e in value.args[0].elts]
            body.value_at = len(body.steps)
        elif _is_rows(value.orelse if isinstance(value, ast.IfExp) else value, x):
            body.jacobian = name
            body.j_rows = [e.id for e in (value.orelse if isinstance(value, ast.IfExp) else value).args[1].elts]
        else:
            body.steps.append((name, _arith(value, body)))
    if not body.value or not body.jacobian or any(r not in body.lists for r in body.j_rows):
        raise _GiveUp
    known = {r for r in rows if r}
    for name, expr in body.steps:  # (each operand a row of x or a step before; a step reads a name)
        read = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        if not read or not read <= known:
            raise _GiveUp
        known.add(name or "")
    exprs = [*body.value_rows, *(e for r in body.j_rows for e in body.lists[r])]
    if any(isinstance(n, ast.Name) and n.id not in known for e in exprs for n in ast.walk(e)):
        raise _GiveUp
    if any(len(body.lists[r]) > body.n for r in body.j_rows) or len(body.j_rows) != len(body.value_rows):
        raise _GiveUp
    return body, at


def _unpack(stmt: ast.stmt, x: str) -> tuple[list[str], bool] | None:
    """The rows' names (all of x's; "" for one not read) of ``x0, x1 = x_items if x_items is not x
    else (x[0], x[1])`` (and True: a list ``x_items``), or of ``x1, x3 = (x[1], x[3])`` (False)."""
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Tuple):
        return None
    target, value = stmt.targets[0], stmt.value
    listed = isinstance(value, ast.IfExp)
    if listed:
        test = value.test
        if not (isinstance(test, ast.Compare) and ast.unparse(test) == f"{x}_items is not {x}"):
            return None
        value = value.orelse
    if not isinstance(value, ast.Tuple) or len(value.elts) != len(target.elts):
        return None
    rows: list[str] = []
    for t, e in zip(target.elts, value.elts, strict=True):
        if isinstance(e, ast.Constant) and e.value is None and listed:
            rows.append("")
            continue
        k = e.slice.value if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) else None
        if not isinstance(t, ast.Name) or type(k) is not int or k < len(rows) or ast.unparse(e.value) != x:
            return None
        rows += [""] * (k - len(rows)) + [t.id]
    return rows, listed


def _shape_check(stmt: ast.If) -> bool:
    """``if value.shape != ...: raise ValueError(...)``."""
    test = stmt.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Attribute)
        and test.left.attr == "shape"
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], ast.Raise)
        and not stmt.orelse
    )


def _is_call(node: ast.expr, attr: str) -> bool:
    """``np.array([...])`` (for ``attr`` "array")."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attr
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.List)
    )


def _is_rows(node: ast.expr, x: str) -> bool:
    """``_jacobian_rows(x, [dx, dx_1, ...])``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "_jacobian_rows"
        and len(node.args) == 2
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == x
        and isinstance(node.args[1], ast.List)
        and all(isinstance(e, ast.Name) for e in node.args[1].elts)
    )


def _result(stmt: ast.Return, body: _Body) -> None:
    """``return value, J_x``."""
    v = stmt.value
    if not (isinstance(v, ast.Tuple) and [ast.unparse(e) for e in v.elts] == [body.value, body.jacobian]):
        raise _GiveUp


def _arith(node: ast.expr, body: _Body) -> ast.expr:
    """``node``, names, numbers and ``+ - * /`` only, with each alias read as the name it is."""
    if _number(node):
        return node
    if isinstance(node, ast.Name):
        return body.alias.get(node.id, ast.Name(node.id, ast.Load()))
    if isinstance(node, ast.BinOp) and type(node.op) in _UFUNCS:
        out: ast.expr = ast.BinOp(_arith(node.left, body), node.op, _arith(node.right, body))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        out = ast.UnaryOp(ast.USub(), _arith(node.operand, body))
    else:
        raise _GiveUp
    if not any(isinstance(n, ast.Name) for n in ast.walk(out)):
        raise _GiveUp  # (numbers only: NumPy would make a scalar of them, not an array to write into)
    return out


class _Dest:
    """Where a chain of ufuncs writes: ``out`` (None: a new array, bound to ``bind``); the first
    call binds ``bind`` to its result, the later ones write into it."""

    def __init__(self, out: str | None, bind: str | None):
        self.out, self.bind, self.started = out, bind, False

    @property
    def ref(self) -> str:
        return self.bind or self.out or ""

    def call(self, alias: str, ufunc: str, args: list[str]) -> str:
        if self.started:
            return f"{alias}.{ufunc}({', '.join(args)}, out={self.ref})"
        self.started = True
        bound = f"{self.bind} = " if self.bind else ""
        if self.out is None:
            return f"{bound}{alias}.{ufunc}({', '.join(args)})"
        return f"{bound}{alias}.{ufunc}({', '.join(args)}, out={self.out})"


class _Emitter:
    """Writes ``_jac_NAME_batch``: each step a chain of ufuncs into where its result is kept."""

    def __init__(self, body: _Body, alias: str, taken: set[str]):
        self.body = body
        self.np = alias
        self.taken = set(taken)
        self.lines: list[str] = []
        self.free: list[str] = []  # arrays nothing reads any more (their names)
        self.home: dict[str, str] = {}  # a name -> the entry of J_x it is computed in
        self.last: dict[str, int] = {}  # a name -> the index of the step that reads it last
        self.made: set[str] = set()  # the steps' names whose arrays are temporaries

    def function(self, batch: str, jac: str) -> str:
        body, J = self.body, self.body.jacobian
        entries: dict[str, tuple[int, int]] = {}
        for i, r in enumerate(body.j_rows):
            for k, e in enumerate(body.lists[r]):
                if isinstance(e, ast.Name):
                    entries.setdefault(e.id, (i, k))
        for name, _ in body.steps:
            if name in entries:
                self.home[name] = "{}[{}, {}]".format(J, *entries[name])
        at = body.value_at  # (the value's rows where jac_NAME computes them)
        values = [(f"{body.value}[{i}]", e) for i, e in enumerate(body.value_rows)]
        order = [(name, expr, self.home.get(name)) for name, expr in body.steps]
        order[at:at] = [(None, e, out) for out, e in values]
        reads = [expr for _, expr, _ in order]
        for n, expr in enumerate(reads):
            for node in ast.walk(expr):
                if isinstance(node, ast.Name):
                    self.last[node.id] = n
        self.read = set(self.last)  # the names read by a step, or copied into an entry of J
        for i, r in enumerate(body.j_rows):
            for k, e in enumerate(body.lists[r]):
                if isinstance(e, ast.Name) and self.home.get(e.id) != f"{J}[{i}, {k}]":
                    self.read.add(e.id)
        read = ", ".join(body.rows[k] or "_" for k in range(body.n))
        self.lines.append(f"{read} = {body.x}" if body.n > 1 else f"{body.rows[0]} = {body.x}[0]")
        for n, (name, expr, out) in enumerate(order):
            if name is None or out is not None or name in self.read:  # (a step nothing reads: not written)
                self.store(name if name in self.read else None, expr, out)
            self.release(n)
        for i, r in enumerate(body.j_rows):
            for k, e in enumerate(body.lists[r]):
                if not (isinstance(e, ast.Name) and self.home.get(e.id) == f"{J}[{i}, {k}]"):
                    self.lines.append(f"{J}[{i}, {k}] = {ast.unparse(e)}")
            if len(body.lists[r]) < body.n:
                self.lines.append(f"{J}[{i}, {len(body.lists[r])}:] = 0.0")
        doc = (
            f'"""{jac} on a block of a batch of points ({body.x}[k]: the k-th coordinates), written into '
            f'{body.value} and {J} (see _jacobian_blocks)."""'
        )
        lines = [f"def {batch}({body.x}, {body.value}, {J}):", "    " + doc]
        return "\n".join(lines + ["    " + line for line in self.lines])

    def release(self, n: int) -> None:
        """Free the temporary arrays whose last reader is the ``n``-th."""
        for name, last in list(self.last.items()):
            if last == n and name in self.made:
                self.free.append(name)
                del self.last[name]

    def store(self, name: str | None, expr: ast.expr, out: str | None) -> None:
        """The statements that compute ``expr`` into ``out`` (None: a free array or a new one),
        its first binding ``name`` to the result."""
        if self.leaf(expr):  # (a number or a name: a copy)
            if out is None:
                raise _GiveUp  # (jac_NAME names no such step: an alias)
            self.lines.append(f"{out} = {ast.unparse(expr)}")
            return
        if out is None:
            out = self.free.pop() if self.free else None
            self.made.add(name or "")
        self.chain(expr, _Dest(out, name))

    def chain(self, expr: ast.expr, dest: _Dest) -> None:
        """Compute ``expr`` (not a leaf) with ufuncs, in the order of its operators, into ``dest``."""
        if isinstance(expr, ast.UnaryOp):
            if not self.leaf(expr.operand):
                self.chain(expr.operand, dest)
            self.lines.append(dest.call(self.np, "negative", [self.text(expr.operand, dest)]))
            return
        assert isinstance(expr, ast.BinOp)
        ufunc = _UFUNCS[type(expr.op)]
        left, right = expr.left, expr.right
        if not self.leaf(left):
            self.chain(left, dest)
            if self.leaf(right):
                self.lines.append(dest.call(self.np, ufunc, [dest.ref, ast.unparse(right)]))
                return
            free = self.free.pop() if self.free else None
            tmp = _Dest(free, None if free else self.fresh())
            self.chain(right, tmp)
            self.lines.append(dest.call(self.np, ufunc, [dest.ref, tmp.ref]))
            self.free.append(tmp.ref)
            return
        if not self.leaf(right):
            self.chain(right, dest)
        self.lines.append(dest.call(self.np, ufunc, [ast.unparse(left), self.text(right, dest)]))

    def text(self, node: ast.expr, dest: _Dest) -> str:
        """A leaf as written, or the array ``dest`` where ``node`` was computed."""
        return ast.unparse(node) if self.leaf(node) else dest.ref

    @staticmethod
    def leaf(node: ast.expr) -> bool:
        return _number(node) or isinstance(node, ast.Name)

    def fresh(self) -> str:
        """A new name for a part of an expression (``_a1``)."""
        k = 1
        while f"_a{k}" in self.taken:
            k += 1
        self.taken.add(f"_a{k}")
        return f"_a{k}"
