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
from ..ir.core import Lit
from ..ir.printer import format_path
from .state import LoweringState

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

    def parameter_keys(self, base: object, func: ast.Attribute) -> UserError:
        """The refusal of ``p.items()`` (``keys``, ``values``, ...) of a dict parameter: its keys are
        known only when the function runs."""
        shown = format_path(base.path)
        return self.lo.error(
            "YS041",
            f"{shown}.{func.attr}(): the keys of a dict parameter are known only at run time; read its "
            f"entries by key ({shown}['a']), or loop over keys written in the source "
            f"(for k in ('a', 'b'): ... {shown}[k] ...)",
            func,
        )

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


def _hint(name: str) -> str:
    """A name for the generated code: ``c_A`` for the entry ``c['A']`` of a dict."""
    return name if name.isidentifier() else "_".join(re.findall(r"\w+", name))
