"""Python lists built at run time: ``lst.append(v)`` in a loop, then ``np.array(lst)``.

A part of lowering (a fenced ``Module`` and a function name in, a primal ``Tape`` out;
``state`` lists the parts).  A list written in the source (``[a, b]``, ``[]`` then appends in
straight-line code) is a tuple of values, of a length known when generating.  A list a loop or
a branch appends to is a value of the tape, of the primitives of ``rules/python.py``:
``list_make`` (``[a, b]``, where it enters the loop), ``list_append`` and ``list_stack``
(``np.array(lst)``, ``np.stack(lst)``, and wherever a library function takes the list as an
array: ``np.sum(lst)``, ``sum(lst)``).  ``len(lst)``, ``lst[i]``, ``lst[-1]``, ``lst[1:]`` and
``for v in lst`` read it as Python does.  Its gradient is an array, the items' gradients
stacked: the items of a list a gradient flows through have one shape.

    >>> from yota_s2s.dsl.load import load_rules
    >>> from yota_s2s.frontend.fence import fence
    >>> from yota_s2s.frontend.lower import lower
    >>> src = ("import numpy as np\\ndef f(x, n):\\n    xs = [x]\\n    for i in range(n):\\n"
    ...        "        xs.append(np.sin(xs[-1]))\\n    return np.sum(np.array(xs))\\n")
    >>> [e.prim for e in lower(fence(src, "f.py"), "f", load_rules()).eqns]
    ['list_make', 'for', 'list_stack', 'sum']
"""

from __future__ import annotations

import ast

from ..ir.core import Atom, Slice, Var
from .state import LoweringState

#: Primitives that take a list built at run time as it is (the others take ``np.array(lst)``).
_TAKE_LISTS = frozenset({"len", "getindex", "static", "effect", "list_append", "list_stack"})


class ListLowering(LoweringState):
    """Lists built at run time (a part of ``lower.Lowerer``)."""

    def is_list(self, value: object) -> bool:
        return isinstance(value, Var) and value.id in self.lists

    def as_list(self, value: object, node: ast.AST) -> Atom:
        if self.is_list(value):
            return value
        items = [self.as_array(v, node) for v in value]
        out = self.add("list_make", items, {}, node)
        self.lists.add(out.id)
        return out

    def append_value(self, name: str, current: object, value: object, node: ast.Call) -> object:
        """The list ``name`` holds after ``name.append(value)``."""
        if isinstance(current, tuple):  # a list of known length: one more value
            return (*current, value)
        if not self.is_list(current):
            raise self.error("YS034", f"{name}.append(...) needs {name} to be a list (start it with {name} = [])", node)
        out = self.add("list_append", [current, self.as_array(value, node)], {}, node)
        self.lists.add(out.id)
        return out

    def list_operands(self, prim: str, atoms: list[Atom], node: ast.AST) -> list[Atom]:
        if prim in _TAKE_LISTS or not any(self.is_list(a) for a in atoms):
            return atoms
        return [self.stacked(a, node) if self.is_list(a) else a for a in atoms]

    def stacked(self, value: Var, node: ast.AST) -> Atom:
        """``np.array(lst)`` of a list built at run time."""
        return self.add("list_stack", [value], {}, node)

    def mark_lists(self, sources: list[list[object]], outs: list[Var]) -> None:
        """Results of a loop or branch are lists where a value they may be is (``sources[k]``)."""
        for k, out in enumerate(outs):
            if any(self.is_list(v) for v in sources[k]):
                self.lists.add(out.id)

    def list_slice(self, value: Atom, index: tuple, out: Atom) -> None:
        """``lst[1:]`` of a list is a list."""
        if self.is_list(value) and isinstance(out, Var) and any(isinstance(i, Slice) for i in index):
            self.lists.add(out.id)
