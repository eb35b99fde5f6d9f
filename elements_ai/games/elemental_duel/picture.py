"""Elemental Duel: the duel in progress and the territories left on the table, then
each seat: hand, cards played and territories won (with their icons)."""

from __future__ import annotations

import re

from ...render import base, svg

COLOURS = {
    "fire": "#d9342b", "volcano": "#d9342b", "water": "#2b6cd9", "spring": "#2b6cd9",
    "plant": "#3a9a3a", "forest": "#3a9a3a", "light": "#f2d21b", "darkness": "#4b2a6b",
}
PHRASES = {"first": "choose who attacks first", "hide": "hide a card face down", "show": "show a card face up",
           "defend": "defend with a card", "fight": "choose which of your two cards fights"}


def _table_line(line: str, player) -> str:
    line = re.sub(r"face down \(unseen\)", "face down {backs:1}", line)
    line = re.sub(r"face (up|down) ((?:plant|water|fire|darkness) \d|light)", r"face \1 [\2]", line)
    return "On the table: " + base.people(line.removeprefix("table "), player)


def _panels(state, player, last):
    table, seats = [], {}
    for line in base.viewer_text(state, player).splitlines():
        m = re.match(r"(hand|played|territories) p(\d+) (.*)", line)
        if m:
            what, p, rest = m.groups()
            label = {"hand": "Your hand" if int(p) == player else "Hand", "played": "Played",
                     "territories": "Territories"}[what]
            if what == "territories":
                won, _, icons = rest.partition(" icons ")
                seats.setdefault(int(p), []).extend([f"{label} {won}", f"  icons: {icons}"])
            else:
                seats.setdefault(int(p), []).append(f"{label} {rest}")
        elif line.startswith("table "):
            if line.strip() != "table -":
                table.append(_table_line(line, player))
        elif line.startswith("stack left "):
            table.append("Territories left: " + line.removeprefix("stack left "))
        elif line.startswith(("duel ", "game over", "first attacker")):
            said = base.people(line, player)
            table.append(said[0].upper() + said[1:])
        elif player is None and line.startswith("duel"):
            table.append(base.people(line, player))
    boxes = [base.Panel("The table", table, wide=True)]
    for p in range(2):
        boxes.append(base.Panel(base.seat_title(p, player), seats.get(p, []), last=last.get(p)))
    return boxes


def explain(state, action: int, viewer) -> str | None:
    """Who won the duel a move ends, and the territory at stake."""
    after = state.clone()
    after.apply_action(action)
    before = [line for line in str(state).splitlines() if re.match(r"duel \d+ \w+: ", line)]
    duels = [line for line in str(after).splitlines() if re.match(r"duel \d+ \w+: ", line)]
    if len(duels) == len(before):
        return None
    m = re.match(r"duel (\d+) (\w+): .*: p(\d+) (wins|ties)$", duels[-1])
    if not m:
        return None
    number, territory, winner, how = m.groups()
    who = base.people(f"p{winner}", viewer)
    if how == "ties":
        return f"duel {number} for {territory}: a tie, {who} keep the attack" if who == "you" else \
            f"duel {number} for {territory}: a tie"
    return f"duel {number} for {territory}: {who} won it"


def render(state, player=None, regions=False, *, width=900.0, last=None, debug=False) -> str:
    def card_region(line, before, face):
        if player is None:
            return None
        if line.startswith("Your hand") and face:
            return f"hand:{face}"
        # The attacker's two cards on the table: the one that fights is chosen by them.
        m = re.search(r"\byou face (up|down) $", before)
        if line.startswith("On the table") and m:
            return "table:shown" if m.group(1) == "up" else "table:hidden"
        return None

    canvas = svg.Canvas(width=width, title="Elemental Duel", regions=regions)
    y = base.header(canvas, state, player, "Elemental Duel", PHRASES)
    y = base.panels(canvas, _panels(state, player, last or {}), y, COLOURS, card_region)
    return base.finish(canvas, state, player, y, debug)


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the hand card hidden, shown or
    defended with; the attacker's face-down or face-up card that fights."""
    m = re.fullmatch(r"(?:hide|show|defend) (.+)", text)
    if m:
        return (f"hand:{m.group(1)}",)
    m = re.fullmatch(r"fight (hidden|shown)", text)
    return (f"table:{m.group(1)}",) if m else ()
