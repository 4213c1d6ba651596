"""Dicts of values: their methods (``d.items()``, ``d.copy()``, ...), and dicts carried through
loops and branches, one carried value per key.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts).  ``c = {"A": a, "B": b}`` updated in a loop (``c = {"A": c["A"] -
r, ...}``) is a Python dict of values of the tape: a loop or branch carries one value per key,
under the names ``c['A']``, ``c['B']`` (never identifiers, so never a user's name), and the dict
is rebuilt from them in the body and after the region.  A block that changes the dict's keys is
refused (YS034): the region's values are fixed when generating.
"""

from __future__ import annotations

import ast
import re

from ..errors import UserError
from ..ir.core import Key, Listed, Lit
from ..ir.printer import format_path
from .passthrough import _path_ast
from .state import LoweringState
from .values import _Unresolved

_MISSING = object()


class DictLowering:
    """Dicts of values carried through loops and branches (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo
        #: A dict of values carried through a loop or branch is carried as one value per key,
        #: under names ``d['k']`` (never an identifier): entry name -> (the dict's name, its key);
        #: and the dict's number of keys (``control.split_dicts``).
        self.dict_entries: dict[str, tuple[str, object]] = {}
        self.dict_sizes: dict[str, int] = {}
        #: ``p.items()`` of a dict parameter (``parameter_method``): the paths met in a first lowering
        #: (path -> the call), the keys the function reads of each by name (a second lowering's), and
        #: the keys read by name (paths).
        self.wanted_keys: dict[tuple, ast.Attribute] = {}
        self.known_keys: dict[tuple, list[str]] | None = None
        self.read_paths: list[tuple] = []

    def dict_method(self, base: object, name: str, node: ast.Call, env: dict) -> object:
        """``d.items()``, ``d.keys()``, ``d.values()``, ``d.get(k, default)`` of a dict of values."""
        items = base if isinstance(base, dict) else {k: Lit(v) for k, v in base.value.items()}
        args = [self.lo.expr(a, env) for a in node.args]
        if name in ("items", "keys", "values") and not args:
            pairs = [(Lit(k), v) for k, v in items.items()]
            return tuple(pairs) if name == "items" else tuple(p[0 if name == "keys" else 1] for p in pairs)
        if name == "copy" and not args:  # a new dict of the same values
            return dict(items)
        if name == "get" and 1 <= len(args) <= 2 and isinstance(args[0], Lit):
            return items.get(args[0].value, args[1] if len(args) == 2 else Lit(None))
        raise self.lo.error("YS020", f"the dict method {name}() has no rule", node)

    def copy_of(self, node: ast.expr, env: dict) -> dict | None:
        """``dict(TABLE)`` of a name holding a dict (or a module-level one): a new dict of its values."""
        value = self.lo.expr(node, env) if isinstance(node, ast.Name) else None
        if isinstance(value, Lit) and isinstance(value.value, dict):
            return {k: Lit(v) for k, v in value.value.items()}
        return dict(value) if isinstance(value, dict) else None

    def parameter_method(self, base: object, func: ast.Attribute, node: ast.Call, env: dict) -> object:
        """``p.items()``, ``p.keys()``, ``p.values()`` of a dict parameter ``p``: the keys the function
        reads of ``p`` by name (``p["ec50"]``, known after a first lowering: ``lower.lower``), the
        generated code checking first that ``p`` has those keys, in that order (a dict's order is its
        items' order); where it reads none, ``p`` is an input tree (``input_tree``)."""
        if func.attr not in ("items", "keys", "values") or node.args or node.keywords:
            raise self.parameter_keys(base, func)
        if self.known_keys is None:  # the first lowering: read as empty, the tape discarded
            self.wanted_keys.setdefault(base.path, func)
            return self.dict_method({}, func.attr, node, env)
        keys = self.known_keys.get(base.path)
        if not keys:
            return self.input_tree(base, func.attr)
        items = {k: _Unresolved((*base.path, Key(k))) for k in keys}
        return self.dict_method(items, func.attr, node, env)

    def is_tree(self, value: object) -> bool:
        """``value`` is a dict parameter read as an input tree (``input_tree``): its ``.items()``
        are read and none of its keys by name."""
        known = self.known_keys
        return isinstance(value, _Unresolved) and known is not None and known.get(value.path) == []

    def input_tree(self, base: _Unresolved, method: str) -> object:
        """``p.values()``, ``p.keys()``, ``p.items()`` of a dict parameter none of whose keys the
        function reads by name: ``p`` is an input tree, the list of its values in the dict's order
        (``list(p.values())``, an input whose length is known at run time, as a list parameter's),
        its keys a static list beside it; the gradient is the dict ``dict(zip(p, grads))``."""
        self.lo.object_paths.add(base.path)  # (its gradient a dict: an object's)
        values = _Unresolved((*base.path, Listed("values")))
        keys = _Unresolved((*base.path, Listed("keys")))
        if method == "items":
            return DictItems(keys, values)
        return values if method == "values" else keys

    def check_keys(self, tape, wanted: dict[tuple, ast.Attribute]) -> None:
        """Put first in ``tape`` the check, for each dict parameter whose items are read, that it has
        the keys the function reads of it by name, in that order (an ``effect``: the parameter as the
        generated function has it)."""
        for path, func in reversed(wanted.items()):
            if not self.known_keys.get(path):
                continue  # (its .items() not lowered the second time: nothing to check)
            check = _keys_check(_path_ast(path), self.known_keys[path], format_path(path))
            tape.add_eqn("effect", [], {"code": ast.unparse(check), "modules": ()}, self.lo.span_at(func))
            tape.eqns.insert(0, tape.eqns.pop())

    def keys_read(self) -> dict[tuple, list[str]]:
        """For each path of ``wanted_keys``, the keys the function read of it by name, in the order read."""
        out: dict[tuple, list[str]] = {}
        for path in self.wanted_keys:
            n = len(path)
            keys = [p[n].name for p in self.read_paths if len(p) > n and p[:n] == path and isinstance(p[n], Key)]
            out[path] = list(dict.fromkeys(keys))
        return out

    def parameter_keys(self, base: object, func: ast.Attribute) -> UserError:
        """The refusal of ``p.get(k)`` (``update``, ``pop``, ``setdefault``, ``items`` with arguments)
        of a dict parameter: which keys it has is known only when the function runs."""
        shown = format_path(base.path)
        return self.lo.error(
            "YS041",
            f"{shown}.{func.attr}(...) of a dict parameter: which keys it has is known only at run time; read "
            f"its entries by key ({shown}['a']), or iterate over all of them (for k, v in {shown}.items())",
            func,
        )

    def tree_values(self, base: _Unresolved, node: ast.AST) -> object:
        """The list of the values of ``base``, a dict parameter read as an input tree (``len(p)``)."""
        return self.lo.as_array(self.input_tree(base, "values"), node)

    def items_loop(self, items: DictItems, target: ast.expr, it: ast.expr) -> tuple:
        """``for k, v in p.items()`` of a dict parameter read as an input tree, as ``control.iteration``
        says a loop: over the rows of its keys and of its values, zipped (each a list of a length
        known at run time)."""
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            raise self.lo.error("YS011", "write 'for key, value in p.items()'", target)
        rows = (self.lo.as_array(items.keys, it), self.lo.as_array(items.values, it))
        stop = self.lo.calls.call_primitive("builtins.len", [rows[1]], {}, it)
        return ("range", Lit(0), stop, Lit(1), rows, None)

    def split_dicts(self, names: list[str], env: dict) -> list[str]:
        """``names`` with each name that holds a dict of values replaced by its entries' names, the
        entries set in ``env`` (``c = {"A": a, "B": b}`` carried through a loop: ``c['A']``, ``c['B']``)."""
        out = []
        for name in names:
            value = env.get(name)
            if not isinstance(value, dict):
                out.append(name)
                continue
            self.dict_sizes[name] = len(value)
            for key, item in value.items():
                entry = f"{name}[{key!r}]"
                self.dict_entries[entry] = (name, key)
                env[entry] = item
                out.append(entry)
        return out

    def join_dicts(self, env: dict, names: list[str]) -> None:
        """Rebuild in ``env`` the dicts whose entries ``names`` holds (``split_dicts``)."""
        for name in names:
            if name in self.dict_entries:
                base, key = self.dict_entries[name]
                if not isinstance(env.get(base), dict) or env[base].get(key, _MISSING) is not env[name]:
                    env[base] = dict(env[base]) if isinstance(env.get(base), dict) else {}
                    env[base][key] = env[name]

    def sync_dicts(self, env: dict, names: list[str], node: ast.AST) -> None:
        """Set the entries ``d['k']`` of ``names`` (``split_dicts``) from the dict ``d`` holds now."""
        for name in names:
            if name in self.dict_entries:
                base, key = self.dict_entries[name]
                current = env.get(base)
                if not isinstance(current, dict) or key not in current or len(current) != self.dict_sizes[base]:
                    raise self.lo.error(
                        "YS034",
                        f"the dict {base} has other keys after this block: keep its keys in a loop or branch",
                        node,
                    )
                env[name] = current[key]


class DictItems:
    """``p.items()`` of a dict parameter read as an input tree (``DictLowering.input_tree``): its
    keys and its values, two lists of a length known at run time, iterated together."""

    def __init__(self, keys: _Unresolved, values: _Unresolved):
        self.keys, self.values = keys, values


def _hint(name: str) -> str:
    """A name for the generated code: ``c_A`` for the entry ``c['A']`` of a dict."""
    return name if name.isidentifier() else "_".join(re.findall(r"\w+", name))


def _keys_check(value: ast.expr, keys: list[str], shown: str) -> ast.If:
    """``if list(p) != [keys]: raise ValueError(...)``."""
    message = (
        f"{shown} must have the keys {', '.join(map(repr, keys))} in this order (those the function reads "
        f"by name: the gradient iterates over them)"
    )
    test = ast.Compare(
        ast.Call(ast.Name("list", ast.Load()), [value], []),
        [ast.NotEq()],
        [ast.List([ast.Constant(k) for k in keys], ast.Load())],
    )
    error = ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], []), None)
    node = ast.If(test, [error], [])
    return node
