"""Every corpus save and log against VASSAL 3.7.26's own decoding
(../shared/golden/commands, described in the golden README)."""

import hashlib
import html
import json
import re
from pathlib import Path

import pytest

from tests.conftest import SHARED, rel_id, shared_files
from vmodtool.vassal.commands import CommandGroup, LogEntry, SetBoards, leaves, parse_commands, tree_to_json
from vmodtool.vassal.savefile import SavedGame

GOLDEN = shared_files("golden/commands", "**/*.json")


def _load(golden_path: Path):
    gold = json.loads(golden_path.read_text(encoding="utf-8"))
    return gold, SavedGame.read(SHARED / "corpus" / gold["file"])


def _prefix_key(text: str) -> str:
    # the leaf key of the golden README's commands/ part
    if text.startswith("LOG\t"):
        return "LOG\t" + _prefix_key(text[4:])
    if text == "":
        return "(empty)"
    for p in ("begin_save", "end_save", "begin_log", "end_log", "+/", "-/", "D/", "M/", "UNDO\t",
              "CHAT", "PLAYER\t", "NOTES\t", "PNOTES\t", "SNOTES\t", "GlobalProperty\t", "CHECK\t",
              "SETUP_STACK\t", "SGKC\t", "SEMAIL\t", "CLOCKCONTROL", "CLOCK\t", "INFO\t", "UNMASK\t",
              "EXT\t", "OBA/", "TURN"):
        if text.startswith(p):
            return p
    if re.match(r"[^\t]*BoardPicker\t", text[:300]):
        return "<map>BoardPicker\t"
    m = re.match(r"[^\t/]*[\t/]", text)
    return m.group(0) if m else text[:40]


@pytest.mark.golden
@pytest.mark.parametrize("golden_path", GOLDEN, ids=[rel_id(p) for p in GOLDEN])
def test_decode_and_split_like_vassal(golden_path):
    gold, game = _load(golden_path)
    plaintext = game.text.encode("utf-8")
    assert game.container == gold["container"]
    assert game.decoded.encoding.value == gold["header"]
    if gold["header"] == "!VCSK":
        assert game.decoded.key == gold["key_byte"]
        assert game.decoded.hex_case == gold["hex_digit_case"]
    assert len(plaintext) == gold["plaintext_bytes"]
    assert hashlib.sha256(plaintext).hexdigest() == gold["plaintext_sha256"]
    assert len(game.text) == gold["plaintext_codepoints"]

    tree = game.commands
    as_json = json.dumps(tree_to_json(tree), ensure_ascii=False, separators=(",", ":"))
    assert hashlib.sha256(as_json.encode("utf-8")).hexdigest() == gold["tree_sha256"]
    all_leaves = list(leaves(tree))
    assert len(all_leaves) == gold["leaf_count"]
    top = tree.children if isinstance(tree, CommandGroup) else [tree]
    assert len(top) == gold["top_level_count"]
    counts = {}
    for _, leaf in all_leaves:
        key = _prefix_key(leaf.text)
        counts[key] = counts.get(key, 0) + 1
    assert counts == gold["leaf_counts_by_prefix"]
    if not gold["complete_tree"]:
        by_path = dict(all_leaves)
        for entry in gold["first_leaves"]:
            leaf = by_path[tuple(entry["path"])]
            if "text" in entry:
                assert leaf.text == entry["text"]
            else:
                assert leaf.text[:500] == entry["head"]
                assert hashlib.sha256(leaf.text.encode()).hexdigest() == entry["sha256"]

    # encoding the untouched tree gives the identical text
    assert tree.encode() == game.text
    # and the whole file re-written in its own encoding decodes to the same text
    again = SavedGame.from_bytes(game.to_bytes())
    assert again.text == game.text
    assert again.decoded.encoding == game.decoded.encoding


def _java(cmd, maps):
    if isinstance(cmd, LogEntry):
        inner = cmd.logged
        inner_class = _java(inner, maps) if inner is not None else None
        if inner_class is None:
            return None
        return ("VASSAL.build.module.BasicLogger$LogCommand", inner_class)
    if isinstance(cmd, SetBoards) and maps is not None and cmd.map_id not in maps:
        return None  # only the named map's BoardPicker decodes it
    return cmd.java_class


def _gold_class(gold):
    if isinstance(gold, dict):
        logged = gold.get("logged")
        return (gold["class"], _gold_class(logged))
    return gold


def _module_maps(module: str):
    names = set()
    for part in module.split(" + "):
        path = SHARED / "corpus" / part.strip()
        if path.name.startswith("buildFile") and path.exists():
            text = path.read_text(encoding="utf-8", errors="replace")
            names.update(html.unescape(n) for n in re.findall(r'mapName="([^"]*)"', text))
    return names or None


@pytest.mark.golden
@pytest.mark.parametrize("golden_path", GOLDEN, ids=[rel_id(p) for p in GOLDEN])
def test_leaf_types_match_vassal_classes(golden_path):
    gold, game = _load(golden_path)
    decoded = gold.get("decoded")
    if not decoded:
        pytest.skip(gold.get("decoded_note", "no module for this file"))
    maps = _module_maps(decoded["module"])
    by_path = dict(leaves(game.commands))
    if gold["complete_tree"]:
        def compare(node, classes, path=()):
            if isinstance(node, CommandGroup):
                assert isinstance(classes, list), path
                for i, child in enumerate(node.children):
                    compare(child, classes[i], path + (i,))
            else:
                assert _java(node, maps) == _gold_class(classes), (path, node)
        compare(game.commands, decoded["classes"])
    else:
        for entry in gold["first_leaves"]:
            leaf = by_path[tuple(entry["path"])]
            assert _java(leaf, maps) == _gold_class(entry["decoded_class"]), entry["path"]


def test_parse_commands_small_tree():
    text = "begin_save\x1b\x1b\\\x1b+/1/piece;;;a.png;A/null;0;0;;0\x1bend_save"
    tree = parse_commands(text)
    assert tree_to_json(tree) == ["begin_save", "", ["", "+/1/piece;;;a.png;A/null;0;0;;0"], "end_save"]
    assert tree.encode() == text


def test_largest_save_reads_within_two_and_a_half_times_its_text():
    # issue 18: decode + command tree of the largest corpus save under 3x its
    # plaintext; the text and the leaves it is cut into are 2x
    import tracemalloc

    saves = sorted((SHARED / "corpus").glob("*/*.vsav"), key=lambda p: p.stat().st_size)
    if not saves:
        pytest.skip("shared corpus not available")
    tracemalloc.start()
    try:
        game = SavedGame.read(saves[-1])
        _ = game.commands
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2.5 * game.decoded.plaintext_bytes, f"{peak / game.decoded.plaintext_bytes:.2f}x"
