"""Holdout 5's cases: for each file (and idiom), the function, the parameters differentiated, and
its arguments drawn from a seeded generator."""

from __future__ import annotations

import numpy as np


def _vec(n):
    return lambda rng: (rng.normal(size=n),)


def _mat(m, n):
    return lambda rng: (rng.normal(size=(m, n)),)


def _path(rng):
    t = np.linspace(0.0, 3.0, 8)
    pts = np.stack([t, 0.5 * np.sin(t)], axis=1) + 0.05 * rng.normal(size=(8, 2))
    return pts.ravel(), pts[::7] + 0.1


def _tax(rng):
    return np.array([5.0, 25.0, 55.0, 130.0]) + rng.uniform(-2.0, 2.0, size=4), rng.uniform(0.5, 1.5, size=4)


def _rank(rng):
    return 0.3 * rng.normal(size=3), rng.normal(size=(4, 5, 3)), rng.permutation(20).reshape(4, 5) / 10.0


def _mix(rng):
    return rng.normal(size=4), rng.normal(size=(4, 2)), rng.normal(size=(15, 2))


FILES = {
    "path_smoothing": ("path_cost", ["flat"], _path),
    "tax_schedule": ("after_tax", ["incomes", "weights"], _tax),
    "listwise_rank": ("rank_loss", ["W"], _rank),
    "stick_breaking": ("mixture_nll", ["logit_v", "means"], _mix),
    "orbit_closest": ("closest_cost", ["v"], lambda rng: (np.array([0.4, 0.3]) + 0.05 * rng.normal(size=2),)),
}


def _away(n, lo=0.3, hi=1.5):
    return lambda rng: (rng.uniform(lo, hi, size=n) * np.where(rng.normal(size=n) > 0, 1.0, -1.0),)


IDIOMS = {
    "norm_keepdims_normalize": (None, _mat(4, 3)),
    "einsum_ellipsis_trace": (None, lambda rng: (rng.normal(size=(2, 3, 3)),)),
    "where_scalar_branch": (None, _away(6)),
    "clip_array_bounds": (
        ["x"],
        lambda rng: (np.array([-2.0, -0.3, 0.2, 0.9, 2.5]) + 0.01 * rng.normal(size=5), -np.ones(5), np.full(5, 2.0)),
    ),
    "maximum_reduce_list": (None, lambda rng: tuple(rng.normal(size=4) + k for k in (0.0, 0.05, 0.1))),
    "cumprod_survival": (None, lambda rng: (rng.uniform(0.1, 0.4, size=5),)),
    "diff_second_order": (None, _vec(6)),
    "convolve_valid": (None, lambda rng: (rng.normal(size=7), rng.normal(size=3))),
    "interp_table": (None, _vec(4)),
    "searchsorted_piecewise": (None, lambda rng: (np.array([-1.7, -0.4, 0.3, 1.6]) + 0.05 * rng.normal(size=4),)),
    "tile_repeat": (None, _vec(3)),
    "argsort_rank": (["y"], lambda rng: (rng.normal(size=5), rng.normal(size=5))),
    "unique_counts": (None, _vec(6)),
    "isclose_guard": (None, _vec(4)),
    "reshape_minus_one_ravel": (None, _vec(6)),
    "newaxis_pairwise": (None, _vec(4)),
    "step_negative_slices": (None, _vec(6)),
    "chained_comparison": (None, lambda rng: (np.array([-1.2, -0.2, 0.1, 0.3, 0.9]) + 0.02 * rng.normal(size=5),)),
    "lambda_closure": (None, lambda rng: (rng.normal(size=3), 1.0 + 0.1 * rng.normal())),
    "default_array_arg": (None, _vec(3)),
    "functools_partial_call": (None, lambda rng: (np.array([-1.5, -0.2, 0.3, 1.1]) + 0.02 * rng.normal(size=4),)),
    "global_counter_modified": (None, _vec(3)),
    "string_mode_dispatch": (["x"], _vec(4)),
    "early_return_loop": (None, _vec(5)),
    "while_tolerance_newton": (None, lambda rng: (2.0 + 0.1 * rng.normal(),)),
    "recursive_list_sum": (None, _vec(3)),
    "math_hypot_copysign": (None, lambda rng: (0.5 + 0.1 * rng.normal(), 0.8 + 0.1 * rng.normal())),
    "sqrt_negative_complex": (None, lambda rng: (np.array([0.2, 0.5, 1.5, 2.5]) + 0.02 * rng.normal(size=4),)),
    "inf_sentinel_min": (None, lambda rng: (np.array([1.3, -0.6, 0.9, 2.0]) + 0.02 * rng.normal(size=4),)),
    "class_staticmethod_chain": (None, _vec(4)),
}
