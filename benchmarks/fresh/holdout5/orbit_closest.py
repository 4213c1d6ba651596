"""Closest approach of a probe to a set of moons: positions by math.hypot per step, a float("inf")
sentinel for the minimum, an early return once the probe is captured, steps walked by
enumerate(..., start=1) and a cost accumulated over reversed(range(...))."""

import math

import numpy as np

MOONS = [(1.0, 0.5), (-0.8, 1.2), (0.3, -1.1)]


def closest_cost(v: np.ndarray, dt: float = 0.1, steps: int = 12) -> float:
    x, y = 0.0, 0.0
    best = float("inf")
    for k, _ in enumerate(range(steps), start=1):
        x = x + dt * v[0] * k
        y = y + dt * v[1] * k
        for mx, my in MOONS:
            d = math.hypot(x - mx, y - my)
            if d < best:  # noqa: PLR1730
                best = d
        if best < 1e-3:
            return 0.0
    penalty = 0.0
    for i in reversed(range(len(v))):
        penalty = 0.5 * penalty + v[i] ** 2
    return best + 0.01 * penalty
