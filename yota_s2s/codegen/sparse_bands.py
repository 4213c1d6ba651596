"""``--sparse`` by diagonals: a function that computes a banded Jacobian's (or Hessian's) diagonals.

Seeded with the identity's rows, a sweep whose steps keep diagonals diagonals (``transform.band``)
is a few vectors: the diagonals of its derivative.  Where the sweep of ``hvp_NAME`` (the
Hessian's), of ``vjp_NAME`` (the Jacobian's rows) or of ``jvp_NAME`` (its columns) is banded,
``--sparse`` writes ``_hvp_NAME_bands`` (``_vjp_``, ``_jvp_``): the equations before the sweep and
the band form's, optimized together (``codegen.banded.compose``), returning the value, the
gradient (``hvp``) and each diagonal, a vector or one number::

    def _hvp_rosen_bands(x):
        ...
        return rosen, dx, _t11, _t8, _t10          # diagonals -1, 0, 1

``jac_NAME`` (``hess_NAME``) takes them where the arguments pass the band form's tests, and
decompresses them into the CSR data with one prepared ``take``, as it does a colored sweep's
(``runtime.sparse._sp_banded``): diagonals are another compression of the same pattern.
"""

from __future__ import annotations

import ast
import dataclasses

from ..dsl.rule import RuleTable
from ..ir.batching import BandForm
from ..ir.core import Tape, Var
from .banded import _buffers, band_test
from .layout import fit_module
from .plan import plan_function
from .target import Backend
from .writer import FunctionWriter


@dataclasses.dataclass
class Banded:
    """What ``bands_function`` made: the function's text and helpers, the diagonals it returns (in
    order), and whether they run along the result's rows (``vjp``, ``hvp``: diagonal ``d``'s element
    ``j`` is entry ``(j + d, j)``) or its columns (``jvp``: entry ``(j, j + d)``)."""

    text: str
    helpers: set[str]
    offsets: list[int | tuple[int, int, int]]
    columns: bool


class _BandsWriter(FunctionWriter):
    """``_hvp_NAME_bands`` (``_vjp_``, ``_jvp_``): the mode's function without its seed, returning
    the diagonals of its sweep seeded with the identity's rows, or None where the arguments fail
    the band form's tests (written after equation ``after``)."""

    prefix = ""
    offsets: tuple[str, ...] = ()
    windows = ""
    returned: tuple[str, ...] = ()
    form: BandForm
    after = -1

    def function_name(self) -> str:
        return f"_{self.prefix}{self.tape.name}_bands"

    def docstring(self) -> str:
        what = "rows" if self.prefix != "jvp_" else "columns"
        return (
            f'"""Return ({", ".join(self.returned)}): the diagonals {", ".join(self.offsets)} of what '
            f"{self.prefix}{self.tape.name}\n    computes for every unit seed (its {what}), each a vector or "
            f'one number{self.windows}; None where the arguments do not give them."""'
        )

    def output_expr(self, tree: object) -> ast.expr:
        """The returned tuple: the diagonals' terms as they are (``_sp_diagonals`` only reads them: one
        value that is two terms, ``_t6`` for diagonals -1 and 1 of Rosenbrock's H, is not copied)."""
        expr = super().output_expr(tree)
        kept = len(self.tape.outputs) - len(self.offsets)
        if isinstance(expr, ast.Tuple):
            expr.elts[kept:] = [self.atom(a) for a in self.tape.outputs[kept:]]
        return expr

    def block(self, tape: Tape, depth: int, body: list, preset: dict | None = None, push: tuple | None = None) -> None:
        if tape is self.tape and depth == 0 and push is None:
            push = (self.after, self.test)
        super().block(tape, depth, body, preset, push)

    def test(self) -> ast.stmt:
        """``if not (np.ndim(x) == 1 and ...): return None``: the band form's tests."""
        test = band_test(self, self.form)
        if isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Eq):  # np.ndim(x) != 1
            test.ops = [ast.NotEq()]
            return ast.If(test, [ast.Return(ast.Constant(None))], [])
        return ast.If(ast.UnaryOp(ast.Not(), test), [ast.Return(ast.Constant(None))], [])


def bands_function(tape: Tape, table: RuleTable, backend: Backend) -> Banded | None:
    """``_hvp_NAME_bands`` of ``tape`` (the tape of ``hvp_NAME``, ``vjp_NAME`` or ``jvp_NAME``), or None
    where its sweep has no band form (``Facts.band``, ``transform.band.with_band``)."""
    form = tape.facts.band
    if not isinstance(form, BandForm):
        return None
    mode = tape.facts.mode
    names = [i.path[0] for i in tape.inputs if i.var is form.seed]
    whole = tape.copy_header()
    whole.inputs = [i for i in tape.inputs if i.var is not form.seed]
    whole.params = [p for p in tape.params if p.name not in names]
    whole.eqns = _buffers(form.eqns)
    whole.outputs = [*form.kept, *form.diagonals.values()]
    whole.out_tree = list(range(len(whole.outputs)))
    whole.facts.mode = dataclasses.replace(mode, products=False, seeded=False, seed_param=False, forward=False)
    whole.facts.tangents = []
    whole.facts.array_inputs = whole.facts.array_inputs | form.arrays
    plan = plan_function(whole, table, backend, columns=False)
    tested = {a.id for _, a, b in form.tests for a in (a, b) if isinstance(a, Var)}
    # (each test reads a name: the value it reads is named, not written again inline)
    plan = dataclasses.replace(plan, check_scalar=plan.check_scalar and mode.order == 2, inline=plan.inline - tested)
    writer = _BandsWriter(plan, table, backend)
    offsets = [d if (start, stop) == (0, 0) else (d, start, stop) for d, start, stop, _ in form.diagonals]
    writer.form, writer.prefix, writer.offsets = form, mode.prefix, tuple(map(_piece, form.diagonals))
    if any(isinstance(d, tuple) for d in offsets):
        writer.windows = " (on the elements [start:stop] of the diagonal named so, zero on the others)"
    grad = [f"d{tape.facts.wrt[0]}"] if len(form.kept) > 1 else []
    writer.returned = (tape.name, *grad, *(f"diagonal {piece}" for piece in writer.offsets))
    defined = {o.id: k for k, e in enumerate(whole.eqns) for o in e.outs}
    writer.after = max((defined[i] for i in tested if i in defined), default=-1)  # (as soon as it can be)
    return Banded(fit_module(writer.write()), writer.helpers, offsets, form.columns)


def _piece(piece: tuple[int, int, int, int]) -> str:
    """A diagonal's term as the docstring names it: ``1``, ``1 [:-1]`` (its elements but the last), or
    ``0 (numbers)`` (the numbers of a window, apart from its arrays)."""
    d, start, stop, k = piece
    window = "" if (start, stop) == (0, 0) else f" [{start or ''}:{stop or ''}]"
    return f"{d}{window}{' (numbers)' if k else ''}"
