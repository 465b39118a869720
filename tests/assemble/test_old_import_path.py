"""``vmodtool.build`` (the assembler's old name) still works for one release:
it warns, and every name and submodule it had is the object that now lives in
``vmodtool.assemble`` or ``vmodtool.lint``."""

from __future__ import annotations

import subprocess
import sys

FORWARDS = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import vmodtool.build as old
assert any(issubclass(w.category, DeprecationWarning) and "vmodtool.assemble" in str(w.message) for w in caught)
import vmodtool.assemble.builder, vmodtool.assemble.module, vmodtool.lint, vmodtool.lint.linter
import vmodtool.build.module, vmodtool.build.lint
from vmodtool.build import build_module_file, assemble_module, lint_module, Finding
assert vmodtool.build.module is vmodtool.assemble.module
assert vmodtool.build.lint is vmodtool.lint.linter
assert build_module_file is vmodtool.assemble.builder.build_module_file
assert assemble_module is vmodtool.assemble.module.assemble_module
assert lint_module is vmodtool.lint.lint_module and Finding is vmodtool.lint.Finding
assert "lint_module" in dir(old) and "module" in dir(old)
try:
    old.no_such_name
except AttributeError:
    pass
else:
    raise AssertionError("an unknown name must not resolve")
print("ok")
"""


def test_the_old_import_path_warns_and_forwards_every_name_and_submodule():
    done = subprocess.run([sys.executable, "-c", FORWARDS], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
