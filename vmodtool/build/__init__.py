"""Scenario → VASSAL module: the buildFile components, piece definitions,
images and the .vmod archive; plus lint for any module."""
