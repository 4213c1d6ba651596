"""Comparisons: boolean results, so no gradient flows through them (zero-gradient primitives)."""


@diffrule(names=["operator.lt", "numpy.less"], shape="elementwise")
def less(x, y):
    nondiff(x, y)


@diffrule(names=["operator.le", "numpy.less_equal"], shape="elementwise")
def less_equal(x, y):
    nondiff(x, y)


@diffrule(names=["operator.gt", "numpy.greater"], shape="elementwise")
def greater(x, y):
    nondiff(x, y)


@diffrule(names=["operator.ge", "numpy.greater_equal"], shape="elementwise")
def greater_equal(x, y):
    nondiff(x, y)


@diffrule(names=["operator.eq", "numpy.equal"], shape="elementwise")
def equal(x, y):
    nondiff(x, y)


@diffrule(names=["operator.ne", "numpy.not_equal"], shape="elementwise")
def not_equal(x, y):
    nondiff(x, y)
