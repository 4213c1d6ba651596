"""Random numbers: impure (never merged by CSE, never dropped), and no gradient flows through the draw.

Their parameters are static here: write a reparameterised sample as ``mu + sigma * z`` with
``z = np.random.standard_normal(n)`` to differentiate with respect to mu and sigma.
"""


@diffrule(names=["numpy.random.standard_normal"], pure=False)
def standard_normal(size=None):
    """Samples of N(0, 1)."""


@diffrule(names=["numpy.random.normal"], pure=False)
def normal(loc=0.0, scale=1.0, size=None):
    """Samples of N(loc, scale**2); loc and scale are constants here."""


@diffrule(names=["numpy.random.uniform"], pure=False)
def uniform(low=0.0, high=1.0, size=None):
    """Samples of U[low, high)."""


@diffrule(names=["numpy.random.random"], pure=False)
def random(size=None):
    """Samples of U[0, 1)."""
