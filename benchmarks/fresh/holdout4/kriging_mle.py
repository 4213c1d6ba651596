"""Kriging on a grid: the Gaussian-process marginal likelihood with a squared-exponential kernel."""

import numpy as np

GX, GY = np.meshgrid(np.linspace(0.0, 1.0, 4), np.linspace(0.0, 1.0, 3))
POINTS = np.column_stack([GX.ravel(), GY.ravel()])


def kernel(points: np.ndarray, log_ell: float, log_sf: float) -> np.ndarray:
    diff = points[:, None, :] - points[None, :, :]
    sq = np.einsum("ijk,ijk->ij", diff, diff)
    return np.exp(2.0 * log_sf) * np.exp(-0.5 * sq / np.exp(2.0 * log_ell))


def neg_log_marginal(log_ell: float, log_sf: float, log_noise: float, y: np.ndarray) -> float:
    n = y.shape[0]
    K = kernel(POINTS, log_ell, log_sf) + np.exp(2.0 * log_noise) * np.eye(n)
    alpha = np.linalg.solve(K, y)
    sign, logdet = np.linalg.slogdet(K)
    assert sign > 0, f"kernel matrix not positive definite (sign {sign})"
    iu = np.triu_indices(n, k=1)
    coupling = np.sum(K[iu] ** 2)
    return 0.5 * y.T @ alpha + 0.5 * logdet + 0.5 * n * np.log(2.0 * np.pi) + 1e-4 * coupling
