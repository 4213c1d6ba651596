"""The ``array-api`` target: one gradient module for every library of the Python array API standard.

Each generated function finds the namespace of its arguments first,
``xp, x, w = _namespace(x, w)`` (``array_api_compat``: NumPy, PyTorch, JAX, Dask, CuPy), and
then uses only the standard's functions (``array_api.json``, version 2024.12), the array
attributes it defines and the helpers of ``runtime/array_api``, which are written against it.

What NumPy spells otherwise is written the standard's way: ``np.arctan2`` as ``xp.atan2``,
``np.transpose(x)`` as ``_transpose(x)``, ``x.sum()`` as ``xp.sum(x)``, a number passed where
the standard wants an array as ``xp.asarray(2.0)``, a write ``a[i] = v`` or a gradient's
``dx[i] += g`` as a new array (``_setindex``, ``_index_add``: JAX arrays are immutable).  What
the standard lacks (``np.einsum``, a helper with no array-API form, a write at an index computed
at run time, which may repeat a position) is refused at generation time, located (YS040).

    >>> import ast
    >>> from yota_s2s.ir.core import Eqn, Var
    >>> from yota_s2s.dsl.load import load_rules
    >>> rules = load_rules()
    >>> ast.unparse(ARRAY_API.expression(Eqn("sqrt", [Var()], {}, [Var()]), [ast.Constant(2.0)], rules["sqrt"]))
    'xp.sqrt(xp.asarray(2.0, dtype=xp.float64))'
    >>> e = Eqn("arctan2", [Var(), Var()], {}, [Var()])
    >>> ast.unparse(ARRAY_API.expression(e, [ast.Name("x"), ast.Name("y")], rules["arctan2"]))
    'xp.atan2(x, y)'
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ..dsl.rule import Rule
from ..errors import at_span
from ..ir.core import Dyn, Eqn, Lit, Section, Slice
from . import array_api
from .cupy_api import parse_signature
from .helpers import _runtime_functions, helper_closure, helper_source, variant_has
from .target import _HELPER_USES, BACKENDS, Backend, _target_uses, _walk, constant, index_expr

#: The subpackage of ``runtime`` whose helpers this target carries.
VARIANT = "array_api"

#: The modules of the standard library a passed-through call may use (``math.floor``).
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names)

#: The names of the standard's parameters that take an array (a number there is ``xp.asarray``'d).
ARRAY_PARAMETERS = ("x", "x1", "x2", "condition")

#: NumPy functions the standard lacks, written as a helper of the variant (same arguments): ``np.dot(x, y)``.
HELPER_FUNCTIONS = {"dot": "_dot", "outer": "_outer"}

#: The standard's creation functions whose default dtype is the library's floating one where NumPy's is float64.
DEFAULT_FLOAT_CREATION = frozenset({"zeros", "ones", "empty", "eye", "linspace", "full"})

#: Primitives written as a helper of the variant: ``np.shape(x)`` is ``_shape(x)`` (a number has none).
HELPER_PRIMITIVES = {"shape": "_shape", "size": "_size", "ndim": "_ndim", "list_stack": "_stack_items"}


@dataclass(frozen=True)
class StandardBackend(Backend):
    """The array API standard's backend: names checked against ``array_api.json``, helpers from
    ``runtime/array_api``, no in-place writes, no method forms."""

    label: str = "array-api"

    def expression(
        self,
        eqn: Eqn,
        args: list[ast.expr],
        rule: Rule,
        arrays: Sequence[bool] = (),
        imports: set[str] | None = None,
    ) -> ast.expr:
        """As ``Backend.expression``; a function of another library than the standard's (``scipy.special.erf``,
        a ``--rules`` library) is a located YS040: the module imports ``array_api_compat`` only."""
        found: set[str] = set()
        expr = super().expression(eqn, args, rule, arrays, found)
        other = sorted(m for m in found if m.split(".")[0] not in STANDARD_LIBRARY)
        if other:
            raise refusal(eqn, f"{other[0]} is not the array API standard (the module imports array_api_compat only)")
        if imports is not None:
            imports |= found
        return expr

    def call(self, name: str, args: list[ast.expr], keywords: dict[str, object] | None = None) -> ast.expr:
        """As ``Backend.call``; ``np.shape(x)``, ``np.size(x)``, ``np.ndim(x)`` (the modes' checks and
        seeds) are their helpers (``_shape(x)``): the standard has them as attributes, a number none."""
        if name in HELPER_PRIMITIVES and name != "list_stack" and len(args) == 1 and not keywords:
            return ast.Call(ast.Name(HELPER_PRIMITIVES[name], ast.Load()), list(args), [])
        return super().call(name, args, keywords)

    def index_value(self, params: dict, dynamic: Sequence[ast.expr]) -> ast.expr:
        """An index as a value: ``3``, ``i`` or ``(slice(1, None), i)`` (the standard has no ``s_``)."""
        items = []
        for i in params["index"]:
            if isinstance(i, Slice):
                bounds = (i.start, i.stop, i.step)
                items.append(
                    ast.Call(
                        ast.Name("slice", ast.Load()),
                        [dynamic[p.k] if isinstance(p, Dyn) else constant(p) for p in bounds],
                        [],
                    )
                )
            elif i is Ellipsis:
                items.append(ast.Constant(Ellipsis))
            else:
                items.append(index_expr((i,), dynamic))
        return items[0] if len(items) == 1 else ast.Tuple(items, ast.Load())

    def _expression(
        self, eqn: Eqn, args: list[ast.expr], rule: Rule, arrays: Sequence[bool], imports: set[str] | None
    ) -> ast.expr:
        prim, params = eqn.prim, eqn.params

        def helper(name: str, *extra: ast.expr) -> ast.expr:
            return ast.Call(ast.Name(name, ast.Load()), [*args, *extra], [])

        if prim in HELPER_PRIMITIVES and (prim == "list_stack" or len(args) == 1):
            if prim == "list_stack":
                return ast.Call(ast.Name("_stack_items", ast.Load()), list(args), [])  # (the list's items)
            return helper(HELPER_PRIMITIVES[prim])
        if prim == "transpose":
            if params["axes"] is not None:
                return self.call("permute_dims", args, {"axes": params["axes"]})
            return helper("_transpose")
        if prim == "astype":
            return self.call("astype", [args[0], self.dtype(params["dtype"])])
        if prim == "unreduce":  # _unreduce(g, x, axis): the helper puts the reduced axes back
            if params["axis"] is not None and not params["keepdims"]:
                return helper("_unreduce", constant(params["axis"]))
            return helper("_unreduce")
        if prim == "getindex" and arrays and arrays[0] and all(i is not Ellipsis for i in params["index"]):
            # x[0, ...]: the standard indexes every axis (NumPy's x[0] of a matrix is flat indexing)
            index = (*params["index"], Ellipsis)
            return ast.Subscript(args[0], index_expr(index, args[1:]), ast.Load())
        if (
            prim == "take"
            and isinstance(eqn.args[1], Lit)
            and type(eqn.args[1].value) is int
            and params["axis"] is not None
        ):
            # np.take(g, 2, axis=1) is g[:, 2, ...] (the standard's take wants an array of indices)
            axis = params["axis"]
            lead = (Ellipsis,) if axis < 0 else (Slice(None, None, None),) * axis
            index = (*lead, eqn.args[1].value, *((Slice(None, None, None),) * (-1 - axis) if axis < 0 else (Ellipsis,)))
            return ast.Subscript(args[0], index_expr(index, []), ast.Load())
        if prim in ("index_add", "setindex"):
            return ast.Call(ast.Name(f"_{prim}", ast.Load()), [*args[:2], self.index_value(params, args[2:])], [])
        expr = super()._expression(eqn, args, rule, (), imports)
        if prim == "reshape" and len(expr.args) == 2 and isinstance(expr.args[1], ast.Constant | ast.UnaryOp):
            expr.args[1] = ast.Tuple([expr.args[1]], ast.Load())  # xp.reshape(x, (-1,)): a shape is a tuple
        return self._arrays_for_numbers(expr, {id(a) for a in args})

    def library_name(self, name: str, imports: set[str] | None) -> ast.expr:
        """As NumPy's, with ``len(x)`` as ``_len(x)`` (the standard's arrays have no ``__len__``)."""
        if name == "builtins.len":
            return ast.Name("_len", ast.Load())
        return super().library_name(name, imports)

    def dtype(self, dtype: object) -> ast.expr:
        """``float`` (a dtype as the source names it) as the standard's ``xp.float64``."""
        name = {float: "float64", int: "int64", bool: "bool", complex: "complex128"}.get(dtype, str(dtype))
        return self.attr(name.removeprefix("numpy.").removeprefix("np."))

    def by_source_name(self, rule: Rule, args: list[ast.expr], keywords: dict, imports: set[str] | None) -> ast.expr:
        """As NumPy's, with NumPy's names of the standard's functions spelled the standard's way."""
        expr = super().by_source_name(rule, args, keywords, imports)
        call = expr.value if isinstance(expr, ast.Subscript) else expr
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "len":
            call.func.id = "_len"
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            name = call.func.attr
            if name in HELPER_FUNCTIONS and isinstance(call.func.value, ast.Name):  # np.dot: _dot, NumPy's own
                call.func = ast.Name(HELPER_FUNCTIONS[name], ast.Load())
            else:
                call.func.attr = array_api.SPELLINGS.get(name, name)
                self._numpy_default_dtype(call)
        return expr

    def _numpy_default_dtype(self, call: ast.Call) -> None:
        """``np.zeros(n)`` as ``xp.zeros(n, dtype=xp.float64)``: NumPy's default floating dtype is
        float64, the standard leaves it to the library (PyTorch's is float32), so a creation
        function without a dtype gets NumPy's (``full`` where its fill value is a float)."""
        name = call.func.attr
        if name not in DEFAULT_FLOAT_CREATION or any(k.arg == "dtype" for k in call.keywords):
            return
        if name == "full":
            fill = (
                call.args[1]
                if len(call.args) > 1
                else next((k.value for k in call.keywords if k.arg == "fill_value"), None)
            )
            if not (isinstance(fill, ast.Constant) and isinstance(fill.value, float)):
                return
        call.keywords.append(ast.keyword("dtype", self.attr("float64")))

    def _arrays_for_numbers(self, expr: ast.expr, args: set[int]) -> ast.expr:
        """``xp.sqrt(2.0)`` as ``xp.sqrt(xp.asarray(2.0))``: a number literal where the standard's
        function takes an array (its parameters ``x``, ``x1``, ``x2``, ``condition``)."""
        if not isinstance(expr, ast.Call):
            return expr
        uses = _target_uses(ast.Expression(ast.Call(expr.func, [], [])), self._roots())
        if not uses:
            return expr
        text = self.api().names.get(uses[0][0])
        if text is None:
            return expr
        params = [p.name for p in parse_signature(text).parameters.values() if p.kind is p.POSITIONAL_ONLY]
        for k, a in enumerate(expr.args):
            number = isinstance(a, ast.Constant) or (isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Constant))
            if k < len(params) and params[k] in ARRAY_PARAMETERS and number:
                value = a.value if isinstance(a, ast.Constant) else a.operand.value
                # (a float as NumPy reads it, float64: PyTorch's asarray(2.0) is float32)
                float64 = [ast.keyword("dtype", self.attr("float64"))] if isinstance(value, float) else []
                expr.args[k] = ast.Call(self.attr("asarray"), [a], float64)
        return expr

    # ------------------------------------------------------------------ checking against the standard
    def _roots(self) -> tuple[tuple[str, str], ...]:
        return ((self.alias, "xp"),)

    def _check(self, eqn: Eqn, expr: ast.expr, args: Sequence[ast.expr]) -> None:
        """A located YS040 when ``expr`` needs what the standard lacks, or a helper this target has no form of."""
        skip = {id(a) for a in args}
        problem = next(iter(self.problems(expr, skip)), None)
        if problem is None:
            names = {n.id for n in _walk(expr, skip) if isinstance(n, ast.Name)}
            known = set(_runtime_functions()) | set(_runtime_functions(VARIANT))
            missing = sorted(n for n in names & known if not variant_has(n, VARIANT))
            if missing:
                problem = f"the helper {missing[0]} has no form written against the array API standard"
            else:
                for name in helper_closure(names & known, VARIANT):
                    found = self._helper_problems(name)
                    if found:
                        problem = f"{found[0]} (in the helper {name})"
                        break
        if problem is not None:
            raise refusal(eqn, problem)

    def _helper_problems(self, helper: str) -> list[str]:
        key = (VARIANT, helper, self._roots())
        if key not in _HELPER_USES:
            _HELPER_USES[key] = _target_uses(ast.parse(helper_source(helper, "xp", VARIANT)), (("xp", "xp"),))
        return self._problems(_HELPER_USES[key])


def refusal(eqn: Eqn, problem: str):
    """The located YS040 of ``eqn``: the array-api target cannot write it, and why."""
    what = "the gradient of this" if eqn.section == Section.BACKWARD else "this"
    return at_span("YS040", f"the array-api target cannot write {what}: {problem}", eqn.span)


ARRAY_API = StandardBackend(
    "array_api_compat",
    "xp",
    api=array_api.load,
    namespace_at_run_time=True,
    helper_variant=VARIANT,
    numpy_api=False,
    in_place=False,
    methods=False,
    scalars=False,
    host=False,
    complex_arguments=False,
    batched_rows=False,
)
BACKENDS["array-api"] = ARRAY_API
