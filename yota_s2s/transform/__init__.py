"""Tape to tape: each pass takes a ``Tape`` and returns an equivalent one.

Differentiation: ``differentiate`` (the entry: a primal tape in, its gradient tape out),
``sweep`` (activity analysis and the reverse sweep), ``adjoint`` (the forward sweep and the
adjoints of loops and branches).

Optimization: ``optimize`` (the driver: the rewriter and ``dce`` to a fixed point), ``rewrite``
(the rewriter's core: value numbering, CSE, substitution), ``simplify`` (the algebraic
identities), ``regions`` (the rewrites of loops and branches), ``dce`` (dead-code elimination),
``values`` (keys and facts about atoms the passes share); then the passes the pipeline runs once
after it: ``factor`` (``common_factors``, ``merge_reciprocals``) and ``finish`` (``drop_value``,
``stand_ins``, ``float_literals``).
"""
