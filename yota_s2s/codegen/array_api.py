"""The Python array API standard as the ``array-api`` target knows it: its names and their calls.

Generating for ``--target array-api`` needs no array library, so the standard's API is a
checked-in table, ``array_api.json`` beside this module: each public name of the main
namespace and of the ``linalg`` extension of the standard (version ``VERSION``), as
``xp.NAME`` (``xp.linalg.inv``), mapped to its call signature with every default written
``...`` (a name that is not called, ``xp.float64``, maps to ``null``).  It is written from
``array-api-strict`` (the standard's reference namespace, set to ``VERSION``) by
``python -m yota_s2s.codegen.array_api --write`` and compared with it by ``--check`` (and by
``tests/test_array_api.py``).  The checks are ``cupy_api``'s: a name the table lacks, a keyword
a function does not take, or arguments it cannot bind, is a located YS040 at generation time.

NumPy's names for the standard's functions (``np.power`` is ``xp.pow``) are in ``SPELLINGS``.

    >>> api = load()
    >>> api.problem("xp.einsum", 2, [])
    'the array API standard 2024.12 has no xp.einsum'
    >>> api.problem("xp.squeeze", 1, []) is not None  # axis is required
    True
    >>> api.problem("xp.sum", 1, ["axis", "keepdims"]) is None
    True
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import sys
from pathlib import Path

from .cupy_api import CupyApi, signature_text, table_command

#: The version of the standard the table records (array-api-compat wraps NumPy, PyTorch, JAX
#: and Dask to it).
VERSION = "2024.12"

#: The namespaces recorded: the main one and the linalg extension.
MODULES = ("", "linalg")

TABLE = Path(__file__).with_name("array_api.json")

#: NumPy's name of a function -> the standard's (the same function, the same arguments).
SPELLINGS = {
    "absolute": "abs",
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctan2": "atan2",
    "arctanh": "atanh",
    "concatenate": "concat",
    "power": "pow",
    "true_divide": "divide",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
}


@functools.cache
def load() -> CupyApi:
    """The checked-in table."""
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    return CupyApi(data["version"], data["names"], library="the array API standard")


def describe() -> dict:
    """The table of the installed ``array-api-strict`` set to ``VERSION`` (what ``--write`` writes)."""
    import array_api_strict

    array_api_strict.set_array_api_strict_flags(api_version=VERSION)
    names: dict[str, str | None] = {}
    for module_name in MODULES:
        module = getattr(array_api_strict, module_name) if module_name else array_api_strict
        public = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        prefix = "xp." + (module_name + "." if module_name else "")
        for attr in sorted(public):
            obj = getattr(module, attr)
            if attr.startswith("_") or inspect.ismodule(obj) or inspect.isclass(obj) or "strict" in attr:
                continue
            if module_name and (not callable(obj) or getattr(obj, "__module__", "").endswith("_elementwise_functions")):
                continue  # (linalg re-exports: only its own functions)
            if callable(obj) and not hasattr(obj, "kind") and not _later(obj):
                names[prefix + attr] = signature_text(inspect.signature(obj))
            elif not callable(obj) or hasattr(obj, "kind"):
                names[prefix + attr] = None
    return {"version": VERSION, "names": names}


def _later(func) -> bool:
    """``func`` belongs to a later version than ``VERSION`` (array-api-strict refuses to call it)."""
    try:
        func()
    except RuntimeError as exc:
        return "requires API version" in str(exc)
    except Exception:  # noqa: BLE001 - no arguments: any other failure means it exists in VERSION
        return False
    return False


def dumps(table: dict) -> str:
    """The JSON text of ``table``: one name a line, sorted."""
    lines = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(table["names"].items())]
    return f'{{\n  "version": {json.dumps(table["version"])},\n  "names": {{\n' + ",\n".join(lines) + "\n  }\n}\n"


def main(argv: list[str] | None = None) -> int:
    """``--write``: write the table from array-api-strict; ``--check``: exit 1 when it differs."""
    argv = sys.argv[1:] if argv is None else argv

    def text() -> str:
        importlib.import_module("array_api_strict")
        return dumps(describe())

    return table_command(argv, TABLE, text, "array-api-strict", "yota_s2s.codegen.array_api")


if __name__ == "__main__":
    raise SystemExit(main())
