"""Elementum: the round, the sources, the crystal supply and the pool on the table,
then each seat: crystals, hand and four element columns (cards top to bottom,
crystals as blue diamonds). Every card shows its effect in short and the full text
when the pointer rests on it (``effect``); at the end each card's points and the
seat's total."""

from __future__ import annotations

import re

from ...render import base, svg
from .cards import CARD_TABLE, VIR_DIVES_STEPS, card_index

COLOURS = {"earth": "#3a9a3a", "air": "#f2d21b", "fire": "#d9342b", "water": "#2b6cd9"}
SOFT = {"earth": "#d6ecd2", "air": "#fbf3c4", "fire": "#f6d3cf", "water": "#d3e1f7"}
SEAT = re.compile(r"(p\d+|imitation): (.*)")
COLUMN = re.compile(r"\s+(\w+|\?): (.*)")
LABEL = re.compile(r"(\d+) ([A-Za-z][A-Za-z ]*?)(\**)$")
HEAD_H, CELL_TEXT = 22, 12
# A card in hand or in the pool on its element's colour (the universal cards and the Overload on white).
CARD_COLOURS = {str(c.number): SOFT[c.element] for c in CARD_TABLE if c.element in SOFT}
PHRASES = {"pick": "pick a card from your hand", "column": "choose a column for the card", "swap": "swap a card",
           "no swap": "not swap", "no crystal": "place no crystal", "crystal": "put a crystal on a card",
           "give": "give a card to the pool",
           "take": "take a card from the pool", "add": "add a card from the pool", "copy": "copy an effect",
           "destroy": "destroy a card", "overload": "hand the Overload on", "keep": "keep the Overload",
           "tie-breaker": "take the tie-breaker", "reverse": "reverse the draft"}
STEPS_WORDS = (", " + ", ".join(f"{n} crystals {p}" for n, p in VIR_DIVES_STEPS[::-1])).removeprefix(", ")


def effect(number: int) -> tuple[str, str]:
    """Card ``number``'s effect: in short (drawn on the card) and in full (its tip).

    >>> effect(31)
    ('3: fire beside', 'Propter (water): 3 points with fire on either side of it; reinforced 6.')
    """
    card = CARD_TABLE[card_index(number)]
    x, y, name = card.x, card.y, f"{card.name} ({card.element})" if card.element != "none" else card.name
    short, full = {
        "colligit": (f"1 per {x}", f"1 point per {x} symbol in your layout; reinforced, 2 more per 3 {x} symbols."),
        "collatio": (f"2 per {x}+{y}", f"2 points per pair of {x} and {y} symbols in your layout."),
        "vicinari": (f"5: {x} | {y}", f"5 points with {x} on one side of it and {y} on the other; reinforced 8."),
        "propter": (f"3: {x} beside", f"3 points with {x} on either side of it; reinforced 6."),
        "praestantia": (f"6: most {x}", f"6 points for strictly the most {x} symbols of all players; "
                                        "reinforced 10."),
        "ambientia": ("by cards around", "By the cards around it: 1 or 2 score -1, 3 score 3, 4 score 5; "
                                         "reinforced 1, 6 and 9."),
        "duplex": ("2 symbols", "Counts as 2 symbols of its element; reinforced 4."),
        "lapis vires": ("+1 crystal now", "When placed: take a crystal from the supply."),
        "eversor": ("destroy a card", "When placed: destroy a card of a layout."),
        "vitium": ("all lose a crystal", "When placed: every player gives a crystal back to the supply "
                                         "(Induratus protects its owner from others')."),
        "vir dives": (f"by {x}+{y} count", f"During scoring, by your {x} and {y} symbols together: {STEPS_WORDS}."),
        "commodum": ("half your best", "During scoring: half (rounded down) of your best other card's points."),
        "multus": ("2 per full set", "During scoring: 2 points per set of all four elements' symbols."),
        "qui fieri": ("fills 2 sides", "Reinforced: two virtual sources that fill missing sides of your "
                                       "Propter or Vicinari."),
        "induratus": ("shields you", "Protects you against the other players' effects."),
        "speculum": ("copy an effect", "When placed: copy the immediate effect of a card in a layout or the pool."),
        "rectus": ("6: most full rows", "During scoring: 6 points for the most complete rows."),
        "imitari": ("copy scoring", "During scoring: copy a 'during scoring' card lying in any layout."),
        "acervus": ("crystals 2/7/13", "Up to 3 crystals: 1 scores 2, 2 score 7, 3 score 13."),
        "mutare": ("swap with pool", "When placed: give a card of your layout to the pool and take one from it."),
        "iniquus": ("6: most gaps", "During scoring: 6 points for the most incomplete rows."),
        "bifarius": ("breaks ties", "When placed: keep it as your tie-breaker for majorities."),
        "velocitatis": ("one more card", "After this turn's effects, every player with a card left plays it too."),
        "additicius": ("add from pool", "When placed: add a card from the pool to your layout."),
        "overload": ("-5 points", "Its holder loses 5 points; a crystal hands it to an opponent."),
    }[card.kind]
    return short, f"{name}: {full}"


def _tip(face: str):
    m = LABEL.match(face.strip())
    if not m or not 1 <= int(m.group(1)) <= len(CARD_TABLE):
        return None
    return effect(int(m.group(1)))


def _card_region(line, before, face):
    m = re.match(r"(\d+) ", face or "")
    return f"card:{m.group(1)}" if m else None


def _cell(canvas, x, y, width, element, cell, points) -> float:
    """One card of a column; returns the y below it."""
    m = LABEL.match(cell)
    number, name, crystals = (int(m.group(1)), m.group(2), len(m.group(3))) if m else (0, cell, 0)
    short, full = effect(number) if m else ("", "")
    colour = COLOURS.get(element, "#999999")
    lines = base.wrap(f"{number} {name}" if m else cell, width - 6, CELL_TEXT)
    notes = base.wrap(short, width - 6, CELL_TEXT) if short else []
    extra = []
    if crystals:
        extra.append(("◆" * crystals, "#1d5f8a"))
    if points is not None and number in points:
        extra.append((f"{points[number]:+d} points", "#7a1f1f"))
    height = 6 + 15 * (len(lines) + len(notes) + len(extra))
    since = canvas.mark()
    face = svg.rect(x, y, width, height, SOFT.get(element, "#ffffff"), colour, rx=3)
    if full:
        face = face[:-2] + f"><title>{svg.esc(full)}</title></rect>"
    canvas.add(face, y + height)
    ty = y + 15
    for line in lines:
        canvas.add(svg.text(x + 4, ty, line, size=CELL_TEXT, bold=True, passive=True))
        ty += 15
    for line in notes:
        canvas.add(svg.text(x + 4, ty, line, size=CELL_TEXT, fill="#444444", passive=True))
        ty += 15
    for line, ink in extra:
        canvas.add(svg.text(x + 4, ty, line, size=CELL_TEXT, fill=ink, bold=True, passive=True))
        ty += 15
    canvas.group(since, f"card:{number}" if m else None)
    return y + height + 3


def _columns(canvas, x, y, width, columns, points, mine) -> float:
    each = (width - 4 * 3) / 4
    bottom = y
    for k, (element, cells) in enumerate(columns):
        cx = x + k * (each + 4)
        colour = COLOURS.get(element, "#999999")
        since = canvas.mark()
        canvas.add(svg.rect(cx, y, each, HEAD_H - 4, colour, "none", rx=3), y + HEAD_H)
        canvas.add(svg.text(cx + each / 2, y + 13, element, size=12, anchor="middle", bold=True,
                            fill="#222222" if element in ("air", "?") else "#ffffff"))
        canvas.group(since, f"column:{k + 1}" if mine else None)
        cy = y + HEAD_H
        for cell in cells:
            cy = _cell(canvas, cx, cy, each, element, cell, points)
        bottom = max(bottom, cy)
    return bottom


def _scores(state):
    """Card number -> points and the totals, at the end (the layouts are public then)."""
    if not state.is_terminal():
        return None, None
    from .scorecard import score_state

    card = score_state(state)
    points = {int(c): int(p) for c, p, name in card.cards[["card", "points", "name"]].values if name != "Overload"}
    return points, card.totals


def _table(lines, player) -> list[str]:
    table = []
    for line in lines:
        m = re.match(r"round (\d+) of (\d+)", line)
        if m:
            table.append(f"Round {m.group(1)} of {m.group(2)}")
        elif line.startswith("sources "):
            table.append("Sources, left to right: " + line.removeprefix("sources "))
        elif line.startswith("supply "):
            supply, _, pool = line.partition(", pool ")
            table.append(f"Crystals in the supply: {supply.removeprefix('supply ')}")
            table.append(f"Pool {pool}")
        elif line.startswith("draft "):
            rest = line.removeprefix("draft ").replace("velocitatis this turn", "Velocitatis this turn")
            table.append("Hands pass " + rest.replace("reversed", "the other way"))
        elif line.startswith(("destroyed ", "overload ", "tie-breakers ")):
            said = base.people(line, player)
            table.append(said[0].upper() + said[1:])
    return table


def render(state, player=None, regions=False, *, width=900.0, last=None, debug=False) -> str:
    lines = base.viewer_text(state, player).splitlines()
    points, totals = _scores(state)
    last = last or {}
    canvas = svg.Canvas(width=width, title="Elementum", regions=regions)
    y = base.header(canvas, state, player, "Elementum", PHRASES)
    boxes = [base.Panel("The table", _table(lines, player), wide=True)]
    i = 0
    while i < len(lines):
        m = SEAT.match(lines[i])
        i += 1
        if not m:
            continue
        who, rest = m.groups()
        seat = int(who[1:]) if who != "imitation" else None
        rest = re.sub(r"hand (\d+) cards?", lambda h: f"hand {{backs:{h.group(1)}}}", rest)
        head = base.people(rest, player).replace("crystals ", "Crystals ", 1)
        head = re.sub(r", (hand|picked|placing|declared)", r"\n\1", head)
        columns = []
        while i < len(lines) and COLUMN.match(lines[i]):
            element, cells = COLUMN.match(lines[i]).groups()
            columns.append((element, [] if cells.strip() == "-" else [c.strip() for c in cells.split(",")]))
            i += 1
        score = [] if totals is None or seat is None or seat >= len(totals) else [f"Score: {totals[seat]} points"]

        def draw(canvas, x, y, w, head=head, columns=columns, seat=seat, score=score):
            rows = [r[0].upper() + r[1:] for r in head.split("\n")] + score
            y = base.draw_lines(canvas, rows, {**COLOURS, **CARD_COLOURS}, y, _card_region, x0=x, right=x + w,
                                card_tip=_tip)
            return _columns(canvas, x, y + 4, w, columns, points, seat == player and seat is not None)

        title = base.seat_title(seat, player) if seat is not None else "The imitation"
        boxes.append(base.Panel(title, draw=draw, last=last.get(seat) if seat is not None else None,
                                min_width=420))
    y = base.panels(canvas, boxes, y, {**COLOURS, **CARD_COLOURS}, _card_region, card_tip=_tip)
    return base.finish(canvas, state, player, y, debug)


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the card it names (in hand, the
    pool or a layout), or the viewer's column; "no swap" and "no crystal" have none."""
    m = re.fullmatch(r"column (\d+)", text)
    if m:
        return (f"column:{m.group(1)}",)
    m = re.fullmatch(r"[a-z]+ (\d+)", text)
    return (f"card:{m.group(1)}",) if m else ()
