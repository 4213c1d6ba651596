"""The helpers generated modules carry, each copied in as source (``codegen.helpers``), never imported
by generated code: ``core`` (broadcasting, reductions, gradient buffers, products), ``linalg``
(reductions and linear algebra), ``numerics`` (np.gradient, np.cross, convolutions, np.interp,
np.kron), ``shape`` (indexing and reshaping)."""
