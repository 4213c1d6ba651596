"""Four-parameter logistic dose-response, binomial likelihood over plates held in a dict."""

import numpy as np

DOSES = np.array([0.01, 0.1, 0.3, 1.0, 3.0, 10.0])


def hill(params: dict, dose: np.ndarray) -> np.ndarray:
    bottom, top = params["bottom"], params["top"]
    return bottom + (top - bottom) / (1.0 + (params["ec50"] / dose) ** params["slope"])


def neg_log_lik(params: dict, responders: np.ndarray, n_per_dose: int = 20) -> float:
    p = np.clip(hill(params, DOSES), 1e-6, 1.0 - 1e-6)
    ll = responders * np.log(p) + (n_per_dose - responders) * np.log1p(-p)
    prior = sum(0.01 * v**2 for k, v in params.items() if k != "ec50")
    if (total := np.sum(ll)) < -1e6:
        return 1e6
    return -total + prior
