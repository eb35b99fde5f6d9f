"""Elements (2016): the display, the cards in front of each player, hands and scores."""

from __future__ import annotations

import re

from ...render import base

# The cards are numbers 1..6; a shade for each, 6 (the card that can be discarded) darkest.
COLOURS = {"1": "#e8f1fb", "2": "#cfe2f6", "3": "#a9cbef", "4": "#7fb0e4", "5": "#4f8fd6", "6": "#2a5d9f"}


def lines_of(state, player):
    out = []
    for line in base.viewer_text(state, player).splitlines():
        m = re.match(r"display (.*) \(limit (\d+)\)", line)
        if m:
            line = f"display [{m.group(1)}] (limit {m.group(2)})"
        line = re.sub(r"in front p0 \[(.*)\] p1 \[(.*)\]", r"in front p0 [\1]   p1 [\2]", line)
        m = re.match(r"hand sizes p0 (\d+), p1 (\d+)", line)
        if m and player is not None:
            other = 1 - player
            out.append(line)
            line = f"hand p{other} {{backs:{m.group(other + 1)}}}"
        out.append(line)
    return out


def _card_region(line, before, face):
    return f"hand:{face}" if before.startswith("own hand") and face else None


def _line_region(line):
    return "display" if line.startswith("display ") else None


def render(state, player=None, regions=False) -> str:
    return base.picture(state, player, "Elements", lines_of(state, player), COLOURS, regions=regions,
                        card_region=_card_region, line_region=_line_region)


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the hand card played or
    discarded, the display to take from; knock and yield have none."""
    m = re.fullmatch(r"(?:play|discard) (\d+)", text)
    if m:
        return (f"hand:{m.group(1)}",)
    return ("display",) if text == "take" else ()
