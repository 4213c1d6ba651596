# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS106: the header keyword is names=, not name=."""


@diffrule(name=["mylib.softplus"], shape="elementwise")
def softplus(x):
    dx = dout / (1.0 + exp(-x))
