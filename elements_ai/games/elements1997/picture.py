"""Elements (1997): the element row, hands, the draw pile, rows on the table and scores."""

from __future__ import annotations

import re

from ...render import base

CARD = re.compile(r"(p\d+|pile) (red|yellow|green|blue|white) (\d+)")
COLOURS = {"red": "#d9342b", "yellow": "#f2d21b", "green": "#3a9a3a", "blue": "#2b6cd9", "white": "#f4f4f4"}


def lines_of(state, player):
    out = []
    for line in base.viewer_text(state, player).splitlines():
        m = re.match(r"hand sizes (.*)", line)
        if line.startswith("row "):
            # One line per slot of the element row, its card drawn.
            out.append("element row:")
            for slot in line[4:].split(" | "):
                out.append("  " + CARD.sub(r"\1 [\2 \3]", slot))
            continue
        if line.startswith("contest ") and ": " in line:
            head, cards = line.split(": ", 1)
            out.append(head + ":")
            out.extend("  " + part for part in cards.split("; "))
            continue
        out.append(line)
        if m and player is not None:
            for seat, n in re.findall(r"p(\d+) (\d+)", m.group(1)):
                if int(seat) != player and int(n):
                    out.append(f"hand p{seat} {{backs:{n}}}")
    return out


def _card_region(line, before, face):
    return f"hand:{face}" if before.startswith("own hand") and face else None


def _line_region(line):
    m = re.match(r"  (\d+) \w+:", line)
    return f"slot:{m.group(1)}" if m else None


def render(state, player=None, regions=False) -> str:
    return base.picture(state, player, "Elements (1997)", lines_of(state, player), COLOURS, regions=regions,
                        card_region=_card_region, line_region=_line_region)


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the hand card bid, played or
    discarded, the slot of the element row; keep and pass have none."""
    m = re.fullmatch(r"(?:bid|play|discard) (\w+ \d+)", text)
    if m:
        return (f"hand:{m.group(1)}",)
    m = re.fullmatch(r"slot (\d+)", text)
    return (f"slot:{m.group(1)}",) if m else ()
