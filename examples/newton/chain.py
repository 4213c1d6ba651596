"""The equilibrium of a chain of anharmonic springs, each bead also held by a spring to its rest
position, under a load: its Hessian is tridiagonal, and --hessian computes it by its diagonals
(newton.py solves each Newton step with the three of them)."""

import numpy as np


def energy(u, load):
    stretch = u[1:] - u[:-1]
    return np.sum(0.5 * stretch**2 + 0.25 * stretch**4) + np.sum(0.5 * u**2 + 0.1 * u**4 - load * u)
