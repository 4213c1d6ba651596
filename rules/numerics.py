"""Numerical analysis: finite differences (np.gradient), cross products, convolutions, linear
interpolation and Kronecker products.

Each is linear in each operand, so each adjoint is a helper linear in the incoming gradient
(``runtime/numerics.py``), whose own rule is written with the forward primitive and the helpers
again: the gradient of a gradient goes through the same formulas.
"""

# ----------------------------------------------------------------------------- finite differences


@diffrule(names=["numpy.gradient"], shape="f")
def gradient(f, h, axis=None, edge_order=1):
    """One axis: a 1-D f, or axis=k; the spacing h a scalar or the coordinates (np.gradient(f) is h = 1.0). Several axes (a list) are refused."""
    # np.gradient is linear in f: its adjoint applies the transposed stencil (central differences
    # inside, one-sided of order edge_order at the ends). In h it is the stencil's coefficients:
    # -out / h for a scalar spacing.
    df = gradient_df(dout, f, h, axis=axis, edge_order=edge_order)
    dh = gradient_dh(dout, f, h, out, axis=axis, edge_order=edge_order)


@diffrule(shape="f")
def gradient_df(g, f, h, axis=None, edge_order=1):
    # the transposed stencil applied to g; f is read for its shape. <D(h)^T g, w> = <g, D(h) w>
    nondiff(f)
    dg = gradient(dout, h, axis=axis, edge_order=edge_order)
    dh = gradient_dh(g, dout, h, gradient(dout, h, axis=axis, edge_order=edge_order), axis=axis, edge_order=edge_order)


@diffrule(shape="h")
def gradient_dh(g, f, h, y, axis=None, edge_order=1):
    # y is np.gradient(f, h, ...)
    not_implemented("second derivatives through the spacing of np.gradient")


# ----------------------------------------------------------------------------- cross products


@diffrule(names=["numpy.cross"])
def cross(a, b):
    """Along the last axis: 3-vectors, 2-vectors (z = 0), stacks of them broadcast. axisa=, axisb=, axisc=, axis=: the vectors moved last first."""
    # <g, a x b> = <a, b x g> = <b, g x a>; a 2-vector's gradient is the first two components.
    da = cross_da(dout, a, b)
    db = cross_db(dout, a, b)


@diffrule(shape="a")
def cross_da(g, a, b):
    # b x g summed down to the shape of a; a is read for its shape. <cross_da(g, a, b), w> = <g, w x b>
    nondiff(a)
    dg = cross(dout, b)
    db = cross_db(g, dout, b)


@diffrule(shape="b")
def cross_db(g, a, b):
    # g x a summed down to the shape of b; b is read for its shape. <cross_db(g, a, b), w> = <g, a x w>
    nondiff(b)
    dg = cross(a, dout)
    da = cross_da(g, a, dout)


# ----------------------------------------------------------------------------- convolutions


@diffrule(names=["numpy.convolve"])
def convolve(a, v, mode="full"):
    """1-D (a number is one element); mode 'full', 'same' or 'valid' (or 2, 1, 0), either operand the longer."""
    # np.convolve is symmetric (NumPy puts the longer operand first): one helper for both.
    da = convolve_dx(dout, a, v, mode=mode)
    dv = convolve_dx(dout, v, a, mode=mode)


@diffrule(shape="x")
def convolve_dx(g, x, y, mode="full"):
    # g in its window of the full convolution, correlated with y; x is read for its shape.
    # <convolve_dx(g, x, y), w> = <g, convolve(w, y)> = <g, convolve(y, w)>
    nondiff(x)
    dg = convolve(dout, y, mode=mode)
    dy = convolve_dx(g, y, dout, mode=mode)


@diffrule(names=["numpy.correlate"])
def correlate(a, v, mode="valid"):
    """1-D real values; mode 'valid' (NumPy's default), 'same' or 'full' (or 0, 1, 2), either operand the longer."""
    da = correlate_dx(dout, a, v, mode=mode)
    dv = correlate_dy(dout, a, v, mode=mode)


@diffrule(shape="x")
def correlate_dx(g, x, y, mode="valid"):
    # <correlate_dx(g, x, y), w> = <g, correlate(w, y)>; x is read for its shape
    nondiff(x)
    dg = correlate(dout, y, mode=mode)
    dy = correlate_dy(g, dout, y, mode=mode)


@diffrule(shape="y")
def correlate_dy(g, x, y, mode="valid"):
    # <correlate_dy(g, x, y), w> = <g, correlate(x, w)>; y is read for its shape
    nondiff(y)
    dg = correlate(x, dout, mode=mode)
    dx = correlate_dx(g, x, dout, mode=mode)


# ----------------------------------------------------------------------------- interpolation


@diffrule(names=["numpy.interp"], shape="x")
def interp(x, xp, fp, left=None, right=None):
    """Increasing xp; left= and right= constants; period= is refused. d/dx: the slope of x's segment (at a knot, the segment to its right), 0 outside [xp[0], xp[-1]]."""
    # out = (1 - t) fp[j] + t fp[j + 1] on the segment j that holds x: each dout is split between
    # the segment's two values; outside, it goes to fp[0] / fp[-1] unless left= / right= give
    # the value. The knots are not differentiated: a differentiated xp is refused.
    dx = dout * interp_slope(x, xp, fp)
    dxp = not_implemented("the gradient of np.interp with respect to its knots xp")
    dfp = interp_dfp(dout, x, xp, fp, left=left, right=right)


@diffrule(shape="fp")
def interp_dfp(g, x, xp, fp, left=None, right=None):
    # the weights 1 - t and t of each g scattered onto fp; fp is read for its shape.
    # <interp_dfp(g, x, ...), w> = <g, interp_fixed(x, xp, w)>, the weights moving with x as w's slope
    nondiff(fp)
    dg = interp_fixed(x, xp, dout, left=left, right=right)
    dx = g * interp_slope(x, xp, dout)
    dxp = not_implemented("the gradient of np.interp with respect to its knots xp")


@diffrule(shape="x")
def interp_fixed(x, xp, h, left=None, right=None):
    # np.interp(x, xp, h, left, right) with a given left / right read as 0: the part linear in h
    # (the transpose of interp_dfp)
    dx = dout * interp_slope(x, xp, h)
    dxp = not_implemented("the gradient of np.interp with respect to its knots xp")
    dh = interp_dfp(dout, x, xp, h, left=left, right=right)


@diffrule(shape="x")
def interp_slope(x, xp, fp):
    # the slope of each x's segment: piecewise constant in x (its derivative is 0 away from the
    # knots), linear in fp
    nondiff(x)
    dxp = not_implemented("the gradient of np.interp with respect to its knots xp")
    dfp = interp_slope_dfp(dout, x, xp, fp)


@diffrule(shape="fp")
def interp_slope_dfp(g, x, xp, fp):
    # each g / width scattered onto the segment's two values (+ at its right end, - at its left)
    nondiff(x, fp)
    dg = interp_slope(x, xp, dout)
    dxp = not_implemented("the gradient of np.interp with respect to its knots xp")


# ----------------------------------------------------------------------------- Kronecker products


@diffrule(names=["numpy.kron"])
def kron(a, b):
    """Any ranks (the shorter shape padded with ones in front, as NumPy does)."""
    # out's blocks are a[i] * b: da[i] = <block i of dout, b>, db = sum_i a[i] * block i of dout
    da = kron_da(dout, a, b)
    db = kron_db(dout, a, b)


@diffrule(shape="a")
def kron_da(g, a, b):
    # a is read for its shape. <kron_da(g, a, b), w> = <g, kron(w, b)>
    nondiff(a)
    dg = kron(dout, b)
    db = kron_db(g, dout, b)


@diffrule(shape="b")
def kron_db(g, a, b):
    # b is read for its shape. <kron_db(g, a, b), w> = <g, kron(a, w)>
    nondiff(b)
    dg = kron(a, dout)
    da = kron_da(g, a, dout)


# ----------------------------------------------------------------------------- order statistics


@diffrule(names=["numpy.median"], shape="reduce")
def median(a, axis=None, keepdims=False):
    """axis=None, an int or a tuple. The gradient of the middle element (half to each of the two for an even count); equal elements share evenly."""
    # The median reads one or two places of the sorted a: their gradient goes back to the elements
    # sorted there, as np.sort's (ties averaged), a subgradient where elements tie.
    da = quantile_da(dout, a, 0.5, axis=axis, method="linear", keepdims=keepdims, scale=1.0)


@diffrule(names=["numpy.quantile"])
def quantile(a, q, axis=None, method="linear", keepdims=False):
    """q a number or an array; method linear (NumPy's default), lower, higher, nearest or midpoint."""
    # Each q reads the sorted a at two places, (1 - w) * s[lo] + w * s[hi]: a gets those weights
    # (through np.sort's gradient), q the slope (n - 1) * (s[hi] - s[lo]) of the interpolation.
    da = quantile_da(dout, a, q, axis=axis, method=method, keepdims=keepdims, scale=1.0)
    dq = quantile_dq(dout, a, q, axis=axis, method=method, keepdims=keepdims, scale=1.0)


@diffrule(names=["numpy.percentile"])
def percentile(a, q, axis=None, method="linear", keepdims=False):
    """np.quantile(a, q / 100): the same methods."""
    # (the helpers divide q by scale themselves, as np.percentile does: q may be a list or tuple,
    # which has no / 100)
    da = quantile_da(dout, a, q, axis=axis, method=method, keepdims=keepdims, scale=100.0)
    dq = quantile_dq(dout, a, q, axis=axis, method=method, keepdims=keepdims, scale=100.0)


@diffrule(shape="a")
def quantile_da(g, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    not_implemented("second derivatives through np.median, np.quantile and np.percentile")


@diffrule(shape="q")
def quantile_dq(g, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    not_implemented("second derivatives through np.quantile and np.percentile")
