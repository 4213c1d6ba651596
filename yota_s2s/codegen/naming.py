"""Names in generated code: one allocator that gives each new name a spelling no other one has.

A name starts from a base (a user's name, ``d`` + a value's name, ``_stack``) and, when the base
is taken (or a keyword), takes the first free variant of a *spelling*: ``numbered`` (``x_1``,
``x_2``: the functions' values), ``primed`` (``self_``, ``_b_``: the names of the buffered
classes), ``counted`` (``GradF2``: class names), ``prefixed`` (``_np``: the array module's alias when a
parameter is called ``np``).  Temporaries are numbered per prefix
(``_t1``, ``_t2``; ``_u1`` in the buffered classes), skipping taken names.

The module's own names (the runtime helpers it carries, the builtins its functions call, the
array module's alias) are module-level: a parameter of the same name would hide them in its
function.  ``module_spelling`` gives each one a parameter hides a new spelling for the whole module
(``_unbroadcast_1``: its definition and every call); ``respell`` renames the calls of a written
function to it.  A local value never takes such a name (every function's ``Names`` takes them).

    >>> names = Names({"x", "_t1"})
    >>> names.fresh("x"), names.fresh("x"), names.temp("_t"), names.fresh("self", primed)
    ('x_1', 'x_2', '_t2', 'self')
"""

from __future__ import annotations

import ast
import keyword
from collections.abc import Callable, Iterable, Iterator, Mapping

#: The builtins the written functions call (the scalar check, loops, element lists, constants,
#: ``len`` of a rule): a local value never takes their names, and a parameter that does gets the
#: module an alias (``isinstance_1 = isinstance``).  tests/test_names.py checks the list is whole.
CALLED_BUILTINS = (
    "float",
    "isinstance",
    "len",
    "range",
    "reversed",
    "slice",
    "type",
    "ValueError",
    "abs",
    "pow",
    "complex",
)


def numbered(base: str) -> Iterator[str]:
    """``base``, ``base_1``, ``base_2``, ..."""
    yield base
    n = 0
    while True:
        n += 1
        yield f"{base}_{n}"


def primed(base: str) -> Iterator[str]:
    """``base``, ``base_``, ``base__``, ..."""
    while True:
        yield base
        base += "_"


def prefixed(base: str) -> Iterator[str]:
    """``base``, ``_base``, ``_base_1``, ``_base_2``, ... (never ``__base``: a class's methods
    read that name mangled)."""
    yield base
    yield from numbered("_" + base)


def counted(base: str) -> Iterator[str]:
    """``base``, ``base2``, ``base3``, ..."""
    yield base
    n = 1
    while True:
        n += 1
        yield f"{base}{n}"


class Names:
    """The names taken in one scope of generated code, and new ones that are not."""

    def __init__(self, taken: Iterable[str] = ()):
        self.taken: set[str] = set(taken)
        self.counts: dict[str, int] = {}

    def take(self, *names: str) -> None:
        """Mark ``names`` taken (parameters, the module alias, helpers)."""
        self.taken.update(names)

    def fresh(self, base: str, spelling: Callable[[str], Iterator[str]] = numbered) -> str:
        """The first variant of ``base`` that is neither taken nor a keyword; now taken."""
        name = next(n for n in spelling(base) if n not in self.taken and not keyword.iskeyword(n))
        self.taken.add(name)
        return name

    def temp(self, prefix: str = "_t") -> str:
        """The next numbered temporary of ``prefix`` that is not taken: ``_t1``, ``_t2``, ..."""
        while True:
            self.counts[prefix] = self.counts.get(prefix, 0) + 1
            name = f"{prefix}{self.counts[prefix]}"
            if name not in self.taken:
                self.taken.add(name)
                return name


def module_spelling(
    params: Iterable[str], globals_: Iterable[str], libraries: Iterable[str], taken: Iterable[str]
) -> dict[str, str]:
    """A new spelling for each module-level name of ``globals_`` that a parameter hides:
    ``{"_unbroadcast": "_unbroadcast_1"}`` for a parameter called ``_unbroadcast``; and for each
    library module (``scipy.special``) whose top name a parameter hides, the name it is imported
    as (``{"scipy.special": "_scipy_special"}``).  A spelling is a name no parameter, global or
    ``taken`` name has."""
    params = set(params)
    globals_ = set(globals_)
    names = Names(params | globals_ | set(taken))
    spelling = {g: names.fresh(g) for g in sorted(globals_ & params)}
    for module in sorted(m for m in libraries if m.split(".")[0] in params):
        spelling[module] = names.fresh("_" + module.replace(".", "_"))
    return spelling


def respell(node: ast.AST, spelling: Mapping[str, str], skip: frozenset[int] | None = None) -> None:
    """Rename in place the module-level functions ``node`` calls (``_unbroadcast(g, x)``,
    ``isinstance(v, float)``) to their spelling in the module.  A written function calls only
    module-level names (its values are arrays and numbers), so a called name is never a parameter.

    With ``skip`` (the ids of the operands' nodes in an expression the target wrote: all the rest
    is the target's), the library functions it calls too (``scipy.special.erf(x)``); a method of
    an operand (``x.sum()``) is not one."""
    if not spelling:
        return
    todo = [node]
    while todo:
        n = todo.pop()
        if skip is not None and id(n) in skip:
            continue
        todo.extend(ast.iter_child_nodes(n))
        if not isinstance(n, ast.Call):
            continue
        if isinstance(n.func, ast.Name) and n.func.id in spelling:
            n.func.id = spelling[n.func.id]
        elif skip is not None and isinstance(n.func, ast.Attribute) and _dotted(n.func.value) in spelling:
            n.func.value = ast.Name(spelling[_dotted(n.func.value)], ast.Load())  # scipy.special.erf


def _dotted(node: ast.expr) -> str | None:
    """``scipy.special`` for the attribute chain ``scipy.special`` (None for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None
