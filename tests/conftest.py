"""Test-session setup, so that the suite runs the same whether or not the virtualenv is activated
(``.venv/bin/python -m pytest``, as the README and CI run it), and with the ``test`` extra alone:

- the scripts installed beside this Python (``yota-s2s``, ``ruff``) come first on PATH;
- no ``__pycache__`` is written beside imported generated modules (some tests list their folder);
- ``tests/goldens/`` (generated texts kept as files, ``tests/snapshot.py``) is read by a test, never imported;
- under pytest-xdist (``-n auto``), the tests of one ``xdist_group`` run in one process (a part of
  the snapshot is generated once, for the tests that share it), as ``--dist loadgroup`` would, and
  every other test with its file's, in order (module-level random generators draw as in one process);
- a test that needs a library of an optional extra (``OPTIONAL``: the array libraries of ``arrayapi``)
  skips, naming it and its extra, where the library is not installed: the ``import`` may be in
  the test or in the generated module it loads (``--target array-api`` imports array-api-compat).
  Any other ``ModuleNotFoundError``, or one of a library that is installed, stays an error.
"""

import importlib.util
import os
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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under ``-n``, a test of no ``xdist_group`` joins its file's: a file's tests run in one process,
    in their order, so a module's random generator (``RNG = np.random.default_rng(3)``) draws for
    each test what a run in one process draws, whatever the scheduling (a draw that moved made a
    finite difference cross a kink of ``np.sort``, once in a run)."""
    if getattr(config.option, "dist", "no") != "loadgroup":
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def pytest_configure(config):
    """``-n N``'s default, ``--dist load``, as ``--dist loadgroup``: a group's tests in one process."""
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"
