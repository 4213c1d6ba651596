# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS104: 'mycosh' is not a primitive of the rule table."""


@diffrule(names=["mylib.sinh"], shape="elementwise")
def mysinh(x):
    dx = dout * mycosh(x)
