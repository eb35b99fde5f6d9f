"""A proven upper bound on the points of one layout, for the games' utility range.

OpenSpiel checks every return against ``[min_utility, max_utility]``, so the range
must hold for every game, not only for likely ones. ``relaxed_max_points`` bounds a
layout's points by a relaxation that drops the positions (every adjacency, majority
and surroundings condition counts as met) and lets every card take its best value:

* a layout holds at most ``K`` cards. A player picks at most a round's hand size per
  round (each turn every hand loses the same number of cards, so the largest hand
  sets the pace), and cards join a layout otherwise only through Additicius (card 54,
  or Speculum 36 copying it), whose effect needs 54 or 36 to be placed by a pick
  (once each per game) or a swap (at most one per turn): ``K <= 2 x picks + 2``, and
  never more than the cards that come out of the box;
* the symbols of element e are at most the cards in its column plus 3 (a reinforced
  Duplex); the cards of column e are e's cards and the universal ones (worth 0);
* crystals lie on at most ``min(14, turns)`` cards' slots (one crystal step per
  turn, 14 crystals in the game), each adding at most its card's best gain;
* Commodum takes half of the best card, Imitari the best copyable text.

The relaxation is maximised over every split of the ``K`` cards among the columns.
It takes seconds, so the results are the table ``MAX_LAYOUT_POINTS``; the tests
recompute it. The solo game's deck is the 2-player deck less 4 cards, so the
2-player deck's bound covers every ``solo_removed``; the Overload only takes points.
"""

from __future__ import annotations

import itertools

from .cards import (
    ACERVUS_POINTS,
    AMBIENTIA_BASIC,
    AMBIENTIA_REINFORCED,
    BOXED,
    CARD_TABLE,
    COLLIGIT_BONUS,
    COLLIGIT_BONUS_EVERY,
    DUPLEX_REINFORCED_SYMBOLS,
    ELEMENTS,
    NUM_SPELLS,
    OVERLOAD_PENALTY,
    PRAESTANTIA_POINTS,
    PRAESTANTIA_REINFORCED,
    PROPTER_POINTS,
    PROPTER_REINFORCED,
    REMOVED_2P,
    ROUND_SIZES,
    ROWS_MAJORITY_POINTS,
    SET_POINTS,
    SOLO_EXTRA_REMOVED,
    TOTAL_CRYSTALS,
    VICINARI_POINTS,
    VICINARI_REINFORCED,
    VIR_DIVES_STEPS,
)

DUPLEX_EXTRA = DUPLEX_REINFORCED_SYMBOLS - 1  # a reinforced Duplex: 3 more symbols than a card

# relaxed_max_points for each player count (see the module docstring).
MAX_LAYOUT_POINTS = {1: 304, 2: 320, 3: 427, 4: 335}
# The lowest possible points: four Ambientia at -1 and the Overload's -5.
MIN_LAYOUT_POINTS = 4 * min(AMBIENTIA_BASIC) - OVERLOAD_PENALTY


def _basic(card, symbols) -> int:
    """The card's best points without a crystal, with these symbol counts."""
    kind = card.kind
    if kind == "colligit":
        return symbols[card.x]
    if kind in ("collatio", "multus"):
        low = min(symbols[card.x], symbols[card.y]) if kind == "collatio" else min(symbols.values())
        return SET_POINTS * low
    if kind == "vir dives":
        total = symbols[card.x] + symbols[card.y]
        return next((points for at_least, points in VIR_DIVES_STEPS if total >= at_least), 0)
    return {"vicinari": VICINARI_POINTS, "propter": PROPTER_POINTS, "praestantia": PRAESTANTIA_POINTS,
            "ambientia": max(AMBIENTIA_BASIC), "rectus": ROWS_MAJORITY_POINTS,
            "iniquus": ROWS_MAJORITY_POINTS}.get(kind, 0)


def _gains(card, symbols) -> list[int]:
    """What each crystal on the card adds at best (Acervus: per crystal)."""
    kind = card.kind
    if kind == "colligit":
        return [COLLIGIT_BONUS * (symbols[card.x] // COLLIGIT_BONUS_EVERY)]
    if kind == "acervus":
        return [b - a for a, b in zip(ACERVUS_POINTS, ACERVUS_POINTS[1:])]
    ambientia = max(r - b for r, b in zip(AMBIENTIA_REINFORCED, AMBIENTIA_BASIC))
    return {"vicinari": [VICINARI_REINFORCED - VICINARI_POINTS], "propter": [PROPTER_REINFORCED - PROPTER_POINTS],
            "praestantia": [PRAESTANTIA_REINFORCED - PRAESTANTIA_POINTS], "ambientia": [ambientia]}.get(kind, [])


def deck(players: int) -> list:
    """The cards of the deck (for 1 player: the 2-player deck, a superset)."""
    removed = REMOVED_2P if players <= 2 else ()
    return [c for c in CARD_TABLE[:NUM_SPELLS] if c.number not in removed]


def limits(players: int) -> tuple[int, int]:
    """(cards a layout can hold, crystals its cards can hold)."""
    picks = sum(ROUND_SIZES[players])
    cards = len(deck(players)) - BOXED - (SOLO_EXTRA_REMOVED if players == 1 else 0)
    return min(cards, 2 * picks + 2), min(TOTAL_CRYSTALS, picks)


def relaxed_max_points(players: int) -> int:
    """The relaxation's maximum for ``players`` (slow: seconds)."""
    cards = deck(players)
    size, crystals = limits(players)
    by_element = {e: [c for c in cards if c.element == e] for e in ELEMENTS}
    universal = sum(c.element == "universal" for c in cards)
    duplex = {e: any(c.kind == "duplex" for c in by_element[e]) for e in ELEMENTS}
    best = 0
    ranges = [range(min(len(by_element[e]) + universal, size) + 1) for e in ELEMENTS]
    for split in itertools.product(*ranges):
        if sum(split) > size:
            continue
        counts = dict(zip(ELEMENTS, split))
        if sum(max(0, counts[e] - len(by_element[e])) for e in ELEMENTS) > universal:
            continue
        symbols = {e: counts[e] + (DUPLEX_EXTRA if duplex[e] and counts[e] else 0) for e in ELEMENTS}
        top_card = max(_basic(c, symbols) + sum(_gains(c, symbols)) for c in cards)

        def value(card, symbols=symbols, top_card=top_card):
            if card.kind == "commodum":
                return top_card // 2
            if card.kind == "imitari":
                texts = [c for c in cards if c.kind in ("vir dives", "multus", "rectus", "iniquus")]
                return max([top_card // 2] + [_basic(c, symbols) for c in texts])
            return _basic(card, symbols)

        total = sum(
            sum(sorted((value(c) for c in by_element[e]), reverse=True)[: counts[e]]) for e in ELEMENTS
        )
        total += sum(sorted((g for c in cards for g in _gains(c, symbols)), reverse=True)[:crystals])
        best = max(best, total)
    return best


def max_layout_points(params: dict) -> int:
    return MAX_LAYOUT_POINTS[params["players"]]
