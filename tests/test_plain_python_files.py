"""Realistic files of everyday Python (issue 22), run through the command line as a user would.

Each file in ``tests/plain_files/`` is a small scientific or ML program written the way people
write them: dicts of parameters read in loops over layers (``params["W" + str(i)]``: the loop is
unrolled where the key depends on it), a dict of species concentrations carried through a time
loop, ``divmod`` on counters then ``nb += 1``, a validation helper that only raises, a nested
closure and a lambda passed to a helper, ``enumerate(zip(...))`` with a nested target, a list of
arrays sliced and summed, an RK4 integrator appending states, a Gaussian-process likelihood.
The generated module is checked by ``yota_s2s.check_grads`` (central differences at the point
and at its edge points: zeros, ties, both signs).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from yota_s2s.verify import check_grads

FILES = Path(__file__).resolve().parent / "plain_files"


def _kalman_args(rng, m):
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    R = np.array([[0.2]])
    return (0.05, F, H, R, rng.normal(size=(6, 1)), np.array([0.0, 1.0]), np.eye(2))


#: file -> (function, --wrt or None for the default, the arguments from a generator and the user module)
CASES = {
    "module_statics": ("f", None, lambda rng, m: (rng.normal(size=5),)),
    "lj": ("lj_energy", ["pos"], lambda rng, m: (np.array([[0.0, 0.0], [1.1, 0.1], [0.2, 1.2], [1.3, 1.1]]),)),
    "kalman": ("kalman_nll", ["q", "x0"], _kalman_args),
    "model_class": (
        "objective",
        ["model"],
        lambda rng, m: (
            m.LogReg(rng.normal(size=3), 0.1),
            rng.normal(size=(8, 3)),
            (rng.random(8) > 0.5).astype(float),
        ),
    ),
    "stats": ("zscore_loss", ["x"], lambda rng, m: (rng.normal(size=9),)),
    "softmax": (
        "xent",
        ["W"],
        lambda rng, m: (rng.normal(size=(4, 3)), rng.normal(size=(6, 4)), np.array([0, 2, 1, 1, 0, 2])),
    ),
    "while_true": ("fixed_point", ["a"], lambda rng, m: (0.8,)),
    "scalar_math": ("rosen_like", None, lambda rng, m: (0.7, 1.3)),
    "heat": ("heat_loss", ["u0", "kappa"], lambda rng, m: (rng.normal(size=8), 0.5, rng.normal(size=8))),
    "attention": (
        "attention_loss",
        ["Wq", "Wk", "Wv"],
        lambda rng, m: (
            rng.normal(size=(4, 3)),
            rng.normal(size=(4, 3)),
            rng.normal(size=(4, 2)),
            rng.normal(size=(5, 4)),
        ),
    ),
    "tuple_state": ("leapfrog", ["theta", "x0"], lambda rng, m: (0.3, rng.normal(size=3), rng.normal(size=3))),
    "param_list": (
        "loss",
        ["params"],
        lambda rng, m: (
            [rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=4), 0.3],
            rng.normal(size=(5, 3)),
            rng.normal(size=5),
        ),
    ),
    "layers_list": (
        "loss",
        ["params"],
        lambda rng, m: (
            [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 1)), rng.normal(size=1))],
            rng.normal(size=(5, 3)),
            rng.normal(size=(5, 1)),
        ),
    ),
    "data_list": (
        "loss",
        ["w"],
        lambda rng, m: (
            rng.normal(size=3),
            [(rng.normal(size=(4, 3)), rng.normal(size=4)), (rng.normal(size=(2, 3)), rng.normal(size=2))],
        ),
    ),
    "nested_unpack": (
        "loss",
        ["params"],
        lambda rng, m: (
            [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 1)), rng.normal(size=1))],
            rng.normal(size=(5, 3)),
            rng.normal(size=(5, 1)),
        ),
    ),
    "mlp_dict": (
        "loss",
        ["params"],
        lambda rng, m: (
            {"W0": rng.normal(size=(3, 4)), "W1": rng.normal(size=(4, 4)), "W2": rng.normal(size=(4, 1))},
            rng.normal(size=(5, 3)),
            rng.normal(size=5),
        ),
    ),
    "traj": ("energy_drift", None, lambda rng, m: (rng.normal(size=3), rng.normal(size=3), 1.5)),
    "static_misc": ("f", ["x", "w"], lambda rng, m: (rng.normal(size=7), rng.normal(size=7))),
    "closure": (
        "objective",
        ["w"],
        lambda rng, m: (rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6), 0.1),
    ),
    "newton": ("loss", None, lambda rng, m: (0.7,)),
    "consts": ("spring_energy", ["pos"], lambda rng, m: (rng.normal(size=(4, 2)),)),
    "conversions": ("f", None, lambda rng, m: (rng.normal(size=4), rng.normal(size=4))),
    "accum": ("f", None, lambda rng, m: (rng.normal(size=(5, 3)), rng.normal(size=3))),
    "early_return": ("f", ["x"], lambda rng, m: (rng.normal(size=6), 1.0)),
    "windows": ("smooth_loss", ["x"], lambda rng, m: (rng.normal(size=8),)),
    "rk4": ("loss", ["k"], lambda rng, m: (np.array([1.3, 0.2]), np.array([1.0, 0.0]), rng.normal(size=11))),
    "gp": (
        "nll",
        ["log_params"],
        lambda rng, m: (np.array([0.1, 0.2, -1.0]), rng.normal(size=(6, 2)), rng.normal(size=6)),
    ),
    "minibatch": (
        "loss",
        ["w"],
        lambda rng, m: (rng.normal(size=3) * 0.3, rng.normal(size=(10, 3)), (rng.random(10) > 0.5).astype(float)),
    ),
    "kinetics": ("fit", ["rates"], lambda rng, m: ({"k1": 0.8, "k2": 0.3}, (1.0, 0.2, 0.0), rng.random(30))),
    "checks": ("energy", ["x"], lambda rng, m: (rng.normal(size=5),)),
    "grid": ("potential", ["c"], lambda rng, m: (rng.normal(size=3),)),
    "lists": ("f", None, lambda rng, m: (rng.normal(size=6), [0.5, 1.5, 2.0])),
    "params_dict_init": (
        "loss",
        ["params"],
        lambda rng, m: (
            {
                "W1": rng.normal(size=(5, 3)),
                "b1": rng.normal(size=5),
                "W2": rng.normal(size=(2, 5)),
                "b2": rng.normal(size=2),
            },
            rng.normal(size=3),
            rng.normal(size=2),
        ),
    ),
}


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_command_line_differentiates_the_file(name, tmp_path):
    entry, wrt, make_args = CASES[name]
    source = FILES / f"{name}.py"
    out = tmp_path / f"grad_{name}.py"
    command = [sys.executable, "-m", "yota_s2s", str(source), "--func", entry, "--out", str(out)]
    command += ["--wrt", ",".join(wrt)] if wrt else []
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    user = _load(source, f"plain_{name}")
    generated = _load(out, f"grad_plain_{name}")
    check_grads(
        getattr(user, entry), getattr(generated, f"grad_{entry}"), make_args(np.random.default_rng(0), user), wrt=wrt
    )
