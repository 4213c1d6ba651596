"""The tangent of one primitive's result in forward mode, from its operands' tangents.

A rule gives reverse formulas: ``d<operand>`` is a linear map of ``dout``.  Its transpose is the
forward map, operand tangent -> result tangent: ``transform.forward`` needs it for each active
operand of each equation.  It is *derived*, not written: the primitive alone is put on a tiny
tape (``a0 = ...``, one input per operand, the constants kept), whose JVP ``transposed`` writes by
differentiating the VJP again with respect to ``dout`` (the machinery of ``--jvp`` without loops);
that tape is cached per primitive, static parameters, operand and constants, and inlined at each
use.  A rule whose reverse formula calls a helper without a rule of its own for ``g`` (the parts
of ``np.concatenate``, a list's items) gives its forward formula instead, ``out_dot = ...`` over
the tangents ``<operand>_dot`` (``rule.tangent``), with zeros for the constant operands.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Tape
    >>> t = Tape("f"); x = t.add_input("x"); dx = t.add_input("dx")
    >>> y = t.add_eqn("sin", [x])
    >>> b = TangentBuilder(t.eqns, None)
    >>> _ = Tangents(load_rules()).of(t.eqns[0], {x.id: dx}, {x.id}, b)
    >>> [e.prim for e in t.eqns]
    ['sin', 'cos', 'mul']
"""

from __future__ import annotations

import ast
from collections.abc import Container

from ..dsl.rule import Rule, RuleTable
from ..dsl.splice import instantiate, instantiate_tangent
from ..errors import UserError, at_span
from ..ir.core import Atom, Eqn, Lit, Param, Section, Span, Tape, Var
from ..ir.folding import fold_lits
from ..ir.shapes import shape_classes
from .differentiate import transposed
from .optimize import optimize


class TangentBuilder:
    """Appends the tangent equations to a list of equations (a tape's, a region's), folding constants."""

    def __init__(self, eqns: list[Eqn], span: Span | None):
        self.eqns = eqns
        self.span = span
        self.section = Section.FORWARD  # (that of the equation whose tangent is computed)

    def add(self, prim: str, args: list[Atom], params: dict[str, object]) -> Atom:
        if all(isinstance(a, Lit) for a in args) and (folded := fold_lits(prim, args)) is not None:
            return folded
        out = Var()
        self.eqns.append(Eqn(prim, list(args), dict(params), [out], self.span, (), self.section))
        return out


class Tangents:
    """The tangent rules of a rule table: derived by transposing each VJP once, or the rule's own."""

    def __init__(self, table: RuleTable):
        self.table = table
        self.cache: dict[tuple, Tape | str] = {}
        #: The equation that makes each value (of the whole tape and its regions): a constant
        #: list's zero tangent is made like the list (``zero_tangent``).
        self.defs: dict[int, Eqn] = {}
        #: Per primitive: whether its reverse formulas are elementwise (``_diagonal``).
        self.diagonal: dict[str, bool] = {}

    def of(self, eqn: Eqn, tan: dict[int, Atom], active: Container[int], builder: TangentBuilder) -> Atom:
        """The tangent of ``eqn``'s result (one result, a primitive's): the sum of each active
        operand's part (``tan``: the tangents of the active values)."""
        rule = self.table[eqn.prim]
        names = rule.operand_names(len(eqn.args))
        wanted = [
            k
            for k, (name, a) in enumerate(zip(names, eqn.args))
            if isinstance(a, Var) and a.id in active and name not in rule.nondiff
        ]
        builder.span, builder.section = eqn.span, eqn.section
        if rule.tangent is not None:
            tangents = [
                tan[a.id] if k in wanted else zero_tangent(a, builder, self.defs) for k, a in enumerate(eqn.args)
            ]
            try:
                return instantiate_tangent(rule, eqn.args, tangents, eqn.params, eqn.out, builder, self.table)
            except NotImplementedError as exc:
                raise at_span("YS107", f"no tangent of {eqn.prim}(): {exc}", eqn.span) from None
        diagonal = self._diagonal(eqn, rule, wanted)
        total: Atom | None = None
        for k in wanted:
            t = tan[eqn.args[k].id]
            if diagonal:  # the reverse formula itself, dout the tangent: an elementwise map is its own transpose
                grads = instantiate(
                    rule, [(names[k], k)], eqn.args, eqn.params, eqn.out, t, _Unreduced(builder), self.table
                )
                part = grads[names[k], k]
            else:
                part = self._inlined(eqn, k, t, builder)
            total = part if total is None else builder.add("add", [total, part], {})
        assert total is not None  # (an active result has an active operand)
        return total

    def _diagonal(self, eqn: Eqn, rule: Rule, wanted: list[int]) -> bool:
        """Whether ``eqn``'s tangent is the sum of its reverse formulas with ``dout`` the operands'
        tangents, their ``unbroadcast`` dropped: an elementwise primitive (its Jacobian diagonal,
        its own transpose) whose formulas call elementwise primitives only, every variable operand
        differentiated and every constant a number.  The parts then have the operands' shapes
        broadcast with the partial derivatives', and their sum the result's, as no operand without a
        tangent can widen it (the transposed form broadcasts each part to the result's shape)."""
        if rule.shape != "elementwise" or rule.tangent is not None:
            return False
        if any(isinstance(a, Var) and k not in wanted for k, a in enumerate(eqn.args)):
            return False
        if any(isinstance(a, Lit) and not isinstance(a.value, int | float) for a in eqn.args):
            return False
        found = self.diagonal.get(eqn.prim)
        if found is None:
            formulas = [*rule.grads.values(), *rule.temps.values()]
            calls = [n.func.id for f in formulas for n in ast.walk(f) if isinstance(n, ast.Call)]
            found = self.diagonal[eqn.prim] = all(
                c == "unbroadcast" or (c in self.table and self.table[c].shape == "elementwise") for c in calls
            )
        return found

    def _inlined(self, eqn: Eqn, k: int, tangent: Atom, builder: TangentBuilder) -> Atom:
        """Operand ``k``'s part of the tangent: the derived tape, its inputs bound to ``eqn``'s."""
        jvp = self._derived(eqn, k)
        subst: dict[int, Atom] = {}
        real = iter([a for a in eqn.args if isinstance(a, Var)])
        for inp in jvp.inputs:
            subst[inp.var.id] = tangent if inp.path[0] == "t" else next(real)
        value = jvp.outputs[0]
        if isinstance(value, Var) and value.id not in subst:
            subst[value.id] = eqn.out
        for e in jvp.eqns:
            if isinstance(value, Var) and value in e.outs:
                continue  # the primal result, which the caller computes
            args = [subst.get(a.id, a) if isinstance(a, Var) else a for a in e.args]
            out = builder.add(e.prim, args, e.params)
            subst[e.out.id] = out
        dvalue = jvp.outputs[1]
        return subst.get(dvalue.id, dvalue) if isinstance(dvalue, Var) else dvalue

    def _derived(self, eqn: Eqn, k: int) -> Tape:
        """The JVP of ``eqn``'s primitive with respect to operand ``k`` alone (cached): a tape
        with an input per variable operand (``a0``, ``a1``, ... in order), the tangent ``t`` last."""
        pattern = tuple(a.key() if isinstance(a, Lit) else None for a in eqn.args)
        key = (eqn.prim, tuple(sorted(eqn.params.items(), key=lambda kv: kv[0])), k, pattern)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self._transpose(eqn, k)
        if isinstance(found, str):
            raise at_span("YS107", found, eqn.span)
        return found

    def _transpose(self, eqn: Eqn, k: int) -> Tape | str:
        tiny = Tape(eqn.prim)
        args: list[Atom] = []
        for n, a in enumerate(eqn.args):
            if isinstance(a, Var):
                args.append(tiny.add_input(f"a{n}"))
                tiny.params.append(Param(f"a{n}"))
            else:
                args.append(a)
        tiny.outputs = [tiny.add_eqn(eqn.prim, args, eqn.params)]
        tiny.out_tree = [0]
        try:
            jvp = transposed(tiny, [f"a{k}"], self.table)
        except UserError as exc:
            name = self.table[eqn.prim].operand_names(len(eqn.args))[k]
            return f"no tangent of {eqn.prim}() with respect to {name!r} (its VJP is not transposed): {exc.message}"
        for inp in jvp.inputs:  # the tangent input is named a<k>_dot: call it t
            if inp.path[0] == f"a{k}_dot":
                jvp.inputs[jvp.inputs.index(inp)] = type(inp)(inp.var, ("t",))
        jvp = optimize(jvp, self.table, reduce_powers=False)  # (the VJP it was transposed from dropped)
        return optimize(_shapes_of_result(jvp, self.table), self.table, reduce_powers=False)


class _Unreduced:
    """A builder that writes ``unbroadcast(g, x)`` as ``g`` (forward mode has nothing to sum)."""

    def __init__(self, builder: TangentBuilder):
        self.builder = builder

    def add(self, prim: str, args: list[Atom], params: dict[str, object]) -> Atom:
        if prim == "unbroadcast":
            return args[0]
        return self.builder.add(prim, args, params)


def _shapes_of_result(jvp: Tape, table: RuleTable) -> Tape:
    """``np.shape(v)`` read as ``np.shape(out)`` where the shapes prove ``v`` of the result's shape
    (``out * a1`` with ``out = a0 * a1``): the transposed VJP reads the shape of a product of
    ``dout`` (the result, once transposed) where the result's own shape is the same, and the
    product would be computed for its shape alone."""
    value = jvp.outputs[0]
    if not isinstance(value, Var):
        return jvp
    classes = shape_classes(jvp, table)
    cls = classes.of(value)
    if not cls:
        return jvp
    for e in jvp.eqns:
        if e.prim == "shape" and isinstance(e.args[0], Var) and e.args[0] is not value and classes.of(e.args[0]) == cls:
            e.args = [value]
    return jvp


def zero_tangent(a: Atom, builder: TangentBuilder, defs: dict[int, Eqn] | None = None) -> Atom:
    """The tangent of a value that does not depend on the differentiated parameters: ``0.0`` for a
    number constant, zeros of its shape for an array (``_grad_zeros``), and for a list made by
    ``[...]`` and appends in the same equations the list of its items' zeros."""
    if isinstance(a, Lit):
        return Lit(0.0) if isinstance(a.value, int | float) and not isinstance(a.value, bool) else a
    d = (defs or {}).get(a.id)
    if d is not None and d.prim in ("list_make", "list_append"):
        # (marked: CSE would otherwise make ``[]`` and its tangent one list, which then cannot be
        # appended to in place)
        return builder.add(d.prim, [zero_tangent(x, builder, defs) for x in d.args], {"tangent": True})
    return builder.add("grad_zeros", [a], {})
