"""np.einsum's sublist form: its arguments in, the same call with a subscripts string first out.

A part of lowering (``calls.CallLowering.adapt``).  ``np.einsum(a, [0, 1], b, [1, 2], [0, 2])``
interleaves the operands with lists of axis labels (integers in ``[0, 52)``, and ``Ellipsis``
or ``...`` for the broadcast axes), the output's list last and optional.  It means
``np.einsum("AB,BC->AC", a, b)``: NumPy itself writes label ``k`` as the ``k``-th letter of
``A..Za..z``, so that without an output list the implicit output (the labels used once, in
alphabetical order) is NumPy's too.

    >>> from yota_s2s.ir.core import Lit, Var
    >>> a, b = Var(), Var()
    >>> args = subscripts_first([a, (Lit(0), Lit(1)), b, (Lit(1), Lit(2)), (Lit(0), Lit(2))], ValueError)
    >>> args[0].value, args[1:] == [a, b]
    ('AB,BC->AC', True)
    >>> subscripts_first([a, (Lit(Ellipsis), Lit(0)), b, (Lit(0),)], ValueError)[0].value
    '...A,A'
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.core import Lit
from .values import _Function

#: NumPy's letter for each label: 0..25 are A..Z, 26..51 a..z.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def subscripts_first(args: list, error: Callable[[str], Exception]) -> list:
    """``args`` of ``np.einsum`` in the subscripts form: ``[Lit(subscripts), *operands]``.

    Arguments already in that form (a string first), or whose second is no list of labels, come
    back unchanged (the subscripts form's own checks apply).  ``error(why)`` is raised for a list
    of labels that is not constant integers in ``[0, 52)`` and ``Ellipsis``.
    """
    if len(args) < 2 or (isinstance(args[0], Lit) and isinstance(args[0].value, str)) or _items(args[1]) is None:
        return args
    pairs, output = len(args) // 2, args[-1] if len(args) % 2 else None
    operands = [args[2 * k] for k in range(pairs)]
    terms = [_term(args[2 * k + 1], error) for k in range(pairs)]
    subscripts = ",".join(terms) + ("" if output is None else "->" + _term(output, error))
    return [Lit(subscripts), *operands]


def _items(value: object) -> list | None:
    """The items of a list written in the source (or a constant tuple), else None."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Lit) and isinstance(value.value, tuple | list):
        return [Lit(v) for v in value.value]
    return None


def _term(value: object, error: Callable[[str], Exception]) -> str:
    """The letters of one list of labels (``...`` for ``Ellipsis``)."""
    items = _items(value)
    if items is None:
        raise error("np.einsum()'s sublist form interleaves operands and constant lists of axis labels")
    out = []
    for item in items:
        if (isinstance(item, Lit) and item.value is Ellipsis) or (
            isinstance(item, _Function) and item.name == "builtins.Ellipsis"
        ):
            out.append("...")
        elif isinstance(item, Lit) and type(item.value) is int and 0 <= item.value < len(LETTERS):
            out.append(LETTERS[item.value])
        else:
            raise error(f"np.einsum()'s axis labels are constant integers in [0, {len(LETTERS)}) or Ellipsis")
    return "".join(out)
