"""Elementum: each player's four element columns (cards top to bottom, crystals as
blue diamonds), crystals and hand, the pool and supply; the score card at the end."""

from __future__ import annotations

import re

from ...render import base, svg

COLOURS = {"earth": "#3a9a3a", "air": "#f2d21b", "fire": "#d9342b", "water": "#2b6cd9"}
SOFT = {"earth": "#d6ecd2", "air": "#fbf3c4", "fire": "#f6d3cf", "water": "#d3e1f7"}
COL_W, ROW_H = 112, 24
SEAT = re.compile(r"p(\d+): (.*)")
COLUMN = re.compile(r"\s+(\w+): (.*)")


def _prepare(line: str) -> str:
    m = re.match(r"(.*hand )(\d+) cards?(.*)", line)
    return f"{m.group(1)}{{backs:{m.group(2)}}}{m.group(3)}" if m else line


def _card_region(line, before, face):
    m = re.match(r"(\d+) ", face or "")
    return f"card:{m.group(1)}" if m else None


def _column(canvas, x, y, element, cells, points, region=None) -> float:
    colour = COLOURS.get(element, "#999999")
    since = canvas.mark()
    canvas.add(svg.rect(x, y, COL_W - 6, 18, colour, "none", rx=3), y + 18, x + COL_W)
    canvas.add(svg.text(x + (COL_W - 6) / 2, y + 13, element, size=11, anchor="middle", bold=True,
                        fill="#222222" if element == "air" else "#ffffff"))
    canvas.group(since, region)
    y += 20
    for cell in cells:
        label = cell.rstrip("*")
        crystals = len(cell) - len(label)
        since = canvas.mark()
        canvas.add(svg.rect(x, y, COL_W - 6, ROW_H - 2, SOFT.get(element, "#ffffff"), colour, rx=3), y + ROW_H)
        canvas.add(svg.text(x + 4, y + 15, label, size=10))
        for i in range(crystals):
            cx, cy = x + COL_W - 14 - 9 * i, y + 11
            canvas.add(f'<polygon points="{cx:g},{cy - 5:g} {cx + 4:g},{cy:g} {cx:g},{cy + 5:g} {cx - 4:g},{cy:g}" '
                       f'fill="#5fb8f0" stroke="#1d5f8a"/>')
        number = label.split(" ", 1)[0]
        if points is not None and number.isdigit() and int(number) in points:
            canvas.add(svg.text(x + COL_W - 10 - 9 * crystals, y + 15, f"{points[int(number)]:+d}",
                                size=8, fill="#7a1f1f", anchor="end", bold=True))
        canvas.group(since, f"card:{number}" if number.isdigit() else None)
        y += ROW_H
    return y


def _scores(state):
    """Card number -> points and the totals, at the end (the layouts are public then)."""
    if not state.is_terminal():
        return None, None
    from .scorecard import score_state

    card = score_state(state)
    points = {int(c): int(p) for c, p, name in card.cards[["card", "points", "name"]].values if name != "Overload"}
    return points, card.totals


def render(state, player=None, regions=False) -> str:
    lines = [_prepare(line) for line in base.viewer_text(state, player).splitlines()]
    points, totals = _scores(state)
    canvas = svg.Canvas(title="Elementum", regions=regions)
    y = base.header(canvas, state, player, "Elementum")
    i = 0
    while i < len(lines):
        if not SEAT.match(lines[i]):
            y = base.draw_lines(canvas, [lines[i]], COLOURS, y, _card_region)
            i += 1
            continue
        seat = int(SEAT.match(lines[i]).group(1))
        y = base.draw_lines(canvas, [lines[i]], COLOURS, y + 6, _card_region)
        i += 1
        bottom = y
        k = 0
        while i < len(lines) and COLUMN.match(lines[i]):
            element, rest = COLUMN.match(lines[i]).groups()
            cells = [] if rest.strip() == "-" else [c.strip() for c in rest.split(",")]
            # Only the viewer's own columns: a card waiting for a column goes into one of theirs.
            column = f"column:{k + 1}" if seat == player else None
            bottom = max(bottom, _column(canvas, base.LEFT + 20 + k * COL_W, y, element, cells, points, column))
            k += 1
            i += 1
        y = bottom + 4
        if totals is not None and seat < len(totals):
            note = f"score card of the final layout: p{seat} {totals[seat]} points (each card's points in red)"
            canvas.add(svg.text(base.LEFT + 20, y + 12, note, size=11, bold=True, fill="#7a1f1f"), y + 16)
            y += 18
    return canvas.svg()


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the card it names (in hand, the
    pool or a layout), or the viewer's column; "no swap" and "no crystal" have none."""
    m = re.fullmatch(r"column (\d+)", text)
    if m:
        return (f"column:{m.group(1)}",)
    m = re.fullmatch(r"[a-z]+ (\d+)", text)
    return (f"card:{m.group(1)}",) if m else ()
