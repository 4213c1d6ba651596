"""The front end: Python source in, a primal tape out.

``fence`` parses the file and refuses what the tool cannot differentiate, all at once;
``lower`` resolves names, inlines the user's functions and turns expressions into primitives;
``control`` lowers loops and branches into equations that own regions.
"""
