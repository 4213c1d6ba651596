"""One record per primitive: every fact a stage needs about a primitive besides its rule.

A rule (``rules/*.py``) says what a primitive computes and how to differentiate it; the record
here says how the other stages treat it: how it is written in Python (an operator, a method,
an attribute, the ufunc that can write it into an array), what its results are (a Python
number for Python numbers, always a NumPy value, maybe a view, a new array, a boolean, an
inexact dtype), and which of its operands it reads only for their shape.  Adding a primitive
means a rule and a record here, nothing else; ``tests/test_architecture.py`` checks that the
records and the shipped rules name the same primitives.  A primitive from a user's ``--rules``
file has no record: ``primitive(name)`` gives it the default one (nothing assumed).

    >>> primitive("add").commutative, primitive("add").ufunc, primitive("exp").same_inexact
    (True, 'add', True)

Folding a primitive on constants (its ``fold``) is ``ir.folding``'s.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Primitive:
    """The facts about one primitive (the defaults assume nothing)."""

    #: The Python operator that writes it (``ast.Add``, ``ast.USub``, ``ast.Lt``), and its text.
    operator: type[ast.AST] | None = None
    symbol: str = ""
    #: Evaluates it on Python numbers when generating (constant folding).
    fold: Callable[..., object] | None = None
    #: ``f(a, b) == f(b, a)``: CSE numbers its operands in a canonical order.
    commutative: bool = False
    #: On Python numbers it gives a Python number (``float * float``, ``np.real(2.0)``), like NumPy's
    #: result: a method (``.sum()``) is written on its result only when an operand is a NumPy value.
    python_arithmetic: bool = False
    #: The operand that gives its result a size (a random draw's ``size``): given (not None), the
    #: result is a NumPy array; not given, a Python number (``np.random.normal(0.0, 1.0)``).
    sized_by: str | None = None
    #: Its result is boolean (a comparison): multiplying by 1.0 would make it a float.
    boolean: bool = False
    #: NumPy's function returns a Python value (an int, a tuple of ints): ``np.size``, ``np.shape``.
    python_value: bool = False
    #: Its result is always a NumPy value (an array, or a NumPy scalar), never a Python number.
    numpy_value: bool = False
    #: NumPy's result may be a view of its first operand (a write into it changes the operand).
    view: bool = False
    #: Its result is a new array that nothing else refers to (a write into it may be in place).
    fresh: bool = False
    #: Written as the method ``x.NAME(...)`` (or the attribute ``x.NAME``) of a value known to be
    #: a NumPy value: the same computation without the Python wrapper of ``np.NAME``.
    method: str | None = None
    attribute: str | None = None
    #: The method takes a shape as separate arguments: ``x.reshape(3, 4)``.
    packed_method: bool = False
    #: The NumPy ufunc that computes it, so that it can be written into an array (``out=``).
    #: (``x ** 2`` is ``np.square``; other powers are left to ``**``.)
    ufunc: str | None = None
    #: An elementwise function whose result has the shape and dtype of an inexact operand
    #: (``np.exp`` of a float array): read only for those, it is its operand.
    same_inexact: bool = False
    #: Its result is inexact (float or complex) whatever its operands (``np.exp``, ``/``).
    makes_inexact: bool = False
    #: Its result is inexact when an operand is (arithmetic promotes, reductions keep the dtype).
    promotes_inexact: bool = False
    #: The positions of the operands it reads only for their shape and dtype, never their values.
    shape_operands: tuple[int, ...] = ()
    #: The primitive that gives its result's shape and dtype without computing it (``like``).
    stand_in: str | None = None
    #: As cheap on a stand-in as on the array (a view): its array operand is read for its shape too.
    stand_in_view: bool = False
    #: A query of the shape alone (no dtype), answered by ``np.broadcast(x, y)`` of a broadcast.
    size_query: bool = False
    #: In the backward sweep, what flows into a gradient through these operands is a term of it.
    gradient_terms: tuple[int, ...] = ()
    #: The shape of its result may depend on the values of its operands (not only their shapes).
    value_shaped: bool = False
    #: The shape of its result is given by the shapes of its operands and its static parameters
    #: alone, never by their values (``x @ y``; not ``np.zeros(n)``, ``x.reshape(n, -1)``).  The
    #: index operands of ``x[i]`` are apart: an integer drops an axis whatever its value, a mask
    #: keeps as many elements as it holds ``True``.
    shape_from_shapes: bool = False
    #: The position of its first index operand (``x[i]``: the index operands follow the array).
    index_from: int | None = None
    #: Its result has the shape of its last operand, filled from the others (``_unreduce(g, x)``):
    #: column by column when that operand is.
    column_shaped: bool = False
    #: Linear in sums: each tuple lists operand positions that may be sums over the columns
    #: (the others independent of them) and keep the result such a sum (``a + b``, ``2 * a``).
    linear: tuple[tuple[int, ...], ...] = ()
    #: A rule whose formulas are the complex adjoint of another primitive (rules/complex.py:
    #: ``complex_abs`` is that of ``abs``): never an equation, so never written.
    adjoint_only: bool = False
    #: A new array that gradients are added into, in place (``np.zeros`` of a shape, a copy).
    buffer: bool = False
    #: Its rule for a batch of seeds (``ir.batching``): the primitive that computes it row by
    #: row (``"rows_sum"``), or ``"self"``: written as it is; None: none, unless it is elementwise
    #: (has a ``ufunc``).  Indexes and gradient buffers have theirs in ``ir.batching``.
    batched: str | None = None
    #: Two equal calls make two objects, never one value (CSE keeps them apart): ``[]`` is a new list
    #: each time, which its own appends then build in place.
    distinct: bool = False
    #: Its result is named on a line of its own, never written inline into its user (a row-by-row
    #: helper: nested, they would read as one expression for a whole sweep).
    own_line: bool = False
    #: A row-by-row primitive's static parameters that say which operands are batched (``a_rows``).
    rows_flags: tuple[str, ...] = ()
    #: The static parameters of the primitive it batches that a row-by-row primitive takes on.
    rows_params: tuple[str, ...] = ()


_DEFAULT = Primitive()


class RuleFacts(Protocol):
    """What the IR's analyses read of a primitive's rule (``dsl.rule.Rule`` has them): whether it is
    pure, its shape kind (``"elementwise"``, ``"reduce"``, ``"scalar"``, an operand's name, ...) and
    its operands' names.  ``ir`` reads them through this, and imports nothing from ``dsl``."""

    pure: bool
    shape: str
    operands: tuple[str, ...]


class Rules(Protocol):
    """A table of rules by primitive name (``dsl.rule.RuleTable`` is one)."""

    rules: Mapping[str, RuleFacts]


#: In the ``code`` of a ``static`` or ``effect`` equation (rules/python.py): the placeholder of
#: operand ``k`` is ``__yota_a<k>``, that of the library name ``modules[k]`` is ``__yota_m<k>``.
STATIC_OPERAND, STATIC_LIBRARY = "__yota_a", "__yota_m"


def primitive(name: str) -> Primitive:
    """The record of primitive ``name`` (the default record for a primitive of a user's rules)."""
    return PRIMITIVES.get(name) or ROW_PRIMITIVES.get(name, _DEFAULT)


PRIMITIVES: dict[str, Primitive] = {
    # -------------------- arithmetic: + - * / ** and unary minus (rules/arithmetic.py)
    "add": Primitive(
        operator=ast.Add,
        symbol="+",
        fold=operator.add,
        commutative=True,
        python_arithmetic=True,
        fresh=True,
        ufunc="add",
        promotes_inexact=True,
        stand_in="like",
        gradient_terms=(0, 1),
        linear=((0, 1),),
    ),
    "sub": Primitive(
        operator=ast.Sub,
        symbol="-",
        fold=operator.sub,
        python_arithmetic=True,
        fresh=True,
        ufunc="subtract",
        promotes_inexact=True,
        stand_in="like",
        gradient_terms=(0, 1),
        linear=((0, 1),),
    ),
    "mul": Primitive(
        operator=ast.Mult,
        symbol="*",
        fold=operator.mul,
        commutative=True,
        python_arithmetic=True,
        fresh=True,
        ufunc="multiply",
        promotes_inexact=True,
        stand_in="like",
        gradient_terms=(0, 1),
        linear=((0,), (1,)),
    ),
    "truediv": Primitive(
        operator=ast.Div,
        symbol="/",
        fold=operator.truediv,
        python_arithmetic=True,
        fresh=True,
        ufunc="divide",
        makes_inexact=True,
        gradient_terms=(0,),
        linear=((0,),),
    ),
    "neg": Primitive(
        operator=ast.USub,
        symbol="-",
        fold=operator.neg,
        python_arithmetic=True,
        fresh=True,
        ufunc="negative",
        promotes_inexact=True,
        gradient_terms=(0,),
        linear=((0,),),
    ),
    "power": Primitive(
        operator=ast.Pow, symbol="**", fold=operator.pow, python_arithmetic=True, fresh=True, batched="self"
    ),
    # -------------------- comparisons (rules/compare.py)
    "less": Primitive(operator=ast.Lt, symbol="<", fold=operator.lt, boolean=True),
    "less_equal": Primitive(operator=ast.LtE, symbol="<=", fold=operator.le, boolean=True),
    "greater": Primitive(operator=ast.Gt, symbol=">", fold=operator.gt, boolean=True),
    "greater_equal": Primitive(operator=ast.GtE, symbol=">=", fold=operator.ge, boolean=True),
    "equal": Primitive(operator=ast.Eq, symbol="==", fold=operator.eq, boolean=True),
    "not_equal": Primitive(operator=ast.NotEq, symbol="!=", fold=operator.ne, boolean=True),
    # -------------------- elementwise functions (rules/elementwise.py)
    "exp": Primitive(fresh=True, ufunc="exp", same_inexact=True, makes_inexact=True),
    "log": Primitive(fresh=True, ufunc="log", same_inexact=True, makes_inexact=True),
    "sin": Primitive(fresh=True, ufunc="sin", same_inexact=True, makes_inexact=True),
    "cos": Primitive(fresh=True, ufunc="cos", same_inexact=True, makes_inexact=True),
    "tanh": Primitive(fresh=True, ufunc="tanh", same_inexact=True, makes_inexact=True),
    "sqrt": Primitive(fresh=True, ufunc="sqrt", same_inexact=True, makes_inexact=True),
    "abs": Primitive(fresh=True, ufunc="abs"),
    "sign": Primitive(ufunc="sign"),
    "exp2": Primitive(ufunc="exp2", same_inexact=True, makes_inexact=True),
    "expm1": Primitive(ufunc="expm1", same_inexact=True, makes_inexact=True),
    "log2": Primitive(ufunc="log2", same_inexact=True, makes_inexact=True),
    "log10": Primitive(ufunc="log10", same_inexact=True, makes_inexact=True),
    "log1p": Primitive(ufunc="log1p", same_inexact=True, makes_inexact=True),
    "logaddexp": Primitive(ufunc="logaddexp"),
    "logaddexp2": Primitive(ufunc="logaddexp2"),
    "cbrt": Primitive(ufunc="cbrt", same_inexact=True, makes_inexact=True),
    "square": Primitive(fresh=True, ufunc="square"),
    "reciprocal": Primitive(ufunc="reciprocal"),
    "float_power": Primitive(ufunc="float_power"),
    "hypot": Primitive(ufunc="hypot"),
    "tan": Primitive(ufunc="tan", same_inexact=True, makes_inexact=True),
    "arcsin": Primitive(ufunc="arcsin", same_inexact=True, makes_inexact=True),
    "arccos": Primitive(ufunc="arccos", same_inexact=True, makes_inexact=True),
    "arctan": Primitive(ufunc="arctan", same_inexact=True, makes_inexact=True),
    "arctan2": Primitive(ufunc="arctan2"),
    "sinh": Primitive(ufunc="sinh", same_inexact=True, makes_inexact=True),
    "cosh": Primitive(ufunc="cosh", same_inexact=True, makes_inexact=True),
    "arcsinh": Primitive(ufunc="arcsinh", same_inexact=True, makes_inexact=True),
    "arccosh": Primitive(ufunc="arccosh", same_inexact=True, makes_inexact=True),
    "arctanh": Primitive(ufunc="arctanh", same_inexact=True, makes_inexact=True),
    "maximum": Primitive(fresh=True, ufunc="maximum"),
    "minimum": Primitive(fresh=True, ufunc="minimum"),
    "fmax": Primitive(ufunc="fmax"),
    "fmin": Primitive(ufunc="fmin"),
    "clip": Primitive(fresh=True),
    "where": Primitive(fresh=True),
    "floor": Primitive(ufunc="floor"),
    "ceil": Primitive(ufunc="ceil"),
    "round": Primitive(),
    # np.real(2.0) is 2.0, np.imag(2.0) 0: Python numbers, which have no .sum()
    "real": Primitive(python_arithmetic=True),
    "imag": Primitive(python_arithmetic=True),
    "conj": Primitive(),
    # -------------------- complex values (rules/complex.py; the complex_ ones are adjoints only)
    "angle": Primitive(),
    "complex_abs": Primitive(adjoint_only=True),
    "complex_angle": Primitive(adjoint_only=True),
    "complex_imag": Primitive(adjoint_only=True),
    "complex_power": Primitive(adjoint_only=True),
    "holomorphic_power": Primitive(adjoint_only=True),
    "real_value": Primitive(),
    "sinc": Primitive(same_inexact=True, makes_inexact=True),
    "deg2rad": Primitive(ufunc="deg2rad", same_inexact=True, makes_inexact=True),
    "rad2deg": Primitive(ufunc="rad2deg", same_inexact=True, makes_inexact=True),
    # x % y: np.remainder on arrays, Python's % (the same floor convention) on numbers
    "mod": Primitive(
        operator=ast.Mod,
        symbol="%",
        fold=operator.mod,
        python_arithmetic=True,
        fresh=True,
        ufunc="remainder",
        promotes_inexact=True,
    ),
    "fmod": Primitive(ufunc="fmod"),
    # np.nan_to_num(x, copy=False) returns x itself
    "nan_to_num": Primitive(view=True),
    # -------------------- helpers that rules produce (rules/helpers.py)
    "unbroadcast": Primitive(shape_operands=(1,), gradient_terms=(0,), column_shaped=True, batched="rows_unbroadcast"),
    "broadcast_to": Primitive(view=True, batched="rows_broadcast"),
    "unreduce": Primitive(
        numpy_value=True,
        fresh=True,
        shape_operands=(1,),
        gradient_terms=(0,),
        column_shaped=True,
        batched="rows_unreduce",
    ),
    "index_add": Primitive(numpy_value=True, fresh=True, gradient_terms=(0, 1), index_from=2),
    "zeros_like": Primitive(fresh=True, shape_operands=(0,), column_shaped=True),
    "grad_zeros": Primitive(fresh=True, shape_operands=(0,), column_shaped=True, buffer=True),
    "matmul_dx": Primitive(shape_operands=(1,), batched="rows_matmul_dx"),
    "matmul_dy": Primitive(shape_operands=(2,), batched="rows_matmul_dy"),
    "xtx_dx": Primitive(numpy_value=True),
    "xxt_dx": Primitive(),
    "diag_dv": Primitive(numpy_value=True, shape_operands=(1,)),
    "keep_axes": Primitive(shape_from_shapes=True, shape_operands=(1,)),
    "like": Primitive(numpy_value=True, promotes_inexact=True, shape_from_shapes=True),
    "broadcast": Primitive(numpy_value=True, shape_from_shapes=True),
    "like_matmul": Primitive(numpy_value=True, promotes_inexact=True, shape_from_shapes=True),
    # -------------------- linear algebra (rules/linalg.py)
    "matmul": Primitive(
        operator=ast.MatMult,
        symbol="@",
        numpy_value=True,
        fresh=True,
        ufunc="matmul",
        promotes_inexact=True,
        stand_in="like_matmul",
        shape_from_shapes=True,
        batched="rows_matmul",
    ),
    "dot": Primitive(fresh=True, shape_from_shapes=True, batched="rows_dot"),
    "transpose": Primitive(
        numpy_value=True,
        view=True,
        packed_method=True,
        stand_in_view=True,
        shape_from_shapes=True,
        batched="rows_transpose",
    ),
    "diag": Primitive(numpy_value=True, view=True, stand_in_view=True, shape_from_shapes=True),
    "vdot": Primitive(),
    "inner": Primitive(shape_from_shapes=True),
    "outer": Primitive(fresh=True, shape_from_shapes=True),
    "tensordot": Primitive(shape_from_shapes=True),
    "einsum": Primitive(numpy_value=True, shape_from_shapes=True),
    "trace": Primitive(shape_from_shapes=True),
    "diagonal": Primitive(view=True, shape_from_shapes=True),
    "inv": Primitive(),
    "det": Primitive(shape_from_shapes=True),
    "slogdet_sign": Primitive(shape_from_shapes=True),
    "slogdet_logabsdet": Primitive(shape_from_shapes=True),
    "solve": Primitive(shape_from_shapes=True),
    "cholesky": Primitive(),
    "eigh_values": Primitive(shape_from_shapes=True),
    "eigh_vectors": Primitive(shape_from_shapes=True),
    "eigvalsh": Primitive(shape_from_shapes=True),
    "eig_values": Primitive(shape_from_shapes=True),
    "eig_vectors": Primitive(shape_from_shapes=True),
    "eigvals": Primitive(shape_from_shapes=True),
    "svd_u": Primitive(shape_from_shapes=True),
    "svd_s": Primitive(shape_from_shapes=True),
    "svd_vh": Primitive(shape_from_shapes=True),
    "svdvals": Primitive(shape_from_shapes=True),
    "pinv": Primitive(shape_from_shapes=True),
    "mT": Primitive(shape_from_shapes=True),
    "dot_dx": Primitive(shape_operands=(1,), batched="rows_dot_dx"),
    "dot_dy": Primitive(shape_operands=(2,), batched="rows_dot_dy"),
    "dot_xtx_dx": Primitive(),
    "dot_xxt_dx": Primitive(),
    "tensordot_dx": Primitive(),
    "tensordot_dy": Primitive(),
    "inner_dx": Primitive(),
    "inner_dy": Primitive(),
    "einsum_dx": Primitive(shape_from_shapes=True),
    "diagonal_dx": Primitive(),
    "trace_dx": Primitive(),
    "logdet_dx": Primitive(),
    "solve_adjoint": Primitive(shape_from_shapes=True),
    "solve_da": Primitive(),
    "cholesky_dx": Primitive(),
    "eigh_values_dx": Primitive(),
    "eigh_vectors_dx": Primitive(),
    "eig_values_dx": Primitive(),
    "eig_vectors_dx": Primitive(),
    "svd_u_dx": Primitive(),
    "svd_s_dx": Primitive(),
    "svd_vh_dx": Primitive(),
    "svdvals_dx": Primitive(),
    "pinv_dx": Primitive(),
    # -------------------- numerical analysis (rules/numerics.py)
    "gradient": Primitive(fresh=True),
    "gradient_df": Primitive(numpy_value=True, fresh=True, shape_operands=(1,)),
    "gradient_dh": Primitive(),
    "cross": Primitive(fresh=True, shape_from_shapes=True),
    "cross_da": Primitive(numpy_value=True, fresh=True, shape_operands=(1,)),
    "cross_db": Primitive(numpy_value=True, fresh=True, shape_operands=(2,)),
    "convolve": Primitive(numpy_value=True, fresh=True, shape_from_shapes=True),
    "convolve_dx": Primitive(numpy_value=True, fresh=True, shape_operands=(1,)),
    "correlate": Primitive(numpy_value=True, fresh=True, shape_from_shapes=True),
    "correlate_dx": Primitive(numpy_value=True, fresh=True, shape_operands=(1,)),
    "correlate_dy": Primitive(numpy_value=True, fresh=True, shape_operands=(2,)),
    "interp": Primitive(),
    "interp_dfp": Primitive(numpy_value=True, fresh=True, shape_operands=(3,)),
    "interp_fixed": Primitive(),
    "interp_slope": Primitive(),
    "interp_slope_dfp": Primitive(numpy_value=True, fresh=True, shape_operands=(3,)),
    "kron": Primitive(numpy_value=True, fresh=True, shape_from_shapes=True),
    "kron_da": Primitive(numpy_value=True, fresh=True, shape_operands=(1,)),
    "kron_db": Primitive(numpy_value=True, fresh=True, shape_operands=(2,)),
    # -------------------- polynomials (rules/polynomial.py)
    "vander": Primitive(numpy_value=True, fresh=True, shape_from_shapes=True),
    "polyval": Primitive(shape_from_shapes=True),
    "polynomial_polyval": Primitive(shape_from_shapes=True),
    "chebval": Primitive(shape_from_shapes=True),
    "legval": Primitive(shape_from_shapes=True),
    "hermval": Primitive(shape_from_shapes=True),
    "hermeval": Primitive(shape_from_shapes=True),
    "lagval": Primitive(shape_from_shapes=True),
    "polynomial_polyval2d": Primitive(shape_from_shapes=True),
    "polynomial_polyval3d": Primitive(shape_from_shapes=True),
    "vander_dx": Primitive(),
    "polyval_dp": Primitive(),
    "polyval_dx": Primitive(),
    "series_dx": Primitive(),
    "series_dc": Primitive(),
    "series2d_dx": Primitive(),
    "series2d_dc": Primitive(),
    "series3d_dx": Primitive(),
    "series3d_dc": Primitive(),
    # -------------------- static code passed through (rules/python.py)
    "static": Primitive(value_shaped=True),
    "effect": Primitive(),
    "list_make": Primitive(value_shaped=True, distinct=True),
    "list_append": Primitive(value_shaped=True),
    "list_stack": Primitive(numpy_value=True, fresh=True, value_shaped=True),
    "to_float": Primitive(python_value=True, python_arithmetic=True),
    "astype": Primitive(numpy_value=True, fresh=True, shape_from_shapes=True, makes_inexact=True),
    # -------------------- random numbers (rules/random.py)
    # without a size, one draw is a Python float (np.random.normal(0.0, 1.0))
    "standard_normal": Primitive(python_arithmetic=True, sized_by="size"),
    "normal": Primitive(python_arithmetic=True, sized_by="size"),
    "uniform": Primitive(python_arithmetic=True, sized_by="size"),
    "random": Primitive(python_arithmetic=True, sized_by="size"),
    # -------------------- reductions (rules/reductions.py)
    "sum": Primitive(method="sum", promotes_inexact=True, gradient_terms=(0,), batched="rows_sum"),
    "mean": Primitive(method="mean", promotes_inexact=True, batched="rows_mean"),
    "max": Primitive(method="max", promotes_inexact=True),
    "min": Primitive(method="min", promotes_inexact=True),
    "prod": Primitive(method="prod"),
    "var": Primitive(),
    "std": Primitive(),
    "cumsum": Primitive(fresh=True, shape_from_shapes=True),
    "logsumexp": Primitive(),
    "softmax": Primitive(),
    "log_softmax": Primitive(),
    "norm": Primitive(),
    "prod_dx": Primitive(),
    "prod_dx_dx": Primitive(),
    "or_one": Primitive(python_value=True, fold=lambda n: n or 1),
    "std_dx": Primitive(),
    "cumsum_dx": Primitive(),
    "norm_dx": Primitive(),
    "norm_dx_dg": Primitive(),
    "norm_dx_dx": Primitive(),
    "norm_dx_dn": Primitive(),
    "cumprod": Primitive(fresh=True, shape_from_shapes=True),
    "sort": Primitive(fresh=True, shape_from_shapes=True),
    "partition": Primitive(fresh=True, shape_from_shapes=True),
    "trapezoid": Primitive(shape_from_shapes=True),
    "cumprod_dx": Primitive(),
    "cumprod_dx_adj": Primitive(),
    "cumprod_jvp": Primitive(),
    "sort_dx": Primitive(),
    "sort_dx_dg": Primitive(),
    "partition_dx": Primitive(),
    "trapezoid_dy": Primitive(),
    "trapezoid_dxs": Primitive(),
    # statistics of sorted elements and NaN-skipping reductions (issue 37): the default facts
    "median": Primitive(),
    "quantile": Primitive(),
    "percentile": Primitive(),
    "quantile_da": Primitive(),
    "quantile_dq": Primitive(),
    "ptp": Primitive(),
    "nansum": Primitive(),
    "nanmean": Primitive(),
    "nanmax": Primitive(),
    "nanmin": Primitive(),
    # -------------------- indexing, reshaping and shape queries (rules/shape.py)
    "getindex": Primitive(view=True, stand_in_view=True, index_from=1, shape_from_shapes=True),
    "asarray": Primitive(),
    "reshape": Primitive(view=True, packed_method=True, stand_in_view=True, batched="rows_reshape"),
    "shape": Primitive(
        python_value=True, attribute="shape", shape_operands=(0,), size_query=True, shape_from_shapes=True
    ),
    "size": Primitive(python_value=True, attribute="size", shape_operands=(0,), size_query=True),
    "len": Primitive(python_value=True, shape_operands=(0,)),
    "ndim": Primitive(python_value=True, attribute="ndim", shape_operands=(0,), size_query=True),
    "arange": Primitive(fresh=True),
    "zeros": Primitive(fresh=True),
    "ones": Primitive(fresh=True),
    "eye": Primitive(fresh=True),
    "ravel": Primitive(view=True, shape_from_shapes=True),
    "flatten": Primitive(fresh=True, shape_from_shapes=True),
    "swapaxes": Primitive(view=True, shape_from_shapes=True),
    "moveaxis": Primitive(view=True, shape_from_shapes=True),
    "expand_dims": Primitive(view=True, shape_from_shapes=True),
    "squeeze": Primitive(view=True, shape_from_shapes=True),
    "atleast_1d": Primitive(view=True, shape_from_shapes=True),
    "atleast_2d": Primitive(view=True, shape_from_shapes=True),
    "flip": Primitive(view=True),
    "fliplr": Primitive(view=True),
    "flipud": Primitive(view=True),
    "tile": Primitive(fresh=True, shape_from_shapes=True),
    "tile_dx": Primitive(),
    "repeat": Primitive(fresh=True, shape_from_shapes=True),
    "repeat_dx": Primitive(),
    "concatenate": Primitive(fresh=True, shape_from_shapes=True),
    "concat_part": Primitive(shape_from_shapes=True, batched="rows_concat_part"),
    "join_place": Primitive(shape_from_shapes=True, batched="rows_join_place"),
    "join_part": Primitive(shape_from_shapes=True),
    "stack": Primitive(fresh=True, shape_from_shapes=True),
    "hstack": Primitive(fresh=True, shape_from_shapes=True),
    "hstack_part": Primitive(shape_from_shapes=True),
    "vstack": Primitive(fresh=True, shape_from_shapes=True),
    "vstack_part": Primitive(shape_from_shapes=True),
    "take": Primitive(shape_from_shapes=True, batched="rows_take"),
    "untake": Primitive(batched="rows_untake"),
    "argmax": Primitive(),
    "argmin": Primitive(),
    "argsort": Primitive(shape_from_shapes=True),
    "flatnonzero": Primitive(value_shaped=True),
    "argwhere": Primitive(value_shaped=True),
    "setindex": Primitive(numpy_value=True, fresh=True, index_from=2),
    "copy": Primitive(fresh=True),
    "diff": Primitive(fresh=True, shape_from_shapes=True),
    "diff_dx": Primitive(shape_operands=(1,)),
    "diff_end": Primitive(view=True, shape_from_shapes=True, shape_operands=(1,)),
    "roll": Primitive(fresh=True, shape_from_shapes=True, batched="rows_roll"),
    "roll_dx": Primitive(fresh=True, shape_from_shapes=True, batched="rows_roll_dx"),
    "rollaxis": Primitive(view=True, shape_from_shapes=True),
    "rollaxis_dx": Primitive(view=True, shape_from_shapes=True),
    "pad": Primitive(fresh=True, shape_from_shapes=True),
    "pad_dx": Primitive(fresh=True, shape_operands=(1,)),
    "tril": Primitive(fresh=True, shape_from_shapes=True),
    "triu": Primitive(fresh=True, shape_from_shapes=True),
    "split_at": Primitive(python_value=True, shape_operands=(0,)),
    "split_part": Primitive(view=True, shape_from_shapes=True),
    "split_part_dx": Primitive(fresh=True, shape_operands=(1,)),
    "column_stack": Primitive(fresh=True, shape_from_shapes=True),
    "column_stack_part": Primitive(shape_from_shapes=True),
    "index_join": Primitive(fresh=True, shape_from_shapes=True),
    "index_join_part": Primitive(shape_from_shapes=True),
    "atleast_3d": Primitive(view=True, shape_from_shapes=True),
    "take_along_axis": Primitive(shape_from_shapes=True),
    "take_along_axis_dx": Primitive(fresh=True, shape_operands=(1,)),
    # -------------------- special functions (rules/special.py)
    "expit": Primitive(),
    "logit": Primitive(),
    "erf": Primitive(),
    "erfc": Primitive(),
    "gammaln": Primitive(),
    "digamma": Primitive(),
    "gamma": Primitive(),
    "rgamma": Primitive(),
    "gammasgn": Primitive(),
    "heaviside": Primitive(),
    "polygamma": Primitive(),
    "xlogy": Primitive(),
}


#: The primitives that write a batch of seeds through a sweep row by row (``ir.batching``; their
#: helpers are ``runtime/rows.py``'s): made by batching, after every derivative, so they have no rule.
ROW_PRIMITIVES: dict[str, Primitive] = {
    "rows_zeros": Primitive(own_line=True, numpy_value=True, fresh=True, buffer=True),
    "rows_fresh": Primitive(own_line=True, numpy_value=True, fresh=True, buffer=True),
    "rows_lift": Primitive(own_line=True, numpy_value=True, view=True),
    "rows_unbroadcast": Primitive(own_line=True, numpy_value=True),
    "rows_broadcast": Primitive(own_line=True, numpy_value=True, view=True),
    "rows_sum": Primitive(own_line=True, numpy_value=True, rows_params=("axis", "keepdims")),
    "rows_mean": Primitive(own_line=True, numpy_value=True, rows_params=("axis", "keepdims")),
    "rows_unreduce": Primitive(own_line=True, numpy_value=True, fresh=True, rows_params=("axis", "keepdims")),
    "rows_transpose": Primitive(own_line=True, numpy_value=True, view=True, rows_params=("axes",)),
    "rows_reshape": Primitive(own_line=True, numpy_value=True, view=True),
    "rows_take": Primitive(own_line=True, numpy_value=True, view=True, rows_params=("axis",)),
    "rows_untake": Primitive(own_line=True, numpy_value=True, fresh=True, rows_params=("axis",)),
    "rows_matmul": Primitive(own_line=True, numpy_value=True, rows_flags=("a_rows", "b_rows")),
    "rows_dot": Primitive(own_line=True, numpy_value=True, rows_flags=("a_rows", "b_rows")),
    "rows_matmul_dx": Primitive(own_line=True, numpy_value=True, rows_flags=("g_rows", "x_rows", "y_rows")),
    "rows_matmul_dy": Primitive(own_line=True, numpy_value=True, rows_flags=("g_rows", "x_rows", "y_rows")),
    "rows_dot_dx": Primitive(own_line=True, numpy_value=True, rows_flags=("g_rows", "x_rows", "y_rows")),
    "rows_dot_dy": Primitive(own_line=True, numpy_value=True, rows_flags=("g_rows", "x_rows", "y_rows")),
    "rows_concat_part": Primitive(own_line=True, numpy_value=True, view=True, rows_params=("part", "axis")),
    "rows_join_place": Primitive(own_line=True, numpy_value=True, fresh=True, rows_params=("part", "join", "axis")),
    "rows_roll": Primitive(own_line=True, numpy_value=True, fresh=True, rows_params=("shift", "axis")),
    "rows_roll_dx": Primitive(own_line=True, numpy_value=True, fresh=True, rows_params=("shift", "axis")),
    "rows_getindex": Primitive(own_line=True, numpy_value=True),
    "rows_index_add": Primitive(own_line=True, numpy_value=True, fresh=True),
    **{f"rows_{join}": Primitive(own_line=True, numpy_value=True, fresh=True) for join in ("stack", "concatenate")},
}


def _operators(kind: type[ast.AST]) -> dict[type[ast.AST], str]:
    return {p.operator: n for n, p in PRIMITIVES.items() if p.operator is not None and issubclass(p.operator, kind)}


#: The primitive each Python operator means, in formulas and in user code (``ast.Add`` -> ``add``).
BINOPS: dict[type[ast.AST], str] = _operators(ast.operator)
UNARYOPS: dict[type[ast.AST], str] = _operators(ast.unaryop)
CMPOPS: dict[type[ast.AST], str] = _operators(ast.cmpop)
