"""Forward sensitivities of an ODE solution by jvp_trajectory_end: the derivative of the final
state along a direction of the parameters, in one pass with the solution, checked against
central differences; then the full 2 x 2 sensitivity matrix, one pass per parameter."""

import numpy as np
from decay import trajectory_end
from jvp_decay import jvp_trajectory_end

y0 = np.array([1.0, 0.0])
p = np.array([4.0, 0.3])
direction = np.array([1.0, -2.0])
y, dy = jvp_trajectory_end(y0, p, p_dot=direction)
eps = 1e-6
fd = (trajectory_end(y0, p + eps * direction) - trajectory_end(y0, p - eps * direction)) / (2 * eps)
print("final state      ", np.round(y, 6))
print("d state along dir", np.round(dy, 6))
print("central diff.    ", np.round(fd, 6))
S = np.stack([jvp_trajectory_end(y0, p, p_dot=e)[1] for e in np.eye(2)], axis=1)
print("sensitivity d y / d p:")
print(np.round(S, 6))
