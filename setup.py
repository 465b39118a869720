"""The templates and the counter art are package data whose source is the
top-level ``templates/`` and ``counters/`` folders: they are installed as
``vmodtool/templates`` and ``vmodtool/counters`` (pyproject.toml cannot map a
folder outside the package into it; everything else is in pyproject.toml)."""

from setuptools import find_namespace_packages, setup

# the data folders (fonts, report assets, card templates, …) are listed too, as the
# namespace packages they are, so that setuptools does not warn that they are importable
# folders it was not told of
setup(packages=[*find_namespace_packages(include=["vmodtool*"], exclude=["*__pycache__"]),
                "vmodtool.templates", "vmodtool.templates.cards", "vmodtool.counters"],
      package_dir={"vmodtool.templates": "templates", "vmodtool.counters": "counters"})
