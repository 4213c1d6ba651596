"""FIR low-pass design: taps shaped by a window, fitted so the filtered signal tracks a smooth target."""

import numpy as np

N_TAPS = 7
WINDOW = np.hanning(N_TAPS + 2)[1:-1]


def filter_signal(taps: np.ndarray, signal: np.ndarray) -> np.ndarray:
    h = taps * WINDOW
    h = h / np.sum(h)
    return np.convolve(signal, h, mode="same")


def design_loss(taps: np.ndarray, signal: np.ndarray, target: np.ndarray) -> float:
    out = filter_signal(taps, signal)
    fit = np.linalg.norm(out - target) ** 2
    smooth = np.sum(np.diff(taps) ** 2)
    spectrum = np.abs(np.fft.rfft(taps * WINDOW, n=16)) ** 2
    stopband = np.sum(spectrum[5:])
    return fit + 0.1 * smooth + 0.01 * stopband
