# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""YS101: a rule body is declarative; no loops."""


@diffrule(names=["mylib.cube"], shape="elementwise")
def cube(x):
    for i in range(3):
        dx = dout * x
