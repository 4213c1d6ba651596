"""Mean-variance portfolio from softmax weights over a named table of assets, with a turnover cost."""

import functools

import numpy as np

ASSETS = {
    "bonds": {"mu": 0.03, "vol": 0.05},
    "stocks": {"mu": 0.08, "vol": 0.18},
    "gold": {"mu": 0.04, "vol": 0.15},
    "reit": {"mu": 0.06, "vol": 0.20},
}
NAMES = sorted(ASSETS)
CORR = np.array(
    [
        [1.0, -0.2, 0.1, 0.0],
        [-0.2, 1.0, 0.0, 0.6],
        [0.1, 0.0, 1.0, 0.1],
        [0.0, 0.6, 0.1, 1.0],
    ]
)


def covariance():
    vol = np.array([ASSETS[n]["vol"] for n in NAMES])
    return np.einsum("i,ij,j->ij", vol, CORR, vol)


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def utility(logits, previous, risk_aversion=3.0):
    w = softmax(logits)
    mu = np.array([ASSETS[n]["mu"] for n in NAMES])
    ret = w @ mu
    var = w @ covariance() @ w
    turnover = functools.reduce(lambda acc, d: acc + np.sqrt(d * d + 1e-8), w - previous, 0.0)
    return -(ret - 0.5 * risk_aversion * var) + 0.002 * turnover
