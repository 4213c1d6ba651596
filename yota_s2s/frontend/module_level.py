"""Module-level statements run in order: the value each module-level name holds when a function reads it.

A module-level name's value is what the module's statements leave in it, never its first
binding: ``POWERS = []`` then ``for p in range(1, 4): POWERS.append(p)`` is ``(1, 2, 3)``.
``ModuleLevel.run`` reads the statements in order, as Python runs them when the module is
imported, and records on the ``fence.Module``:

- what it can fold without running the file (``constants.value``: numbers, lists, dicts,
  comprehensions, loops over them, ``if`` on them, ``.append``/``.extend``/``D["k"] = v``) as
  ``constants``, and ``np.array([...])`` of them as ``arrays``;
- any other value as an expression in ``statics``, lowered where a function reads the name
  (``names.module_static``): ``W = np.ones(3); W *= 4.0`` is ``W = W'1 * 4.0`` where ``W'1``
  is the hidden name of the first binding (a name that is rebound keeps, for the expressions
  that read it earlier, the value they read: they are rewritten to its hidden name);
  ``XI, W = np.polynomial.legendre.leggauss(3)`` is one hidden value and an item of it each;
  draws of a seeded generator (``RNG = np.random.default_rng(0)``) are lowered in the module's
  order (``before``), so the function repeats the draws the module made;
- every name whose value it cannot follow as ``refused``: the statement and why, raised
  (YS048) only where a function reads the name, never a partial state: a name changed by a
  statement it does not fold (an item of an array written, a call that may change its
  argument, a loop over values it does not know), under ``if __name__ == "__main__":`` (the
  generated module is imported, where that block does not run), or an unseeded random draw
  (``np.random.randn(5, 2)``: a standalone module cannot repeat it).

    >>> import ast
    >>> from types import SimpleNamespace as NS
    >>> m = NS(functions={}, classes={}, imports={}, constants={}, arrays={}, statics={},
    ...        static_texts={}, refused={}, before={}, blocks={}, source="")
    >>> ModuleLevel(m).run(ast.parse("P = []\\nfor p in range(1, 4):\\n    P.append(p)\\nD = {}\\nD['k'] = 3.0").body)
    >>> m.constants["P"], m.constants["D"]
    ((1, 2, 3), {'k': 3.0})
"""

from __future__ import annotations

import ast
import copy

from .constants import LIMIT, NotConstant, array_value, bind
from .constants import value as constant_value
from .module_blocks import (
    _changed,
    _item,
    _qualified,
    _seeded,
    _stored,
    _text,
    _unseeded,
    restore_state,
    save_state,
    write_block,
)

#: Calls of a module-level name's method folded on a list (a tuple here) or a dict.
_LIST_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort"}
_DICT_METHODS = {"update", "setdefault", "pop", "clear"}
#: Library calls whose result may share their argument's memory (a view): a change of the
#: argument in place changes them too.
_VIEWS = {"asarray", "reshape", "ravel", "transpose", "squeeze", "broadcast_to", "atleast_1d", "atleast_2d"}
_MAIN = 'if __name__ == "__main__":'
_ADVICE = "compute it in the function, or pass it to the function as a parameter"


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class ModuleLevel:
    """Runs a module's statements on what it can fold (see the module docstring)."""

    def __init__(self, module):
        self.m = module
        self.steps = 0
        self.hidden = 0
        self.readers: dict[str, set[str]] = {}  # name -> static keys whose expression reads it
        self.shares: dict[str, set[str]] = {}  # name -> names holding (part of) its object
        self.generators: set[str] = set()  # names bound to a seeded generator
        self.draws: list[str] = []  # static keys reading a generator, in the module's order
        self.depth = 0  # loops and ifs being run
        #: static key -> (the module-level names the file's functions it calls read, the line, a function)
        self.through_calls: dict[str, tuple[set[str], int, str]] = {}

    def run(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.steps += 1
            if self.depth and self.steps > LIMIT:
                raise NotConstant  # (a loop running too long: the loop's names are refused)
            self.statement(stmt)

    # ---- statements -------------------------------------------------------------------------

    def statement(self, node: ast.stmt) -> None:
        m = self.m
        if isinstance(node, ast.FunctionDef):
            m.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            m.classes[node.name] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            _imports(node, m.imports)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Lambda):
            target = node.targets[0]
            if isinstance(target, ast.Name):
                m.functions[target.id] = lambda_function(target.id, node.value)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            if node.value is not None:
                self.assign(node.targets if isinstance(node, ast.Assign) else [node.target], node.value, node)
        elif isinstance(node, ast.AugAssign):
            self.augmented(node)
        elif isinstance(node, ast.Expr):
            self.expression(node)
        elif isinstance(node, ast.For | ast.While | ast.If):
            self.control(node)
        elif isinstance(node, ast.Break | ast.Continue):
            raise _Break if isinstance(node, ast.Break) else _Continue
        elif not isinstance(node, ast.Pass | ast.Assert | ast.AsyncFunctionDef):
            self.refuse_changes(node, "is changed by a statement the tool does not follow")

    def control(self, node: ast.For | ast.While | ast.If) -> None:
        test = node.iter if isinstance(node, ast.For) else node.test
        if isinstance(node, ast.If) and any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(test)):
            # (not run: the generated module is imported; a name it changes is refused where read)
            return self.refuse_changes(
                node,
                f"is changed under {_MAIN} (line {node.lineno}), which does not run where the generated module is imported; set it before that block, or pass it to the function as a parameter",
            )
        saved = save_state(self) if not self.depth else None
        self.depth += 1
        try:
            if isinstance(node, ast.If):
                self.run(node.body if self.constant(node.test) else node.orelse)
            elif isinstance(node, ast.For):
                self.loop(node)
            else:
                while self.constant(node.test):
                    if self.iterate(node.body):
                        break
                else:
                    self.run(node.orelse)
        except NotConstant:
            if saved is None:
                raise  # (a loop or if in a loop being folded: the outermost statement is written whole)
            restore_state(self, saved)
            what = "a loop" if not isinstance(node, ast.If) else "an `if`"
            write_block(self, node, f"is changed in {what} over values not known when generating")
        finally:
            self.depth -= 1
            if not self.depth:
                self.steps = 0

    def loop(self, node: ast.For) -> None:
        for item in self.constant(node.iter):
            for name in _stored(node.target):
                self.rebind(name)
            bind(node.target, item, self.m.constants)
            if self.iterate(node.body):
                return
        self.run(node.orelse)

    def iterate(self, body: list[ast.stmt]) -> bool:
        """Run one pass of a loop's body; True at a ``break``."""
        try:
            self.run(body)
        except _Break:
            return True
        except _Continue:
            pass
        return False

    def assign(self, targets: list[ast.expr], value: ast.expr, stmt: ast.stmt) -> None:
        plain = len(targets) == 1 and isinstance(targets[0], ast.Name)  # (its comment: NAME = unparsed value)
        text = "" if plain else _text(stmt, self.m.source)
        try:
            folded: object = _tuples(self.constant(value))
            kind = "constant"
        except NotConstant:
            items = array_value(value, self.m.constants, self.m.imports)
            folded, kind = (items, "array") if items is not None else (value, "expression")
        for target in targets:
            if isinstance(target, ast.Name):
                self.bind_name(target.id, kind, folded, stmt, text)
            elif isinstance(target, ast.Tuple | ast.List) and kind == "constant":
                self.unpack_constant(target, folded, stmt, text)
            elif isinstance(target, ast.Tuple | ast.List) and all(isinstance(t, ast.Name) for t in target.elts):
                self.unpack(target.elts, kind, folded, stmt, text)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                # D["b"] = np.array([0.25, -0.5]): the array as the expression written
                item_kind, item = ("expression", value) if kind == "array" else (kind, folded)
                self.set_item(target.value.id, target.slice, item_kind, item, stmt, text)
            else:  # D["k"][0] = 3.0, obj.attr = v: the statement as it is
                self.unfollowed(stmt, "is written in a way the tool does not follow")

    def unpack_constant(self, target: ast.expr, folded: object, stmt: ast.stmt, text: str) -> None:
        """``A, (B, C) = 1.0, (2, [0, 1])``."""
        if isinstance(target, ast.Name):
            return self.bind_name(target.id, "constant", folded, stmt, text)
        if not (isinstance(target, ast.Tuple | ast.List) and isinstance(folded, tuple)):
            return self.refuse_changes(target, "is unpacked from a value of another length")
        if len(target.elts) != len(folded):
            return self.refuse_changes(target, "is unpacked from a value of another length")
        for t, item in zip(target.elts, folded, strict=True):
            self.unpack_constant(t, item, stmt, text)

    def unpack(self, targets: list[ast.Name], kind: str, folded: object, stmt: ast.stmt, text: str) -> None:
        names = [t.id for t in targets]
        if kind == "expression" and isinstance(folded, ast.Tuple | ast.List) and len(folded.elts) == len(names):
            for name, item in zip(names, folded.elts, strict=True):
                self.bind_name(name, "expression", item, stmt, text)
        elif kind == "expression":  # XI, W = np.polynomial.legendre.leggauss(3): one value, then its items
            whole = self.hide("_".join(names))
            self.record(whole, folded, stmt, text)
            for i, name in enumerate(names):
                self.bind_name(name, "expression", _item(whole, i, stmt), stmt, text)
        else:
            self.refuse_changes(stmt, "is unpacked from a value of another length")

    def bind_name(self, name: str, kind: str, folded: object, stmt: ast.stmt, text: str) -> None:
        if kind == "expression" and self.known(name) and _reads(folded, name):
            if name in self.m.refused:  # X = np.array(X) of an X refused: refused still
                return
            old = self.hide(name)  # W = W * 2.0, X = np.array(X): the value it had, under a hidden name
            self.move(name, old)
            folded = copy.deepcopy(folded)
            for n in ast.walk(folded):
                if isinstance(n, ast.Name) and n.id == name:
                    n.id = old
            text = text or _text(stmt, self.m.source)
        self.rebind(name)
        self.shares.pop(name, None)
        for other in _held(folded if kind == "expression" else stmt.value, self.m.imports):
            self.shares.setdefault(other, set()).add(name)
        if kind == "constant":
            if isinstance(folded, int | float | complex | bool | tuple | str | dict) or folded is None:
                self.m.constants[name] = folded
            else:
                self.record(name, stmt.value, stmt, text)
        elif kind == "array":
            self.m.arrays[name] = folded
        else:
            self.record(name, folded, stmt, text)

    def augmented(self, node: ast.AugAssign) -> None:
        target, text = node.target, _text(node, self.m.source)
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and _holds_dict(self.m, target.value.id)
        ):
            # D["k"] += v: D["k"] = D["k"] + v (a dict's entry is rebound, as Python does)
            read = ast.Subscript(copy.deepcopy(target.value), copy.deepcopy(target.slice), ast.Load())
            value = ast.copy_location(ast.BinOp(read, node.op, node.value), node)
            return self.assign([target], ast.fix_missing_locations(value), node)
        if not isinstance(target, ast.Name):
            return self.unfollowed(node, "is changed in place in a way the tool does not follow")
        name, m = target.id, self.m
        if name in m.constants:
            try:
                new = ast.BinOp(ast.Name(name, ast.Load()), node.op, node.value)
                return self.bind_name(name, "constant", _tuples(self.constant(new)), node, text)
            except NotConstant:
                if isinstance(m.constants[name], tuple | dict):
                    return self.refuse_changes(target, "is extended in place by a value not known when generating")
        if name not in m.constants and name not in m.arrays and name not in m.statics:
            return self.refuse_changes(target, "is changed in place in a way the tool does not follow")
        self.changed_in_place(name, node)  # W *= 4.0: W = W'1 * 4.0, the first value hidden
        old = self.hide(name)
        self.move(name, old)
        value = copy.deepcopy(node.value)  # W *= 1 / np.max(W): the W it reads is W'1 too
        for n in ast.walk(value):
            if isinstance(n, ast.Name) and n.id == name:
                n.id = old
        self.record(name, ast.BinOp(ast.Name(old, ast.Load()), node.op, value), node, text)

    def expression(self, node: ast.Expr) -> None:
        call = node.value
        if not isinstance(call, ast.Call):
            return
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and self.known(func.value.id):
            return self.method(func.value.id, func.attr, call, node)
        if isinstance(func, ast.Name) and func.id in self.m.functions:  # setup(): its global writes
            written = [n for s in ast.walk(self.m.functions[func.id]) if isinstance(s, ast.Global) for n in s.names]
            for name in written:
                self.refuse(name, node, f"is written by {func.id}() (global) at line {node.lineno}")
        if isinstance(func, ast.Name) and func.id in ("print", "len", "repr", "str", "format"):
            return
        args = [*call.args, *(k.value for k in call.keywords)]  # np.random.shuffle(IDX) changes IDX
        if any(isinstance(arg, ast.Name) and self.known(arg.id) for arg in args):
            self.unfollowed(node, f"is passed to a call at line {node.lineno} that may change it")

    def method(self, name: str, attr: str, call: ast.Call, stmt: ast.stmt) -> None:
        m, text = self.m, _text(stmt, self.m.source)
        value = m.constants.get(name)
        methods = _LIST_METHODS if isinstance(value, tuple) else _DICT_METHODS if isinstance(value, dict) else ()
        if attr in methods:
            try:
                args = [self.constant(a) for a in call.args]
                if call.keywords:
                    raise NotConstant
                new = _folded_method(value, attr, [_tuples(a) for a in args])
            except NotConstant:
                new = None
            if new is not None:
                self.changed_in_place(name, stmt)
                return self.bind_name(name, "constant", new, stmt, text)
            if isinstance(value, tuple) and attr in ("append", "extend") and not call.keywords:
                self.changed_in_place(name, stmt)  # a list of arrays: its display, extended
                display = ast.List([ast.Constant(v) for v in value], ast.Load())
                return self.extend_display(name, display, attr, call, stmt, text)
        display = m.statics.get(name)
        if isinstance(display, ast.List) and attr in ("append", "extend") and not call.keywords:
            self.changed_in_place(name, stmt)
            return self.extend_display(name, display, attr, call, stmt, text)
        self.unfollowed(stmt, f"is changed by .{attr}() at line {stmt.lineno}, which the tool does not follow")

    def extend_display(
        self, name: str, display: ast.List, attr: str, call: ast.Call, stmt: ast.stmt, text: str
    ) -> None:
        arg = call.args[0] if len(call.args) == 1 else None
        if attr == "append" and arg is not None:
            new = [arg]
        elif isinstance(arg, ast.List | ast.Tuple) and not any(isinstance(e, ast.Starred) for e in arg.elts):
            new = list(arg.elts)
        else:
            return self.refuse(
                name, stmt, f"is changed by .{attr}() at line {stmt.lineno}, which the tool does not follow"
            )
        self.move(name, self.hide(name))
        elts = [*(copy.deepcopy(e) for e in display.elts), *new]
        self.record(name, ast.List(elts, ast.Load()), stmt, text)

    def set_item(self, name: str, key: ast.expr, kind: str, folded: object, stmt: ast.stmt, text: str) -> None:
        m = self.m
        base = m.constants.get(name)
        try:
            index = _tuples(self.constant(key))
        except NotConstant:
            return self.unfollowed(
                stmt, f"has an item written at line {stmt.lineno} at an index not known when generating"
            )
        if isinstance(base, dict | tuple) and kind == "constant":
            try:
                new = dict(base) if isinstance(base, dict) else list(base)
                new[index] = folded
            except (TypeError, IndexError):
                return self.refuse(name, stmt, f"has an item written at line {stmt.lineno} that the list does not have")
            self.changed_in_place(name, stmt)
            return self.bind_name(name, "constant", new if isinstance(new, dict) else tuple(new), stmt, text)
        display = _dict_display(base, m.statics.get(name))
        if display is not None and isinstance(index, str | int | float | bool):
            # D["W"] = np.ones(3), D["W"] = D["W"] * 2.0: a dict display, the entry replaced
            self.changed_in_place(name, stmt)
            old = self.hide(name)
            self.move(name, old)
            return self.record(name, _with_entry(display, index, folded, kind, name, old), stmt, text)
        self.unfollowed(stmt, f"has an item written at line {stmt.lineno}, which the tool does not follow")

    # ---- bindings ---------------------------------------------------------------------------

    def record(self, key: str, node: ast.expr, stmt: ast.stmt, text: str) -> None:
        """Bind ``key`` to the expression ``node``, lowered where a function reads it."""
        node = copy.deepcopy(node)
        if not hasattr(node, "lineno"):  # (a value the tool wrote: W'1 * 4.0, a display extended)
            ast.copy_location(node, stmt)
        ast.fix_missing_locations(node)
        unseeded = _unseeded(node, self.m.imports)
        if unseeded:
            why = (
                f"is an unseeded random draw ({unseeded}) at line {stmt.lineno}: the generated module cannot repeat it"
            )
            advice = "pass it to the function as a parameter (data), or draw it from np.random.default_rng(seed)"
            return self.refuse(key, stmt, f"{why}; {advice}")
        self.m.statics[key] = node
        self.m.static_texts[key] = text
        read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for name in read:
            self.readers.setdefault(name, set()).add(key)
        called = _called_functions(node, self.m)
        if called:  # B = helper(): helper reads SCALE as it is now, not as a later statement leaves it
            self.through_calls[key] = (_global_reads(called, self.m), stmt.lineno, called[0].name)
        if _seeded(node, self.m.imports) or read & self.generators:
            self.generators.add(key)
            self.m.before[key] = tuple(self.draws)
            self.draws.append(key)

    def rebind(self, name: str) -> None:
        """Before ``name`` is bound again: the expressions that read it keep its value, hidden."""
        m = self.m
        for key, (reads, line, fn) in list(self.through_calls.items()):
            if name in reads and key in m.statics and key != name:
                del self.through_calls[key]
                why = f"is computed at line {line} by {fn}(), which reads {name!r}, changed after that line"
                self.refuse(key, m.statics[key], f"{why} (the generated module would read the new value)")
        m.refused.pop(name, None)
        if self.readers.get(name) and any(name in t for t in (m.constants, m.arrays, m.statics)):
            self.move(name, self.hide(name))
        for table in (m.constants, m.arrays, m.statics, m.static_texts, m.before):
            table.pop(name, None)
        self.generators.discard(name)

    def move(self, name: str, hidden: str) -> None:
        """Give ``name``'s value the name ``hidden``; the expressions that read it read ``hidden``."""
        m = self.m
        for table in (m.constants, m.arrays, m.statics, m.static_texts, m.before):
            if name in table:
                table[hidden] = table.pop(name)
        if name in self.generators:
            self.generators.add(hidden)
            self.draws = [hidden if d == name else d for d in self.draws]
            for key, keys in m.before.items():
                m.before[key] = tuple(hidden if d == name else d for d in keys)
        readers = self.readers.pop(name, set())
        for key in readers:
            if key in m.statics and not m.static_texts.get(key):  # (its comment, before the renaming)
                shown = key.partition("'")[0]
                m.static_texts[key] = f"{shown} = {ast.unparse(m.statics[key])}"
            for n in ast.walk(m.statics.get(key, ast.Pass())):
                if isinstance(n, ast.Name) and n.id == name:
                    n.id = hidden
        self.readers[hidden] = readers

    def hide(self, name: str) -> str:
        self.hidden += 1
        return f"{name}'{self.hidden}"

    def changed_in_place(self, name: str, stmt: ast.stmt) -> None:
        """``name``'s object changes: the names that hold it (``V = W``) are refused."""
        for other in self.shares.pop(name, set()):
            if other != name and self.known(other):
                self.refuse(
                    other, stmt, f"holds {name}, which line {stmt.lineno} changes in place (take a copy: {name}.copy())"
                )

    def unfollowed(self, stmt: ast.stmt, why: str) -> None:
        """``stmt`` changes names in a way not folded: in a loop being folded, the loop is written
        whole (``NotConstant``); else the statement itself (``module_blocks``)."""
        if self.depth:
            raise NotConstant
        write_block(self, stmt, why)

    def refuse_changes(self, node: ast.AST, why: str) -> None:
        for name, at in sorted(_changed(node, self.m.functions).items()):
            self.refuse(name, at, why)

    def refuse(self, name: str, node: ast.AST, why: str) -> None:
        if any(name in t for t in (self.m.imports, self.m.functions, self.m.classes)):
            return  # (files.os.fsync = fsync: a library or a function, not a value of this module)
        self.rebind(name)
        advice = "" if "parameter" in why else f"; {_ADVICE}"
        shown = name.partition("'")[0]
        self.m.refused[name] = (node, f"module-level name {shown!r} {why}{advice}")

    def known(self, name: str) -> bool:
        m = self.m
        return any(name in t for t in (m.constants, m.arrays, m.statics, m.refused))

    def constant(self, node: ast.expr) -> object:
        if any(isinstance(n, ast.Name) and n.id in self.m.refused for n in ast.walk(node)):
            raise NotConstant
        return constant_value(node, self.m.constants, self.m.imports)


# ---- helpers --------------------------------------------------------------------------------


def _called_functions(node: ast.AST, m) -> list[ast.FunctionDef]:
    """The file's functions a call in ``node`` reaches (through module-level blocks too), the first first."""
    found: dict[str, ast.FunctionDef] = {}
    todo = [node]
    while todo:
        for n in ast.walk(todo.pop()):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in found:
                fn = m.functions.get(n.func.id) or m.blocks.get(n.func.id)
                if fn is not None:
                    found[n.func.id] = fn
                    todo.append(fn)
    return [f for n, f in found.items() if n not in m.blocks]  # (a block's reads are its arguments)


def _global_reads(fns: list[ast.FunctionDef], m) -> set[str]:
    """The module-level names ``fns`` read (not their parameters or the names they assign)."""
    out: set[str] = set()
    for fn in fns:
        args = fn.args
        local = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
        local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        out |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - local
    return out


def _reads(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(node))


def _folded_method(value: object, attr: str, args: list) -> object:
    try:
        if isinstance(value, dict):
            new = dict(value)
            getattr(new, attr)(*args)
            return new
        items = list(value)
        getattr(items, attr)(*args)
        return tuple(items)
    except (TypeError, ValueError, IndexError, KeyError):
        raise NotConstant from None


def _imports(node: ast.Import | ast.ImportFrom, imports: dict[str, str]) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                imports[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                imports[top] = top
    elif node.module or node.level:  # from .physics import energy: a relative name keeps its leading dots
        base = "." * node.level + (node.module or "")
        for alias in node.names:
            sep = "" if base.endswith(".") else "."
            imports[alias.asname or alias.name] = f"{base}{sep}{alias.name}"


def _held(node: ast.expr | None, imports: dict[str, str]) -> set[str]:
    """Names whose object the value of ``node`` may hold: ``W``, ``[W, 1]``, ``W[0]``, ``W.T``,
    ``np.asarray(W)`` (a new value, ``W * 2`` or ``np.sin(W)``, holds none)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.List | ast.Tuple):
        return set().union(*(_held(e, imports) for e in node.elts))
    if isinstance(node, ast.Dict):
        return set().union(*(_held(v, imports) for v in node.values))
    if isinstance(node, ast.Subscript | ast.Attribute | ast.Starred):
        return _held(node.value, imports)
    if isinstance(node, ast.Call):
        name = _qualified(node.func, imports) or ""
        if isinstance(node.func, ast.Attribute) and not name:  # W.reshape(3, 1)
            return _held(node.func.value, imports)
        if name.rpartition(".")[2] in _VIEWS:
            return set().union(*(_held(a, imports) for a in node.args))
    return set()


def _holds_dict(m, name: str) -> bool:
    """``name`` holds a dict the tool follows (folded, or a display of expressions)."""
    return isinstance(m.constants.get(name), dict) or isinstance(m.statics.get(name), ast.Dict)


def _dict_display(base: object, static: ast.expr | None) -> ast.Dict | None:
    """A dict a module-level name holds (folded ``base``, or the display ``static``) as a new
    display of its entries' expressions; None for any other value."""
    if isinstance(static, ast.Dict) and all(isinstance(k, ast.Constant) for k in static.keys):
        return copy.deepcopy(static)
    if isinstance(base, dict):
        return ast.Dict([ast.Constant(k) for k in base], [_literal(v) for v in base.values()])
    return None


def _with_entry(display: ast.Dict, key: object, folded: object, kind: str, name: str, old: str) -> ast.Dict:
    """``display`` with the entry ``key`` set to ``folded`` (a constant, or an expression whose reads
    of the dict ``name`` read it as it was, ``old``)."""
    value = copy.deepcopy(_literal(folded) if kind == "constant" else folded)
    for n in ast.walk(value):
        if isinstance(n, ast.Name) and n.id == name:
            n.id = old
    keys = [k.value for k in display.keys]
    if key in keys:
        display.values[keys.index(key)] = value
    else:
        display.keys.append(ast.Constant(key))
        display.values.append(value)
    return display


def _literal(value: object) -> ast.expr:
    if isinstance(value, dict):
        return ast.Dict([ast.Constant(k) for k in value], [_literal(v) for v in value.values()])
    return ast.Constant(value)


def _tuples(value: object) -> object:
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    return value


def lambda_function(name: str, node: ast.Lambda) -> ast.FunctionDef:
    """``name = lambda a: expr`` as the helper ``def name(a): return expr`` (inlined the same way)."""
    body = node.body
    # the return spans the line from its start, so comments show "sq = lambda t: t * t"
    ret = ast.Return(body, lineno=node.lineno, col_offset=0)
    ret.end_lineno, ret.end_col_offset = body.end_lineno, body.end_col_offset
    fn = ast.FunctionDef(name=name, args=node.args, body=[ret], decorator_list=[], returns=None)
    fn.lineno, fn.col_offset = node.lineno, node.col_offset
    fn.end_lineno, fn.end_col_offset = node.end_lineno, node.end_col_offset
    fn.is_lambda = True
    return fn
