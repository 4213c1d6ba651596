"""Per-family tables for tests/test_rules.py, merged here.

Each module may define:

- ``SYMPY``: elementwise primitive -> a function building its SymPy expression;
- ``DOMAIN``: primitive -> ``(low, high)`` for every operand, or ``{operand: (low, high)}``:
  where the oracle and the finite differences sample it (inside the domain, away from kinks);
- ``SPECS``: non-elementwise primitive -> ``[(call template with {f}, [operand shapes]), ...]``;
- ``METHODS``: ``ndarray.*`` source name -> ``[(expression in x, y, [operand shapes]), ...]``.
"""

from . import elementwise, linalg, numerics, polynomial, python, reductions, shape

SYMPY: dict = {}
DOMAIN: dict = {}
SPECS: dict = {}
METHODS: dict = {}
for _module in (elementwise, linalg, numerics, polynomial, python, reductions, shape):
    for _name, _table in (("SYMPY", SYMPY), ("DOMAIN", DOMAIN), ("SPECS", SPECS), ("METHODS", METHODS)):
        _table.update(getattr(_module, _name, {}))


def domain(prim: str, operand: str) -> tuple[float, float] | None:
    """The sampling interval of ``operand`` of ``prim``, or None for the default (signed, |v| in [0.5, 2])."""
    d = DOMAIN.get(prim)
    if isinstance(d, dict):
        return d.get(operand)
    return d
