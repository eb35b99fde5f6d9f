"""Elemental Duel: hands, played cards, territories, the card on the table and the duels."""

from __future__ import annotations

import re

from ...render import base

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


def render(state, player=None, regions=False) -> str:
    def card_region(line, before, face):
        if player is None:
            return None
        if line.startswith(f"hand p{player} ") and face:
            return f"hand:{face}"
        # The attacker's two cards on the table: the one that fights is chosen by them.
        m = re.search(r"p(\d+) face (up|down) $", before)
        if line.startswith("table ") and m and int(m.group(1)) == player:
            return "table:shown" if m.group(2) == "up" else "table:hidden"
        return None

    return base.picture(state, player, "Elemental Duel", lines_of(state, player), COLOURS, regions=regions,
                        card_region=card_region)


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the hand card hidden, shown or
    defended with; the attacker's face-down or face-up card that fights."""
    m = re.fullmatch(r"(?:hide|show|defend) (.+)", text)
    if m:
        return (f"hand:{m.group(1)}",)
    m = re.fullmatch(r"fight (hidden|shown)", text)
    return (f"table:{m.group(1)}",) if m else ()
