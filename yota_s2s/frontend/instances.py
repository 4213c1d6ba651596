"""Objects the function makes: ``hx = Exchanger(area, 850.0)`` of a class of the file.

Functions of the lowerer (``lowering``: ``lower.Lowerer``, which the parts ``calls`` and ``names``
pass in).  A call of a class of the file makes an ``_Instance``: its attributes
are values of the function, set by the class's ``__init__`` (inlined, ``self`` the new
object, ``self.area = area`` binding an attribute), or, for a ``@dataclass``, by its fields
(arguments by position or name, the defaults the class body writes) and ``__post_init__``.
Reading ``hx.area`` gives the attribute's value, or the class attribute the class body binds
(``RATE = 2.0``); ``hx.duty(hot, cold)`` inlines the method with ``self`` the object, as a
helper function is inlined.  An object is changed only while its ``__init__`` (or
``__post_init__``) runs: elsewhere ``self.n += 1`` is refused by the fence (YS042), so an
object, once made, is a record of values, and the tape never sees it.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = ("class Scale:\\n    def __init__(self, k):\\n        self.k = 2.0 * k\\n"
    ...        "    def apply(self, x):\\n        return self.k * x\\n\\n"
    ...        "def f(x, k):\\n    return Scale(k).apply(x)\\n")
    >>> [e.prim for e in lower(fence(src, "f.py"), "f", load_rules()).eqns]
    ['mul', 'mul']
"""

from __future__ import annotations

import ast

from .fence import Module
from .values import _Class, _Function, _Instance


def class_chain(module: Module, name: str) -> list[ast.ClassDef]:
    """The class ``name`` of ``module`` and its bases of the same file, nearest first."""
    chain: list[ast.ClassDef] = []
    while name in module.classes and all(c.name != name for c in chain):
        cls = module.classes[name]
        chain.append(cls)
        bases = [b.id for b in cls.bases if isinstance(b, ast.Name)]
        name = bases[0] if bases else ""
    return chain


def class_member(module: Module, name: str, member: str) -> ast.FunctionDef | ast.expr | None:
    """What class ``name`` (or a base) binds ``member`` to in its body: a method, or the expression
    of a class attribute (``RATE = 2.0``, ``scale: float = 2.0``); None where it binds none."""
    for cls in class_chain(module, name):
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == member:
                return stmt
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == member for t in stmt.targets):
                return stmt.value
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == member:
                return stmt.value
    return None


def is_dataclass(cls: ast.ClassDef) -> bool:
    """``cls`` is decorated ``@dataclass`` (``@dataclasses.dataclass``, with arguments or not), or
    is a ``typing.NamedTuple`` (its fields made the same way: annotated, in order, with defaults)."""
    if any(_last_name(b) == "NamedTuple" for b in cls.bases):
        return True
    for deco in cls.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "dataclass":
            return True
    return False


def dataclass_fields(module: Module, name: str) -> list[tuple[str, ast.expr | None]]:
    """A dataclass's fields in order (the bases' first), each with its default (None: none)."""
    fields: dict[str, ast.expr | None] = {}
    for cls in reversed(class_chain(module, name)):
        for stmt in cls.body:
            field = isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.simple
            if field and "ClassVar" not in ast.unparse(stmt.annotation):
                fields[stmt.target.id] = stmt.value
    return list(fields.items())


def instantiate(lowering, cls: _Class, args: list, kwargs: dict, node: ast.Call) -> _Instance:
    """``Cls(*args, **kwargs)``: a new object, its attributes set as the class sets them."""
    module, name = cls.module, cls.name
    obj = _Instance(name, module, {})
    top = module.classes[name]
    if is_dataclass(top) and class_member(module, name, "__init__") is None:
        fields = dataclass_fields(module, name)
        if len(args) > len(fields):
            raise lowering.error("YS032", f"{name}() takes {len(fields)} arguments ({len(args)} given)", node)
        given = dict(zip((f for f, _ in fields), args))
        for key, value in kwargs.items():
            if key not in dict(fields) or key in given:
                why = "has no field" if key not in dict(fields) else "got two values for"
                raise lowering.error("YS032", f"{name}() {why} {key!r}", node)
            given[key] = value
        for field, default in fields:
            if field not in given:
                if default is None:
                    raise lowering.error("YS032", f"{name}() is missing the argument {field!r}", node)
                given[field] = module_value(lowering, module, default, node)
            obj.attrs[field] = given[field]
        constructor = class_member(module, name, "__post_init__")
        args, kwargs = [], {}
    else:
        constructor = class_member(module, name, "__init__")
    if isinstance(constructor, ast.FunctionDef):
        lowering.fn_modules[id(constructor)] = module
        lowering.fn_classes[id(constructor)] = name
        lowering.calls.call_local(constructor, [obj, *args], kwargs, node)
    elif args or kwargs:
        raise lowering.error("YS032", f"{name}() takes no arguments (its class has no __init__)", node)
    return obj


def module_value(lowering, module: Module, expr: ast.expr, node: ast.AST) -> object:
    """The value of an expression of a class body (a default, a class attribute), in its file's names."""
    caller = lowering.module
    lowering.module = module
    try:
        return lowering.expr(expr, {})
    finally:
        lowering.module = caller


def attribute(lowering, obj: _Instance, attr: str, node: ast.AST) -> object:
    """``obj.attr``: the attribute's value, a class attribute, or the method (called by ``method``)."""
    if attr in obj.attrs:
        return obj.attrs[attr]
    member = class_member(obj.module, obj.cls, attr)
    if isinstance(member, ast.FunctionDef) and any(_last_name(d) in _PROPERTIES for d in member.decorator_list):
        lowering.fn_modules[id(member)] = obj.module
        lowering.fn_classes[id(member)] = obj.cls
        return lowering.calls.call_local(member, [obj], {}, node)  # spring.half_k: a property, called
    if isinstance(member, ast.FunctionDef):  # f = hx.duty: the method bound to the object
        return method(lowering, obj, attr, node)
    if member is not None:
        return module_value(lowering, obj.module, member, node)
    raise lowering.error("YS020", f"{obj.cls} object has no attribute {attr!r}", node)


def method(lowering, obj: _Instance, attr: str, node: ast.AST) -> _Function:
    """``obj.attr(...)``: the method, to be called with ``obj`` first (a static method without it)."""
    member = class_member(obj.module, obj.cls, attr)
    if not isinstance(member, ast.FunctionDef):
        raise lowering.error("YS020", f"{obj.cls} object has no method {attr!r}", node)
    lowering.fn_modules[id(member)] = obj.module
    lowering.fn_classes[id(member)] = obj.cls
    kind = {d.id for d in member.decorator_list if isinstance(d, ast.Name)}
    if "classmethod" in kind:  # cls: the object's class (a class attribute, cls(...) makes one)
        return _Function(attr, member, receiver=_Class(obj.cls, obj.module), module=obj.module)
    return _Function(attr, member, receiver=None if "staticmethod" in kind else obj, module=obj.module)


def class_method(lowering, cls: _Class, attr: str, node: ast.AST) -> _Function | None:
    """``Helper.attr(...)`` through the class: a static method, a class method (``cls`` the class),
    or a plain method called with its object written first; None where ``attr`` is no method."""
    member = class_member(cls.module, cls.name, attr)
    if not isinstance(member, ast.FunctionDef) or any(_last_name(d) in _PROPERTIES for d in member.decorator_list):
        return None
    found = method(lowering, _Instance(cls.name, cls.module), attr, node)
    return found if not isinstance(found.receiver, _Instance) else _Function(attr, member, module=cls.module)


def set_attribute(lowering, obj: _Instance, attr: str, value: object, node: ast.AST) -> None:
    """``self.attr = value`` in ``__init__``: the object's attribute (the fence allows it nowhere else)."""
    obj.attrs[attr] = value


#: The decorators that make a method read as an attribute.
_PROPERTIES = frozenset({"property", "cached_property"})


def _last_name(node: ast.expr) -> str:
    """``NamedTuple`` for ``typing.NamedTuple`` or ``NamedTuple``; ``""`` for anything else."""
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
