"""The plain Python the fuzzer's programs are written in, beyond expressions over arrays.

``Gen`` (gen.py) mixes this in.  Its statements are the code users write around the arithmetic,
which the tool passes through as written where no gradient flows through it, and differentiates
where one does:

- static code: ``rows, cols = v.shape``, ``len(v)``, ``n // 2``, ``n % 2``, ``not``/``and``/``or``
  on counts and module flags, ``assert`` with an f-string message, ``np.linspace`` of a length;
- module-level constants: numbers, flags and coefficient tuples or arrays (a polynomial in Horner
  form or as a sum of powers ``c[k] * t ** k``, with ``t ** 0`` where ``t`` may be 0);
- lists: ``acc = []`` and ``acc.append(...)`` in a loop, then ``sum(acc)`` or ``np.stack(acc)``,
  and list parameters (unpacked, indexed, or iterated);
- nested functions and lambdas;
- module-level statements that build a table the function reads (``py_module``): a loop that
  appends, ``.extend``, an in-place update of an array, an ``if`` on a module flag, a dict
  filled by key, draws of a seeded generator, item writes and updates (``W[0] = ...``,
  ``W[1:] += ...``, ``D["k"] *= ...``), loops over an array's rows or over ``range(len(W))``
  that write items (``module_writes``).  A module-level name's value is what the
  module's statements leave in it.

Each keeps the generator's promise: every program is defined on every input in [-2, 2] (the
values these statements make are bounded, counts are never divisors).
"""

from __future__ import annotations

from typing import ClassVar

#: What ``py_module`` builds a module-level table with.
MODULE_KINDS = ("append", "extend", "in_place", "if", "dict", "seeded", "items", "dict_items", "rows", "update")


class PythonStatements:
    """Statements of plain Python for ``Gen`` (its ``rng``, ``fresh_name``, ``expr``, ``tame``, ...)."""

    #: The kinds of statement ``python_statement`` writes, with their weights; and the module-level
    #: tables ``py_module`` builds (a test narrows them to fuzz one kind of code).
    python_kinds: ClassVar[dict[str, float]] = {"shape": 1.5, "assert": 1, "count": 1.5, "linspace": 1, "append": 2}
    python_kinds |= {"nested": 1, "poly": 1.5, "flag": 1, "module": 1.5}
    module_kinds: ClassVar[tuple[str, ...]] = MODULE_KINDS

    def python_statement(self, scope: list, body: list[str], indent: str, loop: str | None) -> None:
        r = self.rng
        kind = r.choices(list(self.python_kinds), list(self.python_kinds.values()))[0]
        getattr(self, "py_" + kind)(scope, body, indent)

    # ------------------------------------------------------------------ static code
    def an_int(self, scope: list, body: list[str], indent: str) -> str:
        """A count the program knows at run time: an int parameter, a shape, or a length."""
        cands = list(self.int_params) + list(self.int_names)
        arrays = [v for v in scope if v.shape and v.code.isidentifier()]
        if cands and self.rng.random() < 0.6:
            return self.rng.choice(cands)
        if arrays:
            return f"len({self.rng.choice(arrays).code})"
        return str(self.rng.randint(0, 3))

    def py_shape(self, scope: list, body: list[str], indent: str) -> None:
        from .gen import Val

        mats = [v for v in scope if len(v.shape) == 2 and v.code.isidentifier()]
        if not mats:
            return self.py_count(scope, body, indent)
        v = self.rng.choice(mats)
        rows, cols = self.fresh_name("rows"), self.fresh_name("cols")
        body.append(f"{indent}{rows}, {cols} = {v.code}.shape")
        self.int_names += [rows, cols]
        name = self.fresh_name("t")
        s = self.tame(self.reduce_to_scalar(self.expr(scope, 1)))
        body.append(f"{indent}{name} = {s.code} / ({rows} * {cols} + 1.0)")
        scope.append(Val(name, (), s.bound))
        return None

    def py_assert(self, scope: list, body: list[str], indent: str) -> None:
        arrays = [v for v in scope if v.code.isidentifier()]
        if not arrays:
            return
        v = self.rng.choice(arrays)
        if self.rng.random() < 0.5:
            body.append(f'{indent}assert np.all(np.isfinite({v.code})), "{v.code} must be finite"')
        else:
            body.append(
                f'{indent}assert np.ndim({v.code}) == {len(v.shape)}, f"expected {len(v.shape)} axes, got {{np.ndim({v.code})}}"'
            )

    def py_count(self, scope: list, body: list[str], indent: str) -> None:
        """``half = n // 2``, ``odd = n % 2 == 1``: a branch on them (``and``/``not``), an active
        value scaled by a count."""
        from .gen import Val

        n = self.an_int(scope, body, indent)
        half, odd = self.fresh_name("half"), self.fresh_name("odd")
        body.append(f"{indent}{half} = {n} // 2")
        body.append(f"{indent}{odd} = {n} % 2 == 1")
        self.int_names.append(half)
        cond = self.rng.choice([f"{odd} and not {half} > 3", f"not {odd} or {half} == 0", f"{odd}", f"not {odd}"])
        self.branch(scope, body, indent, None, cond=cond)
        if self.rng.random() < 0.5:
            name = self.fresh_name("t")
            e = self.tame(self.expr(scope, 1))
            body.append(f"{indent}{name} = {e.code} * ({half} % 3)")
            scope.append(Val(name, e.shape, 2 * e.bound))

    def py_linspace(self, scope: list, body: list[str], indent: str) -> None:
        from .gen import Val

        vecs = [v for v in scope if len(v.shape) in (1, 2) and v.code.isidentifier()]
        if not vecs:
            return
        v = self.rng.choice(vecs)
        grid = self.fresh_name("grid")
        length = f"len({v.code})" if len(v.shape) == 1 else f"{v.code}.shape[-1]"
        body.append(f"{indent}{grid} = np.linspace(0.0, 1.0, {length})")
        g = Val(grid, v.shape[-1:], 1.0, fresh=True)
        name = self.fresh_name("t")
        body.append(f"{indent}{name} = {v.code} * {grid}")
        scope += [g, Val(name, v.shape, v.bound)]

    def py_flag(self, scope: list, body: list[str], indent: str) -> None:
        """Module flags and numbers: ``if not DEBUG:``, ``SCALE * v``."""
        from .gen import Val

        flag = self.module_constant("DEBUG", "False")
        scale = self.module_constant("SCALE", self.rng.choice(["0.5", "0.25", "1.5"]))
        v = self.tame(self.expr(scope, 1))
        name = self.fresh_name("t")
        body.append(f"{indent}{name} = {scale} * {v.code}")
        scope.append(Val(name, v.shape, 1.5 * v.bound))
        if self.rng.random() < 0.5:
            body.append(f"{indent}if {flag}:")
            body.append(f'{indent}    print("{name}", {name})')
        else:
            self.branch(scope, body, indent, None, cond=f"not {flag}")

    def module_constant(self, name: str, value: str) -> str:
        if name not in self.constants:
            self.constants[name] = value
        return name

    # ------------------------------------------------------------------ module-level statements
    def py_module(self, scope: list, body: list[str], indent: str) -> None:
        """A module-level table built by statements, read by ``f``: ``t = TABLE ... * v`` (its
        entries' sum at most 3 in size, so ``t`` stays bounded)."""
        from .gen import Val

        r = self.rng
        self.counter += 1
        name, k = f"TABLE{self.counter}", self.counter
        lines = self.module_lines
        how = r.choice(self.module_kinds)
        v = self.tame(self.expr(scope, 1))
        t = self.fresh_name("t")
        if how == "append":
            lines += [f"{name} = []", f"for p{k} in range(1, {r.randint(2, 4)}):", f"    {name}.append(0.25 * p{k})"]
            acc = self.fresh_name("s")
            body.append(f"{indent}{acc} = 0.0")
            body.append(f"{indent}for c{k} in {name}:")
            body.append(f"{indent}    {acc} = {acc} + c{k} * np.tanh({v.code})")
            scope.append(Val(acc, v.shape, 1.5))
            return
        if how == "extend":
            lines += [f"{name} = [0.5]", f"{name}.extend([-0.25, 0.125])", f"{name}.insert(0, 0.75)"]
            read = f"np.polyval({name}, np.tanh({v.code}))"
        elif how == "in_place":
            lines += [f"{name} = np.linspace(0.25, 0.5, 3)", f"{name} *= 2.0", f"{name} -= 0.5"]
            read = f"np.sum({name}) * {v.code}"
        elif how == "if":
            flag = self.module_constant("FAST", r.choice(["True", "False"]))
            lines += [f"if {flag}:", f"    {name} = 0.5", "else:", f"    {name} = -1.5"]
            read = f"{name} * {v.code}"
        elif how == "dict":
            lines += [f"{name} = {{}}", f'{name}["a"] = 0.5', f'{name}["b"] = np.array([0.25, -0.5])']
            read = f'({name}["a"] + np.sum({name}["b"])) * {v.code}'
        elif how in ("items", "dict_items", "rows", "update"):
            read = self.module_writes(how, name, k)
        else:
            rng = f"RNG{k}"
            lines += [
                f"{rng} = np.random.default_rng({r.randint(0, 99)})",
                f"{name} = {rng}.uniform(-1.0, 1.0, size=3)",
                f"{name}_2 = {rng}.normal(size=2).clip(-1.0, 1.0)",
            ]
            read = f"(np.sum({name}) - np.sum({name}_2)) * {v.code}"
        body.append(
            f"{indent}{t} = {read}"
            if how not in ("items", "dict_items", "rows", "update")
            else f"{indent}{t} = ({read}) * {v.code}"
        )
        scope.append(Val(t, v.shape, 5.0 * max(v.bound, 1.0)))

    def module_writes(self, how: str, name: str, k: int) -> str:
        """Module-level writes into a table, and what ``f`` reads of it (entries at most 1 in
        size, at most 3 of them): item writes (``W[0] = ...``, ``W[1:] += ...``), key writes and
        updates (``D["k"] = ...``, ``D["k"] *= ...``), loops over an array's rows, in place updates
        in a loop over ``range(len(W))``, under an ``if`` on a module flag."""
        r, lines = self.rng, self.module_lines
        c = lambda: r.choice(["0.5", "-0.25", "0.125", "0.75", "-0.5"])
        if how == "items":
            lines += [f"{name} = np.zeros(3)", f"{name}[0] = {c()}", f"{name}[1:] = np.array([{c()}, {c()}])"]
            lines += [f"{name}[{r.randint(0, 2)}] {r.choice(['+=', '-=', '*='])} {c()}"]
            if r.random() < 0.5:
                flag = self.module_constant("FAST", r.choice(["True", "False"]))
                lines += [f"if {flag}:", f"    {name}[-1] = {c()}", "else:", f"    {name}[::2] *= {c()}"]
            return f"np.sum({name}[:2]) - {name}[2]"
        if how == "dict_items":
            lines += [
                f'{name} = {{"a": {c()}}}',
                f'{name}["b"] = {c()}',
                f'{name}["a"] {r.choice(["+=", "-=", "*="])} {c()}',
            ]
            if r.random() < 0.5:
                lines += [f"for key{k} in {name}:", f"    {name}[key{k}] = 0.5 * {name}[key{k}]"]
            return f'({name}["a"] - {name}["b"])'
        rows = ", ".join(f"[{c()}, {c()}]" for _ in range(3))
        if how == "rows":
            lines += [f"M{k} = np.array([{rows}])", f"{name} = np.zeros(len(M{k}))"]
            if r.random() < 0.5:
                lines += [f"for i{k}, row{k} in enumerate(M{k}):", f"    {name}[i{k}] = np.sum(row{k} ** 2) - 0.5"]
            else:
                lines += [f"for row{k} in M{k}:", f"    {name} = {name} * 0.5 + row{k}[0] * row{k}[1]"]
            return f"np.mean({name})"
        lines += [f"{name} = np.array([{c()}, {c()}, {c()}])", f"for j{k} in range(len({name})):"]
        lines += [f"    {name}[j{k}] = {name}[j{k}] * 0.5 + 0.125 * j{k}"]
        if r.random() < 0.5:
            lines += [f"    if {name}[j{k}] > 0:", f"        {name}[j{k}] -= 0.25"]
        return f"np.max({name}) * np.min({name})"

    # ------------------------------------------------------------------ polynomials of constants
    def py_poly(self, scope: list, body: list[str], indent: str) -> None:
        """A polynomial with module-level coefficients, in a loop: Horner, or ``c[k] * t ** k``."""
        from .gen import Val

        r = self.rng
        coef = self.fresh_name("COEF").upper()
        values = ", ".join(r.choice(["0.5", "-0.25", "0.125", "1.0", "-0.75"]) for _ in range(r.randint(2, 4)))
        self.constants[coef] = f"np.array([{values}])" if r.random() < 0.5 else f"({values},)"
        x = self.tame(self.expr(scope, 1))
        t, p, k = self.fresh_name("u"), self.fresh_name("p"), f"k{self.counter}"
        self.counter += 1
        body.append(f"{indent}{t} = np.tanh({x.code})")
        body.append(f"{indent}{p} = 0.0")
        if r.random() < 0.5:
            body.append(f"{indent}for {k} in range(len({coef})):")
            body.append(f"{indent}    {p} = {p} + {coef}[{k}] * {t} ** {k}")
        else:
            body.append(f"{indent}for {k} in range(len({coef}) - 1, -1, -1):")
            body.append(f"{indent}    {p} = {p} * {t} + {coef}[{k}]")
        scope.append(Val(p, x.shape, 4.0))

    # ------------------------------------------------------------------ lists
    def py_append(self, scope: list, body: list[str], indent: str) -> None:
        from .gen import Val

        r = self.rng
        acc = self.fresh_name("acc")
        vecs = [v for v in scope if v.shape and v.code.isidentifier()]
        body.append(f"{indent}{acc} = []")
        if vecs and r.random() < 0.5:  # over the rows of an array (none for an empty one)
            v = r.choice(vecs)
            row = self.fresh_name("row")
            body.append(f"{indent}for {row} in {v.code}:")
            inner = [*scope, Val(row, v.shape[1:], v.bound, fresh=False)]
            e = self.tame(self.expr(inner, 2))
            e = e if e.shape == () else self.reduce_to_scalar(e)
            body.append(f"{indent}    {acc}.append({self.tame(e).code})")
            shape, count = (), None
        else:
            count = r.randint(1, 3)
            i = f"i{self.counter}"
            self.counter += 1
            body.append(f"{indent}for {i} in range({count}):")
            e = self.tame(self.expr(scope, 2))
            shape = e.shape
            body.append(f"{indent}    {acc}.append({e.code} * ({i} + 1.0))")
        name = self.fresh_name("t")
        if count is not None and r.random() < 0.5:
            body.append(f"{indent}{name} = np.stack({acc})")
            scope.append(Val(name, (count, *shape), 4.0 * count))
        else:
            body.append(f"{indent}{name} = sum({acc})")
            scope.append(Val(name, shape, 4.0 * (count or 8), fresh=False))

    # ------------------------------------------------------------------ nested functions
    def py_nested(self, scope: list, body: list[str], indent: str) -> None:
        from .gen import Val

        r = self.rng
        fn = self.fresh_name("inner")
        if r.random() < 0.5:
            body.append(f"{indent}def {fn}(u):")
            body.append(f"{indent}    w = np.tanh(u)")
            body.append(f"{indent}    return w * w + 0.5 * u")
        else:
            body.append(f"{indent}{fn} = lambda u: np.sin(u) * 0.5")  # a lambda assigned, as users write
        v = self.tame(self.expr(scope, 1))
        name = self.fresh_name("t")
        body.append(f"{indent}{name} = {fn}({v.code})")
        scope.append(Val(name, v.shape, 1.0 + 0.5 * v.bound))

    # ------------------------------------------------------------------ list parameters
    def list_parameter(self, name: str, params: list, scope: list, body: list[str]) -> None:
        """``ws``, a list of arrays of one shape: unpacked, indexed, or iterated in ``f``."""
        from .gen import Val

        r = self.rng
        count = r.randint(1, 3)
        tokens = r.choice([("n",), ("m", "n"), ()])
        params.append(("list", name, count, tokens))
        shape = self.concrete(tokens)
        how = r.choice(["unpack", "index", "loop"])
        if how == "unpack":
            names = [f"{name}_{k}" for k in range(count)]
            body.append(f"    {', '.join(names)}{',' if count == 1 else ''} = {name}")
            scope += [Val(n, shape, 2.0, fresh=False) for n in names]
        elif how == "index":
            scope += [Val(f"{name}[{k}]", shape, 2.0, fresh=False) for k in range(count)]
        else:
            acc = self.fresh_name("s")
            body.append(f"    {acc} = 0.0")
            body.append(f"    for w in {name}:")
            body.append(f"        {acc} = {acc} + np.sum(np.tanh(w) * w)")
            scope.append(Val(acc, (), 2.0 * 9 * count))
