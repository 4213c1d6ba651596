"""One record per primitive: every fact a stage needs about a primitive besides its rule.

A rule (``rules/*.py``) says what a primitive computes and how to differentiate it; the record
(``ir.record.Primitive``) says how the other stages treat it: how it is written in Python (an operator, a method,
an attribute, the ufunc that can write it into an array), what its results are (a Python
number for Python numbers, always a NumPy value, maybe a view, a new array, a boolean, an
inexact dtype), and which of its operands it reads only for their shape.  The records are kept
by family, one module each (``records_elementwise``, ``records_reductions``, ``records_indexing``,
``records_linalg``, ``records_special``), and joined here.  Adding a primitive means a rule and
a record in its family's table, nothing else; ``tests/test_architecture.py`` checks that the
records and the shipped rules name the same primitives.  A primitive from a user's ``--rules``
file has no record: ``primitive(name)`` gives it the default one (nothing assumed).

    >>> primitive("add").commutative, primitive("add").ufunc, primitive("exp").same_inexact
    (True, 'add', True)

Folding a primitive on constants (its ``fold``) is ``ir.folding``'s.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Protocol

from . import records_elementwise, records_indexing, records_linalg, records_reductions, records_special
from .record import Primitive

__all__ = ["BINOPS", "CMPOPS", "PRIMITIVES", "ROW_PRIMITIVES", "UNARYOPS", "Primitive", "primitive"]

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


#: Every primitive's record, by name: the families' tables (``ir.records_*``) joined.
PRIMITIVES: dict[str, Primitive] = {
    **records_elementwise.RECORDS,
    **records_reductions.RECORDS,
    **records_indexing.RECORDS,
    **records_linalg.RECORDS,
    **records_special.RECORDS,
}


#: The primitives that write a batch of seeds through a sweep row by row (``ir.batching``; their
#: helpers are ``runtime/rows.py``'s): made by batching, after every derivative, so they have no rule.
ROW_PRIMITIVES: dict[str, Primitive] = {
    # (a new buffer each, written in place: never one of two, distinct, when the composed sweep is optimized)
    "rows_zeros": Primitive(own_line=True, numpy_value=True, fresh=True, buffer=True, distinct=True),
    "rows_fresh": Primitive(own_line=True, numpy_value=True, fresh=True, buffer=True, distinct=True),
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
    **{
        f"rows_{join}": Primitive(own_line=True, numpy_value=True, fresh=True, rows_params=("axis",), rows_tuple=True)
        for join in ("stack", "concatenate")
    },
}


def _operators(kind: type[ast.AST]) -> dict[type[ast.AST], str]:
    return {p.operator: n for n, p in PRIMITIVES.items() if p.operator is not None and issubclass(p.operator, kind)}


#: The primitive each Python operator means, in formulas and in user code (``ast.Add`` -> ``add``).
BINOPS: dict[type[ast.AST], str] = _operators(ast.operator)
UNARYOPS: dict[type[ast.AST], str] = _operators(ast.unaryop)
CMPOPS: dict[type[ast.AST], str] = _operators(ast.cmpop)
