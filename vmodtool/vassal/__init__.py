"""VASSAL's file formats and grid geometry — no game knowledge, no CLI.

Everything here agrees with VASSAL 3.7.26 byte for byte on real files.  The
sections (§) the modules cite are those of ``docs/vassal-format.md``, which
describes each format, the module that implements it and the VASSAL quirks
copied on purpose.
"""
