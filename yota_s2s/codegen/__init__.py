"""Code generation: gradient tapes in, the text of a standalone module out.

``target`` writes one equation as a Python expression for NumPy or CuPy; ``helpers`` finds the
runtime helpers a module carries; ``emit`` writes the functions; ``columns`` proves which
gradients may run by blocks of columns; ``buffered`` adds the classes of ``--buffers``.
"""
