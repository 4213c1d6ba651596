"""Lighthill-Whitham-Richards traffic flow with a Godunov scheme; total delay w.r.t. the inflow."""

import numpy as np

N_CELLS = 20
DX = 0.1
V_MAX = 1.0
RHO_MAX = 1.0
T_END = 1.0


def flux(rho):
    return V_MAX * rho * (1.0 - rho / RHO_MAX)


def godunov_flux(left, right):
    crit = RHO_MAX / 2
    demand = np.where(left < crit, flux(left), flux(crit))
    supply = np.where(right > crit, flux(right), flux(crit))
    return np.minimum(demand, supply)


def total_density(inflow, rho0):
    rho = rho0
    t = 0.0
    dt = 0.4 * DX / V_MAX
    total = 0.0
    while t < T_END:
        padded = np.concatenate([[inflow], rho, [rho[-1]]])
        F = godunov_flux(padded[:-1], padded[1:])
        rho = rho - dt / DX * (F[1:] - F[:-1])
        total = total + dt * np.sum(rho) * DX
        t += dt
    return total
