"""The records of the special functions (``rules/special.py``).

A part of ``ir.primitives``' table (one record per primitive; ``ir.record`` says what each field means).
"""

from __future__ import annotations

from .record import Primitive

RECORDS: dict[str, Primitive] = {
    # -------------------- special functions (rules/special.py)
    "expit": Primitive(),
    "logit": Primitive(),
    "erf": Primitive(),
    "erfc": Primitive(),
    "gammaln": Primitive(),
    "digamma": Primitive(),
    "gamma": Primitive(),
    "rgamma": Primitive(),
    "gammasgn": Primitive(),
    "heaviside": Primitive(),
    "polygamma": Primitive(),
    "xlogy": Primitive(),
    "j0": Primitive(),
    "j1": Primitive(),
    "y0": Primitive(),
    "y1": Primitive(),
    "i0": Primitive(),
    "i1": Primitive(),
    "i0e": Primitive(),
    "i1e": Primitive(),
    "jv": Primitive(),
    "yv": Primitive(),
    "yn": Primitive(),
    "iv": Primitive(),
    "ive": Primitive(),
    "erfinv": Primitive(),
    "erfcinv": Primitive(),
    "gammainc": Primitive(),
    "gammaincc": Primitive(),
}
