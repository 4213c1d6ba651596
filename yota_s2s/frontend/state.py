"""The shared state of lowering one function, and the methods that need nothing else.

Lowering takes a fenced ``Module`` and a function name and gives the primal ``Tape``.
``lower.Lowerer`` is a ``LoweringState``: the entry point, inlining, statements and
assignments, and the dispatch of expressions (``expr``, ``as_array``, ``binop``) are its own.
It holds its parts, each made with the lowerer (``self.lo``) and calling the others through
it (``self.lo.calls.call_primitive(...)``), each keeping the state it alone uses:

- ``lo.exprs`` (``expressions.ExpressionLowering``): operators, subscripts and index templates;
- ``lo.names`` (``names.NameResolution``): names and attributes (library names, the user's own
  modules, classes and methods of object parameters);
- ``lo.calls`` (``calls.CallLowering``): calls (a helper is inlined, a library call becomes a
  primitive), tuples, lambdas;
- ``lo.control`` (``control.ControlLowering``): blocks, loops and branches (equations that own regions);
- ``lo.static`` (``passthrough.StaticLowering``): static code with no rule (``n % 2``, ``assert``),
  kept as written;
- ``lo.lists`` (``lists.ListLowering``): Python lists a loop appends to, comprehensions;
- ``lo.dicts`` (``dicts.DictLowering``): dicts of values carried through loops and branches;
- ``lo.aliases`` (``aliasing.Aliasing``): whether an update in place may be seen by another name.

``LoweringState.__init__`` defines every attribute more than one of them reads or writes.
The few methods that need nothing but that state are defined here: ``error`` (a located
diagnostic), ``span_at`` (the provenance of an equation) and ``add`` (append an equation
to the tape being built, folding arithmetic on constants):

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> state = LoweringState(fence("def f(x):\\n    return x\\n", "f.py"), load_rules())
    >>> state.add("mul", [Lit(2.0), Lit(3.0)], {}, None)
    Lit(value=6.0)
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable, Iterator

from ..dsl.rule import RuleTable
from ..errors import UserError, located, position
from ..ir.core import Atom, Eqn, Lit, Span, Tape, Var
from ..ir.folding import fold_lits
from ..ir.primitives import primitive
from .fence import Module


class LoweringState:
    """What lowering one function reads and writes, shared by all its parts (see the module docstring)."""

    def __init__(self, module: Module, table: RuleTable):
        # ---- where names are resolved
        #: The fenced module whose names are resolved now: the file of the function being
        #: inlined (a helper from one of the user's own modules resolves names in its own file).
        self.module: Module = module
        #: The rule table: which source names are primitives (``names``) and their rules.
        self.table: RuleTable = table
        #: Module-level names bound by an expression, lowered at the top of the tape (``names``):
        #: (id of the module, name) -> its value; and those being lowered now.
        self.module_values: dict[tuple[int, str], object] = {}
        self.module_lowering: set[tuple[int, str]] = set()
        #: The other source files read (a helper imported from the project): path -> SHA-256 of its bytes.
        self.read_files: dict[str, str] = {}
        #: id(function) -> the module it comes from (names in its body and defaults resolve there).
        self.fn_modules: dict[int, Module] = {}
        #: id(method) -> the name of its class.
        self.fn_classes: dict[int, str] = {}

        # ---- what is being built
        #: The tape equations are added to now: the function's, or the region of a loop or branch.
        self.tape: Tape | None = None
        #: The function's own tape: tape inputs are added to it, from any region.
        self.root: Tape | None = None
        #: Parameter paths used as arrays (``("x",)``, ``("m", "W")``) -> their tape input.
        self.array_inputs: dict[tuple[str | int, ...], Var] = {}
        #: Parameter paths used as objects (their attributes are read).
        self.object_paths: set[tuple[str | int, ...]] = set()
        #: Var.id of values used as the receiver of an array method or attribute (``x.sum()``).
        self.array_receivers: set[int] = set()
        #: Var.id -> the primitive that defined it (``view`` primitives make ``+=`` unsafe).
        self.prims: dict[int, str] = {}
        #: Var.id of a branch's or loop's result -> its ``if``, ``for`` or ``while`` equation
        #: (``lower.Lowerer.sharing``: a branch or an iteration may give an array another name
        #: sees, or a view).
        self.merges: dict[int, Eqn] = {}
        #: Var.id of a view (``v.T``, ``np.expand_dims(v, 0)``) -> the array it is a view of.
        self.view_bases: dict[int, Atom] = {}
        #: Var.id of a loop body's carried input -> (the value the name held before the loop, the
        #: loop's line): the first iteration's ``z += c`` updates that value in place (``sharing``).
        self.carried_from: dict[int, tuple[object, int]] = {}
        #: The arrays the ``for`` loops being lowered iterate over, with their lines (a row is read
        #: from the array as it was before the loop: an update of it in place is refused).
        self.iterated: list[tuple[object, int]] = []
        #: Var.id of static values that are numbers or tuples of numbers (``divmod(n, b)``): an
        #: item unpacked from one is no view, and ``q += 1`` of it is no update in place.
        self.number_values: set[int] = set()
        #: Names a path may leave unbound where a branch or loop joins (they are None there, where
        #: Python would raise UnboundLocalError at their read: the generated code checks the value).
        self.maybe_unbound: set[str] = set()
        #: Warnings for the tape's facts (YS051: the function writes into its argument).
        self.warnings: list[UserError] = []
        #: Parameters already warned about (one YS051 per name).
        self.written_params: set[str] = set()
        #: Names the differentiated function assigns (``u = u.copy()``: ``u[i] = v`` is then local).
        self.rebound: set[str] = set()

        # ---- where lowering is
        #: The functions being inlined, outermost (the differentiated function) first.
        self.fn_nodes: list[ast.FunctionDef] = []
        #: Their names (provenance of equations, the chain of a recursion, the depth of name hints).
        self.stack: list[str] = []
        #: id() of the functions being inlined (a recursion is found by identity: a method may
        #: share its name with a function).
        self.active: list[int] = []
        #: The name scopes being lowered, innermost last (another name for the same array?): a
        #: function's names, and the copies an ``if`` or a loop body makes of them (``in_scope``).
        self.envs: list[dict[str, object]] = []
        #: For each scope in ``envs``, the depth of the function it belongs to (``len(stack)``).
        self.env_depths: list[int] = []
        #: The line and text of the statement being lowered (the provenance of its equations).
        self.stmt_line: int = 0
        self.stmt_text: str = ""
        #: How many loop bodies are being lowered (in one, ``return`` is a flag: ``exits.Exits``).
        self.loop_level: int = 0
        #: The names of the values a loop returns (``_value1``): set as the loop stops, so that no
        #: update in place follows while they hold a value (``other_names`` skips them).
        self.returned_values: set[str] = set()
        #: id(module) -> every name its source uses (``flag_name``).
        self.source_names: dict[int, set[str]] = {}

    # ------------------------------------------------------------------ defined here: state only
    def error(self, code: str, message: str, node: ast.AST) -> UserError:
        """A diagnostic at ``node`` of the file whose names are resolved now (raise it)."""
        return located(code, message, node, self.module.path, self.module.source)

    def span_at(self, node: ast.AST) -> Span:
        """The provenance of an equation made at ``node``: the statement being lowered, and ``node``."""
        at_line, col, at_text = position(node, self.module.source)
        return Span(
            self.module.path,
            self.stmt_line or at_line,
            col,
            self.stmt_text or at_text.strip(),
            self.stack[-1] if self.stack else "",
            at_line,
            at_text,
        )

    @contextlib.contextmanager
    def in_scope(self, env: dict[str, object]) -> Iterator[None]:
        """Lower with ``env`` as the innermost scope (of the function being lowered now)."""
        self.envs.append(env)
        self.env_depths.append(len(self.stack))
        try:
            yield
        finally:
            self.envs.pop()
            self.env_depths.pop()

    def other_names(
        self, value: object, name: str, env: dict[str, object], same: Callable[[object], bool] | None = None
    ) -> list[str]:
        """The other names that hold ``value``, the array ``name`` holds in ``env`` (the innermost
        scope): a write into it (``name[i] = v``, ``name += v``) would change what they see.
        ``same(v)`` says whether a name's value ``v`` is that array (default: ``v is value``).

        Each function being lowered is asked in its innermost scope only: a branch or a loop body
        sees the function's names through a copy of the enclosing scope, which holds their values
        before the block (``k`` before ``k += 1``), not other names.
        """
        innermost = dict(zip(self.env_depths, self.envs))
        innermost[len(self.stack)] = env
        same = same or (lambda v: v is value)
        return [
            n
            for e in innermost.values()
            for n, v in e.items()
            if same(v) and not (e is env and n == name) and n not in self.returned_values
        ]

    def add(self, prim: str, args: list[Atom], params: dict[str, object], node: ast.AST) -> Atom:
        """Append ``prim(args, params)`` (folding arithmetic on constants) and return its value."""
        if prim == "len" and len(args) == 1 and isinstance(args[0], Lit) and isinstance(args[0].value, tuple | str):
            return Lit(len(args[0].value))  # len(LAYERS) of a module constant: a loop bound known now
        if all(isinstance(a, Lit) for a in args) and (folded := fold_lits(prim, args)) is not None:
            return folded
        span = self.span_at(node)
        out = self.tape.add_eqn(prim, args, params, span)
        self.prims[out.id] = prim
        if primitive(prim).view and args:
            self.view_bases[out.id] = args[0]
        return out

    def discard(self, tape: Tape, mark: int) -> None:
        """Drop the equations ``tape`` got since it had ``mark`` (an attempt given up: an expression
        passed through instead, a loop unrolled instead), and forget the module-level values
        among them (``names.module_static`` makes them again where they are read)."""
        dropped = {o.id for e in tape.eqns[mark:] for o in e.outs}
        del tape.eqns[mark:]
        if dropped:
            stale = [k for k, v in self.module_values.items() if isinstance(v, Var) and v.id in dropped]
            for key in stale:
                del self.module_values[key]

    def flag_name(self, base: str) -> str:
        """The name of a flag lowering adds to a loop body (``_skip1``, ``_returned0``): ``base``,
        or ``base_1``, ``base_2``, ... where the source of the function's module uses ``base`` (a
        parameter, a local or a global called ``_skip1`` is never mistaken for the flag).  (Not
        ``base_``: a flag may be assigned and never read, and ruff takes only a name that ends in a
        letter or digit for a dummy.)"""
        used = self.source_names.get(id(self.module))
        if used is None:
            tree = ast.parse(self.module.source)
            used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            used |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
            used |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
            used |= {
                (a.asname or a.name).split(".")[0]
                for n in ast.walk(tree)
                if isinstance(n, ast.Import | ast.ImportFrom)
                for a in n.names
            }
            self.source_names[id(self.module)] = used
        n, name = 0, base
        while name in used:
            n += 1
            name = f"{base}_{n}"
        return name
