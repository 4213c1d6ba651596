"""Names: a name or an attribute of the source in, what it stands for out.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts).  A name is, in this order, a local of the function being
inlined, a constant of its file (``SCALE = 2.0``), one of its functions, an import
(``np``: the library module ``numpy``; ``from numpy import exp``; ``import physics``: one
of the user's own modules, parsed from the file next to it, never imported) or a builtin.
An attribute of a library module is a constant (``np.pi``), a submodule or a function
(``np.exp``).  An attribute of a parameter makes the parameter an object: ``m.W`` is the
tape input with the path ``("m", "W")``.  A method called on it comes from its class,
known from an annotation (``m: Model``), from ``self.layer = Linear(...)`` in
``__init__``, or as the only class of the file that has it.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = "import numpy as np\\ndef f(m):\\n    return np.sum(m.W * np.pi)\\n"
    >>> t = lower(fence(src, "f.py"), "f", load_rules())
    >>> [i.path for i in t.inputs], [e.prim for e in t.eqns]
    ([('m', 'W')], ['mul', 'sum'])
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
from pathlib import Path

from ..errors import UserError, located
from ..ir.core import Lit, Var
from ..ir.printer import format_path
from ..sources import read_python
from . import instances
from .fence import Module, check_functions, parse_module
from .generated import generated_helpers
from .state import LoweringState
from .values import (
    _SUBMODULES,
    ARRAY_ATTRS,
    MODULE_CONSTANTS,
    _Class,
    _Fields,
    _Function,
    _Indexed,
    _Instance,
    _Module,
    _Own,
    _Unresolved,
    canonical_name,
)


class NameResolution:
    """Names, attributes, the user's own modules and classes (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo
        #: The module ``lower`` was given; helpers from other files are fenced on first use.
        self.root_module: Module = lo.module
        #: The user's own modules (``import physics``), parsed once, by resolved file path.
        self.siblings: dict[str, Module | None] = {}
        #: id() of the helpers from other files already fenced (``fence.check_functions``).
        self.checked: set[int] = set()

    def expr_Name(self, node: ast.Name, env: dict) -> object:
        name = node.id
        if name in env:
            return env[name]
        m = self.lo.module
        if name in m.refused:  # POWERS changed by a statement the tool does not follow
            stmt, why = m.refused[name]
            raise self.lo.error("YS048", why, stmt)
        if name in m.constants:
            return Lit(m.constants[name])
        if name in m.arrays:  # W0 = np.array([...]) at module level
            return self.lo.add("asarray", [Lit(m.arrays[name])], {}, node)
        if name in m.functions:
            return self.local_function(name, m.functions[name], m)
        if name in m.blocks:  # a module-level statement the tool runs as it is (module_blocks)
            if id(m.blocks[name]) not in self.checked:  # (fenced as a function's code is)
                self.checked.add(id(m.blocks[name]))
                check_functions(m, [m.blocks[name]])
            return self.local_function(name, m.blocks[name], m)
        if name in m.imports:
            return self.qualified(m.imports[name], node)
        if name in m.statics:
            return self.module_static(m, name)
        if name in m.classes:  # Exchanger(area, u): an object of the file's class (instances.py)
            return _Class(name, m)
        if hasattr(builtins, name):
            return _Function(f"builtins.{name}")
        raise self.lo.error("YS030", f"unknown name {name!r}", node)

    def module_static(self, module: Module, name: str) -> object:
        """The value of a module-level name bound by an expression (``GRID = np.linspace(0, 1, 9)``),
        lowered once per function at the top of its tape, in its own file's names: module-level
        code is static (it reads no parameter), and passes through as the source wrote it."""
        key = (id(module), name)
        if key in self.lo.module_values:
            return self.lo.module_values[key]
        if key in self.lo.module_lowering:
            raise self.lo.error("YS030", f"module-level name {name!r} is defined from itself", module.statics[name])
        for earlier in module.before.get(name, ()):  # the draws of a seeded generator, in order
            self.module_static(module, earlier)
        self.lo.module_lowering.add(key)
        saved = self.lo.tape, self.lo.module, self.lo.stmt_line, self.lo.stmt_text
        self.lo.tape, self.lo.module = self.lo.root, module  # (before the loop or branch being lowered: it runs first)
        node = module.statics[name]
        shown = name.partition("'")[0]  # (W'1: the first value of a name rebound)
        text = module.static_texts.get(name) or f"{shown} = {ast.unparse(node)}"
        self.lo.stmt_line, self.lo.stmt_text = node.lineno, text
        try:
            value = self.lo.expr(node, {})
        finally:
            self.lo.tape, self.lo.module, self.lo.stmt_line, self.lo.stmt_text = saved
            self.lo.module_lowering.discard(key)
        unpacked = isinstance(node, ast.Subscript) and "'" in getattr(node.value, "id", "")  # XI, W = ...
        if isinstance(value, Var) and (value.hint is None or unpacked):  # (W'1, a first value rebound: W)
            value.hint, value.hint_depth = name.partition("'")[0], 0
        self.lo.module_values[key] = value
        return value

    def local_function(self, name: str, fn: ast.FunctionDef, module: Module) -> _Function:
        self.lo.fn_modules[id(fn)] = module
        if module is not self.root_module and id(fn) not in self.checked and fn.name not in generated_helpers(module):
            self.checked.add(id(fn))
            check_functions(module, [fn])  # a helper from another file is fenced like this file's
        return _Function(name, fn, module=module)

    def qualified(self, name: str, node: ast.AST) -> object:
        """A library name: a module, a constant or a function (or one of the user's own modules)."""
        own = None if name in self.lo.table.names else self.own_module_name(name, node)  # a rule wins
        if own is not None:
            return own
        name = canonical_name(name)
        if name in MODULE_CONSTANTS:
            return Lit(MODULE_CONSTANTS[name])
        if "." not in name or name in _SUBMODULES or any(n.startswith(name + ".") for n in self.lo.table.names):
            return _Module(name)
        return _Function(name)

    def expr_Attribute(self, node: ast.Attribute, env: dict) -> object:
        base = self.lo.expr(node.value, env)
        attr = node.attr
        if isinstance(base, _Instance):  # hx.area of an object the function made
            return instances.attribute(self.lo, base, attr, node)
        if isinstance(base, _Class):  # Exchanger.RATE: a class attribute
            return instances.attribute(self.lo, _Instance(base.name, base.module), attr, node)
        if isinstance(base, _Module):
            return self.qualified(f"{base.name}.{attr}", node)
        if isinstance(base, _Own):
            return self.own_attribute(base, attr, node)
        if isinstance(base, _Indexed) and attr not in ARRAY_ATTRS:
            base = self.as_object(base, node)
        if isinstance(base, _Unresolved) and attr not in ARRAY_ATTRS:
            path = base.path
            if path in self.lo.array_inputs:
                raise self.lo.error(
                    "YS036", f"{format_path(path)} is used as an array, so it has no attribute {attr!r}", node
                )
            self.lo.object_paths.add(path)
            return _Unresolved(
                (*path, attr), self.attribute_class(base.cls, attr), self.attribute_class(base.cls, attr, True)
            )
        if isinstance(base, _Function) and base.local is None and "." in base.name:
            # scipy.signal.convolve, scipy.stats.norm.pdf: a library name read for an attribute is a module
            # (or a class) of that library, whose attribute is a function like any other
            return self.qualified(f"{base.name}.{attr}", node)
        if isinstance(base, _Fields) and attr in base.fields:  # np.linalg.slogdet(a).logabsdet
            return base[base.fields.index(attr)]
        if isinstance(base, _Function | tuple):
            raise self.lo.error("YS020", f"unsupported attribute {attr!r}", node)
        if isinstance(base, Lit) and _lacks(base.value, attr, node.value):
            what = type(base.value).__name__
            raise self.lo.error("YS047", f"'{what}' object has no attribute {attr!r} (a constant's attribute)", node)
        if isinstance(base, _Indexed):
            base = self.lo.as_array(base, node)
        value = self.lo.as_array(base, node)
        if isinstance(value, Var):
            self.lo.array_receivers.add(value.id)
        return self.lo.calls.call_primitive(f"ndarray.{attr}", [value], {}, node)

    # ------------------------------------------------------------------ the user's own modules
    def own_module_name(self, name: str, node: ast.AST) -> object | None:
        """``physics.energy`` or ``.physics.energy`` when ``physics.py`` sits next to the current file."""
        level = len(name) - len(name.lstrip("."))
        parts = name.lstrip(".").split(".")
        here = Path(self.lo.module.path)
        if not here.is_file() or (not level and canonical_name(parts[0]) in ("numpy", "math", "scipy")):
            return None
        folder = here.parent
        for _ in range(max(level - 1, 0)):
            folder = folder.parent
        for k in range(len(parts), 0, -1):
            module = self.load_own(folder, parts[:k], node)
            if module is not None:
                value: object = _Own(module, ".".join(parts[:k]))
                for attr in parts[k:]:
                    value = self.own_attribute(value, attr, node)
                return value
        return None

    def load_own(self, folder: Path, parts: list[str], node: ast.AST) -> Module | None:
        candidates = [folder.joinpath(*parts).with_suffix(".py"), folder.joinpath(*parts, "__init__.py")]
        file = next((c for c in candidates if c.is_file()), None)
        if file is None:
            return None
        key = str(file.resolve())
        if key not in self.siblings:
            shown = str(file) if not Path(self.root_module.path).is_absolute() else key
            try:  # read as Python reads a module (its encoding, line ends), never a FIFO
                read = read_python(str(file))
            except UserError as exc:
                if exc.line:  # located in that file (YS046): say so there
                    raise dataclasses.replace(exc, path=shown) from None
                raise self.lo.error(exc.code, f"cannot read {shown}, imported here: {exc.message}", node) from None
            self.siblings[key] = parse_module(read.text, shown)
            self.lo.read_files[shown] = read.sha256
        return self.siblings[key]

    def own_attribute(self, own: _Own, attr: str, node: ast.AST) -> object:
        module = own.module
        if f"{own.name}.{attr}" in self.lo.table.names:  # a rule given for it wins over its source
            return _Function(f"{own.name}.{attr}")
        if attr in module.functions:
            return self.local_function(attr, module.functions[attr], module)
        if attr in module.refused:
            stmt, why = module.refused[attr]
            raise located("YS048", why, stmt, module.path, module.source)
        if attr in module.constants:
            return Lit(module.constants[attr])
        if attr in module.imports:
            caller, self.lo.module = self.lo.module, module  # its import, resolved in its own folder
            try:
                return self.qualified(module.imports[attr], node)
            finally:
                self.lo.module = caller
        sub = self.load_own(Path(module.path).parent, [attr], node) if module.path.endswith("__init__.py") else None
        if sub is not None:
            return _Own(sub, f"{own.name}.{attr}")
        raise self.lo.error("YS030", f"{own.name} ({module.path}) has no function or constant {attr!r}", node)

    # ------------------------------------------------------------------ classes and methods
    def find_method(self, name: str, node: ast.AST, cls: str | None = None) -> ast.FunctionDef | None:
        """The method ``name`` of class ``cls`` (known from an annotation), else the only one in the file."""
        classes = self.lo.module.classes
        while cls in classes:
            for m in classes[cls].body:
                if isinstance(m, ast.FunctionDef) and m.name == name:
                    self.lo.fn_classes[id(m)] = cls
                    self.lo.fn_modules[id(m)] = self.lo.module
                    return m
            bases = [b.id for b in classes[cls].bases if isinstance(b, ast.Name)]
            cls = bases[0] if bases else None
        found = [
            (c.name, m) for c in classes.values() for m in c.body if isinstance(m, ast.FunctionDef) and m.name == name
        ]
        if len(found) > 1:
            owners = ", ".join(c for c, _ in found)
            raise self.lo.error(
                "YS031",
                f"several classes in this file define {name}() ({owners}); cannot tell which: annotate the "
                f"parameter (m: {found[0][0]}) or the class attribute (layer: {found[0][0]})",
                node,
            )
        if not found:
            return None
        self.lo.fn_classes[id(found[0][1])] = found[0][0]
        self.lo.fn_modules[id(found[0][1])] = self.lo.module
        return found[0][1]

    def annotated_class(self, annotation: ast.expr | None, element: bool = False) -> str | None:
        """The class an annotation names (``Model``, ``"Model"``); with ``element``, of ``list[Layer]``."""
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if element:
            if not isinstance(annotation, ast.Subscript):
                return None
            inner = annotation.slice
            annotation = inner.elts[0] if isinstance(inner, ast.Tuple) and inner.elts else inner
        if isinstance(annotation, ast.Name) and annotation.id in self.lo.module.classes:
            return annotation.id
        return None

    def attribute_class(self, cls: str | None, attr: str, element: bool = False) -> str | None:
        """The class of ``obj.attr`` for ``obj`` of class ``cls``: from a class-level annotation
        (``layer: Linear``, ``layers: list[Linear]``) or ``self.attr = Linear(...)`` in ``__init__``."""
        classes = self.lo.module.classes
        if cls not in classes:
            return None
        for stmt in classes[cls].body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                return self.annotated_class(stmt.annotation, element)
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                for node in ast.walk(stmt):
                    if not (isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None):
                        continue
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if not any(isinstance(t, ast.Attribute) and t.attr == attr for t in targets):
                        continue
                    if isinstance(node, ast.AnnAssign):
                        return self.annotated_class(node.annotation, element)
                    value = node.value
                    if element and isinstance(value, ast.List | ast.Tuple) and value.elts:
                        value = value.elts[0]
                    elif element and isinstance(value, ast.ListComp):
                        value = value.elt
                    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                        return value.func.id if value.func.id in classes else None
        return None

    def element_class(self, base: _Unresolved | _Indexed) -> str | None:
        """The class of ``base[i]``: the element annotation of the attribute ``base`` came from."""
        return base.elem if isinstance(base, _Unresolved) else None

    def as_object(self, value: _Unresolved | _Indexed, node: ast.AST) -> _Unresolved:
        """``m.layers[0]`` used as an object: ``m.layers`` is a list of objects."""
        if isinstance(value, _Unresolved):
            return value
        base = self.as_object(value.base, node) if isinstance(value.base, _Indexed) else value.base
        if base.path in self.lo.array_inputs:
            raise self.lo.error("YS036", f"{format_path(base.path)} is used as an array, so it holds no objects", node)
        self.lo.object_paths.add(base.path)
        self.lo.object_paths.add(value.path)
        return _Unresolved(value.path, value.cls)


def _lacks(value: object, attr: str, node: ast.expr) -> bool:
    """The constant ``value`` (written ``node``) surely has no attribute ``attr`` when the program
    runs: None never has one; a number or a string written in the source is a Python object, which
    has only its type's (``3.0.real``; a constant computed may be a NumPy scalar, with ``.T``)."""
    if value is None:
        return True
    return isinstance(node, ast.Constant) and not hasattr(value, attr)
