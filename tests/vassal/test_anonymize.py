"""``vmodtool anonymize``: every player password replaced (the same new one
for the same old one under one key), sides kept, names replaced on
request, the output checked to hold no old password before it is written
— on synthetic files and on every save and log of the corpus."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from tests.cli_runner import invoke as _invoke
from tests.conftest import rel_id, shared_files, shared_path
from vmodtool.errors import FormatError, VmodError
from vmodtool.vassal.anonymize import LONG, Anonymizer, PasswordKey, game_passwords
from vmodtool.vassal.commands import ESC
from vmodtool.vassal.obfuscation import encode_saved_game
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.sequence import encode_sequence

LONG_PW = "hunter2-секрет"
SHORT_PW = "me"
PIECE = "+/101/obs;77,130;;Mask;I;?;player:;Peek;;true;;\tpiece;;;a.png;Танк/" \
        + f"{LONG_PW};\tMain;10;20;1"


def _save(text: str, tmp_path: Path, name: str = "game.vlog") -> Path:
    from vmodtool.vassal.archive import build_zip
    path = tmp_path / name
    path.write_bytes(build_zip({"savedGame": encode_saved_game(text, key=0x21)}))
    return path


def _text(piece: str = PIECE) -> str:
    restore = encode_sequence(["begin_save", "", encode_sequence(["", piece], ESC) or "",
                               f"PLAYER\t{LONG_PW}\tАлиса\tСиние", f"PLAYER\t{SHORT_PW}\tBob\tКрасные",
                               f"UNMASK\t{LONG_PW}\t{SHORT_PW}", "end_save"], ESC) or ""
    steps = [f"LOG\tM/101/Main/30/40/null/Main/10/20/null/{LONG_PW}",
             f"LOG\tM/101/Main/50/40/null/Main/30/40/null/{SHORT_PW}",
             f"LOG\tCHAT&lt;Алиса&gt; - my password is {LONG_PW}, give me the dice",
             f"LOG\tCHAT<{SHORT_PW}> - Алиса, hello from me",
             f"LOG\tPYREMOVE\t{SHORT_PW}"]
    return encode_sequence([restore] + steps, ESC) or ""


def _out_text(data: bytes) -> str:
    return SavedGame.from_bytes(data).text


def test_every_password_is_replaced_and_the_sides_are_kept(tmp_path):
    game = SavedGame.read(_save(_text(), tmp_path))
    key = PasswordKey.random()
    result = Anonymizer(key).file(game)
    text = _out_text(result.data)
    assert LONG_PW not in text
    assert not re.search(rf"(?:^|[\t;/\x1b<]){SHORT_PW}(?:[\t;/\x1b>]|$)", text)
    new_long, new_short = key.new_password(LONG_PW), key.new_password(SHORT_PW)
    assert f"PLAYER\t{new_long}\tАлиса\tСиние" in text and f"PLAYER\t{new_short}\tBob\tКрасные" in text
    assert f"/{new_long}" in text and f"/{new_short}" in text          # the movers
    assert f"UNMASK\t{new_long}\t{new_short}" in text
    assert f"Танк/{new_long};" in text                                  # the mask's owner
    assert f"is {new_long}, give me the dice" in text                   # typed into the chat
    assert f"<{new_short}> - Алиса, hello from me" in text              # short: a field only
    assert game_passwords(SavedGame.from_bytes(result.data)) == {new_long: "Алиса", new_short: "Bob"}
    assert SavedGame.from_bytes(result.data).players() == game.players()
    assert result.passwords == 2


def test_one_key_one_mapping(tmp_path):
    key = PasswordKey.random()
    game = SavedGame.read(_save(_text(), tmp_path))
    a, b = Anonymizer(key).file(game), Anonymizer(key).file(game)
    assert _out_text(a.data) == _out_text(b.data)
    other = Anonymizer(PasswordKey.random()).file(game)
    assert _out_text(other.data) != _out_text(a.data)


def test_key_file_is_made_private_and_reused(tmp_path):
    path = tmp_path / "game.key"
    first = PasswordKey.from_file(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert PasswordKey.from_file(path).new_password("x") == first.new_password("x")
    path.write_text("not hex", encoding="ascii")
    with pytest.raises(VmodError, match="not an anonymization key"):
        PasswordKey.from_file(path)


def test_a_password_in_a_label_is_replaced_and_counted(tmp_path):
    piece = PIECE.replace("Танк", f"Танк {LONG_PW}x")          # inside a name: not a field
    game = SavedGame.read(_save(_text(piece), tmp_path))
    key = PasswordKey.random()
    result = Anonymizer(key).file(game)
    assert result.elsewhere == 1
    assert f"Танк {key.new_password(LONG_PW)}x" in _out_text(result.data)


def test_a_password_left_in_another_entry_is_refused_and_never_printed(tmp_path):
    from vmodtool.vassal.archive import build_zip
    path = tmp_path / "game.vsav"
    path.write_bytes(build_zip({"savedGame": encode_saved_game(_text(), key=0x21),
                                "savedata": f"<data><description>{LONG_PW}</description></data>".encode()}))
    with pytest.raises(FormatError, match="occurs in this entry") as info:
        Anonymizer(PasswordKey.random()).file(SavedGame.read(path))
    assert LONG_PW not in str(info.value) and "savedata" in str(info.value)


def test_names_replaced_in_roster_senders_and_chat(tmp_path):
    game = SavedGame.read(_save(_text(), tmp_path))
    plain = _out_text(Anonymizer(PasswordKey.random(), {"Алиса": "Player 1", "Bob": "Player 2"}).file(game).data)
    assert "\tPlayer 1\tСиние" in plain and "\tPlayer 2\tКрасные" in plain
    assert "&lt;Player 1&gt; - " in plain
    assert "- Алиса, hello" in plain                           # a mention: only when asked
    asked = _out_text(Anonymizer(PasswordKey.random(), {"Алиса": "Player 1"}, names_in_chat=True)
                      .file(game).data)
    assert "- Player 1, hello" in asked and "Алиса" not in asked


# -- the command ---------------------------------------------------------------------------

def test_cli_a_chain_in_two_calls_with_one_key(tmp_path):
    one, two = _save(_text(), tmp_path, "a.vlog"), _save(_text(), tmp_path, "b.vlog")
    key = tmp_path / "k.key"
    out1, out2 = tmp_path / "pa.vlog", tmp_path / "pb.vlog"
    for src, out in ((one, out1), (two, out2)):
        code, stdout, stderr = _invoke(["anonymize", src, "-o", out, "--key", key, "--names", "P1,P2"])
        assert code == 0, stderr
        assert LONG_PW not in stdout + stderr and "2 player password(s) replaced" in stdout
    assert game_passwords(SavedGame.read(out1)) == game_passwords(SavedGame.read(out2))
    assert [p.name for p in SavedGame.read(out1).players()] == ["P1", "P2"]


def test_cli_refusal_writes_nothing(tmp_path):
    from vmodtool.vassal.archive import build_zip
    bad = tmp_path / "bad.vsav"
    bad.write_bytes(build_zip({"savedGame": encode_saved_game(_text(), key=0x21),
                               "savedata": f"<data><description>{LONG_PW}</description></data>".encode()}))
    good = _save(_text(), tmp_path, "good.vlog")
    out = tmp_path / "out"
    code, stdout, stderr = _invoke(["anonymize", good, bad, "-o", out])
    assert code == 2 and stderr.count("\n") == 1 and "bad.vsav" in stderr
    assert LONG_PW not in stdout + stderr
    assert not out.exists() or not any(out.iterdir())
    code, _, stderr = _invoke(["anonymize", good, "-o", good])
    assert code == 2
    code, _, stderr = _invoke(["anonymize", good, "-o", tmp_path / "x.vlog", "--names", "A,B=C"])
    assert code == 2 and "--names" in stderr


def test_cli_warns_of_a_password_in_a_label(tmp_path):
    src = _save(_text(PIECE.replace("Танк", f"Танк {LONG_PW}x")), tmp_path)
    code, stdout, stderr = _invoke(["anonymize", src, "-o", tmp_path / "out.vlog"])
    assert code == 0 and "warning:" in stderr and "piece's label" in stderr
    assert LONG_PW not in stdout + stderr


# -- the corpus ----------------------------------------------------------------------------

CORPUS = [p for p in shared_files("corpus", "**/*") if p.suffix in (".vsav", ".vlog", ".log", ".sav")]


@pytest.mark.parametrize("path", CORPUS, ids=[rel_id(p) for p in CORPUS])
def test_corpus_file_keeps_no_old_password(path):
    game = SavedGame.read(path)
    old = game_passwords(game)
    key = PasswordKey.random()
    result = Anonymizer(key).file(game)
    out = SavedGame.from_bytes(result.data)
    text = out.text
    for pw in old:
        if len(pw) >= LONG:
            assert pw not in text
            assert all(pw.encode() not in data for data in out.entries.values())
        else:
            assert not re.search(rf"(?:^|[\t;/,:|\x1b\\<]){re.escape(pw)}(?:[\t;/,:|\x1b\\>]|$)", text)
    assert not set(game_passwords(out)) & set(old)
    # the sides stay; a name that is the password itself ("me") is the new one
    assert [(p.name, p.side) for p in out.players()] == \
        [(key.new_password(p.name) if p.name in old else p.name, p.side) for p in game.players()]
    assert len(game_passwords(out)) == len(old)


@pytest.fixture(scope="module")
def tld_anonymized(tmp_path_factory):
    logs = shared_files("corpus", "tld/game/*.log")
    if not logs:
        shared_path("corpus", "tld", "game")
    folder = tmp_path_factory.mktemp("anon")
    code, _, stderr = _invoke(["anonymize", *logs, "-o", folder])
    assert code == 0, stderr
    return logs, [folder / p.name for p in logs]


def test_check_game_of_the_anonymized_tld_chain_finds_the_same(tld_anonymized):
    from vmodtool.checkgame import check_game, record_game
    logs, anonymized = tld_anonymized

    def findings(paths):
        result = check_game(record_game(paths))
        return [(f.kind, f.severity, f.message, Path(f.log).name if f.log else None, f.step, f.player)
                for f in (x for s in result.sections for x in s.findings)]

    before, after = findings(logs), findings(anonymized)
    assert len(before) > 100
    assert after == before
