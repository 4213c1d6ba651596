"""The intermediate representation every stage after the front end takes and returns.

``core`` (the SSA tape: ``Var``, ``Lit``, ``Eqn``, ``Tape``, ``verify``), ``regions`` (the
equations that own sub-tapes: loops and branches), ``primitives`` (one record of facts per
primitive), ``shapes`` (which values provably share a shape), ``printer`` (the text of
``--dump-ir``).  Nothing here knows Python source or the generated code.
"""
