"""The peers: every way of computing a workload's gradient that the benchmark times.

Input: a ``Case`` (one workload at one size, its arguments and a scratch folder).
Output: for each peer in ``PEERS``, a ``Built`` (a zero-argument call and how to read the
gradients out of its result), ``None`` when the peer does not apply to the case, or an
exception.  ``Unsupported`` is the one the runner reports as ``unsupported: <error line>``:
yota-s2s refused the workload's source.

Every peer but the NumPy ones is optional.  ``Peer.module`` names what it needs; a peer
whose module is not importable is reported as not installed and skipped, so nothing here
imports JAX, torch, autograd or tangent at module level.  ``yota_s2s`` runs the real CLI
in a subprocess on the workload's source written to a file, then imports the module it
wrote.

>>> [p for p, peer in PEERS.items() if peer.automatic]
['jax_jit', 'jax_eager', 'autograd', 'torch', 'sympy', 'tangent', 'yota_s2s']
>>> PEERS["torch"].install
'torch==2.13.0'
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from . import hand_grads
from .workloads import Workload


class Unsupported(Exception):
    """yota-s2s refused the workload (its ``path:line:col: error: ...`` line is the message)."""


@dataclass
class Case:
    """One workload at one size: what every peer's ``build`` receives."""

    workload: Workload
    size: str
    args: tuple
    workdir: Path
    threads: int = 0

    @property
    def func(self) -> Callable:
        return self.workload.func(self.size)


@dataclass
class Built:
    """A peer ready to time: ``call()`` computes the gradient, ``grads(result)`` gives the tuple
    of gradient arrays (``None`` for a forward), ``traced`` says whether tracemalloc sees its
    allocations (NumPy reports its buffers to tracemalloc; torch and XLA allocate their own)."""

    call: Callable[[], object]
    grads: Callable[[object], tuple] | None
    traced: bool = True


@dataclass(frozen=True)
class Peer:
    name: str
    label: str  # the table header
    build: Callable[[Case], Built | None]
    module: str | None = None  # the import it needs; None: NumPy only
    install: str = ""  # the pip requirement that provides `module`
    family: str = "numpy"  # runtimes whose threads spin after work are timed apart
    automatic: bool = False  # computes the gradient by itself (the "best automatic peer")

    def installed(self) -> bool:
        return self.module is None or importlib.util.find_spec(self.module) is not None


# --------------------------------------------------------------------- source re-execution


def exec_with_np(workload: Workload, size: str, np_module: object) -> Callable:
    """The workload's function at ``size`` re-executed from its source with ``np`` bound to ``np_module``."""
    source = workload.source(size).removeprefix("import numpy as np\n")
    namespace = {"np": np_module, "__name__": f"bench_{workload.name}"}
    exec(compile(source, f"<workload {workload.name}>", "exec"), namespace)  # noqa: S102 - the workload's own text
    return namespace[workload.func(size).__name__]


def _as_tuple(result: object, n: int) -> tuple:
    return (result,) if n == 1 and not isinstance(result, tuple | list) else tuple(result)


# ----------------------------------------------------------------------------- NumPy peers


def _numpy_fwd(case: Case) -> Built:
    return Built(partial(case.func, *case.args), None)


def _numpy_fwd_nopow(case: Case) -> Built | None:
    fwd = hand_grads.FWD_NOPOW.get((case.workload.name, case.size))
    return None if fwd is None else Built(partial(fwd, *case.args), None)


def _hand(case: Case) -> Built:
    return Built(partial(hand_grads.HAND[case.workload.name, case.size][0], *case.args), tuple)


def _hand_mech(case: Case) -> Built | None:
    mech = hand_grads.HAND[case.workload.name, case.size][1]
    return None if mech is None else Built(partial(mech, *case.args), tuple)


# ------------------------------------------------------------------------------------ JAX


def _jax():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    jax.config.update("jax_enable_x64", True)
    return jax


def _jax_setup(case: Case):
    jax = _jax()
    import jax.numpy as jnp

    f = exec_with_np(case.workload, case.size, jnp)
    args = [jnp.asarray(a) if i in case.workload.wrt else a for i, a in enumerate(case.args)]
    return jax, f, args


def _jax_jit(case: Case) -> Built:
    jax, f, args = _jax_setup(case)
    grad = jax.jit(jax.grad(f, argnums=case.workload.wrt), static_argnums=case.workload.static(case.size))
    ready = jax.block_until_ready
    return Built(lambda: ready(grad(*args)), tuple, traced=False)


def _jax_eager(case: Case) -> Built:
    jax, f, args = _jax_setup(case)
    grad = jax.grad(f, argnums=case.workload.wrt)
    ready = jax.block_until_ready
    return Built(lambda: ready(grad(*args)), tuple, traced=False)


# ------------------------------------------------------------------------------- autograd


def _autograd(case: Case) -> Built:
    import autograd
    import autograd.numpy as anp

    f = exec_with_np(case.workload, case.size, anp)
    wrt = case.workload.wrt
    grad = autograd.grad(f, argnum=wrt if len(wrt) > 1 else wrt[0])
    return Built(partial(grad, *case.args), lambda r: _as_tuple(r, len(wrt)))


# ---------------------------------------------------------------------------------- torch


def _torch_numpy():
    """The part of the NumPy namespace the workloads use, over torch."""
    import torch

    def sum_(x, axis=None, keepdims=False):
        return torch.sum(x) if axis is None else torch.sum(x, dim=axis, keepdim=keepdims)

    def max_(x, axis=None, keepdims=False):
        return torch.amax(x) if axis is None else torch.amax(x, dim=axis, keepdim=keepdims)

    return types.SimpleNamespace(sum=sum_, max=max_, exp=torch.exp, log=torch.log, tanh=torch.tanh, diag=torch.diag)


def _torch(case: Case) -> Built:
    import torch

    if case.threads:
        torch.set_num_threads(case.threads)
    f = exec_with_np(case.workload, case.size, _torch_numpy())
    wrt = case.workload.wrt
    args = [
        torch.tensor(a, dtype=torch.float64, requires_grad=True) if i in wrt else a for i, a in enumerate(case.args)
    ]
    inputs = [args[i] for i in wrt]
    grad = torch.autograd.grad

    def call():
        return grad(f(*args), inputs)

    return Built(call, lambda r: tuple(g.detach().numpy() for g in r), traced=False)


# ---------------------------------------------------------------------------------- SymPy


def _sympy(case: Case) -> Built | None:
    """The symbolic gradient of the scalar polynomial, shared subexpressions by ``cse``, as NumPy code."""
    w = case.workload
    if not w.polynomial:
        return None
    import sympy

    symbols = sympy.symbols(f"x0:{w.nvars}")
    expr = exec_with_np(w, "small", None)(list(symbols))  # the small size takes x[0], x[1], ...
    fn = sympy.lambdify(symbols, [sympy.diff(expr, s) for s in symbols], modules="numpy", cse=True)
    (x,) = case.args
    if case.size == "small":
        return Built(lambda: (np.array(fn(*x.tolist()), dtype=float),), tuple)

    def call():
        out = np.empty_like(x)
        for i, gi in enumerate(fn(*x)):
            out[i] = gi
        return (out,)

    return Built(call, tuple)


# -------------------------------------------------------------------------------- tangent


def _tangent(case: Case) -> Built:
    os.environ["TANGENT_DISK_CACHE"] = "0"  # keep tangent-ad from writing to ~/.cache
    import tangent

    wrt = case.workload.wrt
    grad = tangent.grad(case.func, wrt=wrt, verbose=0)
    return Built(partial(grad, *case.args), lambda r: _as_tuple(r, len(wrt)))


# ------------------------------------------------------------------------------- yota_s2s

_ERROR_LINE = re.compile(r"^\S+:\d+:\d+: error: ")


def yota_command() -> list[str]:
    """The ``yota-s2s`` installed beside this Python, else the one on PATH, else ``python -m yota_s2s``."""
    beside = Path(sys.executable).parent / "yota-s2s"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("yota-s2s")
    return [found] if found else [sys.executable, "-m", "yota_s2s"]


def generate(case: Case, buffers: bool = False, value: bool = False) -> types.ModuleType:
    """Write the workload to ``<func>.py``, run ``yota-s2s <func>.py --func F --wrt ... --out grad_<func>.py
    --no-value`` (``value``: without ``--no-value``; ``buffers``: with ``--buffers``) in ``case.workdir`` and
    import what it wrote."""
    name = case.func.__name__
    src = case.workdir / f"{name}.py"
    src.write_text(case.workload.source(case.size), encoding="utf-8")
    out = f"{'buffered_' if buffers else ''}grad_{name}{'_value' if value else ''}.py"
    wrt = ",".join(case.workload.wrt_names(case.size))
    options = [*(["--buffers"] if buffers else []), *([] if value else ["--no-value"])]
    cmd = [*yota_command(), src.name, "--func", name, "--wrt", wrt, "--out", out, *options]
    proc = subprocess.run(cmd, cwd=case.workdir, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0:
        first = (proc.stderr or proc.stdout).strip().splitlines() or [f"exit status {proc.returncode}"]
        if proc.returncode == 2 and _ERROR_LINE.match(first[0]):
            raise Unsupported(first[0])
        raise RuntimeError(f"yota-s2s exit {proc.returncode}: {first[0]}")
    module_name = f"yota_bench_{name}_{case.size}{'_buffers' if buffers else ''}{'_value' if value else ''}"
    spec = importlib.util.spec_from_file_location(module_name, case.workdir / out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _yota_s2s(case: Case) -> Built:
    """The generated ``grad_<func>`` of ``--no-value``: its result is ``(d<wrt>...)``, the gradients
    only, the work every other peer (and the hand-written gradients) does."""
    grad = getattr(generate(case), f"grad_{case.func.__name__}")
    return Built(partial(grad, *case.args), tuple)


def _yota_s2s_value(case: Case) -> Built:
    """The generated ``grad_<func>`` of the default form: ``(value, d<wrt>...)``."""
    grad = getattr(generate(case, value=True), f"grad_{case.func.__name__}")
    value = float(case.func(*case.args))

    def grads(result):
        got, *gs = result
        if not np.isclose(float(got), value, rtol=1e-8, atol=1e-12):
            raise ValueError(f"value {float(got)!r} != the forward's {value!r}")
        return tuple(gs)

    return Built(partial(grad, *case.args), grads)


def _yota_s2s_buffers(case: Case) -> Built:
    """An instance of the ``--buffers`` class ``Grad<Func>``, called once before it is timed (the
    first call with these shapes allocates the buffers), so the runner checks and times the calls
    that write into them.  Its gradients are its buffers: they are copied to be checked."""
    module = generate(case, buffers=True)
    name = case.func.__name__
    grad = getattr(module, "Grad" + "".join(p[:1].upper() + p[1:] for p in name.split("_")))()
    grad(*case.args)

    def grads(result):
        return tuple(np.copy(g) for g in result)

    return Built(partial(grad, *case.args), grads)


# ------------------------------------------------------------------------------- registry

PEERS: dict[str, Peer] = {
    p.name: p
    for p in [
        Peer("numpy_fwd", "NumPy fwd", _numpy_fwd),
        Peer("numpy_fwd_nopow", "fwd w/o pow", _numpy_fwd_nopow),
        Peer("hand", "hand", _hand),
        Peer("hand_mech", "hand mech", _hand_mech),
        Peer("jax_jit", "JAX jit", _jax_jit, "jax", "jax", "xla", True),
        Peer("jax_eager", "JAX eager", _jax_eager, "jax", "jax", "xla", True),
        Peer("autograd", "autograd", _autograd, "autograd", "autograd", "numpy", True),
        Peer("torch", "PyTorch", _torch, "torch", "torch==2.13.0", "torch", True),
        Peer("sympy", "SymPy", _sympy, "sympy", "sympy", "numpy", True),
        Peer("tangent", "tangent", _tangent, "tangent", "tangent-ad", "numpy", True),
        Peer("yota_s2s", "yota_s2s", _yota_s2s, "yota_s2s", "-e .", "numpy", True),
        # ours too: not "automatic peers" the yota column is compared with
        Peer("yota_s2s_value", "yota_s2s +value", _yota_s2s_value, "yota_s2s", "-e .", "numpy"),
        Peer("yota_s2s_buffers", "yota_s2s buffers", _yota_s2s_buffers, "yota_s2s", "-e .", "numpy"),
    ]
}
#: the peers that are not gradients: the denominators of ratios
FORWARDS = ("numpy_fwd", "numpy_fwd_nopow")
