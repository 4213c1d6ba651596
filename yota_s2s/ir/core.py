"""The SSA tape: the value every stage after ``lower`` takes and returns.

A ``Tape`` is a list of input variables, a list of equations ``%n = prim(args,
static params)`` in evaluation order, and a list of output atoms.  Every
variable is defined exactly once (by an input or by one equation) before it is
used.  Arguments are ``Var`` (an SSA value) or ``Lit`` (a Python constant
inlined into the tape).  Static parameters (``axis``, ``keepdims``, an index)
are compile-time constants stored in ``Eqn.params``.

Equations may own ``regions`` (sub-tapes, for loops and branches); the core
pipeline produces none yet, but ``verify`` and the printer already walk them.

    >>> t = Tape("f")
    >>> x = t.add_input("x")
    >>> y = t.add_eqn("exp", [x])
    >>> t.outputs = [y]
    >>> verify(t)
"""

from __future__ import annotations

import collections
import enum
import itertools
from dataclasses import dataclass, field, replace

from .modes import AUTO, GRAD, Form, Mode

_ids = itertools.count(1)


@dataclass(eq=False, slots=True)
class Var:
    """An SSA value.  Identity is object identity; ``hint`` is a name for printing.  (Slots: a
    10,000-term gradient makes 200,000 of them, each read many times.)"""

    hint: str | None = None
    hint_depth: int = 0
    grad_of: Var | None = None
    id: int = field(default_factory=_ids.__next__)

    def __repr__(self) -> str:
        return f"Var({self.id}{', ' + self.hint if self.hint else ''})"


@dataclass(frozen=True)
class Lit:
    """A constant argument (int, float, bool, None, str or a tuple of them).

    ``text``: for a float folded from constants whose shortest repr would not read as the
    source wrote it (``3 * 0.05`` is ``0.15000000000000002``), the expression it was folded
    from, which Python evaluates to the same float (``primitives.fold_lits``); the generated
    code writes it.  Not part of the constant's identity."""

    value: object
    text: str | None = field(default=None, compare=False, repr=False)

    def key(self) -> tuple:
        """A hashable key that tells 1 from 1.0 from True (and ``0.1 * 3`` from ``0.1 + 0.2``, the
        same float written two ways: each is written where the source has it)."""
        key = _lit_key(self.value)
        return key if self.text is None else (*key, self.text)


def _lit_key(value: object) -> tuple:
    if isinstance(value, tuple):
        return ("tuple", tuple(_lit_key(v) for v in value))
    return (type(value).__name__, value)


Atom = Var | Lit


@dataclass(frozen=True)
class Slice:
    """A hashable ``start:stop:step`` with constant bounds (``slice`` is unhashable on 3.11)."""

    start: int | None = None
    stop: int | None = None
    step: int | None = None

    def to_slice(self) -> slice:
        return slice(self.start, self.stop, self.step)


@dataclass(frozen=True)
class Key:
    """In an input's path, a key of a dict parameter: ``params["W1"]`` is ``("params", Key("W1"))``
    (a ``str`` is an attribute, an ``int`` an index into a list attribute)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Listed:
    """In an input's path, the list of a dict parameter's values (``"values"``) or keys (``"keys"``)
    in the dict's own order: ``("params", Listed("values"))`` is ``list(params.values())``, the
    dict read as an input tree whose keys only the call knows (``p.items()`` where the function
    reads no key of ``p`` by name).  Its gradient is the dict ``dict(zip(params, grads))``; the
    keys are static, never differentiated."""

    what: str

    def __str__(self) -> str:
        return f"{self.what}()"


@dataclass(frozen=True)
class Dyn:
    """In an index template, the ``k``-th computed index operand (an integer or an index array)."""

    k: int


@dataclass(frozen=True)
class Span:
    """Where an equation came from.

    ``line`` and ``text`` are the source statement's first line and its text on one line
    (for provenance comments); ``at_line``, ``col`` and ``at_text`` locate the expression
    itself, 1-based in characters (for diagnostics with a caret).
    """

    path: str
    line: int
    col: int
    text: str = ""
    func: str = ""
    at_line: int = 0
    at_text: str = ""


class Section(enum.StrEnum):
    """The sweep an equation belongs to: the function's own computation, or the reverse sweep."""

    FORWARD = "forward"
    BACKWARD = "backward"


#: The ``out`` of an equation with no results (never an argument, an output or a name).
NO_RESULT = Var(hint="no_result")


@dataclass(eq=False, slots=True)
class Eqn:
    """``outs = prim(args, **params)``; ``regions`` holds sub-tapes of structured control flow."""

    prim: str
    args: list[Atom]
    params: dict[str, object]
    outs: list[Var]
    span: Span | None = None
    regions: tuple[Tape, ...] = ()
    section: Section = Section.FORWARD

    @property
    def out(self) -> Var:
        """The first result; ``NO_RESULT`` for a loop or branch with none (it runs for its effects:
        an ``assert`` in a loop), which nothing reads."""
        return self.outs[0] if self.outs else NO_RESULT


@dataclass(frozen=True)
class Input:
    """A tape input: the variable and its path in the caller's arguments.

    ``path`` is ``("x",)`` for a parameter and ``("m", "W")`` for an attribute
    of an object parameter ``m``.
    """

    var: Var
    path: tuple[str, ...]


class ParamKind(enum.Enum):
    """How a parameter is passed: ``def f(a, /, b, *, c)``."""

    POSITIONAL_ONLY = "positional only"
    POSITIONAL = "positional"
    KEYWORD_ONLY = "keyword only"


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: The default of a parameter that has none.
NO_DEFAULT = _NoDefault()


def is_option(default: object) -> bool:
    """A parameter whose default is None, a string or a bool is an option (``w=None``,
    ``mode="l2"``, ``verbose=False``), not a value: no gradient unless ``--wrt`` names it."""
    return default is None or isinstance(default, str | bool)


@dataclass(frozen=True)
class Param:
    """A parameter of the differentiated function: its name, how it is passed, and its default
    value (a constant; ``NO_DEFAULT`` when it has none).  The generated function repeats them."""

    name: str
    kind: ParamKind = ParamKind.POSITIONAL
    default: object = NO_DEFAULT


@dataclass
class Facts:
    """What the stages learned about a tape, beyond its equations; each field has one writer.

    - ``lower`` (a function's tape): ``object_params``, the parameters whose attributes are read
      (``m.W``); ``array_inputs``, the ids of the inputs used as arrays in the source (``x.T``,
      ``x.sum()``); ``warnings``, diagnostics that do not stop the run (YS051);
      ``may_return_none``, whether a path through the function may return None (a bare
      ``return``, falling off its end: the generated code checks it); ``maybe_unbound``, the names
      a path may leave unassigned where a branch or loop joins (None there: the generated code
      checks that the value is not None); ``read_files``, the other
      source files read (helpers imported from the project), path -> SHA-256 of the file's bytes.
    - ``differentiate``: ``wrt``, the parameters the gradients are with respect to;
      ``check_scalar``, whether shapes could not prove the value a scalar (the generated code
      checks it).  ``region`` marks the tape of a loop body or a branch, and ``same_shape`` maps a
      value to another known to have its shape (an adjoint, its value); ``index_vars`` holds the
      values that are a saved copy of a loop's index (an integer); ``in_place``, the carried inputs of
      a loop body that it may write in place (``transform.writes``).  ``mode`` is what the function
      computes (its record, ``ir.modes``): ``GRAD`` (``grad_NAME``), ``VJP`` (``vjp_NAME``, seeded with
      the input named ``seed``) or ``JACOBIAN`` (``jac_NAME``: ``rows`` > 0, that many rows written out, each its
      own reverse sweep; 0, a loop over the value's elements that seeds ``seed`` with each unit
      vector in turn; ``batch``, the rows written out are elementwise in the rows ``x[k]`` of
      the parameters, so that a batch of points, ``x`` of shape ``(n, B)``, gets a Jacobian per
      point); ``JVP`` (``jvp_NAME``, with a tangent parameter per ``wrt`` parameter,
      named in ``tangents``); ``HVP`` and ``HESSIAN`` (``transform.second``: ``hess_NAME``
      seeds ``seed``, or with several ``wrt`` parameters each of ``seeds``, one per parameter, with
      each unit vector in turn).  ``columns`` (``jac_NAME`` by a loop over rows): the inputs, one per
      ``wrt`` parameter, that seed its forward columns too (the tape's last output, the JVP), the
      function choosing columns or rows when it runs.  ``form`` (``--form``, ``ir.modes.Form``): the
      algorithms the written function may hold, ``AUTO`` each run-time choice as a branch.
    - ``optimize``: ``bool_inputs``, the ids of a region's inputs that may hold a NumPy bool (an
      outer comparison's result): ``b ** 2`` of one is not written ``b * b``.
    - ``drop_value`` (``--no-value``): ``value`` is False: the first output is not returned.
    - ``complex_params``: the parameters declared complex (``z: complex``): the generated function
      does not check that they are real (``transform.complexes``); ``holomorphic``, the derivative
      is the complex one of a holomorphic function (``--holomorphic``, ``--jacobian`` of complex
      values): the generated function makes its differentiated arguments complex.
    - ``transform.band.with_band`` (``hess_NAME``; ``--sparse``'s ``hvp``, ``vjp`` and ``jvp`` tapes):
      ``band``, the band form of the tape's sweep (a ``BandForm``), None where it has none.
    - ``transform.batched.with_batched`` (``hess_NAME``, ``jac_NAME`` by a loop over seeds):
      ``batched``, each sweep over seeds batched and composed with the tape (an
      ``ir.batching.BatchedSweep``), by the ids of its seeds; a sweep without one is a loop.
    - ``transform.compressed.with_compressed`` (``--sparse``'s ``jvp``, ``vjp`` and ``hvp`` tapes):
      ``compressed``, the sweep over colors composed (an ``ir.batching.CompressedSweep``), None where
      a primitive of it has no batching rule (``jac_NAME`` then runs one sweep per color).
    """

    object_params: list[str] = field(default_factory=list)
    array_inputs: frozenset[int] = frozenset()
    warnings: list = field(default_factory=list)
    may_return_none: bool = False
    maybe_unbound: list[str] = field(default_factory=list)
    read_files: dict[str, str] = field(default_factory=dict)
    wrt: list[str] = field(default_factory=list)
    check_scalar: bool = False
    mode: Mode = GRAD
    seed: str | None = None
    seeds: list[str] = field(default_factory=list)
    rows: int = 0
    batch: bool = False
    tangents: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    form: Form = AUTO
    value: bool = True
    region: bool = False
    same_shape: dict[int, Atom] = field(default_factory=dict)
    index_vars: frozenset[int] = frozenset()
    in_place: frozenset[int] = frozenset()
    bool_inputs: frozenset[int] = frozenset()
    complex_params: frozenset[str] = frozenset()
    holomorphic: bool = False
    band: object = None
    batched: dict = field(default_factory=dict)
    compressed: object = None

    def copy(self) -> Facts:
        """A copy whose ``same_shape`` can be extended without changing this one's."""
        return replace(self, same_shape=dict(self.same_shape))


@dataclass(eq=False)
class Tape:
    """A function as SSA equations: its parameters (``params``, the differentiated function's), its
    inputs (a parameter's array, or an attribute of an object parameter), the equations, and the
    outputs; ``out_tree`` says how the outputs nest (see ``differentiate``)."""

    name: str
    inputs: list[Input] = field(default_factory=list)
    eqns: list[Eqn] = field(default_factory=list)
    outputs: list[Atom] = field(default_factory=list)
    out_tree: object = None
    params: list[Param] = field(default_factory=list)
    facts: Facts = field(default_factory=Facts)

    def add_input(self, name: str, path: tuple[str, ...] | None = None) -> Var:
        var = Var(hint=name if path is None else "_".join(path))
        self.inputs.append(Input(var, path or (name,)))
        return var

    def add_eqn(
        self,
        prim: str,
        args: list[Atom],
        params: dict[str, object] | None = None,
        span: Span | None = None,
        hint: str | None = None,
        section: Section = Section.FORWARD,
    ) -> Var:
        out = Var(hint=hint)
        self.eqns.append(Eqn(prim, list(args), dict(params or {}), [out], span, (), section))
        return out

    def gradient_places(self) -> list[tuple[Input, int]]:
        """Each input of a gradient tape with the place of its gradient among the outputs, read from
        ``out_tree`` (whose first place, the value's, ``--no-value`` drops); none for a ``jvp``
        tape, whose one gradient output is a product with every tangent."""
        wrt = self.facts.wrt
        if self.facts.mode.forward or not isinstance(self.out_tree, list):
            return []
        skip = 1 if self.facts.value else 0
        found = []
        for inp in self.inputs:
            if inp.path[0] not in wrt:
                continue
            node = self.out_tree[skip + wrt.index(inp.path[0])]
            for part in inp.path[1:]:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, int):
                found.append((inp, node))
        return found

    def copy_header(self) -> Tape:
        """A tape with the same name, inputs and signature, and no equations."""
        return Tape(self.name, list(self.inputs), [], [], self.out_tree, list(self.params), self.facts.copy())


class IRError(Exception):
    """A broken invariant of the tape: always a bug in the tool, never a user error."""


def verify(tape: Tape, outer: frozenset[int] = frozenset()) -> None:
    """Check the SSA invariants; raise ``IRError`` naming the first broken one.

    - every variable is defined once, by an input or an equation;
    - every argument is a ``Var`` defined earlier (or in an enclosing tape) or a ``Lit``;
    - params are hashable;
    - outputs are defined atoms.
    """
    defined: set[int] = set(outer)
    for inp in tape.inputs:
        if not isinstance(inp.var, Var):
            raise IRError(f"input {inp.path} is not a Var")
        if inp.var.id in defined:
            raise IRError(f"input {inp.path} defined twice")
        defined.add(inp.var.id)
    for n, eqn in enumerate(tape.eqns):
        for a in eqn.args:
            if type(a) is not Var or a.id not in defined:  # the common case tested inline: it runs per argument
                _check_atom(a, defined, f"equation {n} ({eqn.prim})")
        if eqn.params:
            try:
                hash(tuple(eqn.params.values()))  # (the keys are names)
            except TypeError as exc:
                raise IRError(f"equation {n} ({eqn.prim}) has unhashable params: {exc}") from None
        for region in eqn.regions:
            verify(region, frozenset(defined))
        for o in eqn.outs:
            if not isinstance(o, Var):
                raise IRError(f"equation {n} ({eqn.prim}) output is not a Var")
            if o.id in defined:
                raise IRError(f"equation {n} ({eqn.prim}) redefines %{o.id}")
            defined.add(o.id)
    for a in tape.outputs:
        _check_atom(a, defined, "outputs")


def _check_atom(a: object, defined: set[int], where: str) -> None:
    if isinstance(a, Lit):
        return
    if not isinstance(a, Var):
        raise IRError(f"{where}: argument {a!r} is neither Var nor Lit")
    if a.id not in defined:
        raise IRError(f"{where}: %{a.id} used before it is defined")


def uses(tape: Tape) -> dict[int, int]:
    """How many times each variable id is used (arguments and outputs)."""
    count = collections.Counter(a.id for eqn in tape.eqns for a in eqn.args if type(a) is Var)
    count.update(a.id for a in tape.outputs if type(a) is Var)
    return dict(count)
