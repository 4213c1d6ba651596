"""The kinds of value lowering works with, and the name tables that decide them.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts), with no behaviour of its own. Lowering evaluates each
expression of the source to one of these, never to a Python number or array: a tape value
(``Var`` or ``Lit`` from ``ir.core``), a tuple of values (a tuple or list written in the
source, of known length), or one of the kinds below, which stand for what the tape does
not hold: a parameter not used yet (``_Unresolved``: it becomes a tape input on first use
as an array, or an object whose attributes are inputs), a constant index into one
(``_Indexed``), a library module (``_Module``), one of the user's own modules (``_Own``),
a callable (``_Function``). Their names keep the leading underscore: they are the front
end's own, never part of the primal ``Tape``.

    >>> canonical_name("cupy.exp"), canonical_name("jax.numpy.linalg.norm")
    ('numpy.exp', 'numpy.linalg.norm')
    >>> _constant_value((Lit(1), (Lit(2.0), Lit(3.0))))
    (1, (2.0, 3.0))
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from ..ir.core import Lit, Var
from .fence import Module

#: Attributes that make a value an array rather than an object.
ARRAY_ATTRS = {"T", "shape", "size", "ndim", "dtype", "real", "imag", "flat"}
#: Module aliases that mean NumPy's API.
NUMPY_ALIASES = {"numpy": "numpy", "cupy": "numpy", "jax.numpy": "numpy"}
#: Module constants that are plain numbers (or None for newaxis).
MODULE_CONSTANTS = {
    "numpy.pi": math.pi,
    "numpy.e": math.e,
    "numpy.inf": math.inf,
    "numpy.newaxis": None,
    "math.pi": math.pi,
    "math.e": math.e,
    "math.inf": math.inf,
    "math.tau": math.tau,
}
#: Library submodules reached through an attribute (np.linalg.norm).
_SUBMODULES = {"numpy.linalg", "numpy.random", "numpy.fft"}


@dataclass(frozen=True)
class _Unresolved:
    """A parameter (or attribute of an object parameter) not yet used as array or object.

    ``path`` holds attribute names and, for an element of a list attribute, its constant
    index (``m.layers[0].W`` is ``("m", "layers", 0, "W")``); ``cls`` is the class the value
    is known to be an instance of (from an annotation), if any.
    """

    path: tuple[str | int, ...]
    cls: str | None = field(default=None, compare=False)
    elem: str | None = field(default=None, compare=False)  # the class of its elements (list[Layer])


@dataclass(frozen=True)
class _Indexed:
    """``m.layers[0]``: a constant index into a parameter that may be an array or a list of objects."""

    base: object  # _Unresolved or _Indexed
    index: int
    node: ast.AST = field(compare=False)
    cls: str | None = field(default=None, compare=False)

    @property
    def path(self) -> tuple[str | int, ...]:
        return (*self.base.path, self.index)


class _Fields(tuple):
    """The tuple a library function returns whose elements NumPy also names (``slogdet(a).logabsdet``,
    ``eigh(a).eigenvectors``, ``svd(a).Vh``): ``fields`` are the names, in order."""

    fields: tuple[str, ...] = ()

    def __new__(cls, items, fields: tuple[str, ...]):
        out = super().__new__(cls, items)
        out.fields = fields
        return out


#: The names of the elements of the tuples NumPy's functions return (its named tuples).
RESULT_FIELDS = {
    "numpy.linalg.slogdet": ("sign", "logabsdet"),
    "numpy.linalg.eigh": ("eigenvalues", "eigenvectors"),
    "numpy.linalg.eig": ("eigenvalues", "eigenvectors"),
    "numpy.linalg.svd": ("U", "S", "Vh"),
}


@dataclass(frozen=True)
class _Module:
    """A module alias such as ``np`` (qualified name ``numpy``)."""

    name: str


@dataclass(frozen=True)
class _Own:
    """One of the user's own modules (``import physics``, ``from . import physics``): parsed, never imported."""

    module: Module = field(compare=False)
    name: str = ""


@dataclass(frozen=True)
class _Function:
    """A callable: a same-file function, or a qualified library name like ``numpy.exp``."""

    name: str
    local: ast.FunctionDef | None = None
    receiver: object = None  # the bound value for a method call
    closure: dict | None = field(default=None, compare=False)  # a lambda's defining scope
    module: Module | None = field(default=None, compare=False)  # the file that defines it
    # functools.partial(f, *args, **kwargs): the arguments given first, before the call's own
    bound: tuple = field(default=(), compare=False)
    bound_keywords: tuple = field(default=(), compare=False)  # (name, value) pairs
    # a lambda's or a nested function's defaults, evaluated where it is defined: (name, value) pairs
    defaults: tuple = field(default=(), compare=False)


@dataclass(frozen=True)
class _Class:
    """A class of the file (``frontend/instances.py``): called, it makes an ``_Instance``."""

    name: str
    module: Module = field(compare=False)


@dataclass(eq=False)
class _Instance:
    """An object the function made by calling a class of the file: its attributes are values of
    the function, set while its ``__init__`` runs, never after (``frontend/instances.py``)."""

    cls: str
    module: Module = field(repr=False)
    attrs: dict[str, object] = field(default_factory=dict)


_NOT_CONSTANT = object()


def _constant_value(value: object) -> object:
    """The Python value of a lowered constant (a Lit, or nested tuples of Lits), else _NOT_CONSTANT."""
    if isinstance(value, Lit):
        return value.value
    if isinstance(value, tuple):
        items = [_constant_value(v) for v in value]
        return _NOT_CONSTANT if any(i is _NOT_CONSTANT for i in items) else tuple(items)
    if isinstance(value, list):  # a module constant written with lists
        return _constant_value(tuple(value))
    dynamic = Var | _Unresolved | _Indexed | _Function | _Module | _Own | _Class | _Instance
    return value if not isinstance(value, dynamic) else _NOT_CONSTANT


def canonical_name(name: str) -> str:
    """``cupy.exp`` and ``jax.numpy.exp`` are NumPy's API: ``numpy.exp``."""
    for alias, canonical in NUMPY_ALIASES.items():
        if name == alias or name.startswith(alias + "."):
            return canonical + name[len(alias) :]
    return name


def _params_with_defaults(fn: ast.FunctionDef) -> list[tuple[ast.arg, ast.expr | None]]:
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    return list(zip(positional, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))


def _no_rule_message(name: str, call: ast.AST | None = None) -> str:
    short = name.rsplit(".", 1)[-1]
    if name.startswith("ndarray."):
        what = f"the array method or attribute .{short}"
    else:
        what = f"{name}()"
    return (
        f"no derivative rule for {what} and its source is not in this file; "
        f"add a rule such as: @diffrule(names=[{name!r}]) {_rule_stub(short, name, call)} "
        "in a file given with --rules (see docs/custom-rules.md)"
    )


def _rule_stub(short: str, name: str, call: ast.AST | None) -> str:
    """``def smooth(x, y, a2, axis=1): dx = ...; dy = ...; nondiff(a2)``: the signature of the call,
    a formula for each operand written as a name, ``nondiff`` for the constants."""
    if not isinstance(call, ast.Call):
        return f"def {short}(x): dx = ..."
    operands: list[str] = ["x"] if name.startswith("ndarray.") else []
    constants: list[str] = []
    for k, arg in enumerate(call.args):
        taken = isinstance(arg, ast.Name) and arg.id.isidentifier() and arg.id not in operands + constants
        param = arg.id if taken else f"a{k}"
        (operands if isinstance(arg, ast.Name) or not isinstance(arg, ast.Constant) else constants).append(param)
    keywords = [
        f"{kw.arg}={ast.unparse(kw.value) if isinstance(kw.value, ast.Constant) else 'None'}"
        for kw in call.keywords
        if kw.arg
    ]
    signature = ", ".join(operands + constants + keywords) or "x"
    body = [f"d{p} = ..." for p in operands] or ["dx = ..."]
    if constants:
        body.append(f"nondiff({', '.join(constants)})")
    return f"def {short}({signature}): {'; '.join(body)}"
