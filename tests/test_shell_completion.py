"""Shell completion (Click's): the documented set-up works for bash, zsh and
fish, and completes command names (also the lazily imported ones), their
arguments' choices and options."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO


def _complete(env: dict[str, str]) -> str:
    full = dict(os.environ, PYTHONPATH=str(REPO), **env)
    # as the installed command: Click takes the program name from argv[0]
    code = "import sys; sys.argv[0] = 'vmodtool'; from vmodtool.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, check=False,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_documented_source_script_is_written(shell: str) -> None:
    script = _complete({"_VMODTOOL_COMPLETE": f"{shell}_source"})
    assert "_VMODTOOL_COMPLETE" in script and f"{shell}_complete" in script


@pytest.mark.parametrize(("words", "cword", "expected"), [
    ("vmodtool ba", "1", "plain,batch"),                      # a command imported lazily
    ("vmodtool batch che", "2", "plain,check-game"),          # an argument's choices
    ("vmodtool audit --scenario-n", "2", "plain,--scenario-name"),   # an option
])
def test_bash_completes_commands_choices_and_options(words: str, cword: str, expected: str) -> None:
    out = _complete({"_VMODTOOL_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": cword})
    assert out.split() == [expected]
