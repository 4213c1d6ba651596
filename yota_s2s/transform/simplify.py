"""The algebraic identities of the optimizer: one rewrite of an equation ``prim(args)`` at a
time, applied by the rewriter (``rewrite``) until none applies, before value numbering.

Each identity keeps the value (and the shape and dtype) of the equation's result; where it
holds only for gradients (floats: ``x * 1.0`` would turn an integer ``x`` into a float), it
applies only in the backward sweep.  ``simplify_<prim>`` returns the value itself (an atom), a
new ``(prim, args, params)``, or None.  What they do, beyond constant folding
(``mul(2, 3)`` -> ``6``):

- the neutral elements and signs: ``mul(x, 1.0)`` -> ``x``, ``add(a, neg(b))`` -> ``sub(a, b)``,
  ``neg(neg(x))`` -> ``x``;
- ``unbroadcast(g, x)`` -> ``g`` when the shape classes of ``g`` and ``x`` are equal (see
  ``ir.shapes``);
- a scalar spread by ``unreduce`` (the gradient of ``sum``) kept scalar through elementwise
  steps (``mul(unreduce(1.0, e), e)`` -> ``e``);
- gradient contributions of ``x[i]`` reads folded into one buffer (``add(A,
  index_add(grad_zeros(x), g, i))`` -> ``index_add(A, g, i)``);
- in the backward sweep, factors constant along a sum's axes taken out of it (``sum(q * b, 1,
  keepdims)`` -> ``q * sum(b, 1, keepdims)``), ``a / b * b`` -> ``a`` and ``g - g`` -> zeros,
  kept zero through products (the ``max`` of a stable log-sum-exp gets no gradient);
- ``x ** 2``, ``x ** 3``, ``x ** 4`` written as products (unless ``reduce_powers`` is off, or ``x``
  may be a NumPy bool: ``values.bool_values``).

``ArithmeticIdentities`` holds those of elementwise arithmetic, ``ShapeIdentities`` those of
reductions, spreads and shapes; ``Identities`` dispatches on the primitive.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.ir.core import Lit, Tape
    >>> from yota_s2s.transform.optimize import optimize
    >>> t = Tape("f"); x = t.add_input("x")
    >>> t.outputs = [t.add_eqn("neg", [t.add_eqn("sub", [t.add_eqn("mul", [x, Lit(1)]), Lit(2)])])]
    >>> [(e.prim, *e.args) for e in optimize(t, load_rules()).eqns] == [("sub", Lit(2), x)]  # -(x * 1 - 2)
    True
"""

from __future__ import annotations

from ..ir.core import Atom, Eqn, Lit, Slice, Var
from ..ir.folding import fold_lits
from ..ir.primitives import primitive
from ..ir.shapes import SCALAR
from .rewrite import RewriterBase, Step
from .values import all_lits, is_const


class ArithmeticIdentities(RewriterBase):
    """The identities of elementwise arithmetic: ``add``, ``sub``, ``mul``, ``truediv``, ``neg``,
    ``power``."""

    def _may_apply(self, args: list[Atom], made_by: frozenset[str]) -> bool:
        """Some identity of an arithmetic primitive may apply to ``args``: an operand is a
        constant, or is made by one of ``made_by`` (the primitives its identities look for).

        Most equations of a big tape (``x[3] * x[8]``, ``t1 + t2``) match none: this one look at
        each operand's definition spares them every identity's own look.
        """
        defs = self.defs
        for x in args:
            if type(x) is not Var:
                return True
            d = defs.get(x.id)
            if d is not None and d.prim in made_by:
                return True
        return False

    def _keeps_shape(self, prim: str, args: list[Atom], params: dict, a: Atom) -> bool:
        return self.sc.infer(prim, args, params) == self.cls(a)

    def _neutral(self, a: Atom, value: float, other: Atom) -> bool:
        """``a`` is the constant ``value`` and dropping it from ``op(other, a)`` keeps the dtype.

        ``x * 1.0`` turns an int or bool ``x`` into a float, so a float 1.0 or 0.0 is dropped only
        in the backward sweep (whose values are gradients: floats), and never from a comparison's
        boolean result (``dout * (x > 0)`` with ``dout`` 1.0 stays a float).
        """
        if not isinstance(a, Lit) or not is_const(a, value):
            return False
        if type(a.value) is int:
            return True
        d = self.defs.get(other.id) if isinstance(other, Var) else None
        return self._backward() and not isinstance(other, Lit) and (d is None or not primitive(d.prim).boolean)

    def _may_be_bool(self, a: Atom) -> bool:
        """``a`` may be a NumPy bool: so found on the tape before this round (``bools``), or a
        value this round made from such values (none of its primitives makes floats)."""
        todo, seen = [a], set()
        while todo:
            b = todo.pop()
            if isinstance(b, Lit):
                if type(b.value) is bool:
                    return True
                continue
            if b.id in self.bools:
                return True
            d = self.defs.get(b.id)
            if d is None or d.regions or b.id in seen or any(o.id in self.old_ids for o in d.outs):
                continue  # an input, a loop or branch, or a value of the old tape: bools says
            seen.add(b.id)
            record = primitive(d.prim)
            if record.boolean:
                return True
            if not record.makes_inexact:
                todo.extend(d.args)
        return False

    def _lazy_scalar(self, prim: str, args: list[Atom]) -> Step:
        """Keep a spread scalar (the gradient of ``sum``) unspread through elementwise steps.

        ``op(unreduce(s, X), c)`` -> ``unreduce(op(s, c), X)`` for a scalar ``c``;
        ``op(unreduce(s, X), y)`` -> ``op(s, y)`` when ``y`` has the shape of ``X``.
        """
        for i, a in enumerate(args):
            u = self.defs.get(a.id) if isinstance(a, Var) else None
            if u is None or u.prim != "unreduce":
                continue
            others = [b for j, b in enumerate(args) if j != i]
            if others and all(self.cls(b) == frozenset() for b in others):
                inner = list(args)
                inner[i] = u.args[0]
                return "unreduce", [self.add(prim, inner), u.args[1]], dict(u.params)
            if u.params["axis"] is not None and not u.params["keepdims"]:
                continue
            if others and all(self.cls(b) == self.cls(u.args[1]) for b in others):
                new_args = list(args)
                new_args[i] = u.args[0]
                return prim, new_args, {}
        return None

    def simplify_add(self, args: list[Atom], params: dict) -> Step:
        """``x + 0`` -> ``x``; ``a + -b`` -> ``a - b``; ``a + a`` -> ``2 * a``; the two
        contributions to the gradient of a Gram product as one (``_gram_adjoint``); and gradient
        contributions accumulated where they are made: ``acc + grad_zeros(x)`` -> ``acc``,
        ``acc + if_back(...)[j]`` (or a backward loop's) added inside the branches or the loop
        (``regions``), ``acc + index_add(grad_zeros(x), g, i)`` -> ``index_add(acc, g, i)`` (the
        reads ``x[i]`` of one array accumulated in one buffer)."""
        a, b = args
        if a is not b and not self._may_apply(args, _ADD_LOOKS_FOR):
            return None
        if self._neutral(b, 0, a) and self._keeps_shape("add", args, params, a):
            return a
        if self._neutral(a, 0, b) and self._keeps_shape("add", args, params, b):
            return b
        if n := self.def_of(b, "neg"):
            return "sub", [a, n.args[0]], {}
        if n := self.def_of(a, "neg"):
            return "sub", [b, n.args[0]], {}
        if a is b:
            return "mul", [Lit(2), a], {}
        if merged := self.merge_unbroadcasts("add", a, b):
            return merged
        if gram := self._gram_adjoint(a, b) or self._gram_adjoint(b, a):
            return gram
        for acc, part in ((a, b), (b, a)):
            z = self.def_of(part, "grad_zeros")
            if z is not None and self.cls(acc) == self.cls(z.args[0]):
                return acc
        for acc, part in ((a, b), (b, a)):
            d = self.defs.get(part.id) if isinstance(part, Var) else None
            if d is None or d.prim not in _BACKWARD_REGIONS or self.old_uses.get(part.id, 0) != 1:
                continue
            if d.prim == "if_back" and self.before(acc, d):
                return self.accumulate_in_branches(d, part, acc)
            if d.prim in ("for_back", "while_back") and self.before(acc, d):
                folded = self.accumulate_in_loop(d, part, acc)
                if folded is not None:
                    return folded
        for acc, part in ((a, b), (b, a)):
            # acc + index_add(...index_add(grad_zeros(x), g1, i1)..., gn, in): add g1..gn into acc
            chain = []
            ia = self.def_of(part, "index_add")
            while ia is not None:
                chain.append(ia)
                ia = self.def_of(ia.args[0], "index_add")
            if not chain:
                continue
            z = self.def_of(chain[-1].args[0], "grad_zeros")
            if z is not None and self.cls(acc) == self.cls(z.args[0]):
                total = acc
                for ia in reversed(chain[1:]):
                    total = self.add("index_add", [total, *ia.args[1:]], dict(ia.params))
                return "index_add", [total, *chain[0].args[1:]], dict(chain[0].params)
        return self._lazy_scalar("add", args)

    def _gram_adjoint(self, a: Atom, b: Atom) -> Step:
        """The two contributions to ``dx`` of ``x.T @ x`` (or ``x @ x.T``) as one product.

        ``matmul_dy(g, t, x) + transpose(matmul_dx(g, t, x))`` with ``t = transpose(x)`` ->
        ``xtx_dx(g, x)``, written ``x @ (g + g.T)`` for a matrix (one matmul, not two); and
        ``matmul_dx(g, x, t) + transpose(matmul_dy(g, x, t))`` -> ``xxt_dx(g, x)``.  The helpers
        fall back to the two products for other ranks, so the rewrite holds for any operands.
        ``np.dot``'s adjoints (``dot_dx``, ``dot_dy``) become ``dot_xtx_dx`` and ``dot_xxt_dx``,
        which are ``xtx_dx`` and ``xxt_dx`` where ``np.dot`` is matmul (``x`` of at most 2 axes).
        """
        outer = self.def_of(b, "transpose")
        if outer is None or outer.params.get("axes") is not None:
            return None
        for prim, other, helper in _GRAM_ADJOINTS:
            first, second = self.def_of(a, prim), self.def_of(outer.args[0], other)
            if first is None or second is None or first.args != second.args:
                continue
            g, left, right = first.args
            x, t = (right, left) if helper.endswith("xtx_dx") else (left, right)
            tr = self.def_of(t, "transpose")
            if tr is not None and tr.params.get("axes") is None and tr.args[0] is x:
                return helper, [g, x], {}
        return None

    def _zero_operand(self, prim: str, args: list[Atom], params: dict, positions: tuple = (0, 1)) -> Step:
        """``grad_zeros(w) * y`` (or ``/ y``) -> zeros of the product's shape, when an operand
        (``w`` or ``y``) has that shape: a zero gradient at one of ``positions`` stays zero
        through a product or quotient."""
        for a in (args[i] for i in positions):
            if self.def_of(a, "grad_zeros") is None:
                continue
            result = self.sc.infer(prim, args, params)
            if result == self.cls(a):
                return a
            other = next((b for b in args if b is not a and isinstance(b, Var)), None)
            if other is not None and result == self.cls(other):
                return "grad_zeros", [other], {}
        return None

    def simplify_sub(self, args: list[Atom], params: dict) -> Step:
        """``g - g`` -> zeros (in the backward sweep); ``x - 0`` -> ``x``; ``0 - b`` -> ``-b``
        (``0`` a constant or a zero gradient); ``a - -b`` -> ``a + b``."""
        a, b = args
        if a is not b and not self._may_apply(args, _SUB_LOOKS_FOR):
            return None
        if a is b and self._backward():
            return "grad_zeros", [a], {}
        if self.def_of(b, "grad_zeros") and self._keeps_shape("sub", args, params, a):
            return a
        if self.def_of(a, "grad_zeros") and self._keeps_shape("sub", args, params, b):
            return "neg", [b], {}
        if self._neutral(b, 0, a) and self._keeps_shape("sub", args, params, a):
            return a
        if self._neutral(a, 0, b) and self._keeps_shape("sub", args, params, b):
            return "neg", [b], {}
        if n := self.def_of(b, "neg"):
            return "add", [a, n.args[0]], {}
        if merged := self.merge_unbroadcasts("sub", a, b):
            return merged
        return self._lazy_scalar("sub", args)

    def simplify_mul(self, args: list[Atom], params: dict) -> Step:
        """``x * 1`` -> ``x``; ``x * -1`` -> ``-x``; ``a / b * b`` -> ``a`` (in the backward
        sweep); ``3 * (2 * x)`` -> ``6 * x``; ``-a * b`` -> ``-(a * b)`` (a negation moves out,
        to cancel or become a subtraction); a zero gradient times anything stays zero."""
        a, b = args
        if not self._may_apply(args, _MUL_LOOKS_FOR):
            return None
        if zero := self._zero_operand("mul", args, params):
            return zero
        for x, y in ((a, b), (b, a)):
            q = self.def_of(x, "truediv")
            if q and q.args[1] is y and self._backward() and self._keeps_shape("mul", args, params, q.args[0]):
                return q.args[0]  # a / b * b -> a (a gradient: a float, like the quotient)
            if self._neutral(y, 1, x) and self._keeps_shape("mul", args, params, x):
                return x
            if self._neutral(y, -1, x) and self._keeps_shape("mul", args, params, x):
                return "neg", [x], {}
            if isinstance(y, Lit) and (m := self.def_of(x, "mul")):
                for c, z in (m.args, m.args[::-1]):
                    if isinstance(c, Lit) and (folded := fold_lits("mul", [y, c])) is not None:
                        return "mul", [folded, z], {}
        for i, x in enumerate(args):
            if n := self.def_of(x, "neg"):
                inner = list(args)
                inner[i] = n.args[0]
                return "neg", [self.add("mul", inner)], {}
        return self._lazy_scalar("mul", args)

    def simplify_truediv(self, args: list[Atom], params: dict) -> Step:
        """``x / 1`` -> ``x``; ``-a / b`` -> ``-(a / b)``; a zero gradient divided stays zero."""
        a, b = args
        if zero := self._zero_operand("truediv", args, params, positions=(0,)):  # 0 / b, never b / 0
            return zero
        if self._neutral(b, 1, a) and self._keeps_shape("truediv", args, params, a):
            return a
        if n := self.def_of(a, "neg"):
            return "neg", [self.add("truediv", [n.args[0], b])], {}
        return self._lazy_scalar("truediv", args)

    def simplify_neg(self, args: list[Atom], params: dict) -> Step:
        """``-grad_zeros(x)`` -> ``grad_zeros(x)``; ``--x`` -> ``x``; ``-(a - b)`` -> ``b - a``;
        ``-unreduce(s, X)`` -> ``unreduce(-s, X)`` (the negation of the scalar, not of ``X``)."""
        (a,) = args
        if self.def_of(a, "grad_zeros"):
            return a
        if n := self.def_of(a, "neg"):
            return n.args[0]
        if s := self.def_of(a, "sub"):
            return "sub", [s.args[1], s.args[0]], {}
        if u := self.def_of(a, "unreduce"):
            return "unreduce", [self.add("neg", [u.args[0]]), u.args[1]], dict(u.params)
        return None

    def simplify_power(self, args: list[Atom], params: dict) -> Step:
        """``x ** 1`` -> ``x``; ``x ** 2``, ``x ** 3``, ``x ** 4`` -> products (strength reduction).

        NumPy's ``x ** 3`` on an array takes its slow general path (about 100x ``x * x * x``);
        the products are shared by CSE with the ``x * x`` the gradient needs.  Not where ``x``
        may be a NumPy bool (a comparison's result): ``b ** 2`` is an integer, ``b * b`` a bool.
        """
        x, p = args
        if self._neutral(p, 1, x) and self._keeps_shape("power", args, params, x):
            return x
        if self.reduce_powers and isinstance(p, Lit) and type(p.value) in (int, float) and p.value in (2, 3, 4):
            if self._may_be_bool(x):
                return None
            square = self.add("mul", [x, x])
            if p.value == 2:
                return square
            return "mul", [square, x if p.value == 3 else square], {}
        return None


class ShapeIdentities(RewriterBase):
    """The identities of reductions, spread scalars and shapes: ``unbroadcast``, ``reshape``,
    ``size``, ``index_add``, ``sum``, ``keep_axes``."""

    def simplify_unbroadcast(self, args: list[Atom], params: dict) -> Step:
        """``unbroadcast(g, x)`` -> ``g`` when their shape classes are equal; a spread scalar
        summed over the axes ``x`` was broadcast along stays spread (``unbroadcast(unreduce(s, X),
        x)`` -> ``unreduce(s * (size(X) / or_one(size(x))), x)``); else a sum over known axes
        (``_unbroadcast_keepdims``)."""
        g, x = args
        if self.cls(g) == self.cls(x):
            return g
        if u := self._spread(g):
            # summing a spread scalar s over the axes x was broadcast along: s times their size
            # (an empty x is an empty X: its size counts as 1, as mean's count, not 0 / 0)
            count = self.add("truediv", [self.add("size", [u.args[1]]), self.add("or_one", [self.add("size", [x])])])
            return "unreduce", [self.add("mul", [u.args[0], count]), x], dict(u.params)
        return self._unbroadcast_keepdims(g, x)

    def merge_unbroadcasts(self, prim: str, a: Atom, b: Atom) -> Step:
        """``unbroadcast(g, x) + unbroadcast(h, x)`` -> ``unbroadcast(g + h, x)`` (and ``-``) when
        ``g`` and ``h`` have one shape class: summing down to ``x``'s shape is linear, so the two
        contributions are added first and summed down once (a loop's body that reads ``p[0]`` in
        four places pays one shape test a step, not four).  Only where neither operand is read
        elsewhere (else its ``unbroadcast`` stays and the merged one is extra work)."""
        v = self.def_of(b, "unbroadcast")
        if v is None or self.old_uses.get(b.id, 1) > 1:
            return None
        u = self.def_of(a, "unbroadcast")
        if u is not None and self._mergeable(u, v) and self.old_uses.get(a.id, 1) <= 1:
            return "unbroadcast", [self.add(prim, [u.args[0], v.args[0]]), u.args[1]], {}
        s = self.defs.get(a.id) if isinstance(a, Var) else None
        if s is None or s.prim not in ("add", "sub") or self.old_uses.get(a.id, 1) > 1:
            return None
        # (t + unbroadcast(g, x)) + unbroadcast(h, x) -> t + unbroadcast(g + h, x): a sum of terms of
        # two shapes, each kind summed down once
        inner = self.def_of(s.args[1], "unbroadcast")
        if inner is None or not self._mergeable(inner, v) or self.old_uses.get(s.args[1].id, 1) > 1:
            return None
        sign = prim if s.prim == "add" else "add" if prim == "sub" else "sub"
        merged = self.add("unbroadcast", [self.add(sign, [inner.args[0], v.args[0]]), v.args[1]])
        return s.prim, [s.args[0], merged], {}

    def _mergeable(self, u: Eqn, v: Eqn) -> bool:
        """``u`` and ``v`` sum values of one shape class down to one value's shape."""
        return u.args[1] is v.args[1] and self.cls(u.args[0]) == self.cls(v.args[0])

    def _unbroadcast_keepdims(self, g: Atom, x: Atom) -> Step:
        """``unbroadcast(g, x)`` -> ``sum(g, axis, keepdims=True)`` when ``x`` has the shape of a
        keepdims reduction over ``axis`` of a value shaped like ``g`` (``zmax = max(z, axis=1,
        keepdims=True)``, ``g`` the gradient of ``z - zmax``): the axes to sum are known, so no
        run-time shape test is needed (see ``shapes.ShapeClasses.keepdims_of``)."""
        axis = self.sc.keepdims_of(self.cls(x), self.cls(g))
        if axis is False:
            return None
        return "sum", [g], {"axis": axis, "keepdims": True}

    def simplify_reshape(self, args: list[Atom], params: dict) -> Step:
        """``reshape(unreduce(s, X), shape(v))`` -> ``unreduce(s, v)``: a spread scalar reshaped
        to ``v``'s shape is that scalar spread over ``v``."""
        g, newshape = args
        u = self._spread(g)
        target = self.def_of(newshape, "shape")
        if u is not None and target is not None:
            return "unreduce", [u.args[0], target.args[0]], dict(u.params)
        return None

    def simplify_size(self, args: list[Atom], params: dict) -> Step:
        """``size(s)`` -> ``1`` when ``s`` has the shape class of a number."""
        (a,) = args
        if self.cls(a) == frozenset():  # a scalar has one element
            return Lit(1)
        return None

    def simplify_index_add(self, args: list[Atom], params: dict) -> Step:
        """``index_add(grad_zeros(x), g, index=[:, None])``: an index of full slices and new axes
        only reshapes ``x``, so the gradient is ``g`` reshaped (no buffer, no scatter)."""
        buf, g, *dynamic = args
        z = self.def_of(buf, "grad_zeros")
        if z is None or dynamic:
            return None
        index = params["index"]
        if not all(i is None or i == Slice() for i in index) or Slice() not in index and None not in index:
            return None
        return "reshape", [g, self.add("shape", [z.args[0]])], {}

    def simplify_sum(self, args: list[Atom], params: dict) -> Step:
        """In the backward sweep, a factor constant along the summed axes leaves the sum:
        ``sum(-x)`` -> ``-sum(x)``, and ``sum(q * b, axis, keepdims=True)`` -> ``q * sum(b, axis,
        keepdims=True)`` when ``q`` is a scalar or has the shape of a keepdims reduction of ``b``
        over ``axis``.  ``sum(b)`` is then often a forward value (CSE), which is what cancels the
        gradient through the ``max`` of a stable log-sum-exp: ``dlse / s * e`` summed is
        ``dlse / s * s``, that is ``dlse``, and the ``max``'s share ``dlse - dlse`` is zero.
        """
        (x,) = args
        if not self._backward() or type(params.get("keepdims", False)) is not bool:
            return None
        if n := self.def_of(x, "neg"):
            return "neg", [self.add("sum", [n.args[0]], params)], {}
        m = self.def_of(x, "mul")
        if m is None:
            return None
        for q, b in (m.args, m.args[::-1]):
            if (
                self.cls(q) == SCALAR
                or params.get("keepdims")
                and self.sc.kept_along(self.cls(q), self.cls(b), params.get("axis", None))
            ):
                return "mul", [q, self.add("sum", [b], params)], {}
        return None

    def simplify_keep_axes(self, args: list[Atom], params: dict) -> Step:
        """``keep_axes(g, axis, keepdims)`` -> ``g`` when the reduction removed no axis
        (``axis=None``: a number; ``keepdims=True``: the axes are still there)."""
        if params["axis"] is None or params["keepdims"]:  # nothing was removed
            return args[0]
        return None


class Identities(ArithmeticIdentities, ShapeIdentities):
    """Every identity, dispatched on the primitive."""

    def simplify(self, prim: str, args: list[Atom], params: dict) -> Step:
        """One rewrite of ``prim(args)``: an atom, a new ``(prim, args, params)``, or None."""
        if all_lits(args) and (folded := fold_lits(prim, args)) is not None:
            return folded
        method = _SIMPLIFIERS.get(prim)
        return method(self, args, params) if method else None


#: What the identities of ``add``, ``sub`` and ``mul`` look for among the definitions of their
#: operands (``_may_apply``; a constant operand, and ``a + a``, ``a - a``, are looked at anyway):
#: keep each in step with its ``simplify_<prim>`` (``_zero_operand``, ``_gram_adjoint``,
#: ``_lazy_scalar`` and the accumulations in loops and branches included).
_ADD_LOOKS_FOR = frozenset(
    {"unbroadcast", "neg", "transpose", "grad_zeros", "if_back", "for_back", "while_back", "index_add", "unreduce"}
)
_SUB_LOOKS_FOR = frozenset({"grad_zeros", "neg", "unreduce", "unbroadcast"})
_MUL_LOOKS_FOR = frozenset({"grad_zeros", "truediv", "neg", "unreduce"})

#: The backward loops and branches a gradient contribution is added inside (``regions``).
_BACKWARD_REGIONS = ("if_back", "for_back", "while_back")

#: ``(adjoint for the right operand, for the left, the helper of both)`` of each product whose
#: ``x.T``-times-``x`` form ``_gram_adjoint`` writes as one product.
_GRAM_ADJOINTS = (
    ("matmul_dy", "matmul_dx", "xtx_dx"),
    ("matmul_dx", "matmul_dy", "xxt_dx"),
    ("dot_dy", "dot_dx", "dot_xtx_dx"),
    ("dot_dx", "dot_dy", "dot_xxt_dx"),
)

#: ``prim`` -> its ``simplify_<prim>`` (looked up once, not per equation).
_SIMPLIFIERS = {
    name[len("simplify_") :]: f
    for part in (ArithmeticIdentities, ShapeIdentities)
    for name, f in vars(part).items()
    if name.startswith("simplify_")
}
