"""The records of ``ir.primitives`` agree with the rules and with what the code generator writes."""

from __future__ import annotations

import ast

import pytest

from yota_s2s.codegen.buffered import ufunc_call
from yota_s2s.codegen.target import NUMPY
from yota_s2s.dsl.load import load_rules
from yota_s2s.ir.core import Eqn, Lit, Var
from yota_s2s.ir.folding import fold_constant
from yota_s2s.ir.primitives import BINOPS, CMPOPS, PRIMITIVES, UNARYOPS, primitive

TABLE = load_rules()


def test_every_shipped_rule_has_a_record_and_every_record_a_rule():
    assert set(PRIMITIVES) - set(TABLE.rules) == set(), "records of primitives with no rule"
    assert set(TABLE.rules) - set(PRIMITIVES) == set(), "rules without a record in ir/primitives.py"


def test_a_user_primitive_gets_the_default_record():
    record = primitive("my_softplus")
    assert not (record.fresh or record.view or record.numpy_value or record.ufunc or record.operator)


def written(prim: str, args: list | None = None) -> ast.expr:
    rule = TABLE[prim]
    n = len(rule.operands) + (2 if rule.variadic else 0)
    eqn = Eqn(prim, args or [Var() for _ in range(n)], dict(rule.static), [Var()])
    return NUMPY.expression(eqn, [ast.Name(f"a{i}", ast.Load()) for i in range(n)], rule, [False] * n)


# static and effect print source text; an adjoint-only rule (rules/complex.py) is never written
@pytest.mark.parametrize(
    "prim", sorted(p for p, r in PRIMITIVES.items() if p not in ("static", "effect") and not r.adjoint_only)
)
def test_the_ufunc_is_the_one_the_numpy_target_calls(prim):
    found = ufunc_call(written(prim), "np")
    assert (found[0] if found else None) == primitive(prim).ufunc


def test_a_square_is_the_only_power_written_into_an_array():
    assert ufunc_call(ast.parse("a0 ** 2", mode="eval").body, "np")[0] == "square"
    assert ufunc_call(written("power"), "np") is None


@pytest.mark.parametrize("prim", sorted(p for p, r in PRIMITIVES.items() if r.method or r.attribute))
def test_a_method_or_attribute_is_a_source_name_of_the_rule(prim):
    record = primitive(prim)
    assert f"ndarray.{record.method or record.attribute}" in TABLE[prim].names


def test_packed_methods_are_methods():
    for prim, record in PRIMITIVES.items():
        if record.packed_method:
            assert any(n.startswith("ndarray.") for n in TABLE[prim].names), prim


def test_operators_write_and_fold_their_primitive():
    for table, kind in ((BINOPS, ast.BinOp), (UNARYOPS, ast.UnaryOp), (CMPOPS, ast.Compare)):
        for prim in table.values():
            assert isinstance(written(prim), kind), prim
            assert primitive(prim).symbol, prim
    assert fold_constant("sub", [5, 2]) == (True, 3)
    assert fold_constant("less", [1, 2.0]) == (True, True)
    assert fold_constant("truediv", [1, 0]) == (False, None)  # left to run time
    assert fold_constant("exp", [1.0]) == (False, None)  # no fold function
    assert fold_constant("add", [Lit(1), 2]) == (False, None)


def test_facts_that_imply_each_other():
    for prim, record in PRIMITIVES.items():
        if record.same_inexact:
            assert record.makes_inexact and TABLE[prim].shape == "elementwise", prim
        if record.boolean:
            assert record.operator in CMPOPS, prim
        if record.stand_in:
            assert record.stand_in in PRIMITIVES, prim
        assert not (record.view and record.fresh), prim
        for position in (*record.shape_operands, *record.gradient_terms):
            assert position < len(TABLE[prim].operands), prim
