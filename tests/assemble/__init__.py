"""Tests of vmodtool.assemble (module generation and lint)."""
