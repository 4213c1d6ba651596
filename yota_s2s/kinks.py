"""Points that matter for a gradient check, and an honest check at a kink.

A gradient checked only at random points is never checked where rules need a convention: at
``abs(0)``, ``maximum(a, a)``, a tie of ``max``, ``floor`` at an integer, ``sign`` at zero.
``edge_points(values, rng)`` derives, from the float values of a point (the leaves of the
arguments that have a gradient), four *edge points*, each with a part of the components moved
onto such a place:

- ``zeros``: about half of each array's components (and each float scalar) set to ``0.0``;
- ``ties``: about half of each array's components set equal to another component of the same
  array, and half of an array's components equal to those of the next array of its shape;
- ``both signs``: about half of the components negated;
- ``integers``: about half of the components set to integer values in ``[-2, 2]``.

At such a point finite differences disagree with any single convention: the central difference
of ``|x|`` at ``0`` is ``0``, whatever one-sided slope a rule picks.  ``kink_check`` is the
honest test.  The *special* components of a point are those that are integer-valued (zero
included) or equal to another component (a tie).  A component's gradient ``g_i`` at a special
component is accepted when it lies between the one-sided difference quotients

    d- = (f(x) - f(x - h e_i)) / h      d+ = (f(x + h e_i) - f(x)) / h

(a subgradient along that axis), each quotient extrapolated from steps ``h`` and ``h/2``
(Richardson) so that its error is ``O(h**2)`` even where the second derivative jumps (``x * |x|``
at ``0``): at a smooth point both are the derivative, to ``O(h**2)``.  The rest of the gradient is checked by a central difference along a random direction
that leaves the special components where they are, and each tie inside one array by a central
difference along the direction that moves its members together (which keeps the tie: a
``max`` that gives all of ``dout`` to both tied maxima fails there).  A component where ``f`` or
the gradient is not finite on either side is not differentiable there and is counted as skipped.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

#: The edge points, in the order they are checked.
KINDS = ("zeros", "ties", "both signs", "integers")
#: The most special components of one array checked one by one at a point (sampled beyond).
MAX_COMPONENTS = 32
#: The most ties of one array checked along their common direction at a point.
MAX_TIES = 8


@dataclass
class KinkCount:
    """What the kink checks did: components checked one-sided, ties, components skipped."""

    components: int = 0
    ties: int = 0
    skipped: int = 0
    skipped_where: list[str] = field(default_factory=list)


def edge_points(values: list[np.ndarray], rng: np.random.Generator) -> list[tuple[str, list[np.ndarray]]]:
    """For each kind of edge point, the values moved onto it (float64 arrays, ``()`` for scalars).

    >>> rng = np.random.default_rng(0)
    >>> [(kind, [v.tolist() for v in vs]) for kind, vs in edge_points([np.array([0.5, 0.25])], rng)][:2]
    [('zeros', [[0.5, 0.0]]), ('ties', [[0.5, 0.5]])]
    """
    points = []
    for kind in KINDS:
        moved = [np.array(v, dtype=np.float64) for v in values]
        for v in moved:
            mask = _half(v.shape, rng)
            if kind == "zeros":
                v[mask] = 0.0
            elif kind == "both signs":
                v[mask] = -v[mask]
            elif kind == "integers":
                v[mask] = rng.integers(-2, 3, size=int(mask.sum())).astype(np.float64)
            elif v.size >= 2:  # ties: pairs of components made equal
                flat = v.reshape(-1)
                order = rng.permutation(v.size)
                for a, b in zip(order[0::2], order[1::2]):
                    if rng.random() < 0.5 or v.size < 4:
                        flat[b] = flat[a]
        if kind == "ties":  # and across arrays of one shape (maximum(x, y) with x[i] == y[i])
            for first, second in itertools.pairwise(moved):
                if first.shape == second.shape:
                    mask = _half(first.shape, rng)
                    second[mask] = first[mask]
        points.append((kind, moved))
    return points


def _half(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """A random mask of about half the components, never empty."""
    mask = rng.random(shape) < 0.5
    if mask.size and not mask.any():
        mask.reshape(-1)[rng.integers(mask.size)] = True
    return mask


def special(x: np.ndarray, everything: list[np.ndarray]) -> np.ndarray:
    """The special components of ``x``: integer-valued, or equal to another component of any of
    the values of the point (``everything``, ``x`` among them)."""
    values, counts = np.unique(np.concatenate([np.ravel(v) for v in everything]), return_counts=True)
    tied = values[counts > 1]
    with np.errstate(invalid="ignore"):
        return (x == np.round(x)) | np.isin(x, tied)


def kink_check(
    f: Callable[[np.ndarray], float],
    x: np.ndarray,
    g: np.ndarray,
    mask: np.ndarray,
    rng: np.random.Generator,
    tolerances: tuple[float, float, float],
    count: KinkCount,
    what: str,
    others: np.ndarray,
) -> str | None:
    """None when the gradient ``g`` of ``f`` at ``x`` passes the check at a kink (the module
    docstring); otherwise why not.  ``f`` takes the leaf's values; ``mask`` marks the special
    components; ``others`` holds the values of the point's other leaves (a tie with one of them
    is not kept by moving this leaf alone, so it is checked one-sided only)."""
    eps, rtol, atol = tolerances
    fx = f(x)
    g = np.asarray(g, dtype=np.float64)

    def close(exact: float, numeric: float) -> bool:
        return abs(exact - numeric) <= atol + rtol * abs(numeric)

    # the other components, along a direction that leaves the special ones where they are
    direction = np.where(mask, 0.0, rng.standard_normal(x.shape))
    if direction.any():
        numeric = converged_difference(f, x, direction, tolerances)
        exact = float(np.sum(g[direction != 0] * direction[direction != 0]))
        if numeric is not None and not close(exact, numeric):
            return (
                f"along a random direction that keeps its zero, tied and integer components, "
                f"analytic {exact:.10g} != numeric {numeric:.10g}"
            )
    # each tie inside the array, along the direction that moves its members together
    flat = x.reshape(-1)
    values, counts = np.unique(flat[mask.reshape(-1)], return_counts=True)
    groups = [v for v, c in zip(values, counts) if c > 1 and v != np.round(v) and v not in others]
    for value in _sample(groups, MAX_TIES, rng):
        together = (x == value).astype(np.float64)
        numeric = converged_difference(f, x, together, tolerances)
        exact = float(np.sum(g[together != 0]))
        if numeric is None or not np.isfinite(exact):
            continue
        count.ties += 1
        if not close(exact, numeric):
            members = ", ".join(_at(what, i, x.shape) for i in np.flatnonzero(together))
            return (
                f"at the tie {members} (all {value!r}), moved together: the sum of their gradients {exact!r} "
                f"!= numeric {numeric!r}"
            )
    # each special component, between its one-sided difference quotients
    for i in _sample(list(np.flatnonzero(mask)), MAX_COMPONENTS, rng):
        step = np.zeros(x.size)
        step[i] = eps
        step = step.reshape(x.shape)
        values = [f(x + step), f(x + step / 2), f(x - step / 2), f(x - step)]
        gi = float(g.reshape(-1)[i])
        if not (np.all(np.isfinite(values)) and np.isfinite(fx) and np.isfinite(gi)):
            count.skipped += 1
            count.skipped_where.append(_at(what, i, x.shape))
            continue
        count.components += 1
        up, half_up, half_down, down = values
        # one-sided derivatives, extrapolated (Richardson) so that a second derivative that jumps
        # at the kink (x * |x| at 0) does not move them by O(eps)
        right = 2 * (half_up - fx) / (eps / 2) - (up - fx) / eps
        left = 2 * (fx - half_down) / (eps / 2) - (fx - down) / eps
        low, high = min(left, right), max(left, right)
        tol = atol + rtol * max(abs(low), abs(high))
        if not low - tol <= gi <= high + tol:
            return (
                f"{_at(what, i, x.shape)} = {float(x.reshape(-1)[i])!r}: its gradient {gi!r} is not between the "
                f"one-sided derivatives {left!r} (left) and {right!r} (right)"
            )
    return None


def central_difference(
    f: Callable[[np.ndarray], float],
    x: np.ndarray,
    direction: np.ndarray,
    tolerances: tuple[float, float, float],
    exact: float,
    richardson: bool = True,
) -> tuple[float, bool]:
    """The central difference of ``f`` at ``x`` along ``direction``, and whether ``exact`` matches it.
    Where it does not, Richardson's combination of the steps ``eps`` and ``eps/2`` (the step's own
    error taken out, where ``f`` curves fast: ``sqrt(x*x + eps)`` at a small ``eps``) decides first
    (``richardson``: at the given point; an edge point has its own checks of wild differences)."""
    eps, rtol, atol = tolerances
    numeric = (f(x + eps * direction) - f(x - eps * direction)) / (2 * eps)
    if not richardson or abs(exact - numeric) <= atol + rtol * abs(numeric):
        return numeric, abs(exact - numeric) <= atol + rtol * abs(numeric)
    better = (4 * (f(x + eps / 2 * direction) - f(x - eps / 2 * direction)) / eps - numeric) / 3
    if np.isfinite(better) and abs(exact - better) <= atol + rtol * abs(better):
        return better, True
    return numeric, False


def converged_difference(
    f: Callable[[np.ndarray], float], x: np.ndarray, direction: np.ndarray, tolerances: tuple[float, float, float]
) -> float | None:
    """The central difference of ``f`` at ``x`` along ``direction``, or None when it is not to be
    trusted: not finite, or not the same with step ``eps`` and ``eps/2`` (where ``f`` is huge or
    wild, as an explicit ODE integration that blows up, the difference is rounding noise)."""
    eps, rtol, atol = tolerances
    numeric = (f(x + eps * direction) - f(x - eps * direction)) / (2 * eps)
    finer = (f(x + eps / 2 * direction) - f(x - eps / 2 * direction)) / eps
    if not (np.isfinite(numeric) and np.isfinite(finer)) or abs(numeric - finer) > atol + rtol * abs(finer):
        return None
    return numeric


def _sample(items: list, limit: int, rng: np.random.Generator) -> list:
    if len(items) <= limit:
        return items
    return [items[i] for i in sorted(rng.choice(len(items), size=limit, replace=False))]


def _at(what: str, flat_index: int, shape: tuple[int, ...]) -> str:
    """``x[1, 2]`` for a component of an array, ``x`` for a scalar."""
    if not shape:
        return what
    return f"{what}[{', '.join(str(int(i)) for i in np.unravel_index(flat_index, shape))}]"
