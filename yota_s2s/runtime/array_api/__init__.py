"""The helpers of ``--target array-api``: the same names as ``runtime``'s, written against the standard.

Only the helpers defined here exist for that target: a program whose gradient needs another is
refused at generation time (``codegen.target``), naming the helper.
"""
