"""Names in generated code: one allocator that gives each new name a spelling no other one has.

A name starts from a base (a user's name, ``d`` + a value's name, ``_stack``) and, when the base
is taken (or a keyword), takes the first free variant of a *spelling*: ``numbered`` (``x_1``,
``x_2``: the functions' values), ``primed`` (``self_``, ``_b_``: the names of the buffered
classes), ``counted`` (``GradF2``: class names), ``prefixed`` (``_np``: the array module's alias when a
parameter is called ``np``).  Temporaries are numbered per prefix
(``_t1``, ``_t2``; ``_u1`` in the buffered classes), skipping taken names.

    >>> names = Names({"x", "_t1"})
    >>> names.fresh("x"), names.fresh("x"), names.temp("_t"), names.fresh("self", primed)
    ('x_1', 'x_2', '_t2', 'self')
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Iterable, Iterator


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
    """``base``, ``_base``, ``__base``, ..."""
    while True:
        yield base
        base = "_" + base


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
