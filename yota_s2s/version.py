"""The version of yota-s2s (written into every generated file's header)."""

__version__ = "0.1.0"
