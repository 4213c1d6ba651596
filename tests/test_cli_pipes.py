"""``yota-s2s ... --diff | head``: a reader that stops reading is not a bug of the tool (issue 37)."""

from __future__ import annotations

import subprocess
import sys


def test_diff_into_a_closed_pipe_is_not_an_internal_error(tmp_path):
    body = "".join(f"def f{i}(x):\n    return np.sum(np.sin(x) * {i + 1}.0 + x ** 3)\n\n\n" for i in range(300))
    source = tmp_path / "many.py"
    source.write_text("import numpy as np\n\n\n" + body, encoding="utf-8")
    (tmp_path / "grad_many.py").write_text("# stale\n", encoding="utf-8")
    command = [sys.executable, "-m", "yota_s2s", "many.py", "--out", "grad_many.py", "--diff"]
    proc = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()  # | head -c 10
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=300) == 1, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
