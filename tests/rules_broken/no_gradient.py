# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS102: operand y has neither 'dy = ...' nor nondiff(y)."""


@diffrule(names=["mylib.hypot"], shape="elementwise")
def hypot(x, y):
    dx = dout * x / out
