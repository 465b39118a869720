"""A template previewed (the ``vmodtool templates show`` contact sheet,
``docs/counters`` and ``docs/cards``): a counter template on a scenario's
counters, a card template on sample cards (Latin and Cyrillic, with and
without a picture, a side's deck and a shared one) or on a scenario's
decks."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write
from vmodtool.render.counters import render_contact_sheet
from vmodtool.render.png import encode_png

__all__ = ["with_template", "preview_template", "SAMPLE_SCENARIO", "is_card_template_ref", "sample_decks",
           "card_preview", "preview_card_template", "CARD_PREVIEW_DPI", "SAMPLE_SIDES"]

#: the scenario a preview draws when none is given
SAMPLE_SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "modern-tactical" / "scenario.yaml"


def with_template(scenario: Any, template: str) -> Any:
    """The scenario with ``styles.counter.template`` set to ``template``
    (a bundled name, or a path: made absolute so it resolves from anywhere)."""
    ref = template
    if template.endswith((".yaml", ".yml")) and Path(template).is_file():
        ref = os.path.abspath(template)
    styles = dict(scenario.styles or {})
    counter = dict(styles.get("counter") or {})
    counter["template"] = ref
    styles["counter"] = counter
    return replace(scenario, styles=styles)


def preview_template(template: str, scenario_path: str | None, out: str | os.PathLike[str] | None = None,
                     *, px: int = 96, cols: int = 10) -> str:
    """Draw the contact sheet of ``scenario_path`` (default: the modern
    tactical example) with ``template``; write it to ``out`` as PNG when
    given.  Returns a one-line description of what was drawn."""
    from vmodtool.scenario import load_scenario

    path = scenario_path or SAMPLE_SCENARIO
    if not Path(path).is_file():
        raise VmodError("no scenario to preview the template on; give one with --scenario", file=path)
    sc = with_template(load_scenario(path), template)
    sheet = render_contact_sheet(sc, px=px, cols=cols)
    if out is not None:
        atomic_write(Path(out), encode_png(sheet))
    return f"template {template} on {Path(path).name}: {sheet.width}x{sheet.height} px"


# -- card templates -----------------------------------------------------------------------------
#: the sides of the sample cards: (id, fill)
SAMPLE_SIDES = (("blue", "#8fa9d8"), ("khaki", "#c9b27c"))
#: the resolution of a card preview
CARD_PREVIEW_DPI = 150


def is_card_template_ref(template: str) -> bool:
    """Whether ``template`` (a bundled name or a file) is a card template;
    a :class:`~vmodtool.errors.VmodError` when it is neither a bundled
    template nor a file."""
    from vmodtool.scenario.card_templates import bundled_card_templates, is_card_template
    from vmodtool.scenario.templates import bundled_templates

    if template in bundled_card_templates():
        return True
    if template in bundled_templates():
        return False
    if not Path(template).is_file():
        raise VmodError(f"unknown template {template!r}: the bundled templates are "
                        f"{', '.join([*bundled_templates(), *bundled_card_templates()])}; or give a template file")
    return is_card_template(Path(template))


def _sample_picture(path: Path) -> None:
    """A small landscape (sky, field, hill, road) for the sample cards' picture box."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 200), (168, 198, 226))
    draw = ImageDraw.Draw(img)
    draw.polygon([(0, 120), (90, 70), (170, 110), (250, 60), (320, 100), (320, 200), (0, 200)], fill=(96, 132, 80))
    draw.rectangle((0, 150, 320, 200), fill=(150, 170, 100))
    draw.polygon([(140, 200), (175, 150), (185, 150), (200, 200)], fill=(190, 170, 130))
    draw.ellipse((250, 18, 290, 58), fill=(245, 230, 150))
    img.save(path)


def sample_decks(template: str) -> tuple[Any, ...]:
    """Two sample decks drawn with ``template``: a side's deck of a Latin
    card with a picture and a Cyrillic card, and a shared deck of one card."""
    from vmodtool.scenario.cards import CardSpec, DeckSpec

    latin = CardSpec(id="sample.ambush", name="Ambush", deck="sample", event="Ambush", tags=frozenset({"event"}),
                     text="Play when an enemy unit enters a hex next to yours: your unit there fires first.",
                     values={"2d6": "3·5", "hex": "0406"}, image="sample.png")
    cyrillic = CardSpec(id="sample.dust", name="Пыль (Dust)", deck="sample", event="Пыль", tags=frozenset({"событие"}),
                        text="Определите случайный гекс. Если это не водная поверхность и в нём нет Пламени, "
                             "поставьте туда маркер Дыма.", values={"2d6": "2·6", "гекс": "0703"})
    order = CardSpec(id="sample.fire", name="Огонь (Fire)", deck="shared", tags=frozenset({"order"}),
                     text="Приказ: одно подразделение стреляет. Order: one unit fires.", values={"2d6": "4·1"})
    return (DeckSpec(id="sample", name="Sample deck", owner="blue", back="Sample · Образец", template=template,
                     cards=(latin, cyrillic)),
            DeckSpec(id="shared", name="Общая колода", back="Общая колода", colour="#c9b27c", template=template,
                     cards=(order,)))


def card_preview(template: str, scenario_path: str | None = None, *, dpi: int = CARD_PREVIEW_DPI,
                 cols: int = 6, width_px: int | None = None) -> Any:
    """The preview of a card template: every deck's card fronts then its
    back, side by side (the sample decks, or the decks of ``scenario_path``
    drawn with ``template``), at ``dpi``, or each card ``width_px`` pixels
    wide when given.  Raises :class:`~vmodtool.render.cards.
    CardTextError` when a text does not fit the template's regions."""
    import tempfile

    from PIL import Image

    from vmodtool.render.cards import CardSetting, check_card_texts, render_card_back, render_card_front
    from vmodtool.scenario.card_templates import resolve_card_template
    from vmodtool.scenario.cards import CARD_SIZES

    ref = os.path.abspath(template) if template.endswith((".yaml", ".yml")) and Path(template).is_file() else template
    resolve_card_template(ref, None)            # an unknown or broken template: its own error, at its line
    with tempfile.TemporaryDirectory(prefix="vmodtool-cards-") as tmp:
        if scenario_path is not None:
            from vmodtool.scenario import load_scenario

            sc = load_scenario(scenario_path)
            decks = tuple(replace(d, template=ref) for d in sc.decks if d.cards)
            if not decks:
                raise VmodError("the scenario has no cards to preview the card template on", file=scenario_path)
            sc = replace(sc, decks=decks)
            check_card_texts(sc)
            setting = CardSetting.of(sc)
        else:
            _sample_picture(Path(tmp) / "sample.png")
            setting = CardSetting(Path(tmp), SAMPLE_SIDES)
            decks = sample_decks(ref)
        faces = []
        for deck in decks:
            at = dpi if width_px is None else max(10, round(width_px * 25.4 / CARD_SIZES[deck.size][0]))
            faces += [render_card_front(setting, deck, card, at) for card in deck.cards]
            faces.append(render_card_back(setting, deck, at))
        if width_px is not None:
            dpi = max(10, round(width_px * 25.4 / CARD_SIZES["poker"][0]))     # the gap between them
    gap = max(4, dpi // 15)
    cw = max(f.width for f in faces)
    ch = max(f.height for f in faces)
    n = min(cols, len(faces))
    rows = -(-len(faces) // n)
    sheet = Image.new("RGB", (gap + n * (cw + gap), gap + rows * (ch + gap)), (255, 255, 255))
    for i, face in enumerate(faces):
        sheet.paste(face, (gap + (i % n) * (cw + gap), gap + (i // n) * (ch + gap)))
    return sheet


def preview_card_template(template: str, scenario_path: str | None, out: str | os.PathLike[str] | None = None,
                          *, cols: int = 6, width_px: int | None = None) -> str:
    """Draw a card template's preview (:func:`card_preview`); write it to
    ``out`` as PNG when given.  Returns a one-line description."""
    sheet = card_preview(template, scenario_path, cols=cols, width_px=width_px)
    if out is not None:
        atomic_write(Path(out), encode_png(sheet))
    on = Path(scenario_path).name if scenario_path else "the sample cards"
    return f"card template {template} on {on}: {sheet.width}x{sheet.height} px"
