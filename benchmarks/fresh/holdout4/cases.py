"""Holdout 4's cases: for each file (and idiom), the function, the parameters differentiated, and
its arguments drawn from a seeded generator."""

from __future__ import annotations

import numpy as np


def _vec(n):
    return lambda rng: (rng.normal(size=n),)


def _mat(m, n):
    return lambda rng: (rng.normal(size=(m, n)),)


def _smile(rng):
    strikes = np.array([80.0, 90.0, 100.0, 110.0, 120.0])
    quotes = np.array([21.0, 12.5, 6.0, 2.4, 0.9]) + 0.1 * rng.normal(size=5)
    del strikes
    return np.array([0.22, -0.1, 0.3]) + 0.01 * rng.normal(size=3), quotes


def _kinetics(rng):
    observed = 0.3 * np.sin(np.linspace(0.0, 2.0, 41)) + 0.02 * rng.normal(size=41)
    return np.array([10.0, 12.0]) + 0.1 * rng.normal(size=2), np.array([20000.0, 30000.0]), observed


def _fir(rng):
    t = np.linspace(0.0, 1.0, 32)
    target = np.sin(2.0 * np.pi * t)
    return rng.uniform(0.5, 1.5, size=7), target + 0.2 * rng.normal(size=32), target


def _focal(rng):
    return (
        0.3 * rng.normal(size=(4, 3)),
        0.1 * rng.normal(size=3),
        rng.normal(size=(10, 4)),
        rng.integers(0, 3, size=10),
    )


def _kriging(rng):
    return np.log(0.4), np.log(1.1), np.log(0.3), rng.normal(size=12)


def _pose(rng):
    poses = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 1.5], [1.0, 1.0, 3.0], [0.0, 1.0, -1.6]])
    measurements = np.array([[1.0, 0.0, 1.57], [1.0, 0.0, 1.57], [1.0, 0.0, 1.57], [1.0, 0.0, 1.57]])
    return poses + 0.05 * rng.normal(size=(4, 3)), measurements


def _svm(rng):
    X = rng.normal(size=(12, 3))
    y = np.sign(X @ np.array([1.0, -0.5, 0.2]) + 0.3 * rng.normal(size=12))
    return 0.5 * rng.normal(size=3), 0.1, X, y


def _dose(rng):
    params = {"bottom": 0.05, "top": 0.9, "ec50": 0.8, "slope": 1.2}
    params = {k: v * (1.0 + 0.02 * rng.normal()) for k, v in params.items()}
    return params, np.array([1.0, 2.0, 5.0, 11.0, 16.0, 18.0])


FILES = {
    "option_calibration_bs": ("smile_loss", ["smile"], _smile),
    "arm_kinematics": ("reach_cost", ["angles"], lambda rng: (np.array([0.3, 0.4, -0.2]) + 0.1 * rng.normal(size=3),)),
    "reaction_kinetics": ("sse", ["log_a"], _kinetics),
    "fir_design": ("design_loss", ["taps"], _fir),
    "focal_classifier": ("focal_loss", ["W", "b"], _focal),
    "kriging_mle": ("neg_log_marginal", ["log_ell", "log_sf", "log_noise"], _kriging),
    "beam_energy": ("total_energy", ["coeffs"], lambda rng: (rng.normal(size=4),)),
    "pose_graph": ("graph_cost", ["poses"], _pose),
    "svm_hinge": ("svm_objective", ["w", "b"], _svm),
    "dose_response": ("neg_log_lik", ["params"], _dose),
}


def _away_from_zero(n):
    return lambda rng: (rng.uniform(0.3, 1.5, size=n) * np.where(rng.normal(size=n) > 0, 1.0, -1.0),)


IDIOMS = {
    "dict_param_items": (None, lambda rng: ({"w": rng.normal(), "b": rng.normal()},)),
    "dict_param_values_arrays": (None, lambda rng: ({"a": rng.normal(size=3), "b": rng.normal(size=(2, 2))},)),
    "max_key_lambda": (None, lambda rng: (rng.normal(size=3), 2.0 + rng.normal(size=3), rng.normal(size=3))),
    "min_max_of_list": (None, lambda rng: (rng.normal(size=3), 2.0 * rng.normal(size=3))),
    "reduce_matmul": (None, lambda rng: (rng.normal(size=(2, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 2)))),
    "itertools_combinations": (None, _vec(5)),
    "itertools_product": (None, lambda rng: (rng.normal(size=3), rng.normal(size=2))),
    "math_fsum": (None, _vec(3)),
    "assert_fstring": (None, _vec(4)),
    "try_except_pure": (None, _vec(4)),
    "walrus_len": (None, _vec(6)),
    "match_mode": (["x"], _away_from_zero(5)),
    "annotated_everything": (["x"], _vec(5)),
    "float64_cast": (None, _vec(3)),
    "quadratic_form_T": (None, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3)))),
    "slogdet_gauss": (None, _mat(3, 3)),
    "norm_axis_rows": (None, _mat(4, 3)),
    "norm_ord_variants": (None, _away_from_zero(4)),
    "einsum_batched": (None, lambda rng: (rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3)))),
    "mask_assign_zero": (None, _away_from_zero(6)),
    "trapezoid_grid": (None, lambda rng: (1.0 + 0.1 * rng.normal(), 3.0 + 0.1 * rng.normal())),
    "convolve_same": (None, _vec(8)),
    "fft_power": (None, _vec(8)),
    "cross_product": (None, lambda rng: (rng.normal(size=3), rng.normal(size=3))),
    "arctan2_wrap": (None, lambda rng: (rng.normal(size=4), rng.normal(size=4))),
    "rotation_matrix": (None, lambda rng: (0.7 + 0.1 * rng.normal(), rng.normal(size=2))),
    "hinge_mean": (None, lambda rng: (0.1 * rng.normal(size=3), rng.normal(size=(5, 3)))),
    "focal_loss": (None, _vec(4)),
    "label_smoothing_ce": (None, _mat(3, 4)),
    "select_piecewise": (None, lambda rng: (np.array([-1.7, -0.4, 0.3, 0.8, 1.6]) + 0.05 * rng.normal(size=5),)),
    "roll_periodic": (None, _vec(6)),
    "gradient_fd": (None, _vec(7)),
    "logaddexp_pair": (None, lambda rng: (rng.normal(size=4), rng.normal(size=4))),
    "block_matrix": (None, lambda rng: (rng.normal(size=(2, 2)), rng.normal(size=(2, 2)))),
    "pad_edges": (None, _vec(6)),
    "fill_diagonal": (None, _vec(4)),
    "astype_flip": (None, _vec(5)),
    "namedtuple_config": (None, _vec(4)),
    "enumerate_zip_start": (None, lambda rng: (rng.normal(size=4), rng.normal(size=4))),
    "dataclass_property": (None, lambda rng: (1.0 + 0.3 * rng.normal(size=3),)),
}
