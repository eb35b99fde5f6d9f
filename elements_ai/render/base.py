"""What every game's picture shares: the header (the game, whose turn it is and what
they may do, or the result, in words), panels laid out over the picture's width
(the table, then one per seat: side by side on a wide picture, one under the other
on a narrow one), and a line layout that draws text with element words in colour,
``[...]`` lists as cards and ``{backs:N}`` as N card backs, wrapping at the panel's
edge. The engine's own lines (observer, step counters) are the debug view's alone.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping

from . import svg
from .words import result_words

CardRegion = Callable[[str, str, "str | None"], "str | None"]
LineRegion = Callable[[str], "str | None"]
CardTip = Callable[[str], "tuple[str, str] | None"]  # a face -> (a short note, the full text)

LEFT = 10
SIZE = 13  # body text
LINE = 20  # a line of text
GAP = 12  # between panels
PAD = 8  # inside a panel
PANEL_MIN = 400  # a panel narrower than this goes under the one before it
MIN_WIDTH = 320  # the narrowest picture (a phone's screen)
BACKS = re.compile(r"\{backs:(\d+)\}")
# Light element colours get a darker ink for words on the page.
TEXT_INK = {"#f2d21b": "#a08700", "#f4f4f4": "#8a8a8a"}
TOKENS = re.compile(r"(\[[^\]]*\]|\{backs:\d+\})")
SEAT = re.compile(r"\bp(\d+)\b")
LAST = ("#fff2a8", "#b59b00")  # the fill and rim of a seat's last move
TAP = 40  # the least height of a thing chosen by a tap (CSS pixels at the picture's own size)


def viewer_text(state, player: int | None) -> str:
    """The state's text as ``player`` sees it (their observation string), or all of it."""
    if player is None:
        return str(state)
    num = state.get_game().num_players()
    if not 0 <= player < num:
        raise ValueError(f"render: player {player} is out of range 0..{num - 1}")
    return state.observation_string(player)


def people(text: str, viewer: int | None) -> str:
    """``p1`` in the engine's text said as a player says it: ``you`` or ``Player 1``.

    >>> people("p0 attacks, p1 to defend", 0)
    'you attack, Player 1 to defend'
    """
    said = SEAT.sub(lambda m: "you" if viewer is not None and int(m.group(1)) == viewer else f"Player {m.group(1)}",
                    text)
    # The engine speaks of a third person; "you" takes the verb without its s.
    said = re.sub(r"\byou (has|is)\b", lambda m: "you " + {"has": "have", "is": "are"}[m.group(1)], said)
    return re.sub(r"\byou (attack|win|tie|start|score|hide|show|defend|lose|take|play)s\b", r"you \1", said)


def seat_title(seat: int, viewer: int | None) -> str:
    return f"You (Player {seat})" if seat == viewer else f"Player {seat}"


def move_kinds(state, player: int, phrases: Mapping[str, str]) -> str:
    """What ``player`` may do at ``state`` in words: the first word of each legal move,
    said by ``phrases`` (``{"play": "play a card"}``), in the order the moves come."""
    kinds: list[str] = []
    for action in state.legal_actions():
        words = state.action_to_string(player, action).split()
        first = words[0] if words else ""
        said = phrases.get(" ".join(words[:2]), phrases.get(first, first))
        if said and said not in kinds:
            kinds.append(said)
    if len(kinds) > 1:
        return ", ".join(kinds[:-1]) + " or " + kinds[-1]
    return kinds[0] if kinds else ""


def turn_words(state, player: int | None, phrases: Mapping[str, str] | None = None) -> str:
    """Whose turn it is and what they may do, or the result, in words."""
    if state.is_terminal():
        return "Game over: " + result_words(state, player)
    if state.is_chance_node():
        return "Chance is dealing"
    mover = state.current_player()
    what = move_kinds(state, mover, phrases or {})
    if mover == player:
        return f"Your turn: {what}" if what else "Your turn"
    if player is None:
        return f"Player {mover} to move: {what}" if what else f"Player {mover} to move"
    return f"Player {mover} to move"


def wrap(text: str, width: float, size: float = SIZE) -> list[str]:
    """``text`` split at spaces into lines no wider than ``width`` at ``size``."""
    per_line = max(8, int(width // (svg.CHAR * size / 12)))
    out: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            while len(word) > per_line:  # a word longer than a line is cut
                if line:
                    out.append(line)
                    line = ""
                out.append(word[:per_line])
                word = word[per_line:]
            if line and len(line) + 1 + len(word) > per_line:
                out.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        out.append(line)
    return out


def header(canvas: svg.Canvas, state, player: int | None, title: str,
           phrases: Mapping[str, str] | None = None) -> float:
    """Draws the game's name, whose view it is, and whose turn it is (what they may do)
    or the result, in a banner across the picture; returns the next y."""
    right = canvas.page - LEFT
    canvas.add(svg.text(LEFT, 24, title, size=18, bold=True), 30)
    view = "everything (no player's view)" if player is None else f"you are Player {player}"
    canvas.add(svg.text(LEFT, 44, view, size=12, fill="#555555"), 48)
    words = turn_words(state, player, phrases)
    lines = wrap(words, right - LEFT - 16, 14)
    fill, rim = (("#fff2a8", "#b59b00") if state.is_terminal() else
                 ("#dff0d8", "#3c763d") if state.current_player() == player else ("#eef1f6", "#8a94a6"))
    height = 10 + 20 * len(lines)
    canvas.add(svg.rect(LEFT - 4, 54, right - LEFT + 8, height, fill, rim, rx=5), 54 + height)
    for i, line in enumerate(lines):
        canvas.add(svg.text(LEFT + 4, 74 + 20 * i, line, size=14, bold=True), 78 + 20 * i)
    return 54 + height + 12


def colour_of(label: str, colours: Mapping[str, str]) -> str | None:
    for word in re.findall(r"[A-Za-z]+|\d+", label.lower()):
        if word in colours:
            return colours[word]
    return None


def _items(inside: str) -> list[str]:
    inside = inside.strip()
    if inside in ("", "-"):
        return []
    if "," in inside:
        return [item.strip() for item in inside.split(",")]
    if all(re.fullmatch(r"-?\d+", item) for item in inside.split()):
        return inside.split()
    return [inside]


@dataclasses.dataclass
class _Box:
    kind: str  # "word", "card" or "back"
    text: str
    width: float
    height: float
    before: str = ""  # the line's text left of the card's list
    note: str = ""
    tip: str = ""


def _boxes(line: str, card_tip: CardTip | None) -> list[_Box]:
    boxes: list[_Box] = []
    before = ""
    for segment in TOKENS.split(line):
        if not segment:
            continue
        left, before = before, before + segment
        backs = BACKS.fullmatch(segment)
        if backs or segment.startswith("["):
            faces = [] if backs else _items(segment[1:-1])
            count = int(backs.group(1)) if backs else len(faces)
            if count == 0:
                boxes.append(_Box("word", "none" if backs else "-", svg.text_width("none", SIZE), LINE))
                continue
            for i in range(count):
                if backs:
                    boxes.append(_Box("back", "", svg.CARD_W, svg.CARD_H, left))
                    continue
                note, tip = (card_tip(faces[i]) if card_tip else None) or ("", "")
                boxes.append(_Box("card", faces[i], svg.card_width(faces[i], note),
                                  svg.card_height(faces[i], note), left, note, tip))
        else:
            for word in segment.split():
                boxes.append(_Box("word", word, svg.text_width(word, SIZE), LINE))
    return boxes


def draw_lines(canvas: svg.Canvas, lines: list[str], colours: Mapping[str, str], y: float,
               card_region: CardRegion | None = None, line_region: LineRegion | None = None,
               x0: float = LEFT, right: float | None = None, card_tip: CardTip | None = None,
               highlight: Callable[[str], bool] | None = None) -> float:
    """Draws ``lines`` from ``y`` down between ``x0`` and ``right`` (the picture's edge),
    wrapping words and cards; returns the next y.

    On a canvas with regions, ``card_region(line, before, face)`` names the region
    of a card (``before``: the line's text left of its ``[...]``; ``face``: ``None``
    for a back) and ``line_region(line)`` that of a whole line; ``None``: no region.
    ``card_tip(face)``: a short note drawn on a card and the full text of its tip.
    ``highlight(line)``: the line is marked (a seat's last move).
    """
    right = canvas.page - LEFT if right is None else right
    space = svg.text_width(" ", SIZE)
    for line in lines:
        if not line.strip():
            y += LINE / 2
            continue
        indent = svg.text_width(line, SIZE) - svg.text_width(line.lstrip(), SIZE)
        rows: list[list[tuple[float, _Box]]] = [[]]
        x = x0 + indent
        for box in _boxes(line, card_tip):
            if rows[-1] and x + box.width > right:
                rows.append([])
                x = x0 + indent + 2 * space
            rows[-1].append((x, box))
            x += box.width + (space if box.kind == "word" else 4)
        since, top = canvas.mark(), y
        # A line chosen by a tap is a finger's height at least (with or without regions: the same layout).
        tall = line_region is not None and line_region(line) is not None
        if highlight is not None and highlight(line):
            height = sum(max(b.height for _, b in row) + 2 for row in rows)
            width = max(px + b.width for row in rows for px, b in row) - x0
            canvas.add(svg.rect(x0 - 3, y - 1, width + 6, height + 2, *LAST, rx=4))
        for row in rows:
            height = max([box.height for _, box in row] + [TAP if tall else 0])
            base = y + height / 2 + 5
            for px, box in row:
                if box.kind == "word":
                    colour = colour_of(box.text, colours)
                    if colour is not None and re.fullmatch(r"[A-Za-z]+[,:;]?", box.text):
                        canvas.add(svg.text(px, base, box.text, size=SIZE, fill=TEXT_INK.get(colour, colour),
                                            bold=True), base + 4)
                    else:
                        canvas.add(svg.text(px, base, box.text, size=SIZE), base + 4)
                    continue
                cy = y + (height - box.height) / 2
                face = box.text if box.kind == "card" else None
                name = card_region(line, box.before, face) if card_region and canvas.regions else None
                if box.kind == "back":
                    shape = svg.card_back(px, cy)
                else:
                    shape = svg.card(px, cy, box.text, colour_of(box.text, colours) or "#ffffff",
                                     tip=box.tip or None, note=box.note)
                canvas.add(canvas.region(name, shape), cy + box.height)
            y += height + 2
        if line_region and canvas.regions:
            width = max(px + b.width for row in rows for px, b in row) - x0
            canvas.group(since, line_region(line), (x0 - 4, top, width + 8, y - top))
    return y


@dataclasses.dataclass
class Panel:
    """A part of the picture: a titled box holding ``lines`` (drawn by ``draw_lines``)
    or whatever ``draw(canvas, x, y, width)`` draws (returning the y below it).
    ``last``: the seat's last move, drawn first and marked. ``wide``: the whole width."""

    title: str
    lines: list[str] = dataclasses.field(default_factory=list)
    draw: Callable[[svg.Canvas, float, float, float], float] | None = None
    last: str | None = None
    wide: bool = False
    min_width: float = PANEL_MIN


def panels(canvas: svg.Canvas, boxes: list[Panel], y: float, colours: Mapping[str, str],
           card_region: CardRegion | None = None, line_region: LineRegion | None = None,
           card_tip: CardTip | None = None) -> float:
    """Lays ``boxes`` out from ``y`` over the picture's width: as many side by side as
    fit ``min_width``, the rest under them; returns the next y."""
    width = canvas.page - 2 * LEFT
    row: list[tuple[Panel, float]] = []

    def flush(y: float) -> float:
        if not row:
            return y
        count = len(row)
        each = (width - GAP * (count - 1)) / count
        bottom = y
        for k, (panel, _) in enumerate(row):
            x = LEFT + k * (each + GAP)
            bottom = max(bottom, _panel(canvas, panel, x, y, each, colours, card_region, line_region, card_tip))
        row.clear()
        return bottom + GAP

    for panel in boxes:
        fits = (len(row) + 1) * panel.min_width + GAP * len(row) <= width
        if panel.wide or not fits or any(p.wide for p, _ in row):
            y = flush(y)
        row.append((panel, panel.min_width))
        if panel.wide:
            y = flush(y)
    return flush(y)


def _panel(canvas, panel: Panel, x, y, width, colours, card_region, line_region, card_tip) -> float:
    since = canvas.mark()
    inner = x + PAD
    top = y
    title = wrap(panel.title, width - 2 * PAD, 14)
    for line in title:
        canvas.add(svg.text(inner, y + 20, line, size=14, bold=True), y + 24)
        y += 20
    y += 8
    if panel.last:
        y = draw_lines(canvas, [f"last move: {panel.last}"], colours, y, x0=inner, right=x + width - PAD,
                       highlight=lambda line: True) + 4
    if panel.draw is not None:
        y = panel.draw(canvas, inner, y, width - 2 * PAD)
    else:
        y = draw_lines(canvas, panel.lines, colours, y, card_region, line_region, inner, x + width - PAD, card_tip)
    y += PAD
    frame = svg.rect(x, top, width, y - top, "#ffffff", "#cfc8b6", rx=6)
    canvas.parts.insert(since, frame)
    canvas.height = max(canvas.height, y)
    return y


def debug_lines(canvas: svg.Canvas, state, player: int | None, y: float) -> float:
    """The engine's own text for the viewer (observer, step counters...), small and grey,
    under the picture: what the debug view adds."""
    canvas.add(svg.text(LEFT, y + 16, "the engine's text", size=12, bold=True, fill="#777777"), y + 20)
    y += 24
    for raw in viewer_text(state, player).splitlines():
        for line in wrap(raw, canvas.page - 2 * LEFT, 12):
            canvas.add(svg.text(LEFT, y + 13, line, size=12, fill="#777777"), y + 17)
            y += 16
    return y


def finish(canvas: svg.Canvas, state, player: int | None, y: float, debug: bool) -> str:
    if debug:
        debug_lines(canvas, state, player, y)
    return canvas.svg()
