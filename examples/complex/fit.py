"""Recover a filter from its response by gradient descent with grad_response.grad_loss."""

import numpy as np
from grad_response import grad_loss
from response import loss

w = np.linspace(0.0, np.pi, 64)
b_true, pole_true = np.array([0.5, -0.3, 0.2]), 0.6 + 0.3j
z = np.exp(1j * w)
target = (b_true[0] + b_true[1] / z + b_true[2] / z**2) / (1.0 - pole_true / z)

b, pole = np.zeros(3), 0.0 + 0.0j
for step in range(3001):
    value, db, dpole = grad_loss(b, pole, w, target)
    b, pole = b - 0.1 * db, pole - 0.1 * dpole  # the complex gradient is a descent direction as it is
    if step % 1000 == 0:
        print(f"step {step}: loss {value:.3e}")
print("taps", np.round(b, 4), "pole", np.round(pole, 4))
print("loss at the fit", float(loss(b, pole, w, target)) < 1e-12)
