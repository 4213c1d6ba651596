"""Complex values: the adjoints the real rules do not give by conjugation, and np.angle.

The cotangent of a complex value z is dL/dRe(z) + 1j * dL/dIm(z) (PyTorch's convention; JAX's
grad returns its conjugate; docs/complex.md).  Of a holomorphic primitive the adjoint is
conj(f'(z)) * dout: the real rule's formula with each primal value conjugated, which
``transform.complexes`` does for the primitives it lists as holomorphic.  These are the others:
applied in place of the primitive's rule where one of its operands may be complex, and never
written as equations (``complex_abs`` is the adjoint of ``abs`` of a complex value).
"""


@diffrule(names=["numpy.angle"], shape="elementwise")
def angle(x, deg=False):
    # The angle of a real x is 0 or pi: piecewise constant (the zero gradient of a step).
    # complex_angle is its adjoint for a complex x.
    dx = grad_zeros(x)


@diffrule
def complex_abs(x):
    # |z| = sqrt(a**2 + b**2): d/da + 1j d/db = (a + 1j b) / |z| = z / |z|; 0 at z == 0 (the tip
    # of a cone, as abs of a real 0 and hypot(0, 0)).
    dx = dout * (x / (out + equal(out, 0.0)))


@diffrule
def complex_angle(x, deg=False):
    # atan2(b, a): d/da = -b / |z|**2, d/db = a / |z|**2, so d/da + 1j d/db = 1j z / |z|**2;
    # 0 at z == 0.  (deg=True is not differentiated: transform.complexes refuses it.)
    r2 = real(x * conj(x))
    dx = dout * (1j * x) / (r2 + equal(r2, 0.0))


@diffrule
def complex_imag(x):
    # imag(z) = b: d/da = 0, d/db = 1.
    dx = 1j * dout


@diffrule
def complex_power(x, p):
    """As power, conjugated: conj(p * x ** (p - 1)) and conj(log(x) * out) (log(1) = 0 read where x == 0)."""
    dx = unbroadcast(dout * conj(p * x ** (p - 1 + equal(p, 0))), x)
    dp = unbroadcast(dout * conj(log(x + equal(x, 0)) * out), p)


@diffrule
def holomorphic_power(x, p):
    """The derivative of x ** p with respect to a complex x and p (--holomorphic): as power, with log(x)."""
    dx = unbroadcast(dout * p * x ** (p - 1 + equal(p, 0)), x)
    dp = unbroadcast(dout * log(x + equal(x, 0)) * out, p)


@diffrule(shape="x")
def real_value(x, what=""):
    """x, checked real when it runs: a value of code passed through that a gradient reads (its dtype
    is unknown when generating; transform.complexes.guard_passed_values)."""
    dx = dout
