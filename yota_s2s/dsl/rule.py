"""The ``@diffrule`` DSL's data: a ``Rule`` per primitive, the ``RuleTable``, and binding a call to a rule.

Rule files (``rules/*.py`` and the user's ``--rules`` files) are Python syntax
that is parsed with ``ast`` and never imported.  One rule per primitive::

    @diffrule(names=["numpy.exp", "math.exp"], shape="elementwise")
    def exp(x):
        dx = dout * out          # out: the primal result, dout: its incoming gradient

- The signature is the primitive's: parameters without a default are operands
  (values, possibly differentiated), parameters with a default are static
  (compile-time constants such as ``axis``), bound like NumPy binds them.
- Each operand gets exactly one of ``d<name> = formula``, ``nondiff(name)``
  or ``not_implemented("why")`` (the statement form covers every operand not
  otherwise given).  Other assignments are temporaries.
- Formulas use operators (``+ - * / ** @``, unary ``-``), calls to primitives
  by their primitive name, operands, static parameters, ``out``, ``dout``,
  temporaries, constants, and the static helper ``invperm(axes)``.
- Optionally ``out_dot = formula``: the tangent of the result in forward mode, over the
  operands' tangents ``<operand>_dot`` (``xs_dot`` for ``*xs``), for the few rules whose
  reverse formulas cannot be transposed (``transform.forward`` derives the others).
- Header keywords: ``names`` (the source names that reach the primitive:
  ``numpy.exp``, ``math.exp``, ``ndarray.sum`` for a method, ``ndarray.T`` for
  an attribute), ``shape`` (``"elementwise"``, ``"scalar"``, ``"reduce"``, the
  name of the operand whose shape the result has, or ``"opaque"``) and ``pure``.

``load_rules()`` returns an explicit table; nothing is registered globally.
Every mistake is a ``UserError`` located in the rule file.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..ir.core import Slice
from ..ir.modes import Mode

RESERVED = ("out", "dout")
SHAPE_KINDS = ("elementwise", "scalar", "reduce", "opaque")


def _invperm(axes: object) -> object:
    if axes is None:
        return None
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)


def _upto(stop: int) -> tuple:
    """The index ``[:stop]`` (of an index template: ``getindex(dout, index=upto(-1))``)."""
    return (Slice(None, stop),)


def _twice_norm(ord: object, axis: object) -> object:
    """``ord``, where the norm's second derivatives are written: the 2-norm (ord None, 'fro', 2 of a
    vector) and the piecewise-linear norms (0, 1, -1, inf, -inf); any other is refused."""
    smooth = ord in (None, "fro") or (ord == 2 and not isinstance(axis, tuple))
    if smooth or ord in (0, 1, -1, float("inf"), float("-inf")):
        return ord
    raise NotImplementedError(
        f"second derivatives through norm of ord={ord!r} (written for ord None, 'fro', 2 of vectors, 0, 1, -1, inf, -inf)"
    )


#: Functions on static values that formulas may call (evaluated at generation time).
STATIC_HELPERS: dict[str, Callable[..., object]] = {"invperm": _invperm, "upto": _upto, "twice_norm": _twice_norm}


@dataclass
class Rule:
    """One primitive: its signature, source names, shape behaviour and derivative formulas."""

    name: str
    operands: tuple[str, ...]
    static: dict[str, object]
    names: tuple[str, ...] = ()
    shape: str = "opaque"
    pure: bool = True
    nondiff: frozenset[str] = frozenset()
    not_implemented: dict[str, str] = field(default_factory=dict)
    temps: dict[str, ast.expr] = field(default_factory=dict)
    grads: dict[str, ast.expr] = field(default_factory=dict)
    #: ``out_dot = formula``: the tangent of the result from the operands' tangents (forward mode),
    #: for a rule whose reverse formulas cannot be transposed (``transform.forward``).
    tangent: ast.expr | None = None
    path: str = ""
    line: int = 0
    source: str = ""
    variadic: str | None = None
    doc: str = ""

    @property
    def param_names(self) -> tuple[str, ...]:
        return self.operands + ((self.variadic,) if self.variadic else ()) + tuple(self.static)

    @property
    def all_operands(self) -> tuple[str, ...]:
        """The operand names, the variadic one last: each has a gradient, nondiff or not_implemented."""
        return self.operands + ((self.variadic,) if self.variadic else ())

    def operand_names(self, n_args: int) -> list[str]:
        """The operand name of each of ``n_args`` arguments (the variadic name repeats)."""
        return (
            list(self.operands) + [self.variadic] * (n_args - len(self.operands))
            if self.variadic
            else list(self.operands)
        )

    def signature(self) -> str:
        parts = list(self.operands) + ([f"*{self.variadic}"] if self.variadic else [])
        parts += [f"{k}={v!r}" for k, v in self.static.items()]
        return f"{self.name}({', '.join(parts)})"


@dataclass
class RuleTable:
    """All rules by primitive name, and the source-name table (``numpy.exp`` -> ``exp``)."""

    rules: dict[str, Rule]
    names: dict[str, str]
    sha256: str
    #: For one function (``transform.complexes.complex_table``): the ids of its values that may be
    #: complex, whose adjoints are the complex ones, and the mode whose derivative is a holomorphic
    #: function's (``--holomorphic``; ``--jacobian`` and ``--jvp`` of complex values), None if none.
    complex_values: frozenset[int] = frozenset()
    holomorphic: Mode | None = None

    def __getitem__(self, prim: str) -> Rule:
        return self.rules[prim]

    def __contains__(self, prim: str) -> bool:
        return prim in self.rules


class BindError(Exception):
    """Call arguments that do not fit a primitive's signature."""


def bind(rule: Rule, args: Sequence[object], kwargs: dict[str, object]) -> tuple[list, dict]:
    """Bind call arguments to ``rule``'s signature: (operands in order, static params).

    >>> r = Rule("sum", ("x",), {"axis": None, "keepdims": False})
    >>> bind(r, ["X", 0], {})
    (['X'], {'axis': 0, 'keepdims': False})
    """
    if rule.variadic:  # numpy's form: prim(fixed..., [a, b, c], static...)
        n = len(rule.operands)
        if len(args) <= n and rule.variadic not in kwargs:
            raise BindError(f"{rule.name}() needs a list or tuple of values; it takes {rule.signature()}")
    names = rule.param_names
    if len(args) > len(names):
        raise BindError(f"{rule.name}() takes at most {len(names)} arguments ({len(args)} given)")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise BindError(f"{rule.name}() has no parameter {key!r}; it takes {rule.signature()}")
        if key in bound:
            raise BindError(f"{rule.name}() got two values for {key!r}")
        bound[key] = value
    missing = [n for n in rule.operands if n not in bound]
    if missing:
        raise BindError(f"{rule.name}() is missing {', '.join(missing)}; it takes {rule.signature()}")
    params = {k: bound.get(k, default) for k, default in rule.static.items()}
    return [bound[n] for n in rule.operands + ((rule.variadic,) if rule.variadic else ())], params
