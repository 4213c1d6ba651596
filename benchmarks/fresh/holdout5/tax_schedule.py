"""Expected after-tax income under a progressive schedule: bracket found by np.searchsorted,
a deduction interpolated from a table (np.interp), a fixed-point solve for the break-even rate
by a while loop with a tolerance."""

import numpy as np

BRACKETS = np.array([0.0, 10.0, 40.0, 90.0])
RATES = np.array([0.0, 0.1, 0.25, 0.4])
DEDUCT_X = np.array([0.0, 20.0, 60.0, 120.0])
DEDUCT_Y = np.array([5.0, 4.0, 2.0, 0.0])


def tax(income):
    k = np.searchsorted(BRACKETS, income, side="right") - 1
    base = np.concatenate(([0.0], np.cumsum(np.diff(BRACKETS) * RATES[:-1])))
    return base[k] + RATES[k] * (income - BRACKETS[k])


def break_even(target, tol=1e-10, max_iter=100):
    r = 0.1
    it = 0
    while it < max_iter:
        r_new = 0.5 * (r + target / (1.0 + r))
        if abs(r_new - r) < tol:
            break
        r = r_new
        it += 1
    return r


def after_tax(incomes: np.ndarray, weights: np.ndarray) -> float:
    taxable = np.maximum(incomes - np.interp(incomes, DEDUCT_X, DEDUCT_Y), 0.0)
    net = incomes - tax(taxable)
    r = break_even(0.2)
    return np.sum(weights * net) * (1.0 - r)
