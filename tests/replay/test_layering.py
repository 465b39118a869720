"""The replay layer stands below its consumers: no module of
``vmodtool/replay/`` imports the audit, check-game, the merge, the report,
the batch or the commands (``vmodtool merge`` lived in the replay package
and imported check-game, an upward import).  And the engine is split by
concern, under the name ``ReplayEngine`` (``Engine`` an alias for one
release, not the audit's ``Engine``)."""

from __future__ import annotations

import ast
from pathlib import Path

import vmodtool.replay

REPLAY = Path(vmodtool.replay.__file__).parent
CONSUMERS = ("vmodtool.audit", "vmodtool.checkgame", "vmodtool.merge", "vmodtool.report", "vmodtool.batch",
             "vmodtool.commands", "vmodtool.cli")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def test_the_replay_layer_imports_no_consumer() -> None:
    upward = {f"{path.name}: {name}" for path in sorted(REPLAY.glob("*.py")) for name in _imports(path)
              if any(name == c or name.startswith(c + ".") for c in CONSUMERS)}
    assert upward == set()


def test_merge_is_a_consumer_package() -> None:
    assert not (REPLAY / "merge.py").exists()
    from vmodtool.merge import final_save_text, merge_logs
    assert merge_logs.__module__ == "vmodtool.merge.writer"
    assert final_save_text.__module__ == "vmodtool.merge.save"


def test_replay_engine_name_and_alias() -> None:
    from vmodtool.audit.engine import Engine as AuditEngine
    from vmodtool.replay.engine import Engine, ReplayEngine
    from vmodtool.replay.engine_decks import Decks
    from vmodtool.replay.engine_stacking import Stacking
    from vmodtool.replay.engine_visibility import Visibility

    assert Engine is ReplayEngine
    assert AuditEngine is not ReplayEngine and ReplayEngine.__name__ != AuditEngine.__name__
    assert issubclass(ReplayEngine, (Visibility, Decks, Stacking))
    # each concern's methods live in its own part, not in the engine's class body
    assert "visible" in vars(Visibility) and "visible" not in vars(ReplayEngine)
    assert "card_event" in vars(Decks) and "merge" in vars(Stacking)
