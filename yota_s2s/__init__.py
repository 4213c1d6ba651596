"""yota-s2s: symbolic source-to-source reverse-mode differentiation for Python.

``yota-s2s loss.py --out grad_loss.py`` writes a readable, standalone NumPy
module with ``grad_loss(...) -> (value, d_A, d_B, ...)``.  The Python API
mirrors Yota.jl's: ``grad``, ``simplegrad``, ``gradsource``, ``gradtape``.
"""

__version__ = "0.1.0"

__all__ = ["__version__", "grad", "gradsource", "gradtape", "reset", "simplegrad"]


def __getattr__(name: str) -> object:
    # The API (and NumPy with it) loads on first use, so the command line starts fast.
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'yota_s2s' has no attribute {name!r}")
