"""Holdout 3's cases: for each file (and idiom), the function, the parameters differentiated, and
its arguments drawn from a seeded generator."""

from __future__ import annotations

import numpy as np


def _vec(n):
    return lambda rng: (rng.normal(size=n),)


def _mat(m, n):
    return lambda rng: (rng.normal(size=(m, n)),)


def _nbody(rng):
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.2]]) + 0.05 * rng.normal(size=(3, 2))
    vel = np.array([[0.0, 0.1], [0.0, 0.8], [-0.7, 0.0]]) + 0.05 * rng.normal(size=(3, 2))
    return pos, vel, rng.normal(size=(3, 2))


def _plackett(rng):
    rankings = [rng.permutation(5) for _ in range(4)]
    return rng.normal(size=5), rankings


def _detrend(rng):
    t = np.linspace(0.0, 4.0, 41)
    record = 1.2 * np.exp(-0.3 * t) * np.cos(2.0 * np.pi * 0.8 * t) + 0.1 * t**2 + 0.05 * rng.normal(size=41)
    return 1.0, 0.75, 0.25, record


def _moments(rng):
    chol = np.array([[0.2, 0.0, 0.0], [0.05, 0.3, 0.0], [0.0, 0.07, 0.25]]) + 0.01 * rng.normal(size=(3, 3))
    return 0.03 + 0.01 * rng.normal(size=3), chol


def _varpro(rng):
    t = np.linspace(0.0, 3.0, 30)
    y = 2.0 * np.exp(-0.5 * t) + 0.7 * np.exp(-2.5 * t) + 0.1 + 0.01 * rng.normal(size=30)
    return np.array([0.6, 2.0]), y


def _markov(rng):
    observed = rng.uniform(0.5, 1.5, size=4)
    return rng.normal(size=(4, 4)), np.array([1.0, 0.0, 0.0, 0.0]), observed / observed.sum()


def _tobit(rng):
    X = np.column_stack([np.ones(25), rng.normal(size=(25, 2))])
    y = np.maximum(X @ np.array([0.3, 1.0, -0.5]) + 0.5 * rng.normal(size=25), 0.0)
    return np.array([0.2, 0.8, -0.4]), np.log(0.6), X, y


FILES = {
    "penalty_design": ("objective", ["width", "height"], lambda rng: (0.1, 0.2)),
    "nbody_state": ("final_miss", ["pos0", "vel0"], _nbody),
    "plackett_luce": ("loss", ["scores"], _plackett),
    "detrend_fit": ("misfit", ["amp", "freq", "decay"], _detrend),
    "moment_matching": ("mismatch", ["mu", "chol"], _moments),
    "varpro_exponentials": ("projected_residual", ["rates"], _varpro),
    "markov_occupancy": ("kl_to_observed", ["logits"], _markov),
    "tobit_regression": ("neg_log_lik", ["beta", "log_sigma"], _tobit),
    "yield_curve": ("pricing_error", ["rates"], lambda rng: (np.array([0.02, 0.022, 0.027, 0.031, 0.033]),)),
    "wavelet_prior": ("neg_log_posterior", ["signal"], lambda rng: (rng.normal(size=16), rng.normal(size=16))),
}


def _spd(rng):
    A = rng.normal(size=(3, 3))
    return A @ A.T + 3.0 * np.eye(3)


IDIOMS = {
    "sorted_extremes": (None, _vec(5)),
    "argsort_rank_weights": (None, _vec(6)),
    "zip_star_pairs": (None, _vec(5)),
    "dict_values_sum": (None, lambda rng: ({"a": 0.3, "b": -1.1, "c": 0.7},)),
    "object_in_branch": (["x"], _vec(4)),
    "weighted_average": (None, lambda rng: (rng.normal(size=6), rng.uniform(0.5, 1.5, size=6))),
    "cov_trace": (None, _mat(8, 3)),
    "corrcoef_pair": (None, lambda rng: (rng.normal(size=7), rng.normal(size=7))),
    "lstsq_coef": (None, lambda rng: (rng.normal(size=(8, 3)), rng.normal(size=8))),
    "qr_logdet": (None, lambda rng: (_spd(rng),)),
    "multi_dot_chain": (None, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=2))),
    "matrix_power_sum": (None, lambda rng: (0.5 * rng.normal(size=(3, 3)),)),
    "polyfit_slope": (None, _vec(8)),
    "norm_logpdf_sum": (None, lambda rng: (rng.normal(size=5), 0.3)),
    "norm_cdf_probit": (None, _vec(5)),
    "interp_knots": (None, _vec(4)),
    "cumprod_discount": (None, lambda rng: (rng.uniform(0.01, 0.1, size=6),)),
    "second_difference": (None, _vec(7)),
    "tril_outer": (None, _vec(4)),
    "triu_mask_pairs": (None, _mat(4, 4)),
    "raise_with_fstring": (None, _vec(5)),
    "early_return_in_loop": (None, _vec(6)),
    "generator_function": (None, _vec(5)),
    "recursion_static_depth": (None, _vec(4)),
    "closure_factory": (None, _vec(4)),
    "keyword_only": (["x"], lambda rng: (rng.uniform(0.2, 1.0, size=5) * np.sign(rng.normal(size=5)),)),
    "star_args_sum": (None, lambda rng: (0.4, -1.3, 0.8)),
    "triu_indices_pairs": (None, _mat(4, 3)),
    "meshgrid_bump": (None, lambda rng: (0.2, -0.3)),
    "max_with_key": (None, _vec(6)),
}
