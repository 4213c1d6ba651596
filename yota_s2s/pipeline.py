"""The pipeline: source text in, generated module text out, one stage after another.

    fence -> lower -> optimize (primal) -> differentiate -> optimize + finishing passes -> codegen

(``frontend.fence``, ``frontend.lower``, ``transform.optimize``, ``transform.differentiate``,
``transform.factor`` and ``transform.finish``, ``codegen.module``; docs/design.md.)  With
``buffers=True`` (``--buffers``) the module also gets a class per function that reuses its
arrays across calls (``codegen.buffered``).  With ``value=False`` (``--no-value``) each
``grad_NAME`` returns only the gradients, and the work that only the value needed is gone
(``transform.finish.drop_value``).  ``generate`` keeps the tape after each stage so ``--dump-ir STAGE`` and
``gradtape`` can show it.  Each stage's output is checked with ``verify``;
a broken invariant is an ``InternalError`` (a bug), never a user error.

Large programs: the cyclic garbage collector is paused while generating (the
tapes hold no cycles, and its full collections walk every equation again and
again), and a source whose expressions nest deeper than Python's recursion
limit allows (``ast.parse`` fails near 3,000 terms in one sum) is generated
again on a thread with a large stack and a raised limit.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
import gc
import hashlib
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .codegen.module import Header, write_module
from .codegen.sparse import sparse_added, sparse_mode
from .codegen.target import BACKENDS
from .dsl.load import load_rules
from .errors import InternalError, UserError, at_span, located
from .frontend.complexes import complex_params
from .frontend.fence import fence
from .frontend.lower import lower
from .ir.core import IRError, Tape, is_option, verify
from .ir.modes import AUTO, GRAD, Form, Mode, form_named, mode_named
from .transform.aliasing import stale_views
from .transform.band import with_band
from .transform.batched import with_batched
from .transform.checkpoint import snapshots
from .transform.complex_types import complex_seeds, complex_types
from .transform.compressed import with_compressed
from .transform.differentiate import differentiate
from .transform.factor import common_factors, merge_reciprocals
from .transform.finish import (
    drop_value,
    float_gradients,
    float_literals,
    joined_parts,
    separate_buffers,
    shape_reads,
    stacked_tangents,
    stand_ins,
)
from .transform.forward import jvp
from .transform.jac_columns import with_columns
from .transform.optimize import optimize
from .transform.second import second_order
from .transform.types import vector_value
from .version import __version__

#: The stages whose tapes ``--dump-ir`` can print, in order.
STAGES = ("lower", "primal", "differentiate", "optimize")


@dataclass
class Generated:
    """The generated module and the tapes after each stage (by stage, one per function)."""

    text: str
    tapes: dict[str, list[Tape]] = field(default_factory=dict)
    warnings: list[UserError] = field(default_factory=list)  # printed as "warning:", the run goes on


def generate(
    source: str,
    path: str,
    funcs: Sequence[str] | None = None,
    wrt: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
    target: str = "numpy",
    rules: Sequence[str] = (),
    command: str | None = None,
    buffers: bool = False,
    value: bool = True,
    source_sha256: str | None = None,
    mode: str | Mode = "grad",
    sparse: bool = False,
    checkpoint: int = 0,
    form: str | Form = "auto",
) -> Generated:
    """Differentiate the functions ``funcs`` (default: entry points) of ``source``.

    ``wrt``: the parameters of every function, or a mapping from function names to theirs (the
    other functions: all their parameters; a name that is not a differentiated function is
    ``YS004``).  ``source_sha256`` is the header's hash of the source: the SHA-256 of the file's bytes, as
    ``files.load_source`` gives it (default: of ``source`` in UTF-8, for text that is no file's).
    ``mode`` is what each function computes (a name of ``ir.modes.MODES``, or its record): ``"grad"``
    (``grad_NAME``), ``"vjp"`` (``vjp_NAME(..., dout)``, ``--vjp``), ``"jvp"``
    (``jvp_NAME(..., x_dot)``, ``--jvp``) or ``"jacobian"`` (``jac_NAME``, ``--jacobian``).
    ``checkpoint``: ``--checkpoint S``, binomial checkpointing of loops with ``S`` snapshots.
    ``form``: ``--form``, the algorithms a function may hold (a name of ``ir.modes.FORMS``, or its
    record): ``"auto"``, each run-time choice a branch; ``"rows"``, ``"columns"``, ``"band"``, one algorithm.

    >>> g = generate("import numpy as np\\ndef f(x):\\n    return np.sum(np.exp(x))\\n", "f.py")
    >>> print(g.text.split("def grad_f")[1].split("# ----")[0].strip())  # (the helpers follow)  # doctest: +NORMALIZE_WHITESPACE
    (x):
        \"\"\"Return (f(x), dx): the value and its gradients.\"\"\"
        _real_args('grad_f', ('x',), (), x)  # the rules hold for real floats
        # forward
        # return np.sum(np.exp(x))
        _t1 = np.exp(x)
        f = _t1.sum()
        return f, _t1
    """
    reverse = mode_named(mode)  # (a gradient's or a VJP's one reverse sweep: not a loop over seeds, nor forward)
    if checkpoint and (
        checkpoint < 0
        or reverse.order != 1
        or reverse.forward
        or reverse.by_rows
        or buffers
        or not BACKENDS[target].in_place  # (the snapshots are arrays written in place)
    ):
        what = "a positive number of snapshots" if checkpoint < 0 else "grad_NAME and vjp_NAME, for NumPy or CuPy"
        raise UserError("YS043", f"--checkpoint {checkpoint}: it writes {what} only", path)
    form = _form_for(form_named(form), reverse, target, sparse, path)
    args = (source, path, funcs, wrt, target, rules, command, buffers, value, source_sha256, mode, sparse, form)
    with _gc_paused(), snapshots(checkpoint):  # --checkpoint S (transform.checkpoint)
        try:
            return _generate(*args)
        except RecursionError:
            pass  # an expression nested too deep for the default limit: retry with room for it
        return _on_deep_stack(_generate, *args)


def _form_for(form: Form, mode: Mode, target: str, sparse: bool, path: str) -> Form:
    """``form``, where it is one the mode can be written in (YS043 where it is not): ``columns``
    for ``jac_NAME``, ``band`` for ``hess_NAME``, ``rows`` for any but ``--sparse`` (its own
    composition), each for a target that writes batched sweeps."""
    if form is AUTO:
        return form
    if sparse or not BACKENDS[target].batched_rows:
        what = "--sparse" if sparse else f"--target {target}"
        raise UserError("YS043", f"--form {form.name}: {what} writes its own form (--form auto)", path)
    if form.of_mode is not None and mode_named(form.of_mode) is not mode:
        flag = mode_named(form.of_mode).flag
        raise UserError("YS043", f"--form {form.name} ({form.describe}) is a form of {flag} only", path)
    return form


#: Room for sources with very long expressions (a left-deep sum of n terms nests n deep):
#: each nesting level takes a few Python frames and well under 1 KiB of C stack.
_DEEP_RECURSION_LIMIT = 1_000_000
_DEEP_STACK_BYTES = 1 << 30


def _on_deep_stack(fn, *args):
    """``fn(*args)`` on a thread whose stack and recursion limit fit very deep expressions, in the
    caller's context (``--checkpoint``'s setting is a context variable: a new thread starts empty)."""
    result: list = []
    error: list[BaseException] = []
    context = contextvars.copy_context()

    def run() -> None:
        try:
            result.append(context.run(fn, *args))
        except BaseException as exc:  # noqa: BLE001 - re-raised on the calling thread
            error.append(exc)

    limit = sys.getrecursionlimit()
    old_stack = threading.stack_size(_DEEP_STACK_BYTES)
    try:
        sys.setrecursionlimit(max(limit, _DEEP_RECURSION_LIMIT))
        thread = threading.Thread(target=run, name="yota-s2s-deep")
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(limit)
    if error:
        raise error[0]
    return result[0]


@contextlib.contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector (reference counting still frees everything).

    A 10,000-term polynomial makes a few million small objects, and each full collection
    walks them all: about 30% of the generation time.  What the run leaves alive (the module, the
    tapes of ``Generated``) is moved to the oldest generation when it ends, as a long-lived
    result: else the first allocation after ``gc.enable()`` walks all of it as young objects
    (half a second at 10,000 terms).  Objects another caller froze (``gc.freeze``) stay frozen.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()  # (every tracked object, into the permanent generation ...)
            gc.unfreeze()  # (... and back into the oldest one: no walk of them)
        if enabled:
            gc.enable()


def _generate(
    source,
    path,
    funcs,
    wrt,
    target,
    rules,
    command,
    buffers=False,
    value=True,
    sha256=None,
    mode="grad",
    sparse=False,
    form: Form = AUTO,
) -> Generated:
    if buffers and not BACKENDS[target].host:
        raise UserError("YS043", f"--buffers writes NumPy code only (not --target {target})", path)
    mode = mode_named(mode)
    if sparse:  # jac_NAME composed of the JVP, hess_NAME of the HVP (codegen.sparse)
        mode = sparse_mode(mode, target, path, value)
    if buffers and not mode.buffered:
        raise UserError("YS043", f"--buffers writes classes for grad_NAME only (not {mode.flag})", path)
    table = load_rules(rules)
    module = fence(source, path, list(funcs) if funcs else None)
    stages: dict[str, list[Tape]] = {s: [] for s in STAGES}
    if isinstance(wrt, Mapping):
        unknown = [f for f in wrt if f not in module.selected]
        if unknown:
            raise UserError(
                "YS004",
                f"--wrt {unknown[0]}:...: {unknown[0]} is not a differentiated function "
                f"(they are {', '.join(module.selected)})",
                path,
            )
    try:
        grads = [
            _differentiate_one(
                module,
                name,
                table,
                wrt.get(name) if isinstance(wrt, Mapping) else wrt,
                stages,
                value,
                target,
                mode,
                form,
            )
            for name in module.selected
        ]
        header = Header(
            version=__version__,
            source_path=path,
            funcs=list(module.selected),
            target=target,
            source_sha256=sha256 or hashlib.sha256(source.encode()).hexdigest(),
            rules_sha256=table.sha256,
            command=command or f"yota-s2s {path}",
            also_read={p: h for t in stages["lower"] for p, h in t.facts.read_files.items()},
        )
        reverse, added = None, None
        if sparse:  # a Jacobian's VJPs too, for the rows where they take fewer colors than the columns
            if mode.forward:  # (--jacobian's columns: its rows are VJPs)
                rev = _generate(source, path, funcs, wrt, target, rules, command, sha256=sha256, mode="vjp")
                reverse = [with_compressed(with_band(t, table), table) for t in rev.tapes["optimize"]]
            # (--sparse by diagonals, where they hold; the sweep over colors composed)
            grads = [with_compressed(with_band(t, table), table) for t in grads]
            added = functools.partial(sparse_added, reverse, stages["primal"], grads, table)
        text = write_module(grads, table, BACKENDS[target], header, buffers, reverse or (), added)
        BACKENDS[target].check_module(text)  # every name of the target's module exists (a bug of ours if not)
        try:
            compile(text, "<generated>", "exec")
        except SyntaxError as exc:
            raise InternalError(f"the generated module does not compile: {exc}") from exc
    except UserError:
        raise
    except Exception as exc:  # a bug of ours: keep the tapes made so far for the report
        exc.yota_tapes = stages
        raise
    warnings = [w for t in stages["lower"] for w in t.facts.warnings]
    return Generated(text, stages, warnings)


def _differentiate_one(
    module,
    name: str,
    table,
    wrt: Sequence[str] | None,
    stages: dict,
    value: bool = True,
    target: str = "numpy",
    mode: Mode = GRAD,
    form: Form = AUTO,
) -> Tape:
    tape = _checked(stale_views(lower(module, name, table)), "lower")
    stages["lower"].append(tape)
    if mode.scalar_value:  # (a scalar function)
        _refuse_vector_value(module, name, tape, table)
    # (the optimizer assumes a scalar value only for a gradient; a holomorphic one is written as one)
    differentiated = GRAD if mode.holomorphic else mode
    tape.facts.mode = differentiated
    tape = _checked(optimize(tape, table, reduce_powers=False), "primal")
    stages["primal"].append(tape)
    params = [p.name for p in tape.params]
    chosen = list(wrt) if wrt else [p.name for p in tape.params if not is_option(p.default)]
    if not wrt and mode.order == 2:  # (by default, the parameters f reads: one unread has no H)
        chosen = [w for w in chosen if any(i.path[0] == w for i in tape.inputs)]
    repeated = [w for w in chosen if chosen.count(w) > 1]
    if repeated:
        raise UserError("YS004", f"--wrt names {repeated[0]!r} twice", module.path)
    unknown = [w for w in chosen if w not in params]
    if unknown:
        raise UserError("YS004", f"--wrt {unknown[0]!r} is not a parameter of {name}({', '.join(params)})", module.path)
    fn = module.functions.get(name)
    fn_table = complex_types(tape, complex_params(fn) if fn is not None else [], chosen, table, mode)
    if (
        not BACKENDS[target].complex_arguments and mode.value_rows and tape.facts.holomorphic
    ):  # (its helpers stack real rows)
        first = next((e.span for e in tape.eqns if e.span is not None), None)
        raise at_span(
            "YS022", f"the complex Jacobian of {name}() is written for NumPy and CuPy, not --target array-api", first
        )
    if mode.order == 2:  # the gradient differentiated again
        tape = _checked(second_order(tape, chosen, fn_table, mode), "differentiate")
    elif mode.forward:  # the VJP transposed, or forward mode (loops, branches, ...)
        tape = _checked(jvp(tape, chosen, fn_table), "differentiate")
    else:
        primal = tape
        tape = _checked(differentiate(tape, chosen, fn_table, differentiated), "differentiate")
        if mode.value_rows and BACKENDS[target].batched_rows and form.columns:  # forward columns, chosen when it runs
            tape = _checked(with_columns(tape, primal, chosen, fn_table, forced=not form.rows), "differentiate")
            if not form.rows and not tape.facts.columns:
                first = next((e.span for e in primal.eqns if e.span is not None), None)
                why = "its rows are written out, or it has a loop or a branch, or a primitive without a forward rule"
                raise at_span(
                    "YS043", f"--form columns: jac_{name} cannot be written by forward columns ({why})", first
                )
    tape.facts.form = form
    tape = complex_seeds(tape, fn_table)  # (vjp_NAME's dout, jvp_NAME's tangents: complex where they may be)
    stages["differentiate"].append(tape)
    tape = _checked(optimize(tape, table), "optimize")
    tape = _checked(stacked_tangents(tape, table), "optimize", tape)
    if not value:
        tape = _checked(drop_value(tape, table), "optimize", tape)
    tape = _checked(common_factors(tape, table), "optimize", tape)
    tape = _checked(merge_reciprocals(tape, table), "optimize", tape)
    tape = _checked(shape_reads(tape, table), "optimize", tape)
    tape = _checked(joined_parts(tape, table), "optimize", tape)
    tape = _checked(stand_ins(tape, table, sizes=BACKENDS[target].host), "optimize", tape)
    tape = _checked(float_literals(tape), "optimize", tape)
    tape = _checked(float_gradients(tape), "optimize", tape)
    tape = _checked(separate_buffers(tape), "optimize", tape)
    if mode.order == 2 and mode.by_rows and form.band:  # hess_NAME by its diagonals, where its sweep keeps them
        tape = with_band(tape, table)
    if mode.by_rows and BACKENDS[target].batched_rows:  # each sweep over seeds batched, composed, optimized
        tape = with_batched(tape, table)
    stages["optimize"].append(tape)
    return tape


def _refuse_vector_value(module, name: str, tape: Tape, table) -> None:
    """YS024 at the return of a function whose value shapes prove an array, not a scalar (where they
    cannot, the generated code checks the value when it runs)."""
    vector = vector_value(tape, table)
    if vector is None:
        return
    rank, shape = vector
    what = (
        f"an array of shape {shape}"
        if shape is not None
        else f"an array of at least {rank} dimension{'s' * (rank > 1)}"
    )
    message = (
        f"{name}() returns {what}, not a scalar: yota-s2s differentiates scalar functions (sum or index "
        f"the result), or write its Jacobian with --jacobian (or vector-Jacobian products with --vjp)"
    )
    fn = module.functions.get(name)
    last = fn.body[-1] if fn is not None and fn.body else None
    if isinstance(last, ast.Return) and last.value is not None:
        raise located("YS024", message, last.value, module.path, module.source)
    raise at_span("YS024", message, tape.eqns[-1].span if tape.eqns else None)


def _checked(tape: Tape, stage: str, given: Tape | None = None) -> Tape:
    """``tape``, verified (``ir.core.verify``): a broken invariant is an internal error.

    A finishing pass gives back the very tape it was given (``given``) when it changes nothing
    (it writes a new tape otherwise, never into the one it reads): that tape was verified
    already, and a 10,000-term gradient's verification is a tenth of a second.
    """
    if tape is given:
        return tape
    try:
        verify(tape)
    except IRError as exc:
        raise InternalError(f"the tape after stage {stage!r} is broken: {exc}") from exc
    return tape
