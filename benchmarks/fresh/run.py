"""Twenty realistic files (``files/``) and forty everyday idioms (``idioms.py``) through ``yota-s2s``.

    python -m benchmarks.fresh [--holdout | --holdout2 | --holdout3 | --holdout4 | --holdout5] [--only NAME] [--no-jax]

``--holdout``: ten more files and twenty more idioms (``holdout/``), written after the fixes the
first set led to and measured as they were first written (the first set is no longer fresh).
``--holdout2``: ten more files and thirty more idioms (``holdout2/``), of kinds neither set had,
written before the fixes of the third round and measured as first written (figures in
``holdout2/README.md``).  ``--holdout3``: ten files and thirty idioms of kinds none of those had
(``holdout3/``), written before the fourth round's fixes (figures in ``holdout3/README.md``).  ``--holdout4``: ten
files and forty idioms (``holdout4/``), written before the fifth round's fixes (``holdout4/README.md``).

Each case runs the command line as a user would (``yota-s2s FILE --func F --wrt W --out OUT``),
then imports the source and the generated module and compares, at seeded random arguments, the
value with the function's and the gradient with central differences (``yota_s2s.check_grads``,
at the given point).  Outcomes: ``served`` (exit 0 and right), ``refused`` (exit 2, a located
diagnostic), ``WRONG`` (exit 0 and a wrong value or gradient, or the generated code raises: the
silent failures), ``internal`` (any other exit).  JAX runs the same source with ``np`` standing for
``jax.numpy`` (``np.random`` and ``np.polynomial`` kept NumPy's: module-level tables are data) and
``jax.grad`` over the same parameters, float64; where it runs, its gradient is checked against
the differences too, and the two tools' gradients against each other.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np

from yota_s2s.verify import check_grads

from . import cases
from .holdout import cases as holdout_cases
from .holdout2 import cases as holdout2_cases
from .holdout3 import cases as holdout3_cases
from .holdout4 import cases as holdout4_cases
from .holdout5 import cases as holdout5_cases

HERE = Path(__file__).resolve().parent


def _load(path: Path, name: str, namespace: dict | None = None):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    if namespace:
        module.__dict__.update(namespace)
    spec.loader.exec_module(module)
    return module


def _ours(source: Path, func: str, wrt: list[str] | None, make_args, out: Path) -> tuple[str, str]:
    command = [sys.executable, "-m", "yota_s2s", str(source), "--func", func, "--out", str(out)]
    command += ["--wrt", ",".join(wrt)] if wrt else []
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode == 2:
        return "refused", proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else "(no message)"
    if proc.returncode != 0:
        return "internal", proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
    user = _load(source, f"fresh_user_{source.stem}_{func}")
    generated = _load(out, f"fresh_grad_{source.stem}_{func}")
    try:
        check_grads(
            getattr(user, func),
            getattr(generated, f"grad_{func}"),
            make_args(np.random.default_rng(0)),
            wrt=wrt,
            edges=False,
        )
    except AssertionError as e:
        return "WRONG", str(e).splitlines()[0][:200]
    except Exception as e:  # noqa: BLE001 - the generated code raised: exit 0, then a crash
        return "WRONG", f"the generated code raises {type(e).__name__}: {str(e)[:150]}"
    return "served", ""


class _JaxNumpy(types.ModuleType):
    """``jax.numpy`` with NumPy's ``random`` and ``polynomial`` (module-level data)."""

    def __getattr__(self, name):
        import jax.numpy as jnp

        if name in ("random", "polynomial"):
            return getattr(np, name)
        return getattr(jnp, name)


def _jax(source: Path, func: str, wrt: list[str] | None, make_args) -> tuple[str, object]:
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
    except ImportError:
        return "absent", None
    import inspect

    text = source.read_text(encoding="utf-8").replace("import numpy as np", "np = _jnp")
    path = Path(tempfile.mkdtemp()) / source.name
    path.write_text(text, encoding="utf-8")
    try:
        user = _load(path, f"fresh_jax_{source.stem}_{func}", {"_jnp": _JaxNumpy("numpy")})
        f = getattr(user, func)
        names = list(inspect.signature(f).parameters)
        args = make_args(np.random.default_rng(0))
        chosen = wrt or names[: len(args)]
        argnums = tuple(names.index(n) for n in chosen)
        g = jax.value_and_grad(f, argnums=argnums)

        def grad_f(*a):
            value, grads = g(*a)
            return (value, *jax.tree_util.tree_map(np.asarray, grads))

        check_grads(
            getattr(_load(source, f"fresh_np_{source.stem}_{func}"), func), grad_f, args, wrt=chosen, edges=False
        )
    except AssertionError as e:
        return "WRONG", str(e).splitlines()[0][:200]
    except Exception as e:  # noqa: BLE001 - JAX does not run it
        return "refused", f"{type(e).__name__}: {str(e).splitlines()[0][:150] if str(e) else ''}"
    return "served", ""


SETS = {
    "fresh": (cases, HERE / "files", HERE / "idioms.py"),
    "holdout": (holdout_cases, HERE / "holdout", HERE / "holdout" / "idioms.py"),
    "holdout2": (holdout2_cases, HERE / "holdout2", HERE / "holdout2" / "idioms.py"),
    "holdout3": (holdout3_cases, HERE / "holdout3", HERE / "holdout3" / "idioms.py"),
    "holdout4": (holdout4_cases, HERE / "holdout4", HERE / "holdout4" / "idioms.py"),
    "holdout5": (holdout5_cases, HERE / "holdout5", HERE / "holdout5" / "idioms.py"),
}


def _cases(chosen: str):
    table, folder, idioms = SETS[chosen]
    for name, (func, wrt, make_args) in table.FILES.items():
        yield "file", name, folder / f"{name}.py", func, wrt, make_args
    for name, (wrt, make_args) in table.IDIOMS.items():
        yield "idiom", name, idioms, name, wrt, make_args


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one file or idiom")
    parser.add_argument("--no-jax", action="store_true", help="do not run JAX")
    parser.add_argument("--holdout", action="store_true", help="the holdout set (holdout/: written after the fixes)")
    parser.add_argument("--holdout2", action="store_true", help="the second holdout set (holdout2/)")
    parser.add_argument("--holdout3", action="store_true", help="the third holdout set (holdout3/)")
    parser.add_argument("--holdout4", action="store_true", help="the fourth holdout set (holdout4/)")
    parser.add_argument("--holdout5", action="store_true", help="the fifth holdout set (holdout5/)")
    options = parser.parse_args(argv)
    chosen = next(
        (s for s in ("holdout5", "holdout4", "holdout3", "holdout2", "holdout") if getattr(options, s)), "fresh"
    )
    tally: dict[tuple[str, str, str], int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, name, source, func, wrt, make_args in _cases(chosen):
            if options.only and name != options.only:
                continue
            ours, why = _ours(source, func, wrt, make_args, Path(tmp) / f"grad_{name}.py")
            theirs, jwhy = ("skipped", "") if options.no_jax else _jax(source, func, wrt, make_args)
            for tool, outcome in (("yota-s2s", ours), ("jax", theirs)):
                tally[kind, tool, outcome] = tally.get((kind, tool, outcome), 0) + 1
            print(f"{kind:5} {name:24} yota-s2s {ours:8} jax {theirs:8} {why}")
            if theirs != "served" and jwhy and options.only:
                print(f"      jax: {jwhy}")
    table = SETS[chosen][0]
    for kind, total in (("file", len(table.FILES)), ("idiom", len(table.IDIOMS))):
        for tool in ("yota-s2s", "jax"):
            counts = {o: tally.get((kind, tool, o), 0) for o in ("served", "refused", "WRONG", "internal")}
            if not options.only:
                print(f"{kind}s {tool:8}: " + ", ".join(f"{o} {n}" for o, n in counts.items()) + f" (of {total})")
    silent = sum(n for (k, tool, o), n in tally.items() if tool == "yota-s2s" and o in ("WRONG", "internal"))
    return 1 if silent else 0
