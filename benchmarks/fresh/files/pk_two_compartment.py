"""Two-compartment pharmacokinetics with first-order absorption (explicit Euler), fitted to
log-normal concentration measurements."""

import math

import numpy as np

DOSE = 100.0
T_END = 24.0
N_STEPS = 240
dt = T_END / N_STEPS
SAMPLE_TIMES = [0.5, 1.0, 2.0, 4.0, 8.0, 12.0, 24.0]
SAMPLE_STEPS = [int(round(t / dt)) for t in SAMPLE_TIMES]


def simulate(theta):
    ka, cl, v1, q, v2 = np.exp(theta)
    gut, c1, c2 = DOSE, 0.0, 0.0
    conc = []
    for step in range(1, N_STEPS + 1):
        absorbed = ka * gut
        flow = q * (c1 - c2)
        gut = gut - dt * absorbed
        c1 = c1 + dt * (absorbed - cl * c1 - flow) / v1
        c2 = c2 + dt * flow / v2
        if step in SAMPLE_STEPS:
            conc.append(c1)
    return np.array(conc)


def neg_log_lik(theta, log_sigma, observed):
    pred = simulate(theta)
    sigma = math.exp(log_sigma)
    z = (np.log(observed) - np.log(pred)) / sigma
    return 0.5 * np.sum(z**2) + len(observed) * np.log(sigma)
