"""Finite-difference checks of generated gradients (float64, central differences)."""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import sys
from pathlib import Path

import numpy as np


def load_module(path: Path, name: str | None = None):
    """Import a generated file as a fresh module."""
    name = name or f"generated_{path.stem}_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _scalar(f, args) -> float:
    return float(np.asarray(f(*args)))


def numeric_grad(f, args, i, eps=1e-6):
    """Central differences of the scalar ``f(*args)`` with respect to ``args[i]``.

    Arrays give arrays, numbers give floats, dataclass objects give a dict per attribute.
    """
    arg = args[i]
    if dataclasses.is_dataclass(arg):
        out = {}
        for field in dataclasses.fields(arg):
            value = getattr(arg, field.name)

            def with_attr(v, name=field.name):
                obj = copy.copy(arg)
                setattr(obj, name, v)
                return obj

            out[field.name] = _fd(lambda v: _scalar(f, [*args[:i], with_attr(v), *args[i + 1 :]]), value, eps)
        return out
    return _fd(lambda v: _scalar(f, [*args[:i], v, *args[i + 1 :]]), arg, eps)


def _fd(g, value, eps):
    if np.ndim(value) == 0 and not isinstance(value, np.ndarray):
        x = float(value)
        return (g(x + eps) - g(x - eps)) / (2 * eps)
    x = np.array(value, dtype=float)
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        out[idx] = (g(up) - g(down)) / (2 * eps)
    return out


def assert_close(analytic, numeric, what: str, rtol=1e-5, atol=1e-6):
    if isinstance(numeric, dict):
        assert isinstance(analytic, dict), f"{what}: expected a dict of attribute gradients, got {type(analytic)}"
        for key, num in numeric.items():
            if key in analytic:
                assert_close(analytic[key], num, f"{what}.{key}", rtol, atol)
            else:
                assert np.allclose(num, 0.0, atol=atol), f"{what}.{key}: missing, but the gradient is nonzero"
        return
    assert analytic is not None, f"{what}: got None, expected {numeric}"
    assert np.shape(analytic) == np.shape(numeric), f"{what}: shape {np.shape(analytic)} != {np.shape(numeric)}"
    assert np.allclose(analytic, numeric, rtol=rtol, atol=atol), (
        f"{what}: analytic {np.asarray(analytic).tolist()} != numeric {np.asarray(numeric).tolist()}"
    )


def plain_form(text: str) -> str:
    """A generated module without its columns forms (``_grad_NAME_columns``, what ``_by_columns``
    calls on a large argument), for a test of what the plain functions compute."""
    import ast

    lines = text.splitlines(keepends=True)
    for node in reversed(ast.parse(text).body):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_grad_") and node.name.endswith("_columns"):
            del lines[node.lineno - 1 : node.end_lineno]
    return "".join(lines)
