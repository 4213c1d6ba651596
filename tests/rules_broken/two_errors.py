# ruff: noqa: F821, F841 - a rule file: parsed by yota_s2s.dsl.load, never imported
"""Two broken rules in one file: the loader reports both."""


@diffrule(names=["mylib.a"], shape="elementwise")
def prim_a(x, y):
    dx = dout


@diffrule(names=["mylib.b"], shape="elementwise")
def prim_b(x):
    dx = dout * undefined_name
