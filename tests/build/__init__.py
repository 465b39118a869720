"""Tests of vmodtool.build (module generation and lint)."""
