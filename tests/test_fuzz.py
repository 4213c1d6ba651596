"""The program fuzzer (tests/fuzz/, issue 23): random valid programs, every gradient checked.

- ``test_fuzz_bounded`` runs a fixed range of seeds in the normal suite (600 programs in six blocks of
  100, about 100 s on one core: under ``-n`` the blocks run side by side): each program generated in
  every form and checked by ``tests.fuzz.oracle``.  The seeds
  that fail today are listed, each with its bug class, in ``regressions.FAILING_SEEDS``; they are
  left out here and come back when their bug is fixed (``test_failing_seeds_still_fail`` says so).
- ``test_regression`` runs every shrunk failure of ``regressions.REGRESSIONS``; the ones whose
  bug is not fixed yet are ``xfail(strict=True)`` with their bug class named, so that a fix
  turns them into an unexpected pass, and the entry moves out of ``KNOWN_FAILING``.
- ``test_fuzz_long`` is the long mode, deselected by default (``-m "not fuzz"`` in pyproject):

      YOTA_FUZZ_N=2000 YOTA_FUZZ_SEED=100000 python -m pytest -m fuzz tests/test_fuzz.py

  It runs ``YOTA_FUZZ_N`` programs from seed ``YOTA_FUZZ_SEED`` and fails with every failure
  found, the first ones shrunk to a minimal program to paste into ``regressions.py``.
- The oracle and the shrinker are tested themselves: a gradient made wrong on purpose is caught,
  and a failing program is shrunk.
"""

from __future__ import annotations

import collections
import dataclasses
import os
from typing import ClassVar

import pytest

from .fuzz import oracle, shrink
from .fuzz.gen import Gen, Program, generate_program
from .fuzz.regressions import FAILING_SEEDS, KNOWN_FAILING, REGRESSIONS

#: The seeds of the normal suite's run (600 programs, about 100 s on one core), in blocks (a test each).
SUITE_SEEDS = range(600)
BLOCK = 100


def _report(failures: list[tuple[int, oracle.Outcome]]) -> str:
    return "\n".join(f"seed {s}: {o.kind}: {o.detail[:300]}" for s, o in failures)


@pytest.mark.slow
@pytest.mark.parametrize(
    "start",
    [pytest.param(k, id=f"seeds{k}-{k + BLOCK - 1}") for k in range(SUITE_SEEDS.start, SUITE_SEEDS.stop, BLOCK)],
)
def test_fuzz_bounded(start):
    counts: collections.Counter = collections.Counter()
    failures = []
    for seed in range(start, min(start + BLOCK, SUITE_SEEDS.stop)):
        if seed in FAILING_SEEDS:
            continue
        outcome = oracle.check(generate_program(seed), seed)
        counts[outcome.status] += 1
        if outcome.status == "failure":
            failures.append((seed, outcome))
    assert not failures, "the fuzzer found failures (shrink them: python -m tests.fuzz.run):\n" + _report(failures)
    total = sum(counts.values())
    # the generator writes valid programs the tool mostly accepts: a run of refusals checks nothing
    assert counts["invalid"] <= 0.05 * total, counts
    assert counts["ok"] >= 0.7 * total, counts


class ModuleGen(Gen):
    """Programs whose plain Python is module-level statements writing items and keys (issue 37)."""

    python_kinds: ClassVar[dict[str, float]] = {"module": 1}
    module_kinds: ClassVar[tuple[str, ...]] = ("items", "dict_items", "rows", "update", "in_place", "if", "seeded")


@pytest.mark.slow
def test_fuzz_module_level_writes():
    """Module-level item and key writes, their in-place updates, loops over an array's rows and
    over ``range(len(W))``, ``if`` on a module flag, seeded draws: the value is what the module's
    statements leave, every gradient right (60 programs, about 15 s)."""
    counts: collections.Counter = collections.Counter()
    failures = []
    for seed in range(60):
        program = ModuleGen(seed).program()
        outcome = oracle.check(program, seed)
        counts[outcome.signature] += 1
        if outcome.status == "failure":
            failures.append((seed, outcome))
    assert not failures, _report(failures) + f"\n{counts}"
    # refused: only what the other statements refuse (an in-place update of a shared array, YS017)
    assert counts["ok", ""] >= 0.9 * sum(counts.values()), counts
    assert not [k for (status, k) in counts if status == "refused" and k != "YS017"], counts


def test_failing_seeds_still_fail():
    """A listed seed that passes now: its bug is fixed, take it out of FAILING_SEEDS (it runs again)."""
    fixed = [s for s in sorted(FAILING_SEEDS) if oracle.check(generate_program(s), s).status != "failure"]
    assert not fixed, f"these seeds pass now, remove them from FAILING_SEEDS: {fixed}"


def _marks(entry):
    if entry.name in KNOWN_FAILING:
        return [pytest.mark.xfail(strict=True, reason=f"known bug: {KNOWN_FAILING[entry.name]}")]
    return []


@pytest.mark.parametrize("entry", [pytest.param(e, marks=_marks(e), id=e.name) for e in REGRESSIONS])
def test_regression(entry):
    """Each failure the fuzzer found, shrunk: right now (or, where a refusal is the fix, refused)."""
    outcome = oracle.check(entry.program, entry.seed, only=entry.only)
    allowed = ("ok", "refused") if entry.refusal_ok else ("ok",)
    assert outcome.status in allowed, f"{entry.bug}\n{outcome.kind}: {outcome.detail}"
    if outcome.status == "refused" and entry.refusal_code:  # NumPy would update a shared array: YS017
        assert outcome.kind == entry.refusal_code, f"{entry.bug}\n{outcome.kind}: {outcome.detail}"
    assert outcome.checked > 0 or outcome.status == "refused" or entry.program.vector or entry.only, "nothing checked"


def test_regressions_are_named_and_known_failures_exist():
    names = [e.name for e in REGRESSIONS]
    assert len(names) == len(set(names))
    assert set(KNOWN_FAILING) <= set(names)


@pytest.mark.fuzz
@pytest.mark.slow
def test_fuzz_long():
    n = int(os.environ.get("YOTA_FUZZ_N", "2000"))
    start = int(os.environ.get("YOTA_FUZZ_SEED", "100000"))
    counts: collections.Counter = collections.Counter()
    failures = []
    for seed in range(start, start + n):
        program = generate_program(seed)
        outcome = oracle.check(program, seed)
        counts[outcome.signature] += 1
        if outcome.status == "failure":
            failures.append((seed, program, outcome))
    shown = []
    kinds = set()
    for seed, program, outcome in failures:
        if outcome.kind in kinds:
            continue
        kinds.add(outcome.kind)
        small = shrink.shrink(program, outcome, seed, budget_s=30)
        shown.append(f"seed {seed}: {outcome.kind}: {outcome.detail[:300]}\nshrunk {small!r}")
    summary = ", ".join(f"{s} {k}: {c}" for (s, k), c in sorted(counts.items()))
    assert not failures, f"{len(failures)} failures in {n} programs ({summary}):\n" + "\n\n".join(shown)


# ---------------------------------------------------------------------------- the oracle itself

SMOOTH = Program("import numpy as np\n\n\ndef f(x, y):\n    return np.sum(np.sin(x) * y)\n",
                 (("array", "x", ("n",)), ("float", "y")), (("n", 3), ("m", 2)))  # fmt: skip


def _wrong(scale: float = 1.0, value_shift: float = 0.0, mutate: bool = False):
    """A stand-in for ``generate`` whose module's grad_f is off (gradient scaled, value shifted,
    or the input written into)."""
    real = oracle.generate

    def fake(source, path, funcs, **options):
        text = real(source, path, funcs, **options).text
        text += (
            "\n_real_grad_f = grad_f\n\n\ndef grad_f(x, y):\n"
            + ("    x[0] += 0.0 * x[0] + 1e-3\n" if mutate else "")
            + "    out = _real_grad_f(x, y)\n"
            + f"    return (out[0] + {value_shift},) * (len(out) == 3) + tuple(g * {scale} for g in out[-2:])\n"
        )
        return dataclasses.replace(real(source, path, funcs, **options), text=text)

    return fake


def test_the_oracle_passes_a_right_gradient():
    outcome = oracle.check(SMOOTH, 1)
    assert outcome.status == "ok", outcome
    assert outcome.checked >= 4


@pytest.mark.parametrize(
    ("fake", "kind"),
    [
        ({"scale": 1.0001}, "grad:default"),
        ({"value_shift": 1e-6}, "value:default"),
        ({"mutate": True}, "mutated"),
    ],
    ids=["gradient", "value", "mutation"],
)
def test_the_oracle_catches_a_wrong_answer(monkeypatch, fake, kind):
    monkeypatch.setattr(oracle, "generate", _wrong(**fake))
    outcome = oracle.check(SMOOTH, 1)
    assert (outcome.status, outcome.kind) == ("failure", kind), outcome


def test_the_oracle_counts_a_refusal_and_times_out_a_hang(monkeypatch):
    refused = dataclasses.replace(SMOOTH, source="import numpy as np\n\n\ndef f(x, y):\n    global G\n    return y\n")
    assert oracle.check(refused, 0).signature == ("refused", "YS015")

    def hang(*args, **kwargs):
        while True:
            pass

    monkeypatch.setattr(oracle, "generate", hang)
    assert oracle.check(SMOOTH, 1, timeout=0.5).signature == ("failure", "timeout")


def test_the_shrinker_keeps_what_fails(monkeypatch):
    """With an oracle that fails every program calling np.cos, a program shrinks to little more than that."""

    def fake_check(program, seed=0, timeout=0, only=None):
        ok = "np.cos" not in program.source
        try:
            oracle.load(program.source)["f"](*[1.0] * len(program.params))
        except Exception:  # noqa: BLE001
            return oracle.Outcome("invalid")
        return oracle.Outcome("ok") if ok else oracle.Outcome("failure", "grad:default")

    monkeypatch.setattr(shrink, "check", fake_check)
    big = Program(
        "import numpy as np\n\n\ndef helper(a):\n    return np.exp(a) * 2.0\n\n\n"
        "def f(x, y):\n    t = helper(x) + np.tanh(y)\n    s = 0.0\n    for i in range(3):\n"
        "        s = s + np.cos(t * y) * x\n    return s + np.sin(t)\n",
        (("float", "x"), ("float", "y")),
    )
    small = shrink.shrink(big, oracle.Outcome("failure", "grad:default"), budget_s=30)
    assert "np.cos" in small.source
    assert "helper" not in small.source and "for" not in small.source and "np.sin" not in small.source
    assert len(small.source.splitlines()) <= 5, small.source


def test_the_modes_fuzz_on_the_programs_that_found_faults(capsys):
    """tests/fuzz/modes.py: --hvp, --hessian and --jvp of the fuzzer's programs against finite
    differences of the gradient. Seeds 3002365-3002376 hold the program whose Hessian through two
    loops was wrong (each row after the first started from the last row's carried value)."""
    from .fuzz import modes

    assert modes.main(["--n", "12", "--seed", "3002365"]) == 0
    out = capsys.readouterr().out
    assert "hessian: right" in out and "WRONG" not in out and "crash" not in out


def test_the_modes_fuzz_on_a_loop_in_a_branch(capsys):
    """Seed 3000788: a loop in a branch of the gradient; hvp_NAME's forward loop pushed its values'
    tangents, and the backward loop in the backward branch (which has no tangent of its own) popped
    the values alone (a TypeError where it ran)."""
    from .fuzz import modes

    assert modes.main(["--n", "1", "--seed", "3000788"]) == 0
    out = capsys.readouterr().out
    assert "hvp: right" in out and "hessian: right" in out and "crash" not in out
