"""The finishing passes: the optimized gradient ``Tape`` in, an equivalent ``Tape`` out that the
code generator writes as less work at run time.

The pipeline runs each once, after ``optimize``, in this order (``factor``'s passes between):

    optimize -> drop_value (--no-value only) -> common_factors -> merge_reciprocals
             -> shape_reads -> joined_parts -> stand_ins -> float_literals -> float_gradients

- ``drop_value``: the gradient tape without its value, and without the work only the value
  needed (``grad_NAME`` returns only the gradients);
- ``shape_reads`` (forward mode): a value read only for its shape is read from one of the same
  shape class computed anyway (the transposed VJP's stand-in backward pass goes);
- ``joined_parts`` (forward mode): a sum of each part of a concatenation placed is their
  concatenation;
- ``stand_ins``: values the gradients read only for their shape and dtype are not computed
  (``_like``, ``np.broadcast``);
- ``float_literals``: an integer constant whose value goes only into gradients is written as
  a float;
- ``float_gradients``: a gradient that may be an integer (a count, an integer parameter) is
  multiplied by ``1.0``.

Each keeps the value of every output it keeps (tests check it with the interpreter).

    >>> from yota_s2s.ir.core import Lit, Section, Tape
    >>> t = Tape("f"); x = t.add_input("x")
    >>> t.outputs = [t.add_eqn("mul", [x, x]), t.add_eqn("mul", [x, Lit(2)], section=Section.BACKWARD)]
    >>> float_literals(t).eqns[-1].args[1]
    Lit(value=2.0)
"""

from __future__ import annotations

from ..dsl.rule import RuleTable
from ..ir.core import Atom, Eqn, Lit, Section, Tape, Var
from ..ir.live import needed
from ..ir.primitives import primitive
from ..ir.shapes import NUMBER, shape_classes
from .dce import dce
from .values import inexact_values, value_key


def drop_value(tape: Tape, table: RuleTable) -> Tape:
    """The gradient tape without its value: ``grad_NAME`` returns only the gradients.

    The value is dropped after ``optimize``, which needs it (its shape class, a scalar, is what
    proves that ``unbroadcast`` and the spread of ``sum`` need no run-time test); dead-code
    elimination then removes the forward work only the value used.

    Where shapes cannot prove the value a scalar, the run-time check needs a value of its shape.
    A shape class is a set of atoms and the value's shape is theirs broadcast, so when its class
    is one atom, any value of exactly that class that the gradients compute anyway (or an input)
    is a scalar exactly when the value is: ``x3 = x[3]`` answers for the whole polynomial in
    ``x[3] * x[8] ** 3 - ...``.  Otherwise the value is kept for the check.

    Likewise a value the gradients use only for its size (``np.size(r * r)``, the count of a
    mean) is replaced there by a value they compute anyway of the same class (``r``).
    """
    tape = _size_of_live_values(tape, table)
    kept = _with_first_output(tape, Lit(None), table)
    if tape.facts.check_scalar and not tape.facts.mode.forward:  # (jvp_NAME checks its tangents, not its value)
        kept = _with_first_output(tape, _scalar_witness(tape, kept, table) or tape.outputs[0], table)
    kept.out_tree = list(tape.out_tree[1:])
    kept.facts.value = False
    return kept


def _with_first_output(tape: Tape, first: Atom, table: RuleTable) -> Tape:
    """``tape`` returning ``first`` in place of its value, without the equations nothing uses then."""
    new = tape.copy_header()
    new.eqns, new.outputs = list(tape.eqns), [first, *tape.outputs[1:]]
    return dce(new, table)


def _scalar_witness(tape: Tape, kept: Tape, table: RuleTable) -> Var | None:
    """A value of ``kept``'s forward sweep (or an input) whose shape class is exactly the value's, if
    its class is one atom (the check is written where the backward sweep starts: a backward value,
    ``2 * v`` for ``v * v``, is not computed yet there)."""
    classes = shape_classes(tape, table, scalar_keys=frozenset())  # no assumption that the value is scalar
    wanted = classes.of(tape.outputs[0])
    if len(wanted) != 1:
        return None
    # the check is written before the backward sweep: a witness is an input or a forward value
    forward = [o for e in kept.eqns if not e.regions and e.section == Section.FORWARD for o in e.outs]
    candidates = [inp.var for inp in tape.inputs] + forward
    return next((v for v in candidates if classes.of(v) == wanted), None)


def _size_of_live_values(tape: Tape, table: RuleTable) -> Tape:
    """``size(v)`` -> ``size(u)`` where ``v`` is needed for nothing else and ``u`` (an input, or a
    value the gradients need) has the same shape class (classes as ``optimize`` proved them).

    Never an array that is written into (``v[0] = x``): a read after the write would make the
    code generator copy it before writing."""
    live = {a.id for a in tape.outputs[1:] if isinstance(a, Var)}
    for eqn in reversed(tape.eqns):  # live without counting size's operand as a use (regions are closed)
        if eqn.prim != "size" and needed(eqn, live, table):
            live.update(a.id for a in eqn.args if isinstance(a, Var))
    classes = shape_classes(tape, table)
    known: list[Var] = [inp.var for inp in tape.inputs]
    # an array written into (``v[0] = x``) is written in place only if nothing else reads it
    written = {e.args[0].id for e in tape.eqns if e.prim in ("setindex", "index_add") and isinstance(e.args[0], Var)}
    new = tape.copy_header()
    new.outputs = list(tape.outputs)
    for eqn in tape.eqns:
        (v,) = eqn.args if eqn.prim == "size" and len(eqn.args) == 1 else (None,)
        if isinstance(v, Var) and v.id not in live:
            same = next((u for u in known if classes.of(u) == classes.of(v)), None)
            if same is not None:
                eqn = Eqn(eqn.prim, [same], dict(eqn.params), list(eqn.outs), eqn.span, eqn.regions, eqn.section)
        new.eqns.append(eqn)
        known.extend(o for o in eqn.outs if o.id in live and o.id not in written and not eqn.regions)
    return new


def stand_ins(tape: Tape, table: RuleTable, sizes: bool = True) -> Tape:
    """Values the gradients read only for their shape and dtype are not computed.

    ``np.sum(W @ x + b[:, None])`` spreads its adjoint over the shape of ``W @ x + b[:, None]``
    and gives ``W @ x`` that shape, but without the value nothing reads the product itself:
    ``_like_matmul(W, x)`` is an uninitialised array of its shape and dtype, and
    ``_like(_t1, _t2)`` one of the sum's (both ``empty``).  A value is read only for its
    shape when every use is an operand of ``size``, ``unreduce``, ``unbroadcast``, ... or of a
    stand-in or a view made for the same reason.  Top level only (a loop's values are pushed).

    With ``sizes`` (NumPy), a sum, difference or product read only for its size, shape or rank
    (``np.size`` of it, or of another such value) is ``np.broadcast(x, y)``: an object with
    the broadcast shape and no array behind it (0.3 µs against 0.8 for ``_like``; nested
    broadcasts take broadcasts).
    """
    shape_only: set[int] = set()
    size_only: set[int] = set()
    reads: dict[int, bool] = {a.id: False for a in tape.outputs if isinstance(a, Var)}  # id -> shape use only
    sized: dict[int, bool] = dict(reads)  # id -> size, shape or rank use only
    inexact = inexact_values(tape)
    aliases: dict[int, Atom] = {}  # id -> the operand that stands in for it (np.log(s) -> s)
    for eqn in reversed(tape.eqns):
        out = eqn.outs[0] if len(eqn.outs) == 1 else None
        record = primitive(eqn.prim)
        if out is not None and reads.get(out.id) and (record.stand_in or record.stand_in_view):
            shape_only.add(out.id)
            if sizes and sized.get(out.id) and record.stand_in == "like":
                size_only.add(out.id)
        same = _same_shape_operand(eqn, inexact) if record.stand_in == "like" else None
        if out is not None and reads.get(out.id) and same is not None:
            # _like(x, x), _like(x, 2.0): x has the shape and dtype the gradient reads, no stand-in
            aliases[out.id] = eqn.args[same]
            positions = tuple(k for k, a in enumerate(eqn.args) if a is eqn.args[same] or _same_var(a, eqn.args[same]))
            size_use = sized.get(out.id, True)
        elif out is not None and reads.get(out.id) and record.same_inexact and value_key(eqn.args[0]) in inexact:
            aliases[out.id] = eqn.args[0]  # its operand is read as it would have been
            positions, size_use = (0,), sized.get(out.id, True)
        else:
            if out is not None and out.id in shape_only:
                positions = range(len(eqn.args)) if record.stand_in else (0,)
            else:
                positions = () if eqn.regions else record.shape_operands
            size_use = out is not None and out.id in size_only or record.size_query
        for n, a in enumerate(eqn.args):
            if isinstance(a, Var):
                reads[a.id] = reads.get(a.id, True) and n in positions
                sized[a.id] = sized.get(a.id, True) and size_use
    replaced = {id(e) for e in tape.eqns if primitive(e.prim).stand_in and e.outs[0].id in shape_only}
    if not replaced and not aliases:
        return tape

    def alias(a: Atom) -> Atom:
        while isinstance(a, Var) and a.id in aliases:
            a = aliases[a.id]
        return a

    new = tape.copy_header()
    new.outputs = list(tape.outputs)
    broadcasts: dict[tuple, list[Atom]] = {}  # key -> the operands of its np.broadcast
    for eqn in tape.eqns:
        if len(eqn.outs) == 1 and eqn.outs[0].id in aliases:
            continue
        stand_in = id(eqn) in replaced
        if aliases and any(isinstance(a, Var) and a.id in aliases for a in eqn.args):
            args = [alias(a) for a in eqn.args]
            eqn = Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, eqn.regions, eqn.section)
        if stand_in and eqn.outs[0].id in size_only:
            # np.broadcast(np.broadcast(a, b), 2, m) is np.broadcast(a, b, m): a number has no axes
            args = [b for a in eqn.args for b in broadcasts.get(value_key(a), [a]) if not _number(b)] or eqn.args[:1]
            broadcasts[value_key(eqn.outs[0])] = args
            eqn = Eqn("broadcast", args, {}, list(eqn.outs), eqn.span, (), eqn.section)
        elif stand_in:
            eqn = Eqn(primitive(eqn.prim).stand_in, list(eqn.args), {}, list(eqn.outs), eqn.span, (), eqn.section)
        new.eqns.append(eqn)
    return dce(new, table) if broadcasts else new


#: The operands read for their shape alone, by primitive (``_unbroadcast(g, x)`` reads the dtype of
#: ``x`` too, where it broadcasts ``g`` up: the stand-in is then of an inexact dtype, as ``x`` was).
_SHAPE_READS = {
    "unbroadcast": (1,),
    "keep_axes": (1,),
    "shape": (0,),
    "size": (0,),
    "ndim": (0,),
    "len": (0,),
    "broadcast": None,  # (every operand)
}


def shape_reads(tape: Tape, table: RuleTable) -> Tape:
    """A value read only for its shape is read from a value of the same shape class that is
    computed anyway (an input, the value, a tangent), and is then not computed.

    The JVP by transposition (``differentiate.transposed``) differentiates the VJP, whose adjoints
    it then reads only for their shapes (``_unbroadcast(u_dot, _concat_part(dup, ...))``, with
    ``dup`` the adjoint of ``up``, computed from the value standing in for ``dout``): the shapes
    prove each of the same class as a value of the forward sweep, and the stand-in backward pass
    goes.  Only tapes of forward mode (``--jvp``) and ``jac_NAME``'s forward columns.  Top level
    only; the replacement is written before its reader and is surely inexact where the reader may
    read a dtype (``inexact_values``)."""
    if not (tape.facts.mode.forward or tape.facts.columns):
        return tape
    live = {a.id for a in tape.outputs if isinstance(a, Var)}
    for eqn in reversed(tape.eqns):  # live without counting shape reads as uses
        if needed(eqn, live, table):
            reads = _SHAPE_READS.get(eqn.prim, ())
            live.update(a.id for k, a in enumerate(eqn.args) if isinstance(a, Var) and not _read(reads, k))
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    classes.same.update(tape.facts.same_shape)
    inexact = inexact_values(tape)
    active = {inp.var.id for inp in tape.inputs if inp.path[0] in tape.facts.wrt}  # (real floats: _real_args)
    # never a value computed from a seed: a batched sweep reads it with a leading axis of colors, and
    # jac_NAME's rows (seeded by dout) are computed in the other branch than its columns
    seeds = {tape.facts.seed, *tape.facts.tangents, *tape.facts.columns}
    seeded = {inp.var.id for inp in tape.inputs if inp.path[0] in seeds}
    known: dict[frozenset, Var] = {}  # class -> the first inexact value of it computed anyway
    for inp in tape.inputs:
        if inp.var.id in active:
            known.setdefault(classes.of(inp.var), inp.var)
    changed = False
    new = tape.copy_header()
    new.outputs = list(tape.outputs)
    for eqn in tape.eqns:
        reads = _SHAPE_READS.get(eqn.prim, ())
        if reads != () and any(
            isinstance(a, Var) and a.id not in live and _read(reads, k) for k, a in enumerate(eqn.args)
        ):
            args = list(eqn.args)
            for k, a in enumerate(args):
                if isinstance(a, Var) and a.id not in live and _read(reads, k):
                    same = known.get(classes.of(a))
                    if same is not None and same is not a:
                        args[k], changed = same, True
            eqn = Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, eqn.regions, eqn.section)
        new.eqns.append(eqn)
        if eqn.regions or len(eqn.outs) != 1:
            continue
        record = primitive(eqn.prim)
        if any(isinstance(a, Var) and a.id in seeded for a in eqn.args):
            seeded.add(eqn.out.id)
            continue
        if any(isinstance(a, Var) and a.id in active for a in eqn.args) and not (
            eqn.prim in _INTEGER_PRIMS or record.size_query or record.boolean
        ):
            active.add(eqn.out.id)
        if eqn.out.id in live and (eqn.out.id in active or value_key(eqn.out) in inexact):
            known.setdefault(classes.of(eqn.out), eqn.out)
    return _same_shapes(dce(new, table), table) if changed else tape


def joined_parts(tape: Tape, table: RuleTable) -> Tape:
    """A sum of ``_join_place(d_i, xs, part=i, join="concatenate")``, one for every part of ``xs``,
    is ``np.concatenate([d_0, d_1, ...])``: one array made, where each term made one of the whole
    shape, zeros but for its part, and the sum a third.  The transposed JVP of a concatenation
    writes such sums (each part's tangent placed); each ``d_i`` must be proven of ``xs[i]``'s shape
    (``join_place`` reshapes).  Only tapes of forward mode (``--jvp``) and forward columns."""
    if not (tape.facts.mode.forward or tape.facts.columns):
        return tape
    defs = {e.out.id: e for e in tape.eqns if len(e.outs) == 1 and not e.regions}
    uses: dict[int, int] = {}
    for e in tape.eqns:
        for a in e.args:
            if isinstance(a, Var):
                uses[a.id] = uses.get(a.id, 0) + 1
    for a in tape.outputs:
        if isinstance(a, Var):
            uses[a.id] = uses.get(a.id, 0) + 1
    classes = None
    replaced: dict[int, Eqn] = {}
    for eqn in tape.eqns:
        if eqn.prim != "add" or len(eqn.outs) != 1 or eqn.regions:
            continue
        leaves, todo = [], list(eqn.args)
        while todo:  # (the terms of the sum: adds read once, opened)
            a = todo.pop()
            d = defs.get(a.id) if isinstance(a, Var) else None
            if d is not None and d.prim == "add" and uses.get(a.id) == 1:
                todo.extend(d.args)
            else:
                leaves.append(d)
        if not leaves or any(
            d is None or d.prim != "join_place" or d.params.get("join") != "concatenate" for d in leaves
        ):
            continue
        xs = [value_key(a) for a in leaves[0].args[1:]]
        parts = sorted(d.params.get("part") for d in leaves)
        same = all(
            [value_key(a) for a in d.args[1:]] == xs and d.params == {**leaves[0].params, "part": d.params["part"]}
            for d in leaves
        )
        if not same or parts != list(range(len(xs))):
            continue
        if classes is None:
            classes = shape_classes(tape, table, scalar_keys=frozenset())
            classes.same.update(tape.facts.same_shape)
        ordered = sorted(leaves, key=lambda d: d.params["part"])
        if any(classes.of(d.args[0]) != classes.of(d.args[1 + d.params["part"]]) for d in ordered):
            continue
        params = {"axis": leaves[0].params["axis"]}
        replaced[id(eqn)] = Eqn(
            "concatenate", [d.args[0] for d in ordered], params, list(eqn.outs), eqn.span, (), eqn.section
        )
    if not replaced:
        return tape
    new = tape.copy_header()
    new.outputs = list(tape.outputs)
    new.eqns = [replaced.get(id(e), e) for e in tape.eqns]
    return dce(new, table)


def _same_shapes(tape: Tape, table: RuleTable) -> Tape:
    """``_unbroadcast(g, x)`` and ``np.broadcast_to(g, np.shape(x))`` where the shapes prove ``g`` of
    ``x``'s shape are ``g`` (what the shape reads above replaced can prove it where the optimizer,
    which ran before, could not)."""
    classes = shape_classes(tape, table, scalar_keys=frozenset())
    classes.same.update(tape.facts.same_shape)
    aliases: dict[int, Atom] = {}
    queries: dict[tuple, Var] = {}  # (np.shape(x) read where several were: one)
    new = tape.copy_header()
    for eqn in tape.eqns:
        if aliases and any(isinstance(a, Var) and a.id in aliases for a in eqn.args):
            args = [aliases.get(a.id, a) if isinstance(a, Var) else a for a in eqn.args]
            eqn = Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, eqn.regions, eqn.section)
        if eqn.prim in _SHAPE_READS and eqn.prim != "unbroadcast" and not eqn.regions and len(eqn.outs) == 1:
            key = (eqn.prim, tuple(value_key(a) for a in eqn.args), repr(sorted(eqn.params.items())), eqn.section)
            if key in queries:
                aliases[eqn.out.id] = queries[key]
                continue
            queries[key] = eqn.out
        g = eqn.args[0] if eqn.prim in ("unbroadcast", "broadcast_to") and len(eqn.args) == 2 else None
        if isinstance(g, Var) and classes.of(g) == classes.of(eqn.out):
            aliases[eqn.out.id] = g
            continue
        new.eqns.append(eqn)
    new.outputs = [aliases.get(a.id, a) if isinstance(a, Var) else a for a in tape.outputs]
    return dce(new, table) if aliases else tape


def _read(reads: tuple | None, k: int) -> bool:
    return reads is None or k in reads


def _same_var(a: Atom, b: Atom) -> bool:
    return isinstance(a, Var) and isinstance(b, Var) and a.id == b.id


def _same_shape_operand(eqn: Eqn, inexact: set[tuple]) -> int | None:
    """The position of an operand of ``x + y``, ``x - y`` or ``x * y`` whose shape and dtype the
    result has: ``x`` of ``x * x``, or of ``x * 2.0`` where ``x`` is surely inexact (a Python
    number does not change a float array's dtype); None for two different values."""
    if len(eqn.args) != 2:
        return None
    a, b = eqn.args
    if isinstance(a, Var) and isinstance(b, Var) and a.id == b.id:
        return 0
    for k, (x, other) in enumerate(((a, b), (b, a))):
        number = isinstance(other, Lit) and type(other.value) in (int, float)
        if number and isinstance(x, Var) and value_key(x) in inexact:
            return k
    return None


def float_literals(tape: Tape) -> Tape:
    """In the backward sweep, an integer constant of ``+``, ``-``, ``*`` or ``/`` whose value goes
    only into gradients is written as a float: ``_t9 * x7 * 3.0``.

    A gradient is a float (``_grad_zeros``, ``np.asarray(dx, x.dtype)`` and ``_grad_stack`` make
    an integer ``x``'s float64), and the seed it grows from is ``1.0``: the product ``1.0 * _t9 *
    x7 * 3`` is a float, which dropping the ``1.0`` (``_neutral``) left to the operands.  With a
    float or an array of floats the constant gives the same value either way; Python computes
    ``float * 3.0`` without first trying ``int.__mul__``, 10 ns less an operation (the poly8
    gradient's arithmetic: 0.97 -> 0.85 µs).  Values read by anything else keep their constants
    (a size, a count, an index, an operand of a loop), and so does the forward sweep, which
    computes what the function computes.  Top level only.
    """
    value = tape.outputs[0] if tape.outputs else None
    grads = {a.id for a in tape.outputs[1:] if isinstance(a, Var) and a is not value}
    readers: dict[int, list[tuple[Eqn, int]]] = {}
    for eqn in tape.eqns:
        for i, a in enumerate(eqn.args):
            if isinstance(a, Var):
                readers.setdefault(a.id, []).append((eqn, i))
    terms: set[int] = set()
    for eqn in reversed(tape.eqns):
        if eqn.section != Section.BACKWARD or eqn.regions or len(eqn.outs) != 1 or eqn.out is value:
            continue
        read = readers.get(eqn.out.id, [])
        if (read or eqn.out.id in grads) and all(
            r.out.id in terms and i in primitive(r.prim).gradient_terms for r, i in read
        ):
            terms.add(eqn.out.id)
    new = tape.copy_header()
    new.outputs = list(tape.outputs)
    for eqn in tape.eqns:
        if eqn.prim in ("add", "sub", "mul", "truediv") and eqn.out.id in terms:
            args = [_as_float(a) for a in eqn.args]
            if any(a is not b for a, b in zip(args, eqn.args)):
                eqn = Eqn(eqn.prim, args, dict(eqn.params), list(eqn.outs), eqn.span, eqn.regions, eqn.section)
        new.eqns.append(eqn)
    return new


def float_gradients(tape: Tape) -> Tape:
    """A gradient that may be an integer is multiplied by ``1.0``: ``dy = 1.0 * n`` for
    ``f = y * n`` of an integer ``n`` (a parameter without a gradient, ``len(x)``, a count).

    The seed ``1.0`` makes every gradient a float, but ``_neutral`` drops it from products whose
    other operand is a gradient's term, and that term is an integer where it is a count or an
    integer parameter: the float parameter's gradient came back an int (or an int64 array).
    Only the tape's own outputs are read (a loop's or branch's result is left as it is)."""
    wrt = set(tape.facts.wrt)
    params = {inp.var.id for inp in tape.inputs if isinstance(inp.path[0], str) and inp.path[0] not in wrt}
    defs = {o.id: e for e in tape.eqns for o in e.outs}

    def may_be_int(a: Atom, depth: int = 0) -> bool:
        if isinstance(a, Lit):
            return type(a.value) is int
        d = defs.get(a.id)
        if d is None:  # an input: a parameter without a gradient may hold an integer
            return a.id in params
        record = primitive(d.prim)
        if d.prim in _INTEGER_PRIMS or record.size_query:
            return True
        if d.regions or record.makes_inexact or record.boolean or depth > 32 or not d.args:
            return False
        return all(may_be_int(b, depth + 1) for b in d.args)

    # each gradient output that may be an integer -> the input it is the gradient of (its name: dy)
    flagged = {
        k: inp.var
        for inp, k in tape.gradient_places()
        if not isinstance(tape.outputs[k], Lit) and may_be_int(tape.outputs[k])
    }
    if not flagged:
        return tape
    new = tape.copy_header()
    new.eqns = list(tape.eqns)
    new.outputs = list(tape.outputs)
    for k, owner in flagged.items():
        out = Var(grad_of=owner)
        new.eqns.append(Eqn("mul", [Lit(1.0), tape.outputs[k]], {}, [out], None, (), Section.BACKWARD))
        new.outputs[k] = out
    return new


#: Primitives whose values are integers (or, static code's, may be): counts and indices.
_INTEGER_PRIMS = frozenset({"len", "shape", "size", "argmax", "argmin", "static"})


def _as_float(a: Atom) -> Atom:
    """An integer constant as the float of the same value (exact below 2 ** 53), else ``a``."""
    if isinstance(a, Lit) and type(a.value) is int and abs(a.value) < 2**53:
        return Lit(float(a.value))
    return a


def _number(a: Atom) -> bool:
    return isinstance(a, Lit) and isinstance(a.value, NUMBER)


def separate_buffers(tape: Tape) -> Tape:
    """A Jacobian whose rows are written out: each row's gradient buffer its own (``grad_zeros(x)``,
    which the optimizer made one for every row, made again for each ``index_add`` that writes
    into it), so that each row is built by elements in place (``dx = [dx0, dx1, ...]``) rather
    than by copies of one buffer.  Only the function's own level, and only ``--jacobian``'s
    rows (``facts.rows``), and ``--hvp``'s and ``--hessian``'s two sweeps (the gradient's and the
    second's each write into their own buffer, in place, where ``_index_add`` would copy it)."""
    if not tape.facts.rows and tape.facts.mode.order == 1:
        return tape
    zeros = {e.out.id: e for e in tape.eqns if e.prim == "grad_zeros" and e.section == Section.BACKWARD}
    writers = [e for e in tape.eqns if e.prim == "index_add" and isinstance(e.args[0], Var) and e.args[0].id in zeros]
    shared = {i for i in zeros if sum(1 for e in writers if e.args[0].id == i) > 1}
    if not shared:
        return tape
    # (a buffer also read as it is, zeros: a row of a number, kept for those readers)
    read = {a.id for e in tape.eqns if e not in writers for a in e.args if isinstance(a, Var)}
    read |= {a.id for a in tape.outputs if isinstance(a, Var)}
    new = tape.copy_header()
    new.outputs = list(tape.outputs)
    for eqn in tape.eqns:
        if eqn.prim == "grad_zeros" and eqn.out.id in shared and eqn.out.id not in read:
            continue
        if eqn.prim == "index_add" and isinstance(eqn.args[0], Var) and eqn.args[0].id in shared:
            made = zeros[eqn.args[0].id]
            fresh = Var(hint=made.out.hint, grad_of=made.out.grad_of)
            new.eqns.append(Eqn("grad_zeros", list(made.args), dict(made.params), [fresh], made.span, (), made.section))
            eqn = Eqn(eqn.prim, [fresh, *eqn.args[1:]], dict(eqn.params), list(eqn.outs), eqn.span, (), eqn.section)
        new.eqns.append(eqn)
    return new


def stacked_tangents(tape: Tape, table: RuleTable) -> Tape:
    """``jvp_NAME`` of a value ``np.stack([e0, e1, ...])``: ``dvalue``, a sum of one ``untake`` per
    element (``_untake(g1, value, 1, axis=0) + _untake(g0, value, 0, axis=0)``, what transposing the
    stack's ``take`` of each element gives), written as the stack of the elements' tangents
    (``np.stack([g0, g1])``; zeros of an element's shape where none reaches it).  Only ``--jvp``."""
    if not tape.facts.mode.forward or not tape.outputs or not isinstance(tape.outputs[-1], Var):
        return tape
    defs = {o.id: e for e in tape.eqns for o in e.outs}
    leaves: list[Atom] = []
    todo: list[Atom] = [tape.outputs[-1]]
    while todo:
        a = todo.pop()
        d = defs.get(a.id) if isinstance(a, Var) else None
        if d is not None and d.prim == "add":
            todo.extend(d.args)
        else:
            leaves.append(a)
    parts: dict[int, Atom] = {}
    value = None
    for leaf in leaves:
        d = defs.get(leaf.id) if isinstance(leaf, Var) else None
        if d is None or d.prim != "untake" or d.params.get("axis") != 0 or len(d.args) != 3:
            return tape
        g, v, k = d.args
        if not isinstance(k, Lit) or type(k.value) is not int or k.value in parts or not isinstance(g, Var):
            return tape
        if value is not None and v is not value:
            return tape
        value, parts[k.value] = v, g
    made = defs.get(value.id) if isinstance(value, Var) else None
    if made is None or made.prim != "stack" or made.params.get("axis", 0) != 0:
        return tape
    if not all(0 <= k < len(made.args) for k in parts):
        return tape
    new = tape.copy_header()
    new.eqns = list(tape.eqns)
    rows: list[Atom] = []
    for k, element in enumerate(made.args):
        if k in parts:
            rows.append(parts[k])
            continue
        zeros = Var()
        new.eqns.append(Eqn("grad_zeros", [element], {}, [zeros], None, (), Section.BACKWARD))
        rows.append(zeros)
    dvalue = Var(hint="dvalue")
    new.eqns.append(Eqn("stack", rows, {"axis": 0}, [dvalue], None, (), Section.BACKWARD))
    new.outputs = [*tape.outputs[:-1], dvalue]
    return dce(new, table)
