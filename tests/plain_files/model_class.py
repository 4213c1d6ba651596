import numpy as np


class LogReg:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def predict(self, X):
        return 1.0 / (1.0 + np.exp(-(X @ self.w + self.b)))

    def loss(self, X, y, l2=0.01):
        p = np.clip(self.predict(X), 1e-12, 1 - 1e-12)
        reg = l2 * np.sum(self.w**2)
        return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)) + reg


def objective(model, X, y):
    return model.loss(X, y)
