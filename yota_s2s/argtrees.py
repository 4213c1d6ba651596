"""Arguments as trees: the leaves of a gradient and of the argument it belongs to.

A gradient mirrors its argument: a dict gradient for an object or a dict parameter (one entry per
attribute or key read), a list or tuple of gradients for a list or tuple of arrays of different
shapes (``W1, b1 = params``), an array or a number otherwise.  ``check_grads`` walks both together
and moves one leaf of a copy of the arguments at a time; the caller's arguments never change.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence


def leaves(grad: object, arg: object, path: tuple[str, ...] = ()):
    """(attribute path, gradient) for each array gradient; a dict gradient is one per attribute."""
    if isinstance(grad, Mapping):
        for key in grad:
            yield from leaves(grad[key], get(arg, (key,)), (*path, key))
    elif isinstance(grad, list | tuple) and isinstance(arg, list | tuple) and len(grad) == len(arg):
        for k, item in enumerate(grad):  # W1, b1 = params of a list of arrays: a list of gradients
            yield from leaves(item, arg[k], (*path, k))
    else:
        yield path, grad


def get(obj: object, path: Sequence[str | int]) -> object:
    for key in path:
        if isinstance(obj, Mapping) or (isinstance(key, int) and isinstance(obj, list | tuple)):
            obj = obj[key]
        else:
            obj = getattr(obj, key)
    return obj


def replace(obj: object, path: Sequence[str], value: object) -> object:
    """A copy of ``obj`` with the attribute (or item) at ``path`` replaced; ``obj`` is not changed."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(key, int) and isinstance(obj, list | tuple):
        items = list(obj)
        items[key] = replace(obj[key], rest, value)
        return items if isinstance(obj, list) else tuple(items)
    new = copy.copy(obj)
    if isinstance(obj, Mapping):
        new[key] = replace(obj[key], rest, value)
    else:  # object.__setattr__ also sets the field of a frozen dataclass copy
        object.__setattr__(new, key, replace(getattr(obj, key), rest, value))
    return new
