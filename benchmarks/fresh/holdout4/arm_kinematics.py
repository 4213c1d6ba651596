"""Planar three-link arm: forward kinematics by a product of homogeneous transforms, reaching a target."""

from functools import reduce
from typing import NamedTuple

import numpy as np


class Arm(NamedTuple):
    lengths: tuple[float, float, float]
    target: tuple[float, float]


ARM = Arm(lengths=(1.0, 0.8, 0.5), target=(1.2, 0.9))


def link_transform(theta: float, length: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s, length * c], [s, c, length * s], [0.0, 0.0, 1.0]])


def reach_cost(angles: np.ndarray) -> float:
    transforms = [link_transform(a, l) for a, l in zip(angles, ARM.lengths)]
    pose = reduce(np.matmul, transforms)
    tip = pose[:2, 2]
    heading = np.arctan2(pose[1, 0], pose[0, 0])
    error = tip - np.array(ARM.target)
    return error @ error + 0.1 * (heading - 0.5) ** 2 + 1e-3 * np.sum(angles**2)
