import math


def rosen_like(a, b):
    total = sum((a - k) ** 2 for k in range(3))
    total += math.exp(-a * b) + math.sqrt(abs(b) + 1.0) + math.log(1.0 + a * a)
    return total + max(a, b) * min(a, 2.0)
