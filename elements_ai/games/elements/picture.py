"""Elements (2016): the display and the match score on the table, then each seat: the
cards in front of them, their hand (backs for the opponent's) and their sum."""

from __future__ import annotations

import re

from ...render import base, svg
from .rules import NUM_VALUES, C, S, limit, player_sum

# The cards are numbers 1..6; a shade for each, 6 (the card that can be discarded) darkest.
COLOURS = {"1": "#e8f1fb", "2": "#cfe2f6", "3": "#a9cbef", "4": "#7fb0e4", "5": "#4f8fd6", "6": "#2a5d9f"}
PAIRS = re.compile(r"p(\d+) (\d+)")
LISTS = re.compile(r"p(\d+) \[([^\]]*)\]")


def top_card(display: str) -> str | None:
    """The card "take" takes: the last one played onto the display."""
    cards = display.split()
    return cards[-1] if cards and cards[-1] != "-" else None


def phrases(state, player) -> dict[str, str]:
    top = top_card(re.search(r"^display (.*?)\s*\(limit", str(state), re.M).group(1))
    return {"play": "play a card onto the display", "take": f"take the {top} on top of the display",
            "discard": "discard a 6", "knock": "knock (your sum is within the limit)", "yield": "yield the round"}


def _panels(state, player, last):
    text = base.viewer_text(state, player).splitlines()
    fields = {}
    for line in text:
        for key in ("scores", "display", "in front", "discarded 6s", "own hand", "hand sizes", "round",
                    "undealt and set aside", "last round", "hand p0", "hand p1"):
            if line.startswith(key + " "):
                fields[key] = line[len(key) + 1:]
    table = []
    m = re.match(r"(.*?)\s*\(limit (\d+)\)", fields.get("display", "- (limit 0)"))
    top = top_card(m.group(1))
    table.append(f"Display [{m.group(1)}] limit {m.group(2)}" if top else f"Display empty, limit {m.group(2)}")
    if top is not None:
        table.append(f"  take: the {top} on top")
    scores = dict(PAIRS.findall(fields.get("scores", "")))
    target = int(state.get_game().cfg[C.target])
    table.append("Score: " + ", ".join(f"{base.seat_title(int(p), player).split(' (')[0]} {v}"
                                       for p, v in scores.items()) + f" (first to {target} wins the match)")
    if "round" in fields:
        table.append(base.people("Round " + fields["round"], player))
    if "last round" in fields:
        table.append(base.people("Last round: " + fields["last round"], player))
    if "undealt and set aside" in fields:
        table.append(f"Set aside [{fields['undealt and set aside']}]")
    front = dict(LISTS.findall(fields.get("in front", "")))
    sixes = dict(PAIRS.findall(fields.get("discarded 6s", "")))
    sizes = dict(PAIRS.findall(fields.get("hand sizes", "")))
    boxes = [base.Panel("The table", table, wide=True)]
    for p in range(2):
        lines = [f"In front [{front.get(str(p), '-')}]"]
        own = fields.get("own hand") if p == player else fields.get(f"hand p{p}")
        if own is not None:
            hand, _, total = own.partition(" sum ")
            lines.append(f"{'Your hand' if p == player else 'Hand'} {hand} sum {total}")
        else:
            lines.append(f"Hand {{backs:{sizes.get(str(p), 0)}}}")
        lines.append(f"6s discarded: {sixes.get(str(p), 0)}")
        boxes.append(base.Panel(base.seat_title(p, player), lines, last=last.get(p)))
    return boxes


def _hand(array, seat: int) -> str:
    cards = [str(v + 1) for v in range(NUM_VALUES) for _ in range(int(array[S.hand + NUM_VALUES * seat + v]))]
    return " ".join(cards) or "none"


def explain(state, action: int, viewer) -> str | None:
    """The card "take" takes; at a knock, both sums and hands (the rules show them) and
    the round's points; at a yield, the point given; then the match score."""
    player = state.current_player()
    text = state.action_to_string(player, action)
    array = state.array
    if text == "take":
        return f"takes the {int(array[S.display + int(array[S.display_len]) - 1])} from the display"
    if text not in ("knock", "yield"):
        return None
    after = state.clone()
    after.apply_action(action)
    gained = [int(after.array[S.score + p]) - int(array[S.score + p]) for p in range(2)]
    scorer = 0 if gained[0] > 0 else 1

    def who(p):
        return base.people(f"p{p}", viewer)

    score = f"score {who(0)} {int(after.array[S.score])}, {who(1)} {int(after.array[S.score + 1])}"
    won = f"{who(scorer)} {'score' if who(scorer) == 'you' else 'scores'} {gained[scorer]}"
    if text == "yield":
        return f"the round ends: {won}; {score}"
    sums = "; ".join(f"{who(p)}: sum {int(player_sum(array, p))}, hand {_hand(array, p)}" for p in range(2))
    return f"the round ends with limit {int(limit(state.get_game().cfg, array))}; {sums}; {won}; {score}"


def _card_region(line, before, face):
    return f"hand:{face}" if before.startswith("Your hand") and face else None


def _line_region(line):
    return "display" if line.startswith("Display ") else None


def render(state, player=None, regions=False, *, width=900.0, last=None, debug=False) -> str:
    canvas = svg.Canvas(width=width, title="Elements (2016)", regions=regions)
    y = base.header(canvas, state, player, "Elements (2016)", phrases(state, player))
    y = base.panels(canvas, _panels(state, player, last or {}), y, COLOURS, _card_region, _line_region)
    return base.finish(canvas, state, player, y, debug)


def clicks(text: str) -> tuple[str, ...]:
    """The regions that choose the move ``text``: the hand card played or
    discarded, the display to take from; knock and yield have none."""
    m = re.fullmatch(r"(?:play|discard) (\d+)", text)
    if m:
        return (f"hand:{m.group(1)}",)
    return ("display",) if text == "take" else ()
