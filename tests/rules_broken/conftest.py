"""Broken @diffrule files for tests/test_rules.py: parsed by the loader, never imported or collected."""

collect_ignore_glob = ["*.py"]
