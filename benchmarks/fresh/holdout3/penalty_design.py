"""Cantilever cross-section sizing: mass plus quadratic penalties on stress, deflection and bounds."""

LENGTH = 2.0
LOAD = 1.5e3
E_MOD = 2.0e9
DENSITY = 7.8e3
STRESS_MAX = 5.0e6
DEFL_MAX = 0.02
BOUNDS = {"width": (0.05, 0.5), "height": (0.05, 1.0)}


def section(width, height):
    area = width * height
    inertia = width * height**3 / 12.0
    return area, inertia


def violations(width, height):
    _, inertia = section(width, height)
    stress = LOAD * LENGTH * (height / 2.0) / inertia
    deflection = LOAD * LENGTH**3 / (3.0 * E_MOD * inertia)
    yield stress / STRESS_MAX - 1.0
    yield deflection / DEFL_MAX - 1.0
    for name, value in (("width", width), ("height", height)):
        low, high = BOUNDS[name]
        yield (low - value) / low
        yield (value - high) / high


def penalty(*gs, rho):
    return rho * sum(max(g, 0.0) ** 2 for g in gs)


def objective(width, height, *, rho=100.0):
    area, _ = section(width, height)
    mass = DENSITY * area * LENGTH
    return mass / 1000.0 + penalty(*violations(width, height), rho=rho)
