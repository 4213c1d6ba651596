"""The holdout's cases: for each file (and idiom), the function, the parameters differentiated,
and its arguments drawn from a seeded generator."""

from __future__ import annotations

import numpy as np


def _mlp(rng):
    params = {
        "W1": 0.5 * rng.normal(size=(4, 6)),
        "b1": 0.1 * rng.normal(size=6),
        "gamma": 1.0 + 0.1 * rng.normal(size=6),
        "beta": 0.1 * rng.normal(size=6),
        "W2": 0.5 * rng.normal(size=(6, 3)),
        "b2": 0.1 * rng.normal(size=3),
    }
    return params, rng.normal(size=(10, 4)), rng.integers(0, 3, size=10)


def _hmm(rng):
    return rng.normal(size=3), rng.normal(size=(3, 3)), rng.normal(size=(3, 4)), rng.integers(0, 4, size=12)


def _spring(rng):
    rest = np.random.default_rng(11).uniform(0, 3, size=(10, 2))  # (the file's REST_POS)
    return (rest + 0.05 * rng.normal(size=(10, 2)),)


FILES = {
    "kuramoto": ("synchrony_loss", ["K"], lambda rng: (1.5,)),
    "beam_fd": ("tip_deflection", ["EI"], lambda rng: (1.0 + rng.random(12),)),
    "logistic_growth": (
        "sse",
        ["p", "n0"],
        lambda rng: ({"r": 0.8, "K": 100.0}, 5.0, [5.0, 11.0, 22.0, 40.0, 60.0, 78.0, 88.0, 95.0, 98.0]),
    ),
    "mlp_batchnorm": ("cross_entropy", ["params"], _mlp),
    "spring_network": ("energy", ["pos"], _spring),
    "hmm_forward": ("log_likelihood", ["init_logits", "trans_logits", "emit_logits"], _hmm),
    "bayes_linreg": (
        "log_evidence",
        ["log_alpha", "log_beta"],
        lambda rng: (0.1, 1.2, rng.normal(size=(15, 4)), rng.normal(size=15)),
    ),
    "traffic_lwr": ("total_density", ["inflow", "rho0"], lambda rng: (0.3, rng.uniform(0.1, 0.8, size=20))),
    "pendulum_shooting": ("miss", ["omega0", "damping"], lambda rng: (1.0, 0.3)),
    "elastic_net": (
        "objective",
        ["w", "b"],
        lambda rng: (rng.normal(size=4), 0.2, rng.normal(size=(12, 4)), rng.normal(size=12)),
    ),
}


def _vec(n):
    return lambda rng: (rng.normal(size=n),)


IDIOMS = {
    "top_k_sum": (["x"], _vec(6)),
    "pick_argmax": (None, _vec(5)),
    "median_abs": (None, _vec(7)),
    "det_trace": (None, lambda rng: (rng.normal(size=(3, 3)),)),
    "cumprod_last": (None, _vec(5)),
    "gram_diag": (None, lambda rng: (rng.normal(size=(4, 3)),)),
    "closure_scale": (None, lambda rng: (rng.normal(size=4), 1.5)),
    "map_lambda": (None, _vec(4)),
    "list_slices": (None, _vec(4)),
    "weighted_arrays": (None, lambda rng: ([rng.normal(size=3), rng.normal(size=2)], [0.5, 2.0])),
    "hypot_angle": (None, lambda rng: (rng.normal(size=4), rng.normal(size=4))),
    "float_then_math": (None, lambda rng: (0.3 * rng.normal(size=3),)),
    "isinstance_branch": (["x"], _vec(4)),
    "dict_comprehension": (None, lambda rng: ({"u": 0.5, "v": -1.5},)),
    "star_unpack": (None, _vec(4)),
    "where_two_arrays": (None, lambda rng: (rng.normal(size=6), rng.normal(size=6))),
    "l1_norm": (None, _vec(5)),
    "kron_sum": (None, lambda rng: (rng.normal(size=2), rng.normal(size=3))),
    "inner_tensordot": (None, lambda rng: (rng.normal(size=(2, 3)), rng.normal(size=(2, 3)))),
    "module_dict_weights": (None, _vec(4)),
}
