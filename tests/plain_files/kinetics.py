import numpy as np

SPECIES = ("A", "B", "C")


def simulate(rates, c0, dt=0.05, steps=30):
    c = dict(zip(SPECIES, c0))
    history = []
    for _ in range(steps):
        r1 = rates["k1"] * c["A"]
        r2 = rates["k2"] * c["B"] ** 2
        c = {"A": c["A"] - dt * r1, "B": c["B"] + dt * (r1 - 2 * r2), "C": c["C"] + dt * r2}
        history.append(c["C"])
    return np.array(history)


def fit(rates, c0, observed):
    pred = simulate(rates, c0)
    return np.mean((pred - observed) ** 2)
