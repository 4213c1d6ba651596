"""Views read after a write (lowered tape -> the same tape, or a refusal): where NumPy's meaning
and the tape's differ.

The tape gives every array value semantics: ``F_1 = setindex(F, v, 1)`` is a new array and ``F``
keeps its elements.  NumPy writes ``F[1] = v`` into ``F`` itself, and every view of ``F`` taken
before (``r = F[1]`` of a 2-D ``F``, ``F[a:b]``, ``F[1, :]``, ``F.T``, ``F.reshape(-1)``) sees
the new elements.  The two agree as long as no such view is read after the write; this pass finds
each view that is (``stale_views``) and

- refuses it (YS017, at the read, saying to copy the view where it is taken) where the value is
  a view whatever the arguments (a slice, ``None`` or ``...`` in the index, fewer integer indices
  than the array is known to have dimensions, ``.T``, ``reshape``);
- or, for ``r = F[i]`` with integers where ``F``'s rank is not known (a number for a vector, a
  view for a matrix), adds a check to the generated code after the read: it raises, with the same
  message, where ``r`` is a view when it runs.

A write is ``F[...] = v`` (``setindex``) or an augmented assignment of an array (``F += v``,
NumPy's in-place ``add``).  A loop's body is followed twice: the second time its carried inputs
are the first pass's results, so that a view taken before the loop and read in it is stale from
the second iteration on, as in NumPy.  A branch's write counts as made.

    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> from yota_s2s.dsl.load import load_rules
    >>> src = "def f(F, g):\\n    r = F[0, :]\\n    F[0] = g\\n    return (r * g).sum()\\n"
    >>> stale_views(lower(fence(src, "f.py"), "f", load_rules()))
    Traceback (most recent call last):
    ...
    yota_s2s.errors.UserError: f.py:4:13: error: r = F[0, :] is a view of F, which line 3 writes into: ...
"""

from __future__ import annotations

import ast
import functools
import itertools

from ..errors import at_span
from ..ir.core import Atom, Dyn, Eqn, Lit, Slice, Tape, Var
from ..ir.primitives import BINOPS, primitive
from ..ir.regions import LEADING, all_tapes, first_carried
from .writes import int_values

#: The primitives whose result is the same array as their operand (NumPy returns it).
SAME_ARRAY = frozenset({"asarray", "atleast_1d", "atleast_2d", "atleast_3d"})
#: Read for their shape alone: a write does not change it.
SHAPE_ONLY = frozenset({"shape", "ndim", "len", "size"})


def stale_views(tape: Tape) -> Tape:
    """Refuse a view read after a write into its array, or add the run-time check where only the
    arguments' rank decides (see the module's docstring); ``tape``, changed in place."""
    if not any(e.regions or e.prim == "setindex" or _augmented(e) for e in tape.eqns):
        return tape  # no write into an array: no view is stale (issue 38: a twentieth of lowering)
    walk = _Walk(tape)
    for var in (i.var for i in tape.inputs):
        walk.fresh(var)
    walk.run(tape)
    walk.check_outputs(tape.outputs, None)
    for where, read, message in walk.checks.values():
        place = f"{read.span.path}:{read.span.line}: " if read.span is not None else ""
        at = next(n for n, e in enumerate(where.eqns) if e is read) + 1
        where.eqns[at:at] = _check(read, f"{place}{message} (YS017)", walk.ints)
    return tape


def _check(read: Eqn, message: str, ints: set[int]) -> list[Eqn]:
    """The equations that raise ``message`` where ``read``, ``x[...]``, is a view when it runs: its
    computed indices are integers (not index arrays) and, without a slice, ``x`` has more
    dimensions than the index has integers.  They read ``x`` for its rank alone (``ndim``), so
    that ``x`` is still written in place (``transform.writes``)."""
    parts = read.params["index"]
    dyn = [read.args[1 + p.k] for p in parts if isinstance(p, Dyn)]
    dyn = [a for a in dyn if not (isinstance(a, Lit) or a.id in ints)]  # (not an index array)
    n = len(parts) if all(type(p) is int or isinstance(p, Dyn) for p in parts) else -1
    rank = Var()
    operands = [rank, *dyn]
    tests = [f"__yota_a0 > {n}"] if n >= 0 else []
    tests += [f"getattr(__yota_a{k}, 'ndim', 0) == 0" for k in range(1, len(operands))]
    code = f"if {' and '.join(tests) or 'True'}:\n    raise ValueError({message!r})"
    return [
        Eqn("ndim", [read.args[0]], {}, [rank], read.span, (), read.section),
        Eqn("effect", operands, {"code": code, "modules": ()}, [Var()], read.span, (), read.section),
    ]


class _Walk:
    """One walk over a tape in the order NumPy runs it: each value's array (a token shared by its
    views), the array's write count when the value was made, and the count now."""

    def __init__(self, tape: Tape):
        self.tokens = itertools.count()
        self.array: dict[int, int] = {}  # value id -> its array's token
        self.made_at: dict[int, int] = {}  # value id -> its array's writes when it was made
        self.writes: dict[int, int] = {}  # token -> writes so far
        self.last_write: dict[int, Eqn] = {}  # token -> the latest write into it
        self.view_of: dict[int, Eqn] = {}  # value id -> the equation that made it a view
        self.maybe: dict[int, tuple[Tape, Eqn]] = {}  # value id -> the x[i] that may be a number, and its tape
        self.checks: dict[int, tuple[Tape, Eqn, str]] = {}  # x[i] -> (its tape, it, message)
        self.rank = _ranks(tape)
        self.ints = _ints(tape)

    def fresh(self, var: Var) -> None:
        token = next(self.tokens)
        self.array[var.id], self.made_at[var.id], self.writes[token] = token, 0, 0

    def same(self, var: Var, of: Atom) -> None:
        """``var`` is (a view of) ``of``'s array, as it is now."""
        if not isinstance(of, Var) or of.id not in self.array:
            self.fresh(var)
            return
        self.array[var.id] = self.array[of.id]
        self.made_at[var.id] = self.made_at[of.id]
        for table in (self.view_of, self.maybe):
            if of.id in table:
                table[var.id] = table[of.id]

    def stale(self, a: Atom) -> bool:
        return isinstance(a, Var) and a.id in self.array and self.made_at[a.id] != self.writes[self.array[a.id]]

    def run(self, tape: Tape) -> None:
        for e in tape.eqns:
            if e.regions:
                self.control(e)
                continue
            record = primitive(e.prim)
            if e.prim not in SHAPE_ONLY and not record.size_query:
                for k, a in enumerate(e.args):
                    if k not in record.shape_operands and self.stale(a):
                        self.read(a, e, e)
            if e.prim == "setindex" or _augmented(e):
                token = self.array.get(e.args[0].id) if isinstance(e.args[0], Var) else None
                if token is None:
                    self.fresh(e.out)
                    continue
                self.writes[token] += 1
                self.last_write[token] = e
                self.array[e.out.id], self.made_at[e.out.id] = token, self.writes[token]
            elif e.prim == "getindex" or record.view or e.prim in SAME_ARRAY:
                kind = self.view_kind(e)
                if kind is None:
                    self.fresh(e.out)
                    continue
                self.same(e.out, e.args[0])
                self.view_of[e.out.id] = e
                if kind == "maybe":
                    self.maybe.setdefault(e.out.id, (tape, e))
            else:
                for out in e.outs:
                    self.fresh(out)

    def view_kind(self, e: Eqn) -> str | None:
        """ "view", "maybe" (``x[i]`` of an array of unknown rank) or None (a new array)."""
        if e.prim != "getindex":
            return "view"
        parts = e.params["index"]
        if not all(p is None or p is Ellipsis or type(p) is int or isinstance(p, Dyn | Slice) for p in parts):
            return None  # a list of indices: a new array
        dyn = [e.args[1 + p.k] for p in parts if isinstance(p, Dyn)]
        if not all(
            isinstance(a, Var) and a.id in self.ints or isinstance(a, Lit) and type(a.value) is int for a in dyn
        ):
            return "maybe"  # (an index array makes a new array)
        if any(p is None or p is Ellipsis or isinstance(p, Slice) for p in parts):
            return "view"
        known = self.rank.get(e.args[0].id, 0) if isinstance(e.args[0], Var) else 0
        return "view" if known > len(parts) else "maybe"

    def read(self, a: Var, e: Eqn | None, at: Eqn | None) -> None:
        """``a``, a value whose array was written since it was made, is read by ``e``."""
        view = self.view_of.get(a.id)
        if view is None:
            return  # the array itself before the write (never read by the source: the name is rebound)
        write = self.last_write[self.array[a.id]]
        message = _message(a, view, write)
        maybe = self.maybe.get(a.id)
        if maybe is not None:
            self.checks.setdefault(id(maybe[1]), (*maybe, message))
            return
        span = (at or write).span
        raise at_span("YS017", message, span)

    def check_outputs(self, outputs: list[Atom], at: Eqn | None) -> None:
        for a in outputs:
            if self.stale(a):
                self.read(a, None, at)

    def control(self, e: Eqn) -> None:
        """A loop (its body followed twice) or a branch (each from the same state)."""
        lead = LEADING[e.prim]
        if e.prim == "if":
            outputs: list[list[Atom]] = []
            before = dict(self.writes)
            after: dict[int, int] = {}
            for region in e.regions:
                self.writes = dict(before)
                for var, arg in zip((i.var for i in region.inputs), e.args[1:]):
                    self.same(var, arg)
                self.run(region)
                self.check_outputs(region.outputs, e)
                outputs.append(region.outputs)
                for token, n in self.writes.items():
                    if n != before.get(token, n) or token in after:
                        after[token] = max(after.get(token, 0), n, before.get(token, 0) + 1)
            self.writes = {**before, **after}
            for k, out in enumerate(e.outs):
                self.join(out, [o[k] for o in outputs if k < len(o)])
            return
        n_carry = e.params.get("n_carry", 0)
        carries = e.args[lead : lead + n_carry]
        bound = e.args[lead + n_carry :]
        results: list[Atom] = list(carries)
        for _ in range(2):
            for region in e.regions:
                first = first_carried(e, region)
                inputs = [i.var for i in region.inputs]
                if e.prim == "for":
                    self.fresh(inputs[0])
                for var, arg in zip(inputs[first:], [*results, *bound]):
                    self.same(var, arg)
                self.run(region)
                if region is e.regions[-1]:
                    self.check_outputs(region.outputs, e)
                    results = list(region.outputs[:n_carry])
        for k, out in enumerate(e.outs):
            self.join(out, [results[k]] if k < len(results) else [])

    def join(self, out: Var, gives: list[Atom]) -> None:
        tokens = {self.array.get(g.id) for g in gives if isinstance(g, Var)}
        if len(tokens) == 1 and None not in tokens and len(gives) == sum(isinstance(g, Var) for g in gives):
            self.same(out, gives[0])
            self.made_at[out.id] = self.writes[self.array[out.id]]
        else:
            self.fresh(out)


def _ints(tape: Tape) -> set[int]:
    """The ids of the values known to be integers: a ``for`` loop's index and what ``+``, ``-``,
    ``*`` make of integers."""
    found: set[int] = set()
    for t in all_tapes(tape):
        for e in t.eqns:
            if e.prim == "for":
                found.update(r.inputs[0].var.id for r in e.regions[-1:])
    for t in all_tapes(tape):
        found |= int_values(t.eqns, found)
    return found


@functools.cache
def _statement(text: str) -> ast.stmt | None:
    try:
        body = ast.parse(text.strip()).body
    except SyntaxError:
        return None
    return body[0] if len(body) == 1 else None


def _augmented(e: Eqn) -> bool:
    """``F += v`` of an array: NumPy's in-place operation (the equation of the statement's
    operator, on the target's value, giving the target's new value)."""
    if e.span is None or not e.args or not isinstance(e.args[0], Var) or not e.outs:
        return False
    if e.args[0].hint is None or e.args[0].hint != e.out.hint:  # (before the statement is parsed)
        return False
    stmt = _statement(e.span.text)
    if not isinstance(stmt, ast.AugAssign) or not isinstance(stmt.target, ast.Name):
        return False
    name = stmt.target.id
    return BINOPS.get(type(stmt.op)) == e.prim and e.args[0].hint == name and e.out.hint == name


def _message(a: Var, view: Eqn, write: Eqn) -> str:
    name = a.hint or "the value"
    array = write.out.hint or (write.args[0].hint if isinstance(write.args[0], Var) else None) or "its array"
    line = write.span.line if write.span is not None else 0
    stmt = _statement(view.span.text) if view.span is not None else None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        taken, fix = ast.unparse(stmt), f"{stmt.targets[0].id} = {ast.unparse(stmt.value)}.copy()"
    else:  # (a helper's return, an expression)
        where = f" (line {view.span.line}: {view.span.text.strip()})" if view.span is not None else ""
        taken, fix = f"{name}{where}", f"{name} = ....copy()"
    return (
        f"{taken} is a view of {array}, which line {line} writes into: NumPy's {name} sees the new values "
        f"after that write; copy it where it is taken ({fix}) or read it again after the write"
    )


def _ranks(tape: Tape) -> dict[int, int]:
    """A lower bound of the rank of each value indexed with several integers (``F[i, j]``: 2), shared
    by the values that are one array (a write's result, a loop's carried input and its results)."""
    groups: dict[int, int] = {}

    def find(v: int) -> int:
        while groups.get(v, v) != v:
            v = groups[v]
        return v

    def union(a: Atom, b: Atom) -> None:
        if isinstance(a, Var) and isinstance(b, Var):
            groups[find(a.id)] = find(b.id)

    evidence: list[tuple[int, int]] = []
    for t in all_tapes(tape):
        for e in t.eqns:
            if e.prim in ("getindex", "setindex") and isinstance(e.args[0], Var):
                parts = [p for p in e.params["index"] if p is not None and p is not Ellipsis]
                evidence.append((e.args[0].id, len(parts) if Ellipsis not in e.params["index"] else 0))
                if e.prim == "setindex":
                    union(e.out, e.args[0])
            elif e.regions and e.prim in ("for", "while"):
                lead, n = LEADING[e.prim], e.params.get("n_carry", 0)
                for region in e.regions:
                    inputs = [i.var for i in region.inputs][first_carried(e, region) :]
                    for k, var in enumerate(inputs[:n]):
                        union(var, e.args[lead + k])
                        if k < len(e.outs):
                            union(e.outs[k], e.args[lead + k])
                        if region is e.regions[-1] and k < len(region.outputs):
                            union(region.outputs[k], e.args[lead + k])
    rank: dict[int, int] = {}
    for vid, n in evidence:
        rank[find(vid)] = max(rank.get(find(vid), 0), n)
    return {vid: rank[find(vid)] for vid in {v for v, _ in evidence} | set(groups) if find(vid) in rank}
