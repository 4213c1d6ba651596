"""The cases of ``benchmarks.fresh``: for each file (and each idiom of ``idioms.py``), the
function, the parameters differentiated, and its arguments drawn from a seeded generator."""

from __future__ import annotations

import numpy as np


def _md(rng):
    grid = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.5, 0.8]], dtype=float)
    return 1.12 * grid + 0.03 * rng.normal(size=(5, 3)), 0.1 * rng.normal(size=(5, 3))


def _glmm(rng):
    X = np.column_stack([np.ones(20), rng.normal(size=20)])
    return (
        np.array([0.3, 0.2]),
        0.2 * rng.normal(size=4),
        -0.5,
        X,
        rng.poisson(2.0, size=20),
        np.arange(20) % 4,
    )


def _attention(rng):
    params = {k: 0.5 * rng.normal(size=(4, 4)) for k in ("Wq", "Wk", "Wv", "Wo")}
    params["Wout"] = 0.5 * rng.normal(size=(4, 5))
    return params, rng.normal(size=(6, 4)), rng.integers(0, 5, size=6)


def _gmm(rng):
    params = {"logits": rng.normal(size=3), "means": rng.normal(size=(3, 2)), "log_std": 0.2 * rng.normal(size=(3, 2))}
    return params, rng.normal(size=(20, 2))


#: file -> (function, wrt, arguments)
FILES = {
    "poly_potential": (
        "loss",
        ["coef"],
        lambda rng: (rng.normal(size=4), [rng.uniform(0, 2, size=(4, 3)) for _ in range(3)], rng.normal(size=3)),
    ),
    "fem_bar": ("compliance", ["E"], lambda rng: (1.0 + rng.random(8),)),
    "pce": ("fit_loss", ["c"], lambda rng: (rng.normal(size=10), rng.normal(size=(20, 2)), rng.normal(size=20))),
    "bezier_fit": ("fit", ["ctrl"], lambda rng: (rng.normal(size=(4, 2)), rng.normal(size=(15, 2)))),
    "homotopy": ("objective", ["a"], lambda rng: (np.array([0.5, 1.2, 0.3]),)),
    "lattice_phi4": ("total", ["phi"], lambda rng: (rng.normal(size=(6, 6)),)),
    "md_verlet": ("final_energy", ["x0", "v0"], _md),
    "thin_film": ("merit", ["thickness_nm"], lambda rng: (np.array([60.0, 100.0, 60.0, 100.0]) + rng.normal(size=4),)),
    "qubit_control": ("cost", ["ux", "uy"], lambda rng: (3.0 + rng.normal(size=12), rng.normal(size=12))),
    "glmm_poisson": ("neg_log_joint", ["beta", "u", "log_sigma"], _glmm),
    "gp_matern": (
        "nlml",
        ["log_hyp"],
        lambda rng: (np.array([0.1, 0.2, -2.0]), rng.normal(size=(8, 2)), rng.normal(size=8)),
    ),
    "causal_attention": ("loss", ["params"], _attention),
    "lqr_rollout": ("rollout_cost", ["K"], lambda rng: (0.1 * rng.normal(size=(1, 4)), rng.normal(size=4))),
    "pk_two_compartment": (
        "neg_log_lik",
        ["theta", "log_sigma"],
        lambda rng: (np.log([1.0, 5.0, 30.0, 2.0, 50.0]), 0.1, rng.uniform(0.5, 3.0, size=7)),
    ),
    "poly_trend": (
        "objective",
        ["coef"],
        lambda rng: (rng.normal(size=7), np.arange(1.0, 25.0), rng.normal(size=24)),
    ),
    "heat_inverse": ("misfit", ["u0"], lambda rng: (rng.normal(size=(8, 8)), rng.normal(size=(8, 8)))),
    "gmm_nll": ("nll", ["params"], _gmm),
    "truss": ("compliance", ["areas"], lambda rng: (1.0 + rng.random(10),)),
    "esn_readout": (
        "readout_loss",
        ["w_out", "input_scale"],
        lambda rng: (0.1 * rng.normal(size=30), 0.5, np.sin(np.arange(25) / 3.0), np.cos(np.arange(25) / 3.0)),
    ),
    "option_calibration": (
        "calibration_error",
        ["params"],
        lambda rng: (np.array([0.2, -0.1, 0.3]), np.array([21.5, 12.4, 8.6, 5.6, 3.3, 1.9, 0.6])),
    ),
}


def _vec(n, shift=0.0):
    return lambda rng: (rng.normal(size=n) + shift,)


#: idiom (a function of idioms.py) -> (wrt or None for all, arguments)
IDIOMS = {
    "sum_of_squares_loop": (None, _vec(5)),
    "mean_with_len": (None, _vec(5)),
    "dot_by_zip": (None, lambda rng: (rng.normal(size=4), rng.normal(size=4))),
    "enumerate_weights": (None, _vec(5)),
    "clip_and_sum": (None, lambda rng: (2.0 * rng.normal(size=6),)),
    "where_relu": (None, _vec(6)),
    "normalise": (None, _vec(5)),
    "softplus_sum": (None, _vec(5)),
    "logsumexp_stable": (None, _vec(5)),
    "mse": (["pred"], lambda rng: (rng.normal(size=5), rng.normal(size=5))),
    "zeros_dtype_float": (None, _vec(4)),
    "ones_bool_mask": (None, _vec(4)),
    "array_dtype_float": (None, lambda rng: (0.7, -1.3)),
    "stack_appended_rows": (None, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=4))),
    "list_comprehension_sum": (None, _vec(5)),
    "generator_of_logs": (None, lambda rng: (rng.uniform(0.5, 2.0, size=5),)),
    "math_on_scalars": (None, lambda rng: (0.7, 1.3)),
    "dict_of_params": (["p"], lambda rng: ({"w": rng.normal(size=3), "b": 0.4}, rng.normal(size=3))),
    "kwargs_defaults": (["x"], _vec(4)),
    "tuple_unpack_return": (None, _vec(6)),
    "shape_driven": (None, lambda rng: (rng.normal(size=(3, 4)),)),
    "cumsum_diff": (None, _vec(6)),
    "outer_product": (None, lambda rng: (rng.normal(size=3), rng.normal(size=4))),
    "matrix_solve": (None, lambda rng: (rng.normal(size=(3, 3)), rng.normal(size=3))),
    "trace_inverse": (None, lambda rng: (rng.normal(size=(3, 3)),)),
    "einsum_bilinear": (None, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=4))),
    "fancy_index": (["x"], lambda rng: (rng.normal(size=6), np.array([0, 2, 2, 5]))),
    "boolean_select": (None, _vec(6)),
    "while_converge": (None, lambda rng: (2.0,)),
    "if_else_branch": (["x"], _vec(5)),
    "module_table": (None, _vec(3)),
    "range_len_loop": (None, _vec(6)),
    "reshape_mean": (None, _vec(6)),
    "concatenate_parts": (None, lambda rng: (rng.normal(size=3), rng.normal(size=2))),
    "polyval_fit": (["c"], lambda rng: (rng.normal(size=3), np.linspace(-1, 1, 5))),
    "erf_cdf": (None, _vec(5)),
    "lgamma_loglik": (["alpha"], lambda rng: (2.5, rng.uniform(0.5, 3.0, size=6))),
    "arange_dtype": (None, _vec(4)),
    "full_and_eye": (None, _vec(4)),
    "seeded_random_features": (None, _vec(3)),
}
