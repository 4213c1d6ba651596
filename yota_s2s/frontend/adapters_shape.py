"""Shape calls whose meaning depends on their arguments, in terms of primitives (``calls.adapt``).

A part of lowering: each function takes the lowerer (``lw``: ``call_primitive``, ``add``,
``getindex``, ``as_array``, ``error``), the call's lowered arguments and its node, and returns the
call's value, or None where the ordinary binding to a rule applies.

- ``np.split(x, s, axis)`` and ``np.array_split`` are a tuple of slices of ``x`` (``getindex``),
  so every part's gradient goes into one buffer; equal sections find their bounds when the
  function runs (``split_at``, which raises NumPy's error for an uneven ``np.split``).
  ``np.hsplit`` and ``np.vsplit``, whose axis depends on ``x.ndim``, are ``split_part`` each.
- ``np.diff(x, prepend=p, append=q)`` is ``np.diff`` of ``np.concatenate([p', x, q'])``, each end
  broadcast as NumPy does (``diff_end``).
- ``np.pad`` is checked for the modes its rule differentiates (constant, edge, reflect,
  symmetric, wrap); any other refuses with a located error (or passes through as static code
  where nothing is differentiated).
- ``np.select(conds, choices, default)`` is nested ``np.where``, the first condition winning.
- ``np.vander(x, N)`` of an ``N`` known at run time only (``len(coef)``) is
  ``x[:, None] ** powers``, the powers ``np.arange(N)`` (reversed unless ``increasing=True``).
- ``np.cross(a, b, axisa=, axisb=, axisc=, axis=)`` is ``np.cross`` along the last axes of
  ``np.moveaxis`` of each operand, the result's vectors moved to ``axisc``; where ``axisc`` moves
  them, the generated code checks that the vectors have 3 components (NumPy ignores ``axisc``
  for two 2-vectors, whose product has no vector axis).
- ``np.r_[a, 0.0, b]`` and ``np.c_[a, b]`` of arrays and numbers are ``index_join`` (written
  ``np.r_[...]`` by its helper, NumPy's dtype rules kept).  A slice (``np.r_[0:5]``) or a
  string directive has no rule: static code where nothing is differentiated.
"""

from __future__ import annotations

import ast
import itertools

from ..ir.core import Dyn, Lit, Slice
from .values import _NOT_CONSTANT, _constant_value, _Function

#: ``np.r_`` and ``np.c_``: read with a subscript, lowered as calls of these names.
INDEX_TRICKS = ("numpy.r_", "numpy.c_")

#: The modes of ``np.pad`` its rule differentiates: a constant or a copy of an element of ``x``.
PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def adapt_shape(lw, name: str, args: list, kwargs: dict, node: ast.AST) -> object | None:
    """The value of a shape call lowered here, or None for the ordinary binding."""
    if name in ("numpy.split", "numpy.array_split"):
        return _split(lw, name, args, kwargs, node)
    if name in ("numpy.hsplit", "numpy.vsplit"):
        return _split_parts(lw, name, args, kwargs, node)
    if name == "numpy.diff" and (len(args) > 3 or "prepend" in kwargs or "append" in kwargs):
        return _diff_with_ends(lw, args, kwargs, node)
    if name == "numpy.pad":
        _check_pad(lw, args, kwargs, node)
        return None
    if name == "numpy.select":
        return _select(lw, args, kwargs, node)
    if name in INDEX_TRICKS:
        return _index_trick(lw, name, args, node)
    if name == "numpy.vander":
        return _vander(lw, args, kwargs, node)
    if name == "numpy.cross" and (len(args) > 2 or kwargs):
        return _cross(lw, args, kwargs, node)
    return None


def _cross(lw, args: list, kwargs: dict, node: ast.AST) -> object:
    """``np.cross(a, b, axisa, axisb, axisc, axis)``: ``np.cross`` of the operands' vectors moved last."""
    names = [("a", ...), ("b", ...), ("axisa", -1), ("axisb", -1), ("axisc", -1), ("axis", None)]
    b = _bind(lw, "np.cross", names, args, kwargs, node)
    axes = {k: _constant(lw, b[k], f"{k}= of np.cross()", node) for k in ("axisa", "axisb", "axisc", "axis")}
    if axes["axis"] is not None:  # axis= sets the three
        axes.update(axisa=axes["axis"], axisb=axes["axis"], axisc=axes["axis"])
    if any(type(axes[k]) is not int for k in ("axisa", "axisb", "axisc")):
        raise lw.error("YS032", "the axes of np.cross() are integers", node)
    ab = []
    for key, source in (("a", axes["axisa"]), ("b", axes["axisb"])):
        x = lw.as_array(b[key], node)
        ab.append(x if source == -1 else lw.calls.call_primitive("numpy.moveaxis", [x, Lit(source), Lit(-1)], {}, node))
    out = lw.calls.call_primitive("numpy.cross", ab, {}, node)
    if axes["axisc"] == -1:
        return out
    check = ast.parse(
        "if __yota_a0.shape[-1] == 2 and __yota_a1.shape[-1] == 2:\n"
        "    raise ValueError('np.cross(..., axisc=) of two 2-vectors: the product has no vector axis to move')"
    ).body[0]
    lw.tape.add_eqn("effect", ab, {"code": ast.unparse(check), "modules": ()}, lw.span_at(node))
    return lw.calls.call_primitive("numpy.moveaxis", [out, Lit(-1), Lit(axes["axisc"])], {}, node)


def _vander(lw, args: list, kwargs: dict, node: ast.AST) -> object | None:
    """``np.vander(x, N)`` of a computed ``N``: ``x[:, None] ** powers`` (None: a constant N, the rule's)."""
    bound = _bind(lw, "vander", [("x", ...), ("N", None), ("increasing", False)], args, kwargs, node)
    n = bound["N"]
    if _constant_value(n) is not _NOT_CONSTANT:
        return None
    increasing = _constant(lw, bound["increasing"], "increasing= of vander()", node)
    powers = lw.calls.call_primitive("numpy.arange", [n], {}, node)
    if not increasing:
        powers = lw.binop("sub", lw.binop("sub", n, Lit(1), node), powers, node)
    column = lw.calls.call_primitive("numpy.expand_dims", [bound["x"]], {"axis": Lit(1)}, node)
    return lw.binop("power", column, powers, node)


def _bind(lw, fname: str, params: list[tuple[str, object]], args: list, kwargs: dict, node: ast.AST) -> dict:
    """Bind a call's arguments to ``params`` (``(name, default)``; ``...`` for a required one)."""
    names = [p for p, _ in params]
    if len(args) > len(params):
        raise lw.error("YS032", f"{fname}() takes at most {len(params)} arguments ({len(args)} given)", node)
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise lw.error("YS032", f"{fname}() has no parameter {key!r}", node)
        if key in bound:
            raise lw.error("YS032", f"{fname}() got two values for {key!r}", node)
        bound[key] = value
    for key, default in params:
        if key not in bound:
            if default is ...:
                raise lw.error("YS032", f"{fname}() is missing the argument {key!r}", node)
            bound[key] = Lit(default)
    return bound


def _constant(lw, value: object, what: str, node: ast.AST) -> object:
    constant = _constant_value(value)
    if constant is _NOT_CONSTANT:
        raise lw.error("YS033", f"{what} must be a constant", node)
    return constant


def _sections(lw, fname: str, value: object, node: ast.AST) -> int | tuple[int, ...]:
    """A constant number of sections (at least 1) or a constant tuple of indices."""
    sections = _constant(lw, value, f"the sections of {fname}() (a number or a list of indices)", node)
    if type(sections) is int:
        if sections <= 0:
            raise lw.error("YS032", f"{fname}(): the number of sections must be larger than 0", node)
        return sections
    if isinstance(sections, tuple) and all(type(i) is int for i in sections):
        return sections
    raise lw.error("YS032", f"{fname}() takes a number of sections or a list of integer indices", node)


# ----------------------------------------------------------------------------- splitting


def _split(lw, name: str, args: list, kwargs: dict, node: ast.AST) -> tuple:
    fname = "np." + name[6:]
    b = _bind(lw, fname, [("ary", ...), ("indices_or_sections", ...), ("axis", 0)], args, kwargs, node)
    axis = _constant(lw, b["axis"], f"axis= of {fname}()", node)
    if type(axis) is not int:
        raise lw.error("YS032", f"axis= of {fname}() is an integer", node)
    sections = _sections(lw, fname, b["indices_or_sections"], node)
    x = lw.as_array(b["ary"], node)
    if isinstance(sections, tuple):
        bounds: list = [None, *sections, None]
    else:  # equal sections: the bounds depend on x's length, known when the function runs
        params = {"sections": sections, "axis": axis, "equal": name == "numpy.split"}
        inner = [lw.add("split_at", [x], {"part": k, **params}, node) for k in range(1, sections)]
        bounds = [None, *inner, None]
    parts = []
    for lo, hi in itertools.pairwise(bounds):
        dynamic = [b for b in (lo, hi) if b is not None and not isinstance(b, int)]
        start = Dyn(dynamic.index(lo)) if lo in dynamic else lo
        stop = Dyn(dynamic.index(hi)) if hi in dynamic else hi
        every = (Slice(),) * axis if axis >= 0 else ()
        after = (Slice(),) * (-axis - 1) if axis < 0 else ()
        index = (*every, *((Ellipsis,) if axis < 0 else ()), Slice(start, stop), *after)
        parts.append(lw.exprs.getindex(x, dynamic, index, node))
    return tuple(parts)


def _split_parts(lw, name: str, args: list, kwargs: dict, node: ast.AST) -> tuple:
    fname = "np." + name[6:]
    b = _bind(lw, fname, [("ary", ...), ("indices_or_sections", ...)], args, kwargs, node)
    sections = _sections(lw, fname, b["indices_or_sections"], node)
    x = lw.as_array(b["ary"], node)
    count = len(sections) + 1 if isinstance(sections, tuple) else sections
    params = {"sections": sections, "kind": name[6:]}
    return tuple(lw.add("split_part", [x], {"part": k, **params}, node) for k in range(count))


# ----------------------------------------------------------------------------- np.diff's ends, np.pad


def _diff_with_ends(lw, args: list, kwargs: dict, node: ast.AST) -> object:
    params = [("a", ...), ("n", 1), ("axis", -1), ("prepend", _NO_END), ("append", _NO_END)]
    b = _bind(lw, "np.diff", params, args, kwargs, node)
    axis = _constant(lw, b["axis"], "axis= of diff()", node)
    x = lw.as_array(b["a"], node)
    joined = [x]
    for key in ("prepend", "append"):
        end = b[key]
        if isinstance(end, Lit) and end.value is _NO_END:
            continue
        if isinstance(end, Lit) and end.value is None:
            raise lw.error("YS032", f"{key}= of np.diff() is a number or an array", node)
        part = lw.add("diff_end", [lw.as_array(end, node), x], {"axis": axis}, node)
        joined.insert(0 if key == "prepend" else len(joined), part)
    whole = lw.calls.call_primitive("numpy.concatenate", [tuple(joined)], {"axis": Lit(axis)}, node)
    return lw.calls.call_primitive("numpy.diff", [whole], {"n": b["n"], "axis": Lit(axis)}, node)


class _NoEnd:
    """No ``prepend=`` (``append=``) given: NumPy's ``np._NoValue``."""


_NO_END = _NoEnd()


def _check_pad(lw, args: list, kwargs: dict, node: ast.AST) -> None:
    """Refuse a mode of ``np.pad`` its rule does not differentiate (YS031: static code where
    nothing is differentiated)."""
    mode = args[2] if len(args) > 2 else kwargs.get("mode", Lit("constant"))
    if not (isinstance(mode, Lit) and mode.value in PAD_MODES):
        shown = repr(mode.value) if isinstance(mode, Lit) else "a computed or callable mode"
        raise lw.error(
            "YS031",
            f"np.pad() with mode={shown} has no derivative rule (the modes are {', '.join(PAD_MODES)})",
            node,
        )
    reflect = kwargs.get("reflect_type", Lit("even"))
    if not (isinstance(reflect, Lit) and reflect.value == "even"):
        raise lw.error("YS031", "np.pad() with reflect_type other than 'even' has no derivative rule", node)


# ----------------------------------------------------------------------------- np.select, np.r_, np.c_


def _select(lw, args: list, kwargs: dict, node: ast.AST) -> object:
    params = [("condlist", ...), ("choicelist", ...), ("default", 0)]
    b = _bind(lw, "np.select", params, args, kwargs, node)
    conds, choices = b["condlist"], b["choicelist"]
    if isinstance(conds, Lit) and isinstance(conds.value, tuple):
        conds = tuple(Lit(c) for c in conds.value)
    if isinstance(choices, Lit) and isinstance(choices.value, tuple):
        choices = tuple(Lit(c) for c in choices.value)
    if not (isinstance(conds, tuple) and isinstance(choices, tuple)):
        raise lw.error(
            "YS041", "np.select() takes lists of conditions and choices written in the call (of known length)", node
        )
    if not conds or len(conds) != len(choices):
        raise lw.error("YS032", "np.select() takes as many choices as conditions, at least one", node)
    result = b["default"]
    for cond, choice in reversed(list(zip(conds, choices))):  # the first condition that holds wins
        result = lw.calls.call_primitive("numpy.where", [cond, choice, result], {}, node)
    return result


def index_trick_items(lw, node: ast.Subscript, env: dict) -> list:
    """The items of ``np.r_[...]`` or ``np.c_[...]``: values; a slice (a range) or a string
    directive has no rule (YS020: static code where nothing is differentiated)."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    for item in items:
        if isinstance(item, ast.Slice) or (isinstance(item, ast.Constant) and isinstance(item.value, str)):
            raise lw.error(
                "YS020", "np.r_/np.c_ with a range or a directive has no rule (only arrays and numbers)", item
            )
    return [lw.expr(item, env) for item in items]


def _index_trick(lw, name: str, items: list, node: ast.AST) -> object:
    if not items or all(_constant_value(v) is not _NOT_CONSTANT for v in items):
        raise lw.error("YS020", f"np.{name[6:]}[...] of constants has no rule (static code)", node)
    if any(isinstance(v, _Function) for v in items):
        raise lw.error("YS020", f"np.{name[6:]}[...] joins arrays and numbers", node)
    return lw.add("index_join", [lw.as_array(v, node) for v in items], {"kind": name[6]}, node)
