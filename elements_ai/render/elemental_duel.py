"""Elemental Duel: hands, played cards, territories, the card on the table and the duels."""

from __future__ import annotations

import re

from . import base

COLOURS = {
    "fire": "#d9342b", "volcano": "#d9342b", "water": "#2b6cd9", "spring": "#2b6cd9",
    "plant": "#3a9a3a", "forest": "#3a9a3a", "light": "#f2d21b", "darkness": "#4b2a6b",
}


def lines_of(state, player):
    out = []
    for line in base.viewer_text(state, player).splitlines():
        if line.startswith("table "):
            line = re.sub(r"face down \(unseen\)", "face down {backs:1}", line)
            line = re.sub(r"face (up|down) ((?:plant|water|fire|darkness) \d|light)", r"face \1 [\2]", line)
        out.append(line)
    return out


def render(state, player=None) -> str:
    return base.picture(state, player, "Elemental Duel", lines_of(state, player), COLOURS)
