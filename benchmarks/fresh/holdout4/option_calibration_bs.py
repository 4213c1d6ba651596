"""Black-Scholes implied-volatility smile calibration: a quadratic smile in log-moneyness."""

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm


@dataclass(frozen=True)
class Market:
    spot: float = 100.0
    rate: float = 0.01
    maturity: float = 0.5


MARKET = Market()
STRIKES = np.array([80.0, 90.0, 100.0, 110.0, 120.0])


def call_price(spot: float, strike: np.ndarray, rate: float, vol: np.ndarray, t: float) -> np.ndarray:
    sqrt_t = np.sqrt(t)
    d1 = (np.log(spot / strike) + (rate + 0.5 * vol**2) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    return spot * norm.cdf(d1) - strike * np.exp(-rate * t) * norm.cdf(d2)


def smile_loss(smile: np.ndarray, quotes: np.ndarray) -> float:
    m = np.log(STRIKES / MARKET.spot)
    vol = smile[0] + smile[1] * m + smile[2] * m**2
    vol = np.clip(vol, 0.01, 3.0)
    model = call_price(MARKET.spot, STRIKES, MARKET.rate, vol, MARKET.maturity)
    weights = 1.0 / np.maximum(quotes, 1.0)
    return float(np.sum(weights * (model - quotes) ** 2))
