"""Listwise ranking loss: documents sorted by a fixed relevance (np.argsort), scores gathered
with np.take_along_axis, a scorer class whose methods call each other, a staticmethod, and the
loss picked by a string parameter."""

import numpy as np


class Scorer:
    def __init__(self, temperature: float = 1.0):
        self.temperature = temperature

    @staticmethod
    def discount(n: int) -> np.ndarray:
        return 1.0 / np.log2(np.arange(2, n + 2))

    def scores(self, W, X):
        return X @ W / self.temperature

    def loss(self, W, X, relevance, mode="softmax"):
        s = self.scores(W, X)
        order = np.argsort(-relevance, axis=1)
        ranked = np.take_along_axis(s, order, axis=1)
        if mode == "softmax":
            z = ranked - ranked.max(axis=1, keepdims=True)
            logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
            return -np.mean(np.sum(self.discount(s.shape[1]) * logp, axis=1))
        elif mode == "l2":
            return np.mean((ranked - relevance[np.arange(len(relevance))[:, None], order]) ** 2)
        raise ValueError(mode)


def rank_loss(W: np.ndarray, X: np.ndarray, relevance: np.ndarray) -> float:
    return Scorer(temperature=0.5).loss(W, X, relevance, mode="softmax") + 0.1 * Scorer().loss(
        W, X, relevance, mode="l2"
    )
