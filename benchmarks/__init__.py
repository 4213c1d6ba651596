"""Gradient benchmarks of yota-s2s against hand-written code and other AD tools (``python -m benchmarks``).

``workloads`` holds the loss functions and their inputs, ``hand_grads`` the hand-written
gradients, ``peers`` the ways of computing a gradient that are timed, ``run`` the runner
and its markdown report.  See docs/performance.md.
"""
