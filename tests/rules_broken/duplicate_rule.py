# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS105: the library already has a rule for exp."""


@diffrule(names=["mylib.exp"], shape="elementwise")
def exp(x):
    dx = dout * out
