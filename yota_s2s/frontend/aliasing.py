"""Whether an update in place is safe: another name, a view, a loop's rows or a branch's result may share the array.

A part of lowering (``state`` lists the parts).  ``y += 1`` and ``y.append(v)`` change an array
or a list in place in NumPy, while the tape models them as new values: the update is refused
(YS017) where another name may see the change (``y = x``, ``r = x[0]``, ``v.T``, the loop over
``x``'s rows, what a branch or loop gives).
"""

from __future__ import annotations

import ast

from ..ir.core import Eqn, Lit, Var
from ..ir.primitives import BINOPS, primitive
from ..ir.printer import format_path
from ..ir.regions import LEADING, bound_inputs, first_carried
from .state import LoweringState
from .values import _Indexed, _Unresolved


class Aliasing:
    """Which names may share an array (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo

    def check_not_shared(self, stmt: ast.AugAssign, current: object, env: dict[str, object]) -> None:
        """Refuse ``y += ...`` where NumPy would update, in place, an array another name sees.

        ``y = x; y += 1`` changes ``x`` too, and so does ``r = x[0]; r += 1`` (a view).
        The tool models ``+=`` as a new value, which is only right when nothing shares it.
        """
        if isinstance(current, Lit) or not isinstance(stmt.target, ast.Name):
            return  # numbers are immutable: += makes a new one; x[i] += v is a write (see assign_item)
        name = stmt.target.id
        why = self.sharing(current, name, env)
        if why is not None:
            symbol = primitive(BINOPS[type(stmt.op)]).symbol
            raise self.lo.error(
                "YS017",
                f"'{name} {symbol}= ...' would update {name} in place and {why}; write '{name} = {name} {symbol} ...'",
                stmt,
            )

    def defining_prim(self, value: object) -> str | None:
        return self.lo.prims.get(value.id) if isinstance(value, Var) else None

    def sharing(self, value: object, name: str, env: dict[str, object], top: bool = True) -> str | None:
        """Why the array ``name`` holds (``value``) may be another name's too (``sharing_of``), or where
        another name may be an array a branch or loop of ``value`` gives (``v0 = v1`` in one branch,
        ``v1 = v1`` in the other), for the array updated itself (``top``); or None."""
        why = self.sharing_of(value, name, env, top)
        eqn = self.region_result(value)
        if why is not None or not top or eqn is None:
            return why
        origins = [o for o in self.origins(value) if not isinstance(o, Lit)]

        def same(v: object) -> bool:
            return any(v is o or isinstance(v, _Unresolved) and self.lo.array_inputs.get(v.path) is o for o in origins)

        maybe = self.lo.other_names(value, name, env, lambda v: self.may_be(v, same))
        if not maybe:
            return None
        where = self.region_gives(eqn, value)[0]
        return f"'{maybe[0]}' may refer to the same array in {where} at line {eqn.span.line}"

    def sharing_of(self, value: object, name: str, env: dict[str, object], top: bool = True) -> str | None:
        """Why the array ``name`` holds (``value``) may be another name's too, or None.

        Another name refers to it, or it may be a view (``v[0]`` of a 2-D ``v``, ``v.T``), or it is
        a branch's result and one branch may give such an array: an array of an outer name it
        keeps (``z = v``), or a view it makes (``z = v[0]``).  NumPy would change that array in
        place, the other name's too; a branch that keeps the old value of ``name`` itself shares
        nothing (``name`` no longer holds it).  For the array updated itself (``top``), another
        name that a branch may have bound to it counts too (``w = z if c else u; z += 1``)."""

        def same(v: object) -> bool:  # (a parameter is the tape input it became, once used as an array)
            return v is value or isinstance(v, _Unresolved) and self.lo.array_inputs.get(v.path) is value

        shared = self.lo.other_names(value, name, env, same)
        if shared:
            return f"'{shared[0]}' refers to the same array"
        line = next((line for rows, line in self.lo.iterated if rows is not None and same(rows)), None)
        if line is not None:
            return f"the loop at line {line} iterates over it (NumPy's rows would see the change: loop over range(len(...)))"
        maybe = self.lo.other_names(value, name, env, lambda v: self.may_be(v, same)) if top else []
        if maybe:
            held = next(e[maybe[0]] for e in (env, *reversed(self.lo.envs)) if maybe[0] in e)
            eqn = self.region_result(held)
            if eqn is None:  # a view of it (or of what a branch gives)
                return f"'{maybe[0]}' may be a view of the same array"
            return f"'{maybe[0]}' may refer to the same array (what the branch or loop at line {eqn.span.line} gives)"
        base = self.lo.view_bases.get(value.id) if isinstance(value, Var) else None
        if isinstance(base, Var) and (base.id in self.lo.number_values or self.lo.prims.get(base.id) == "shape"):
            return None  # q, r = divmod(n, b); n, d = X.shape: numbers, not views
        if primitive(self.defining_prim(value) or "").view or isinstance(value, _Indexed):
            return "it may be a view into another array"
        path = value.path if isinstance(value, _Unresolved) else None
        path = path or next((p for p, v in self.lo.array_inputs.items() if v is value), None)
        if path is not None and len(path) > 1:  # m.w read again would see the change
            return f"it is the argument's array {format_path(path)}"
        if isinstance(value, Var) and value.id in self.lo.carried_from:  # the first iteration updates it
            before, line = self.lo.carried_from[value.id]
            if before is None or isinstance(before, Lit):
                return None
            twins = [  # another name the loop carries, that held the same array before it
                n
                for n, v in env.items()
                if n != name
                and isinstance(v, Var)
                and v.id in self.lo.carried_from
                and self.lo.carried_from[v.id][0] is before
            ]
            if twins and isinstance(before, Var | _Unresolved):  # (`qs = []; ps = []`: one empty tuple)
                return f"'{twins[0]}' refers to the same array before the loop at line {line}"
            why = self.sharing(before, name, env)
            if why is None or "iterates over it" in why:
                return why
            return f"{why} before the loop at line {line}"
        eqn = self.region_result(value)
        if eqn is None:
            return None
        where, gives = self.region_gives(eqn, value)
        for inner in gives:
            why = self.sharing(inner, name, env, False)
            if why is not None:
                return f"{why} in {where} at line {eqn.span.line}"
        return None

    def may_be(self, value: object, same, depth: int = 0) -> bool:
        """Whether ``value`` is, or as a branch's or loop's result may be, an array ``same`` accepts."""
        if same(value):
            return True
        if depth > 32 or not isinstance(value, Var):
            return False
        # a view of it (np.expand_dims(v, 0), v.T); an element or row read is not followed (r = v[i];
        # v[i] = r * r: r is a number for a vector)
        base = self.lo.view_bases.get(value.id)
        if base is not None and self.lo.prims[value.id] != "getindex" and self.may_be(base, same, depth + 1):
            return True
        eqn = self.region_result(value)
        if eqn is None:
            return False
        return any(self.may_be(inner, same, depth + 1) for inner in self.region_gives(eqn, value)[1])

    def origins(self, value: object, depth: int = 0) -> list[object]:
        """The values ``value`` may be, through the branches and loops it is a result of
        (``v1 = v1`` in one branch, ``v1 = w`` in the other: the array before and ``w``)."""
        eqn = self.region_result(value)
        if eqn is None or depth > 32:
            return []
        out = []
        for inner in self.region_gives(eqn, value)[1]:
            out += [inner, *self.origins(inner, depth + 1)]
        return out

    def region_gives(self, eqn: Eqn, value: Var) -> tuple[str, list[object]]:
        """Where ``value``, a result of the ``if`` or loop ``eqn``, comes from (for a message), and
        the values it may be: what each branch gives, or the value before the loop (it may run no
        iteration) and what an iteration gives, read outside the region where a region keeps one."""
        k = eqn.outs.index(value)
        outer = {v.id: a for v, a in bound_inputs(eqn)}
        if eqn.prim == "if":
            where, gives = "a branch of the 'if'", [region.outputs[k] for region in eqn.regions]
        else:
            body = eqn.regions[-1]
            carried = body.inputs[first_carried(eqn, body) + k].var  # the last iteration's: nothing new
            where, gives = "the loop", [eqn.args[LEADING[eqn.prim] + k], body.outputs[k]]
            gives = [g for g in gives if g is not carried]
        return where, [outer.get(out.id, out) if isinstance(out, Var) else out for out in gives]

    def region_result(self, value: object) -> Eqn | None:
        """The ``if``, ``for`` or ``while`` equation ``value`` is a result of (None: another value,
        or one of a loop in a region still being lowered)."""
        return self.lo.merges.get(value.id) if isinstance(value, Var) else None
