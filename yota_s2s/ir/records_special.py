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
}
