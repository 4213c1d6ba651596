"""Holdout 2's cases: for each file (and idiom), the function, the parameters differentiated, and
its arguments drawn from a seeded generator."""

from __future__ import annotations

import numpy as np


def _vec(n):
    return lambda rng: (rng.normal(size=n),)


def _mat(m, n):
    return lambda rng: (rng.normal(size=(m, n)),)


def _spd(rng):
    A = rng.normal(size=(3, 3))
    return A @ A.T + 3.0 * np.eye(3)


def _kalman(rng):
    ys = np.cumsum(0.1 * rng.normal(size=12))[:, None] + 0.05 * rng.normal(size=(12, 1))
    return -2.0, -3.0, ys


def _softmax(rng):
    params = {"W": 0.3 * rng.normal(size=(4, 3)), "b": 0.1 * rng.normal(size=3)}
    return params, rng.normal(size=(15, 4)), rng.integers(0, 3, size=15)


def _arrhenius(rng):
    params = {"k1": (2.0, 5000.0), "k2": (1.0, 4000.0)}
    observed = {name: rng.uniform(0.0, 1.0, size=(3, 11)) for name in ("A", "B", "C")}
    return params, observed


def _node(rng):
    layers = [
        (0.5 * rng.normal(size=(5, 2)), 0.1 * rng.normal(size=5)),
        (0.5 * rng.normal(size=(5, 5)), 0.1 * rng.normal(size=5)),
        (0.5 * rng.normal(size=(2, 5)), 0.1 * rng.normal(size=2)),
    ]
    return layers, np.array([1.0, 0.0]), rng.normal(size=(20, 2))


FILES = {
    "kalman_filter": ("neg_log_likelihood", ["log_q", "log_r"], _kalman),
    "softmax_classifier": ("loss", ["params"], _softmax),
    "huber_regression": (
        "objective",
        ["beta", "intercept"],
        lambda rng: (rng.normal(size=3), 0.1, rng.normal(size=(20, 3)), rng.standard_t(3, size=20)),
    ),
    "heat_exchanger": ("design_cost", ["area", "split"], lambda rng: (8.0, 0.45)),
    "portfolio": ("utility", ["logits"], lambda rng: (0.3 * rng.normal(size=4), np.full(4, 0.25))),
    "arrhenius_fit": ("sse", ["params"], _arrhenius),
    "tv_denoise": ("energy", ["u"], lambda rng: (rng.normal(size=(5, 6)), rng.normal(size=(5, 6)))),
    "neural_ode": ("trajectory_loss", ["layers", "y0"], _node),
    "projectile_drag": ("miss", ["speed", "angle_deg", "drag"], lambda rng: (18.0, 40.0, 0.02)),
    "beta_binomial": ("nll", ["log_a", "log_b"], lambda rng: (0.5, 1.0, [5, 9, 3, 14, 6, 8])),
}


IDIOMS = {
    "col_mean_keepdims": (None, _mat(5, 3)),
    "row_max_softmax": (None, _mat(4, 3)),
    "clip_maximum_chain": (None, lambda rng: (rng.uniform(-1.0, 2.0, size=8),)),
    "variance_by_hand": (None, _vec(6)),
    "star_head_tail": (None, _vec(4)),
    "enumerate_zip": (None, lambda rng: (rng.normal(size=5), rng.normal(size=5))),
    "dict_items_loop": (None, lambda rng: ({"low": 0.3, "high": -1.2},)),
    "table_lookup": (["x"], _vec(4)),
    "math_specials": (None, lambda rng: (0.4,)),
    "np_specials": (None, lambda rng: (rng.uniform(0.2, 1.5, size=5),)),
    "integer_powers": (None, lambda rng: (rng.uniform(0.5, 2.0, size=5),)),
    "horner_loop": (None, lambda rng: (rng.normal(size=4), rng.normal(size=6))),
    "polyval_coeffs": (None, _vec(5)),
    "boolean_mask_mean": (None, _vec(9)),
    "solve_norm": (None, lambda rng: (_spd(rng), rng.normal(size=3))),
    "inv_det": (None, lambda rng: (_spd(rng),)),
    "einsum_trace": (None, lambda rng: (rng.normal(size=(3, 3)), rng.normal(size=(3, 3)))),
    "newaxis_pairwise": (None, _vec(5)),
    "early_return": (["x"], _vec(4)),
    "while_newton_sqrt": (None, lambda rng: (2.3,)),
    "small_class": (None, _vec(2)),
    "reduce_product": (None, lambda rng: (rng.uniform(0.5, 1.5, size=5),)),
    "matvec_at": (None, lambda rng: (rng.normal(size=(4, 4)), rng.normal(size=4))),
    "std_axis": (None, _mat(6, 3)),
    "median_of_array": (None, _vec(7)),
    "percentile_spread": (None, _vec(12)),
    "list_of_runtime_length": (None, _vec(5)),
    "sum_axis_tuple": (None, lambda rng: (rng.normal(size=(3, 2, 4)),)),
    "prod_and_cumsum": (None, _vec(6)),
    "dataclass_params": (None, _vec(4)),
}
