# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS103: 'z' is neither an operand, a temporary, out nor dout."""


@diffrule(names=["mylib.twice"], shape="elementwise")
def twice(x):
    dx = dout * z
