"""yota-s2s: symbolic source-to-source reverse-mode differentiation for Python.

``yota-s2s loss.py --out grad_loss.py`` writes a readable, standalone NumPy
module with ``grad_loss(...) -> (value, d_A, d_B, ...)``.  The Python API
mirrors Yota.jl's: ``grad``, ``simplegrad``, ``gradsource``, ``gradtape``.
"""

__version__ = "0.1.0"

from .api import grad, gradsource, gradtape, reset, simplegrad

__all__ = ["__version__", "grad", "gradsource", "gradtape", "reset", "simplegrad"]
