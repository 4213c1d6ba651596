# ruff: noqa: F821 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS101: a rule body is declarative; no return."""


@diffrule(names=["mylib.square"], shape="elementwise")
def square(x):
    dx = dout * 2.0 * x
    return dx
