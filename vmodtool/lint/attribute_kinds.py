"""Which attribute of which VASSAL component is an integer, double, boolean,
colour or key stroke: VASSAL 3.7.26's own ``setAttribute`` methods as data
(:data:`ATTRIBUTE_KINDS`), for the attribute check of
:mod:`vmodtool.lint.attributes`."""

from __future__ import annotations

__all__ = ["ATTRIBUTE_KINDS", "LAUNCH_KEYS"]


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
LAUNCH_KEYS = ("hotkey", "buttonKeyStroke")
