"""Test-session setup, so that the suite runs the same whether or not the virtualenv is activated
(``.venv/bin/python -m pytest``, as the README and CI run it), and with the ``test`` extra alone:

- the scripts installed beside this Python (``yota-s2s``, ``ruff``) come first on PATH;
- no ``__pycache__`` is written beside imported generated modules (some tests list their folder);
- ``tests/goldens/`` (generated texts kept as files, ``tests/snapshot.py``) is read by a test, never imported;
- under pytest-xdist (``-n auto``), the tests are scheduled by group (``group_of``): a file's tests run
  in one process, in order (module-level random generators draw as in one process), and the tests
  of one part of the snapshot (``tests/test_snapshot.py``'s hashes and ``tests/test_output_form.py``'s
  line widths) in one process, which generates its texts once; the costliest groups start first;
- a test that needs a library of an optional extra (``OPTIONAL``: the array libraries of ``arrayapi``)
  skips, naming it and its extra, where the library is not installed: the ``import`` may be in
  the test or in the generated module it loads (``--target array-api`` imports array-api-compat).
  Any other ``ModuleNotFoundError``, or one of a library that is installed, stays an error.
"""

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

_BIN = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _BIN:
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
sys.dont_write_bytecode = True

collect_ignore = ["goldens"]

#: The importable name of each library of an optional extra, and the extra (pyproject.toml).
OPTIONAL = {
    "array_api_compat": "arrayapi",
    "array_api_strict": "arrayapi",
    "dask": "arrayapi",
    "distributed": "arrayapi",
    "jax": "arrayapi",
    "jaxlib": "arrayapi",
    "torch": "arrayapi",
}


def _missing(exc: ModuleNotFoundError) -> str | None:
    """The optional library ``exc`` says is missing, where it is one and is not installed."""
    top = (exc.name or "").partition(".")[0]
    if top not in OPTIONAL:
        return None
    try:
        installed = importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        installed = False
    return None if installed else top


def _skip_if_optional(exc: ModuleNotFoundError) -> None:
    if (top := _missing(exc)) is not None:
        pytest.skip(f"{top} is not installed (the '{OPTIONAL[top]}' extra: pip install -e '.[{OPTIONAL[top]}]')")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    try:
        return (yield)
    except ModuleNotFoundError as exc:
        _skip_if_optional(exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        return (yield)
    except ModuleNotFoundError as exc:
        _skip_if_optional(exc)
        raise


#: About the CPU seconds of the costliest groups (by the start of their name), measured alone, so that
#: they start first and the workers end together (a 2-core run lasts as long as its busier worker);
#: any other group weighs 0.02 s a test.  A stale figure costs balance, never a result.
COST = {
    "tests/test_array_api.py": 180.0,  # the array-API target run on five libraries
    "tests/test_rules.py": 60.0,  # test_elementwise_rule_matches_sympy[clip], [fmin], [fmod]
    "tests/test_names.py": 50.0,  # test_the_batch_is_ruff_clean
    "tests/test_cupy.py": 20.0,
    "snapshot-": 15.0,  # a part of the snapshot: ~1,500 texts generated
    "tests/test_fuzz.py::test_fuzz_bounded[": 15.0,  # 100 programs
    # the pages of the docs that run the most commands (~0.5 s each); the others take a few seconds
    **{
        f"tests/test_docs.py::test_pages_show_what_the_tool_prints_today[{page}]": cost
        for page, cost in [("errors", 30), ("how-it-works", 25), ("cli", 22), ("higher-order", 18), ("workflow", 14)]
    },
}


def _cost(group: str, tests: int) -> float:
    return next((c for start, c in COST.items() if group.startswith(start)), 0.02 * tests)


#: Tests that share a process by more than their file, or need none: (pattern of the node id, group).
_GROUPS = [
    # a part of the snapshot: its hashes and its lines' widths, generated once (tests/snapshot.py)
    (re.compile(r"^tests/test_(?:snapshot|output_form)\.py::[^@]*\[part(\d+)\]"), r"snapshot-\1"),
    # a page of the docs, a block of fuzzed programs: each on its own (no random generator shared)
    (re.compile(r"^(tests/test_docs\.py::test_pages_show_what_the_tool_prints_today\[[^]]*\])"), r"\1"),
    (re.compile(r"^(tests/test_fuzz\.py::test_fuzz_bounded\[[^]]*\])"), r"\1"),
]


def group_of(nodeid: str) -> str:
    """The group a test runs in under ``-n``: its file's, but for those of ``_GROUPS``."""
    for pattern, group in _GROUPS:
        if (m := pattern.match(nodeid)) is not None:
            return m.expand(group)
    return nodeid.split("::")[0]


def pytest_configure(config):
    """``-n N``'s default, ``--dist load``, as ``--dist loadgroup``: a group's tests in one process."""
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """(xdist, in the controller) ``--dist loadgroup`` by ``group_of``, the costliest groups first.

    xdist's own loadgroup names a test ``nodeid@group`` in the worker that collects it, which pytest 9.2's
    read-only node ids (``Node._id``) undo: its groups never held.  Here the controller groups the ids
    it receives, whatever the versions."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:  # (the queue is complete when the first unit is assigned)
                self._ordered = True
                units = sorted(self.workqueue.items(), key=lambda kv: -_cost(kv[0], len(kv[1])))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)
