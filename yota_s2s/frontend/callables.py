"""Functions as values, and the call of one of the file's functions (a part of ``calls.CallLowering``).

- A ``lambda`` is a helper that sees the names of the scope it is defined in (a closure, read when
  it is called, as Python reads them); its defaults, and a nested function's, that read that scope
  are evaluated where it is defined, as Python does (``[lambda v, k=k: v * k for k in range(3)]``).
- ``functools.partial(f, *args, **kwargs)`` is ``f`` with those arguments bound: called, they come
  first (``h(x)`` is ``f(*args, x, **kwargs)``; a keyword given at the call replaces a bound one).
- ``call_local`` binds a call's arguments to the parameters of a function of the file (defaults
  evaluated in the callee's own file), then inlines its body.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from .fence import lambda_function
from .values import _Function, _params_with_defaults


def lambda_value(lo, node: ast.Lambda, env: dict) -> _Function:
    """``sq = lambda t: t * t`` (the fence allows only this form): a helper that sees this scope."""
    fn = lambda_function("lambda", node)
    lo.fn_modules[id(fn)] = lo.module
    return _Function("lambda", fn, closure=env, module=lo.module, defaults=defaults_here(lo, fn, env))


def defaults_here(lo, fn: ast.FunctionDef, env: dict) -> tuple:
    """The defaults of a lambda or a nested function that read the defining scope's names,
    evaluated there and then: ``(name, value)`` pairs."""
    scope = set(env)
    return tuple(
        (p.arg, lo.expr(d, env))
        for p, d in _params_with_defaults(fn)
        if d is not None and any(isinstance(n, ast.Name) and n.id in scope for n in ast.walk(d))
    )


def partial(lo, values: list, node: ast.Call, env: dict) -> _Function:
    """``functools.partial(f, *args, **kwargs)`` of the call's positional ``values`` (f first)."""
    if not values or any(kw.arg is None for kw in node.keywords):
        raise lo.error("YS032", "functools.partial() takes a function, then its arguments by name", node)
    target, *args = values
    if not isinstance(target, _Function):
        raise lo.error("YS020", "functools.partial() of a value that is not callable", node.args[0])
    keywords = {**dict(target.bound_keywords), **{kw.arg: lo.expr(kw.value, env) for kw in node.keywords}}
    return replace(target, bound=(*target.bound, *args), bound_keywords=tuple(keywords.items()))


def call_local(
    lo,
    fn: ast.FunctionDef,
    args: list,
    kwargs: dict,
    node: ast.Call,
    closure: dict | None = None,
    defaults: tuple = (),
) -> object:
    """``fn(*args, **kwargs)`` inlined; ``closure`` the defining scope of a lambda or nested function,
    ``defaults`` its defaults evaluated there (``defaults_here``)."""
    a = fn.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    params = _params_with_defaults(fn)
    names = [p.arg for p, _ in params]
    if len(args) > len(positional) and a.vararg is None:
        raise lo.error("YS032", f"{fn.name}() takes {len(positional)} arguments ({len(args)} given)", node)
    env: dict[str, object] = dict(zip(positional, args))
    if a.vararg is not None:
        env[a.vararg.arg] = tuple(args[len(positional) :])  # def h(*xs): a tuple of known length
    for key, value in kwargs.items():
        if key not in names:
            raise lo.error("YS032", f"{fn.name}() has no parameter {key!r}", node)
        if key in env:
            raise lo.error("YS032", f"{fn.name}() got two values for {key!r}", node)
        env[key] = value
    env = {**dict(defaults), **env}  # (those defined with the function, unless given)
    caller = lo.module
    lo.module = lo.fn_modules.get(id(fn), lo.module)  # defaults are the callee's file's names
    try:
        for p, default in params:
            if p.arg not in env:
                if default is None:
                    raise lo.error("YS032", f"{fn.name}() is missing the argument {p.arg!r}", node)
                env[p.arg] = lo.expr(default, {})
    finally:
        lo.module = caller
    if closure:  # a lambda sees the names of the scope it was defined in
        env = {**closure, **env}
    return lo.inline(fn, env, node)
