"""The plan of a generated function: a gradient ``Tape`` in, every decision about how it is written out.

The writer (``writer``) only prints what the plan decided: which values are written inline
into their user (single-use temporaries on the same line), which buffers are updated in place
(a ``grad_zeros`` and the chain of ``index_add`` into it: ``dx[3] += g``, and its first write
``dx[3] = g``), which arguments are read by elements at once (``x1, x2 = ...``, from
``x.tolist()`` when Python floats give NumPy's results), which gradients are built as lists of
rows (``dx = [dx0, 0.0, dx2]``), which initial values lend their name to a loop, which values
are surely NumPy values (so ``x.sum()`` may be written), and whether a column guard calls the
columns form (``columns``).  Names are not decided here: the writer allocates them as it goes
(``naming``).  A plan is immutable: its maps are read-only.

    >>> from yota_s2s.pipeline import generate
    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.codegen.target import NUMPY
    >>> g = generate("import numpy as np\\ndef f(x):\\n    return x[0] * x[1] + np.sum(x)\\n", "f.py")
    >>> plan = plan_function(g.tapes["optimize"][0], load_rules(), NUMPY)
    >>> sorted(len(reads) for reads in plan.element_reads.values()), plan.column_ranks is None
    ([2], True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Lit, ParamKind, Section, Tape, Var
from ..ir.inplace import extend_group
from ..ir.primitives import primitive
from ..ir.regions import LEADING, all_tapes, bound_inputs, first_carried
from .appends import in_place_appends, in_place_writes
from .arguments import differentiated_inputs, real_only, value_inputs, zero_d_gradients
from .columns import column_plan
from .helpers import helper_for
from .split import Split, columns_apart, rows_only, seeded_splits, split_seeded
from .target import NOT_CALLED, Backend

#: Equations nested into one expression at most: a sum of 5,000 terms is written as
#: statements of 200 (in order, so it rounds the same) that Python compiles at any recursion limit.
MAX_NESTING = 200
#: How many leading arguments of a loop or branch may be written inline (bounds, the condition).
_INLINE_ARGS = {"for": 3, "if": 1}


@dataclass(frozen=True)
class FunctionPlan:
    """How one function is written (see the module docstring); every map is read-only."""

    tape: Tape
    #: The form for one block of columns (``columns_form``): blocked arguments are float ndarrays.
    columns_form: bool
    uses: Mapping[int, int]  # value -> how many arguments and outputs read it
    defs: Mapping[int, Eqn]  # value -> the equation that makes it
    home: Mapping[int, Tape]  # value -> the tape (or region) its equation is in
    inline: frozenset[int]  # values written into their user's expression
    inplace: Mapping[int, int]  # value -> the root of its in-place group (a buffer written in place)
    group_var: Mapping[int, Var]  # root of a group -> the member whose name the group takes
    first_writes: frozenset[int]  # in-place writes that assign their element (``dx[3] = g``)
    alias: Mapping[int, Var]  # an initial value -> the loop's carried value that takes its name
    bound: frozenset[int]  # region inputs that stand for an outer value
    index_vars: frozenset[int]  # a for loop's index and its saved copies (one integer each)
    element_reads: Mapping[int, tuple[Eqn, ...]]  # argument x -> its reads x[k] (k >= 0), named at once
    unpacked_reads: frozenset[int]  # the values of those reads
    listed: frozenset[int]  # arguments read from x.tolist() when a 1-D float array (``x_items``)
    item_groups: Mapping[int, tuple[Var, int]]  # root of a gradient built by elements -> (x, its last member)
    item_rows: Mapping[int, tuple[int, ...]]  # root -> the rows its array form assigns before reading
    named_rows: frozenset[int]  # roots whose rows are local names (``dx3``), then a list
    item_lengths: Mapping[int, int]  # argument x -> the length its list form needs
    methods: frozenset[int]  # values surely NumPy values (``x.T``, ``x.sum()`` may be written)
    appends: frozenset[int]  # lst.append(v) written in place: the new list's value (``appends``)
    check_scalar: bool  # the generated code checks that the value is a scalar
    #: Gradients that may be a 0-d array where their argument is a number (``np.where(x > 0, g, 0.0)``
    #: of numbers is one): the function makes them NumPy scalars before it returns them.
    may_be_0d: tuple[Var, ...]
    #: The inputs with a gradient, each with its name in the source (``m.W``): the function
    #: checks that each is real floating (a float array or number, or a Python int).
    float_inputs: tuple[tuple[Var, str], ...]
    #: The other inputs the computation reads as values (not as a shape, an index, a loop's bounds
    #: or a condition), each with its name: the function checks that none is complex.
    real_inputs: tuple[tuple[Var, str], ...]
    column_ranks: Mapping[str, int] | None  # the column guard's plan (``columns``), None: no guard
    #: ``hess_NAME``'s tape split by each seed (seed id -> ``split.split_seeded``'s two lists), as
    #: the plan made them to find the values its loops compute (``split_seeded`` hands them on).
    splits: Mapping[int, Split] = field(default_factory=lambda: MappingProxyType({}))

    def is_array(self, a: Atom) -> bool:
        """``a`` is taken for a NumPy value: an input used as an array in the source, or the
        result of anything but Python arithmetic (which keeps Python floats floats).  A loop's or
        a helper's result may still be a Python float; this answer is used only where that does
        no harm (a fresh result to write into, a returned gradient to copy).  ``methods`` is the
        strict form."""
        return _is_array(self.tape, self.defs, a)

    def element_read(self, eqn: Eqn) -> bool:
        """``x[k]`` of an argument ``x`` with one constant integer ``k``."""
        return _element_read(self.tape, eqn)

    def split_seeded(self, seed: Var) -> Split:
        """The plan's tape split by the seed ``seed`` (``split.split_seeded`` with the plan's in-place
        groups): the equations before the loop over the seed's unit vectors and those of each; made
        once, where the plan made it."""
        known = self.splits.get(seed.id)
        if known is None:
            return split_seeded(self.tape.eqns, seed, self.inplace)
        return list(known[0]), list(known[1])


def columns_name(tape: Tape) -> str:
    """The name of the columns form of ``grad_NAME``: ``_grad_NAME_columns``."""
    return f"_grad_{tape.name}_columns"


def plan_function(
    tape: Tape,
    table: RuleTable,
    backend: Backend,
    columns: bool = True,
    columns_form: bool = False,
    seeded: bool = True,
) -> FunctionPlan:
    """The plan of ``grad_NAME`` for ``tape`` (with a column guard when ``columns`` allows one), or
    of its columns form (``columns_form``).  ``jac_NAME`` whose rows write in place a buffer its
    forward columns write too (the optimizer made one ``grad_zeros(x)`` of the two) is planned
    without its columns (``split.rows_only``).  ``seeded=False``: a part of a function written
    once, not in a loop over seeds (a batched sweep, ``batched.write_batched``): its tape is not
    split by its seeds."""
    plan = _Planner(tape, table, backend, columns, columns_form).plan(seeded)
    if tape.facts.columns and tape.facts.mode.by_rows and not columns_apart(tape, plan.inplace):
        return plan_function(rows_only(tape, table), table, backend, columns, columns_form)
    return plan


def _is_array(tape: Tape, defs: Mapping[int, Eqn], a: Atom) -> bool:
    if isinstance(a, Lit):
        return False
    d = defs.get(a.id)
    if d is None:
        return a.id in tape.facts.array_inputs
    return not primitive(d.prim).python_arithmetic


def _element_read(tape: Tape, eqn: Eqn) -> bool:
    if eqn.prim != "getindex" or len(eqn.args) != 1 or not isinstance(eqn.args[0], Var):
        return False
    index = eqn.params["index"]
    # (not a Jacobian's unit seed: a local of its loop, not an argument)
    seeds = {tape.facts.seed, *tape.facts.seeds} if tape.facts.mode.by_rows else set()
    local = seeds | set(tape.facts.columns)  # (and the forward columns' tangents)
    return _one_int(index) and eqn.args[0].id in {i.var.id for i in tape.inputs if i.path[0] not in local}


def _one_int(index: tuple) -> bool:
    """The index is one constant integer: ``x[3]``, ``x[-1]``."""
    return len(index) == 1 and type(index[0]) is int


def next_write(seen: set | None, eqn: Eqn) -> tuple[bool, set | None]:
    """Whether the write ``eqn`` into a zero buffer is its element's first (``dx[3] = g``), given
    the elements ``seen`` written before it in its chain, and the elements written after it.
    Only single non-negative constant indices are tracked, so that ``dx[8]`` and ``dx[-1]`` never
    meet; anything else (or ``seen`` None) ends the tracking: None."""
    index = eqn.params["index"]
    if seen is None or len(eqn.args) > 2 or not _one_int(index) or index[0] < 0:
        return False, None
    return index[0] not in seen, seen | {index[0]}


def float_safe(eqn: Eqn) -> bool:
    """Python floats give NumPy's result for this equation: no ``/`` by a value that may be 0
    (ZeroDivisionError), no ``**`` that may be fractional (a complex result) or overflow."""
    if eqn.prim == "truediv":
        d = eqn.args[1]
        return isinstance(d, Lit) and type(d.value) in (int, float) and d.value != 0
    if eqn.prim == "power":
        p = eqn.args[1]
        return isinstance(p, Lit) and type(p.value) is int and 0 <= p.value <= 4
    return True


def _unnamed_term(a: Var, d: Eqn) -> bool:
    """``a`` is a nameless value of the backward sweep (a term of a gradient, not the gradient
    of a value): written into its user on another line too.  Scalar code pays for each name
    (``dx7 = _t10 + _t11 * u1 + ...`` for eight lines ``_t12 = _t11 * u1``: katsura8 3.9 ->
    3.6 µs), and the gradients keep their lines."""
    return d.section == Section.BACKWARD and a.grad_of is None


class _Planner:
    """Makes a ``FunctionPlan``: the analyses, in the order each needs the others'."""

    def __init__(self, tape: Tape, table: RuleTable, backend: Backend, columns: bool, columns_form: bool):
        self.tape = tape
        self.table = table
        self.backend = backend
        self.columns = columns
        self.columns_form = columns_form
        self.tapes = list(all_tapes(tape))
        self.outputs = {a.id for a in tape.outputs if isinstance(a, Var)}
        self.uses: dict[int, int] = {}
        self.defs: dict[int, Eqn] = {}
        self.home: dict[int, Tape] = {}
        self.inplace: dict[int, int] = {}  # var id -> root var id
        self.alias: dict[int, Var] = {}
        self.methods: dict[int, bool] = {}
        self.listed: set[int] = set()
        self.looped: set[int] = set()  # the values a loop over seeds computes (``split.looped_values``)
        self.pinned: frozenset[int] = frozenset()

    def plan(self, seeded: bool = True) -> FunctionPlan:
        tape, tapes = self.tape, self.tapes
        for t in tapes:
            for eqn in t.eqns:
                for a in eqn.args:
                    if isinstance(a, Var):
                        self.uses[a.id] = self.uses.get(a.id, 0) + 1
                for o in eqn.outs:
                    self.defs[o.id] = eqn
                    self.home[o.id] = t
            for a in t.outputs:
                if isinstance(a, Var):
                    self.uses[a.id] = self.uses.get(a.id, 0) + 1
        # in-place groups: a grad_zeros buffer (or a loop's gradient accumulator started from one)
        # and the chain of single-use index_adds into it
        self.bound = {v.id for t in tapes for e in t.eqns if e.regions for v, _ in bound_inputs(e)}
        for t in tapes:
            for eqn in t.eqns:
                if eqn.regions:
                    self.plan_control(t, eqn)
        self.plan_reads()
        self.index_vars = self.loop_indices()
        if self.backend.in_place:  # (the array API has no in-place writes: JAX arrays are immutable)
            writes, self.pinned = in_place_writes(tape)  # loops' writes, and what they must not inline
            self.inplace.update(writes)
            self.chains()
            self.branch_accumulators()
            self.chains()
        else:
            self.inplace.clear()
        self.looped, splits = seeded_splits(tape, self.inplace) if seeded else (set(), {})
        groups, rows, named = self.element_groups()
        self.appends = in_place_appends(tape, self.uses)
        # x -> the length of x its list form needs: one more than the largest k of its reads and
        # of its gradient's named rows (x_items is a list of x.shape == (n,) only)
        lengths: dict[int, int] = {}
        indices = [(x, e.params["index"][0]) for x, reads in self.element_reads.items() for e in reads]
        for root in named:
            indices += [(groups[root][0].id, k) for k in rows[root]]
        for x, k in indices:
            lengths[x] = max(k + 1, lengths.get(x, 0))
        # the name of a group: a member's user name or gradient name, the last one first
        group_var: dict[int, Var] = {}
        for t in tapes:
            for eqn in t.eqns:
                root = self.inplace.get(eqn.out.id)
                if root is not None and (eqn.out.hint or eqn.out.grad_of or root not in group_var):
                    group_var[root] = eqn.out
        for t in tapes:  # operands first: each value's answer needs its operands'
            for inp in t.inputs:
                self.has_methods(inp.var)
            for eqn in t.eqns:
                for o in eqn.outs:
                    self.has_methods(o)
        frozen = MappingProxyType
        checks = self.columns_form or not self.backend.scalars
        return FunctionPlan(
            tape=tape,
            columns_form=self.columns_form,
            uses=frozen(self.uses),
            defs=frozen(self.defs),
            home=frozen(self.home),
            inline=frozenset(self.inlined() - self.appends - self.pinned),
            inplace=frozen(self.inplace),
            group_var=frozen(group_var),
            first_writes=frozenset(self.first_writes(groups, named)),
            alias=frozen(self.alias),
            bound=frozenset(self.bound),
            index_vars=frozenset(self.index_vars),
            element_reads=frozen({x: tuple(reads) for x, reads in self.element_reads.items()}),
            unpacked_reads=frozenset(self.unpacked_reads),
            listed=frozenset(self.listed),
            item_groups=frozen(groups),
            item_rows=frozen(rows),
            named_rows=frozenset(named),
            item_lengths=frozen(lengths),
            methods=frozenset(v for v, known in self.methods.items() if known and self.backend.methods),
            appends=self.appends,
            check_scalar=not self.columns_form and tape.facts.check_scalar,
            # (the array-api target checks no dtype and keeps 0-d arrays: the standard has no scalars)
            may_be_0d=() if checks else zero_d_gradients(tape, self.tapes, self.defs),
            float_inputs=() if checks else real_only(tape, [(v, p) for v, p, _ in differentiated_inputs(tape)]),
            real_inputs=() if checks else real_only(tape, value_inputs(tape, self.tapes)),
            column_ranks=self.column_guard(),
            splits=frozen(splits),
        )

    def plan_reads(self) -> None:
        """x[3], x[8], ... of an argument read at least twice: named at once, first (unpack), and
        from x.tolist() when x is a 1-D float array (Python floats compute about 2x faster than
        the NumPy scalars x[3] gives; rows of a 2-D x are read as before)."""
        reads: dict[int, int] = {}
        for eqn in self.tape.eqns:
            if _element_read(self.tape, eqn):
                reads[eqn.args[0].id] = reads.get(eqn.args[0].id, 0) + 1
        self.element_reads: dict[int, list[Eqn]] = {}  # x -> its reads x[k], k >= 0
        for eqn in self.tape.eqns if not (self.columns_form or not self.backend.scalars) else ():  # read where used
            if _element_read(self.tape, eqn) and reads[eqn.args[0].id] >= 2 and eqn.params["index"][0] >= 0:
                self.element_reads.setdefault(eqn.args[0].id, []).append(eqn)
        self.unpacked_reads = {e.out.id for reads in self.element_reads.values() for e in reads}
        # (on the CPU only: for CuPy, tolist() would copy the array to the host)
        safe = self.backend.host and not self.columns_form
        safe = safe and all(float_safe(e) for t in self.tapes for e in t.eqns)
        self.listed = {v for v, n in reads.items() if n >= 2 and safe}

    def loop_indices(self) -> set[int]:
        """The index of a for loop (and its saved copies): one integer per iteration."""
        index_vars: set[int] = set()
        for t in self.tapes:
            for eqn in t.eqns:
                if eqn.prim in ("for", "for_back"):
                    index_vars.add(eqn.regions[-1].inputs[0].var.id)
                for r in eqn.regions:
                    index_vars.update(r.facts.index_vars)
                for inner, outer in bound_inputs(eqn) if eqn.regions else ():
                    if isinstance(outer, Var) and outer.id in index_vars:
                        index_vars.add(inner.id)
        return index_vars

    def chains(self) -> None:
        """Extend in-place groups along single-use ``index_add`` chains, and single-use writes
        (``setindex``) into a new array of the same block."""
        arrays = self.makes_arrays
        complex_values = self.table.complex_values
        for t in self.tapes:
            for eqn in t.eqns:
                buf = eqn.args[0] if eqn.args else None
                src = self.defs.get(buf.id) if isinstance(buf, Var) else None
                local = isinstance(buf, Var) and self.home.get(buf.id) is t
                extend_group(self.inplace, eqn, self.uses, self.outputs, src, local, arrays, complex_values)

    def branch_accumulators(self) -> None:
        """A branch that adds into a buffer of a group adds in place too; its result stays in the group."""
        for t in self.tapes:
            for eqn in t.eqns:
                if eqn.prim != "if_back" or not eqn.params.get("accs"):
                    continue
                accs = eqn.params["accs"]
                for n, (j, buf) in enumerate(zip(accs, eqn.args[len(eqn.args) - len(accs) :])):
                    if not isinstance(buf, Var) or self.uses.get(buf.id) != 1 or buf.id not in self.inplace:
                        continue
                    self.inplace[eqn.outs[j].id] = self.inplace[buf.id]
                    for r in eqn.regions:
                        acc_in = r.inputs[len(r.inputs) - len(accs) + n].var
                        self.inplace[acc_in.id] = acc_in.id

    def element_groups(self) -> tuple[dict[int, tuple[Var, int]], dict[int, tuple[int, ...]], set[int]]:
        """In-place groups built as a list of Python floats: ``grad_zeros(x)`` of an argument read
        by elements (``x_items``), then only ``dx[k] += g`` with constant integers ``k`` on the
        function's own level -> root id: (x, the id of the group's last member); the rows each
        one's array form assigns before it reads them; the groups whose rows are all named.
        ``np.zeros_like`` and a NumPy item write cost more than the whole scalar gradient of a
        small polynomial."""
        members: dict[int, list[Eqn]] = {}
        for eqn in self.tape.eqns:
            root = self.inplace.get(eqn.out.id)
            if root is not None:
                members.setdefault(root, []).append(eqn)
        counts: dict[int, int] = {}
        for root in self.inplace.values():
            counts[root] = counts.get(root, 0) + 1
        groups: dict[int, tuple[Var, int]] = {}
        item_rows: dict[int, tuple[int, ...]] = {}
        named_rows: set[int] = set()  # rows all >= 0: one local name per row (dx3)
        for root, (src, *adds) in members.items():
            x = src.args[0] if src.prim == "grad_zeros" else None
            known = isinstance(x, Var) and (x.id in self.listed or x.id in self.element_reads)
            if src.out.id != root or not (known or self.columns_form) or not adds:
                continue
            if counts[root] != len(adds) + 1:  # a member inside a loop or branch
                continue
            if not all(e.prim == "index_add" and len(e.args) == 2 and _one_int(e.params["index"]) for e in adds):
                continue
            named = not self.columns_form and min(e.params["index"][0] for e in adds) >= 0
            if not (named or self.columns_form or x.id in self.listed):  # dx[-1]: the list form needs x_items
                continue
            groups[root] = (x, adds[-1].out.id)
            # the rows the array form assigns before it reads them (the first writes dx[k] = g)
            rows, seen = set(), set()
            for e in adds:
                first, seen = next_write(seen, e)
                if first:
                    rows.add(e.params["index"][0])
            item_rows[root] = tuple(sorted(rows))
            if named:
                named_rows.add(root)
        return groups, item_rows, named_rows

    def first_writes(self, groups: dict[int, tuple[Var, int]], named: set[int]) -> set[int]:
        """The in-place writes that assign their element rather than add to it (``dx[3] = g``):
        the buffer is fresh zeros and no write before this one in its chain touched element 3.
        The chains are those of the writes an element group or a constant index writes in place
        (an ``np.add.at`` or a named row ends one)."""
        firsts: set[int] = set()
        written: dict[int, set | None] = {}  # chain member -> elements written
        for t in self.tapes:
            for eqn in t.eqns:
                root = self.inplace.get(eqn.out.id)
                if eqn.prim != "index_add" or root is None or root in named:
                    continue
                dynamic = eqn.args[2:]
                if (
                    root not in groups
                    and dynamic
                    and not all(isinstance(a, Var) and a.id in self.index_vars for a in dynamic)
                ):
                    continue  # np.add.at
                buf = eqn.args[0]
                seen = written.pop(buf.id, False)
                if seen is False:  # the chain starts here
                    src = self.defs.get(buf.id)
                    seen = set() if src is not None and src.prim == "grad_zeros" else None
                first, written[eqn.out.id] = next_write(seen, eqn)
                if first:
                    firsts.add(eqn.out.id)
        return firsts

    def inlined(self) -> set[int]:
        """Single-use temporaries written inline into their user on the same line, at most
        ``MAX_NESTING`` deep (Python's compiler and parser recurse on nesting)."""
        inline: set[int] = set()
        nesting: dict[int, int] = {}
        for t in self.tapes:
            for eqn in t.eqns:
                depth = 1
                for i, a in enumerate(eqn.args):
                    if eqn.regions and i >= _INLINE_ARGS.get(eqn.prim, 0):
                        continue  # a loop's or branch's values are bound to names
                    if self.can_inline(a, eqn, i) and nesting.get(a.id, 1) < MAX_NESTING:
                        inline.add(a.id)
                        depth = max(depth, nesting.get(a.id, 1) + 1)
                for o in eqn.outs:
                    nesting[o.id] = depth
            for eqn in t.eqns:
                if len(eqn.outs) == 1 and eqn.out.id in self.unpacked_reads:
                    inline.discard(eqn.out.id)  # named by the unpacking
                if eqn.prim == "while":  # the condition, written in the while statement when it can be
                    flag = eqn.regions[0].outputs[0]
                    if isinstance(flag, Var) and self.can_inline(flag, None, 0):
                        inline.add(flag.id)
        return inline

    def can_inline(self, a: Atom, user: Eqn | None, i: int) -> bool:
        if not isinstance(a, Var) or self.uses.get(a.id) != 1 or a.id in self.outputs:
            return False
        if user is not None and a.id not in self.looped and any(o.id in self.looped for o in user.outs):
            return False  # (made before a loop over seeds, read in it: named before it, computed once)
        d = self.defs.get(a.id)
        if d is None or d.regions or a.hint or a.id in self.inplace or d.prim == "setindex":
            return False  # a write is a statement
        if primitive(d.prim).own_line:
            return False
        if user is None:
            return self.pure(d)
        return not (
            (user.prim in ("index_add", "setindex") and i == 0)
            or d.section != user.section
            or (
                not _unnamed_term(a, d)
                and d.span
                and user.span
                and (d.span.line, d.span.path) != (user.span.line, user.span.path)
            )
            or not (self.pure(d) or (d.prim == "static" and user.regions))
        )  # (static code passed through is impure, but its condition of an if is written in the if)

    def pure(self, eqn: Eqn) -> bool:
        """``eqn``'s rule says it is pure (a row-by-row primitive, which has none, is)."""
        rule = self.table.rules.get(eqn.prim)
        return rule is None or rule.pure

    def plan_control(self, tape: Tape, eqn: Eqn) -> None:
        """Carried values of loops: an initial value used only here lends its name to the loop;
        a backward loop's accumulator started from ``grad_zeros`` is updated in place."""
        if eqn.prim == "if" or eqn.prim == "if_back":
            return
        lead = LEADING[eqn.prim]
        k = eqn.params["n_carry"]
        region = eqn.regions[-1]
        first = first_carried(eqn)
        # a region input that stands for an outer value goes by that value's name: a loop must not
        # overwrite it (a loop's free value is read again in the next iteration, a branch's after it)
        inputs = {i.var.id for i in tape.inputs if i.var.id not in self.bound} if tape is not self.tape else set()
        for j, (init, out) in enumerate(zip(eqn.args[lead : lead + k], eqn.outs)):
            if not isinstance(init, Var) or self.uses.get(init.id) != 1:
                continue
            d = self.defs.get(init.id)
            local = d is not None and self.home.get(init.id) is tape
            if init.id in inputs or (local and not d.regions):
                self.alias[init.id] = out
            elif not (local and init.id in self.inplace):  # an earlier backward loop's accumulator
                continue
            fresh = d is not None and d.prim == "grad_zeros"
            if eqn.prim.endswith("_back") and (fresh or init.id in self.inplace):
                carried = region.inputs[first + j].var
                self.inplace[carried.id] = carried.id
                self.inplace[out.id] = out.id  # that array is the loop's result: later writes go into it too

    def makes_arrays(self, a: Atom) -> bool:
        """Arithmetic on ``a`` makes an array (``ir.inplace.new_array``)."""
        return self.is_array(a) or self.has_methods(a)

    def is_array(self, a: Atom) -> bool:
        return _is_array(self.tape, self.defs, a)

    def has_methods(self, a: Atom) -> bool:
        """``a`` is surely an ndarray or a NumPy scalar, never a Python number, so that
        ``a.T`` and ``a.sum(...)`` may be written (``np.sum`` costs 1 µs more than the method,
        its Python wrapper's). Stricter than ``is_array``: a loop's result, a helper's or an
        element read from ``x.tolist()`` may be a Python float."""
        if isinstance(a, Lit):
            return False
        known = self.methods.get(a.id)
        if known is not None:
            return known
        d = self.defs.get(a.id)
        if d is None:
            known = a.id in self.tape.facts.array_inputs
        elif d.regions:
            known = False
        elif (record := primitive(d.prim)).sized_by and self.sized(d):  # a random draw of a given size
            known = True
        elif record.python_arithmetic or record.boolean:  # comparisons too
            known = any(type(b) is not Lit and self.has_methods(b) for b in d.args)  # NumPy operands: NumPy results
        elif d.prim == "unbroadcast":  # g itself, or an array made from it
            known = self.has_methods(d.args[0])
        elif d.prim == "getindex":
            listed = _element_read(self.tape, d) and d.args[0].id in self.listed
            known = not listed and self.has_methods(d.args[0])
        elif record.numpy_value:
            known = True
        else:  # np.X(...) by the rule's source name; not np.shape/np.size/np.ndim (Python values)
            names = [n for n in self.table.rules[d.prim].names if not n.startswith(NOT_CALLED)]
            called = helper_for(d.prim) is None and names and names[0].startswith("numpy.")
            known = bool(called) and not record.python_value
        self.methods[a.id] = known
        return known

    def sized(self, eqn: Eqn) -> bool:
        """``eqn`` is given the operand that makes its result an array (``primitive.sized_by``)."""
        name = primitive(eqn.prim).sized_by
        if eqn.params.get(name) is not None:  # a constant size: a parameter
            return True
        names = self.table.rules[eqn.prim].operand_names(len(eqn.args))
        given = [a for n, a in zip(names, eqn.args) if n == name]
        return bool(given) and not (isinstance(given[0], Lit) and given[0].value is None)

    def column_guard(self) -> Mapping[str, int] | None:
        """The rank each argument needs for a large call to be computed by blocks of columns
        (``columns.column_plan``), or None: no guard.  NumPy only (a GPU wants whole arrays), and
        not when a parameter hides a function of the module or is keyword-only (the blocks are
        passed by position)."""
        params = [p.name for p in self.tape.params]
        hidden = {f"grad_{self.tape.name}", columns_name(self.tape), "_out"} & set(params)
        keyword_only = any(p.kind is ParamKind.KEYWORD_ONLY for p in self.tape.params)
        if not self.columns or self.columns_form or not self.backend.host or keyword_only or hidden:
            return None
        if not self.tape.facts.mode.column_blocks:  # (the blocks would need dout's, and a Jacobian's, columns)
            return None
        if not self.tape.facts.form.choices:  # (--form: one algorithm, no run-time choice)
            return None
        ranks = column_plan(self.tape, self.table)
        return None if ranks is None else MappingProxyType(ranks)
