"""Calibrate a Black-Scholes volatility smile (quadratic in log-moneyness) to market prices."""

import math

import numpy as np

SPOT = 100.0
RATE = 0.02
MATURITY = 0.5
STRIKES = np.array([80.0, 90.0, 95.0, 100.0, 105.0, 110.0, 120.0])


def norm_cdf(x):
    return np.array([0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])


def call_price(sigma, strikes):
    sqrt_t = math.sqrt(MATURITY)
    d1 = (np.log(SPOT / strikes) + (RATE + 0.5 * sigma**2) * MATURITY) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    return SPOT * norm_cdf(d1) - strikes * math.exp(-RATE * MATURITY) * norm_cdf(d2)


def smile(params, strikes):
    m = np.log(strikes / SPOT)
    return params[0] + params[1] * m + params[2] * m**2


def calibration_error(params, market):
    model = call_price(smile(params, STRIKES), STRIKES)
    return np.sum((model - market) ** 2)
