"""The batched form of ``jac_NAME`` (``codegen.batched_rows``): a batch of points, ``x`` of shape
``(n, ...)``, computed block by block of columns (the last axis), each block's value and Jacobian
written in place into the whole arrays.
"""

import numpy as xp

#: The columns of a block, at most (fewer where a row ``x[k]`` has more axes): 256 KiB of float64
#: a row, so that the block's intermediate arrays stay in the core's L2 cache (the J of a
#: block is written once).  Measured on the batched Jacobians of cyclic-6, noon-6 and eco-6 on
#: 10**5 points (one thread, 2 shared cores of an AMD EPYC, 2 MiB L2; µs, two runs), by this
#: number: 4,096: 5,601-5,777 / 3,334-3,464 / 2,444-2,468; 8,192: 4,573-4,638 / 2,650-2,662 /
#: 1,973-2,071; 16,384: 3,905-4,130 / 2,255-2,318 / 1,684-1,751; 32,768 (4 blocks of 25,000):
#: 3,853-3,932 / 2,142-2,308 / 1,540-1,620; 65,536 (2 of 50,000): 4,116-4,471 / 2,207-2,308 /
#: 1,488-1,540; one block: 5,304-5,804 / 2,693-2,727 / 1,541-1,645.
_BLOCK_COLUMNS = 32768


def _jacobian_blocks(batch, x, rows):
    """``(value, J)`` of a batch of points ``x`` (an ndarray of a float or complex dtype, ``x[k]``
    the k-th coordinate of every point): ``value`` of shape ``(rows,) + x.shape[1:]`` and ``J`` of
    shape ``(rows,) + x.shape``, in ``x``'s dtype, made here and filled by ``batch(x_block,
    value_block, J_block)`` on each block of columns (the points are apart: each column of the
    results depends on that column of ``x`` alone)."""
    value = xp.empty((rows,) + x.shape[1:], x.dtype)
    J = xp.empty((rows,) + x.shape, x.dtype)
    width = x.shape[-1]
    step = max(1, _BLOCK_COLUMNS * width // max(1, x[0].size))  # (a row of more axes: fewer columns)
    if width <= step + step // 2:  # one block (no narrow last one)
        batch(x, value, J)
        return value, J
    count = -(-width // step)
    step = -(-width // count)  # blocks of equal width
    for start in range(0, width, step):
        cols = slice(start, start + step)
        batch(x[..., cols], value[..., cols], J[..., cols])
    return value, J
