"""Elements (1997): the element row (each slot's card and who won it), the contest
and the draw pile on the table, then each seat: score and hand (backs for others)."""

from __future__ import annotations

import re

from ...render import base, svg

CARD = re.compile(r"(p\d+|pile) (red|yellow|green|blue|white) (\d+)")
COLOURS = {"red": "#d9342b", "yellow": "#f2d21b", "green": "#3a9a3a", "blue": "#2b6cd9", "white": "#f4f4f4"}
PAIRS = re.compile(r"p(\d+) (\d+)")
PHRASES = {"bid": "bid a card", "slot": "choose a slot of the element row", "play": "play a card",
           "pass": "pass", "discard": "discard a card", "keep": "keep your cards"}


def _table(lines, player):
    table = []
    for line in lines:
        if line.startswith("round "):
            m = re.match(r"round (\d+) of (\d+), first player (p\d+), ([^,]*(?:\([^)]*\))?)", line)
            if m:
                first = base.people(m.group(3), player)
                table.append(f"Round {m.group(1)} of {m.group(2)}, {first} {'start' if first == 'you' else 'starts'}"
                             f", {m.group(4)}")
        elif line.startswith("element row from the box"):
            order = line.split(": ", 1)[1]
            table.append("Elements, strongest first: " + ("not drawn yet" if order == "-" else order))
        elif line.startswith("row "):
            table.append("The element row:")
            for slot in line[4:].split(" | "):
                slot = re.sub(r": -$", ": empty", slot)
                table.append("  " + base.people(CARD.sub(r"\1 [\2 \3]", slot), player))
        elif line.startswith("contest ") and ": " in line:
            head, cards = line.split(": ", 1)
            table.append(base.people(head, player).capitalize() + ":")
            table.extend("  " + base.people(part, player) for part in cards.split("; "))
        elif re.match(r"draw pile \d+$", line):
            table.append(line.capitalize())
        elif line.startswith("setup:") or "waiting for a slot" in line:
            table.append(line.replace("own bid", "your bid").capitalize())
    return table


def _panels(state, player, last):
    lines = base.viewer_text(state, player).splitlines()
    fields = {line.split(" [")[0]: line for line in lines if " [" in line}
    scores = dict(PAIRS.findall(next((line for line in lines if line.startswith("scores ")), "")))
    sizes = dict(PAIRS.findall(next((line for line in lines if line.startswith("hand sizes ")), "")))
    boxes = [base.Panel("The table", _table(lines, player), wide=True)]
    for p in range(state.get_game().num_players()):
        seat = [f"Score {scores.get(str(p), 0)}"]
        if p == player:
            seat.append("Your hand " + fields.get("own hand", "own hand [-]").removeprefix("own hand "))
        elif f"hand p{p}" in fields:
            seat.append("Hand " + fields[f"hand p{p}"].removeprefix(f"hand p{p} "))
        else:
            seat.append(f"Hand {{backs:{sizes.get(str(p), 0)}}}")
        boxes.append(base.Panel(base.seat_title(p, player), seat, last=last.get(p)))
    if player is None and "draw pile" in fields:
        boxes.append(base.Panel("The draw pile", [fields["draw pile"]], wide=True))
    return boxes


def _card_region(line, before, face):
    return f"hand:{face}" if before.startswith("Your hand") and face else None


def _line_region(line):
    m = re.match(r"  (\d+) \w+:", line)
    return f"slot:{m.group(1)}" if m else None


def render(state, player=None, regions=False, *, width=900.0, last=None, debug=False) -> str:
    canvas = svg.Canvas(width=width, title="Elements (1997)", regions=regions)
    y = base.header(canvas, state, player, "Elements (1997)", PHRASES)
    y = base.panels(canvas, _panels(state, player, last or {}), y, COLOURS, _card_region, _line_region)
    return base.finish(canvas, state, player, y, debug)


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the hand card bid, played or
    discarded, the slot of the element row; keep and pass have none."""
    m = re.fullmatch(r"(?:bid|play|discard) (\w+ \d+)", text)
    if m:
        return (f"hand:{m.group(1)}",)
    m = re.fullmatch(r"slot (\d+)", text)
    return (f"slot:{m.group(1)}",) if m else ()
