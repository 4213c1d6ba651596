"""Reductions with NumPy's axis= and keepdims= semantics."""


@diffrule(names=["numpy.sum", "ndarray.sum"], shape="reduce")
def sum(x, axis=None, keepdims=False):
    dx = unreduce(dout, x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.mean", "ndarray.mean"], shape="reduce")
def mean(x, axis=None, keepdims=False):
    """An empty x gets its empty gradient (the count is read as 1 where it is 0), not a ZeroDivisionError."""
    # count = size(x) / size(out), read as 1 where it is 0 (an empty x), so that dout / count never
    # divides by 0 (on Python numbers, it would raise): a gradient spread over an empty x is empty
    # whatever the count. (size(out) is 0 only where size(x) is.)
    count = or_one(size(x) / or_one(size(out)))
    dx = unreduce(dout / count, x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.max", "numpy.amax", "ndarray.max"], shape="reduce")
def max(x, axis=None, keepdims=False):
    # The gradient goes to the maxima, split evenly between ties (a subgradient).
    mask = equal(x, keep_axes(out, x, axis=axis, keepdims=keepdims))
    dx = mask * keep_axes(dout / sum(mask, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.min", "numpy.amin", "ndarray.min"], shape="reduce")
def min(x, axis=None, keepdims=False):
    mask = equal(x, keep_axes(out, x, axis=axis, keepdims=keepdims))
    dx = mask * keep_axes(dout / sum(mask, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.nansum"], shape="reduce")
def nansum(x, axis=None, keepdims=False):
    """NaNs count as zeros: their gradient is 0."""
    # equal(x, x) is False exactly at the NaNs
    dx = equal(x, x) * unreduce(dout, x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.nanmean"], shape="reduce")
def nanmean(x, axis=None, keepdims=False):
    """The mean of the elements that are not NaN: each gets dout over their count, a NaN 0."""
    valid = equal(x, x)
    dx = valid * keep_axes(dout / sum(valid, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.nanmax"], shape="reduce")
def nanmax(x, axis=None, keepdims=False):
    """As max, NaNs left out (a NaN never equals the maximum): ties split the gradient evenly."""
    mask = equal(x, keep_axes(out, x, axis=axis, keepdims=keepdims))
    dx = mask * keep_axes(dout / sum(mask, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.nanmin"], shape="reduce")
def nanmin(x, axis=None, keepdims=False):
    """As min, NaNs left out."""
    mask = equal(x, keep_axes(out, x, axis=axis, keepdims=keepdims))
    dx = mask * keep_axes(dout / sum(mask, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.ptp"], shape="reduce")
def ptp(x, axis=None, keepdims=False):
    """max - min: the maxima's gradient (ties split evenly) less the minima's."""
    top = keep_axes(out, x, axis=axis, keepdims=keepdims) + keep_axes(
        min(x, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims
    )
    hi = equal(x, top)
    lo = equal(x, keep_axes(min(x, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims))
    g = keep_axes(dout, x, axis=axis, keepdims=keepdims)
    dx = g * (
        hi / keep_axes(sum(hi, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims)
        - lo / keep_axes(sum(lo, axis=axis, keepdims=keepdims), x, axis=axis, keepdims=keepdims)
    )


@diffrule(names=["numpy.prod", "ndarray.prod"], shape="reduce")
def prod(x, axis=None, keepdims=False):
    """Exact where x holds zeros: the product of the other elements, not out / x."""
    dx = prod_dx(dout, x, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.var", "ndarray.var"], shape="reduce")
def var(x, axis=None, ddof=0, keepdims=False):
    """ddof as NumPy's: the sum of squares is divided by n - ddof."""
    # d/dx of sum((x - mean)**2) / (n - ddof); the mean's own derivative sums to zero. The count
    # as mean's (1 for an empty x, whose gradient is empty).
    count = or_one(size(x) / or_one(size(out)))
    centered = x - mean(x, axis=axis, keepdims=True)
    dx = keep_axes(dout, x, axis=axis, keepdims=keepdims) * centered * (2.0 / (count - ddof))


@diffrule(names=["numpy.std", "ndarray.std"], shape="reduce")
def std(x, axis=None, ddof=0, keepdims=False):
    """0 along a reduction of equal elements (one element, or a constant x), not NaN."""
    # std = sqrt(var): d std = d var / (2 std) = dout / out * (x - mean) / (n - ddof); the helper
    # gives 0 where the elements reduced are all equal (see docs/conventions.md).
    dx = std_dx(dout, x, out, axis=axis, ddof=ddof, keepdims=keepdims)


@diffrule(names=["numpy.cumsum", "ndarray.cumsum"])
def cumsum(x, axis=None):
    """axis=None flattens x, as NumPy does."""
    # The adjoint of a running sum is the running sum from the end.
    dx = cumsum_dx(dout, x, axis=axis)


@diffrule(names=["scipy.special.logsumexp"], shape="reduce")
def logsumexp(x, axis=None, keepdims=False):
    """Stable for any x: exp(x - out) is at most 1.  b= and return_sign= are not supported."""
    # The gradient is softmax(x) along axis.
    dx = keep_axes(dout, x, axis=axis, keepdims=keepdims) * exp(x - keep_axes(out, x, axis=axis, keepdims=keepdims))


@diffrule(names=["scipy.special.softmax"], shape="x")
def softmax(x, axis=None):
    """The gradient is written with out, the softmax itself: finite for any x."""
    dx = out * (dout - sum(dout * out, axis=axis, keepdims=True))


@diffrule(names=["scipy.special.log_softmax"], shape="x")
def log_softmax(x, axis=None):
    """The gradient is written with exp(out), the softmax: finite for any x."""
    dx = dout - exp(out) * sum(dout, axis=axis, keepdims=True)


@diffrule(names=["numpy.linalg.norm"], shape="reduce")
def norm(x, ord=None, axis=None, keepdims=False):
    """Every ord: vectors None, 2, 1, inf, -inf, 0, any p; matrices 'fro', 'nuc', 1, -1, 2, -2, inf, -inf."""
    # The helper picks the formula from ord, axis and x's rank; ties (inf, 1, ...) share the
    # gradient evenly, and singular values (2, -2, 'nuc') are assumed distinct.
    dx = norm_dx(dout, x, out, ord=ord, axis=axis, keepdims=keepdims)


@diffrule(names=["numpy.cumprod", "ndarray.cumprod"])
def cumprod(x, axis=None):
    """axis=None flattens x. Exact where x holds zeros: products of the other elements, no division by x."""
    dx = cumprod_dx(dout, x, out, axis=axis)
    out_dot = cumprod_jvp(x_dot, x, out, axis=axis)  # (cumprod_dx has no rule for g to transpose)


@diffrule(names=["numpy.sort"])
def sort(x, axis=-1, kind=None, order=None, stable=None):
    """axis=None flattens x. Tied elements share evenly the gradients of the places they occupy (as max)."""
    # dout[j] goes back to the element sorted to place j (np.argsort's order); elements that tie
    # take the mean of dout over their places, whatever order the sort gave them: a subgradient
    # (the mean over the orders of the ties), np.sort(x)[-1] gets what np.max(x) gets.
    dx = sort_dx(dout, x, out, axis=axis)


@diffrule(names=["numpy.partition"])
def partition(x, kth, axis=-1, kind="introselect", order=None):
    """axis=None flattens x. Each element gets dout at the place np.partition put it; equal elements share evenly."""
    # The places are read from the result itself (its values matched to x's), not from
    # np.argpartition, which may order the sides differently. Elements that tie take the mean of
    # dout over their places, as sort: exact where the function reads what np.partition specifies
    # (the kth elements, each side as a set: sums, means, extrema), a subgradient at the ties.
    nondiff(kth)
    dx = partition_dx(dout, x, out, axis=axis)


@diffrule(names=["numpy.trapezoid", "numpy.trapz", "scipy.integrate.trapezoid"])
def trapezoid(y, xs, dx=1.0, axis=-1):
    """The trapezoidal rule along axis; xs is NumPy's x=, the sample points (None: dx apart)."""
    # (The operand is xs: the gradient of an x would be the static dx.  Lowering passes None for
    # an x not given.)  d/dy[i] = (x[i+1] - x[i-1]) / 2 inside, (x[1] - x[0]) / 2 and
    # (x[-1] - x[-2]) / 2 at the ends; d/dx[i] = (y[i-1] - y[i+1]) / 2 inside, -(y[0] + y[1]) / 2
    # and (y[-2] + y[-1]) / 2 at the ends: the helpers spread dout with these weights.
    dy = trapezoid_dy(dout, y, xs, dx=dx, axis=axis)
    dxs = trapezoid_dxs(dout, y, xs, dx=dx, axis=axis)


# ----------------------------------------------------------------------------- helpers of the rules above


@diffrule(shape="x")
def prod_dx(g, x, axis=None, keepdims=False):
    # prod_dx is linear in g: its adjoint multiplies by the same products of the others.
    dg = sum(dout * prod_dx(1.0, x, axis=axis, keepdims=True), axis=axis, keepdims=keepdims)
    dx = prod_dx_dx(dout, g, x, axis=axis, keepdims=keepdims)


@diffrule(shape="x")
def prod_dx_dx(d, g, x, axis=None, keepdims=False):
    not_implemented("third derivatives through prod")


@diffrule(shape="scalar")
def or_one(n):
    # n, or 1 where n is 0: a count to divide by (mean's); _or_one(n) in the generated code
    nondiff(n)


@diffrule(shape="x")
def std_dx(g, x, s, axis=None, ddof=0, keepdims=False):
    not_implemented("second derivatives through std")


@diffrule(shape="x")
def cumsum_dx(g, x, axis=None):
    # the reversed running sum is linear; its adjoint is the running sum itself
    nondiff(x)
    dg = cumsum(dout, axis=axis)


@diffrule(shape="x")
def norm_dx(g, x, n, ord=None, axis=None, keepdims=False):
    # g times the norm's gradient: linear in g for every ord; the second derivatives (in x and n) of
    # the 2-norm, g * x / n (NaN where n is 0: none there), and of the piecewise-linear norms (0)
    dg = norm_dx_dg(dout, x, n, ord=ord, axis=axis, keepdims=keepdims)
    dx = norm_dx_dx(dout, g, x, n, ord=twice_norm(ord, axis), axis=axis, keepdims=keepdims)
    dn = norm_dx_dn(dout, g, x, n, ord=twice_norm(ord, axis), axis=axis, keepdims=keepdims)


@diffrule(shape="n")
def norm_dx_dg(d, x, n, ord=None, axis=None, keepdims=False):
    # the adjoint of g -> norm_dx(g, x, n): d times the norm's gradient, summed over the reduced axes
    nondiff(x)
    nondiff(n)
    dd = norm_dx(dout, x, n, ord=ord, axis=axis, keepdims=keepdims)


@diffrule(shape="x")
def norm_dx_dx(d, g, x, n, ord=None, axis=None, keepdims=False):
    not_implemented("third derivatives through norm")


@diffrule(shape="n")
def norm_dx_dn(d, g, x, n, ord=None, axis=None, keepdims=False):
    not_implemented("third derivatives through norm")


@diffrule(shape="x")
def cumprod_dx(g, x, c, axis=None):
    # linear in g: its adjoint is the running product's tangent; x and c by the adjoint of the
    # recurrence the helper solves (each part: runtime/second.py)
    dg = cumprod_dx_adj(dout, g, x, c, part="g", axis=axis)
    dx = cumprod_dx_adj(dout, g, x, c, part="x", axis=axis)
    dc = cumprod_dx_adj(dout, g, x, c, part="c", axis=axis)


@diffrule
def cumprod_dx_adj(d, g, x, c, part="g", axis=None):
    not_implemented("third derivatives through cumprod")


@diffrule(shape="c")
def cumprod_jvp(t, x, c, axis=None):
    # the tangent of c = cumprod(x, axis) in the direction t: linear in t, its adjoint is cumprod_dx
    dt = cumprod_dx(dout, x, c, axis=axis)
    dx = not_implemented("second derivatives through cumprod")
    dc = not_implemented("second derivatives through cumprod")


@diffrule(shape="x")
def sort_dx(g, x, s, axis=-1):
    # linear in g; the permutation is constant between ties, so x and s have no derivative there
    nondiff(x)
    nondiff(s)
    dg = sort_dx_dg(dout, x, s, axis=axis)


@diffrule(shape="s")
def sort_dx_dg(d, x, s, axis=-1):
    # the adjoint of g -> sort_dx(g, x, s): d read in sorted order, tied runs averaged
    nondiff(x)
    nondiff(s)
    dd = sort_dx(dout, x, s, axis=axis)


@diffrule(shape="x")
def partition_dx(g, x, p, axis=-1):
    not_implemented("second derivatives through partition")


@diffrule(shape="y")
def trapezoid_dy(g, y, xs, dx=1.0, axis=-1):
    # independent of y
    nondiff(y)
    not_implemented("second derivatives through trapezoid")


@diffrule(shape="xs")
def trapezoid_dxs(g, y, xs, dx=1.0, axis=-1):
    not_implemented("second derivatives through trapezoid")
