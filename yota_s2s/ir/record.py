"""The record of a primitive: every fact a stage needs about it besides its rule (``ir.primitives``
holds one per primitive, by family).

    >>> Primitive().fresh, Primitive(fresh=True).fresh
    (False, True)
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass


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
    #: A write of elements of its first operand, an array (``a[i] = v``, ``a[i] += g``): in place
    #: where the plan finds nothing else reads that array, else into a copy.
    writes_into: bool = False
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
    #: A row-by-row primitive of any number of operands, any of them batched (a join): their flags
    #: are one static parameter, ``rows``.
    rows_tuple: bool = False
