"""``vmodtool anonymize`` (passwords and names out of saves and logs) and
``vmodtool merge`` (a chain of logs as one log)."""

from __future__ import annotations

from pathlib import Path

import click

from vmodtool.commands import REPLACED, BadInput, Command, check_output, output_option, warn, write_report

__all__ = ["anonymize_command", "merge_command"]

_GAME_SUFFIXES = (".vlog", ".vsav", ".log", ".sav")


def _name_mapping(spec: str | None, roster: list[str]) -> dict[str, str]:
    """``--names``: ``New 1,New 2`` (the roster's names in order of first
    appearance) or ``Old=New,…``."""
    if not spec:
        return {}
    items = [s.strip() for s in spec.split(",")]
    if any(not s for s in items):
        raise BadInput("--names: an empty name in the list")
    if all("=" in s for s in items):
        pairs = [s.split("=", 1) for s in items]
        return {old.strip(): new.strip() for old, new in pairs}
    if any("=" in s for s in items):
        raise BadInput("--names: give either new names in roster order or Old=New pairs, not both")
    if len(items) < len(roster):
        raise BadInput(f"--names: the files name {len(roster)} player(s), but {len(items)} new name(s) "
                       "were given")
    return dict(zip(roster, items, strict=False))


@click.command("anonymize", cls=Command)
@click.argument("games", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("-o", "--output", "output", required=True, metavar="OUT", type=click.Path(path_type=str),
              help="The anonymized file (one input), or the folder the anonymized files are written into "
                   f"under their own names (several inputs); never an input ({REPLACED}).")
@click.option("--names", "names", metavar="LIST",
              help="Replace the players' names: new names in roster order ('Player 1,Player 2') or "
                   "'Old=New,...' pairs; the roster and chat senders are renamed.")
@click.option("--names-in-chat", "names_in_chat", is_flag=True,
              help="Also rename the players where their names stand as words in chat lines.")
@click.option("--key", "key_file", metavar="FILE", type=click.Path(dir_okay=False, path_type=str),
              help="Derive the new passwords from the secret in FILE (made when it does not exist): "
                   "logs of one game anonymized in several calls keep matching passwords.")
def anonymize_command(games: tuple[str, ...], output: str, names: str | None, names_in_chat: bool,
                      key_file: str | None) -> None:
    """Replace the player passwords in saves and logs.

    Every player password (VASSAL writes it as the player id: roster,
    moves, masks, hidden pieces, chat senders) is replaced by a new random
    one, the same old password by the same new one in every file of the
    call (or of every call with the same --key), so each player keeps
    their side along a chain and nobody gains a side.  The output is
    checked to hold none of the old passwords before it is written;
    passwords are never printed.

    \b
    Examples:
      vmodtool anonymize game.vlog -o public.vlog
      vmodtool anonymize turn1.vlog turn2.vlog -o public --names "Player 1,Player 2"
    """
    from vmodtool.fileio import atomic_write
    from vmodtool.vassal.anonymize import Anonymizer, PasswordKey, game_passwords
    from vmodtool.vassal.savefile import SavedGame

    several = len(games) > 1
    out = Path(output)
    if several:
        if out.exists() and not out.is_dir():
            raise BadInput(f"{output}: with several inputs -o names a folder, but this is a file")
        targets = [out / Path(g).name for g in games]
        if len({t.name for t in targets}) != len(targets):
            raise BadInput("two inputs have the same file name; anonymize them in separate calls "
                           "with the same --key")
    else:
        if out.is_dir():
            raise BadInput(f"{output}: with one input -o names the output file, but this is a folder")
        targets = [out]
    for target in targets:
        check_output(str(target), *games, key_file, suffixes=_GAME_SUFFIXES, what="a VASSAL save or log")
    read = [SavedGame.read(g) for g in games]
    roster: list[str] = []
    for game in read:
        for name in game_passwords(game).values():
            if name and name not in roster:
                roster.append(name)
    key = PasswordKey.from_file(key_file) if key_file else PasswordKey.random()
    anonymizer = Anonymizer(key, _name_mapping(names, roster), names_in_chat=names_in_chat)
    made = [anonymizer.file(game) for game in read]       # every file checked before one is written
    if several:
        out.mkdir(parents=True, exist_ok=True)
    lines = []
    for source, result, target in zip(games, made, targets, strict=True):
        atomic_write(target, result.data)
        if result.elsewhere:
            warn(f"{source}: {result.elsewhere} occurrence(s) of a player's password inside other text "
                 "(a piece's label or definition) were replaced too; check the pieces that show them")
        renamed = f", {len(result.names)} name(s) replaced" if result.names else ""
        lines.append(f"{source} -> {target}: {result.passwords} player password(s) replaced "
                     f"({result.replaced} occurrence(s)){renamed}")
    write_report(lines, None, one_line_items=True)       # file names reach the terminal escaped


def _game_bytes(text: str, entries: dict[str, bytes]) -> bytes:
    """A ``.vlog``/``.vsav`` archive as VASSAL writes one (``docs/vassal-format.md`` §4.1, §4.2):
    ``savedGame`` as ``!VCSK`` lower-case hex under a random key, the other
    entries (``savedata``, ``moduledata``) as given."""
    from vmodtool.vassal.archive import build_zip
    from vmodtool.vassal.obfuscation import encode_saved_game

    out = {"savedGame": encode_saved_game(text)}
    out.update({name: data for name, data in entries.items() if name != "savedGame"})
    return build_zip(out)


@click.command("merge", cls=Command)
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@output_option(f"The merged log (.vlog); never an input ({REPLACED}).", required=True, metavar="FILE.vlog")
@click.option("--force", "force", is_flag=True,
              help="Merge even when the chain's check finds logs out of order or missing.")
@click.option("--drop-undone", "drop_undone", is_flag=True,
              help="Leave out every undone step and the undo that withdrew it.")
@click.option("--drop-chat", "drop_chat", metavar="REGEX",
              help="Leave out the chat lines REGEX finds (Python syntax; dice reports dropped so are "
                   "counted in the summary).")
@click.option("--keep-dice", "keep_dice", is_flag=True,
              help="Never drop a dice report: a dropped step's dice lines stay as a chat step.")
@click.option("--edits", "edits_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="A YAML/JSON edit list: entries {step: N or LOG:N, delete: true} or {step: ..., note: TEXT}.")
@click.option("--notes", "notes_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="A notes file: lines 'STEP: text' or 'LOG:STEP: text', each a chat line '[note] text' "
                   "before that step.")
@click.option("--save", "save", metavar="FILE.vsav", type=click.Path(dir_okay=False, path_type=str),
              help="Also write the final position as a save.")
def merge_command(logs: tuple[str, ...], output: str, force: bool, drop_undone: bool, drop_chat: str | None,
                  keep_dice: bool, edits_file: str | None, notes_file: str | None, save: str | None) -> None:
    """Merge the logs of a PBEM game into one log.

    The merged log is one VASSAL steps through.  LOGS are the logs of one game in the order they were played.  The
    merged log starts from the first log's saved state and holds every
    step of every log; at each boundary a step labelled '* [merge] ...'
    makes the state equal to the one the next log starts from, so the end
    is the last log's end.  The chain is checked first: logs out of order
    or missing stop the merge unless --force.  Nothing is written when a
    log cannot be read.

    \b
    Examples:
      vmodtool merge turn1.vlog turn2.vlog turn3.vlog -o game.vlog
      vmodtool merge logs/*.vlog -o replay.vlog --drop-undone --drop-chat "^&lt;" --notes notes.txt --save end.vsav
    """
    import re

    from vmodtool.fileio import atomic_write
    from vmodtool.merge import MergeOptions, final_save_text, merge_logs, read_edits, read_notes

    inputs = (*logs, edits_file, notes_file)
    check_output(output, *inputs, suffixes=(".vlog", ".log"), what="a VASSAL log")
    if save:
        check_output(save, *inputs, output, suffixes=(".vsav", ".sav"), what="a VASSAL save")
        if Path(save).resolve() == Path(output).resolve():
            raise BadInput(f"{save}: --save and -o name the same file")
    pattern = None
    if drop_chat is not None:
        try:
            pattern = re.compile(drop_chat)
        except re.error as exc:
            raise BadInput(f"--drop-chat: not a regular expression ({exc})") from None
    edits = read_edits(edits_file) if edits_file else []
    notes = read_notes(notes_file) if notes_file else []
    result = merge_logs(list(logs), MergeOptions(drop_undone=drop_undone, drop_chat=pattern,
                                                 keep_dice=keep_dice, edits=edits, force=force),
                        notes=notes)
    last = result.replay.games[-1]
    data = _game_bytes(result.text, last.entries)
    save_data = None
    if save:
        save_data = _game_bytes(final_save_text(result.final_engine, last.restore_part()), last.entries)
    atomic_write(output, data)
    if save and save_data is not None:
        atomic_write(save, save_data)
    write_report(result.summary + [f"written: {output}" + (f", {save}" if save else "")], None,
                 one_line_items=True)


COMMANDS = [anonymize_command, merge_command]
