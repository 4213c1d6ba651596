"""``hess_NAME``'s second sweep for all unit seeds at once: a leading axis of rows through the sweep.

The second sweep is linear in its seed ``v``; seeded with the rows of the identity, stacked
(``v`` of shape ``(k,) + np.shape(x)``), every value the sweep computes gets a leading axis of
``k`` rows, row ``i`` being the loop form's value for the ``i``-th unit vector, and the Hessian's
rows come out of one sweep (what JAX's ``vmap`` does to ``jacfwd(grad)``)::

    H = np.empty((np.size(x),) + np.shape(x))
    _step = _rows_step(x, a, b, ...)                 # rows a block: its values of 2**16 numbers at most
    for _k in range(0, np.size(x), _step):           # (one block for Rosenbrock up to n = 256)
        v = _rows_seed(x, _k, _step)                 # rows _k, _k + 1, ... of the identity
        ...                                          # the second sweep, every value batched
        H[_k:_k + len(v)] = Hv
    H = H.reshape(np.shape(x) + np.shape(x))

Each primitive has its rule for a batched operand (``batch_rule``): an elementwise one is written
as it is, a batched operand given axes of length 1 after its leading one where its rows could have
fewer dimensions than the other operand (``_rows_lift``: NumPy aligns shapes from the right); an
index gets a leading ``:``; ``sum``, ``mean``, ``unbroadcast``, ``broadcast_to`` and the products
shift their axes past the rows (``runtime/rows.py``).  A sweep with a primitive that has no rule
keeps the loop over the unit vectors (``SecondWriter.hessian_rows``), as does ``BATCH_ROWS`` False.
"""

from __future__ import annotations

import ast

from ..ir.core import Atom, Eqn, Lit, Section, Slice, Tape, Var
from ..ir.primitives import primitive
from ..ir.shapes import ShapeClasses, shape_classes
from .base import WriterBase, named, tuple_of
from .statements import Line

#: Write ``hess_NAME``'s sweep batched where every primitive of it has a rule (tests set it False
#: to compare with the loop form).
BATCH_ROWS = True

#: Elementwise operators written as they are (their operands aligned by ``_rows_lift``).
OPERATORS = frozenset({"add", "sub", "mul", "truediv", "neg", "power"})
#: The helpers of a batched primitive: (helper, its extra arguments are the rows flags).
HELPERS = {"unbroadcast": "_rows_unbroadcast", "broadcast_to": "_rows_broadcast"}
#: The products, given the rows flags of their two operands.
FLAGGED = {"matmul": "_rows_matmul", "dot": "_rows_dot"}
#: Those whose static parameters are passed on as keywords.
REDUCTIONS = {
    "sum": "_rows_sum",
    "mean": "_rows_mean",
    "transpose": "_rows_transpose",
    "unreduce": "_rows_unreduce",
    "reshape": "_rows_reshape",
}
#: Those the forward columns of ``jac_NAME`` batch, not yet ``hess_NAME``'s sweep (its texts kept):
#: ``np.take`` of a stack's element and its adjoint, along one axis.
TAKES = {"take": "_rows_take", "untake": "_rows_untake"}
PRODUCTS = {
    "matmul_dx": ("_rows_product_dx", "_matmul_dx"),
    "matmul_dy": ("_rows_product_dy", "_matmul_dy"),
    "dot_dx": ("_rows_product_dx", "_dot_dx"),
    "dot_dy": ("_rows_product_dy", "_dot_dy"),
}


def _basic(index: tuple) -> bool:
    """A static index of integers, slices, ``None`` and ``...`` only: with a ``:`` before it, it
    keeps the rows' axis first (an index array could move its axes to the front)."""
    return all(type(i) in (int, Slice) or i is None or i is Ellipsis for i in index)


def batch_rule(eqn: Eqn, batched: set[int], fresh: set[int], takes: bool = False) -> str | None:
    """The kind of rule that writes ``eqn`` with a leading axis of rows on its ``batched``
    operands, or None where it has none (the loop form then); ``fresh``: the batched buffers
    this sweep made and reads once, written into in place; ``takes``: ``TAKES`` too."""
    rows = [isinstance(a, Var) and a.id in batched for a in eqn.args]
    prim, params = eqn.prim, eqn.params
    if takes and prim in TAKES:  # (one int axis: None would take from the flattened rows)
        static = type(params.get("axis")) is int and set(params) == {"axis"}
        return "reduce" if static and rows[0] and not any(rows[1:]) else None
    if eqn.regions or len(eqn.outs) != 1:
        return None
    if prim == "grad_zeros":
        return "zeros" if not any(rows) else None
    if prim in FLAGGED:
        return "flags" if len(rows) == 2 and not params else None
    if prim in OPERATORS or (primitive(prim).ufunc is not None and not params):
        return "elementwise" if len(eqn.args) <= 2 and not params else None
    if prim == "getindex":
        index = params.get("index", ())
        static = len(eqn.args) == 1 and rows[0] and _basic(index)
        return "index" if static and set(params) == {"index"} else None
    if prim == "index_add":
        index = params.get("index", ())
        buf = eqn.args[0]
        ok = len(eqn.args) == 2 and isinstance(buf, Var) and set(params) == {"index"}
        if not ok or not _basic(index):
            return None
        return "index_add" if buf.id in fresh else "index_copy"
    if prim in HELPERS:
        return "helper" if rows[0] and not any(rows[1:]) and not params else None
    if prim in REDUCTIONS:
        keys = {"transpose": {"axes"}}.get(prim, {"axis", "keepdims"})
        return "reduce" if rows[0] and not any(rows[1:]) and set(params) <= keys else None
    if prim in PRODUCTS:
        return "product" if len(rows) == 3 and not params else None
    return None


#: A block of ``hess_NAME`` with respect to several parameters: the sweep's output (a row of the
#: block), the parameter ``Q`` of the block's columns, the name of the block's array.
Target = tuple[Atom, Var, str]


def seed_of(tape: Tape, seed: Var) -> tuple[str, Var]:
    """The name of ``hess_NAME``'s seed input ``seed`` (a local of its loop) and the input of the
    parameter whose shape it has (``Facts.seed`` and ``wrt[0]``, or one of ``Facts.seeds``)."""
    name = next(i.path[0] for i in tape.inputs if i.var is seed)
    w = tape.facts.wrt[tape.facts.seeds.index(name)] if tape.facts.seeds else tape.facts.wrt[0]
    return name, next(i.var for i in tape.inputs if i.path[0] == w)


def batch_plan(
    eqns: list[Eqn], seed: Var, read_after: set[int], others: tuple[Var, ...] = (), takes: bool = False
) -> dict[int, str] | None:
    """The rule of each equation of the sweep (by position), or None where one has none; ``others``:
    more seeds (``jac_NAME``'s columns: a tangent per parameter); ``takes``: ``TAKES`` batched too."""
    batched = {seed.id} | {s.id for s in others} | {o.id for e in eqns for o in e.outs}
    uses: dict[int, int] = {}
    for e in eqns:
        for a in e.args:
            if isinstance(a, Var):
                uses[a.id] = uses.get(a.id, 0) + 1
    fresh: set[int] = set()
    kinds: dict[int, str] = {}
    for n, eqn in enumerate(eqns):
        kind = batch_rule(eqn, batched, fresh, takes)
        if kind is None:
            return None
        kinds[n] = kind
        made = eqn.out.id
        new = kind in ("zeros", "index_add", "index_copy") or (kind == "elementwise" and eqn.prim in OPERATORS)
        if new and uses.get(made, 0) == 1 and made not in read_after:  # (an array of its own, read once)
            fresh.add(made)
    return kinds


class BatchWriter(WriterBase):
    """The batched sweep of ``hess_NAME`` (a part of ``writer.FunctionWriter``)."""

    _classes: ShapeClasses | None = None

    def wide_enough(self, a: Var, b: Atom) -> bool:
        """Shapes prove that ``a``'s rows have at least the dimensions of ``b`` (``b``'s class is
        within ``a``'s: their broadcast has ``a``'s shape), so no ``_rows_lift`` is needed."""
        if self._classes is None:  # (no assumption that the value is a number)
            self._classes = shape_classes(self.tape, self.table, scalar_keys=frozenset())
            self._classes.same.update(self.tape.facts.same_shape)  # (the seed has the shape of x)
        return self._classes.of(b) <= self._classes.of(a)

    def index_class_probe(self, buf: Var, index: tuple) -> Var:
        """A value of the class of ``buf[index]`` (for ``wide_enough``)."""
        self.wide_enough(buf, buf)
        probe = Eqn("getindex", [buf], {"index": index}, [Var()])
        self._classes.add_eqn(probe)
        return probe.out

    def batched_rows(
        self,
        rows: list[Eqn],
        kinds: dict[int, str],
        seed: Var,
        body: list[Line],
        targets: list[Target] | None = None,
        names: list[str] | None = None,
    ) -> list[str]:
        """Append ``hess_NAME``'s sweep, batched (see the module docstring); return the names of the
        arrays it fills: ``H`` (``targets`` None), or with several parameters one per ``(atom, x_Q,
        name)`` of ``targets``, the rows of the block ``H_PQ`` (the seed ``seed``, of ``P``'s shape);
        ``names``: those names, chosen by the caller."""
        tape = self.tape
        seed_name, x = seed_of(tape, seed)
        if targets is None:
            targets = [(tape.outputs[2], x, "H")]
        size = self.backend.call("size", [self.atom(x)])
        shape = self.backend.call("shape", [self.atom(x)])
        k = self.namer.fresh("_k")
        names = names or [self.namer.fresh(t[2]) for t in targets]
        step = self.namer.fresh("_step")
        for name, (_, xq, _) in zip(names, targets, strict=True):
            other = self.backend.call("shape", [self.atom(xq)])
            empty = self.backend.call("empty", [ast.BinOp(tuple_of([size]), ast.Add(), other)])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], empty, lineno=0), 0))
        self.helpers.update({"_rows_step", "_rows_seed"})
        batched = {seed.id} | {o.id for e in rows for o in e.outs}
        read: dict[int, Var] = {}  # the arrays the sweep reads: a row of its values is about their size
        shapes = {o.id for e in tape.eqns if e.prim == "shape" for o in e.outs}  # (not arrays: left out)
        for e in rows:
            read.update((a.id, a) for a in e.args if isinstance(a, Var) and a.id not in batched | shapes and a is not x)
        stepped = ast.Call(named("_rows_step"), [self.atom(x), *(self.atom(a) for a in read.values())], [])
        body.append(Line(Section.BACKWARD, None, ast.Assign([named(step, ast.Store())], stepped, lineno=0), 0))
        header = ast.For(
            named(k, ast.Store()), ast.Call(named("range"), [ast.Constant(0), size, named(step)], []), [], []
        )
        header.lineno = 0
        comment = "the second sweep on a block of rows at once"
        body.append(Line(Section.BACKWARD, None, header, 0, header=True, comment=comment))
        seeded = ast.Call(named("_rows_seed"), [self.atom(x), named(k), named(step)], [])
        body.append(Line(Section.BACKWARD, None, ast.Assign([named(seed_name, ast.Store())], seeded, lineno=0), 1))
        self.names[seed.id] = seed_name
        for n, eqn in enumerate(rows):
            for stmt in self.batched_statement(eqn, kinds[n], batched, seed):
                body.append(Line(Section.BACKWARD, eqn.span, stmt, 1))
        stop = ast.BinOp(named(k), ast.Add(), ast.Call(named("len"), [named(seed_name)], []))
        for name, (out, _, _) in zip(names, targets, strict=True):
            block = ast.Subscript(named(name), ast.Slice(named(k), stop, None), ast.Store())
            body.append(Line(Section.BACKWARD, None, ast.Assign([block], self.atom(out), lineno=0), 1))
        for name, (_, xq, _) in zip(names, targets, strict=True):
            new_shape = ast.BinOp(shape, ast.Add(), self.backend.call("shape", [self.atom(xq)]))
            reshape = ast.Call(ast.Attribute(named(name), "reshape", ast.Load()), [new_shape], [])
            body.append(Line(Section.BACKWARD, None, ast.Assign([named(name, ast.Store())], reshape, lineno=0), 0))
        return names

    def batched_statement(self, eqn: Eqn, kind: str, batched: set[int], seed: Var) -> list[ast.stmt]:
        """The statements of one equation of the batched sweep; names its result."""
        rows = [isinstance(a, Var) and a.id in batched for a in eqn.args]
        args = [self.atom(a) for a in eqn.args]
        flags = [ast.Constant(int(r)) for r in rows]
        if kind in ("index_add", "index_copy"):  # buf[:, index] += _rows_lift(g, buf[:, index], 1), in place
            buf = eqn.args[0]
            made: list[ast.stmt] = []
            if kind == "index_copy":  # (a buffer that is read elsewhere, or a view: copied first)
                self.helpers.add("_rows_fresh")
                copy = ast.Call(named("_rows_fresh"), [args[0], named(self.names[seed.id]), flags[0]], [])
                name = self.name_for(eqn.out)
                made.append(ast.Assign([named(name, ast.Store())], copy, lineno=0))
                args[0] = named(name)
            target = self.indexed(eqn, args[0], ast.Store())
            value = args[1]
            if rows[1] and not self.wide_enough(eqn.args[1], self.index_class_probe(buf, eqn.params["index"])):
                self.helpers.add("_rows_lift")
                value = ast.Call(
                    named("_rows_lift"), [value, self.indexed(eqn, args[0], ast.Load()), ast.Constant(1)], []
                )
            self.names[eqn.out.id] = args[0].id if made else self.names[buf.id]
            return [*made, ast.AugAssign(target, ast.Add(), value)]
        if kind == "zeros":
            self.helpers.add("_rows_zeros")
            expr: ast.expr = ast.Call(named("_rows_zeros"), [named(self.names[seed.id]), args[0]], [])
        elif kind == "elementwise":
            expr = self.elementwise(eqn, args, rows)
        elif kind == "index":
            expr = self.indexed(eqn, args[0], ast.Load())
        elif kind == "helper":
            self.helpers.add(HELPERS[eqn.prim])
            expr = ast.Call(named(HELPERS[eqn.prim]), args, [])
        elif kind == "reduce":
            helper = REDUCTIONS.get(eqn.prim) or TAKES[eqn.prim]
            self.helpers.add(helper)
            keywords = [ast.keyword(key, _constant(value)) for key, value in sorted(eqn.params.items())]
            expr = ast.Call(named(helper), args, keywords)
        elif kind == "flags":
            self.helpers.add(FLAGGED[eqn.prim])
            expr = ast.Call(named(FLAGGED[eqn.prim]), [*args, *flags], [])
        else:  # a product's adjoint: the fast form, or the unbatched helper row by row
            helper, each = PRODUCTS[eqn.prim]
            self.helpers.update({helper, each})
            expr = ast.Call(named(helper), [named(each), *args, ast.Tuple(flags, ast.Load())], [])
        name = self.name_for(eqn.out)
        self.names[eqn.out.id] = name
        return [ast.Assign([named(name, ast.Store())], expr, lineno=0)]

    def elementwise(self, eqn: Eqn, args: list[ast.expr], rows: list[bool]) -> ast.expr:
        """An elementwise primitive of batched operands: each batched one lifted against the other
        (unless that is a literal number, which broadcasts against anything)."""
        lifted = list(args)
        if len(args) == 2:
            for i in (0, 1):
                other = eqn.args[1 - i]
                if rows[i] and isinstance(other, Var) and not self.wide_enough(eqn.args[i], other):
                    self.helpers.add("_rows_lift")
                    lifted[i] = ast.Call(
                        named("_rows_lift"), [args[i], args[1 - i], ast.Constant(int(rows[1 - i]))], []
                    )
        rule = self.table.rules[eqn.prim]
        return self.backend.expression(eqn, lifted, rule, [False] * len(args), self.imports)

    def indexed(self, eqn: Eqn, base: ast.expr, ctx: ast.expr_context) -> ast.expr:
        """``base[:, index]``: ``eqn``'s static index after a leading ``:``."""
        index = (Slice(), *eqn.params["index"])
        probe = Eqn("getindex", [Lit(0)], {"index": index}, [Var()])
        expr = self.backend.expression(probe, [base], self.table.rules["getindex"], [False], self.imports)
        if isinstance(expr, ast.Subscript):
            expr.ctx = ctx
        return expr


def _constant(value: object) -> ast.expr:
    if isinstance(value, tuple):
        return ast.Tuple([_constant(v) for v in value], ast.Load())
    return ast.Constant(value)
