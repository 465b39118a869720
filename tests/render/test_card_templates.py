"""Card templates (templates/cards/, vmodtool/scenario/card_templates.py):
a golden image per bundled template, located loading errors, a deck's
template by name and by path (unknown or broken: a located scenario
problem), colours by side, Cyrillic in every region, a located
CardTextError for every region that a text does not fit, the built
Combat Commander module's fate cards, and ``vmodtool templates``."""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import replace
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from tests.render.golden_images import check_golden
from vmodtool.cli import cli
from vmodtool.render.cards import (
    CardSetting,
    CardTextError,
    card_px,
    card_template,
    check_card_texts,
    deck_colour,
    render_card_back,
    render_card_front,
)
from vmodtool.render.templates_preview import SAMPLE_SIDES, card_preview, sample_decks
from vmodtool.scenario import check_scenario, load_scenario
from vmodtool.scenario.card_templates import (
    CardTemplate,
    bundled_card_templates,
    is_card_template,
    load_card_template,
    resolve_card_template,
)
from vmodtool.scenario.loader import ScenarioInputs
from vmodtool.scenario.templates import TemplateError, bundled_templates

ROOT = Path(__file__).resolve().parents[2]
CC = ROOT / "examples" / "combat-commander" / "scenario.yaml"
GOLDEN = Path(__file__).resolve().parent / "golden" / "cards"
DARK = (0x2B, 0x2B, 0x2B)               # fate.yaml's event line


@pytest.fixture(scope="module")
def cc():
    return load_scenario(CC)


def _count(img: Image.Image, colour: tuple[int, int, int], box: tuple[int, int, int, int] | None = None,
           tol: int = 12) -> int:
    a = np.asarray(img.crop(box) if box else img, dtype=np.int16)
    return int((np.abs(a - np.array(colour)).max(axis=2) <= tol).sum())


def _ink(img: Image.Image, box: tuple[int, int, int, int]) -> int:
    return sum(img.crop(box).convert("L").histogram()[:100])


# -- the bundled templates ------------------------------------------------------------------
def test_four_card_templates_ship_with_names_of_their_own() -> None:
    names = bundled_card_templates()
    assert {"standard", "text", "fate", "event"} <= set(names)
    assert not set(names) & set(bundled_templates()), "a card and a counter template share a name"
    for path in names.values():
        t = load_card_template(path)
        assert isinstance(t, CardTemplate) and t.name == path.stem and t.description
    assert load_card_template(names["standard"]).picture and load_card_template(names["text"]).picture is None
    fate = load_card_template(names["fate"])
    assert fate.event_line is not None and fate.footer is not None and fate.values.number == "top-left"
    assert load_card_template(names["event"]).band.position == "bottom"


@pytest.mark.parametrize("template", sorted(bundled_card_templates()))
def test_golden_card_template(template: str) -> None:
    """The sample decks (a Latin card with a picture, a Cyrillic card, the
    back; a shared deck's card and back) drawn with the template."""
    img = card_preview(template, dpi=72, cols=5)
    check_golden(img, GOLDEN / f"{template}.png")


@pytest.mark.parametrize("px", [60, 140, 400])
def test_card_preview_px_is_each_card_s_width(tmp_path: Path, px: int) -> None:
    out = tmp_path / "fate.png"
    result = CliRunner().invoke(cli, ["templates", "show", "fate", "--px", str(px), "--cols", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with Image.open(out) as img:
        gap = max(4, round(px * 25.4 / 63.5) // 15)
        assert abs(img.width - 2 * gap - px) <= 1, (img.width, gap)
    default = tmp_path / "default.png"
    assert CliRunner().invoke(cli, ["templates", "show", "fate", "--cols", "1", "-o", str(default)]).exit_code == 0
    with Image.open(default) as img:
        assert img.width > 300          # 150 dpi without --px, not the counters' 96 px default


def test_the_templates_look_different(tmp_path: Path) -> None:
    Image.new("RGB", (60, 40), (0, 160, 0)).save(tmp_path / "sample.png")
    setting = CardSetting(tmp_path, SAMPLE_SIDES)
    looks = {}
    for name in bundled_card_templates():
        deck = sample_decks(name)[0]
        looks[name] = render_card_front(setting, deck, deck.cards[0], 90).tobytes()
    assert len(set(looks.values())) == len(looks)


def test_text_template_has_no_picture_box(cc, tmp_path: Path) -> None:
    Image.new("RGB", (60, 40), (255, 0, 255)).save(tmp_path / "pic.png")
    setting = CardSetting(tmp_path, SAMPLE_SIDES)
    deck = sample_decks("standard")[0]
    card = deck.cards[0]
    assert card.image == "sample.png"
    card = replace(card, image="pic.png")
    standard = render_card_front(setting, deck, card, 90)
    text = render_card_front(setting, replace(deck, template="text"), card, 90)
    assert _count(standard, (255, 0, 255)) > 2000 and _count(text, (255, 0, 255)) == 0


# -- fate: the example's look ---------------------------------------------------------------
def test_fate_regions_on_the_example(cc) -> None:
    deck = next(d for d in cc.decks if d.id == "fr_fate")
    assert deck.template == "fate" and card_template(cc, deck).name == "fate"
    dust = next(c for c in deck.cards if c.id == "fr.dust")
    w, h = card_px("poker", 300)
    img = render_card_front(cc, deck, dust, 300)
    band, ink = deck_colour(cc, deck)
    assert band == (0x8F, 0xA9, 0xD8) and ink == (0, 0, 0)        # France's fill (colour: side)
    assert img.getpixel((w // 2, int(h * 0.04))) == band
    # the event line: a dark strip under the band, the event's name in light ink on it
    strip = (40, int(h * 0.2), w - 40, int(h * 0.23))
    assert _count(img, DARK, strip) > 0.5 * (strip[2] - strip[0]) * (strip[3] - strip[1])
    assert _count(img, (0xF4, 0xEF, 0xE2), strip, 40) > 200                     # the event's name on it
    no_event = render_card_front(cc, deck, replace(dust, event=None), 300)
    assert _count(no_event, DARK, strip) == 0                                   # no empty strip without one
    # the card number (2: the deck's second card) in its own box at the top left, the dice at the foot
    number = render_card_front(cc, deck, replace(dust, id="fr.deploy"), 300)     # number 1
    box = (30, 30, int(0.2 * w), int(0.14 * h))
    assert _count(img, (255, 255, 255), box) > 1000
    assert img.crop(box).tobytes() != number.crop(box).tobytes()
    foot = (30, int(0.9 * h), int(0.2 * w), h - 30)
    assert _count(img, (0x8A, 0x10, 0x10), foot, 40) > 100                        # "2·6" in dark red
    assert _ink(render_card_front(cc, deck, replace(dust, values={}), 300), foot) < _ink(img, foot)


def test_footer_shows_the_tags_in_cyrillic(cc) -> None:
    deck = next(d for d in cc.decks if d.id == "it_fate")
    card = next(c for c in deck.cards if c.id == "it.fire")
    w, h = card_px("poker", 300)
    footer = (int(0.25 * w), int(0.9 * h), int(0.75 * w), h - 30)
    plain = render_card_front(cc, deck, replace(card, tags=frozenset()), 300)
    cyrillic = render_card_front(cc, deck, replace(card, tags=frozenset({"приказ"})), 300)
    assert _ink(plain, footer) == 0 < _ink(cyrillic, footer)


def test_colours_by_side(cc, tmp_path: Path) -> None:
    path = _copy(tmp_path)
    (path.parent / "looks").mkdir()
    mine = path.parent / "looks" / "mine.yaml"
    mine.write_text((ROOT / "templates" / "cards" / "fate.yaml").read_text("utf-8").replace(
        "name: fate", "name: mine") + "sides:\n  fr: {band: '#102030', back: '#305070'}\n", "utf-8")
    _set_template(path, "looks/mine.yaml")
    problems = check_scenario(path)[1]
    assert not [p for p in problems if p.severity == "error"], [str(p) for p in problems]
    sc = load_scenario(path)
    fr = next(d for d in sc.decks if d.id == "fr_fate")
    it = next(d for d in sc.decks if d.id == "it_fate")
    assert fr.template == "looks/mine.yaml" and card_template(sc, fr).name == "mine"
    assert deck_colour(sc, fr) == ((16, 32, 48), (255, 255, 255))               # white ink on the dark band
    assert deck_colour(sc, it)[0] == deck_colour(load_scenario(CC), it)[0]       # Italy keeps its fill
    assert render_card_back(sc, fr, 90).getpixel((3, 3)) == (0x30, 0x50, 0x70)


# -- a deck's template in the scenario ------------------------------------------------------
def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "cc"
    shutil.copytree(CC.parent, folder, ignore=shutil.ignore_patterns("logs"))
    return folder / "scenario.yaml"


def _set_template(path: Path, ref: str) -> int:
    """The fr_fate deck's template set to ``ref``; returns that line."""
    text = path.read_text("utf-8")
    old = "    template: fate "
    assert text.count(old) == 2
    path.write_text(text.replace(old, f"    template: {ref} ", 1), "utf-8")
    return next(i for i, ln in enumerate(path.read_text("utf-8").splitlines(), 1) if f"template: {ref} " in ln)


def test_old_template_values_stay_valid(tmp_path: Path) -> None:
    for ref in ("standard", "text"):
        path = _copy(tmp_path / ref)
        _set_template(path, ref)
        assert not [p for p in check_scenario(path)[1] if p.severity == "error"]
        assert load_scenario(path).decks[0].template == ref


def test_unknown_card_template_is_a_located_scenario_error(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    line = _set_template(path, "nope")
    msgs = [str(p) for p in check_scenario(path)[1] if p.severity == "error"]
    assert any(f"{path}:{line}" in m and "unknown card template 'nope'" in m and "fate" in m for m in msgs), msgs
    result = CliRunner().invoke(cli, ["check-scenario", str(path)])
    assert result.exit_code != 0 and f"scenario.yaml:{line}" in result.output


def test_check_scenario_lists_every_card_text_that_does_not_fit(tmp_path: Path) -> None:
    """What build and the sheets refuse, check-scenario finds first: each
    card whose text does not fit, at its own line, in one run."""
    path = _copy(tmp_path)
    text = path.read_text("utf-8")
    long_name = "Производство-в-чин-и-прочие-почести-за-отвагу-на-поле-боя " * 3
    for card in ("Пыль (Dust)", "Развёртывание (Deploy)"):
        assert f'name: "{card}"' in text
        text = text.replace(f'name: "{card}"', f'name: "{long_name}"', 1)
    path.write_text(text, "utf-8")
    lines = [n for n, line in enumerate(text.splitlines(), 1) if long_name in line]
    assert len(lines) == 2
    result = CliRunner().invoke(cli, ["check-scenario", str(path)])
    assert result.exit_code == 2, result.output
    for n in lines:
        assert any(f"scenario.yaml:{n}: " in line and "its name" in line and "does not fit" in line
                   for line in result.output.splitlines()), result.output
    assert "2 errors" in result.output
    json_out = CliRunner().invoke(cli, ["check-scenario", "--format", "json", str(path)])
    assert json_out.exit_code == 2 and '"valid": false' in json_out.output


def test_broken_card_template_file_names_both_files(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    (path.parent / "bad.yaml").write_text("vmodtool_template: 1\nkind: card\nname: bad\n"
                                          "band: {position: middle}\n", "utf-8")
    line = _set_template(path, "bad.yaml")
    msgs = [str(p) for p in check_scenario(path)[1] if p.severity == "error"]
    assert any(f"{path}:{line}" in m and "bad.yaml: line 4: band.position" in m for m in msgs), msgs


def test_a_counter_template_is_no_card_template(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    shutil.copy(ROOT / "templates" / "nato.yaml", path.parent / "nato.yaml")
    line = _set_template(path, "nato.yaml")
    msgs = [str(p) for p in check_scenario(path)[1] if p.severity == "error"]
    assert any(f"{path}:{line}" in m and "cannot be used" in m and "kind" in m for m in msgs), msgs


def test_a_path_template_is_an_input_of_the_model(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    shutil.copy(ROOT / "templates" / "cards" / "event.yaml", path.parent / "mine.yaml")
    _set_template(path, "mine.yaml")
    inputs = ScenarioInputs()
    sc, problems = check_scenario(path, inputs=inputs)
    assert sc is not None and not [p for p in problems if p.severity == "error"]
    assert path.parent / "mine.yaml" in inputs.files
    assert card_template(sc, sc.decks[0]).band.position == "bottom"


# -- template files -------------------------------------------------------------------------
@pytest.mark.parametrize("body, line, expect", [
    ("band: {position: middle}\n", 4, "band.position: 'middle' is not one of"),
    ("values: {corners: [top-left, top-left]}\n", 4, "values.corners"),
    ("event_line: {text: '{evnt}'}\n", 4, "unknown field {evnt}"),
    ("footer:\n  size: 0.04\n  text: '{tags'\n", 6, "footer.text"),
    ("values: {number: top-left}\n", 4, "also one of values.corners"),
    ("band: {height: 0.5}\npicture: {height: 0.5}\n", 4, "leave room for the text"),
    ("sides: {fr: {band: blue}}\n", 4, "sides.fr.band"),
])
def test_bad_card_template_names_its_line(tmp_path: Path, body: str, line: int, expect: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("vmodtool_template: 1\nkind: card\nname: bad\n" + body, "utf-8")
    with pytest.raises(TemplateError) as err:
        load_card_template(bad)
    assert str(err.value).startswith(f"{bad}: line {line}: ") and expect in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_unreadable_template_files(tmp_path: Path) -> None:
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("vmodtool_template: 1\nkind: card\nname: x\ndescription: caf\xe9\n".encode("latin-1"))
    with pytest.raises(TemplateError, match="UTF-8"):
        load_card_template(latin1)
    with pytest.raises(TemplateError, match="unknown card template 'nope'"):
        resolve_card_template("nope", tmp_path)
    missing = tmp_path / "missing.yaml"
    with pytest.raises(TemplateError, match="cannot be read"):
        load_card_template(missing)


# -- text that does not fit -----------------------------------------------------------------
LONG = "Очень длинный текст, который не помещается. " * 40


@pytest.mark.parametrize("template, change, region", [
    ("fate", {"name": "Производство-в-чин-и-прочие-почести-за-отвагу-на-поле-боя " * 3}, "its name"),
    ("fate", {"event": "Событие-с-очень-длинным-названием-которое-не-помещается"}, "its event line"),
    ("fate", {"text": LONG}, "its text"),
    ("fate", {"values": {"2d6": "1·2·3·4·5·6·1·2·3"}}, "its corner value '2d6'"),
    ("fate", {"values": {"очень-длинный-ключ-значения": "1"}}, "its corner value key"),
    ("fate", {"tags": frozenset({"тег-с-очень-длинным-названием-для-подвала-карты"})}, "its footer"),
    ("fate", {"values": {"a": "1", "b": "2", "c": "3"}}, "it has 3 corner values"),
    ("event", {"event": None, "tags": frozenset({"тег-с-очень-длинным-названием-" * 4})}, "its event line"),
    ("standard", {"text": LONG}, "choose a template without a picture box"),
])
def test_text_that_does_not_fit_is_located_at_the_card(cc, template: str, change: dict, region: str) -> None:
    deck = replace(next(d for d in cc.decks if d.id == "fr_fate"), template=template)
    card = next(c for c in deck.cards if c.id == "fr.dust")
    if template == "standard":
        change = {**change, "image": "rules/any.png"}
    bad = replace(cc, decks=(replace(deck, cards=tuple(replace(c, **change) if c is card else c
                                                       for c in deck.cards)),) + cc.decks[1:])
    with pytest.raises(CardTextError) as err:
        check_card_texts(bad)
    message = str(err.value)
    assert message.startswith(f"{CC}:{card.position.line}: card 'fr.dust': ") and region in message, message
    assert "\n" not in message


def test_back_text_that_does_not_fit_is_located_at_the_deck(cc) -> None:
    deck = replace(next(d for d in cc.decks if d.id == "it_fate"), back=LONG)
    with pytest.raises(CardTextError) as err:
        check_card_texts(replace(cc, decks=(deck,)))
    assert str(err.value).startswith(f"{CC}:{deck.position.line}: deck 'it_fate': its back text")


# -- the built module and the command ---------------------------------------------------------
def test_built_example_holds_the_fate_cards(cc, tmp_path: Path) -> None:
    from vmodtool.assemble.builder import build_module_file

    vmod = tmp_path / "cc.vmod"
    build_module_file(CC, vmod, jobs=1)
    deck = next(d for d in cc.decks if d.id == "fr_fate")
    with zipfile.ZipFile(vmod) as z:
        names = set(z.namelist())
        for card in deck.cards:
            img = Image.open(BytesIO(z.read(f"images/card.{card.id}.png"))).convert("RGB")
            assert img.tobytes() == render_card_front(cc, deck, card, 90).tobytes()
        dust = Image.open(BytesIO(z.read("images/card.fr.dust.png"))).convert("RGB")
        back = Image.open(BytesIO(z.read("images/card-back.fr_fate.png"))).convert("RGB")
    assert "images/card.it.hero.png" in names
    assert _count(dust, DARK) > 1000                                            # the event line
    assert back.tobytes() == render_card_back(cc, deck, 90).tobytes()


def test_templates_command_lists_and_shows_card_templates(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["templates"])
    assert result.exit_code == 0, result.output
    rows = {ln.split()[0]: ln.split()[1] for ln in result.output.splitlines() if ln.strip()}
    assert rows["fate"] == rows["standard"] == rows["event"] == "card" and rows["nato"] == "counter"
    out = tmp_path / "fate.png"
    result = CliRunner().invoke(cli, ["templates", "show", "fate", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "card template fate on the sample cards" in result.output
    with Image.open(out) as img:
        assert img.width > 4 * card_px("poker", 150)[0] and img.height > card_px("poker", 150)[1]
    on_cc = tmp_path / "cc.png"
    result = CliRunner().invoke(cli, ["templates", "show", "event", "--scenario", str(CC), "-o", str(on_cc)])
    assert result.exit_code == 0 and on_cc.is_file(), result.output
    mine = tmp_path / "mine.yaml"
    mine.write_text("vmodtool_template: 1\nkind: card\nname: mine\nband: {position: bottom}\n", "utf-8")
    result = CliRunner().invoke(cli, ["templates", "show", str(mine), "-o", str(tmp_path / "m.png")])
    assert result.exit_code == 0 and "card template" in result.output, result.output
    mine.write_text("vmodtool_template: 1\nkind: card\nname: mine\nband: {height: 2}\n", "utf-8")
    result = CliRunner().invoke(cli, ["templates", "show", str(mine), "-o", str(tmp_path / "m.png")])
    assert result.exit_code == 2 and f"{mine}: line 4: band.height" in result.output
    result = CliRunner().invoke(cli, ["templates", "show", "nope", "-o", str(tmp_path / "n.png")])
    assert result.exit_code == 2 and "unknown template 'nope'" in result.output


def test_the_documented_format_is_a_card_template(tmp_path: Path) -> None:
    """The format block of templates/README.md loads, and draws."""
    readme = (ROOT / "templates" / "README.md").read_text("utf-8")
    block = readme.split("# Card templates", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "my-cards.yaml"
    path.write_text(block, "utf-8")
    t = load_card_template(path)
    assert t.name == "my-cards" and t.event_line is not None and t.footer is not None and t.picture == 0.34
    deck = replace(sample_decks(str(path))[0], owner="fr")
    img = render_card_front(CardSetting(tmp_path, (("fr", "#8fa9d8"),)), deck, deck.cards[1], 90)
    assert img.getpixel((img.width // 2, 4)) == (0x1D, 0x3F, 0x73)          # the side's band


@pytest.mark.parametrize("ref, expect", [("a" * 400 + ".yaml", "unknown card template"),
                                         ("x\\u0000.yaml", "control character U+0000")])
def test_a_name_no_file_can_have_is_a_located_error(tmp_path: Path, ref: str, expect: str) -> None:
    path = _copy(tmp_path)
    line = _set_template(path, f'"{ref}"')
    msgs = [str(p) for p in check_scenario(path)[1] if p.severity == "error"]
    assert any(f"{path}:{line}" in m and expect in m for m in msgs), msgs


def test_a_file_whose_tag_cannot_be_read_is_not_a_card_template(tmp_path):
    from vmodtool.scenario.card_templates import is_card_template

    path = tmp_path / "c.yaml"
    path.write_text("kind: !!int card\n", encoding="utf-8")
    assert is_card_template(path) is False         # (PyYAML raised ValueError here: exit 70)
    path.write_text("kind: card\n", encoding="utf-8")
    assert is_card_template(path) is True


@pytest.mark.parametrize("text", ["kind: " + "[" * 5000 + "]" * 5000,
                                  "kind: card\nregions:\n" + "".join("  " * i + "- \n" for i in range(1, 3000))],
                         ids=["deep-flow", "deep-block"])
def test_a_template_file_nested_past_the_limits_is_a_located_error(tmp_path: Path, text: str) -> None:
    """Telling a card template from a counter one reads the file with the
    bounded YAML reader (yaml.safe_load recursed out of it: exit 70)."""
    path = tmp_path / "deep.yaml"
    path.write_text(text, "utf-8")
    assert not is_card_template(path)
    result = CliRunner().invoke(cli, ["templates", "show", str(path), "-o", str(tmp_path / "x.png")])
    assert result.exit_code == 2 and "deep.yaml: line " in result.output, result.output
    assert not (tmp_path / "x.png").exists()


def test_a_card_template_outside_the_scenario_folder_is_refused(tmp_path: Path) -> None:
    """Issue 40 item 4, for decks: ``../x.yaml`` or a symbolic link out of
    the folder is refused at its line."""
    path = _copy(tmp_path)
    outside = tmp_path / "outside.yaml"
    outside.write_text("vmodtool_template: 1\nkind: card\nname: outside\n", "utf-8")
    (path.parent / "link.yaml").symlink_to(outside)
    for ref in ("../outside.yaml", "link.yaml"):
        text = path.read_text("utf-8")
        line = _set_template(path, ref)
        msgs = [str(p) for p in check_scenario(path)[1] if p.severity == "error"]
        assert any(f"{path}:{line}" in m and f"the card template {ref!r} must be inside the scenario's folder" in m
                   for m in msgs), msgs
        path.write_text(text, "utf-8")
