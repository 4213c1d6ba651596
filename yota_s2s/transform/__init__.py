"""Tape to tape: ``differentiate`` (the reverse sweep spliced from the rules), ``optimize`` (fold,
simplify, CSE, DCE to a fixed point) and the finishing passes the pipeline runs after it."""
