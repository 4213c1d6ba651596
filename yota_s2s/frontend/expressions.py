"""Expressions: an expression of the source in, its value out, equations added to the tape.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts).  ``lower.Lowerer.expr`` dispatches on the kind of expression
to the ``expr_*`` methods of all the parts.  Here: operators become primitives (``x @ w`` ->
``matmul``, ``-x`` -> ``neg``, ``a < b`` -> ``less``), and a subscript becomes ``getindex``
with an index template: its static parts (integers, slices, ``None``, ``...``) are the
``index`` parameter, its computed parts are operands, each named in the template by
``Dyn(k)``.  ``lower.Lowerer.as_array`` gives the tape value of anything lowered: a
parameter becomes a tape input on its first use as an array.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> t = lower(fence("def f(x, i):\\n    return x[i, 1:] @ x[0]\\n", "f.py"), "f", load_rules())
    >>> [(e.prim, e.params.get("index")) for e in t.eqns]
    [('getindex', (Dyn(k=0), Slice(start=1, stop=None, step=None))), ('getindex', (0,)), ('matmul', None)]
"""

from __future__ import annotations

import ast

from ..errors import UserError
from ..ir.core import Atom, Dyn, Key, Lit, Slice, Var
from ..ir.folding import fold_constant
from ..ir.primitives import BINOPS, CMPOPS
from ..ir.printer import format_path
from .adapters_shape import INDEX_TRICKS, index_trick_items
from .state import LoweringState
from .values import _Function, _Indexed, _Unresolved


class NeedsUnrolling(UserError):
    """A value needed when generating (a dict parameter's key) depends on a loop variable: the
    loop is unrolled where its bounds are constant (``control.stmt_For``), else this error."""


def _fields(error: UserError) -> tuple:
    return (error.code, error.message, error.path, error.line, error.col, error.source_line)


def _stringy(node: ast.expr) -> bool:
    """``node`` is written to give a string: an f-string, ``str(...)``, or ``"W" + ...``."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "str"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _stringy(node.left) or (isinstance(node.op, ast.Add) and _stringy(node.right))
    return False


#: Hint depth of names derived from indexing (x3 for x[3]): any assignment overrides them.
_DERIVED_HINT = 10_000


class ExpressionLowering:
    """Operators, subscripts and the tape value of a lowered value (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo

    # ------------------------------------------------------------------ Python lists and tuples
    def sequence_binop(self, prim: str, left: object, right: object, node: ast.AST) -> tuple | None:
        """``[a, b] + [c]`` joins, ``[a] * 3`` repeats, as Python does (None: no list or tuple here,
        or one with an array or a NumPy number, which NumPy reads as an array: ``[1.0, 2.0] * x``);
        a list and a number otherwise is refused (a ``TypeError`` in Python, or a count known at run
        time only: passed through as written where no gradient flows)."""
        seq_l, seq_r = _python_sequence(left), _python_sequence(right)
        if (seq_l is None and seq_r is None) or self.numpy_operand(left, right):
            return None
        if seq_l is not None and seq_r is not None and prim == "add":
            return (*seq_l, *seq_r)
        seq, other = (seq_l, right) if seq_l is not None else (seq_r, left)
        if prim == "mul" and isinstance(other, Lit) and type(other.value) in (int, bool):
            return seq * int(other.value)
        raise self.lo.error(
            "YS034",
            "a list or tuple in arithmetic with a number or another list: Python joins or repeats lists "
            "([a] * n, [a] + [b]); write np.array([...]) for arithmetic on its values",
            node,
        )

    def numpy_operand(self, left: object, right: object) -> bool:
        """One operand is a value of the tape NumPy computes with (an array, a NumPy number), not a
        count (``len``, a shape, static code)."""
        lo = self.lo
        for value in (left, right):
            if isinstance(value, Var) and value.id not in lo.number_values:
                return lo.prims.get(value.id) not in ("len", "size", "ndim", "static")
            if isinstance(value, _Unresolved | _Indexed):
                return True
        return False

    def expr_Constant(self, node: ast.Constant, env: dict) -> object:
        if node.value is Ellipsis:
            return Lit(Ellipsis)
        return Lit(node.value)

    def expr_Dict(self, node: ast.Dict, env: dict) -> object:
        """``{"W": w, "b": b}`` with constant keys: a dict of values, read at constant keys."""
        keys = [None if k is None else self.lo.expr(k, env) for k in node.keys]
        if not all(isinstance(k, Lit) and _hashable(k.value) for k in keys):
            raise self.lo.error("YS020", "a dict with computed keys has no rule", node)
        return {k.value: self.lo.expr(v, env) for k, v in zip(keys, node.values)}

    def expr_Compare(self, node: ast.Compare, env: dict) -> object:
        if len(node.ops) != 1 or type(node.ops[0]) not in CMPOPS:
            raise self.lo.error("YS020", f"'{ast.unparse(node)}' has no rule", node)
        left = self.lo.expr(node.left, env)
        right = self.lo.expr(node.comparators[0], env)
        prim = CMPOPS[type(node.ops[0])]
        if isinstance(left, Lit) and isinstance(right, Lit):
            ok, value = fold_constant(prim, [left.value, right.value])  # i != 3 on a comprehension's index
            if ok:
                return Lit(value)
            if prim in ("equal", "not_equal") and all(isinstance(v.value, str | tuple) for v in (left, right)):
                return Lit((left.value == right.value) == (prim == "equal"))  # key != "t" of d.items()
        return self.lo.binop(prim, left, right, node)

    def expr_BinOp(self, node: ast.BinOp, env: dict) -> object:
        if type(node.op) not in BINOPS:
            raise self.lo.error("YS020", f"the operator {_OPNAMES[type(node.op)]} has no rule", node)
        left = self.lo.expr(node.left, env)
        right = self.lo.expr(node.right, env)
        return self.lo.binop(BINOPS[type(node.op)], left, right, node)

    def expr_UnaryOp(self, node: ast.UnaryOp, env: dict) -> object:
        if not isinstance(node.op, ast.USub | ast.UAdd):
            raise self.lo.error("YS020", f"the operator {_OPNAMES[type(node.op)]} has no rule", node)
        value = self.lo.as_array(self.lo.expr(node.operand, env), node)
        if isinstance(node.op, ast.UAdd):
            return value
        return self.lo.add("neg", [value], {}, node)

    # ------------------------------------------------------------------ subscripts
    def expr_Subscript(self, node: ast.Subscript, env: dict) -> object:
        base = self.lo.expr(node.value, env)
        key = self.dict_key(node, base, env)
        if isinstance(key, str) and isinstance(base, _Unresolved) and base.path not in self.lo.array_inputs:
            self.lo.object_paths.add(base.path)  # params["W1"]: a dict parameter, read by key
            self.lo.dicts.read_paths.append((*base.path, Key(key)))
            return _Unresolved((*base.path, Key(key)))
        if isinstance(base, dict) or (isinstance(base, Lit) and isinstance(base.value, dict)):  # RATES["fast"]
            key = self.lo.expr(node.slice, env)
            items = base if isinstance(base, dict) else base.value
            if isinstance(key, Lit) and _hashable(key.value) and key.value in items:
                return items[key.value] if isinstance(base, dict) else Lit(items[key.value])
            raise self.lo.error("YS034", "a dict is read at a constant key it holds", node)  # else: static code
        if isinstance(base, _Function) and base.local is None and base.name in INDEX_TRICKS:  # np.r_[a, b]
            return self.lo.calls.call_primitive(base.name, index_trick_items(self.lo, node, env), {}, node)
        dynamic: list[Atom] = []
        index = self.index(node.slice, env, dynamic)
        if (
            isinstance(base, _Unresolved | _Indexed)
            and base.path not in self.lo.array_inputs
            and (len(base.path) > 1 or self.lo.names.element_class(base))
            and len(index) == 1
            and type(index[0]) is int
        ):
            # m.layers[0]: an element of a list of objects, or a row of an array; the next use tells
            # (a parameter x[0] is an array read at once, unless annotated as a list of objects)
            return _Indexed(base, index[0], node, self.lo.names.element_class(base))
        if isinstance(base, tuple):
            if len(index) == 1 and isinstance(index[0], Slice) and not dynamic:  # parts[1:]: a shorter list
                return base[index[0].to_slice()]
            if len(index) == 1 and isinstance(index[0], int):
                try:
                    return base[index[0]]
                except IndexError:
                    raise self.lo.error("YS034", "tuple index out of range", node) from None
            if len(index) == 1 and isinstance(index[0], Dyn) and base:  # x = a, b, c; x[i]: a list read at i
                return self.getindex(self.lo.lists.as_list(base, node), dynamic, index, node)
            raise self.lo.error("YS034", "a tuple is indexed by one integer", node)
        value = self.lo.as_array(base, node)
        if isinstance(value, Lit) and not isinstance(value.value, tuple):  # 3[0], None[0]: Python's TypeError
            if isinstance(value.value, str):
                raise self.lo.error("YS034", "a string is not indexed in differentiated code", node)
            what = type(value.value).__name__
            raise self.lo.error("YS047", f"'{what}' object is not subscriptable (a constant is indexed)", node)
        if isinstance(value, Lit) and isinstance(value.value, tuple) and len(index) == 1:
            item = index[0]
            if isinstance(item, int | Slice):
                key = item.to_slice() if isinstance(item, Slice) else item
                return Lit(value.value[key])
        return self.getindex(value, dynamic, index, node)

    def dict_key(self, node: ast.Subscript, base: object, env: dict) -> object:
        """The key of ``params[key]`` where it is a string known when generating: a constant, a
        name bound to one (a loop over a tuple of keys, unrolled), an f-string or ``"W" + str(i)``
        of constants; None where the subscript is not a string key."""
        if isinstance(node.slice, ast.Constant):
            return node.slice.value
        if not isinstance(base, _Unresolved) or base.path in self.lo.array_inputs:
            return None
        if isinstance(node.slice, ast.Name):
            value = self.lo.expr(node.slice, env)
            return value.value if isinstance(value, Lit) and isinstance(value.value, str) else None
        if not _stringy(node.slice):
            return None
        value = self.lo.static.constant_of(node.slice, env)
        if isinstance(value, str):
            return value
        raise NeedsUnrolling(
            *_fields(
                self.lo.error(
                    "YS034",
                    f"{format_path(base.path)} is read at a key computed at run time ({ast.unparse(node.slice)}); "
                    "the key must be known when generating: loop over range() of constant bounds, or over a "
                    "tuple of the keys",
                    node.slice,
                )
            )
        )

    def getindex(self, value: Atom, dynamic: list[Atom], index: tuple, node: ast.AST) -> Atom:
        out = self.lo.add("getindex", [value, *dynamic], {"index": index}, node)
        self.lo.lists.list_slice(value, index, out)
        if (
            isinstance(out, Var)
            and isinstance(value, Var)
            and value.hint
            and len(index) == 1
            and isinstance(index[0], int)
            and index[0] >= 0
        ):
            out.hint, out.hint_depth = f"{value.hint}{index[0]}", _DERIVED_HINT
        return out

    def index(self, node: ast.expr, env: dict, dynamic: list[Atom]) -> tuple:
        """The index template of ``x[node]``; computed parts are appended to ``dynamic`` as ``Dyn``."""
        items = node.elts if isinstance(node, ast.Tuple) else [node]
        return tuple(self.index_item(i, env, dynamic) for i in items)

    def index_item(self, node: ast.expr, env: dict, dynamic: list[Atom]) -> object:
        if isinstance(node, ast.Slice):  # x[i:i + k]: a computed bound is an operand too
            parts = [
                None if p is None else self.slice_bound(p, env, dynamic) for p in (node.lower, node.upper, node.step)
            ]
            return Slice(*parts)
        value = self.lo.expr(node, env)
        if isinstance(value, Lit) and (value.value is None or value.value is Ellipsis or type(value.value) is int):
            return value.value
        if isinstance(value, tuple) or (isinstance(value, Lit) and isinstance(value.value, tuple)):
            # a literal list of indices, x[[0, 2, 2]]: an index array
            value = self.array_constant(value, node)
        if isinstance(value, _Unresolved | _Indexed):
            value = self.lo.as_array(value, node)
        if isinstance(value, Var):
            dynamic.append(value)
            return Dyn(len(dynamic) - 1)
        raise self.lo.error("YS034", "an index is an integer, a slice, None, ..., an index array or a mask", node)

    def array_constant(self, value: object, node: ast.AST) -> Atom:
        """A constant list (or nested lists) as an array: ``np.asarray((0, 2, 2))``."""
        atom = self.lo.as_array(value, node)
        if isinstance(atom, Lit) and isinstance(atom.value, tuple):
            return self.lo.add("asarray", [atom], {}, node)
        if isinstance(atom, Var):  # x[[i, i, j]]: an index array of computed integers
            return atom
        raise self.lo.error("YS034", "an index list holds integers", node)

    def slice_bound(self, node: ast.expr, env: dict, dynamic: list[Atom]) -> int | None | Dyn:
        value = self.lo.expr(node, env)
        if isinstance(value, Lit) and (value.value is None or type(value.value) is int):
            return value.value
        if isinstance(value, _Unresolved | _Indexed | Var):
            dynamic.append(self.lo.as_array(value, node))
            return Dyn(len(dynamic) - 1)
        raise self.lo.error("YS034", "a slice bound is an integer or None", node)

    def static_int(self, node: ast.expr, env: dict) -> int:
        value = self.lo.expr(node, env)
        if isinstance(value, Lit) and type(value.value) is int:
            return value.value
        raise self.lo.error("YS034", "slice bounds must be constant integers", node)


_OPNAMES = {
    ast.Mod: "%", ast.FloorDiv: "//", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^",
    ast.BitAnd: "&", ast.Not: "not", ast.Invert: "~",
}  # fmt: skip


def _unsupported(node: ast.expr) -> str:
    """Why lowering has no primitive for ``node`` (an expression of a kind it does not lower)."""
    kinds = {
        ast.BoolOp: "'and'/'or'",
        ast.Dict: "a dict",
        ast.Set: "a set",
        ast.DictComp: "a dict comprehension",
        ast.SetComp: "a set comprehension",
        ast.JoinedStr: "an f-string",
        ast.NamedExpr: "an assignment expression (:=)",
    }
    return f"{kinds.get(type(node), type(node).__name__)} has no rule"


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _python_sequence(value: object) -> tuple | None:
    """``value`` as the items of a Python list or tuple (a display, a constant one), else None."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, Lit) and isinstance(value.value, tuple | list):
        return tuple(Lit(v) for v in value.value)
    return None
