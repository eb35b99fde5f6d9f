"""Elementum: each player's four element columns, crystals and hand, the pool and supply."""

from __future__ import annotations

import re

from . import base

COLOURS = {"earth": "#3a9a3a", "air": "#f2d21b", "fire": "#d9342b", "water": "#2b6cd9"}


def lines_of(state, player):
    out = []
    for line in base.viewer_text(state, player).splitlines():
        m = re.match(r"(.*hand )(\d+) cards?(.*)", line)
        if m:
            line = f"{m.group(1)}{{backs:{m.group(2)}}}{m.group(3)}"
        out.append(line)
    return out


def render(state, player=None) -> str:
    return base.picture(state, player, "Elementum", lines_of(state, player), COLOURS)
