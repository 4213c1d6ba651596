"""yota-s2s: symbolic source-to-source reverse-mode differentiation for Python.

``yota-s2s loss.py --out grad_loss.py`` writes a readable, standalone NumPy
module with ``grad_loss(...) -> (value, d_A, d_B, ...)``.  The Python API
mirrors Yota.jl's: ``grad``, ``simplegrad``, ``gradsource``, ``gradtape``,
``update``, ``reset``, and ``check_grads`` to test a gradient numerically
(docs/api.md).
"""

from .version import __version__

#: The public names and the submodule each is loaded from on first use.
_EXPORTS = {
    "grad": ".api",
    "hessian": ".api",
    "hvp": ".api",
    "jacobian": ".api",
    "jvp": ".api",
    "gradsource": ".api",
    "gradtape": ".api",
    "reset": ".api",
    "simplegrad": ".api",
    "update": ".api",
    "vjp": ".api",
    "check_grads": ".verify",
}

__all__ = [
    "__version__",
    "check_grads",
    "grad",
    "gradsource",
    "gradtape",
    "hessian",
    "hvp",
    "jacobian",
    "jvp",
    "reset",
    "simplegrad",
    "update",
    "vjp",
]


def __getattr__(name: str) -> object:
    # The API (and NumPy with it) loads on first use, so the command line starts fast.
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module 'yota_s2s' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
