"""The shipped @diffrule library.  These files are parsed by yota_s2s.dsl.load, never imported."""
