"""Test-session setup, so that the suite runs the same whether or not the virtualenv is activated
(``.venv/bin/python -m pytest``, as the README and CI run it):

- the scripts installed beside this Python (``yota-s2s``, ``ruff``) come first on PATH;
- no ``__pycache__`` is written beside imported generated modules (some tests list their folder).
"""

import os
import sys
from pathlib import Path

_BIN = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _BIN:
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
sys.dont_write_bytecode = True
