"""Module-level statements the tool cannot fold, written into the generated module as they are.

``MASSES = np.ones(N)`` then ``MASSES[0] = 2.0``, ``A[0, 1] = dt``, ``f_elem += w * shape`` in a
loop over ``zip(XI, W)`` (arrays the module computed): such a statement changes names whose values
are expressions (``module_level``'s ``statics``), so it cannot be folded; it is read instead as a
helper function of the names it reads and changes, returning what it leaves in them::

    def <module>'12(MASSES):        # MASSES[0] = 2.0 (line 12)
        MASSES[0] = 2.0
        return (MASSES,)

and ``MASSES`` becomes item 0 of ``<module>'12(MASSES'1)`` (``MASSES'1`` its value before the
statement).  The function is lowered where a function reads the name, like any other
module-level expression, so the generated module runs the statement as Python ran it when the
module was imported.  A statement that defines, imports, returns or reads a name the tool refused
is not written so: its names are refused, located, as before.
"""

from __future__ import annotations

import ast
import copy

#: Statements a block cannot hold (they mean something else inside a function).
_FOREIGN = (
    ast.Global,
    ast.Nonlocal,
    ast.Return,
    ast.Yield,
    ast.YieldFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Await,
)

_RANDOM_MODULES = ("numpy.random", "cupy.random", "random")
#: Constructors of random generators: seeded when given a seed.
_GENERATORS = {"default_rng", "RandomState", "Generator", "SeedSequence", "PCG64", "MT19937", "Philox", "SFC64"}
#: Methods that change the object they are called on (a list's, a dict's, an array's, a set's).
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "update", "setdefault"}
_MUTATORS |= {"fill", "resize", "put", "shuffle", "popitem", "add", "discard"}


def foreign(stmt: ast.stmt) -> ast.AST | None:
    """The first construct of ``stmt`` that a function body would read otherwise, else None."""
    return next((n for n in ast.walk(stmt) if isinstance(n, _FOREIGN)), None)


def free_names(stmts: list[ast.stmt], bound: set[str], out: dict[str, None]) -> dict[str, None]:
    """The names ``stmts`` read before binding them (their values come from the module), in order."""
    for s in stmts:
        if isinstance(s, ast.For):
            _reads(s.iter, bound, out)
            bound |= {n.id for n in ast.walk(s.target) if isinstance(n, ast.Name)}
            free_names(s.body + s.orelse, bound, out)
        elif isinstance(s, ast.If | ast.While):
            _reads(s.test, bound, out)
            free_names(s.body + s.orelse, bound, out)
        elif isinstance(s, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if s.value is not None:
                _reads(s.value, bound, out)
            for t in targets:  # A[0] = v, A += v: A is read
                if isinstance(s, ast.AugAssign) or not isinstance(t, ast.Name | ast.Tuple | ast.List):
                    _reads(t, bound, out)
            bound |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        else:
            _reads(s, bound, out)
    return out


def _reads(node: ast.AST, bound: set[str], out: dict[str, None]) -> None:
    local = {n.id for c in ast.walk(node) if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
             if isinstance(n, ast.Name)}  # fmt: skip
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id not in bound and n.id not in local:
            out.setdefault(n.id, None)


def bound_on_every_path(stmt: ast.stmt) -> set[str]:
    """The names ``stmt`` binds whatever its tests decide (a loop's body may not run: none)."""
    if isinstance(stmt, ast.If):
        return _bound_in(stmt.body) & _bound_in(stmt.orelse)
    if isinstance(stmt, ast.For | ast.While):
        return set()
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _bound_in(body: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for s in body:
        out |= bound_on_every_path(s)
    return out


def block_function(
    name: str, stmt: ast.stmt, params: list[str], returned: list[str], lists: list[str] = ()
) -> ast.FunctionDef:
    """``def name(*params): stmt; return (*returned,)``, located at ``stmt``; each name of
    ``lists`` (a list the module folded, a tuple) made a list first: ``P = list(P)``."""
    ret = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in returned], ast.Load()))
    ast.copy_location(ret, stmt)
    ast.copy_location(ret.value, stmt)
    arguments = ast.arguments(
        posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[], kw_defaults=[], defaults=[]
    )
    made = [
        ast.Assign([ast.Name(n, ast.Store())], ast.Call(ast.Name("list", ast.Load()), [ast.Name(n, ast.Load())], []))
        for n in lists
    ]
    body = [*made, copy.deepcopy(stmt), ret]
    fn = ast.FunctionDef(name=name, args=arguments, body=body, decorator_list=[], returns=None)
    ast.copy_location(fn, stmt)
    fn.end_lineno, fn.end_col_offset = stmt.end_lineno, stmt.end_col_offset
    for node in ast.walk(fn):
        if not hasattr(node, "lineno") and isinstance(node, ast.expr | ast.stmt | ast.arg):
            ast.copy_location(node, stmt)
    return ast.fix_missing_locations(fn)


def block_call(name: str, params: list[str], stmt: ast.stmt) -> ast.Call:
    call = ast.Call(ast.Name(name, ast.Load()), [ast.Name(p, ast.Load()) for p in params], [])
    for node in ast.walk(call):
        ast.copy_location(node, stmt)
    return call


def _qualified(node: ast.expr, imports: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imports:
        return None
    return ".".join([imports[node.id], *reversed(parts)])


def _random_calls(node: ast.expr, imports: dict[str, str]):
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        name = _qualified(call.func, imports)
        if name and name.rpartition(".")[0] in _RANDOM_MODULES:
            yield call, name


def _is_seed(call: ast.Call) -> bool:
    seed = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "seed"), None)
    return seed is not None and not (isinstance(seed, ast.Constant) and seed.value is None)


def _unseeded(node: ast.expr, imports: dict[str, str]) -> str | None:
    """The name of a draw from a global or unseeded generator in ``node``, else None."""
    for call, name in _random_calls(node, imports):
        if name.rpartition(".")[2] not in _GENERATORS or not _is_seed(call):
            return name
    return None


def _seeded(node: ast.expr, imports: dict[str, str]) -> bool:
    return any(name.rpartition(".")[2] in _GENERATORS for _, name in _random_calls(node, imports))


def _stored(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _changed(node: ast.AST, functions: dict) -> dict[str, ast.AST]:
    """The module-level names a statement (or target) may bind or change, each at its first change."""
    found: dict[str, ast.AST] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            found.setdefault(n.id, n)
        elif isinstance(n, ast.Subscript | ast.Attribute) and isinstance(n.ctx, ast.Store | ast.Del):
            for name in _stored(n.value):
                found.setdefault(name, n)
        elif _mutates(n):
            found.setdefault(n.func.value.id, n)  # X.append(...), X.fill(0.0)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):  # shuffle(IDX): a call may change its arguments
            for a in n.value.args:
                if isinstance(a, ast.Name):
                    found.setdefault(a.id, a)
    return {name: n for name, n in found.items() if name not in functions}


def _mutates(n: ast.AST) -> bool:
    return (
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.attr in _MUTATORS
    )


def _item(whole: str, i: int, stmt: ast.stmt) -> ast.Subscript:
    node = ast.Subscript(ast.Name(whole, ast.Load()), ast.Constant(i), ast.Load())
    return ast.copy_location(node, stmt)


def _text(stmt: ast.stmt, source: str) -> str:
    text = ast.get_source_segment(source, stmt) if source else None
    return (text or ast.unparse(stmt)).splitlines()[0]


def save_state(level) -> tuple:
    """The state of ``level`` (a ``ModuleLevel``) before a top-level loop or ``if``, restored if it
    cannot be folded (it may have run part of the way: never a partial state)."""
    m = level.m
    tables = [copy.deepcopy(t) for t in (m.constants, m.arrays, m.statics, m.static_texts)]
    tables += [dict(t) for t in (m.refused, m.before, m.blocks)]
    sets = {k: set(v) for k, v in level.readers.items()}, {k: set(v) for k, v in level.shares.items()}
    return tables, sets, set(level.generators), list(level.draws), dict(level.through_calls)


def restore_state(level, saved: tuple) -> None:
    tables, (level.readers, level.shares), level.generators, level.draws, level.through_calls = saved
    m = level.m
    for table, old in zip((m.constants, m.arrays, m.statics, m.static_texts, m.refused, m.before, m.blocks), tables):
        table.clear()
        table.update(old)


def write_block(level, stmt: ast.stmt, why: str) -> None:
    """Read ``stmt`` (a top-level statement of the module ``level`` runs) as a block, or refuse
    the names it changes with ``why``."""
    m = level.m
    changed = _changed(stmt, m.functions)
    reads = list(free_names([stmt], set(), {}))
    unseeded = _unseeded(stmt, m.imports)
    generators = [n for n in reads if n in level.generators and _seeded(m.statics.get(n, ast.Pass()), m.imports)]
    if foreign(stmt) is not None or generators or any(n in m.refused for n in reads):  # (RNG.shuffle(IDX))
        return level.refuse_changes(stmt, why)
    if unseeded:
        advice = "pass it to the function as a parameter (data), or draw it from np.random.default_rng(seed)"
        return level.refuse_changes(
            stmt, f"is changed by an unseeded random draw ({unseeded}) at line {stmt.lineno}; {advice}"
        )
    # (a name it changes is passed in too: a loop may not run, an if may not bind it)
    params = [n for n in dict.fromkeys([*reads, *changed]) if level.known(n) and n not in m.refused]
    every = bound_on_every_path(stmt)
    returned = [n for n in changed if n in params or n in every]
    for name in changed:
        if name not in returned:
            level.refuse(name, stmt, f"is set inside the statement at line {stmt.lineno}, which may leave it unset")
    if not returned:
        return None
    key = f"<module>'{stmt.lineno}"
    lists = [n for n in params if isinstance(m.constants.get(n), tuple) and n in changed]  # (folded lists: tuples)
    m.blocks[key] = block_function(key, stmt, params, returned, lists)
    whole = level.hide("_".join(returned))
    text = _text(stmt, m.source)
    level.record(whole, block_call(key, params, stmt), stmt, text)
    for i, name in enumerate(returned):
        level.changed_in_place(name, stmt)
        level.bind_name(name, "expression", _item(whole, i, stmt), stmt, text)
    return None
