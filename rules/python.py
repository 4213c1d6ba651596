"""Python passed through: the static code of a function, written as the user wrote it.

Only *active* values (those that depend differentiably on a ``--wrt`` parameter) need rules.
Code on static values (shapes, counters, flags, constants, data that is not differentiated)
needs none: the front end keeps an expression it has no rule for (``n % 2``, ``w is None``,
``np.linspace(0, 1, n)``) as a ``static`` equation and a statement (``assert``, ``raise``,
``print``) as an ``effect``, each printed back as the source wrote it.  They are impure: never
merged by CSE, never dropped, never moved.  Their operands get no gradient: where a
differentiated value reaches the result of a ``static`` equation through something else than a
shape, a comparison or a count, the tool refuses it (the error the front end met first).
"""


@diffrule(pure=False)
def static(*operands, code="", modules=(), through=(), refusal=()):
    """An expression of the source over ``operands`` (``code``: the expression with the operands
    and library names as placeholders; ``through``: the operands its value may depend on
    differentiably; ``refusal``: the error to give when one of those is differentiated)."""
    nondiff(operands)


@diffrule(pure=False)
def effect(*operands, code="", modules=()):
    """A statement of the source (``assert``, ``raise``, ``print(...)``) over ``operands``."""
    nondiff(operands)


@diffrule
def list_make(*items):
    """``[a, b]``: a Python list of values that a loop appends to.  The gradient of a list is an
    array, its items' gradients stacked (the items of a list the gradient flows through have one
    shape, as ``np.array(lst)`` needs)."""
    ditems = getindex(dout, (), index=(i,))
    out_dot = list_make(items_dot)  # (the tangent of a list is the list of its items' tangents)


@diffrule
def list_append(lst, v):
    """``lst.append(v)``, as a new list (written in place where nothing else reads ``lst``)."""
    dlst = getindex(dout, (), index=upto(-1))
    dv = getindex(dout, (), index=(-1,))
    out_dot = list_append(lst_dot, v_dot)


@diffrule
def list_stack(lst):
    """``np.array(lst)`` (``np.stack(lst)``, ``np.asarray(lst)``) of a list built at run time."""
    dlst = dout
    out_dot = list_stack(lst_dot)


@diffrule(names=["builtins.float", "ndarray.item"])
def to_float(x):
    """``float(x)``, ``x.item()``: the number of a one-element array (or of a number)."""
    dx = broadcast_to(dout, shape(x))


@diffrule(names=["ndarray.astype"])
def astype(x, dtype="float64"):
    """``x.astype(float)`` to a floating dtype (to an integer or boolean one, it is static code: no
    gradient flows through it)."""
    dx = dout
