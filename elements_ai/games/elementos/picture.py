"""Elementos: the board with its pieces (face up, with the back when the viewer knows
it, "?" when it is hidden), the wand, and beside it the pieces captured and the
moves played."""

from __future__ import annotations

import re

from ...render import base, svg

COLOURS = {"fire": "#d9342b", "wood": "#3a9a3a", "water": "#2b6cd9"}
OWNER = ("#111111", "#e0e0e0")  # player 0's pieces black-rimmed, player 1's white-rimmed
INK_OWNER = ("#111111", "#555555")
CELL = 64
PIECE = re.compile(r"(\d+) (\w+)([/(])(\w+|\?)\)?(@?)")
PHRASES = {"place": "place a piece", "flip": "flip a piece", "move": "move a piece",
           "wand": "pass the wand with a move"}


def _grid(lines):
    """(header index, columns' text positions) of the board in the state text."""
    for i, line in enumerate(lines):
        if re.fullmatch(r"\s+a(\s+[b-z])+", line):
            return i, [m.start() for m in re.finditer(r"[a-z]", line)]
    raise ValueError("elementos: no board in the state text")


def _rows(lines):
    start, positions = _grid(lines)
    rows = []
    for line in lines[start + 1:]:
        if not re.match(r"\s*\d+\s", line):
            break
        label = line[: positions[0]].strip()
        cells = [line[p: (positions[k + 1] if k + 1 < len(positions) else None)].strip()
                 for k, p in enumerate(positions)]
        rows.append((label, cells))
    return re.findall(r"[a-z]", lines[start]), rows, start + 1 + len(rows) + 1


def _board(canvas, names, rows, x, y, player):
    x0 = x + 22
    for k, name in enumerate(names):
        canvas.add(svg.text(x0 + k * CELL + CELL / 2, y + 14, name, size=13, anchor="middle", bold=True), y + 18)
    y += 20
    for r, (label, cells) in enumerate(rows):
        cy = y + r * CELL
        canvas.add(svg.text(x, cy + CELL / 2 + 5, label, size=13, bold=True))
        for k, cell in enumerate(cells):
            cx = x0 + k * CELL
            shade = "#efe6d2" if (r + k) % 2 else "#e2d5b8"
            since = canvas.mark()
            canvas.add(svg.rect(cx, cy, CELL, CELL, shade, "#9c8a62"), cy + CELL, cx + CELL)
            _piece(canvas, cell, cx, cy, player)
            canvas.group(since, f"sq:{names[k]}{label}")
    return y + len(rows) * CELL + 6


def _piece(canvas, cell, cx, cy, player):
    """The piece in ``cell`` (its text on the board), if any, on the square at ``cx, cy``."""
    m = PIECE.fullmatch(cell)
    if not m:
        return
    owner, up, how, back, wand = int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5)
    mx = cx + CELL / 2
    canvas.add(svg.circle(mx, cy + 32, 21, COLOURS.get(up, "#999999"), OWNER[owner % 2], width=4))
    canvas.add(svg.text(mx, cy + 36, up, size=12, fill="#ffffff", anchor="middle", bold=True))
    if back == "?":
        canvas.add(svg.circle(mx, cy + 53, 8, "#bbbbbb", "#555555", dash="2,1"))
        canvas.add(svg.text(mx, cy + 57, "?", size=12, anchor="middle", bold=True))
    else:
        dash = "" if how == "/" else "2,1"  # dashed: the back is known to its owner only
        canvas.add(svg.circle(mx, cy + 53, 8, COLOURS.get(back, "#999999"), "#ffffff", dash=dash))
    mark = "you" if owner == player else f"P{owner}"
    canvas.add(svg.text(cx + 3, cy + 13, mark, size=12, fill=INK_OWNER[owner % 2], bold=True))
    if wand:
        canvas.add(svg.text(cx + CELL - 3, cy + 13, "@", size=13, fill="#8a2be2", anchor="end", bold=True))


def _info(lines, player):
    info = []
    for line in lines:
        m = re.search(r"moves played (\d+) of (\d+)", line)
        if m:
            info.append(f"Moves played: {m.group(1)} of {m.group(2)} (then a draw)")
        m = re.match(r"setup: (\d+) of (\d+) pieces placed", line)
        if m:
            info.append(f"Setting up: {m.group(1)} of {m.group(2)} pieces placed")
        if line.startswith("captured: "):
            info.append("Captured:")
            info += ["  " + base.people(part, player) for part in line.removeprefix("captured: ").split("; ")]
        elif line.startswith("flips barred by equilibrium: "):
            info.append("Flips barred by equilibrium: " + line.split(": ", 1)[1])
        elif line.startswith("kind drawn for the next piece"):
            info.append(line.capitalize())
    info += ["", "Each piece: its face up in the big disc, its back in the small one (dashed: known to its "
                 "owner only; ?: hidden). @: the wand. Black rim: Player 0, white rim: Player 1."]
    return info


def render(state, player=None, regions=False, *, width=900.0, last=None, debug=False) -> str:
    lines = base.viewer_text(state, player).splitlines()
    names, rows, after = _rows(lines)
    last = last or {}
    canvas = svg.Canvas(width=width, title="Elementos", regions=regions)
    y = base.header(canvas, state, player, "Elementos", PHRASES)
    board_width = 22 + CELL * len(names)

    def board(canvas, x, y, w):
        return _board(canvas, names, rows, x + max(0.0, (w - board_width) / 2), y, player)

    boxes = [base.Panel("The board", draw=board, min_width=board_width + 2 * base.PAD),
             base.Panel("Beside the board", _info(lines[after:], player), min_width=300)]
    boxes += [base.Panel(base.seat_title(p, player), last=move) for p, move in sorted(last.items())]
    y = base.panels(canvas, boxes, y, COLOURS)
    return base.finish(canvas, state, player, y, debug)


def clicks(text: str) -> tuple[str, ...]:
    """The squares that choose the move ``text``: the piece flipped, or the piece
    moved (or passing the wand) and then the square it goes to."""
    m = re.fullmatch(r"flip ([a-z]\d+)", text)
    if m:
        return (f"sq:{m.group(1)}",)
    m = re.fullmatch(r"(?:move|wand) ([a-z]\d+)[-x]([a-z]\d+)", text)
    return (f"sq:{m.group(1)}", f"sq:{m.group(2)}") if m else ()
