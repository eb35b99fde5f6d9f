"""Elementos: the board with its pieces (face up, with the back when the viewer knows
it, "?" when it is hidden), the wand, captured pieces and the move count."""

from __future__ import annotations

import re

from ...render import base, svg

COLOURS = {"fire": "#d9342b", "wood": "#3a9a3a", "water": "#2b6cd9"}
OWNER = ("#111111", "#e0e0e0")  # player 0's pieces black-rimmed, player 1's white-rimmed
CELL = 56
PIECE = re.compile(r"(\d+) (\w+)([/(])(\w+|\?)\)?(@?)")


def _grid(lines):
    """(header index, columns' text positions) of the board in the state text."""
    for i, line in enumerate(lines):
        if re.fullmatch(r"\s+a(\s+[b-z])+", line):
            return i, [m.start() for m in re.finditer(r"[a-z]", line)]
    raise ValueError("elementos: no board in the state text")


def _board(canvas, lines, top, y):
    cols = lines[top]
    start, positions = _grid(lines)
    rows = []
    for line in lines[start + 1:]:
        if not re.match(r"\s*\d+\s", line):
            break
        label = line[: positions[0]].strip()
        cells = [line[p: (positions[k + 1] if k + 1 < len(positions) else None)].strip()
                 for k, p in enumerate(positions)]
        rows.append((label, cells))
    x0 = base.LEFT + 24
    names = re.findall(r"[a-z]", cols)
    for k, name in enumerate(names):
        canvas.add(svg.text(x0 + k * CELL + CELL / 2, y + 12, name, anchor="middle", bold=True), y + 14)
    y += 18
    for r, (label, cells) in enumerate(rows):
        cy = y + r * CELL
        canvas.add(svg.text(base.LEFT, cy + CELL / 2 + 4, label, bold=True))
        for k, cell in enumerate(cells):
            cx = x0 + k * CELL
            shade = "#efe6d2" if (r + k) % 2 else "#e2d5b8"
            since = canvas.mark()
            canvas.add(svg.rect(cx, cy, CELL, CELL, shade, "#9c8a62"), cy + CELL, cx + CELL)
            _piece(canvas, cell, cx, cy)
            canvas.group(since, f"sq:{names[k]}{label}")
    y += len(rows) * CELL + 6
    canvas.add(svg.text(base.LEFT, y + 12, "small disc: the piece's back (dashed: known to its owner only; ? hidden)",
                        size=10, fill="#666666"), y + 16)
    return y + 20, start + 1 + len(rows) + 1


def _piece(canvas, cell, cx, cy):
    """The piece in ``cell`` (its text on the board), if any, on the square at ``cx, cy``."""
    m = PIECE.fullmatch(cell)
    if not m:
        return
    owner, up, how, back, wand = int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5)
    mx, my = cx + CELL / 2, cy + CELL / 2
    canvas.add(svg.circle(mx, my + 3, CELL / 2 - 10, COLOURS.get(up, "#999999"), OWNER[owner % 2], width=4))
    canvas.add(svg.text(mx, my + 1, up, size=10, fill="#ffffff", anchor="middle", bold=True))
    if back == "?":
        canvas.add(svg.circle(mx, my + 14, 7, "#bbbbbb", "#555555", dash="2,1"))
        canvas.add(svg.text(mx, my + 18, "?", size=10, anchor="middle", bold=True))
    else:
        dash = "" if how == "/" else "2,1"  # dashed: the back is known to its owner only
        canvas.add(svg.circle(mx, my + 14, 7, COLOURS.get(back, "#999999"), "#ffffff", dash=dash))
    canvas.add(svg.text(cx + 3, cy + 10, f"p{owner}", size=9, fill=INK_OWNER[owner % 2], bold=True))
    if wand:
        canvas.add(svg.text(cx + CELL - 3, cy + 12, "@", size=12, fill="#8a2be2", anchor="end", bold=True))


INK_OWNER = ("#111111", "#555555")


def render(state, player=None, regions=False) -> str:
    lines = base.viewer_text(state, player).splitlines()
    start, _ = _grid(lines)
    canvas = svg.Canvas(title="Elementos", regions=regions)
    y = base.header(canvas, state, player, "Elementos")
    y = base.draw_lines(canvas, lines[:start], COLOURS, y)
    y, after = _board(canvas, lines, start, y)
    rest = [line for line in lines[after:] if not line.startswith("pieces:")]
    base.draw_lines(canvas, rest, COLOURS, y)
    return canvas.svg()


def clicks(text: str) -> tuple[str, ...]:
    """The squares that choose the move ``text``: the piece flipped, or the piece
    moved (or passing the wand) and then the square it goes to."""
    m = re.fullmatch(r"flip ([a-z]\d+)", text)
    if m:
        return (f"sq:{m.group(1)}",)
    m = re.fullmatch(r"(?:move|wand) ([a-z]\d+)[-x]([a-z]\d+)", text)
    return (f"sq:{m.group(1)}", f"sq:{m.group(2)}") if m else ()
