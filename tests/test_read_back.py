"""The tool differentiating its own output (issue 37): a generated module that calls ``_unreduce``.

``_unreduce``'s docstring names ``np.full_like``: read with the array module's alias as ``xp.``,
the helper's text was never the runtime's, and every such module was refused as edited (YS031).
Read back, ``_unreduce(g, x)`` is ``np.broadcast_to(g, np.shape(x))`` (its adjoint unbroadcasts).
"""

from __future__ import annotations

import textwrap

import numpy as np

from yota_s2s.pipeline import generate

from .test_language import check_gradient, import_user


def test_a_generated_module_calling_unreduce_is_differentiated_again(tmp_path):
    inner = "import numpy as np\n\n\ndef f(x, w):\n    return np.sum(np.sum(x * w, axis=0) ** 2)\n"
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    first = generate(inner, str(tmp_path / "proj" / "inner.py"), ["f"]).text
    assert "_unreduce(" in first
    (tmp_path / "proj" / "grad_inner.py").write_text(first, encoding="utf-8")
    outer = textwrap.dedent(
        """
        import numpy as np

        from . import grad_inner


        def f(x, w):
            value, dx, dw = grad_inner.grad_f(x, w)
            return np.sum(dx ** 2) + value
        """
    )
    path = tmp_path / "proj" / "user.py"
    path.write_text(outer, encoding="utf-8")
    f = import_user(tmp_path).f
    namespace: dict = {}
    exec(compile(generate(outer, str(path), ["f"]).text, "grad.py", "exec"), namespace)  # noqa: S102
    x, w = np.array([[0.3, 0.5], [0.1, -0.2]]), np.array([[1.0, 2.0], [0.5, 0.7]])
    value, dx, dw = namespace["grad_f"](x, w)
    assert np.allclose(value, f(x, w), rtol=1e-12)
    check_gradient(f, [x, w], [dx, dw])
