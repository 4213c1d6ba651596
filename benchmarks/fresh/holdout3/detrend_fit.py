"""Fitting a damped oscillator to a drifting sensor record: the drift is removed by a quadratic fit of the residual."""

import numpy as np

T = np.linspace(0.0, 4.0, 41)


def model(amp, freq, decay):
    return amp * np.exp(-decay * T) * np.cos(2.0 * np.pi * freq * T)


def misfit(amp, freq, decay, record):
    residual = record - model(amp, freq, decay)
    trend = np.polyval(np.polyfit(T, residual, 2), T)
    return np.mean((residual - trend) ** 2)
