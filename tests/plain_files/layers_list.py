import numpy as np


def predict(params, inputs):
    for W, b in params:
        outputs = inputs @ W + b
        inputs = np.tanh(outputs)
    return outputs


def loss(params, X, y):
    return np.sum((predict(params, X) - y) ** 2)
