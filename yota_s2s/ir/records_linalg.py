"""The records of linear algebra: products and contractions, inverses, determinants, solves and
the decompositions (``eigh``, ``eig``, ``svd``, ``pinv``, ``qr``) with their helpers.

A part of ``ir.primitives``' table (one record per primitive; ``ir.record`` says what each field means).
"""

from __future__ import annotations

import ast

from .record import Primitive

RECORDS: dict[str, Primitive] = {
    # -------------------- linear algebra (rules/linalg.py)
    "matmul": Primitive(
        operator=ast.MatMult,
        symbol="@",
        numpy_value=True,
        fresh=True,
        ufunc="matmul",
        promotes_inexact=True,
        stand_in="like_matmul",
        shape_from_shapes=True,
        batched="rows_matmul",
    ),
    "dot": Primitive(fresh=True, shape_from_shapes=True, batched="rows_dot"),
    "transpose": Primitive(
        numpy_value=True,
        view=True,
        packed_method=True,
        stand_in_view=True,
        shape_from_shapes=True,
        batched="rows_transpose",
    ),
    "diag": Primitive(numpy_value=True, view=True, stand_in_view=True, shape_from_shapes=True),
    "vdot": Primitive(),
    "inner": Primitive(shape_from_shapes=True),
    "outer": Primitive(fresh=True, shape_from_shapes=True),
    "tensordot": Primitive(shape_from_shapes=True),
    "einsum": Primitive(numpy_value=True, shape_from_shapes=True),
    "trace": Primitive(shape_from_shapes=True),
    "diagonal": Primitive(view=True, shape_from_shapes=True),
    "inv": Primitive(),
    "det": Primitive(shape_from_shapes=True),
    "slogdet_sign": Primitive(shape_from_shapes=True),
    "slogdet_logabsdet": Primitive(shape_from_shapes=True),
    "solve": Primitive(shape_from_shapes=True),
    "cholesky": Primitive(),
    "eigh_values": Primitive(shape_from_shapes=True),
    "eigh_vectors": Primitive(shape_from_shapes=True),
    "eigvalsh": Primitive(shape_from_shapes=True),
    "eig_values": Primitive(shape_from_shapes=True),
    "eig_vectors": Primitive(shape_from_shapes=True),
    "eigvals": Primitive(shape_from_shapes=True),
    "svd_u": Primitive(shape_from_shapes=True),
    "svd_s": Primitive(shape_from_shapes=True),
    "svd_vh": Primitive(shape_from_shapes=True),
    "svdvals": Primitive(shape_from_shapes=True),
    "pinv": Primitive(shape_from_shapes=True),
    "mT": Primitive(shape_from_shapes=True),
    "dot_dx": Primitive(shape_operands=(1,), batched="rows_dot_dx"),
    "dot_dy": Primitive(shape_operands=(2,), batched="rows_dot_dy"),
    "dot_xtx_dx": Primitive(),
    "dot_xxt_dx": Primitive(),
    "tensordot_dx": Primitive(),
    "tensordot_dy": Primitive(),
    "inner_dx": Primitive(),
    "inner_dy": Primitive(),
    "einsum_dx": Primitive(shape_from_shapes=True),
    "diagonal_dx": Primitive(),
    "trace_dx": Primitive(),
    "logdet_dx": Primitive(),
    "solve_adjoint": Primitive(shape_from_shapes=True),
    "solve_da": Primitive(),
    "cholesky_dx": Primitive(),
    "eigh_values_dx": Primitive(),
    "eigh_vectors_dx": Primitive(),
    "eig_values_dx": Primitive(),
    "eig_vectors_dx": Primitive(),
    "svd_u_dx": Primitive(),
    "svd_s_dx": Primitive(),
    "svd_vh_dx": Primitive(),
    "svdvals_dx": Primitive(),
    "pinv_dx": Primitive(),
    "qr_q": Primitive(shape_from_shapes=True),
    "qr_r": Primitive(shape_from_shapes=True),
    "qr_dx": Primitive(),
}
