"""Calls, tuples and comprehensions: a call in, its value out.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts).  A call of one of the user's functions (a method, a lambda, a
helper from the user's own module) is inlined: its parameters bound to the values of the
arguments and its body lowered in place (``lower.Lowerer.inline``).  A call of a library
function becomes the primitive its rule names (``np.exp`` -> ``exp``): the arguments are
bound to the rule's operands and static parameters (``axis=``, which must be constants).
A few calls mean different primitives for different kinds of argument (``adapt``:
``sum``, ``max``, ``np.array``, ``np.einsum``).  Tuples, lists and comprehensions are
unrolled: a tuple of values, of a length known when generating.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = "def sq(t):\\n    return t * t\\ndef f(x):\\n    return sum([sq(x[i]) for i in range(2)])\\n"
    >>> [e.prim for e in lower(fence(src, "f.py"), "f", load_rules()).eqns]
    ['getindex', 'mul', 'getindex', 'mul', 'add', 'add']
"""

from __future__ import annotations

import ast

from ..dsl.rule import BindError, bind
from ..errors import UserError
from ..ir.core import Lit, Var
from ..ir.primitives import STATIC_LIBRARY as LIBRARY
from ..ir.primitives import STATIC_OPERAND as OPERAND
from ..ir.primitives import primitive
from . import callables, instances, library
from .adapters_dtype import DTYPE_CALLS, dtype_call
from .adapters_einsum import subscripts_first
from .adapters_keywords import adapt_keywords
from .expressions import NeedsUnrolling, _fields
from .generated import edited_helper, generated_helpers
from .state import LoweringState
from .values import (
    _NOT_CONSTANT,
    RESULT_FIELDS,
    _Class,
    _constant_value,
    _Fields,
    _Function,
    _Indexed,
    _Instance,
    _Module,
    _no_rule_message,
    _Own,
    _Unresolved,
)

#: The methods of a dict that an array has not (a dict parameter's keys are not known when generating).
#: The trapezoidal rule's names.
_TRAPEZOIDS = ("numpy.trapezoid", "numpy.trapz", "scipy.integrate.trapezoid")
_DICT_METHODS = frozenset({"items", "keys", "values", "get", "update", "pop", "setdefault"})
#: Library functions whose rule holds on part of their domain (real symmetric matrices): in
#: module-level code, where no parameter is read, they run as NumPy runs them.
_ANY_MATRIX = frozenset({"numpy.linalg.eigvals"})


class _NewList(tuple):
    """A new empty list ``[]``: an object of its own (Python's ``()`` is one object for all), so that
    two lists are never taken for one list two names share (``aliasing``)."""

    __slots__ = ()


class CallLowering:
    """Calls, tuples, lambdas and comprehensions (a part of ``lower.Lowerer``)."""

    def __init__(self, lo: LoweringState):
        self.lo = lo

    def expr_Call(self, node: ast.Call, env: dict) -> object:
        func = node.func
        receiver = None
        if isinstance(func, ast.Attribute):
            base = self.lo.expr(func.value, env)
            if isinstance(base, dict) or (isinstance(base, Lit) and isinstance(base.value, dict)):
                return self.lo.dicts.dict_method(base, func.attr, node, env)
            if isinstance(base, _Function) and base.local is None and "." in base.name:
                base = _Module(base.name)  # scipy.signal.convolve(...), scipy.stats.norm.pdf(...): a library's
            through_class = instances.class_method(self.lo, base, func.attr, func) if isinstance(base, _Class) else None
            if through_class is not None:  # Helper.sq(x), Helper.make(2.0): through the class
                callee, receiver = through_class, through_class.receiver
            elif isinstance(base, _Instance):  # hx.duty(hot, cold): the method, self the object
                callee = instances.method(self.lo, base, func.attr, func)
                receiver = callee.receiver
            elif isinstance(base, _Module):
                callee = self.lo.names.qualified(f"{base.name}.{func.attr}", func)
            elif isinstance(base, _Own):
                callee = self.lo.names.own_attribute(base, func.attr, func)
            elif isinstance(base, _Unresolved | _Indexed) and base.path not in self.lo.array_inputs:
                method = self.lo.names.find_method(func.attr, func, base.cls)
                if method is None and func.attr in _DICT_METHODS:  # p.items() of a dict parameter
                    return self.lo.dicts.parameter_method(base, func, node, env)
                if method is None:
                    callee = _Function(f"ndarray.{func.attr}")
                    receiver = base
                else:
                    receiver = self.lo.names.as_object(base, func)
                    self.lo.object_paths.add(receiver.path)
                    cls = receiver.cls or self.lo.fn_classes.get(id(method))
                    receiver = _Unresolved(receiver.path, cls, receiver.elem)
                    callee = _Function(func.attr, method)
            else:
                callee, receiver = _Function(f"ndarray.{func.attr}"), base
        else:
            callee = self.lo.expr(func, env)
            receiver = callee.receiver if isinstance(callee, _Function) else None  # f = hx.duty; f(...)
        if isinstance(callee, _Class):  # Exchanger(area, 850.0): an object (instances.py)
            kwargs = {kw.arg: self.lo.expr(kw.value, env) for kw in node.keywords if kw.arg}
            return instances.instantiate(self.lo, callee, self.elements(node.args, env), kwargs, node)
        if not isinstance(callee, _Function):
            raise self.lo.error("YS020", "this value is not callable", func)
        if callee.name == "functools.partial" and callee.local is None:
            return callables.partial(self.lo, self.elements(node.args, env), node, env)
        if callee.name in ("builtins.tuple", "builtins.list") and len(node.args) == 1 and not node.keywords:
            return self.static_sequence(node.args[0], env)  # tuple(w * v for v in xs)
        if callee.name == "builtins.dict" and not node.args and all(kw.arg for kw in node.keywords):
            return {kw.arg: self.lo.expr(kw.value, env) for kw in node.keywords}  # dict(W=w, b=b)
        if callee.name == "builtins.dict" and len(node.args) == 1 and not node.keywords:
            copied = self.lo.dicts.copy_of(node.args[0], env)  # dict(TABLE)
            if copied is not None:
                return copied
            pairs = self.static_sequence(node.args[0], env)  # dict(zip(KEYS, values))
            if all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], Lit) for p in pairs):
                return {p[0].value: p[1] for p in pairs}
        args = self.elements(node.args, env)
        kwargs = {kw.arg: self.lo.expr(kw.value, env) for kw in node.keywords}
        if callee.bound or callee.bound_keywords:  # h = partial(f, 2.0, scale=s); h(x) is f(2.0, x, scale=s)
            args, kwargs = [*callee.bound, *args], {**dict(callee.bound_keywords), **kwargs}
        if callee.local is not None and receiver is None and callee.module is not None:
            prim = self.generated_helper(callee, node)  # _unbroadcast(g, x) of a generated module
            if prim == "grad_stack":
                return self.grad_stack(args, kwargs, node)
            if prim == "unreduce" and len(args) == 2 and not kwargs:
                # _unreduce(g, x): g spread over x's shape (written with g's reduced axes expanded
                # already, or kept), so np.broadcast_to(g, np.shape(x)), whose adjoint unbroadcasts
                # (the primitive unreduce of an axis would sum every axis of a g written so)
                shape = self.bound_primitive("shape", [args[1]], {}, node)
                return self.bound_primitive("broadcast_to", [args[0], shape], {}, node)
            if prim is not None:
                return self.bound_primitive(prim, args, kwargs, node)
        if callee.local is not None:
            if receiver is not None:
                args = [receiver, *args]
            return callables.call_local(self.lo, callee.local, args, kwargs, node, callee.closure, callee.defaults)
        if receiver is not None:
            receiver = self.lo.as_array(receiver, func)
            if isinstance(receiver, Var):
                self.lo.array_receivers.add(receiver.id)
            args = [receiver, *args]
            if primitive(self.lo.table.names.get(callee.name, "")).packed_method and len(args) > 2:
                args = [args[0], tuple(args[1:])]
        return self.call_primitive(callee.name, args, kwargs, node)

    def elements(self, nodes: list[ast.expr], env: dict) -> list:
        """The values of call arguments or tuple items; ``*xs`` of a tuple of known length is spread."""
        out: list = []
        for n in nodes:
            if not isinstance(n, ast.Starred):
                out.append(self.lo.expr(n, env))
                continue
            value = self.lo.expr(n.value, env)
            if isinstance(value, Lit) and isinstance(value.value, tuple):
                value = tuple(Lit(v) for v in value.value)
            if not isinstance(value, tuple):
                raise self.lo.error(
                    "YS041",
                    f"*{ast.unparse(n.value)} needs a tuple or list of known length (an array's length is "
                    "known only at run time; index it)",
                    n,
                )
            out.extend(value)
        return out

    def call_local(
        self, fn: ast.FunctionDef, args: list, kwargs: dict, node: ast.Call, closure: dict | None = None
    ) -> object:
        """A function of the file called: its arguments bound to its parameters, its body inlined."""
        return callables.call_local(self.lo, fn, args, kwargs, node, closure)

    def call_primitive(self, name: str, args: list, kwargs: dict, node: ast.AST) -> object:
        if name == "numpy.where" and len(args) == 1 and not kwargs:
            name = "numpy.nonzero"  # np.where(cond): the indices where cond holds, as np.nonzero's
        if "dtype" in kwargs and name in DTYPE_CALLS:
            return dtype_call(self.lo, name, args, kwargs, node)
        adapted = self.adapt(name, args, kwargs, node)
        if adapted is not None:
            return adapted
        if self.lo.module_lowering and name in _ANY_MATRIX and len(args) == 1 and not kwargs:
            # module-level code reads no parameter: np.linalg.eigvals(W) of any W, as NumPy computes
            # it (its rule is for the real symmetric matrices whose eigenvalues are real)
            where = ("YS031", name, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), "")
            params = {"code": f"{LIBRARY}0({OPERAND}0)", "modules": (name,), "through": (), "refusal": where}
            return self.lo.add("static", [self.lo.as_array(args[0], node)], params, node)
        if name not in self.lo.table.names and f"{name}#0" in self.lo.table.names:
            # a function returning a tuple, each element its own primitive: slogdet -> (sign, logdet)
            n = 0
            while f"{name}#{n}" in self.lo.table.names:
                n += 1
            items = tuple(self.call_primitive(f"{name}#{k}", args, kwargs, node) for k in range(n))
            fields = RESULT_FIELDS.get(name)
            return _Fields(items, fields) if fields and len(fields) == n else items
        prim = self.lo.table.names.get(name)
        defined = library.serving(self.lo, name, args, kwargs) if prim is None or "key" in kwargs else None
        if defined is not None:
            return library.call(self, defined, args, kwargs, node)  # np.cov(X): its definition, inlined
        if prim is None:
            raise self.lo.error("YS031", _no_rule_message(name, node), node)
        return self.bound_primitive(prim, args, kwargs, node)

    def bound_primitive(self, prim: str, args: list, kwargs: dict, node: ast.AST) -> object:
        """The equation of ``prim`` with the call's arguments bound to its rule's operands and parameters."""
        rule = self.lo.table[prim]
        try:
            operands, params = bind(rule, args, kwargs)
        except BindError as exc:
            raise self.lo.error("YS032", str(exc), node) from None
        operands = [Lit(_constant_row(o)) if isinstance(o, tuple) and _is_constant_row(o) else o for o in operands]
        static_only = all(name in rule.nondiff for name in rule.operand_names(len(operands)))
        if static_only and any(isinstance(o, tuple) and not rule.variadic for o in operands):
            # np.zeros((n, d)) of computed sizes: no gradient to take, written as the source writes it
            raise self.lo.error("YS020", f"{prim}() of a tuple of computed values", node)
        static = {}
        for key, value in params.items():
            constant = _constant_value(value)
            if constant is _NOT_CONSTANT:
                error = self.lo.error("YS033", f"{key}= of {prim}() must be a constant", node)
                if self.lo.loop_level:  # np.roll(x, 1, axis=mu) in a loop over range(2): unrolled
                    raise NeedsUnrolling(*_fields(error))
                raise error
            static[key] = constant
        if rule.variadic:  # np.concatenate([a, b]): the list's elements are operands
            sequence = operands.pop()
            if isinstance(sequence, Lit) and isinstance(sequence.value, tuple):
                sequence = tuple(Lit(v) for v in sequence.value)
            if self.lo.lists.is_list(sequence) and prim == "stack" and static.get("axis", 0) == 0:
                return self.lo.lists.stacked(sequence, node)  # np.stack(lst)
            if self.lo.lists.is_list(sequence) and prim in ("stack", "concatenate"):
                return self.lo.lists.joined(prim, sequence, static.get("axis", 0), node)  # np.stack(lst, axis=1)
            if not isinstance(sequence, tuple):
                raise self.lo.error("YS032", f"{prim}() takes a list or tuple of arrays written in the call", node)
            operands.extend(sequence)
        atoms = self.lo.lists.list_operands(prim, [self.lo.as_array(o, node) for o in operands], node)
        return self.lo.add(prim, atoms, static, node)

    def generated_helper(self, callee: _Function, node: ast.AST) -> str | None:
        """The primitive a call of ``callee`` is where it is a runtime helper of a generated module
        (``frontend.generated``); None for any other function.  An edited helper, or one with no
        primitive of its own, is refused (YS031)."""
        module, fn = callee.module, callee.local
        if module.functions.get(fn.name) is not fn:
            return None
        where = f"{fn.name}() of {module.path}, a module yota-s2s generated"
        if edited_helper(module, fn):
            why = "its text is not the runtime helper's (edited?), so it is not read as the primitive it was"
            raise self.lo.error("YS031", f"{where}: {why}: regenerate the module, or rename the function", node)
        prim = generated_helpers(module).get(fn.name, "")
        if prim == "":
            return None
        if prim == "grad_stack":
            return prim
        if prim is None or prim not in self.lo.table or prim in _NOT_READ_BACK:
            why = "is not read back yet (no rule of its own for a call written in the source)"
            raise self.lo.error("YS031", f"{where}, {why}", node)
        return prim

    def grad_stack(self, args: list, kwargs: dict, node: ast.AST) -> object:
        """``_grad_stack(x, [d0, d1, ...])`` of a generated module: ``x``'s gradient buffer with each
        row written, zeros past them (the runtime helper's meaning, for an array ``x``)."""
        rows = args[1] if len(args) == 2 and not kwargs else None
        if not isinstance(rows, tuple):
            why = "_grad_stack() of a generated module takes x and a list of its rows written in the call"
            raise self.lo.error("YS031", why, node)
        buf = self.lo.add("grad_zeros", [self.lo.as_array(args[0], node)], {}, node)
        for k, row in enumerate(rows):
            buf = self.lo.add("index_add", [buf, self.lo.as_array(row, node)], {"index": (k,)}, node)
        return buf

    def adapt(self, name: str, args: list, kwargs: dict, node: ast.AST) -> object | None:
        """Calls whose meaning depends on their arguments' kind, in terms of primitives.

        ``sum([a, b, c])`` adds; ``sum(x)`` is ``np.sum(x, axis=0)``; ``max(a, b)`` is
        ``np.maximum``, ``max(x)`` is ``np.max(x, axis=0)``; ``np.array([a, b])`` of computed
        values stacks them (of constants, it is a constant array).  ``np.einsum("ij,jk", a, b)``
        takes its subscripts as the static ``subscripts`` and its operands as one sequence.
        """
        if name == "numpy.einsum":  # np.einsum(a, [0, 1], b, [1, 2], [0, 2]): the subscripts form
            args = subscripts_first(args, lambda why: self.lo.error("YS032", why, node))
        if name == "numpy.einsum" and not (args and isinstance(args[0], tuple)):
            if not (args and isinstance(args[0], Lit) and isinstance(args[0].value, str)):
                raise self.lo.error(
                    "YS032", "np.einsum() takes constant subscripts first: np.einsum('ij,jk->ik', a, b)", node
                )
            return self.call_primitive(name, [tuple(args[1:])], {**kwargs, "subscripts": args[0]}, node)
        if name == "numpy.gradient":
            return self.gradient_call(name, args, kwargs, node)
        # where=, initial=, b=, fsum, np.block, astype; np.split, np.diff(prepend=), np.pad, np.select, np.r_
        spelled = adapt_keywords(self.lo, name, args, kwargs, node)
        if spelled is not None:
            return spelled
        if name in _TRAPEZOIDS and "xs" not in kwargs and len(args) <= 4:
            # x=, the sample points, is the rule's operand xs (the gradient of an x would be the
            # static dx=), None where the call leaves it out
            bound = {**dict(zip(("y", "x", "dx", "axis"), args)), **kwargs}
            if "y" in bound and len(bound) == len(args) + len(kwargs):  # (else bind's error)
                y, xs = bound.pop("y"), bound.pop("x", Lit(None))
                return self.call_primitive(name, [y], {"xs": xs, **bound}, node)
        if kwargs:
            return None
        if name == "builtins.len" and len(args) == 1 and self.lo.dicts.is_tree(args[0]):  # len(p), p a tree
            return self.call_primitive(name, [self.lo.dicts.tree_values(args[0], node)], {}, node)
        if name == "builtins.len" and len(args) == 1 and isinstance(args[0], tuple | dict):
            return Lit(len(args[0]))  # len(xs) of *xs or a list written in the source
        comprehension = ast.GeneratorExp | ast.ListComp | ast.SetComp
        one = node.args[0] if isinstance(node, ast.Call) and len(node.args) == 1 else None
        reduction = name in ("builtins.sum", "builtins.max", "builtins.min")
        if reduction and isinstance(one, comprehension) and not isinstance(args[0], tuple):
            # sum(math.log(d) for d in data): static, Python's own sum (np.sum of a generator fails),
            # refused (where differentiated) with the comprehension's own reason
            inner = next((e for e in reversed(self.lo.tape.eqns) if args[0] in e.outs and e.prim == "static"), None)
            if inner is not None:
                code, message, line, col, text = inner.params["refusal"]
                raise UserError(code, message, self.lo.module.path, line, col, text or None)
            raise self.lo.error("YS041", f"{name[9:]}() of a comprehension over values not known when generating", node)
        if name == "builtins.sum" and len(args) == 1:
            if isinstance(args[0], tuple):
                total: object = Lit(0)
                for a in args[0]:
                    total = self.lo.binop("add", total, a, node)
                return total
            return self.call_primitive("numpy.sum", [args[0]], {"axis": Lit(0)}, node)
        if name in ("builtins.max", "builtins.min"):
            pairwise = "numpy.maximum" if name == "builtins.max" else "numpy.minimum"
            items = list(args[0]) if len(args) == 1 and isinstance(args[0], tuple) else args
            if len(args) == 1 and not isinstance(args[0], tuple):
                return self.call_primitive(f"numpy.{name[9:]}", [args[0]], {"axis": Lit(0)}, node)
            result = items[0]
            for item in items[1:]:
                result = self.call_primitive(pairwise, [result, item], {}, node)
            return result
        if name in ("numpy.array", "numpy.asarray") and len(args) == 1:
            value = args[0]
            if isinstance(value, tuple) and value and all(_is_constant_row(v) for v in value):
                return self.call_primitive(name, [Lit(tuple(_constant_row(v) for v in value))], kwargs, node)
            if isinstance(value, tuple) and not all(isinstance(v, Lit) for v in value):
                parts = [
                    self.call_primitive(name, [v], {}, node)
                    if isinstance(v, tuple) or (isinstance(v, Lit) and isinstance(v.value, tuple))
                    else v
                    for v in value
                ]
                return self.call_primitive("numpy.stack", [tuple(parts)], {}, node)
            if self.lo.lists.is_list(value):
                return self.lo.lists.stacked(value, node)
            if isinstance(value, Var | _Unresolved):
                return self.lo.as_array(value, node)
        return None

    def gradient_call(self, name: str, args: list, kwargs: dict, node: ast.AST) -> object | None:
        """``np.gradient(f, *varargs, axis=, edge_order=)`` over one axis: the spacing is one operand,
        ``1.0`` when none is given; a spacing per axis or several axes (a list of arrays) are refused."""
        axis = kwargs.get("axis")
        axes = axis.value if isinstance(axis, Lit) else axis
        if len(args) > 2 or (isinstance(axes, tuple) and len(axes) != 1):
            raise self.lo.error(
                "YS032",
                "np.gradient() over several axes returns a list: differentiate one axis at a time, "
                "np.gradient(f, h, axis=k)",
                node,
            )
        if len(args) == 1 and "h" not in kwargs:
            return self.call_primitive(name, [args[0], Lit(1.0)], kwargs, node)
        return None

    # ------------------------------------------------------------------ tuples, lambdas, comprehensions
    def expr_Tuple(self, node: ast.Tuple | ast.List, env: dict) -> object:
        return tuple(self.elements(node.elts, env)) if node.elts or isinstance(node, ast.Tuple) else _NewList()

    expr_List = expr_Tuple

    def expr_Lambda(self, node: ast.Lambda, env: dict) -> object:
        return callables.lambda_value(self.lo, node, env)

    def static_sequence(self, node: ast.expr, env: dict) -> tuple:
        """The items of a sequence whose length is known when generating: ``range`` of constants,
        a tuple or list (of names, of values), ``zip``/``enumerate``/``reversed`` of those."""
        if isinstance(node, ast.Call) and not node.keywords and isinstance(node.func, ast.Name):
            callee = self.lo.expr(node.func, env)  # (d.items(): a method, lowered as the call below)
            name = callee.name if isinstance(callee, _Function) and callee.local is None else None
            if name == "builtins.range":
                bounds = [self.lo.expr(a, env) for a in node.args]
                if all(isinstance(b, Lit) and type(b.value) is int for b in bounds) and 1 <= len(bounds) <= 3:
                    return tuple(Lit(i) for i in range(*(b.value for b in bounds)))
                raise self.lo.error(
                    "YS041",
                    "a comprehension needs range() of constants (its length is fixed when generating); "
                    "write a for loop for a length known at run time",
                    node,
                )
            if name == "builtins.zip":
                return self.zipped_sequences(node.args, env)
            if name in ("builtins.enumerate", "builtins.reversed"):
                seqs = [self.static_sequence(a, env) for a in node.args]
                if name == "builtins.reversed" and len(seqs) == 1:
                    return tuple(reversed(seqs[0]))
                if name == "builtins.enumerate" and len(seqs) == 1:
                    return tuple((Lit(i), v) for i, v in enumerate(seqs[0]))
        value = self.lo.expr(node, env)
        if isinstance(value, Lit) and isinstance(value.value, tuple | dict):  # (a dict: its keys)
            return tuple(Lit(v) for v in value.value)
        if isinstance(value, dict):
            return tuple(Lit(k) for k in value)
        if isinstance(value, tuple):
            return value
        raise self.lo.error(
            "YS041",
            f"{ast.unparse(node)} has a length known only at run time; a comprehension iterates over range() "
            "of constants or a tuple/list written in the source (write a for loop otherwise)",
            node,
        )

    def zipped_sequences(self, nodes: list[ast.expr], env: dict) -> tuple:
        """``zip(a, b)`` where one sequence at least has a length known when generating: the
        others are read at those indices (``zip(KEYS, c0)`` of a parameter ``c0``; an IndexError
        where ``c0`` is shorter, where Python's zip would stop early and a later read fail)."""
        seqs: list = []
        for a in nodes:
            try:
                seqs.append(self.static_sequence(a, env))
            except UserError as exc:
                if exc.code != "YS041":
                    raise
                seqs.append(a)
        known = [len(q) for q in seqs if isinstance(q, tuple)]
        if not known:
            raise self.lo.error("YS041", "zip() of sequences whose lengths are known only at run time", nodes[0])
        n = min(known)
        for k, q in enumerate(seqs):
            if not isinstance(q, tuple):
                items = [ast.copy_location(ast.Subscript(q, ast.Constant(i), ast.Load()), q) for i in range(n)]
                seqs[k] = tuple(self.lo.expr(item, env) for item in items)
        return tuple(zip(*seqs))


#: Helpers whose calls are not the rule's operands as written: ``_index_add(buf, g, np.s_[1:])``
#: passes its index as a value, where the primitive's is static.
_NOT_READ_BACK = frozenset({"index_add"})


def _is_constant_row(value: object) -> bool:
    """A number, or a nested tuple of numbers, known when generating: ``(Lit(1.0), Lit(0.0))``."""
    if isinstance(value, tuple):
        return bool(value) and all(_is_constant_row(v) for v in value)
    return isinstance(value, Lit) and (type(value.value) in (int, float, bool) or isinstance(value.value, tuple))


def _constant_row(value: object) -> object:
    return tuple(_constant_row(v) for v in value) if isinstance(value, tuple) else value.value
