"""The code generator: gradient tapes in, the text of a standalone module out.

``plan`` decides how a function is written (immutable: what is inline, in place, read by
elements, guarded by columns); ``writer`` prints it, with its parts ``base`` (names,
expressions), ``flow`` (loops and branches) and ``items`` (gradients built by elements), into
``statements`` (``ast`` nodes with provenance, rendered with comments); ``naming`` allocates
names; ``columns`` proves which gradients may run by blocks of columns and ``columns_form``
writes that form; ``buffered`` adds the classes of ``--buffers``; ``module`` assembles the
file.  ``target`` writes one equation as an expression for NumPy or CuPy (checked against
``cupy_api``), ``standard`` for the array API standard (``--target array-api``, checked against
``array_api``), ``ufunc`` reads one as a ufunc call, ``helpers`` finds the runtime helpers a
module carries, and ``interp`` runs a tape through the same expressions (for the tests).
"""

from . import standard  # noqa: F401 - it adds the array-api target to target.BACKENDS
