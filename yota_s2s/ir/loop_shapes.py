"""Shape facts of loop bodies: what a loop's body may assume of its inputs' shapes, and when a
``for`` loop's step computes on numbers.

``classes_of`` gives the shape classes (``ir.shapes``) of a sequence of equations whose loops keep
their carried values' shapes (``loop_facts``: a body's inputs told the shapes they enter with, and
the carried values it gives back with them).  ``numbers_step`` finds the backward step's
``unbroadcast`` calls that are the identity when a loop's step computes on numbers (a rollout of a
few numbers of state, RK4 on a model's parameters), and the checks, made once before the loop, that
prove it (``runtime/steps.py`` makes them; ``codegen/steps.py`` writes the step).
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import Atom, Dyn, Eqn, Input, Lit, Var
from .primitives import Rules
from .regions import LEADING, bound_inputs, first_carried
from .shapes import Numbers, ShapeClasses, ints_of, one_int


def classes_of(
    eqns: list[Eqn],
    table: Rules,
    same: dict[int, Atom] | None = None,
    inputs: list[Input] = (),
    ints: frozenset[int] = frozenset(),
) -> ShapeClasses:
    """The shape classes of the values of ``eqns`` (a loop body's, its inputs told ``same``,
    see ``loop_facts``), each loop among them known to give its initial values' shapes back where
    its body keeps them.

    >>> from types import SimpleNamespace as Rule  # (a table of the rules it reads: ``ir.primitives.Rules``)
    >>> from yota_s2s.ir.core import Tape
    >>> table = Rule(rules={p: Rule(pure=True, shape="elementwise", operands=("x", "y")) for p in ("add", "mul", "sin")})
    >>> body = Tape("body"); i = body.add_input("i"); c = body.add_input("c"); x = body.add_input("x")
    >>> body.outputs = [body.add_eqn("add", [c, body.add_eqn("sin", [x])])]
    >>> t = Tape("f"); x0 = t.add_input("x"); c0 = t.add_eqn("mul", [Lit(2.0), x0]); y = Var()
    >>> t.eqns.append(Eqn("for", [Lit(0), Lit(3), Lit(1), c0, x0], {"n_carry": 1}, [y], None, (body,)))
    >>> sc = classes_of(t.eqns, table)  # c = 2 * x; for i in range(3): c = c + np.sin(x)
    >>> sc.of(y) == sc.of(c0)
    True
    """
    sc = ShapeClasses(table)
    sc.ints = ints
    for inp in inputs:
        sc.add_input(inp.var, inp.path)
    sc.same.update(same or {})
    for eqn in eqns:
        if eqn.prim in ("for", "while"):
            lead = LEADING[eqn.prim]
            for j in loop_facts(eqn, sc, table)[1]:
                sc.same[eqn.outs[j].id] = eqn.args[lead + j]
        sc.add_eqn(eqn)
    return sc


def loop_facts(eqn: Eqn, outer: ShapeClasses, table: Rules) -> tuple[dict[int, Atom], list[int]]:
    """What the body of the loop ``eqn`` may assume of its inputs' shapes, as ``Facts.same_shape``
    entries: a ``for`` loop's index is an integer, a value read from outside has that value's
    shape (``outer`` holds the classes outside), and a carried value has its initial value's
    shape where the body keeps it.  Also the positions of the carried values kept.

    A carried value is kept when, assuming it enters each step with its initial value's shape,
    the step's result for it has the class it entered with: true of the first step, so of each
    (an array written in place, ``F[i] += f``; not ``y = np.array([...])`` of elements that
    may broadcast).
    """
    body = eqn.regions[-1]
    lead, k, first = LEADING[eqn.prim], eqn.params["n_carry"], first_carried(eqn)
    facts: dict[int, Atom] = {var.id: outer.stand_in(a) for var, a in bound_inputs(eqn)}
    if eqn.prim == "for":
        facts[body.inputs[0].var.id] = Lit(0)
    kept = list(range(k))
    while True:
        trial = dict(facts)
        for j in kept:
            trial[body.inputs[first + j].var.id] = outer.stand_in(eqn.args[lead + j])
        sc = classes_of(body.eqns, table, trial, body.inputs)
        still = [j for j in kept if sc.of(body.outputs[j]) == sc.of(body.inputs[first + j].var)]
        if still == kept:
            return trial, kept
        kept = still


@dataclass
class NumbersStep:
    """What a ``for`` loop and its backward loop may assume when their step computes on numbers
    (``numbers_step``)."""

    #: checked once before the forward loop: ``(outer value, 0)`` a number, ``(outer value, 1)`` a
    #: vector, ``(initial value, (n,))`` a vector of ``n`` elements
    checks: list[tuple[Atom, object]]
    #: the backward body's ``unbroadcast`` values that are then the identity
    marks: frozenset[int]
    #: the inputs of the two bodies that are then vectors of ``n`` numbers: input id -> ``n``
    vectors: dict[int, int]


def numbers_step(fwd: Eqn, back: Eqn, table: Rules) -> NumbersStep | None:
    """The ``unbroadcast`` equations of the backward loop ``back`` of ``for`` loop ``fwd`` that are
    between numbers when its step computes on numbers, and the checks, made once before ``fwd``,
    that prove it.  None where no ``unbroadcast`` goes.

    The assumptions: a value the body reads from outside in elementwise arithmetic only is a
    number (``dt``), one it reads by a constant index only is a vector (``p``: ``p[0]`` a number),
    and a carried value the step makes as ``np.array([...])`` of ``n`` values enters it with shape
    ``(n,)``.  They hold at every step when the checks pass: the step is then shown to make that
    ``np.array`` of numbers, shape ``(n,)`` again.  The backward step's values popped from the
    stack have the classes the forward step gave them, and a carried adjoint its value's.
    """
    body, back_body = fwd.regions[-1], back.regions[-1]
    k, first = fwd.params["n_carry"], first_carried(fwd)
    ints = ints_of(body)
    uses: dict[int, set[str]] = {}
    for e in body.eqns:
        for n, a in enumerate(e.args):
            if isinstance(a, Var):
                uses.setdefault(a.id, set()).add(_use(e, n, ints, table))
    facts: dict[int, Atom] = {body.inputs[0].var.id: Lit(0)}
    checks: list[tuple[Atom, object]] = []
    by_path: dict[tuple, Atom] = {}  # a free input's path -> its fact (the backward body's accumulators)
    outer_fact: dict[int, Atom] = {}
    for var, a in bound_inputs(fwd):
        found = uses.get(var.id, set())
        if not isinstance(a, Var) or found not in ({"number"}, {"element"}):
            continue
        fact = Lit(0.0) if found == {"number"} else Lit(Numbers(None, a.id))
        facts[var.id] = outer_fact[a.id] = fact
        checks.append((a, 0 if found == {"number"} else 1))
    for inp in body.inputs:
        if inp.var.id in facts and inp.path[0] == "#free":
            by_path[inp.path] = facts[inp.var.id]
    defs = {o.id: e for e in body.eqns for o in e.outs}
    for j in range(k):
        inp = body.inputs[first + j].var
        d = defs.get(body.outputs[j].id) if isinstance(body.outputs[j], Var) else None
        if d is not None and d.prim == "stack" and d.params.get("axis") == 0:
            facts[inp.id] = Lit(Numbers(len(d.args)))
            checks.append((fwd.args[LEADING["for"] + j], (len(d.args),)))
        elif uses.get(inp.id) and uses[inp.id] <= {"element", "write"}:  # F[e] read, F[e] += s
            facts[inp.id] = Lit(Numbers(None, inp.id))
            checks.append((fwd.args[LEADING["for"] + j], 1))
    sc = classes_of(body.eqns, table, facts, body.inputs, ints)
    for j in range(k):  # the step gives each assumed vector back (else nothing is assumed)
        inp = body.inputs[first + j].var
        if inp.id in facts and sc.of(body.outputs[j]) != sc.of(facts[inp.id]):
            return None
    # the backward body: its popped values, carried adjoints and outer values, told their classes
    n_saved = back.params.get("n_saved", 0)
    popped = back_body.inputs[1 : 1 + n_saved]
    kb = back.params["n_carry"]
    carried = back_body.inputs[1 + n_saved : 1 + n_saved + kb]
    seeds = [i for i in carried if i.path[0] == "#seed"]
    if len(popped) != len(body.outputs) - k or len(seeds) > k:
        return None
    told: dict[int, Atom] = {}
    for inp, a in zip(popped, body.outputs[k:]):
        told[inp.var.id] = _told(sc, a)
    for inp, a in zip(seeds, body.outputs[:k]):  # (seeds of the carried values, in order)
        told[inp.var.id] = _told(sc, a)
    for inp in carried:
        if inp.path in by_path:  # an accumulator has the shape of its outer value
            told[inp.var.id] = by_path[inp.path]
    for var, a in bound_inputs(back):
        if isinstance(a, Var) and a.id in outer_fact:
            told[var.id] = outer_fact[a.id]
    bsc = classes_of(back_body.eqns, table, told, back_body.inputs, ints_of(back_body))
    # (between numbers only: where the step computes on arrays, a call costs little beside them, and
    # a flag that a vector bias makes False would be read in vain)
    marks = frozenset(
        e.outs[0].id
        for e in back_body.eqns
        if e.prim == "unbroadcast" and not bsc.of(e.args[0]) and not bsc.of(e.args[1])
    )
    vectors = {
        v: a.value.n for v, a in [*facts.items(), *told.items()] if isinstance(a, Lit) and type(a.value) is Numbers
    }
    return NumbersStep(checks, marks, {v: n for v, n in vectors.items() if n is not None}) if marks else None


def _told(sc: ShapeClasses, a: Atom) -> Atom:
    """An atom of the class ``a`` has in ``sc``, for another body's shape facts: a number's, a vector
    of numbers', else a stand-in of that class (two values of one class get one stand-in)."""
    cls = sc.of(a)
    if not cls:
        return Lit(0.0)
    key = sc.atom_keys.get(next(iter(cls))) if len(cls) == 1 else None
    if key is not None and key[0] == "vector":
        return Lit(Numbers(None, key[1][1]) if type(key[1]) is tuple else Numbers(key[1]))
    return sc.stand_in(a)


def _use(e: Eqn, n: int, ints: frozenset[int], table: Rules) -> str:
    """How equation ``e`` uses its operand ``n``: ``element`` (``x[k]``, ``x[i]``), ``write``
    (``x[i] = v``, ``x[i] += v``), ``number`` (in elementwise arithmetic) or ``other``."""
    if n == 0 and e.prim == "getindex" and one_int(e.prim, e.args, e.params, ints):
        return "element"
    if n == 0 and e.prim in ("setindex", "index_add"):
        index = e.params.get("index", ())
        dyn = len(e.args) == 3 and isinstance(e.args[2], Var) and e.args[2].id in ints
        if len(index) == 1 and (type(index[0]) is int or (type(index[0]) is Dyn and dyn)):
            return "write"
    rule = table.rules.get(e.prim)
    return "number" if not e.regions and rule is not None and rule.shape == "elementwise" else "other"
