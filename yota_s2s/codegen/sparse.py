"""``--sparse --jacobian``: the tapes of a module of ``jvp_NAME`` and ``vjp_NAME`` functions in, a
sparse ``jac_NAME`` per function out (``--hessian``: of ``hvp_NAME`` functions, a sparse
``hess_NAME``), which ``module.write_module`` writes after them (``sparse_added``: no text is read).

The sparse Jacobian is a composition of what the module has already: the JVP seeded with the
columns of a color matrix ``S`` instead of the identity's, all at once (``J @ S``), or the VJP
seeded with its rows (``S.T @ J``), then decompressed into a ``scipy.sparse.csr_array``.  The
functions per differentiated function ``f``::

    def jac_f_pattern(x, I):           # the pattern: the primal program, each value beside its
        ...                            # pattern (runtime.sparse's _sp_* rules, one per equation)
        return _sp_result(f, _p7, _n)

    def jac_f(x, I):                   # the pattern and its coloring once per shapes and data,
        key = _sp_key((x,), (I,))      # then one batched sweep and the decompression
        ...
        return value, J_x

    def _vjp_f_colors(x, I, dout):     # vjp_f with a leading axis of colors on every value the
        ...                            # seed reaches (ir.batching's rules): S.T @ J in one sweep
    def _jvp_f_colors(x, I, x_dot):    # jvp_f likewise: J @ S

A sweep with a primitive that has no batching rule (a loop, a branch) is not written batched:
``jac_f`` then calls ``vjp_f`` or ``jvp_f`` once per color (``_sp_stacked`` stacks their results).

The pattern is computed when ``jac_f`` first meets the shapes and the other arguments' values
(index arrays, data matrices): what it finds there is structural for them.  A value an index is
computed from that depends on a ``--wrt`` parameter (``x[np.argmax(x)]``) makes the pattern
depend on the point: it is then computed again at every call.
"""

from __future__ import annotations

import ast
import dataclasses

from ..dsl.rule import RuleTable
from ..errors import UserError, at_span
from ..ir.core import NO_DEFAULT, ParamKind, Tape
from ..ir.modes import HVP, JVP, Mode
from .helpers import helper_names
from .layout import fit_module
from .module import Added
from .patterns import CODE, PatternWriter, _first_span
from .plan import FunctionPlan, plan_function
from .seeds import SeedWriter
from .sparse_bands import Banded, bands_function
from .sparse_fixed import fixed_function
from .target import BACKENDS, Backend
from .writer import FunctionWriter


def sparse_mode(mode: Mode, target: str, path: str, value: bool = True) -> Mode:
    """The mode the module's tapes are made in (``sparse_added`` adds to them): the JVP for ``--jacobian``, the
    HVP for ``--hessian`` (``--sparse`` takes one of them and the NumPy target only, ``YS060``
    otherwise)."""
    if not mode.by_rows:  # (jac_NAME and hess_NAME: one derivative per unit seed)
        flag = mode.flag or "grad_NAME"
        raise UserError(
            CODE, f"--sparse writes sparse Jacobians and Hessians: give --jacobian or --hessian (not {flag})", path
        )
    backend = BACKENDS[target]
    if not (backend.host and backend.numpy_api):  # (scipy.sparse: NumPy's arrays in host memory)
        raise UserError(CODE, f"--sparse writes NumPy and scipy.sparse code only (not --target {target})", path)
    if not value:
        raise UserError(CODE, "--sparse returns the value with the derivatives: not with --no-value", path)
    return HVP if mode.order == 2 else JVP


def _signature(primal: Tape) -> tuple[str, str]:
    """The parameters of the generated functions, defaults included, and the arguments that pass
    them on (positionally: ``--sparse`` takes plain parameters only)."""
    parts = []
    for p in primal.params:
        if p.kind is not ParamKind.POSITIONAL:
            raise UserError(
                CODE, f"--sparse takes plain parameters, not the {p.kind.value} {p.name} of {primal.name}", ""
            )
        parts.append(p.name if p.default is NO_DEFAULT else f"{p.name}={p.default!r}")
    return ", ".join(parts), ", ".join(p.name for p in primal.params)


def _unpacked(text: str, names: list[str]) -> str:
    """Targets to unpack a tuple into: ``(x_dot,)`` for one name, ``x_dot, y_dot`` for several."""
    return f"({text},)" if len(names) == 1 else text


def _tuple(names: list[str]) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def _seeds(primal: Tape, *tapes: Tape) -> dict[str, list[str]]:
    """The names the module's ``jvp_``, ``vjp_`` and ``hvp_NAME`` (of ``tapes``) give their seeds: their
    parameters after the function's own (renamed where one of those has the name)."""
    return {t.facts.mode.prefix.rstrip("_"): [p.name for p in t.params[len(primal.params) :]] for t in tapes}


class _ColorsWriter(FunctionWriter):
    """``_jvp_NAME_colors``, ``_vjp_NAME_colors`` or ``_hvp_NAME_colors``: the function of the mode
    with its seeds batched (``ir.batching``), one leading row per color."""

    def function_name(self) -> str:
        return f"_{super().function_name()}_colors"

    def docstring(self) -> str:
        facts, name = self.tape.facts, self.tape.name
        args = [p.name for p in self.tape.params if not _seed_of(self.tape, p.name) and p.name not in self.kept]
        call = f"{name}({', '.join(args)})"
        if facts.mode.order == 2:
            (v,) = facts.tangents
            return (
                f'"""Return ({call}, d{facts.wrt[0]}, Hv): hvp_{name} on every color at once, {v} of shape\n'
                f"    (colors,) + np.shape({facts.wrt[0]}) (row c: the seed of color c), Hv its rows' products "
                f'(H @ S, transposed)."""'
            )
        if facts.mode.forward:
            seeds = ", ".join(facts.tangents)
            return (
                f'"""Return ({call}, dvalue): jvp_{name} on every color at once, {seeds} of shape (colors,)\n'
                f'    + the parameter\'s (row c: the tangent of color c), dvalue of shape (colors,) + np.shape(value)."""'
            )
        grads = ", ".join(f"d{w}" for w in facts.wrt)
        return (
            f'"""Return ({call}, {grads}): vjp_{name} on every color at once, {facts.seed} of shape (colors,)\n'
            f'    + np.shape(value) (row c: the rows of color c), each gradient of shape (colors,) + its parameter\'s."""'
        )

    def __init__(self, plan: FunctionPlan, table: RuleTable, backend: Backend, kept: tuple[str, ...] = ()):
        self.kept = kept  # (the parameters of the kept values, transform.compressed: never checked)
        super().__init__(plan, table, backend)
        self.seeds = _ColorsSeeds(self)


class _ColorsSeeds(SeedWriter):
    """The checks of a colors function: its seeds have a leading axis of colors; the kept values
    (``transform.compressed``), which the function of the checked arguments made, are not checked again."""

    def type_checks(self) -> list[ast.stmt]:
        stmts = super().type_checks()
        kept = set(self.w.kept)
        for stmt in stmts if kept else []:
            call = stmt.value
            first, *groups = call.args[:3]
            for group in groups:
                group.elts = [e for e in group.elts if e.value not in kept]
            values = [v for v in call.args[3:] if v.id not in kept]
            call.args = [first, *groups, *values]
        return [s for s in stmts if len(s.value.args) > 3]

    def tangent_checks(self) -> ast.stmt:
        """``hvp_NAME``'s check that its seed has the shape of its parameter, of each row here."""
        check = super().tangent_checks()
        for node in ast.walk(check):  # np.shape(v) -> np.shape(v)[1:]
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Call):
                node.left = ast.Subscript(node.left, ast.Slice(ast.Constant(1), None, None), ast.Load())
        return check


def _seed_of(tape: Tape, name: str) -> bool:
    """``name`` is a seed the mode adds to the function's parameters (a tangent, ``dout``)."""
    return name in tape.facts.tangents or name == tape.facts.seed


#: The seeds of a reverse sweep, in ``jac_NAME``.
_SEEDS = '_prepared["seeds"]'


@dataclasses.dataclass
class Colors:
    """What ``colors_function`` made: the text of the colors function (and of the function of its
    kept values, ``transform.compressed``), the helpers they call, and the kept values' parameters (none:
    no such function)."""

    text: str
    helpers: set[str]
    kept: list[str]

    def call(self, name: str, args: str) -> str:
        """The call of the colors function ``name`` with ``args``, and the kept values, which
        ``_sp_fixed`` computes once per prepared pattern (the function of the same arguments)."""
        if not self.kept:
            return f"{name}({args})"
        kept = name.removesuffix("_colors") + "_fixed"
        return f"{name}({args}, *_sp_fixed(_prepared, {kept}, ({args},)))"


def colors_function(tape: Tape, table: RuleTable, backend: Backend) -> Colors | None:
    """The text of ``_jvp_NAME_colors`` (``_vjp_``, ``_hvp_``) of ``tape`` (the tape of ``jvp_NAME``,
    ``vjp_NAME`` or ``hvp_NAME``) and the helpers it calls: its composed sweep over colors printed
    (``Facts.compressed``, ``transform.compressed``), and the function of its kept values; None where
    it has none (``jac_NAME`` then runs one sweep per color)."""
    made = tape.facts.compressed
    if made is None:
        return None
    plan = plan_function(made.tape, table, backend, columns=False)
    writer = _ColorsWriter(
        dataclasses.replace(plan, check_scalar=plan.check_scalar and tape.facts.mode.order == 2),
        table,
        backend,
        tuple(made.names),
    )
    text = fit_module(writer.write())
    if made.fixed is None:
        return Colors(text, writer.helpers, [])
    fixed, helpers = fixed_function(made.fixed, tape.facts.mode.prefix, table, backend)
    return Colors(text + "\n\n\n" + fixed, writer.helpers | helpers, list(made.names))


def sparse_functions(
    primal: Tape, jvp: Tape, vjp: Tape | None, table: RuleTable, backend: Backend, seeds: dict[str, list[str]]
) -> tuple[list[str], set[str], list[str]]:
    """The source of ``jac_NAME_pattern``, ``jac_NAME``, the batched sweeps it calls and its cache for
    one function (``vjp``: the tape of ``vjp_NAME``), the helpers they call and the constants."""
    name = primal.name
    wrt = [w for w in jvp.facts.wrt if any(i.path[0] == w for i in primal.inputs)]
    if not wrt:
        raise at_span(CODE, f"--sparse: {name} has no array parameter to differentiate", _first_span(primal))
    params = [p.name for p in primal.params]
    data = [p for p in params if p not in wrt]
    writer = PatternWriter(primal, wrt, table, backend)
    body = writer.body()
    definition, signature = _signature(primal)
    fn = ast.FunctionDef(
        f"_jac_{name}_pattern",
        ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
        body,
        [],
        lineno=0,
    )
    doc = f'"""The sparsity pattern of jac_{name}\'s Jacobians and the value\'s shape (see jac_{name}_pattern)."""'
    private = ast.unparse(ast.fix_missing_locations(fn)).replace(":\n", ":\n    " + doc + "\n", 1)
    public = (
        f"def jac_{name}_pattern({definition}):\n"
        f'    """The sparsity pattern of jac_{name}\'s Jacobians, a boolean scipy.sparse.csr_array of shape\n'
        f"    (value.size, {' + '.join(f'{w}.size' for w in wrt)}): every entry that can be nonzero for these shapes and "
        f'data."""\n'
        f"    return _jac_{name}_pattern({signature})[0]"
    )
    blocks = ", ".join(f"J_{w}" for w in wrt)
    cache = f"_JAC_{name.upper()}_CACHE"
    dots = ", ".join(f"{w}_dot" for w in wrt)
    keywords = ", ".join(f"{t}={w}_dot" for t, w in zip(seeds["jvp"], wrt, strict=True))
    (dout,) = seeds["vjp"]
    by_rows = colors_function(vjp, table, backend) if vjp is not None else None
    by_cols = colors_function(jvp, table, backend)
    # at equal colors, the columns, unless only the rows' sweep is batched
    ties = ", ties_to_rows=True" if by_cols is None and by_rows is not None else ""
    prepare = (
        f"    _prepared = _sp_prepare(*_jac_{name}_pattern({signature}){ties})  # (an index depends on the point)\n"
        if writer.by_point
        else f"    _key = _sp_key({_tuple(wrt)}, {_tuple(data)})\n"
        f"    _prepared = {cache}.get(_key)\n"
        f"    if _prepared is None:  # the pattern and its colors, once per shapes and data\n"
        f"        _prepared = {cache}[_key] = _sp_prepare(*_jac_{name}_pattern({signature}){ties})\n"
    )
    texts, helpers = [], {"_sp_prepare", "_sp_tangents", "_sp_decompress"}
    if by_rows is not None:
        rows = (
            f'    if _prepared["by_rows"]:  # the reverse sweep once, on every color of the rows (S.T @ J)\n'
            f"        _value, *_compressed = {by_rows.call(f'_vjp_{name}_colors', signature + ', ' + _SEEDS)}\n"
        )
    else:
        helpers.add("_sp_stacked")
        rows = (
            f"    _compressed = []\n"
            f'    if _prepared["by_rows"]:  # one reverse sweep per color of the rows (S.T @ J)\n'
            f'        for _seed in _prepared["seeds"]:\n'
            f"            _value, *_grads = vjp_{name}({signature}, {dout}=_seed)\n"
            f"            _compressed.append(_grads)\n"
            f"        _compressed = _sp_stacked(_compressed)\n"
        )
    if by_cols is not None:
        cols = "    else:  # the forward sweep once, on every color of the columns (J @ S)\n" + (
            f"        _value, _compressed = _jvp_{name}_colors({signature}, *_sp_tangents(_prepared, {_tuple(wrt)}))\n"
            if not by_cols.kept
            else f"        _tangents = _sp_tangents(_prepared, {_tuple(wrt)})\n"
            f"        _value, _compressed = {by_cols.call(f'_jvp_{name}_colors', f'{signature}, *_tangents')}\n"
        )
    else:
        helpers.add("_sp_stacked")
        cols = (
            f"    else:  # one forward sweep per color of the columns (J @ S)\n"
            f"        _compressed = []\n"
            f"        for {_unpacked(dots, wrt)} in zip(*_sp_tangents(_prepared, {_tuple(wrt)})):\n"
            f"            _value, _dvalue = jvp_{name}({signature}, {keywords})\n"
            f"            _compressed.append(_dvalue)\n"
            f"        _compressed = _sp_stacked(_compressed)\n"
        )
    banded, branch = _jacobian_bands(vjp, jvp, table, backend), ""
    if banded is not None:
        prepare = _with_bands(prepare, f"{tuple(banded.offsets)!r}, {banded.columns}")
        how = "jvp" if banded.columns else "vjp"
        like = "_value" if banded.columns else wrt[0]
        branch = _band_branch(f"_{how}_{name}_bands({signature})", "_value", f"({blocks},)", like, not banded.columns)
        texts.append(banded.text)
        helpers |= banded.helpers | {"_sp_banded", "_sp_diagonals"}
    jac = (
        f"def jac_{name}({definition}):\n"
        f'    """Return ({name}({signature}), {blocks}): the value and its Jacobians, scipy.sparse.csr_array of\n'
        f"    shape (value.size, {wrt[0]}.size){', ...' if len(wrt) > 1 else ''}: the forward sweep on the colors of the columns\n"
        f"    (J @ S), or the reverse sweep on the colors of the rows (S.T @ J) where those are fewer, then\n"
        f'    decompressed."""\n'
        f"{prepare}{branch}{rows}{cols}"
        f"    return (_value, *_sp_decompress(_prepared, _compressed, {_tuple(wrt)}))"
    )
    helpers |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in helper_names()}
    helpers |= set() if writer.by_point else {"_sp_key"}
    for made in (by_rows, by_cols):
        if made is not None:
            texts.append(made.text)
            helpers |= made.helpers | ({"_sp_fixed"} if made.kept else set())
    texts = [public, jac, private, *texts]
    return texts, helpers, [] if writer.by_point else [f"{cache} = {{}}  # jac_{name}'s prepared patterns"]


#: Where ``jac_NAME``'s band form reads its diagonals from, first choice first: the reverse sweep's
#: rows (``vjp_NAME``), or the forward sweep's columns (``jvp_NAME``, the transposed diagonals).
BANDS_FROM = ("vjp", "jvp")


def _jacobian_bands(vjp: Tape | None, jvp: Tape, table: RuleTable, backend: Backend) -> Banded | None:
    """The band form of ``jac_NAME`` (``sparse_bands``), from the first sweep of ``BANDS_FROM`` that is banded."""
    for how in BANDS_FROM:
        tape = vjp if how == "vjp" else jvp
        made = bands_function(tape, table, backend) if tape is not None else None
        if made is not None:
            return made
    return None


def _with_bands(prepare: str, offsets: str) -> str:
    """``prepare`` (the lines that make ``_prepared``) with the places of the band form's diagonals
    added to what it prepares (``_sp_banded``, which fills ``_prepared["bands"]``)."""
    lines = prepare.splitlines(keepends=True)
    at = next(k for k, line in enumerate(lines) if "_sp_prepare(" in line)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines.insert(at + 1, f"{indent}_sp_banded(_prepared, {offsets})  # and the places of its diagonals\n")
    return "".join(lines)


def _band_branch(call: str, values: str, result: str, like: str, by_rows: bool) -> str:
    """The band form's branch of ``jac_NAME`` (``hess_NAME``): ``call`` returns the diagonals where
    the arguments pass its tests, written into the matrix's data by prepared slices (``runtime.sparse._sp_banded``)."""
    what = "H" if result == "(H,)" else "J"
    returned = "_value, _grad, H" if what == "H" else f"_value, {result.strip('(),')}"
    return (
        f'    _banded = {call} if _prepared["bands"] is not None else None\n'
        f"    if _banded is not None:  # {what} is banded here: its diagonals alone, written into its data\n"
        f"        {values}, *_diagonals = _banded\n"
        f'        {result} = _sp_diagonals(_prepared["bands"], _diagonals)\n'
        f"        return {returned}\n"
    )


#: How ``hess_NAME`` computes its Hessian, by whether a band form was written (``sparse_bands``).
_HOW = {
    False: "the second sweep on the colors of the columns\n    (H @ S)",
    True: "its diagonals where the arguments give a banded one (a\n    band form), else the second sweep on the colors of the columns (H @ S)",
}


def hessian_functions(
    primal: Tape, hvp: Tape, table: RuleTable, backend: Backend, seeds: dict[str, list[str]]
) -> tuple[list[str], set[str], list[str]]:
    """The source of ``hess_NAME_pattern``, ``hess_NAME`` and their cache for one function of one
    ``--wrt`` parameter, and the helpers they call."""
    name = primal.name
    wrt = [w for w in hvp.facts.wrt if any(i.path[0] == w for i in primal.inputs)]
    if len(wrt) != 1:
        raise at_span(
            CODE, f"--hessian --sparse: {name} needs one --wrt array parameter, not {len(wrt)}", _first_span(primal)
        )
    (x,) = wrt
    params = [p.name for p in primal.params]
    data = [p for p in params if p != x]
    writer = PatternWriter(primal, wrt, table, backend, hessian=True)
    definition, signature = _signature(primal)
    fn = ast.FunctionDef(
        f"_hess_{name}_pattern",
        ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
        writer.body(),
        [],
        lineno=0,
    )
    doc = f'"""The sparsity pattern of hess_{name}\'s Hessian and the value\'s shape (see hess_{name}_pattern)."""'
    private = ast.unparse(ast.fix_missing_locations(fn)).replace(":\n", ":\n    " + doc + "\n", 1)
    public = (
        f"def hess_{name}_pattern({definition}):\n"
        f'    """The sparsity pattern of hess_{name}\'s Hessian, a symmetric boolean scipy.sparse.csr_array of\n'
        f"    shape ({x}.size, {x}.size): every pair of elements of {x} that the value may be nonlinear in "
        f'together."""\n'
        f"    return _hess_{name}_pattern({signature})[0]"
    )
    cache = f"_HESS_{name.upper()}_CACHE"
    prepare = (
        f"    _prepared = _sp_prepare(_hess_{name}_pattern({signature})[0], None, symmetric=True)\n"
        if writer.by_point
        else f"    _key = _sp_key(({x},), {_tuple(data)})\n"
        f"    _prepared = {cache}.get(_key)\n"
        f"    if _prepared is None:  # the pattern and its colors, once per shapes and data\n"
        f"        _prepared = {cache}[_key] = _sp_prepare(_hess_{name}_pattern({signature})[0], None, symmetric=True)\n"
    )
    colors = colors_function(hvp, table, backend)
    if colors is not None:
        sweep = (
            f"    (_tangents,) = _sp_tangents(_prepared, ({x},))  # the second sweep once, on every color\n"
            f"    _value, _grad, _compressed = {colors.call(f'_hvp_{name}_colors', f'{signature}, _tangents')}\n"
        )
    else:
        sweep = (
            f"    _compressed = []\n"
            f"    for {x}_v in _sp_tangents(_prepared, ({x},))[0]:  # one second sweep per color\n"
            f"        _value, _grad, _Hv = hvp_{name}({signature}, {seeds['hvp'][0]}={x}_v)\n"
            f"        _compressed.append(_Hv)\n"
            f"    _compressed = _sp_stacked(_compressed)\n"
        )
    sweep += f"    (H,) = _sp_decompress(_prepared, _compressed, ({x},))\n"
    banded = bands_function(hvp, table, backend)
    if banded is not None:
        prepare = _with_bands(prepare, repr(tuple(banded.offsets)))
        sweep = _band_branch(f"_hvp_{name}_bands({signature})", "_value, _grad", "(H,)", x, True) + sweep
    hess = (
        f"def hess_{name}({definition}):\n"
        f'    """Return ({name}({signature}), d{x}, H): the value, its gradient and its Hessian, a symmetric\n'
        f'    scipy.sparse.csr_array of shape ({x}.size, {x}.size): {_HOW[banded is not None]}, decompressed."""\n'
        f"{prepare}{sweep}"
        f"    return _value, _grad, H"
    )
    helpers = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in helper_names()}
    helpers |= {"_sp_prepare", "_sp_tangents", "_sp_decompress"} | ({"_sp_key"} if not writer.by_point else set())
    texts = [public, hess, private]
    if colors is not None:
        texts.append(colors.text)
        helpers |= colors.helpers | ({"_sp_fixed"} if colors.kept else set())
    else:
        helpers.add("_sp_stacked")
    if banded is not None:
        texts.append(banded.text)
        helpers |= banded.helpers | {"_sp_banded", "_sp_diagonals"}
    return texts, helpers, [] if writer.by_point else [f"{cache} = {{}}  # hess_{name}'s prepared patterns"]


def sparse_added(
    reverse: list[Tape] | None, primals: list[Tape], tapes: list[Tape], table: RuleTable, backend: Backend
) -> Added:
    """What ``--sparse`` adds to the module of ``tapes`` (the ``jvp_NAME`` functions, and the
    ``vjp_NAME`` of ``reverse`` after them; without ``reverse``, the ``hvp_NAME`` functions): the
    sparse ``jac_NAME`` of each function (``hess_NAME``), the helpers they call, their caches and
    the import of ``scipy.sparse`` (``module.write_module`` writes them, with the module's
    ``backend``)."""
    functions: list[str] = []
    constants: list[str] = []
    helpers: set[str] = set()
    for n, (primal, tape) in enumerate(zip(primals, tapes, strict=True)):
        if reverse is not None:
            made = sparse_functions(primal, tape, reverse[n], table, backend, _seeds(primal, tape, reverse[n]))
        else:
            made = hessian_functions(primal, tape, table, backend, _seeds(primal, tape))
        functions += made[0]
        constants += made[2]
        helpers |= made[1]
    return Added(
        functions, helpers, constants, ["from scipy import sparse  # --sparse: the derivatives are csr_arrays"]
    )
