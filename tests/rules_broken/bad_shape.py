# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS106: shape= is elementwise, scalar, reduce, opaque or a parameter name."""


@diffrule(names=["mylib.cube"], shape="pointwise")
def cube(x):
    dx = dout * 3.0 * x * x
