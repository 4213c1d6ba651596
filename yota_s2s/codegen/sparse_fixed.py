"""``--sparse``: the function of a compressed sweep's kept values, printed.

``transform.compressed`` finds the values of ``_jvp_NAME_colors`` (``_vjp_``, ``_hvp_``) that read
only the seeds, the other arguments and the shapes: they are the same at every call of one prepared
pattern (``_sp_key``).  Its ``CompressedSweep.fixed`` computes them; ``_jvp_NAME_fixed`` is that
tape printed, called once per prepared pattern (``_sp_fixed``), its results passed to the colors
function as its last parameters.  A 2-D Brusselator's forward sweep at m = 64 goes from about 1.6 ms
to 0.45 ms.

    def _jvp_f_fixed(x, a, x_dot):    # the colors function's parameters, its values kept: the
        ...                            # equations they need (a primal value read for its shape)
        return _t4, _t9

    def _jvp_f_colors(x, a, x_dot, _k1, _k2):
        ...                            # the other equations, _k1 and _k2 read where _t4 and _t9 were
"""

from __future__ import annotations

import dataclasses

from ..dsl.rule import RuleTable
from ..ir.core import Tape
from .layout import fit_module
from .plan import plan_function
from .target import Backend
from .writer import FunctionWriter


class _FixedWriter(FunctionWriter):
    """``_jvp_NAME_fixed`` (``_vjp_``, ``_hvp_``): the kept values of the colors function."""

    prefix = ""

    def function_name(self) -> str:
        return f"_{self.prefix}{self.tape.name}_fixed"

    def docstring(self) -> str:
        return (
            f'"""The values _{self.prefix}{self.tape.name}_colors reads that depend on its seeds, the other\n'
            f'    arguments and the shapes alone: the same at every call of one prepared pattern (_sp_fixed)."""'
        )


def fixed_function(fixed: Tape, prefix: str, table: RuleTable, backend: Backend) -> tuple[str, set[str]]:
    """The text of ``_jvp_NAME_fixed`` (``prefix``: the mode's, ``jvp_``) of the tape ``fixed``
    (``CompressedSweep.fixed``) and the helpers it calls."""
    plan = plan_function(fixed, table, backend, columns=False)
    writer = _FixedWriter(dataclasses.replace(plan, check_scalar=False), table, backend)
    writer.prefix = prefix
    return fit_module(writer.write()), writer.helpers
