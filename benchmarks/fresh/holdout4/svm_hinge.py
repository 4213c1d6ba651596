"""Linear SVM primal: a squared hinge or a smooth hinge loss, chosen by a match on the loss name."""

import numpy as np


def margin_loss(margins: np.ndarray, kind: str) -> np.ndarray:
    match kind:
        case "hinge2":
            return np.maximum(0.0, 1.0 - margins) ** 2
        case "smooth":
            z = 1.0 - margins
            return np.where(z <= 0.0, 0.0, np.where(z >= 1.0, z - 0.5, 0.5 * z**2))
        case _:
            raise ValueError(f"unknown loss {kind!r}")


def svm_objective(w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray, C: float = 1.0, kind: str = "smooth") -> float:
    margins = y * (X @ w + b)
    return 0.5 * w @ w + C * np.mean(margin_loss(margins, kind))
