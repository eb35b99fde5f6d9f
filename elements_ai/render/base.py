"""What every game's picture shares: the header (game, whose turn, the result) and a
line layout that draws the kernel's own state text with element words in colour,
``[...]`` lists as cards and ``{backs:N}`` as N card backs."""

from __future__ import annotations

import re
from collections.abc import Callable

from . import svg
from .words import result_words

CardRegion = Callable[[str, str, "str | None"], "str | None"]
LineRegion = Callable[[str], "str | None"]

LEFT = 10
LINE = 18
MAX_W = 900
BACKS = re.compile(r"\{backs:(\d+)\}")
# Light element colours get a darker ink for words on the page.
TEXT_INK = {"#f2d21b": "#a08700", "#f4f4f4": "#8a8a8a"}
TOKENS = re.compile(r"(\[[^\]]*\]|\{backs:\d+\})")


def viewer_text(state, player: int | None) -> str:
    """The state's text as ``player`` sees it (their observation string), or all of it."""
    if player is None:
        return str(state)
    num = state.get_game().num_players()
    if not 0 <= player < num:
        raise ValueError(f"render: player {player} is out of range 0..{num - 1}")
    return state.observation_string(player)


def header(canvas: svg.Canvas, state, player: int | None, title: str) -> float:
    """Draws the game's name, whose view it is, whose turn and the result; returns the next y."""
    view = "everything (no player's view)" if player is None else f"player {player}'s view"
    canvas.add(svg.text(LEFT, 20, f"{title}", size=15, bold=True), 24)
    canvas.add(svg.text(LEFT, 38, view, size=11, fill="#666666"), 40)
    if state.is_terminal():
        result = "game over: " + result_words(state, player)
        canvas.add(svg.rect(LEFT - 4, 46, svg.text_width(result, 13) + 8, 22, "#fff2a8", "#b59b00", rx=4), 70)
        canvas.add(svg.text(LEFT, 62, result, size=13, bold=True), 70)
    elif state.is_chance_node():
        canvas.add(svg.text(LEFT, 62, "to move: chance", size=13, bold=True), 70)
    else:
        p = state.current_player()
        mark = " (you)" if player == p else ""
        canvas.add(svg.rect(LEFT - 4, 46, svg.text_width(f"to move: player {p}{mark}", 13) + 8, 22,
                            "#dff0d8", "#3c763d", rx=4), 70)
        canvas.add(svg.text(LEFT, 62, f"to move: player {p}{mark}", size=13, bold=True), 70)
    return 84


def colour_of(label: str, colours: dict[str, str]) -> str | None:
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


def _words(canvas, x, y, segment, colours) -> float:
    for word in re.split(r"(\s+)", segment):
        if not word:
            continue
        colour = colour_of(word, colours)
        if colour is not None and re.fullmatch(r"[A-Za-z]+[,:;]?", word):
            canvas.add(svg.text(x, y, word, fill=TEXT_INK.get(colour, colour), bold=True), y + 4)
        elif word.strip():
            canvas.add(svg.text(x, y, word), y + 4)
        x += svg.text_width(word)
    return x


def _wrapped(lines: list[str], width: int = 120) -> list[str]:
    """Long lines of plain text (a history) split at spaces into lines of ``width``."""
    out = []
    for line in lines:
        while len(line) > width and not TOKENS.search(line) and " " in line[:width]:
            cut = line.rindex(" ", 0, width)
            out.append(line[:cut])
            line = "    " + line[cut + 1:]
        out.append(line)
    return out


def draw_lines(canvas: svg.Canvas, lines: list[str], colours: dict[str, str], y: float,
               card_region: CardRegion | None = None, line_region: LineRegion | None = None) -> float:
    """Draws ``lines`` from ``y`` down; returns the next y.

    On a canvas with regions, ``card_region(line, before, face)`` names the region
    of a card (``before``: the line's text left of its ``[...]``; ``face``: ``None``
    for a back) and ``line_region(line)`` that of a whole line; ``None``: no region.
    """
    card_w, card_h = svg.CARD_W, svg.CARD_H
    for line in _wrapped(lines):
        if not line.strip():
            y += LINE / 2
            continue
        since, top = canvas.mark(), y
        before = ""
        x = right = LEFT
        indent = LEFT + svg.text_width(line) - svg.text_width(line.lstrip())
        has_cards = any(BACKS.fullmatch(t) or (t.startswith("[") and _items(t[1:-1])) for t in TOKENS.split(line))
        base = y + (card_h / 2 + 4 if has_cards else 13)
        row_h = LINE
        for segment in TOKENS.split(line):
            if not segment:
                continue
            left, before = before, before + segment
            backs = BACKS.fullmatch(segment)
            if segment.startswith("[") or backs:
                faces = [] if backs else _items(segment[1:-1])
                count = int(backs.group(1)) if backs else len(faces)
                if count == 0:
                    x = _words(canvas, x, base, "-" if not backs else "none", colours) + svg.CHAR
                    continue
                for i in range(count):
                    if x + card_w > MAX_W:
                        right = max(right, x)
                        x = indent + 20
                        y += card_h + 4
                        base = y + 13
                    cy = y
                    face = None if backs else faces[i]
                    name = card_region(line, left, face) if card_region and canvas.regions else None
                    if backs:
                        canvas.add(canvas.region(name, svg.card_back(x, cy)), cy + card_h)
                    else:
                        canvas.add(canvas.region(name, svg.card(x, cy, faces[i], colour_of(faces[i], colours)
                                                                or "#ffffff")), cy + card_h)
                    x += card_w + 4
                row_h = max(row_h, card_h + 4)
                base = y + card_h / 2 + 4
            else:
                x = _words(canvas, x, base, segment, colours)
        if line_region and canvas.regions:
            right = max(right, x)
            canvas.group(since, line_region(line), (LEFT - 4, top, right - LEFT + 8, y + row_h - top))
        y += row_h
    return y


def picture(state, player, title, lines, colours, extra=None, regions=False, card_region=None,
            line_region=None) -> str:
    canvas = svg.Canvas(title=title, regions=regions)
    y = header(canvas, state, player, title)
    if extra is not None:
        y = extra(canvas, y)
    draw_lines(canvas, lines, colours, y, card_region, line_region)
    return canvas.svg()
