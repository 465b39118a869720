"""``vmodtool lint``: static checks of any VASSAL module, ours or not.

:func:`lint_module` runs every check on an opened
:class:`~vmodtool.vassal.module.Module` and returns :class:`Finding` s, each
with a stable ``code`` (listed with its severity and a one-line explanation
in :data:`CODES`), the buildFile line and the component path.  Severities:

* ``error`` — VASSAL fails, drops a component or loses data (a malformed
  integer attribute, a prototype that does not exist, duplicate gpids, an
  image or file that is not in the archive …);
* ``warning`` — the module works but something is wrong (a grid without
  numbering reports every location as ``offboard``, a piece whose commands
  are silent in logs, an image nothing uses …);
* ``info`` — worth knowing (checks skipped for a bare buildFile, legacy
  encodings VASSAL converts on load).

The checks turn ``docs/vassal-format.md`` §6 (a module VASSAL 3.7 opens
cleanly) into code.  Which attribute of which component is an integer,
double, boolean, colour or key stroke comes from VASSAL 3.7.26's own
``setAttribute`` methods (:data:`ATTRIBUTE_KINDS`); image look-up follows
``DataArchive.getInputStream`` (archive, then VASSAL's built-in
``/images/…`` resources, then an extensionless GIF).

Pure: nothing is written; the module's files are only read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from vmodtool.errors import FormatError, UnsafeFileError, VmodError
from vmodtool.vassal.buildfile import BoardEntry, BuildFile, vassal_text
from vmodtool.vassal.grid import LocationError, grid_from_element
from vmodtool.vassal.grid_common import parse_double_attribute
from vmodtool.vassal.keys import is_meant_keystroke
from vmodtool.vassal.metadata import ExtensionMetadata, ModuleMetadata
from vmodtool.vassal.module import BUILDFILE_NAMES, Module, version_tuple
from vmodtool.vassal.pieces import PieceDef, Trait, java_int
from vmodtool.vassal.sequence import decode_sequence

__all__ = [
    "Finding", "CodeInfo", "CODES", "SEVERITIES", "ATTRIBUTE_KINDS", "BUILTIN_IMAGES",
    "lint_module", "lint_path", "image_references", "summarize", "format_finding",
    "findings_to_json", "at_least",
]

SEVERITIES = ("error", "warning", "info")
_RANK = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class CodeInfo:
    """What a finding code means and how bad it is."""

    severity: str
    explanation: str


#: every finding code, its severity and a one-line explanation
CODES: dict[str, CodeInfo] = {
    # archive and metadata (§1)
    "buildfile-name-vs-version": CodeInfo(
        "error", "VASSAL picks buildFile (VassalVersion < 3.5) or buildFile.xml (>= 3.5) from "
        "the metadata's VassalVersion; the entry it picks is not in the archive"),
    "both-buildfiles": CodeInfo(
        "warning", "the archive holds both buildFile and buildFile.xml; only one is read"),
    "no-moduledata": CodeInfo(
        "warning", "no moduledata entry: the Module Manager has to scan the buildFile"),
    "bad-moduledata": CodeInfo("error", "moduledata is not readable XML"),
    "moduledata-name-mismatch": CodeInfo(
        "warning", "moduledata <name> differs from the buildFile root name; saves are matched "
        "by name"),
    "vassal-version-mismatch": CodeInfo(
        "info", "moduledata VassalVersion differs from the buildFile root VassalVersion"),
    "vassal-version-too-new": CodeInfo(
        "error", "VassalVersion is 3.8 or newer: VASSAL 3.7 refuses to open the module"),
    "vassal-version-newer": CodeInfo(
        "warning", "the root VassalVersion is newer than VASSAL 3.7.26: opening shows a warning "
        "dialog"),
    "missing-vassal-version": CodeInfo("warning", "the buildFile root has no VassalVersion"),
    "legacy-root": CodeInfo(
        "info", "the root is the deprecated VASSAL.launch.BasicModule (VASSAL still reads it)"),
    # XML and attributes (§2.1)
    "bad-int-attribute": CodeInfo(
        "error", "an integer attribute is not a Java int: VASSAL throws NumberFormatException "
        "and drops the component (the root: refuses the module)"),
    "bad-double-attribute": CodeInfo(
        "error", "a floating-point attribute is not a Java double: VASSAL throws "
        "NumberFormatException and drops the component"),
    "ignored-number-attribute": CodeInfo(
        "warning", "a numeric attribute is malformed; VASSAL catches the error and keeps the "
        "default"),
    "bad-boolean": CodeInfo(
        "warning", "a boolean is neither true nor false: VASSAL reads it as false"),
    "bad-colour": CodeInfo(
        "warning", "a colour is not r,g,b[,a] (0-255) or 0xRRGGBB: VASSAL uses black"),
    "bad-keystroke": CodeInfo(
        "warning", "a key stroke is not keyCode,modifiers[,name]: VASSAL reads no key"),
    "named-key-comma": CodeInfo(
        "warning", "a named key command contains ',': VASSAL keeps only the text before it"),
    "named-key-hides-keystroke": CodeInfo(
        "warning", "a key is written keyCode,modifiers,name with a real key stroke (70,130,Flip): "
        "VASSAL reads a named command and ignores the key stroke, so pressing the keys does "
        "nothing; write 70,130 for Ctrl+F"),
    "cdata-definition": CodeInfo(
        "error", "a piece definition is in a CDATA section, which VASSAL's Builder.getText "
        "skips: the piece vanishes"),
    "custom-class": CodeInfo(
        "info", "a component class outside VASSAL (it must be in the module's own classes)"),
    "missing-class": CodeInfo(
        "error", "a component class outside VASSAL whose .class file is not in the archive: "
        "'failed to load class'"),
    "missing-standard-component": CodeInfo(
        "info", "a standard module component is missing; VASSAL adds it silently, so its "
        "re-serialisation differs from the file"),
    # maps, boards, grids (§2.4.2-§2.4.8)
    "duplicate-map-name": CodeInfo(
        "error", "two maps share a mapName; saves refer to maps by name"),
    "duplicate-board-name": CodeInfo(
        "warning", "two boards of one map share a name; the board picker and setup stacks "
        "find only the first"),
    "map-missing-component": CodeInfo(
        "warning", "a map lacks PieceMover, KeyBufferer or MenuDisplayer: its pieces cannot be "
        "moved, selected or right-clicked"),
    "multi-board-without-setup": CodeInfo(
        "info", "a map with several boards and no <setup>: players pick boards at game start"),
    "board-without-grid": CodeInfo(
        "info", "a board without a grid reports every location as offboard"),
    "grid-without-numbering": CodeInfo(
        "warning", "a hex or square grid without numbering: every location is reported as "
        "offboard"),
    "grid-unusable": CodeInfo(
        "error", "a grid whose numbers cannot give a geometry (a cell under 0.001 px or over "
        "10^9 px, Infinity or NaN): VASSAL's pixel arithmetic overflows; replays and audits "
        "read the board's locations as pixels"),
    "setup-stack-unknown-board": CodeInfo(
        "error", "a SetupStack's owningBoard names no board of its map: the stack is placed "
        "on another board or not at all"),
    "setup-stack-bad-location": CodeInfo(
        "error", "a SetupStack's grid location does not parse with the board's numbering: "
        "VASSAL shows a data warning and the stack lands elsewhere"),
    "setup-stack-no-grid": CodeInfo(
        "warning", "a SetupStack uses a grid location on a board without a grid: VASSAL "
        "places it at x/y instead"),
    "setup-stack-not-checked": CodeInfo(
        "info", "a SetupStack location could not be checked (board size unknown for a "
        "descending numbering)"),
    # pieces (§3, §6.7)
    "bad-piece-definition": CodeInfo(
        "error", "a piece definition cannot be decoded (not +/id/type/state, or no basic "
        "piece)"),
    "state-levels": CodeInfo(
        "error", "a piece definition has fewer state levels than traits: VASSAL throws 'no "
        "state for trait'"),
    "bad-trait": CodeInfo(
        "error", "a trait's type cannot be decoded by VASSAL (too few fields, bad number)"),
    "unknown-trait": CodeInfo(
        "warning", "a trait prefix VASSAL does not know: it becomes a dummy Marker and its "
        "behaviour is lost"),
    "trailing-backslash": CodeInfo(
        "warning", "a trait field ends with a backslash (or has swallowed the next trait that "
        "way): VASSAL's encoder merges it with the next field"),
    "legacy-layer": CodeInfo(
        "info", "layers (emb2;) with version 0 or the old emb; encoding: VASSAL converts their "
        "keys and recomputes 'always active' on load"),
    "unknown-prototype": CodeInfo(
        "error", "a prototype; trait names no PrototypeDefinition: the piece silently lacks "
        "those traits"),
    "prototype-cycle": CodeInfo(
        "error", "prototypes that use each other in a cycle"),
    "duplicate-prototype": CodeInfo(
        "warning", "two PrototypeDefinitions share a name; the later one replaces the earlier"),
    "unused-prototype": CodeInfo("info", "a PrototypeDefinition that no piece uses"),
    "no-report-state": CodeInfo(
        "warning", "a piece with commands that change its state but no Report Action "
        "(report;), even through its prototypes: those actions are silent in logs"),
    # gpids (§2.4.10)
    "duplicate-gpid": CodeInfo(
        "error", "two piece slots (or place/replace-marker traits) share a gpid: Refresh "
        "Counters matches pieces to the wrong slot"),
    "bad-gpid": CodeInfo(
        "warning", "an empty or non-numeric gpid (the editor renumbers it on open)"),
    "gpid-above-next-id": CodeInfo(
        "warning", "nextPieceSlotId is not greater than every gpid: new slots can get used ids"),
    "gpid-state-mismatch": CodeInfo(
        "info", "the gpid in a slot's BasicPiece state differs from the slot gpid (VASSAL "
        "rewrites it when saving)"),
    # images and files (§1.2, §6.9)
    "images-not-checked": CodeInfo(
        "info", "a bare buildFile has no archive: image and file references were not checked"),
    "missing-image": CodeInfo(
        "error", "an image named by the module is not under images/ (nor a VASSAL built-in): "
        "'Image not found'"),
    "unused-image": CodeInfo(
        "warning", "a file under images/ that nothing in the module refers to"),
    "missing-file": CodeInfo(
        "error", "a help page, HTML chart, PDF or predefined setup file is not in the archive"),
    "setup-module-name-mismatch": CodeInfo(
        "warning", "a predefined setup's moduledata names another module"),
    "setup-unexpanded-prototype": CodeInfo(
        "warning", "a predefined setup holds pieces with prototype; traits (VASSAL writes "
        "expanded pieces)"),
    "unreadable-setup": CodeInfo("error", "a predefined setup file cannot be decoded"),
    # decks and hands
    "unknown-reshuffle-target": CodeInfo(
        "error", "a DrawPile's reshuffleTarget ('send to another deck') names no DrawPile: the "
        "command moves nothing"),
    "unknown-return-deck": CodeInfo(
        "error", "a Return to Deck trait (return;) names a deck that no DrawPile has: VASSAL "
        "reports 'Deck Not Found' when it is used"),
    "unknown-owner-side": CodeInfo(
        "warning", "a PlayerHand/PrivateMap side or a restricted DrawPile's owner is not a "
        "side of the PlayerRoster: no player can open the hand or draw from the deck"),
    # uniqueness (§6.12)
    "duplicate-global-property": CodeInfo(
        "warning", "two global properties of one container share a name"),
    "duplicate-dice-button": CodeInfo(
        "warning", "two dice buttons share a name (they define the same <name>_result "
        "properties)"),
}


@dataclass(frozen=True)
class Finding:
    """One problem found in a module."""

    code: str
    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    component_path: str | None = None
    detail: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"code": self.code, "severity": self.severity, "message": self.message,
                "file": self.file, "line": self.line, "component_path": self.component_path,
                "detail": self.detail}


def format_finding(finding: Finding) -> str:
    """``file:line: severity code: message`` (``[component path]`` appended)."""
    where = finding.file or "-"
    if finding.line is not None:
        where += f":{finding.line}"
    text = f"{where}: {finding.severity} {finding.code}: {finding.message}"
    if finding.component_path:
        text += f" [{finding.component_path}]"
    return text


def summarize(findings: Iterable[Finding]) -> dict[str, int]:
    """Count of findings per severity."""
    counts = {severity: 0 for severity in SEVERITIES}
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def at_least(findings: Iterable[Finding], min_severity: str) -> list[Finding]:
    """The findings at ``min_severity`` or worse."""
    limit = _RANK[min_severity]
    return [f for f in findings if _RANK[f.severity] <= limit]


def findings_to_json(findings: Sequence[Finding], file: str | None = None) -> dict[str, Any]:
    """``{"file", "summary", "findings"}``."""
    return {"file": file, "summary": summarize(findings),
            "findings": [f.to_dict() for f in findings]}


# ----------------------------------------------------------------- VASSAL data
#: attribute kinds per component class, read from VASSAL 3.7.26's
#: ``setAttribute`` methods (inherited ones included): ``i`` Integer.valueOf
#: (uncaught: fatal for the component), ``i?``/``d?`` parsed with the error
#: caught, ``d`` Double.valueOf, ``dl`` comma list of doubles, ``b``
#: boolean, ``c`` colour (ColorConfigurer), ``k`` key stroke.  Class names
#: are given without the leading ``VASSAL.``.
_ATTRIBUTE_TABLE: dict[str, str] = {
    "build.GameModule":
        "nextPieceSlotId=i?",
    "build.module.ChessClockControl":
        "allowReset=b nextHotkey=k pauseHotkey=k showHotkey=k startOpponentHotkey=k",
    "build.module.DiceButton":
        "addToTotal=i canDisable=b hideWhenDisabled=b keepCount=i keepDice=b lockAdd=b lockDice=b "
        "lockPlus=b lockSides=b nDice=i nSides=i plus=i prompt=b reportTotal=b sortDice=b",
    "build.module.DieManager":
        "dfltndice=i dfltnsides=i",
    "build.module.DoActionButton":
        "canDisable=b doHotkey=b doLoop=b doReport=b doSound=b hideWhenDisabled=b index=b "
        "indexStart=i indexStep=i postLoopKey=k preLoopKey=k",
    "build.module.GlobalKeyCommand":
        "canDisable=b hideWhenDisabled=b hotkey=k reportSingle=b singleMap=b suppressSounds=b",
    "build.module.GlobalOptions":
        "disablePieceIndexing=b minMaxHeap=i? purgeBlankPropertyPrompts=b "
        "storeLeadingZeroIntegersAsStrings=b",
    "build.module.InternetDiceButton":
        "addToTotal=i canDisable=b hideWhenDisabled=b keepCount=i keepDice=b lockAdd=b lockDice=b "
        "lockPlus=b lockSides=b nDice=i nSides=i plus=i prompt=b reportTotal=b sortDice=b",
    "build.module.Inventory":
        "canDisable=b cutLeaves=i cutRoot=i hideWhenDisabled=b keystroke=k pieceZoom=d "
        "pieceZoom2=d pieceZoom3=d refreshHotkey=k zoomOn=b",
    "build.module.Map":
        "allowMultiple=b backgroundcolor=c canDisable=b color=c edgeHeight=i? edgeWidth=i? "
        "hideKey=k hideWhenDisabled=b launch=b markUnmovedHotkey=k moveKey=k "
        "onlyReportChangedLocation=b showKey=k suppressAuto=b thickness=i",
    "build.module.ModuleExtension":
        "anyModule=b nextPieceSlotId=i?",
    "build.module.ModulePlugin":
        "anyModule=b nextPieceSlotId=i?",
    "build.module.MultiActionButton":
        "canDisable=b hideWhenDisabled=b",
    "build.module.NotesWindow":
        "canDisable=b hideWhenDisabled=b",
    "build.module.PieceWindow":
        "defaultWidth=i hidden=b scale=d",
    "build.module.PlayerHand":
        "allowMultiple=b backgroundcolor=c canDisable=b color=c edgeHeight=i? edgeWidth=i? "
        "hideKey=k hideWhenDisabled=b launch=b markUnmovedHotkey=k moveKey=k "
        "onlyReportChangedLocation=b showKey=k suppressAuto=b thickness=i visible=b",
    "build.module.PlayerRoster":
        "canDisable=b hideWhenDisabled=b",
    "build.module.PredefinedSetup":
        "isMenu=b useFile=b",
    "build.module.PrivateMap":
        "allowMultiple=b backgroundcolor=c canDisable=b color=c edgeHeight=i? edgeWidth=i? "
        "hideKey=k hideWhenDisabled=b launch=b markUnmovedHotkey=k moveKey=k "
        "onlyReportChangedLocation=b showKey=k suppressAuto=b thickness=i visible=b",
    "build.module.RandomTextButton":
        "addToTotal=i canDisable=b hideWhenDisabled=b keepCount=i keepDice=b lockAdd=b lockDice=b "
        "lockPlus=b lockSides=b nDice=i nSides=i numeric=b plus=i prompt=b reportTotal=b "
        "sortDice=b",
    "build.module.SpecialDiceButton":
        "backgroundColor=c canDisable=b doHotkey=b doLoop=b doReport=b doSound=b "
        "hideWhenDisabled=b index=b indexStart=i indexStep=i postLoopKey=k preLoopKey=k windowX=i "
        "windowY=i",
    "build.module.SpecialDieFace":
        "value=i?",
    "build.module.StartupGlobalKeyCommand":
        "canDisable=b globalHotkey=k hideWhenDisabled=b hotkey=k reportSingle=b singleMap=b "
        "suppressSounds=b",
    "build.module.ToolbarMenu":
        "canDisable=b hideWhenDisabled=b",
    "build.module.chessclockcontrol.ChessClock":
        "startHotkey=k stopHotkey=k tickingBackgroundColor=c tickingFontColor=c "
        "tockingFontColor=c",
    "build.module.documentation.Tutorial":
        "launchOnStartup=b",
    "build.module.gamepieceimage.ColorSwatch":
        "color=c",
    "build.module.gamepieceimage.GamePieceLayout":
        "height=i width=i",
    "build.module.gamepieceimage.ImageItem":
        "advanced=b antialias=b rotation=i xoffset=i yoffset=i",
    "build.module.gamepieceimage.Item":
        "advanced=b antialias=b rotation=i xoffset=i yoffset=i",
    "build.module.gamepieceimage.ShapeItem":
        "advanced=b antialias=b bevel=i height=i rotation=i width=i xoffset=i yoffset=i",
    "build.module.gamepieceimage.SymbolItem":
        "advanced=b antialias=b rotation=i xoffset=i yoffset=i",
    "build.module.gamepieceimage.TextBoxItem":
        "advanced=b antialias=b height=i rotation=i use_html=b width=i xoffset=i yoffset=i",
    "build.module.gamepieceimage.TextItem":
        "advanced=b antialias=b rotation=i xoffset=i yoffset=i",
    "build.module.map.CounterDetailViewer":
        "bgColor=c borderColor=c borderInnerThickness=i borderThickness=i borderWidth=i "
        "centerAll=b centerPiecesVertically=b centerText=b combineCounterSummary=b delay=i "
        "enableHTML=b extraTextPadding=i fgColor=c fontSize=i graphicsZoom=d hotkey=k "
        "minDisplayPieces=i? onlyShowFirstSummary=b showDeck=b showDeckDepth=i showDeckMasked=b "
        "showMoveSelectde=b showNoStack=b showNonMovable=b showOnlyTopOfStack=b showOverlap=b "
        "showTerrainHeight=i showTerrainSnappy=b showTerrainWidth=i showTerrainZoom=d showgraph=b "
        "showgraphsingle=b showtext=b showtextsingle=b stopAfterShowing=b stretchWidthPieces=b "
        "stretchWidthSummary=b unrotatePieces=b verticalBottomText=i verticalOffset=i "
        "verticalTopText=i zoomlevel=d",
    "build.module.map.DeckGlobalKeyCommand":
        "canDisable=b hideWhenDisabled=b hotkey=k reportSingle=b singleMap=b suppressSounds=b",
    "build.module.map.DrawPile":
        "allowMultiple=b allowSelect=b canSave=b color=c deckRestrictAccess=b draw=b drawFaceUp=b "
        "emptyHotkey=k expressionCounting=b faceDownHotkey=k faceFlipHotkey=k faceUpHotkey=k "
        "height=i hotkeyOnEmpty=b loadHotkey=k maxStack=i reshufflable=b reshuffleHotkey=k "
        "restrictOption=b reverseHotkey=k reversible=b saveHotkey=k shuffleHotkey=k "
        "useGridLocation=b width=i x=i y=i",
    "build.module.map.Flare":
        "circleColor=c circleScale=b circleSize=i flarePulses=i flarePulsesPerSec=i",
    "build.module.map.GlobalMap":
        "color=c scale=d",
    "build.module.map.HandMetrics":
        "bottom=k color=c disabled=b down=k exSepX=i? exSepY=i? top=k unexSepX=i? unexSepY=i? "
        "up=k",
    "build.module.map.HighlightLastMoved":
        "color=c enabled=b thickness=i",
    "build.module.map.ImageSaver":
        "canDisable=b hideWhenDisabled=b",
    "build.module.map.LOS_Thread":
        "canDisable=b drawRange=b hideCounters=b hideOpacity=i hideWhenDisabled=b losThickness=i "
        "rangeBg=c rangeFg=c scale=i snapEnd=b snapStart=b threadColor=c",
    "build.module.map.LayerControl":
        "canDisable=b hideWhenDisabled=b skip=b",
    "build.module.map.MapShader":
        "addToMapToolbar=b alwaysOn=b border=b borderColor=c borderOpacity=i borderWidth=i "
        "canDisable=b color=c drawOver=b hideWhenDisabled=b opacity=i scaleImage=b startsOn=b",
    "build.module.map.MassKeyCommand":
        "canDisable=b hideWhenDisabled=b hotkey=k reportSingle=b singleMap=b suppressSounds=b",
    "build.module.map.MoveCameraButton":
        "canDisable=b hideWhenDisabled=b",
    "build.module.map.PieceMover":
        "markUnmovedHotkey=k",
    "build.module.map.PieceRecenterer":
        "canDisable=b hideWhenDisabled=b",
    "build.module.map.SelectionHighlighter":
        "BoundsOf=b",
    "build.module.map.SetupStack":
        "useGridLocation=b x=i y=i",
    "build.module.map.StackMetrics":
        "bottom=k color=c disabled=b down=k exSepX=i? exSepY=i? top=k unexSepX=i? unexSepY=i? "
        "up=k",
    "build.module.map.TextSaver":
        "canDisable=b hideWhenDisabled=b",
    "build.module.map.Zoomer":
        "factor=d max=i zoomLevels=dl zoomStart=i",
    "build.module.map.boardPicker.Board":
        "color=c height=i reversible=b width=i",
    "build.module.map.boardPicker.board.HexGrid":
        "color=c cornersLegal=b dotsVisible=b dx=d dy=d edgesLegal=b sideways=b snapTo=b "
        "snapscale=i visible=b x0=i y0=i",
    "build.module.map.boardPicker.board.Region":
        "originx=i originy=i",
    "build.module.map.boardPicker.board.RegionGrid":
        "fontsize=i snapto=b visible=b",
    "build.module.map.boardPicker.board.SquareGrid":
        "color=c cornersLegal=b dotsVisible=b dx=d dy=d edgesLegal=b snapTo=b visible=b x0=i y0=i",
    "build.module.map.boardPicker.board.mapgrid.HexGridNumbering":
        "color=c fontSize=i hDescend=b hDrawOff=i hLeading=i hOff=i rotateText=i stagger=b "
        "vDescend=b vDrawOff=i vLeading=i vOff=i visible=b",
    "build.module.map.boardPicker.board.mapgrid.RegularGridNumbering":
        "color=c fontSize=i hDescend=b hDrawOff=i hLeading=i hOff=i rotateText=i vDescend=b "
        "vDrawOff=i vLeading=i vOff=i visible=b",
    "build.module.map.boardPicker.board.mapgrid.SquareGridNumbering":
        "color=c fontSize=i hDescend=b hDrawOff=i hLeading=i hOff=i rotateText=i vDescend=b "
        "vDrawOff=i vLeading=i vOff=i visible=b",
    "build.module.map.boardPicker.board.mapgrid.Zone":
        "useHighlight=b useParentGrid=b",
    "build.module.map.boardPicker.board.mapgrid.ZoneHighlight":
        "color=c opacity=i width=i",
    "build.module.map.deck.AbstractDeckKeyCommand":
        "hotkey=k",
    "build.module.map.deck.DeckSendKeyCommand":
        "applyOnMove=b hotkey=k limitTotal=b sendMatching=b stop=b stopAlso=b variableDeck=b",
    "build.module.map.deck.DeckSortKeyCommand":
        "hotkey=k",
    "build.module.properties.AbstractScenarioProperty":
        "hotkey=k isNumeric=b switch=b wrap=b",
    "build.module.properties.BooleanScenarioProperty":
        "hotkey=k initialValue=b isNumeric=b switch=b wrap=b",
    "build.module.properties.ChangePropertyButton":
        "canDisable=b hideWhenDisabled=b",
    "build.module.properties.GlobalProperty":
        "isNumeric=b wrap=b",
    "build.module.properties.ListScenarioProperty":
        "hotkey=k isNumeric=b switch=b wrap=b",
    "build.module.properties.NumberScenarioProperty":
        "hotkey=k initialValue=i? isNumeric=b switch=b wrap=b",
    "build.module.properties.ScenarioPropertiesOptionTab":
        "alignLabelsRight=b",
    "build.module.properties.StringScenarioProperty":
        "hotkey=k isNumeric=b switch=b wrap=b",
    "build.module.properties.ZoneProperty":
        "isNumeric=b wrap=b",
    "build.module.turn.CounterTurnLevel":
        "incr=i loop=b loopLimit=i start=i",
    "build.module.turn.ListTurnLevel":
        "configFirst=b configList=b",
    "build.module.turn.TurnGlobalHotkey":
        "hotkey=k",
    "build.module.turn.TurnTracker":
        "fwdOnly=b length=i nexthotkey=k plusButtonSize=i prevhotkey=k turnButtonHeight=i",
    "build.widget.BoxWidget":
        "height=i width=i",
    "build.widget.ListWidget":
        "divider=i height=i scale=d width=i",
    "build.widget.PanelWidget":
        "fixed=b nColumns=i scale=d vert=b",
    "build.widget.WidgetMap":
        "allowMultiple=b backgroundcolor=c canDisable=b color=c edgeHeight=i? edgeWidth=i? "
        "hideKey=k hideWhenDisabled=b launch=b markUnmovedHotkey=k moveKey=k "
        "onlyReportChangedLocation=b showKey=k suppressAuto=b thickness=i",
}


def _parse_table(table: dict[str, str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for cls, spec in table.items():
        out["VASSAL." + cls] = dict(item.split("=", 1) for item in spec.split())
    return out


#: full class name → attribute name → kind (see :data:`_ATTRIBUTE_TABLE`)
ATTRIBUTE_KINDS: dict[str, dict[str, str]] = _parse_table(_ATTRIBUTE_TABLE)

#: key-stroke attributes of launch buttons (``LaunchButton``), on any component
_LAUNCH_KEYS = ("hotkey", "buttonKeyStroke")

#: files of VASSAL 3.7.26's ``/images/`` resources: an image name VASSAL
#: does not find in the archive is looked up there too
BUILTIN_IMAGES = frozenset(
    "DoorClose.au DoorOpen.au Edit16.gif Help16.gif Save16.gif SaveAs16.gif Splash.gif "
    "Splash.png StepForward16.gif Undo16.gif VASSAL-256x256.png black.jpg camera.gif chart.gif "
    "chess_clock.png connect.gif counter.gif die.gif disconnect.gif getMessages.gif "
    "globe_selected.gif globe_unselected.gif inventory.gif keyCommand.gif lockedRoom.gif map.gif "
    "mm-extension-active.png mm-extension-inactive.png mm-file.png mm-gamefolder-closed.png "
    "mm-gamefolder-open.png mm-module.png moved.gif notes.gif overview.gif phone1.wav "
    "playerAway.gif playerLooking.gif postMessage.gif recenter.gif status.gif thread.gif "
    "unmoved.gif zoom.png zoomIn.gif zoomIn.png zoomOut.gif zoomOut.png".split())

#: attributes naming an image, on any component (IconConfigurer attributes)
_ICON_ATTRIBUTES = frozenset((
    "icon", "disabledIcon", "buttonIcon", "markUnmovedIcon", "iconName", "persistentIconName",
    "inIconName", "outIconName", "pickIconName", "hiddenIcon", "showingIcon"))
#: (class suffix, attribute) naming an image on specific components
_IMAGE_ATTRIBUTES = (
    (".boardPicker.Board", "image"), (".map.SelectionHighlighter", "image"),
    (".map.MapShader", "image"), (".gamepieceimage.ImageItem", "image"),
    (".documentation.AboutScreen", "fileName"), (".widget.Chart", "fileName"))

_P = "VASSAL.build."
_MAP_TAGS = (_P + "module.Map", _P + "module.PrivateMap", _P + "module.PlayerHand",
             _P + "widget.WidgetMap")
_GRID_TAGS = {_P + "module.map.boardPicker.board." + n: n
              for n in ("HexGrid", "SquareGrid", "RegionGrid", "ZonedGrid")}
_NUMBERING = {"HexGrid": _P + "module.map.boardPicker.board.mapgrid.HexGridNumbering",
              "SquareGrid": _P + "module.map.boardPicker.board.mapgrid.SquareGridNumbering"}
_BOARD_TAG = _P + "module.map.boardPicker.Board"
_SETUP_STACK_TAGS = (_P + "module.map.SetupStack", _P + "module.map.DrawPile")
_STANDARD = ("module.BasicCommandEncoder", "module.Documentation", "module.PlayerRoster",
             "module.GlobalOptions", "module.Chatter", "module.KeyNamer", "module.PrototypesContainer",
             "module.properties.GlobalProperties",
             "module.properties.GlobalTranslatableMessages")
_MAP_ESSENTIALS = ("PieceMover", "KeyBufferer", "MenuDisplayer")
_NAME_ATTRIBUTES = ("name", "mapName", "entryName", "chartName", "title", "configureName")
_HTML_FILES = (".html", ".htm", ".xhtml", ".css", ".properties", ".txt")
_NEWEST_MINOR = (3, 7)
_NEWEST_KNOWN = (3, 7, 26)
_MISSING_ALIAS = object()

def _short(tag: object) -> str:
    return tag.rsplit(".", 1)[-1] if isinstance(tag, str) else ""


def _java_int_ok(value: str) -> bool:
    return java_int(value) is not None


def _double_ok(value: str) -> bool:
    try:
        parse_double_attribute("", "", value)
    except FormatError:
        return False
    return True


def _colour_problem(value: str | None) -> str | None:
    """Why ``ColorConfigurer.stringToColor`` would fall back to black
    (``None`` when the value is a colour or empty)."""
    if value is None or value in ("", "null"):
        return None
    if value[:2] in ("0x", "0X"):
        try:
            number = int(value[2:], 16)
        except ValueError:
            return "not a hex number"
        return None if 0 <= number < 2 ** 31 else "out of range"
    parts = [p for p in value.split(",") if p != ""]
    if len(parts) < 3:
        return "needs r,g,b"
    for part in parts[:4]:
        if not _java_int_ok(part):
            return f"{part!r} is not an integer"
        if not 0 <= int(part) <= 255:
            return f"{part} is outside 0-255"
    return None


def _key_problem(value: str | None, legacy_char: bool = False) -> tuple[str, str] | None:
    """(code, why) for a key-stroke token VASSAL cannot read; ``None`` when
    fine.  ``legacy_char``: a token without ``,`` is a Ctrl+char key (trait
    fields), not an error."""
    if value is None or value == "":
        return None
    parts = value.split(",")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) < 2:
        if legacy_char:
            return None
        return ("bad-keystroke", "has no ',' between key code and modifiers")
    if not (_java_int_ok(parts[0]) and _java_int_ok(parts[1])):
        return ("bad-keystroke", "key code and modifiers must be integers")
    if len(parts) > 3:
        return ("named-key-comma", f"the command name {','.join(parts[2:])!r} contains ','; "
                f"VASSAL keeps only {parts[2]!r}")
    if len(parts) == 3 and parts[2] and is_meant_keystroke(int(parts[0]), int(parts[1])):
        return ("named-key-hides-keystroke", f"a key stroke with the name {parts[2]!r}: VASSAL 3.7 "
                f"reads the named command {parts[2]!r} and ignores the keys; write "
                f"{parts[0]},{parts[1]} for the key stroke")
    return None


# ------------------------------------------------------------------ the linter
class _Linter:
    """One lint run over one module (see :func:`lint_module`)."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.bf: BuildFile = module.buildfile
        self.findings: list[Finding] = []
        self.has_archive = module.container in ("zip", "folder")
        self.files: set[str] = set(module.files)
        self.file_label = self._label(module.buildfile_entry)
        #: image name → [(element or None, what)] in reference order
        self.image_refs: dict[str, list[tuple[etree._Element | None, str]]] = {}
        self.prototype_defs: dict[str, PieceDef | None] = {}
        self.prototype_elements: dict[str, etree._Element] = {}
        self.prototype_uses: dict[str, set[str]] = {}
        self.used_prototypes: set[str] = set()
        self.gpids: list[tuple[str, etree._Element, str]] = []
        self.legacy_layers: list[etree._Element] = []
        self.state_gpid_mismatch: list[etree._Element] = []
        self._proto_summary: dict[str, tuple[bool, list[str]]] = {}
        #: prototype uses inside place/replace-marker definitions (not expanded
        #: into the piece that carries the marker trait)
        self.marker_refs: list[tuple[str, etree._Element]] = []
        self._board_sizes: dict[str, tuple[int, int]] | None = None

    # ------------------------------------------------------------ plumbing
    def _label(self, entry: str) -> str | None:
        m = self.module
        if m.container == "buildfile":
            return m.file
        if m.container == "folder":
            return f"{m.file}/{entry}"
        return f"{m.file}!{entry}"

    def add(self, code: str, message: str, element: etree._Element | None = None, *,
            file: Any = _MISSING_ALIAS, line: int | None = None,
            detail: dict[str, Any] | None = None) -> None:
        info = CODES[code]
        if element is not None and line is None:
            line = self.bf.line_of(element)
        self.findings.append(Finding(
            code=code, severity=info.severity, message=message,
            file=self.file_label if file is _MISSING_ALIAS else file,
            line=line, component_path=self.path(element) if element is not None else None,
            detail=detail or {}))

    def path(self, element: etree._Element) -> str:
        """``Map[Main Map]/BoardPicker/Board[Main]/HexGrid`` (root excluded)."""
        parts = []
        chain = [element] + [a for a in element.iterancestors()]
        for node in reversed(chain):
            if node is self.bf.root:
                continue
            name = next((node.get(a) for a in _NAME_ATTRIBUTES if node.get(a)), None)
            short = _short(node.tag) or str(node.tag)
            parts.append(f"{short}[{name}]" if name else short)
        return "/".join(parts) or _short(self.bf.root.tag)

    # ------------------------------------------------------------ running
    def run(self) -> list[Finding]:
        self.check_container()
        self.check_root()
        self.check_elements()
        self.check_standard_components()
        self.check_maps()
        self.check_setup_stacks()
        self.check_pieces()
        self.check_gpids()
        self.check_uniqueness()
        self.check_decks()
        self.check_images_and_files()
        order = {code: i for i, code in enumerate(CODES)}
        self.findings.sort(key=lambda f: (f.file or "", f.line if f.line is not None else 1 << 30,
                                          _RANK[f.severity], order[f.code], f.message))
        return self.findings

    # ------------------------------------------------------------ container
    def check_container(self) -> None:
        m, bf = self.module, self.bf
        if not self.has_archive:
            return
        if all(name in self.files for name in BUILDFILE_NAMES):
            self.add("both-buildfiles", "the archive has both 'buildFile' and 'buildFile.xml'; "
                     f"VASSAL reads only one (here '{m.buildfile_entry}'); the editor deletes "
                     "'buildFile' when it saves", file=m.file)
        metadata = None
        kind = "extensiondata" if m.extensiondata is not None else "moduledata"
        raw = m.extensiondata if m.extensiondata is not None else m.moduledata
        if raw is not None:
            cls = ExtensionMetadata if kind == "extensiondata" else ModuleMetadata
            try:
                metadata = cls.parse(raw, file=f"{m.file}!{kind}")
            except VmodError as err:
                self.add("bad-moduledata", f"{kind} cannot be read: {err.message}",
                         file=self._label(kind))
        elif not bf.is_extension:
            self.add("no-moduledata", "no 'moduledata' entry: VASSAL takes the module name and "
                     "versions from the root of 'buildFile' (write moduledata, §1.3)",
                     file=m.file)
        # the buildfile name VASSAL reads (GameModule.build, §1.4)
        if metadata is not None:
            meta_version: str | None = metadata.vassal_version
            source = f"{kind} VassalVersion {meta_version!r}"
        elif raw is None and "buildFile" in self.files:
            meta_version = bf.vassal_version if m.buildfile_entry == "buildFile" else None
            source = f"the 'buildFile' root VassalVersion {meta_version!r}"
        else:
            meta_version = None
            source = "no metadata (the running VASSAL's version)"
        if meta_version is not None:
            wanted = "buildFile" if version_tuple(meta_version)[:2] < (3, 5) else "buildFile.xml"
            if wanted not in self.files:
                present = next(n for n in BUILDFILE_NAMES if n in self.files)
                self.add("buildfile-name-vs-version",
                         f"VASSAL reads '{wanted}' ({source}), but the archive has only "
                         f"'{present}': VASSAL reports 'no buildfile'", file=m.file,
                         detail={"expected_entry": wanted, "vassal_version": meta_version})
        if isinstance(metadata, ModuleMetadata):  # kind == "moduledata"
            if metadata.name.strip() != bf.name.strip():
                self.add("moduledata-name-mismatch",
                         f"moduledata name {metadata.name!r} differs from the buildFile root "
                         f"name {bf.name!r}", file=self._label("moduledata"))
            if metadata.vassal_version and bf.vassal_version and \
                    metadata.vassal_version != bf.vassal_version:
                self.add("vassal-version-mismatch",
                         f"moduledata VassalVersion {metadata.vassal_version!r}, buildFile root "
                         f"{bf.vassal_version!r} (write the same value in both, §1.4)",
                         file=self._label("moduledata"))
        if metadata is not None and version_tuple(metadata.vassal_version)[:2] > _NEWEST_MINOR:
            self.add("vassal-version-too-new",
                     f"{kind} VassalVersion {metadata.vassal_version!r}: VASSAL 3.7 refuses to "
                     "open it ('module too new')", file=self._label(kind))

    def check_root(self) -> None:
        bf, root = self.bf, self.bf.root
        if bf.is_legacy_root:
            self.add("legacy-root", "root element VASSAL.launch.BasicModule is deprecated; "
                     "write VASSAL.build.GameModule", root)
        version = bf.vassal_version
        if not version:
            self.add("missing-vassal-version", "the root has no VassalVersion attribute", root)
        elif version_tuple(version)[:3] > _NEWEST_KNOWN:
            too_new = version_tuple(version)[:2] > _NEWEST_MINOR
            self.add("vassal-version-too-new" if too_new and self.module.moduledata is None
                     else "vassal-version-newer",
                     f"root VassalVersion {version!r} is newer than VASSAL 3.7.26", root)
        value = root.get("nextPieceSlotId")
        if value is not None and not _java_int_ok(value):
            self.add("bad-int-attribute", f"nextPieceSlotId={value!r} is not an integer: VASSAL "
                     "refuses to load the module (IllegalBuildException)", root,
                     detail={"attribute": "nextPieceSlotId", "value": value})

    # ------------------------------------------------------------ elements
    def check_elements(self) -> None:
        """Attribute values, image/file references, CDATA, custom classes."""
        custom: dict[str, list[etree._Element]] = {}
        root = self.bf.root
        for element in root.iter():
            tag = element.tag
            if not isinstance(tag, str):
                continue
            if element is not root:
                self._check_attributes(element, tag)
                if "." in tag and not tag.startswith("VASSAL."):
                    custom.setdefault(tag, []).append(element)
            self._collect_references(element, tag)
            if _short(tag) in ("PieceSlot", "CardSlot", "PrototypeDefinition"):
                own = self.bf.text_of(element)
                merged = vassal_text(element)
                if own != merged:
                    self.add("cdata-definition", "the piece definition is (partly) in a CDATA "
                             "section, which VASSAL skips: it reads "
                             + (repr(own[:40]) if own else "nothing"), element)
        for tag, elements in custom.items():
            class_file = tag.replace(".", "/") + ".class"
            if self.has_archive and class_file not in self.files:
                self.add("missing-class", f"component class {tag} ({len(elements)} element(s)) "
                         f"is not VASSAL's and '{class_file}' is not in the archive: VASSAL "
                         "reports 'failed to load class' and skips it", elements[0])
            else:
                where = "its class is in the archive" if self.has_archive else \
                    "its class must be in the module archive"
                self.add("custom-class", f"component class {tag} ({len(elements)} element(s)) is "
                         f"not part of VASSAL; {where}", elements[0])

    def _check_attributes(self, element: etree._Element, tag: str) -> None:
        kinds = ATTRIBUTE_KINDS.get(tag, {})
        for name, value in element.attrib.items():
            kind = kinds.get(name)
            if kind is None and name in _LAUNCH_KEYS:
                kind = "k"
            if kind is None:
                continue
            what = f"{_short(element.tag)} attribute {name}={value!r}"
            detail = {"attribute": name, "value": value}
            if kind == "i" and not _java_int_ok(value):
                self.add("bad-int-attribute", f"{what} is not an integer: VASSAL throws "
                         "NumberFormatException and drops the component", element, detail=detail)
            elif kind == "d" and not _double_ok(value):
                self.add("bad-double-attribute", f"{what} is not a number: VASSAL throws "
                         "NumberFormatException and drops the component", element, detail=detail)
            elif kind == "dl":
                bad = [p for p in value.split(",") if not _double_ok(p)]
                if bad:
                    self.add("bad-double-attribute", f"{what}: {bad[0]!r} is not a number: "
                             "VASSAL throws NumberFormatException and drops the component",
                             element, detail=detail)
            elif kind in ("i?", "d?"):
                ok = _java_int_ok(value) if kind == "i?" else _double_ok(value)
                if not ok:
                    self.add("ignored-number-attribute", f"{what} is not a number; VASSAL "
                             "ignores it and keeps the default", element, detail=detail)
            elif kind == "b":
                if value and value.lower() not in ("true", "false"):
                    self.add("bad-boolean", f"{what} is not true/false: VASSAL reads false",
                             element, detail=detail)
            elif kind == "c":
                why = _colour_problem(value)
                if why:
                    self.add("bad-colour", f"{what} is not a colour ({why}): VASSAL uses black",
                             element, detail=detail)
            elif kind == "k":
                problem = _key_problem(value)
                if problem:
                    self.add(problem[0], f"{what}: {problem[1]}", element, detail=detail)

    def _collect_references(self, element: etree._Element, tag: str) -> None:
        for name, value in element.attrib.items():
            if name in _ICON_ATTRIBUTES:
                self.ref_image(value, element, f"{_short(tag)} {name}")
        for suffix, name in _IMAGE_ATTRIBUTES:
            if tag.endswith(suffix) and element.get(name):
                self.ref_image(element.get(name), element, f"{_short(tag)} {name}")
        if tag.endswith(".gamepieceimage.GamePieceLayout"):
            # GamePieceLayout.decodeItemList: ','-list of "t1|t2"; ImageItem t1 is
            # "Image;<image>;<source>"
            for item in decode_sequence(element.get("layout", ""), ","):
                head = decode_sequence(item, "|")[0]
                if head.startswith("Image"):
                    parts = decode_sequence(head, ";")
                    if len(parts) > 1:
                        self.ref_image(parts[1], element, "GamePieceLayout image item")
        elif tag.endswith(".gamepieceimage.GamePieceImage"):
            # InstanceConfigurer.StringToProperties: ImageItemInstance
            # "Image;<name>;<location>;<image>"
            for item in decode_sequence(element.get("props", ""), ","):
                if item.startswith("Image"):
                    parts = decode_sequence(item, ";")
                    if len(parts) > 3:
                        self.ref_image(parts[3], element, "GamePieceImage image item")
        if _short(tag) == "GlobalOptions":
            for option in element:
                if option.tag == "option" and option.get("name", "").endswith("Icon"):
                    self.ref_image(vassal_text(option), option,
                                   f"GlobalOptions option {option.get('name')}")

    def ref_image(self, name: str | None, element: etree._Element | None,
                  what: str) -> None:
        """Record an image reference (blank names are no image, as in
        ``ImagePainter.setImageName``)."""
        if name and not name.isspace():
            self.image_refs.setdefault(name, []).append((element, what))

    # ------------------------------------------------------------ components
    def check_standard_components(self) -> None:
        bf = self.bf
        if bf.is_extension:
            return
        present = {str(child.tag) for child in bf.root if isinstance(child.tag, str)}
        missing = [name for name in _STANDARD if _P + name not in present]
        if "VASSAL.i18n.Language" not in present:
            missing.append("i18n.Language")
        if missing:
            self.add("missing-standard-component",
                     "missing (VASSAL adds them silently): " + ", ".join(
                         n.rsplit(".", 1)[-1] for n in missing), bf.root,
                     detail={"missing": missing})

    def check_maps(self) -> None:
        bf = self.bf
        seen: dict[str, etree._Element] = {}
        for entry in bf.maps():
            element = entry.element
            if entry.name in seen and element.tag != _MAP_TAGS[3]:
                self.add("duplicate-map-name", f"mapName {entry.name!r} is also used at line "
                         f"{bf.line_of(seen[entry.name])}", element)
            elif element.tag != _MAP_TAGS[3]:
                seen[entry.name] = element
            children = {_short(child.tag) for child in element if isinstance(child.tag, str)}
            lacking = [name for name in _MAP_ESSENTIALS if name not in children]
            if lacking:
                self.add("map-missing-component", f"map {entry.name!r} has no "
                         + ", ".join(lacking) + ": its pieces cannot be "
                         + "/".join({"PieceMover": "moved", "KeyBufferer": "selected",
                                     "MenuDisplayer": "right-clicked"}[n] for n in lacking),
                         element)
            for picker in element:
                if _short(picker.tag) != "BoardPicker":
                    continue
                boards = [c for c in picker if c.tag == _BOARD_TAG]
                names: dict[str, etree._Element] = {}
                for board in boards:
                    name = board.get("name", "")
                    if name in names:
                        self.add("duplicate-board-name", f"board name {name!r} is used twice "
                                 f"in map {entry.name!r}", board)
                    names.setdefault(name, board)
                if len(boards) > 1 and not any(c.tag == "setup" for c in picker):
                    self.add("multi-board-without-setup", f"map {entry.name!r} has "
                             f"{len(boards)} boards and no <setup>: players choose the boards "
                             "when a game starts", picker)
        for board_entry in bf.boards():
            if board_entry.grid is None:
                self.add("board-without-grid", f"board {board_entry.name!r} has no grid: every "
                         "location on it is 'offboard'", board_entry.element)
                continue
            self._check_grid_geometry(board_entry, self.board_sizes().get(board_entry.name))
        for element in bf.root.iter(*[t for t, n in _GRID_TAGS.items() if n in _NUMBERING]):
            kind = _GRID_TAGS[str(element.tag)]  # iter() yields only the named tags
            if not any(child.tag == _NUMBERING[kind] for child in element):
                board_el = next((a for a in element.iterancestors(_BOARD_TAG)), None)
                where = f" of board {board_el.get('name', '')!r}" if board_el is not None else ""
                self.add("grid-without-numbering", f"{kind}{where} has no {kind}Numbering: "
                         "every location is reported as 'offboard' (in move reports too)",
                         element)

    def board_sizes(self) -> dict[str, tuple[int, int]]:
        """The module's board sizes (from the images), read once per lint."""
        if self._board_sizes is None:
            self._board_sizes = self.module.board_sizes()[0]
        return self._board_sizes

    def _check_grid_geometry(self, board: BoardEntry, size: tuple[int, int] | None) -> None:
        """The board's grid built as a replay builds it: a number that parses
        but gives no geometry (``dx="1e-320"``) is an error, not a clean lint
        (a malformed number is the attribute check's)."""
        assert board.grid is not None
        grid_path = self.path(board.grid)
        if any(f.component_path is not None and (f.component_path == grid_path
                                                 or f.component_path.startswith(grid_path + "/"))
               and f.code in ("bad-int-attribute", "bad-double-attribute") for f in self.findings):
            return
        if size is None:
            size = (board.width or 500, board.height or 500)     # (Board's defaults)
        try:
            grid_from_element(board.grid, size)
        except VmodError as exc:
            self.add("grid-unusable", f"the grid of board {board.name!r} cannot be used: "
                     f"{exc.message}", board.grid)

    def check_setup_stacks(self) -> None:
        bf = self.bf
        boards_by_map: dict[etree._Element | None, list[BoardEntry]] = {}  # None: outside any map
        for entry in bf.boards():
            boards_by_map.setdefault(entry.map_element, []).append(entry)
        for stack in bf.root.iter(*_SETUP_STACK_TAGS):
            map_element = next((a for a in stack.iterancestors(*_MAP_TAGS)), None)
            boards = boards_by_map.get(map_element, [])
            owning = stack.get("owningBoard", "")
            board: BoardEntry | None = None
            if owning and owning != "<any>":
                board = next((b for b in boards if b.name == owning), None)
                if board is None:
                    names = ", ".join(repr(b.name) for b in boards) or "none"
                    self.add("setup-stack-unknown-board",
                             f"owningBoard {owning!r} is not a board of this map (boards: "
                             f"{names})", stack, detail={"owningBoard": owning})
            if stack.get("useGridLocation", "false").lower() != "true":
                continue
            board = board or (boards[0] if boards else None)
            location = stack.get("location", "")
            if board is None or not location:
                continue
            if board.grid is None:
                self.add("setup-stack-no-grid", f"location {location!r} on board "
                         f"{board.name!r}, which has no grid: VASSAL uses x/y", stack)
                continue
            size = self.board_sizes().get(board.name)
            if size is None and not board.image:
                size = (board.width or 500, board.height or 500)  # Board defaults
            if size is None:
                descending = any(el.get(a, "").lower() == "true" for el in board.grid.iter()
                                 for a in ("hDescend", "vDescend"))
                if descending:
                    self.add("setup-stack-not-checked", f"location {location!r}: the size of "
                             f"board {board.name!r} is unknown and its numbering descends",
                             stack)
                    continue
                size = (1000, 1000)
            try:
                grid = grid_from_element(board.grid, size)
            except VmodError:
                continue  # the attribute check reports the malformed number
            if grid is None or self._locates(grid, location):
                continue
            self.add("setup-stack-bad-location", f"location {location!r} is not a location of "
                     f"board {board.name!r}'s grid: VASSAL reports 'Bad location name' and "
                     "places the stack at its old x/y", stack,
                     detail={"location": location, "board": board.name})

    @staticmethod
    def _locates(grid: Any, location: str) -> bool:
        """``SetupStack.updatePosition``: the grid's name → point, and for a
        ZonedGrid also a region of a zone's RegionGrid inside that zone."""
        try:
            grid.get_location(location)
            return True
        except (LocationError, VmodError, ValueError, ZeroDivisionError):
            pass
        for zone in getattr(grid, "zones", ()):
            own = zone.grid
            for region in getattr(own, "regions", ()):
                if region.name == location and zone.contains(region.x, region.y):
                    return True
        return False

    def check_uniqueness(self) -> None:
        for container in self.bf.components("properties.GlobalProperties"):
            seen: set[str] = set()
            for child in container:
                if _short(child.tag) != "GlobalProperty":
                    continue
                name = child.get("name", "")
                if name in seen:
                    self.add("duplicate-global-property", f"global property {name!r} is "
                             "defined twice in this container", child)
                seen.add(name)
        dice: dict[str, etree._Element] = {}
        for element in self.bf.root.iter():
            if _short(element.tag) not in ("DiceButton", "SpecialDiceButton",
                                           "InternetDiceButton"):
                continue
            name = element.get("name", "")
            if name in dice:
                self.add("duplicate-dice-button", f"dice button {name!r} is also defined at "
                         f"line {self.bf.line_of(dice[name])}", element)
            dice.setdefault(name, element)

    # ------------------------------------------------------------ decks and hands
    def check_decks(self) -> None:
        """Deck and hand references: 'send to another deck' targets, Return
        to Deck traits naming a deck, and the sides hands and decks are
        restricted to."""
        bf = self.bf
        piles = bf.components("module.map.DrawPile")
        names = {p.get("name", "") for p in piles}
        for pile in piles:
            target = pile.get("reshuffleTarget", "")
            if target and target not in names:
                self.add("unknown-reshuffle-target", f"deck {pile.get('name', '')!r} sends its cards to "
                         f"{target!r}, which is no DrawPile of the module", pile)
        rosters = bf.components("module.PlayerRoster")
        sides = {entry.text or "" for r in rosters for entry in r if _short(entry.tag) == "entry"}
        if rosters and sides:
            restricted = [(e, e.get("side", "")) for e in bf.components("module.PlayerHand")
                          + bf.components("module.PrivateMap")]
            restricted += [(p, p.get("deckOwners", "")) for p in piles if p.get("deckRestrictAccess") == "true"]
            for element, value in restricted:
                unknown = [v for v in decode_sequence(value, ",") if v and v not in sides]
                if unknown:
                    label = element.get("mapName") or element.get("name")
                    self.add("unknown-owner-side", f"{_short(element.tag)} {label!r}"
                             f" is restricted to {', '.join(map(repr, unknown))}, not a side of the "
                             "PlayerRoster", element)
        for slot in bf.piece_slots():
            self._check_return_traits(slot.element, slot.definition, names)
        for element in bf.components("PrototypeDefinition"):
            if element.get("name", "") in self.used_prototypes:   # an unused one sends nothing anywhere
                self._check_return_traits(element, bf.text_of(element), names)

    def _check_return_traits(self, element: etree._Element, text: str, names: set[str]) -> None:
        if "return;" not in text:
            return
        reported: set[str] = set()
        try:
            piece = PieceDef.parse(text)
        except VmodError:
            return          # check_pieces reports it
        for trait in piece.traits:
            if trait.prefix != "return;":
                continue
            toks = decode_sequence(trait.type[len("return;"):], ";")
            deck_id = toks[2] if len(toks) > 2 else ""
            version = int(toks[5]) if len(toks) > 5 and toks[5].isdigit() else 0
            select = (toks[6] != "false" if len(toks) > 6 else True) if version >= 2 else not deck_id
            target = (toks[7] if len(toks) > 7 else "") if version >= 2 else deck_id
            if select or not target or "$" in target or "{" in target:
                continue        # chosen by the player, or computed in the game
            if target not in names and not re.fullmatch(r"Deck\d+", target) and target not in reported:
                reported.add(target)
                self.add("unknown-return-deck", f"a Return to Deck trait sends the piece to {target!r}, "
                         "which is no DrawPile of the module", element)

    # ------------------------------------------------------------ pieces
    def check_pieces(self) -> None:
        bf = self.bf
        refs: list[tuple[str, etree._Element]] = []
        for element in bf.components("PrototypeDefinition"):
            name = element.get("name", "")
            if name in self.prototype_elements:
                self.add("duplicate-prototype", f"prototype {name!r} is also defined at line "
                         f"{bf.line_of(self.prototype_elements[name])}; this later definition "
                         "replaces it", element)
            self.prototype_elements[name] = element
            piece = self.parse_definition(bf.text_of(element), element, f"prototype {name!r}")
            self.prototype_defs[name] = piece
            uses: list[tuple[str, etree._Element]] = []
            if piece is not None:
                self.walk_traits(piece, element, uses, in_prototype=True)
            self.prototype_uses[name] = {n for n, _ in uses}
            refs.extend(uses)
        self.check_prototype_cycles()
        for slot in bf.piece_slots():
            element = slot.element
            what = f"{slot.kind} {slot.entry_name!r}" if slot.entry_name else slot.kind
            self.gpids.append((slot.gpid, element, what))
            piece = self.parse_definition(slot.definition, element, what)
            if piece is None:
                continue
            uses = []
            self.walk_traits(piece, element, uses, in_prototype=False)
            refs.extend(uses)
            self.check_report_state(piece, element, what)
            if piece.basic.prefix == "piece;":
                try:
                    state_gpid = piece.basic_state().gpid
                except VmodError:
                    state_gpid = ""
                if state_gpid and state_gpid != slot.gpid:
                    self.state_gpid_mismatch.append(element)
        reported: set[tuple[int, str]] = set()
        for name, element in refs + self.marker_refs:
            self.used_prototypes.add(name)
            if name in self.prototype_defs or "$" in name:
                continue
            if (id(element), name) in reported:
                continue
            reported.add((id(element), name))
            self.add("unknown-prototype", f"prototype {name!r} is not defined: the piece lacks "
                     "its traits", element, detail={"prototype": name})
        for name, element in self.prototype_elements.items():
            if name not in self.used_prototypes:
                self.add("unused-prototype", f"prototype {name!r} is not used by any piece",
                         element)
        if self.legacy_layers:
            self.add("legacy-layer", f"{len(self.legacy_layers)} layer trait(s) use the legacy "
                     "encoding (emb2; version 0 or emb;); VASSAL converts them on load (the "
                     "first is here)", self.legacy_layers[0],
                     detail={"count": len(self.legacy_layers)})
        if self.state_gpid_mismatch:
            self.add("gpid-state-mismatch", f"{len(self.state_gpid_mismatch)} slot(s) carry "
                     "another gpid in their BasicPiece state than on the slot (the first is "
                     "here)", self.state_gpid_mismatch[0],
                     detail={"count": len(self.state_gpid_mismatch)})

    def parse_definition(self, text: str, element: etree._Element,
                         what: str) -> PieceDef | None:
        try:
            return PieceDef.parse(text)
        except VmodError as err:
            code = "state-levels" if "no state for this trait" in err.message else \
                "bad-piece-definition"
            place = f" ({err.place})" if err.place else ""
            self.add(code, f"{what}: {err.message}{place}", element)
            level = _backslash_before_tab(text)
            if level is not None:
                self.add("trailing-backslash", f"{what}: the last field of trait {level} ends "
                         "with a backslash, which escaped the TAB after it: the traits below "
                         "it were swallowed", element)
            return None

    def walk_traits(self, piece: PieceDef, element: etree._Element,
                    uses: list[tuple[str, etree._Element]], *, in_prototype: bool,
                    depth: int = 0) -> None:
        """Check every trait of ``piece`` and collect images, prototype
        uses and place-marker gpids."""
        from vmodtool.vassal import traits as T
        for index, trait in enumerate(piece.traits):
            prefix = trait.prefix
            where = f"trait {index + 1} ({prefix})"
            if not trait.innermost and not trait.known:
                self.add("unknown-trait", f"{where}: VASSAL does not know the trait prefix "
                         f"{prefix!r}: it becomes a dummy Marker", element,
                         detail={"prefix": prefix})
                continue
            view = trait.view()
            try:
                values = view.fields()
            except VmodError as err:
                self.add("bad-trait", f"{where}: {err.message}", element)
                continue
            if prefix == "piece;":
                self.ref_image(values["image"], element, "BasicPiece image")
            elif prefix in ("emb2;", "emb;"):
                for image in values["image_names"]:
                    self.ref_image(image, element, f"Layer {values['layer_name']!r} image")
                if prefix == "emb;" or self._raw_field(trait, 24) in (None, "", "0") \
                        or values.get("_legacy_unconvertible"):
                    self.legacy_layers.append(element)
            elif prefix == "obs;":
                self.ref_image(values["image"], element, "Mask image")
                style = values["display_style"]
                if style.startswith("G") and len(style) > 1:
                    self.ref_image(style[1:], element, "Mask 'image' style")
            elif prefix == "markmoved;":
                self.ref_image(values["moved_icon"], element, "Mark When Moved icon")
            elif prefix == "prototype;":
                uses.append((values["prototype_name"], element))  # expanded in place
            elif prefix in ("placemark;", "replace;"):
                if depth == 0:
                    self.gpids.append((values["gpid"], element, f"{where} gpid"))
                spec = values["marker_spec"]
                if spec.startswith("+/") and depth < 3:
                    inner = self.parse_definition(spec, element, f"{where} marker definition")
                    if inner is not None:
                        marker_uses: list[tuple[str, etree._Element]] = []
                        self.walk_traits(inner, element, marker_uses, in_prototype=in_prototype,
                                         depth=depth + 1)
                        self.marker_refs.extend(marker_uses)
            for name in _TRAIT_COLOURS.get(prefix, ()):
                why = _colour_problem(values.get(name))
                if why:
                    self.add("bad-colour", f"{where} {name}={values.get(name)!r} is not a "
                             f"colour ({why}): VASSAL uses black", element)
            generic = type(view)._decode_type is T.TraitView._decode_type or prefix == "emb2;"
            if generic:
                tokens = decode_sequence(trait.type[len(prefix):], view.SEP)
                for position, fld in enumerate(view.FIELDS[:len(tokens)]):
                    token = tokens[position]
                    if fld.kind == "key":
                        items = [token]
                    elif fld.kind == "keylist" and "," in token:
                        items = decode_sequence(token, ",")
                    else:
                        continue
                    for item in items:
                        problem = _key_problem(item, legacy_char=True)
                        if problem:
                            self.add(problem[0], f"{where} {fld.name} {item!r}: {problem[1]}",
                                     element)
            else:
                tokens = decode_sequence(trait.type[len(prefix):], view.SEP) \
                    if prefix.endswith(";") else []
            spec_index = 2 if prefix in ("placemark;", "replace;") else -1
            if any(t.endswith("\\") or ("\t" in t and i != spec_index)
                   for i, t in enumerate(tokens)):
                self.add("trailing-backslash", f"{where}: a field ends with a backslash, or "
                         "holds the next trait because a backslash escaped the TAB after it "
                         "(VASSAL's encoder joins such a field with the next one)", element)

    @staticmethod
    def _raw_field(trait: Trait, index: int) -> str | None:
        tokens = decode_sequence(trait.type[len(trait.prefix):], ";")
        return tokens[index] if index < len(tokens) else None

    def check_prototype_cycles(self) -> None:
        state: dict[str, int] = {}
        reported: set[frozenset[str]] = set()

        def visit(name: str, stack: list[str]) -> None:
            state[name] = 1
            stack.append(name)
            for used in sorted(self.prototype_uses.get(name, ())):
                if used not in self.prototype_uses:
                    continue
                if state.get(used) == 1:
                    cycle = stack[stack.index(used):]
                    key = frozenset(cycle)
                    if key not in reported:
                        reported.add(key)
                        self.add("prototype-cycle", "prototypes use each other in a cycle: "
                                 + " → ".join(repr(n) for n in cycle + [used]),
                                 self.prototype_elements[used])
                elif state.get(used) is None:
                    visit(used, stack)
            stack.pop()
            state[name] = 2

        for name in self.prototype_uses:
            if name not in state:
                visit(name, [])

    def _summary(self, piece: PieceDef, seen: tuple[str, ...]) -> tuple[bool, list[str]]:
        """(has a report; trait, the state-changing commands) of a piece,
        its prototypes expanded."""
        has_report = False
        changers: list[str] = []
        for trait in piece.decorators:
            prefix = trait.prefix
            if prefix == "report;":
                has_report = True
            elif prefix == "prototype;":
                try:
                    name = trait.view().prototype_name
                except VmodError:
                    continue
                if name in seen:
                    continue
                if name not in self._proto_summary:
                    proto = self.prototype_defs.get(name)
                    self._proto_summary[name] = (self._summary(proto, seen + (name,))
                                                 if proto is not None else (False, []))
                sub_report, sub_changers = self._proto_summary[name]
                has_report = has_report or sub_report
                changers.extend(sub_changers)
            else:
                label = _state_changer(trait)
                if label:
                    changers.append(label)
        return has_report, changers

    def check_report_state(self, piece: PieceDef, element: etree._Element, what: str) -> None:
        has_report, changers = self._summary(piece, ())
        if changers and not has_report:
            shown = ", ".join(dict.fromkeys(changers[:4]))
            self.add("no-report-state", f"{what} has no Report Action (report;), even through "
                     f"its prototypes: its commands ({shown}) leave no trace in logs", element)

    # ------------------------------------------------------------ gpids
    def check_gpids(self) -> None:
        extension = self.bf.is_extension
        by_id: dict[str, list[tuple[etree._Element, str]]] = {}
        numbers: list[int] = []
        empty = [(element, what) for gpid, element, what in self.gpids if not gpid.strip()]
        if empty:
            self.add("bad-gpid", f"{len(empty)} piece slot(s)/marker trait(s) have no gpid "
                     f"(the first: {empty[0][1]}): the editor assigns them on open; Refresh "
                     "Counters cannot match them", empty[0][0], detail={"count": len(empty)})
        for gpid, element, what in self.gpids:
            value = gpid.strip()
            number = value.rsplit(":", 1)[-1] if extension and ":" in value else value
            if not value:
                continue
            if not number.isdigit():
                self.add("bad-gpid", f"{what} has gpid {gpid!r}, not a number: the editor "
                         "gives it a new one on open; Refresh Counters cannot match it",
                         element, detail={"gpid": gpid})
                continue
            numbers.append(int(number))
            by_id.setdefault(value, []).append((element, what))
        for gpid, users in by_id.items():
            if len(users) < 2:
                continue
            lines = [self.bf.line_of(e) for e, _ in users]
            self.add("duplicate-gpid", f"gpid {gpid} is used {len(users)} times ("
                     + ", ".join(f"{w} line {n}" for (_, w), n in zip(users, lines, strict=True)) + ")",
                     users[1][0], detail={"gpid": gpid, "lines": lines})
        next_id = self.bf.root.get("nextPieceSlotId")
        if numbers and next_id is not None and _java_int_ok(next_id) and \
                max(numbers) >= int(next_id):
            self.add("gpid-above-next-id", f"nextPieceSlotId is {next_id} but gpid "
                     f"{max(numbers)} is in use (write max+1 = {max(numbers) + 1})",
                     self.bf.root, detail={"next": int(next_id), "max_gpid": max(numbers)})

    # ------------------------------------------------------------ images, files
    def _file_references(self) -> list[tuple[str, etree._Element, str]]:
        refs = []
        for element in self.bf.root.iter():
            short = _short(element.tag)
            if short == "HtmlChart":
                refs.append((element.get("fileName", ""), element, "HTML chart"))
            elif short == "HelpFile" and element.get("fileType", "archive") == "archive":
                refs.append((element.get("fileName", ""), element, "help file"))
            elif short == "BrowserPDFFile":
                refs.append((element.get("pdfFile", ""), element, "PDF file"))
            elif short == "PredefinedSetup" \
                    and element.get("useFile", "true").lower() == "true" \
                    and element.get("isMenu", "false").lower() != "true":
                refs.append((element.get("file", ""), element, "predefined setup"))
        return refs

    def _has_file(self, name: str) -> str | None:
        for candidate in (name, unicodedata.normalize("NFD", name)):
            if candidate in self.files:
                return candidate
        return None

    def resolve_image(self, name: str) -> str | None:
        """The archive entry VASSAL loads for image ``name``, ``"builtin"``
        for a VASSAL resource, ``None`` when not found
        (``Op.load`` + ``DataArchive.getInputStream``)."""
        if name.startswith("/"):
            return "builtin"
        entry = self._has_file("images/" + name)
        if entry:
            return entry
        if name in BUILTIN_IMAGES:
            return "builtin"
        entry = self._has_file("images/" + name + ".gif")
        if entry:
            return entry
        if name + ".gif" in BUILTIN_IMAGES:
            return "builtin"
        return None

    def check_images_and_files(self) -> None:
        file_refs = self._file_references()
        if not self.has_archive:
            if self.image_refs or file_refs:
                self.add("images-not-checked", f"a bare buildFile: {len(self.image_refs)} "
                         f"image name(s) and {len(file_refs)} file reference(s) were not checked "
                         "(lint the .vmod or the unpacked folder to check them)",
                         detail={"images": len(self.image_refs), "files": len(file_refs)})
            return
        loose = [self.bf.to_bytes().decode("utf-8", "replace")]
        for name in sorted(self.files):
            if name.lower().endswith(_HTML_FILES):
                data = self.module.read_file(name) or b""
                loose.append(data.decode("utf-8", "replace"))
        for name, element, what in file_refs:
            if what == "predefined setup" and not name:
                self.add("missing-file", "predefined setup uses a file but names none",
                         element)
                continue
            if not name or name.startswith("/"):
                continue
            entry = self._has_file(name)
            if entry is None:
                self.add("missing-file", f"{what} {name!r} is not in the archive", element,
                         detail={"file": name})
            elif what == "predefined setup":
                loose.append(self._check_setup(entry, element))
        used: set[str] = set()
        for name, places in self.image_refs.items():
            entry = self.resolve_image(name)
            if entry is None:
                first_ref, what = places[0]
                more = f" (and {len(places) - 1} more reference(s))" if len(places) > 1 else ""
                self.add("missing-image", f"image {name!r} ({what}) is not in the archive "
                         f"under images/{more}", first_ref,
                         detail={"image": name, "references": len(places)})
            elif entry != "builtin":
                used.add(entry)
        text = "\n".join(loose)
        for entry in sorted(self.files):
            if not entry.startswith("images/") or entry.endswith("/") or entry in used:
                continue
            name = entry[len("images/"):]
            if name in text or (name.endswith(".gif") and name[:-4] and name[:-4] in text):
                continue
            self.add("unused-image", f"{entry} is not used by any component, piece or help "
                     "page", file=self._label(entry), detail={"image": name})

    def _check_setup(self, entry: str, element: etree._Element) -> str:
        """Decode a predefined setup; returns its text (for image references)."""
        from vmodtool.vassal.metadata import ModuleMetadata
        from vmodtool.vassal.savefile import SavedGame
        data = self.module.read_file(entry) or b""
        try:
            saved = SavedGame.from_bytes(data, file=entry)
            text = saved.text
        except UnsafeFileError as err:
            # a bomb is not a finding: reading it further could harm the machine
            raise UnsafeFileError(f"predefined setup: {err.message}", file=self.module.file,
                                  place=", ".join(p for p in (f"entry {entry}", err.place) if p)) from None
        except VmodError as err:
            self.add("unreadable-setup", f"predefined setup {entry!r} cannot be decoded: "
                     f"{err.message}", element)
            return ""
        xml = saved.metadata_xml("moduledata")
        if xml:
            try:
                name = ModuleMetadata.parse(xml).name
            except VmodError:
                name = None
            if name is not None and name.strip() != self.bf.name.strip():
                self.add("setup-module-name-mismatch", f"predefined setup {entry!r} is for "
                         f"module {name!r}, not {self.bf.name!r}", element)
        if re.search(r"[\t/]\\*prototype;", text):
            self.add("setup-unexpanded-prototype", f"predefined setup {entry!r} holds pieces "
                     "with unexpanded prototype; traits", element)
        return text


def _backslash_before_tab(text: str) -> int | None:
    """The 1-based trait whose type ends with a backslash, from the raw
    definition: the TAB below trait k is written with k-1 backslashes in
    front (§3.1.3); one more means the field before it ended with ``\\``."""
    if not text.startswith("+/") or "placemark;" in text or "replace;" in text:
        return None
    parts = decode_sequence(text[2:], "/")
    if len(parts) < 2:
        return None
    type_text = parts[1]
    position = type_text.find("\t")
    level = 0
    while position >= 0:
        count = 0
        while position - count - 1 >= 0 and type_text[position - count - 1] == "\\":
            count += 1
        if count > level:
            return level + 1
        level += 1
        position = type_text.find("\t", position + 1)
    return None


#: trait colour fields (ColorConfigurer.stringToColor)
_TRAIT_COLOURS: dict[str, tuple[str, ...]] = {
    "label;": ("bg_color", "fg_color"), "hide;": ("bg_color",),
    "AreaOfEffect;": ("transparency_color",), "footprint;": ("fill_color", "line_color"),
}


def _state_changer(trait: Trait) -> str | None:
    """A label when the trait has a command that changes the piece's state
    (what a Report Action makes visible in logs), else ``None``."""
    prefix = trait.prefix
    try:
        view = trait.view()
        if prefix in ("emb2;", "emb;"):
            keys = [view.increase_keystroke, view.decrease_keystroke, view.reset_key,
                    view.rnd_key]
            if view.can_be_activated:
                keys.append(view.activate_keystroke)
            return f"layer {view.layer_name!r}" if any(keys) else None
        if prefix == "PROP;":
            return f"property {view.key!r}" if view.key_commands else None
        if prefix == "rotate;":
            return "rotate"
        if prefix == "hide;":
            return "invisible" if view.hide_key is not None else None
        if prefix == "obs;":
            return "mask" if view.key_command is not None else None
        if prefix == "markmoved;":
            return "mark moved" if view.key is not None else None
        if prefix == "label;":
            return "text label" if view.label_key is not None or view.menu_command else None
    except (VmodError, AttributeError, IndexError):
        return None
    return None


# ------------------------------------------------------------------ public API
def lint_module(module: Module) -> list[Finding]:
    """Every finding for an opened module (archive, folder or bare
    buildFile), sorted by file and line."""
    return _Linter(module).run()


def lint_path(path: str) -> list[Finding]:
    """Open ``path`` with :meth:`Module.open` and lint it.  Unreadable input
    raises :class:`~vmodtool.errors.VmodError`."""
    with Module.open(path) as module:
        return lint_module(module)


def image_references(module: Module) -> dict[str, list[str]]:
    """Every image name the module refers to (components, toolbar icons,
    piece traits, prototypes) → what refers to it, in document order."""
    linter = _Linter(module)
    linter.check_elements()
    linter.check_pieces()
    return {name: [what for _, what in places] for name, places in linter.image_refs.items()}
