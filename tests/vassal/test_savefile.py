"""Saves and logs built in the test: reading, rewriting, bad and unsafe input."""

import io
import os
import zipfile
from pathlib import Path

import pytest

from vmodtool.errors import FormatError, UnsafeFileError
from vmodtool.vassal.archive import Archive, ArchiveLimits, build_zip
from vmodtool.vassal.commands import AddPiece, LogEntry, MovePiece, PlayerAdd, Redactor
from vmodtool.vassal.obfuscation import Encoding, encode_saved_game
from vmodtool.vassal.savefile import SavedGame

ESC = "\x1b"
SHARED_TLD_LOG = Path(os.environ.get("VMODTOOL_SHARED", Path(__file__).resolve().parents[3] / "shared")) \
    / "corpus" / "tld" / "game" / "0606-1.log"
TEXT = ESC.join([
    "begin_save", "",
    "\\" + ESC + "+/11/piece;;;inf.png;1-36 Inf/Main Map;100;100;1;0",
    "PLAYER\tsecret-pw\tAlice\tNATO",
    "end_save",
    "LOG\tM/11/Main Map/200/100/null/Main Map/100/100/null/secret-pw",
    "LOG\tCHAT&lt;Alice&gt; - Привет",
])


def _vsav(text=TEXT, **extra):
    entries = {"savedGame": encode_saved_game(text, key=0x42)}
    entries.update(extra)
    return build_zip(entries)


def test_read_write_keeps_encoding_and_entries(tmp_path):
    src = tmp_path / "game.vlog"
    src.write_bytes(_vsav(savedata=b"<data version='1'/>"))
    game = SavedGame.read(src)
    assert game.is_log and len(game.log_steps()) == 2
    assert [p.name for p in game.players()] == ["Alice"]
    out = tmp_path / "copy.vlog"
    game.write(out)
    again = SavedGame.read(out)
    assert again.text == TEXT
    assert again.decoded.key == 0x42
    assert again.entries["savedata"] == b"<data version='1'/>"
    with pytest.raises(Exception, match="overwrite"):
        game.write(src)
    # building the same file twice gives identical bytes
    assert game.to_bytes() == game.to_bytes()


def test_bare_stream_is_accepted(tmp_path):
    path = tmp_path / "old.sav"
    path.write_text(TEXT, encoding="utf-8")
    game = SavedGame.read(path)
    assert game.container == "raw" and game.decoded.encoding is Encoding.PLAIN
    assert game.to_bytes() == TEXT.encode("utf-8")


def test_password_never_in_records():
    game = SavedGame.from_bytes(_vsav())
    redactor = game.redactor()
    texts = []
    for _step_index, node in game.log_steps():
        for child in ([node] if isinstance(node, LogEntry) else node.children):
            texts.append(str(child.record(redactor)))
    move = game.log_steps()[0][1].logged
    assert isinstance(move, MovePiece) and move.player_id == "secret-pw"
    assert "secret-pw" not in " ".join(texts)
    assert "Alice" in " ".join(texts)
    player = [c for c in game.commands.children if isinstance(c, PlayerAdd)][0]
    assert "secret-pw" not in str(player.record(redactor))


def test_truncated_zip(tmp_path):
    data = _vsav()
    path = tmp_path / "cut.vsav"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError) as info:
        SavedGame.read(path)
    assert str(info.value).startswith(str(path))
    assert "zip" in str(info.value)


def test_zip_without_saved_game(tmp_path):
    path = tmp_path / "x.vsav"
    path.write_bytes(build_zip({"moduledata": b"<data/>"}))
    with pytest.raises(FormatError, match="no 'savedGame' entry"):
        SavedGame.read(path)


def test_wrong_key_is_reported(tmp_path):
    good = encode_saved_game(TEXT, key=0x42)
    bad = good[:5] + b"17" + good[7:]
    path = tmp_path / "k.vsav"
    path.write_bytes(build_zip({"savedGame": bad}))
    with pytest.raises(FormatError) as info:
        SavedGame.read(path)
    assert "entry savedGame" in str(info.value)


def _raw_zip(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo(name), data)
    return buf.getvalue()


@pytest.mark.parametrize("name", ["../evil", "a/../../evil", "/etc/passwd", "C:\\win", "images\\..\\..\\x"])
def test_path_traversal_is_refused(tmp_path, name):
    path = tmp_path / "t.vsav"
    path.write_bytes(_raw_zip(name, b"x"))
    with pytest.raises(UnsafeFileError) as info:
        SavedGame.read(path)
    assert name in str(info.value) or repr(name) in str(info.value)


def test_zip_bomb_is_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("savedGame", b"0" * (50 * 1024 * 1024))
    path = tmp_path / "bomb.vsav"
    path.write_bytes(buf.getvalue())
    assert path.stat().st_size < 200_000
    with pytest.raises(UnsafeFileError, match="zip bomb"):
        SavedGame.read(path)
    with pytest.raises(UnsafeFileError, match="more than"):
        Archive.open(path, limits=ArchiveLimits(max_total=1024))


def test_corrupt_entry_data(tmp_path):
    data = bytearray(_vsav())
    # damage the compressed savedGame bytes (after the local header)
    for i in range(60, 90):
        data[i] ^= 0x5A
    path = tmp_path / "crc.vsav"
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError) as info:
        SavedGame.read(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(FormatError, match="cannot open"):
        SavedGame.read(tmp_path / "nope.vsav")


def test_built_commands_encode_like_vassal():
    add = AddPiece.build(None, "piece;;;a/b.png;1/A", "null;0;0;12;0")
    assert add.text == "+/null/piece;;;a\\/b.png;1\\/A/null;0;0;12;0"
    assert add.type == "piece;;;a/b.png;1/A" and add.piece_id is None
    move = MovePiece.build("5", "Main Map", 10, 20, None, "Main Map", 1, 2, None, "pw")
    assert move.text == "M/5/Main Map/10/20/null/Main Map/1/2/null/pw"
    assert move.new_position == (10, 20) and move.new_under is None


def test_redactor_scrubs_only_whole_tokens():
    r = Redactor()
    r.learn("ab", "Bob")
    assert r.scrub("M/1/ab/cab/ab") == "M/1/<redacted>/cab/<redacted>"


def _learn_plainly(node) -> dict[str, str]:
    """``Redactor.learn_from`` as a plain walk over every leaf (the oracle of
    its filtered loop)."""
    from vmodtool.vassal.commands import PlayerRemove, leaf_commands
    r = Redactor()
    movers = []
    for cmd in leaf_commands(node):
        inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
        if isinstance(inner, PlayerAdd):
            r.learn(inner.player_id, inner.name or None)
        elif isinstance(inner, (MovePiece, PlayerRemove)):
            movers.append(inner.player_id)
    for player_id in movers:
        r.learn(player_id)
    return dict(r._labels)


def test_redactor_learns_what_a_walk_over_every_leaf_learns():
    from vmodtool.vassal.commands import parse_commands
    esc = "\x1b"
    move = MovePiece.build("p1", "Main", 1, 2, None, "Main", 3, 4, None, "mover-secret").text
    bare = MovePiece.build("p2", "Main", 1, 2, None, "Main", 3, 4, None, "bare-secret").text
    texts = [AddPiece.build("p1", "piece;;;a.png;A", "Main;1;2").text, "LOG\t" + move, "PYREMOVE\tgone-secret",
             "PLAYER\tnamed-secret\tAlice\tAllies", bare, "LOG\tnull", "CHAT<Alice> - hi", "",
             "LOG\tPLAYER\tlogged-secret\tBob\tAxis", "LOG\t" + bare]
    for order in (texts, texts[::-1]):
        node = parse_commands(esc.join(order))
        learnt = dict(Redactor().learn_from(node)._labels)
        assert learnt == _learn_plainly(node)
        assert set(learnt) == {"mover-secret", "bare-secret", "gone-secret", "named-secret", "logged-secret"}
    tld = SHARED_TLD_LOG
    if tld.exists():
        node = SavedGame.read(tld).commands
        assert dict(Redactor().learn_from(node)._labels) == _learn_plainly(node)
