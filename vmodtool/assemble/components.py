"""VASSAL buildFile components with their complete attribute sets.

Each component is written with every attribute VASSAL 3.7 itself writes for
it, defaults included, in alphabetical order — the shape VASSAL's own
re-serialisation has (``docs/vassal-format.md`` §2.2, §6 item 4), so a
generated module is already a fixed point of VASSAL's editor and nothing is
left to VASSAL's silent defaults (which also ignores misspelt attribute
names without a warning).  The default values are VASSAL 3.7's; tests
compare them with VASSAL's re-serialisation of a minimal module.
"""

from __future__ import annotations

from collections.abc import Mapping

from lxml import etree

__all__ = ["P", "DEFAULTS", "add", "element", "GLOBAL_OPTION_CHILDREN"]

P = "VASSAL.build."

#: component class (after ``VASSAL.build.``, or a full name) → VASSAL 3.7's default attributes
DEFAULTS: dict[str, dict[str, str]] = {
    "GameModule": {"ModuleOther1": "", "ModuleOther2": "", "VassalVersion": "3.7.0",
                   "description": "", "name": "Unnamed module", "nextPieceSlotId": "1",
                   "version": "0.0"},
    "module.BasicCommandEncoder": {},
    "module.PlayerRoster": {
        "buttonKeyStroke": "", "buttonText": "Retire",
        "buttonToolTip": "Switch sides, become an observer, or allow another player to take "
                         "your side in this game"},
    "module.GlobalOptions": {
        "autoReport": "Always", "centerOnMove": "Always", "chatterHTMLSupport": "Never",
        "disablePieceIndexing": "false", "hotKeysOnClosedWindows": "Never",
        "inventoryForAll": "Always", "minMaxHeap": "0", "nonOwnerUnmaskable": "Never",
        "playerIdFormat": "$PlayerName$", "promptString": "Opponents can unmask pieces",
        "purgeBlankPropertyPrompts": "true", "sendToLocationMoveTrails": "Never",
        "storeLeadingZeroIntegersAsStrings": "false"},
    "module.Chatter": {},
    "module.Map": {
        "allowMultiple": "false", "backgroundcolor": "255,255,255", "buttonName": "Map",
        "changeFormat": "$message$", "color": "0,0,0",
        "createFormat": "$pieceName$ created in $location$ *", "edgeHeight": "0",
        "edgeWidth": "0", "hideKey": "", "hotkey": "", "icon": "/images/map.gif",
        "launch": "false", "mapName": "Main Map", "markMoved": "Always",
        "markUnmovedHotkey": "", "markUnmovedIcon": "/images/unmoved.gif",
        "markUnmovedReport": "", "markUnmovedText": "",
        "markUnmovedTooltip": "Mark all pieces on this map as not moved", "moveKey": "",
        "moveToFormat": "$pieceName$ moves $previousLocation$ -> $location$ *",
        "moveWithinFormat": "$pieceName$ moves $previousLocation$ -> $location$ *",
        "onlyReportChangedLocation": "false", "showKey": "", "thickness": "3"},
    "module.map.BoardPicker": {
        "addColumnText": "Add column", "addRowText": "Add row", "boardPrompt": "Select board",
        "slotHeight": "125", "slotScale": "0.2", "slotWidth": "350", "title": "Choose Boards"},
    "module.map.boardPicker.Board": {"image": "", "name": "Board", "reversible": "false"},
    "module.map.boardPicker.board.HexGrid": {
        "color": "0,0,0", "cornersLegal": "false", "dotsVisible": "false",
        "dx": "55.42562584220407", "dy": "64.0", "edgesLegal": "false", "sideways": "false",
        "snapTo": "true", "visible": "false", "x0": "0", "y0": "32"},
    "module.map.boardPicker.board.mapgrid.HexGridNumbering": {
        "color": "0,0,0", "first": "H", "fontSize": "9", "hDescend": "false", "hDrawOff": "0",
        "hLeading": "1", "hOff": "0", "hType": "N", "locationFormat": "$gridLocation$",
        "rotateText": "0", "sep": "", "stagger": "true", "vDescend": "false", "vDrawOff": "0",
        "vLeading": "1", "vOff": "0", "vType": "N", "visible": "false"},
    "module.map.boardPicker.board.ZonedGrid": {},
    "module.map.boardPicker.board.mapgrid.Zone": {
        "highlightProperty": "", "locationFormat": "$name$", "name": "", "path": "",
        "useHighlight": "false", "useParentGrid": "false"},
    "module.map.StackMetrics": {
        "bottom": "40,0", "disabled": "false", "down": "37,0", "exSepX": "6", "exSepY": "18",
        "top": "38,0", "unexSepX": "2", "unexSepY": "4", "up": "39,0"},
    "module.map.ForwardToKeyBuffer": {},
    "module.map.Scroller": {},
    "module.map.ForwardToChatter": {},
    "module.map.MenuDisplayer": {},
    "module.map.MapCenterer": {},
    "module.map.StackExpander": {},
    "module.map.PieceMover": {},
    "module.map.KeyBufferer": {},
    "module.map.CounterDetailViewer": {
        "bgColor": "", "borderColor": "0,0,0", "borderInnerThickness": "2",
        "borderThickness": "2", "borderWidth": "0", "centerAll": "false",
        "centerPiecesVertically": "false", "centerText": "false",
        "combineCounterSummary": "false", "counterReportFormat": "", "delay": "700",
        "description": "", "display": "from top-most layer only",
        "emptyHexReportForma": "$LocationName$",   # sic: VASSAL's own attribute name
        "enableHTML": "false", "extraTextPadding": "0", "fgColor": "0,0,0", "fontSize": "9",
        "graphicsZoom": "1.0", "hotkey": "32,130", "layerList": "", "minDisplayPieces": "2",
        "onlyShowFirstSummary": "false", "propertyFilter": "", "showDeck": "false",
        "showDeckDepth": "1", "showDeckMasked": "false",
        "showMoveSelectde": "false",               # sic
        "showNoStack": "false", "showNonMovable": "false", "showOnlyTopOfStack": "false",
        "showOverlap": "false", "showTerrainBeneath": "never", "showTerrainHeight": "150",
        "showTerrainSnappy": "true", "showTerrainText": "$LocationName$",
        "showTerrainWidth": "150", "showTerrainZoom": "1.0", "showgraph": "true",
        "showgraphsingle": "false", "showtext": "false", "showtextsingle": "false",
        "stopAfterShowing": "false", "stretchWidthPieces": "false",
        "stretchWidthSummary": "false", "summaryReportFormat": "$LocationName$",
        "unrotatePieces": "false", "version": "4", "verticalBottomText": "10",
        "verticalOffset": "0", "verticalTopText": "5", "zoomlevel": "1.0"},
    "module.map.Zoomer": {
        "inButtonText": "", "inIconName": "/images/zoomIn.gif", "inTooltip": "Zoom in",
        "outButtonText": "", "outIconName": "/images/zoomOut.gif", "outTooltip": "Zoom out",
        "pickButtonText": "", "pickIconName": "/images/zoom.png", "pickTooltip": "Select Zoom",
        "zoomInKey": "", "zoomLevels": "0.2,0.25,0.333,0.4,0.5,0.555,0.625,0.75,1.0,1.25,1.6",
        "zoomOutKey": "", "zoomPickKey": "", "zoomStart": "3"},
    "module.properties.GlobalProperties": {},
    "module.map.SelectionHighlighters": {},
    "module.map.HighlightLastMoved": {"color": "255,0,0", "enabled": "true", "thickness": "2"},
    "module.map.SetupStack": {"location": "", "name": "", "owningBoard": "",
                              "useGridLocation": "true", "x": "0", "y": "0"},
    "module.map.Flare": {
        "circleColor": "255,0,0", "circleScale": "true", "circleSize": "100",
        "flareKey": "keyAlt", "flareName": "Map Flare", "flarePulses": "6",
        "flarePulsesPerSec": "3", "reportFormat": ""},
    # a deck; VASSAL 3.7.26's fresh DrawPile (DrawPile.getAttributeNames, in
    # alphabetical order), with name, description and owningBoard "" (null
    # in a fresh one: VASSAL writes no null attribute)
    "module.map.DrawPile": {
        "allowMultiple": "true", "allowSelect": "true", "canSave": "false", "color": "0,0,0",
        "countExpressions": "", "deckOwners": "", "deckRestrictAccess": "false", "description": "",
        "draw": "false", "drawFaceUp": "false", "drawMultipleMessage": "Draw multiple cards",
        "drawSpecificMessage": "Draw specific cards", "emptyHotkey": "", "expressionCounting": "false",
        "faceDown": "Always", "faceDownFormat": "", "faceDownHotkey": "", "faceDownMessage": "Face down",
        "faceFlipHotkey": "", "faceUpHotkey": "", "faceUpMessage": "Face up", "faceUpReportFormat": "",
        "height": "40", "hotkeyOnEmpty": "false", "loadHotkey": "", "loadMessage": "Load Deck",
        "loadReportFormat": "Deck Loaded", "maxStack": "10", "name": "", "owningBoard": "",
        "reshufflable": "false", "reshuffleCommand": "", "reshuffleHotkey": "", "reshuffleMessage": "",
        "reshuffleTarget": "", "restrictExpression": "", "restrictOption": "false",
        "reverseCommand": "Reverse", "reverseFormat": "", "reverseHotkey": "", "reversible": "true",
        "saveHotkey": "", "saveMessage": "Save Deck", "saveReportFormat": "Deck Saved",
        "selectDisplayProperty": "$BasicName$", "selectSortProperty": "", "shuffle": "Always",
        "shuffleCommand": "Shuffle", "shuffleFormat": "", "shuffleHotkey": "", "width": "40", "x": "100",
        "y": "100"},
    "module.PieceWindow": {
        "defaultWidth": "0", "hidden": "false", "hotkey": "67,195", "name": "Counters",
        "scale": "1.0", "text": "Counters", "tooltip": "Show/hide the counter palette"},
    "widget.TabWidget": {"entryName": ""},
    "widget.ListWidget": {"divider": "-1", "entryName": "", "height": "0", "scale": "1.0",
                          "width": "0"},
    "widget.PieceSlot": {"entryName": "", "gpid": "", "height": "64", "width": "64"},
    "widget.CardSlot": {"entryName": "", "gpid": "", "height": "64", "width": "64"},
    "module.PrototypesContainer": {},
    "module.PrototypeDefinition": {"description": "", "name": ""},
    "module.DiceButton": {
        "addToTotal": "0", "canDisable": "false", "hideWhenDisabled": "false", "hotkey": "",
        "icon": "", "keepCount": "1", "keepDice": "false", "keepOption": ">",
        "lockAdd": "false", "lockDice": "false", "lockPlus": "false", "lockSides": "false",
        "nDice": "2", "nSides": "6", "name": "2d6", "plus": "0", "prompt": "false",
        "propertyGate": "", "reportFormat": "** $name$ = $result$ *** <$PlayerName$>",
        "reportTotal": "false", "sortDice": "false", "text": "2d6", "tooltip": ""},
    "module.turn.TurnTracker": {
        "buttonText": "Turn", "fwdOnly": "false", "hotkey": "", "length": "-1",
        "lengthStyle": "Maximum", "name": "Turn", "nexthotkey": "", "plusButtonSize": "22",
        "prevhotkey": "", "reportFormat": "* <$PlayerId$> Turn Updated from $oldTurn$ to $newTurn$",
        "turnButtonHeight": "22", "turnFormat": "Turn $level1$"},
    "module.turn.CounterTurnLevel": {"incr": "1", "loop": "false", "loopLimit": "-1",
                                     "name": "Turn", "property": "Turn", "start": "1",
                                     "turnFormat": "$value$"},
    "module.turn.ListTurnLevel": {"configFirst": "false", "configList": "false", "list": "",
                                  "name": "Phase", "property": "Phase", "turnFormat": "$value$"},
    "module.Inventory": {
        "canDisable": "false", "centerOnPiece": "true", "drawPieces": "true",
        "foldersOnly": "false", "forwardKeystroke": "true", "groupBy": "Side",
        "hideWhenDisabled": "false", "hotkey": "73,195", "icon": "/images/inventory.gif",
        "include": '{Side!=""}', "launchFunction": "functionHide", "leafFormat": "$PieceName$",
        "name": "Inventory", "nonLeafFormat": "$PropertyValue$", "pieceZoom": "0.33",
        "pieceZoom2": "0.33", "pieceZoom3": "0.4", "propertyGate": "", "refreshHotkey": "",
        "showMenu": "true", "sides": "", "sortFormat": "$PieceName$", "sortPieces": "true",
        "sorting": "alpha", "text": "Inventory", "tooltip": "Show inventory of all pieces",
        "zoomOn": "false"},
    "module.ChartWindow": {"hotkey": "", "icon": "", "name": "Charts", "text": "Charts",
                           "tooltip": ""},
    "widget.Chart": {"chartName": "", "description": "", "fileName": ""},
    "module.properties.GlobalTranslatableMessages": {},
    "VASSAL.i18n.Language": {},      # not under VASSAL.build
    "module.Documentation": {},
    "module.documentation.AboutScreen": {"fileName": "/images/Splash.png",
                                         "title": "About Module"},
    "module.documentation.HelpFile": {"fileName": "/help/Intro.html", "fileType": "resource",
                                      "title": "Vassal Quick Start", "vassalDoc": "vassal"},
    "module.KeyNamer": {},
    "module.PredefinedSetup": {"file": "", "isMenu": "false", "name": "", "useFile": "true"},
}

# a side's hand: a Map's attributes (above) and PrivateMap's ``side`` and
# ``visible``, with ``description`` and ``tooltip`` (null in a fresh Map);
# no ``useBoards``: null when the hand has a board of its own, as here
DEFAULTS["module.PlayerHand"] = {**DEFAULTS["module.Map"], "description": "", "side": "", "tooltip": "",
                                 "visible": "false"}

#: the <option> children VASSAL gives GlobalOptions (preference defaults)
GLOBAL_OPTION_CHILDREN = (
    ("newHotKey", "87,520"), ("endHotKey", "87,585"), ("stepIcon", "/images/StepForward16.gif"),
    ("stepHotKey", "34,0"), ("undoIcon", "/images/Undo16.gif"), ("undoHotKey", ""),
    ("serverControlsIcon", "/images/connect.gif"), ("serverControlsHotKey", "83,520"),
    ("debugControlsIcon", ""), ("debugControlsHotKey", ""), ("scenarioPropertiesIcon", ""),
    ("scenarioPropertiesHotKey", ""),
)


_SORTED_DEFAULTS: dict[str, dict[str, str]] = {}


def _attributes(cls: str, overrides: Mapping[str, object] | None) -> dict[str, str]:
    """A component's attributes in sorted order (as VASSAL writes them): its
    defaults with ``overrides`` put in their places (an override of an
    attribute the component has not is refused, so the order is the
    defaults')."""
    base = _SORTED_DEFAULTS.get(cls)
    if base is None:
        try:
            base = _SORTED_DEFAULTS[cls] = dict(sorted(DEFAULTS[cls].items()))
        except KeyError:
            raise KeyError(f"no attribute defaults for component {cls!r}") from None
    attrs = dict(base)
    for key, value in (overrides or {}).items():
        if key not in attrs:
            # VASSAL ignores unknown attributes silently: refuse them here
            raise KeyError(f"{cls} has no attribute {key!r}")
        if isinstance(value, bool):
            value = "true" if value else "false"
        attrs[key] = str(value)
    return attrs


def element(cls: str, overrides: Mapping[str, object] | None = None) -> etree._Element:
    """A free-standing component element (attributes sorted, as VASSAL writes)."""
    return etree.Element(cls if cls.startswith("VASSAL.") else P + cls, _attributes(cls, overrides))


def add(parent: etree._Element, cls: str, overrides: Mapping[str, object] | None = None,
        text: str | None = None) -> etree._Element:
    """Append a component to ``parent``; ``text`` is its text content (piece
    definitions, roster entries)."""
    el = element(cls, overrides)
    if text is not None:
        el.text = text
    parent.append(el)
    return el
