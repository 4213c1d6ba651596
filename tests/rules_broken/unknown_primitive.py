# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.ruledsl, never imported
"""YS104: 'cosh' is not a primitive of the rule table."""


@diffrule(names=["mylib.sinh"], shape="elementwise")
def sinh(x):
    dx = dout * cosh(x)
