"""The front end: Python source in, a primal tape out.

``fence`` parses the file and refuses what the tool cannot differentiate, all at once;
``lower`` turns one function of the fenced module into its primal tape (``lower.lower``).
Lowering is ``lower.Lowerer`` (on the state of ``state.LoweringState``), which holds its
parts, each made with it: ``expressions`` (operators, subscripts), ``names`` (names,
attributes, the user's own modules, classes), ``calls`` (calls, tuples), ``control`` (blocks,
loops, branches; ``exits`` turns break/continue/return into flags), ``passthrough`` (static
code), ``lists``, ``dicts`` and ``aliasing`` (may an update in place be seen elsewhere?).
``values`` holds the kinds of value lowering works with; ``source`` the text of a statement.
"""
