"""Rendering with Pillow: counters, NATO symbols, print sheets and map
boards, all from the scenario model.  Fonts ship with the package
(:mod:`vmodtool.render.fonts`) so that output is identical on every machine.
"""
