"""Counter-flow heat exchanger (effectiveness-NTU); the design cost of a given area and flow split."""

import math


class Stream:
    def __init__(self, mdot, cp, t_in):
        self.mdot = mdot
        self.cp = cp
        self.t_in = t_in

    def capacity(self):
        return self.mdot * self.cp


class Exchanger:
    def __init__(self, area, u):
        self.area = area
        self.u = u

    def effectiveness(self, c_min, c_max):
        ntu = self.u * self.area / c_min
        cr = c_min / c_max
        if abs(1.0 - cr) < 1e-9:
            return ntu / (1.0 + ntu)
        e = math.exp(-ntu * (1.0 - cr))
        return (1.0 - e) / (1.0 - cr * e)

    def duty(self, hot, cold):
        c_hot, c_cold = hot.capacity(), cold.capacity()
        c_min, c_max = min(c_hot, c_cold), max(c_hot, c_cold)
        return self.effectiveness(c_min, c_max) * c_min * (hot.t_in - cold.t_in)


def design_cost(area, split):
    hx = Exchanger(area, 850.0)
    hot = Stream(2.0 * split, 4180.0, 360.0)
    cold = Stream(3.0 * (1.0 - split), 4180.0, 290.0)
    q = hx.duty(hot, cold)
    target = 2.5e5
    return 1e-8 * (q - target) ** 2 + 120.0 * area**0.6
