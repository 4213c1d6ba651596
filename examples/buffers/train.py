"""Train the perceptron of mlp.py with the buffered gradient: one GradLoss, called every step.

python examples/buffers/train.py
"""

import numpy as np
from grad_mlp import GradLoss, grad_loss

rng = np.random.default_rng(0)
X, Y = rng.standard_normal((64, 32)), rng.standard_normal((64, 4))
params = [rng.standard_normal((32, 16)) / 6, np.zeros(16), rng.standard_normal((16, 4)) / 4, np.zeros(4)]
grad = GradLoss()  # its buffers are allocated by the first call, reused by the next ones
for step in range(200):
    value, *grads = grad(*params, X, Y)  # the gradients are the instance's buffers...
    for p, g in zip(params, grads):
        p -= 0.05 * g  # ...used before the next call overwrites them
    if step % 50 == 0:
        print(f"step {step}: loss {value:.4f}")
plain = grad_loss(*params, X, Y)
print("same as grad_loss:", all(np.array_equal(a, b) for a, b in zip(grad(*params, X, Y), plain)))
