"""Which writes go into their buffer in place: the rule the writer's plan (``codegen.plan``) and the
compositions before printing (``transform.batched.in_place_groups``) both read, so that a sweep the
pipeline splits off is the one the writer splits.

A group is a buffer and the chain of writes into it (``index_add``, ``setindex``: a primitive that
``writes_into`` its first operand), each reading the last once: ``dx = _grad_zeros(x)``, then
``dx[3] += g``.  A chain starts at a gradient buffer (a ``buffer`` primitive: zeros, a copy), or at
a new array that nothing else refers to, made in the same block: any array a ``setindex`` writes
into, and for an ``index_add`` a new array of the backward sweep (a gradient's, of floats where no
value is complex, so that ``g`` may be added in place).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .core import Atom, Eqn, Lit, Section, Var
from .primitives import primitive


def new_array(src: Eqn, arrays: Callable[[Atom], bool]) -> bool:
    """``src``'s result is a new array that nothing else refers to (``arrays(a)``: ``a`` is surely an
    array, so that arithmetic on it makes one)."""
    if src.prim == "asarray":  # np.asarray of a constant list
        return isinstance(src.args[0], Lit)
    record = primitive(src.prim)
    return record.fresh and not (record.python_arithmetic and not any(arrays(a) for a in src.args))


def extend_group(
    groups: dict[int, int],
    write: Eqn,
    uses: Mapping[int, int],
    outputs: set[int],
    src: Eqn | None,
    local: bool,
    arrays: Callable[[Atom], bool],
    complex_values: bool,
) -> None:
    """Add ``write`` (an equation of the tape) to the in-place group of its buffer, in ``groups``
    (value id -> the id of its group's first buffer), where it writes into one in place: its buffer
    read once and not returned, made by ``src`` (None: an input), ``local``: in the same block."""
    buf = write.args[0] if write.args else None
    if not primitive(write.prim).writes_into or not isinstance(buf, Var):
        return
    if uses.get(buf.id, 0) != 1 or buf.id in outputs:
        return
    if src is not None and primitive(src.prim).buffer:  # (a gradient buffer, zeros or a copy)
        groups[buf.id] = buf.id
    elif src is not None and local and not src.regions and _starts_chain(write, src, arrays, complex_values):
        groups.setdefault(buf.id, buf.id)
    if buf.id in groups:
        groups[write.out.id] = groups[buf.id]


def _starts_chain(write: Eqn, src: Eqn, arrays: Callable[[Atom], bool], complex_values: bool) -> bool:
    if src.prim == "setindex":
        return True
    if write.prim != "setindex" and (src.section != Section.BACKWARD or complex_values):
        return False
    return new_array(src, arrays)
