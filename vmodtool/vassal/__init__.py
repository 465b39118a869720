"""VASSAL's file formats and grid geometry — no game knowledge, no CLI.

Everything here agrees with VASSAL 3.7.26 byte for byte on real files; see
``docs/vassal-format.md`` in the shared docs for the specification each module
cites.
"""
