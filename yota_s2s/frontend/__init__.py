"""The front end: Python source in, a primal tape out.

``fence`` parses the file and refuses what the tool cannot differentiate, all at once;
``lower`` turns one function of the fenced module into its primal tape (``lower.lower``).
Lowering is one class, ``lower.Lowerer``, composed of parts that share the state defined
in ``state.LoweringState``: ``expressions`` (operators, subscripts), ``names`` (names,
attributes, the user's own modules, classes), ``calls`` (calls, tuples, comprehensions) and
``control`` (blocks, loops, branches; ``exits`` turns break/continue/return into flags).
``values`` holds the kinds of value lowering works with; ``source`` the text of a statement.
"""
