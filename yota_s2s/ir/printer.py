"""The printed IR: a ``Tape`` in, text out (what ``--dump-ir`` and ``gradtape`` show).

One equation per line; variables are numbered ``%1, %2, ...`` at print time in
order of definition; constants are inline; static parameters are
``key=value``; the source line an equation came from is on the right, its
text on the first equation of each line::

    tape f(x)
      inp %1 x
      %2 = exp(%1)                 # f.py:3  return np.sum(np.exp(x))
      %3 = sum(%2)                 # f.py:3
      out %3

Grammar: ``line := "inp" var path | var "=" prim "(" args ")" [# span] |
"out" atoms``; ``atom := var | constant``; gradient tapes mark the start of the
reverse sweep with ``-- backward --``.
"""

from __future__ import annotations

from .core import Atom, Dyn, Key, Lit, Section, Slice, Tape


def format_value(value: object) -> str:
    """A static value as it reads in source: ``1.0``, ``(0, 1)``, ``[:, None]`` for an index."""
    if isinstance(value, Slice):
        parts = [
            "" if p is None else f"${p.k}" if isinstance(p, Dyn) else str(p)
            for p in (value.start, value.stop, value.step)
        ]
        return ":".join(parts[:2]) + (f":{parts[2]}" if value.step is not None else "")
    if value is Ellipsis:
        return "..."
    return repr(value)


def format_index(index: tuple) -> str:
    return "[" + ", ".join(format_value(i) for i in index) + "]"


def format_path(path: tuple) -> str:
    """An input's path as the source writes it: ``x``, ``m.W``, ``m.layers[0].W`` (an int is an
    index into a list attribute).

    >>> format_path(("m", "layers", 0, "W")), format_path(("params", Key("W1")))
    ('m.layers[0].W', "params['W1']")
    """
    return str(path[0]) + "".join(
        f"[{p}]" if isinstance(p, int) else f"[{p.name!r}]" if isinstance(p, Key) else f".{p}" for p in path[1:]
    )


def format_tape(tape: Tape, width: int = 44) -> str:
    """The tape as text (see the module docstring)."""
    names: dict[int, str] = {}

    def name(a: Atom) -> str:
        if isinstance(a, Lit):
            return format_value(a.value)
        if a.id not in names:
            names[a.id] = f"%{len(names) + 1}"
        return names[a.id]

    params = ", ".join(p.name for p in tape.params)
    lines = [f"tape {tape.name}({params})"]
    for inp in tape.inputs:
        lines.append(f"  inp {name(inp.var)} {format_path(inp.path)}")
    _format_eqns(tape, name, width, "  ", lines)
    lines.append("  out " + _format_outputs(tape, name))
    return "\n".join(lines) + "\n"


def _format_eqns(tape: Tape, name, width: int, indent: str, lines: list[str]) -> None:
    last_line = None
    section = Section.FORWARD
    for eqn in tape.eqns:
        if eqn.section != section:
            section = eqn.section
            lines.append(f"{indent}-- {section} --")
            last_line = None
        args = ", ".join(name(a) for a in eqn.args)
        params_text = ", ".join(
            f"{k}={format_index(v) if k == 'index' else format_value(v)}" for k, v in eqn.params.items()
        )
        inside = ", ".join(p for p in (args, params_text) if p)
        outs = ", ".join(name(o) for o in eqn.outs)
        text = f"{indent}{outs} = {eqn.prim}({inside})"
        if eqn.span is not None:
            where = f"{eqn.span.path}:{eqn.span.line}"
            if (eqn.span.path, eqn.span.line) != last_line:
                where += f"  {eqn.span.text}"
                last_line = (eqn.span.path, eqn.span.line)
            text = f"{text.ljust(width)} # {where}"
        lines.append(text)
        for region in eqn.regions:
            inputs = ", ".join(name(i.var) for i in region.inputs)
            lines.append(f"{indent}  {region.name}({inputs}):")
            _format_eqns(region, name, width, indent + "    ", lines)
            lines.append(f"{indent}    -> " + ", ".join(name(a) for a in region.outputs))


def _format_outputs(tape: Tape, name) -> str:
    if tape.out_tree is None:
        return ", ".join(name(a) for a in tape.outputs)

    def build(node: object) -> str:
        if isinstance(node, int):
            return name(tape.outputs[node])
        if isinstance(node, dict):
            return "{" + ", ".join(f"{k}: {build(v)}" for k, v in node.items()) + "}"
        return ", ".join(build(n) for n in node)

    return build(tape.out_tree)
