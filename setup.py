"""The templates and the counter art are package data whose source is the
top-level ``templates/`` and ``counters/`` folders: they are installed as
``vmodtool/templates`` and ``vmodtool/counters`` (pyproject.toml cannot map a
folder outside the package into it; everything else is in pyproject.toml)."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["vmodtool*"]), "vmodtool.templates", "vmodtool.counters"],
      package_dir={"vmodtool.templates": "templates", "vmodtool.counters": "counters"})
