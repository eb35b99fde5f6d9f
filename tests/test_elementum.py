"""Elementum: scoring of every card, the turn's steps and effects, pool contention,
the Overload and the solo game, hidden information, resample, the rules bot, bad
input. Numbers are worked out by hand from the rulebook and the rulings
(``games/elementum/RULES.md``)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai.agents import make_bot, play_game
from elements_ai.core.rng import seeds_from
from elements_ai.games.elementum import rules as R
from elements_ai.games.elementum import score, score_state, solo_rank
from elements_ai.games.elementum.bounds import MAX_LAYOUT_POINTS, relaxed_max_points
from elements_ai.games.elementum.cards import CARD_TABLE, ELEMENTS
from elements_ai.testing import play_by_strings, random_action

# --- scoring, card by card -----------------------------------------------------------------

ORDER = ("fire", "earth", "water", "air")
# Cards of each element that score nothing themselves (unreinforced), one symbol each.
FILLERS = {"fire": [9, 10, 11], "earth": [22, 26, 24], "water": [35, 36, 39], "air": [48, 49, 51]}
# Other cards of each element (one symbol each), for the opponents' layouts.
OTHERS = {"fire": [1, 3, 4], "earth": [14, 16, 17], "water": [27, 29, 30], "air": [40, 42, 43]}

KERNEL = elements_ai.get_kernel("elementum")


def card(number):
    return CARD_TABLE[number - 1]


def points_of(result, number, player=0):
    rows = result.cards.query("card == @number and player == @player")
    assert len(rows) == 1, result
    return int(rows["points"].iloc[0])


def fill(element, count, avoid=()):
    return [n for n in FILLERS[element] if n not in avoid][:count]


def sources_around(center, left, right):
    """A source order with ``center`` between ``left`` and ``right`` (columns 0, 1, 2)."""
    rest = [e for e in ORDER if e not in (center, left, right)]
    return (left, center, right, *rest)


def colligit_cases(n):
    c = card(n)
    three = {c.element: [n], c.x: fill(c.x, 3)}
    return [
        ("three X symbols", [three], {}, 3),
        ("three X symbols, reinforced: +2 per 3", [three], {"crystals": {n: 1}}, 5),
        ("no X symbol", [{c.element: [n]}], {}, 0),
        ("no X symbol, reinforced", [{c.element: [n]}], {"crystals": {n: 1}}, 0),
    ]


def collatio_cases(n):
    c = card(n)
    both = {c.element: [n], c.x: fill(c.x, 2), c.y: fill(c.y, 3)}
    return [
        ("2 X and 3 Y: two sets", [both], {}, 4),
        ("no Y: no set", [{c.element: [n], c.x: fill(c.x, 3)}], {}, 0),
    ]


def vicinari_cases(n):
    c = card(n)
    sources = sources_around(c.element, c.x, c.y)
    full = {c.element: [n], c.x: fill(c.x, 1), c.y: fill(c.y, 1)}
    half = {c.element: [n], c.x: fill(c.x, 1)}
    swapped = sources_around(c.element, c.y, c.x)  # either order
    wrapped = (c.element, c.y, sources[3], c.x)  # the edges are neighbours
    return [
        ("X and Y beside it", [full], {"sources": sources}, 5),
        ("X and Y beside it, reinforced", [full], {"sources": sources, "crystals": {n: 1}}, 8),
        ("Y and X beside it", [full], {"sources": swapped}, 5),
        ("around the edge", [full], {"sources": wrapped}, 5),
        ("Y missing", [half], {"sources": sources}, 0),
        ("Y missing, reinforced", [half], {"sources": sources, "crystals": {n: 1}}, 0),
        ("X and Y in the row above", [{**full, c.element: [*fill(c.element, 1, avoid=(n,)), n]}],
         {"sources": sources}, 0),
    ]


def propter_cases(n):
    c = card(n)
    other = next(e for e in ORDER if e not in (c.element, c.x))
    beside = sources_around(c.element, c.x, other)
    opposite = (c.element, other, c.x, next(e for e in ORDER if e not in (c.element, c.x, other)))
    layout = {c.element: [n], c.x: fill(c.x, 1)}
    wrapped = (c.element, *[e for e in ORDER if e not in (c.element, c.x)], c.x)  # the edges are neighbours
    return [
        ("X beside it", [layout], {"sources": beside}, 3),
        ("X around the edge", [layout], {"sources": wrapped}, 3),
        ("X beside it, reinforced", [layout], {"sources": beside, "crystals": {n: 1}}, 6),
        ("X column opposite", [layout], {"sources": opposite}, 0),
        ("X column opposite, reinforced", [layout], {"sources": opposite, "crystals": {n: 1}}, 0),
    ]


def praestantia_cases(n):
    c = card(n)
    mine = {c.element: [n], c.x: fill(c.x, 2)}
    return [
        ("2 X against 1", [mine, {c.x: OTHERS[c.x][:1]}], {}, 6),
        ("2 X against 1, reinforced", [mine, {c.x: OTHERS[c.x][:1]}], {"crystals": {n: 1}}, 10),
        ("2 X against 2: a tie", [mine, {c.x: OTHERS[c.x][:2]}], {}, 0),
        ("2 X against 3", [mine, {c.x: OTHERS[c.x]}], {"crystals": {n: 1}}, 0),
    ]


def ambientia_cases(n):
    c = card(n)
    others = [e for e in ORDER if e != c.element]
    sources = (others[0], c.element, others[1], others[2])
    below = fill(c.element, 1, avoid=(n,))
    four = {c.element: [n, *below], others[0]: fill(others[0], 1), others[1]: fill(others[1], 1)}
    three = {c.element: [n], others[0]: fill(others[0], 1), others[1]: fill(others[1], 1)}
    alone = {c.element: [n]}
    edge = (c.element, *others)
    edge_full = {c.element: [n, *below], others[0]: fill(others[0], 1), others[2]: fill(others[2], 1)}
    return [
        ("4 around (source above)", [four], {"sources": sources}, 5),
        ("4 around, reinforced", [four], {"sources": sources, "crystals": {n: 1}}, 9),
        ("3 around", [three], {"sources": sources}, 3),
        ("3 around, reinforced", [three], {"sources": sources, "crystals": {n: 1}}, 6),
        ("only the source", [alone], {"sources": sources}, -1),
        ("only the source, reinforced", [alone], {"sources": sources, "crystals": {n: 1}}, 1),
        ("edge column: no wrap, 3 at most", [edge_full], {"sources": edge}, 3),
    ]


def duplex_cases(n):
    c = card(n)
    reader = next(m for m in range(1, 55) if card(m).kind == "colligit" and card(m).x == c.element)
    layout = {c.element: [n], card(reader).element: [reader]}
    return [
        ("no points itself", [layout], {}, 0),
        ("2 symbols for a Colligit", [layout], {"check": (reader, 2)}, 0),
        ("4 symbols reinforced", [layout], {"crystals": {n: 1}, "check": (reader, 4)}, 0),
    ]


def symbol_cases(n):
    """Cards without points of their own still give one symbol of their column."""
    c = card(n)
    element = c.element if c.element in ORDER else "water"
    reader = next(m for m in range(1, 55) if card(m).kind == "colligit" and card(m).x == element)
    layout = {element: [n], card(reader).element: [reader]}
    return [
        ("no points itself", [layout], {}, 0),
        ("one symbol for a Colligit", [layout], {"check": (reader, 1)}, 0),
    ]


def vir_dives_cases(n):
    c = card(n)

    def layout(x, y):
        return {c.element: [n], c.x: fill(c.x, x), c.y: fill(c.y, y)}

    duplex = {"fire": 8, "earth": 21, "water": 34, "air": 47}
    return [
        ("5 symbols", [layout(3, 2)], {}, 0),
        ("6 symbols", [layout(3, 3)], {}, 3),
        ("8 symbols (a reinforced Duplex)", [{**layout(3, 1), c.y: [duplex[c.y]] + fill(c.y, 1)}],
         {"crystals": {duplex[c.y]: 1}}, 5),
        ("10 symbols", [{**layout(3, 3), c.x: fill(c.x, 3) + [duplex[c.x]]}], {"crystals": {duplex[c.x]: 1}}, 9),
    ]


def commodum_cases(n):
    return [
        ("half of the best card (Acervus 13 -> 6)", [{"fire": [n], "water": [39]}], {"crystals": {39: 3}}, 6),
        ("alone", [{"fire": [n]}], {}, 0),
        ("only a negative card: nothing", [{"fire": [n], "water": [33]}], {}, 0),
    ]


def multus_cases(n):
    two = {e: fill(e, 2, avoid=(n,)) for e in ORDER}
    two["earth"] = [n, *fill("earth", 1, avoid=(n,))]
    return [
        ("two of each element", [two], {}, 4),
        ("no air", [{**two, "air": []}], {}, 0),
    ]


def qui_fieri_cases(n):
    # Propter 5 (fire, needs air) with air opposite fire: only Qui Fieri can help.
    sources = ("fire", "earth", "air", "water")
    layout = {"fire": [5], "earth": [n], "air": [48]}
    return [
        ("unreinforced: nothing", [layout], {"sources": sources, "check": (5, 0)}, 0),
        ("reinforced: the Propter is fulfilled", [layout], {"sources": sources, "crystals": {n: 1}, "check": (5, 3)},
         0),
    ]


def rectus_cases(n):
    def rows(k, extra=()):
        return {e: fill(e, k, avoid=(n,)) for e in ORDER} | {"water": [n, *fill("water", k - 1, avoid=(n,))],
                                                              **dict(extra)}

    return [
        ("2 full rows against 1", [rows(2), {e: OTHERS[e][:1] for e in ORDER}], {}, 6),
        ("2 full rows against 2", [rows(2), {e: OTHERS[e][:2] for e in ORDER}], {}, 0),
    ]


def iniquus_cases(n):
    mine = {"air": [n, *fill("air", 2, avoid=(n,))]}  # 3 incomplete rows
    return [
        ("3 incomplete rows against 1", [mine, {"fire": OTHERS["fire"][:1]}], {}, 6),
        ("3 against 3", [mine, {"fire": OTHERS["fire"]}], {}, 0),
    ]


def imitari_cases(n):
    # Imitari copies Vir Dives 12 (earth + air) lying in the other layout.
    mine = {"water": [n], "earth": fill("earth", 3), "air": fill("air", 3)}
    return [
        ("copies Vir Dives from another layout", [mine, {"fire": [12]}], {}, 3),
        ("nothing to copy", [mine, {"fire": [1]}], {}, 0),
    ]


def acervus_cases(n):
    c = card(n)
    return [(f"{k} crystals", [{c.element: [n]}], {"crystals": {n: k}} if k else {}, p)
            for k, p in ((0, 0), (1, 2), (2, 7), (3, 13))]


def tie_breaker_cases(n):
    # The card kept as tie-breaker wins p0 the tie of Praestantia 45 (air, most water).
    mine = {"air": [n, 45] if n == 51 else [45], "water": [35] + ([n] if n == 36 else [])}
    theirs = {"water": [39, 27][: 2 if n == 36 else 1]}
    return [
        ("no points itself", [mine, theirs], {"tie_breakers": {n: 0}}, 0),
        ("breaks the tie for Praestantia", [mine, theirs], {"tie_breakers": {n: 0}, "check": (45, 6)}, 0),
        ("not kept as tie-breaker", [mine, theirs], {"check": (45, 0)}, 0),
    ]


CASES_BY_KIND = {
    "colligit": colligit_cases, "collatio": collatio_cases, "vicinari": vicinari_cases,
    "propter": propter_cases, "praestantia": praestantia_cases, "ambientia": ambientia_cases,
    "duplex": duplex_cases, "vir dives": vir_dives_cases, "commodum": commodum_cases,
    "multus": multus_cases, "qui fieri": qui_fieri_cases, "rectus": rectus_cases,
    "iniquus": iniquus_cases, "imitari": imitari_cases, "acervus": acervus_cases,
}


def cases_of(number):
    kind = card(number).kind
    if number in (36, 51):
        return tie_breaker_cases(number)
    return CASES_BY_KIND.get(kind, symbol_cases)(number)


SCORING_CASES = [
    pytest.param(number, *case, id=f"{number}-{card(number).name}-{case[0]}")
    for number in range(1, 55)
    for case in cases_of(number)
]


@pytest.mark.parametrize("number, what, layouts, options, expected", SCORING_CASES)
def test_every_card_scores_exactly(number, what, layouts, options, expected):
    options = dict(options)
    check = options.pop("check", None)
    result = score(layouts, **options)
    assert points_of(result, number) == expected, result
    if check is not None:
        assert points_of(result, check[0]) == check[1], result
    assert result.totals[0] == result.cards.query("player == 0")["points"].sum()


def test_every_card_has_a_case_where_it_counts_and_one_where_it_does_not():
    # Counting: the card scores, or (cards without points) makes another card score.
    for number in range(1, 55):
        cases = cases_of(number)
        counts = [expected > 0 or "check" in options and options["check"][1] > 0
                  for _, _, options, expected in cases]
        assert any(counts) and not all(counts), number


def test_rulebook_example_scores_10():
    # 2 for water symbols (Colligit 1), 2 for a water-fire set (Collatio 16), 6 for
    # an adjacency reinforced with a crystal (Propter 31 beside the fire column).
    result = score([{"fire": [1], "water": [31, 35], "earth": [16]}], crystals={31: 1},
                   sources=("fire", "water", "earth", "air"))
    assert result.totals == [10]
    assert result.cards[["card", "points"]].values.tolist() == [[1, 2], [31, 6], [35, 0], [16, 2]]


def test_adjacency_needs_a_card_in_the_same_row_and_counts_universal_cards_by_column():
    sources = ("air", "fire", "water", "earth")
    # Propter 5 (fire, needs air) in row 2; the air column holds one card (row 1).
    assert points_of(score([{"fire": [9, 5], "air": [48]}], sources=sources), 5) == 0
    assert points_of(score([{"fire": [9, 5], "air": [48, 49]}], sources=sources), 5) == 3
    # A universal card in the air column is an air card.
    assert points_of(score([{"fire": [5], "air": [53]}], sources=sources), 5) == 3


def test_qui_fieri_puts_its_two_sources_where_they_add_most():
    """Rulings 4 and 17."""
    # Air is opposite fire and water opposite earth: Vicinari 4 (fire: earth + air)
    # misses air, Vicinari 17 (earth: water + fire) misses water, and Propter 44
    # (air: earth) in the third row has no earth beside it. Reinforced 4 (8) and
    # 17 (5) are worth more than 44 (3).
    sources = ("fire", "earth", "air", "water")
    layout = {"fire": [4], "earth": [17, 24], "air": [48, 49, 44], "water": [35]}
    result = score([layout], sources=sources, crystals={24: 1, 4: 1})
    assert [points_of(result, n) for n in (4, 17, 44)] == [8, 5, 0]
    assert result.cards.query("card == 24")["note"].iloc[0] == "helps 4 17"
    # A Vicinari missing both sides takes both sources.
    lonely = score([{"earth": [17, 24]}], sources=sources, crystals={24: 1})
    assert points_of(lonely, 17) == 5
    assert lonely.cards.query("card == 24")["note"].iloc[0] == "helps 17 17"


def test_commodum_and_imitari_choose_what_scores_most():
    """Rulings 4, 18 and 29."""
    # Imitari may copy Commodum; as a Commodum it cannot take half of card 13 (nor 13 of it).
    layout = {"fire": [13], "water": [38, 39], "earth": fill("earth", 3), "air": fill("air", 3)}
    result = score([layout, {"fire": [12]}], crystals={39: 3})
    # Copying Vir Dives 12 (earth 3 + air 3 = 6 -> 3) loses to copying Commodum (13 // 2 = 6).
    assert points_of(result, 38) == 6 and points_of(result, 13) == 6
    assert result.cards.query("card == 38")["note"].iloc[0] == "as 13"
    # Without Acervus' 13 points, copying Vir Dives (3) is best, and Commodum halves it.
    result = score([{**layout, "water": [38]}, {"fire": [12]}])
    assert points_of(result, 38) == 3 and points_of(result, 13) == 1


def test_majorities_count_the_solo_imitation_and_tie_breakers_need_their_owner_layout():
    """Rulings 3, 15 and 30."""
    mine = {"air": [45], "water": [35, 36]}
    assert points_of(score([mine], imitation={"water": [27]}), 45) == 6
    assert points_of(score([mine], imitation={"water": [27, 29]}), 45) == 0
    # Two tie-breaker holders: the tie stays unbroken (RULES.md).
    both = score([{"air": [45, 51], "water": [35]}, {"water": [36]}], tie_breakers={51: 0, 36: 1})
    assert points_of(both, 45) == 0
    # A Bifarius marked for p0 that now lies in p1's layout breaks no tie for p0.
    moved = score([{"air": [45], "water": [35]}, {"air": [51], "water": [36]}], tie_breakers={51: 0})
    assert points_of(moved, 45) == 0


def test_the_imitation_counts_each_card_as_one_symbol():
    """Ruling 13."""
    # A reinforced-looking Duplex in the imitation's layout is one symbol; the player's
    # 2 water symbols then win Praestantia 45.
    result = score([{"air": [45], "water": [35, 36]}], imitation={"water": [34]})
    assert points_of(result, 45) == 6


def test_overload_costs_5():
    result = score([{"fire": [1]}, {"fire": [3]}], overload=1)
    assert result.totals == [0, -5]
    assert result.cards.query("player == 1")[["card", "points"]].values.tolist() == [[3, 0], [55, -5]]
    assert score([{"fire": [1]}], overload="imitation").totals == [0]


def test_solo_ranks():
    assert [solo_rank(p) for p in (0, 34, 35, 45, 46, 55, 56, 65, 66, 75, 76, 120)] == [
        "Novice", "Novice", "Apprentice", "Apprentice", "Journeyman", "Journeyman",
        "Adept", "Adept", "Master", "Master", "Archmage", "Archmage"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"layouts": [{"fire": [14]}]}, "card 14 .*cannot lie in the fire column"),
        ({"layouts": [{"fire": [1, 1]}]}, "card 1 lies in two places"),
        ({"layouts": [{"fire": [60]}]}, "card 60 is not a spell card"),
        ({"layouts": [{"fire": [1]}], "crystals": {1: 2}}, "card 1 .*at most 1 crystals"),
        ({"layouts": [{"fire": [1]}], "crystals": {5: 1}}, "crystals on card 5, which lies in no layout"),
        ({"layouts": [{"fire": [1]}], "sources": ("fire", "fire", "water", "air")}, "sources must order"),
        ({"layouts": [{"wind": [1]}]}, "unknown element 'wind'"),
        ({"layouts": [[[1], [], []]]}, "4 columns"),
        ({"layouts": [{}] * 5}, "1 to 4 layouts"),
        ({"layouts": [{}], "tie_breakers": {12: 0}}, "only cards 51"),
    ],
)
def test_score_names_bad_layouts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        score(**kwargs)


# --- the turn, scripted ------------------------------------------------------------------------

def start(players=2, overload=False, sources=ORDER, box=(7, 20, 33), pool=(12, 25, 46), hands=(), **params):
    """A game after its setup and first deal, chance chosen by its strings."""
    game = elements_ai.load_game("elementum", players=players, overload=overload, **params)
    return play_by_strings(
        game.new_initial_state(),
        *[f"source {e}" for e in sources],
        *[f"box {n}" for n in box],
        *[f"pool {n}" for n in pool],
        *[f"deal {n}" for hand in hands for n in hand],
    )


def legal(state):
    if state.is_chance_node():
        return sorted(state.action_to_string(-1, a) for a, _ in state.chance_outcomes())
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def field(state, offset, index=0):
    return int(state.array[offset + index])


def column(state, seat, element):
    """Card numbers in ``seat``'s column of ``element``, top to bottom."""
    k = ELEMENTS.index(element)
    col = field(state, R.S.column_of, k)
    loc = R.LOC_LAYOUT + seat
    cards = [c for c in range(54) if field(state, R.S.loc, c) == loc and field(state, R.S.col, c) == col]
    return [c + 1 for c in sorted(cards, key=lambda c: field(state, R.S.row, c))]


def pool(state):
    return [c + 1 for c in range(54) if field(state, R.S.loc, c) == R.LOC_POOL]


def crystals(state, seat):
    return field(state, R.S.crystals, seat)


def test_a_turn_in_order_lapis_and_a_crystal():
    """The order of decisions in a turn; rulings 6, 20, 27."""
    state = start(hands=[(35, 5, 10, 14, 39, 53), (48, 26, 11, 36, 49, 54)])
    assert state.current_player() == 0 and legal(state) == [f"pick {n}" for n in (5, 10, 14, 35, 39, 53)]
    play_by_strings(state, "pick 5")
    assert state.current_player() == 1 and "picked a card" in state.observation_string(1)
    play_by_strings(state, "pick 48")
    # Both picks are revealed and placed; swaps are declared in seat order.
    assert column(state, 0, "fire") == [5] and column(state, 1, "air") == [48]
    assert legal(state) == ["swap 12", "swap 25", "swap 46", "no swap"]
    play_by_strings(state, "no swap", "no swap")
    # Lapis Vires gave p1 a crystal from the supply (14 - 2 x 2 = 10).
    assert crystals(state, 1) == 3 and field(state, R.S.supply) == 9
    # Crystal step: p0 may reinforce Propter 5; p1's only card has no slot.
    assert state.current_player() == 0 and legal(state) == ["crystal 5", "no crystal"]
    play_by_strings(state, "crystal 5")
    assert field(state, R.S.cryst, 4) == 1 and crystals(state, 0) == 1
    # Hands passed: p0 now holds what p1 left.
    assert legal(state) == [f"pick {n}" for n in (11, 26, 36, 49, 54)]


def test_lapis_with_an_empty_supply_gives_nothing():
    """Ruling 6."""
    state = start(hands=[(35, 5, 10, 14, 39, 53), (48, 26, 11, 36, 49, 54)])
    play_by_strings(state, "pick 5", "pick 48", "no swap", "no swap")
    assert crystals(state, 1) == 3
    data = start(hands=[(35, 5, 10, 14, 39, 53), (48, 26, 11, 36, 49, 54)]).array.copy()
    data[R.S.supply] = 0
    state = state.get_game().state_from_array(data)
    play_by_strings(state, "pick 5", "pick 48", "no swap", "no swap")
    assert crystals(state, 1) == 2 and field(state, R.S.supply) == 0


def test_vitium_then_eversor_destroys_and_cards_move_up():
    """Rulings 6, 7 and 28."""
    state = start(hands=[(35, 5, 10, 14, 39, 53), (48, 26, 11, 36, 49, 54)])
    play_by_strings(state, "pick 5", "pick 48", "no swap", "no swap", "crystal 5")
    play_by_strings(state, "pick 11", "pick 10", "no swap", "no swap")
    # p0's Vitium first (seat order): every player returns a crystal.
    assert crystals(state, 0) == 0 and crystals(state, 1) == 2 and field(state, R.S.supply) == 11
    # p1's Eversor: any card of p0's layout.
    assert state.current_player() == 1 and legal(state) == ["destroy 5", "destroy 11"]
    play_by_strings(state, "destroy 5")
    # Propter's crystal went back to the supply; Vitium moved up.
    assert column(state, 0, "fire") == [11] and field(state, R.S.row, 10) == 0
    assert field(state, R.S.supply) == 12 and field(state, R.S.loc, 4) == R.LOC_DESTROYED
    assert "destroyed [5 Propter]" in state.observation_string(1)


def test_induratus_protects_from_eversor_and_vitium_but_not_from_ones_own_vitium():
    """Rulings 6 and 16."""
    state = start(hands=[(10, 5, 14, 39, 53, 35), (26, 11, 48, 36, 49, 54)])
    play_by_strings(state, "pick 10", "pick 26", "no swap", "no swap")
    # Eversor finds no target: p1's layout is protected; no decision is asked.
    assert state.current_player() == 0 and legal(state)[0] == "pick 11"
    play_by_strings(state, "pick 11", "pick 5", "no swap", "no swap")
    assert crystals(state, 0) == 1 and crystals(state, 1) == 2  # p1 keeps its crystals
    # p1's own Vitium costs p1 a crystal despite Induratus.
    state = start(hands=[(10, 5, 14, 39, 53, 35), (26, 11, 48, 36, 49, 54)])
    play_by_strings(state, "pick 5", "pick 26", "no swap", "no swap", "no crystal")
    play_by_strings(state, "pick 48", "pick 35", "no swap", "no swap", "no crystal")
    assert crystals(state, 0) == crystals(state, 1) == 3 and field(state, R.S.supply) == 8
    play_by_strings(state, "pick 14", "pick 11", "no swap", "no swap")
    assert crystals(state, 0) == crystals(state, 1) == 2 and field(state, R.S.supply) == 10


def test_speculum_copies_a_pool_card_and_mutare_gives_then_takes():
    """Rulings 23 and 25."""
    state = start(pool=(35, 25, 46), box=(7, 20, 33), hands=[(36, 5, 10, 14, 39, 53), (49, 26, 11, 48, 1, 54)])
    play_by_strings(state, "pick 36", "pick 49", "no swap", "no swap")
    # Speculum: an immediate card in the pool or in any layout, not itself.
    assert state.current_player() == 0 and legal(state) == ["copy 35", "copy 49"]
    play_by_strings(state, "copy 35")
    assert crystals(state, 0) == 3 and field(state, R.S.supply) == 9
    # Mutare: give a card of one's layout (here only Mutare itself), then take a
    # different pool card (the pool as it was before the give).
    assert state.current_player() == 1 and legal(state) == ["give 49"]
    play_by_strings(state, "give 49")
    assert legal(state) == ["take 25", "take 35", "take 46"]
    assert "given to the pool 49 Mutare" in state.observation_string(1)
    play_by_strings(state, "take 25")
    assert column(state, 1, "earth") == [25] and pool(state) == [35, 46, 49]


def test_copying_mutare_through_speculum_asks_its_choices():
    """Rulings 15, 25 and 36."""
    state = start(pool=(35, 25, 46), hands=[(36, 5, 10, 14, 39, 53), (49, 26, 11, 48, 1, 54)])
    play_by_strings(state, "pick 36", "pick 49", "no swap", "no swap", "copy 49")
    assert state.current_player() == 0 and legal(state) == ["give 36"]
    play_by_strings(state, "give 36", "take 46")
    assert column(state, 0, "air") == [46] and 36 in pool(state)
    # Then p1's own Mutare: the Speculum p0 gave is now in the pool too.
    assert state.current_player() == 1 and legal(state) == ["give 49"]
    play_by_strings(state, "give 49")
    assert legal(state) == ["take 25", "take 35", "take 36"]


def test_additicius_is_universal_and_adds_a_pool_card():
    """Step 4: a card an effect adds does not trigger."""
    state = start(hands=[(54, 5, 10, 14, 39, 53), (49, 26, 11, 48, 1, 36)])
    play_by_strings(state, "pick 54", "pick 1")
    assert state.current_player() == 0 and legal(state) == [f"column {k}" for k in (1, 2, 3, 4)]
    play_by_strings(state, "column 3", "no swap", "no swap")
    assert column(state, 0, "water") == [54]
    assert legal(state) == ["add 12", "add 25", "add 46"]
    play_by_strings(state, "add 46")
    assert column(state, 0, "air") == [46] and pool(state) == [12, 25]
    # The added card's own effect does not trigger; the crystal step follows.
    assert legal(state) == ["crystal 46", "no crystal"]


def test_velocitatis_every_player_picks_once_more():
    """Ruling 8."""
    state = start(hands=[(53, 5, 10, 14, 39, 35), (49, 26, 11, 48, 1, 36)])
    play_by_strings(state, "pick 53", "pick 1", "column 1", "no swap", "no swap")
    # Step 5: each player with a card left picks again (hidden), in seat order.
    assert field(state, R.S.velocity) == 1
    assert state.current_player() == 0 and legal(state) == [f"pick {n}" for n in (5, 10, 14, 35, 39)]
    play_by_strings(state, "pick 35", "pick 48")
    # Both second picks resolve (two Lapis): no second swap step.
    assert crystals(state, 0) == 3 and crystals(state, 1) == 3
    assert column(state, 0, "fire") == [53]
    assert column(state, 0, "water") == [35] and column(state, 1, "air") == [48]
    assert legal(state) == ["crystal 1", "no crystal"] and state.current_player() == 1
    play_by_strings(state, "no crystal")
    # Each hand lost two cards this turn.
    assert field(state, R.S.hand_size, 0) == 4 and field(state, R.S.hand_size, 1) == 4


@pytest.mark.parametrize(
    "first, second, winner",
    [
        ("pick 5", "pick 26", 0),  # fire symbols 1 against 0: p0 takes the fire card 12
        ("pick 39", "pick 26", None),  # no fire either, crystals 2 and 2: nobody
        ("pick 5", "pick 1", None),  # a fire symbol each, crystals 2 and 2: nobody
    ],
)
def test_pool_contention_by_symbols_then_crystals_then_nobody(first, second, winner):
    """Rulings 5 and 21."""
    state = start(hands=[(5, 35, 10, 14, 39, 53), (36, 26, 11, 48, 1, 49)])
    play_by_strings(state, first, second, "swap 12", "swap 12")
    picks = [int(first.split()[1]), int(second.split()[1])]
    in_layouts = [column(state, s, CARD_TABLE[picks[s] - 1].element) for s in (0, 1)]
    if winner is None:
        assert pool(state) == [12, 25, 46] and crystals(state, 0) == crystals(state, 1) == 2
        assert in_layouts == [[picks[0]], [picks[1]]]
    else:
        assert column(state, winner, "fire") == [12] and in_layouts[1 - winner] == [picks[1 - winner]]
        assert crystals(state, winner) == 1 and crystals(state, 1 - winner) == 2
        assert pool(state) == sorted([25, 46, picks[winner]]) and field(state, R.S.supply) == 11


def test_pool_contention_by_crystals_and_universal_cards_by_crystals_only():
    """Ruling 5."""
    # p1 gains a crystal with Lapis in turn 1; in turn 2 both want the fire card 12
    # with no fire symbol either: p1 has more crystals and wins.
    state = start(hands=[(35, 36, 10, 14, 39, 53), (48, 26, 11, 47, 1, 49)])
    play_by_strings(state, "pick 35", "pick 48", "no swap", "no swap")
    assert crystals(state, 0) == 3 and crystals(state, 1) == 3
    play_by_strings(state, "pick 26", "pick 36", "swap 12", "swap 12")
    assert pool(state) == [12, 25, 46]  # 3 crystals each, no fire: nobody
    state = start(pool=(53, 25, 46), hands=[(35, 5, 10, 14, 39, 36), (48, 26, 11, 47, 1, 49)])
    play_by_strings(state, "pick 5", "pick 48", "no swap", "no swap", "no crystal")
    # p0 has a fire card, p1 one more crystal; 53 is universal: crystals decide.
    play_by_strings(state, "pick 11", "pick 14", "swap 53", "swap 53")
    assert field(state, R.S.placed, 1) + 1 == 53 and crystals(state, 1) == 2
    assert state.current_player() == 1 and legal(state) == [f"column {k}" for k in (1, 2, 3, 4)]
    play_by_strings(state, "column 2")
    assert column(state, 1, "earth") == [53] and 14 in pool(state)


def test_swap_declarations_are_hidden_until_all_are_made():
    """Rulings 5 and 32."""
    state = start(hands=[(5, 35, 10, 14, 39, 53), (36, 26, 11, 48, 1, 49)])
    play_by_strings(state, "pick 5", "pick 36")
    other = start(hands=[(5, 35, 10, 14, 39, 53), (36, 26, 11, 48, 1, 49)])
    play_by_strings(other, "pick 5", "pick 36")
    play_by_strings(state, "swap 25")
    play_by_strings(other, "no swap")
    for observe in (lambda s: s.information_state_string(1), lambda s: s.information_state_tensor(1),
                    lambda s: s.observation_string(1), lambda s: s.observation_tensor(1)):
        assert observe(state) == observe(other)
    assert state.information_state_string(0) != other.information_state_string(0)
    assert "p0 declares" in state.information_state_string(1)
    play_by_strings(state, "no swap")
    assert "p0 swap 25" in state.information_state_string(1)


def test_bifarius_reverses_the_draft_or_breaks_ties():
    """Rulings 12 and 19."""
    hands = [(51, 1, 3, 4, 5, 6), (14, 16, 17, 18, 19, 20), (27, 29, 30, 31, 32, 33)]
    state = start(players=3, box=(7, 8, 9), pool=(10, 11, 12), hands=hands)
    play_by_strings(state, "pick 51", "pick 14", "pick 27", "no swap", "no swap", "no swap")
    assert state.current_player() == 0 and legal(state) == ["reverse draft", "tie-breaker"]
    play_by_strings(state, "reverse draft", "no crystal", "no crystal")
    # Reversed: seat s receives the hand of seat s + 1, so p0 now holds p1's hand.
    assert legal(state) == [f"pick {n}" for n in (16, 17, 18, 19, 20)]
    assert "draft reversed" in state.observation_string(2)
    state = start(players=3, box=(7, 8, 9), pool=(10, 11, 12), hands=hands)
    play_by_strings(state, "pick 51", "pick 14", "pick 27", "no swap", "no swap", "no swap", "tie-breaker")
    assert field(state, R.S.mark_bifarius) == 0 and "tie-breakers 51 Bifarius (p0)" in state.observation_string(1)
    play_by_strings(state, "no crystal", "no crystal")
    assert legal(state) == [f"pick {n}" for n in (29, 30, 31, 32, 33)]  # from p2, as usual


def test_speculum_copying_bifarius_marks_the_speculum():
    """Ruling 25."""
    hands = [(36, 1, 3, 4, 5, 6), (51, 16, 17, 18, 19, 20), (27, 29, 30, 31, 32, 33)]
    state = start(players=3, box=(7, 8, 9), pool=(10, 11, 12), hands=hands)
    play_by_strings(state, "pick 36", "pick 51", "pick 27", "no swap", "no swap", "no swap")
    assert legal(state) == ["copy 10", "copy 11", "copy 51"]
    play_by_strings(state, "copy 51", "tie-breaker", "tie-breaker")
    assert field(state, R.S.mark_speculum) == 0 and field(state, R.S.mark_bifarius) == 1


def test_overload_moves_for_a_crystal_and_costs_its_holder_5():
    """Rulings 9, 10 and 20."""
    state = start(overload=True, pool=(12, 25, 46, 3), hands=[(55, 5, 10, 14, 39, 35), (48, 26, 11, 36, 49, 54)])
    assert "overload beside p0" in state.observation_string(1)
    assert len(legal(state)) == 5  # the Overload is not a hand card
    play_by_strings(state, "pick 5", "pick 49", "no swap", "no swap", "give 49", "take 46")
    # Crystal step: p0's crystal first, then the Overload move (it costs a crystal).
    assert legal(state) == ["crystal 5", "no crystal"]
    play_by_strings(state, "no crystal")
    assert legal(state) == ["overload to 1", "keep overload"]
    play_by_strings(state, "overload to 1")
    assert crystals(state, 0) == 1 and field(state, R.S.supply) == 11 and field(state, R.S.overload) == 1
    # p1 comes later in seat order and may hand it back the same turn.
    assert state.current_player() == 1 and legal(state) == ["crystal 46", "no crystal"]
    play_by_strings(state, "no crystal")
    assert legal(state) == ["overload to 0", "keep overload"]
    play_by_strings(state, "keep overload")
    assert state.current_player() == 0 and legal(state)[0].startswith("pick")


def test_overload_cannot_go_to_a_player_with_induratus():
    """Ruling 9."""
    state = start(overload=True, pool=(12, 25, 46, 3), hands=[(55, 5, 10, 14, 39, 35), (26, 48, 11, 36, 49, 54)])
    play_by_strings(state, "pick 5", "pick 26", "no swap", "no swap", "no crystal")
    assert state.current_player() == 0 and legal(state)[0].startswith("pick")


def test_a_player_with_an_empty_hand_skips_the_turn():
    # With the Overload one hand is a card short, so some turn finds a hand empty:
    # its holder then has no decision at all that turn (ruling 10).
    game = elements_ai.load_game("elementum", overload=True)
    rng = np.random.default_rng(3)
    skipped = 0
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            if player >= 0:
                active = field(state, R.S.active)
                assert (active >> player) & 1, str(state)
                skipped += active != 3 and field(state, R.S.step) == R.STEP_PICK
            state.apply_action(random_action(state, rng))
        holder = field(state, R.S.overload)
        result = score_state(state)
        assert result.totals[holder] == result.cards.query("player == @holder and card != 55")["points"].sum() - 5
    assert skipped > 0


@pytest.mark.parametrize("players, overload, dealt", [(1, False, 32), (2, False, 36), (3, False, 48), (4, False, 48),
                                                      (1, True, 32), (2, True, 36), (4, True, 48)])
def test_cards_drafted_per_player_count(players, overload, dealt):
    game = elements_ai.load_game("elementum", players=players, overload=overload)
    rng = np.random.default_rng(players)
    state = game.new_initial_state()
    deals = pools = 0
    while not state.is_terminal():
        if state.is_chance_node():
            action = random_action(state, rng)
            text = state.action_to_string(-1, action)
            deals += text.startswith("deal")
            pools += text.startswith("pool")
            state.apply_action(action)
        else:
            state.apply_action(random_action(state, rng))
    assert deals == dealt  # the Overload, when played, is one of them
    assert pools == (4 if overload else 3)


# --- the solo game ---------------------------------------------------------------------------

SOLO_HANDS = [(1, 3, 4, 5, 6, 7), (53, 54, 14, 16, 17, 18)]


def test_solo_imitation_picks_at_random_and_places_universal_cards_leftmost_fewest():
    """Ruling 13."""
    state = start(players=1, box=(8, 12, 19), pool=(20, 21, 24), hands=SOLO_HANDS)
    assert state.get_game().num_players() == 1 and state.current_player() == 0
    play_by_strings(state, "pick 1")
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert legal(state) == [f"imitation picks {n}" for n in (14, 16, 17, 18, 53, 54)]
    assert all(abs(p - 1 / 6) < 1e-12 for _, p in outcomes)
    play_by_strings(state, "imitation picks 53")
    assert column(state, 1, "fire") == [53]  # every column empty: the leftmost
    play_by_strings(state, "no swap", "no crystal", "pick 14", "imitation picks 5")
    assert column(state, 1, "fire") == [53, 5]
    play_by_strings(state, "no swap", "no crystal", "pick 3", "imitation picks 54")
    assert column(state, 1, "earth") == [54]  # fire holds 2, the rest none: earth
    # The imitation never swaps, effects nothing, takes no crystal.
    assert crystals(state, 1) == 0 and legal(state) == ["swap 20", "swap 21", "swap 24", "no swap"]


def test_solo_velocitatis_makes_the_imitation_pick_a_second_card():
    """Rulings 13 and 26."""
    state = start(players=1, box=(8, 12, 19), pool=(20, 21, 24), hands=[(53, 3, 4, 5, 6, 7), (1, 54, 14, 16, 17, 18)])
    play_by_strings(state, "pick 53", "imitation picks 1", "column 4", "no swap", "pick 5")
    assert legal(state) == [f"imitation picks {n}" for n in (14, 16, 17, 18, 54)]
    play_by_strings(state, "imitation picks 54")
    assert column(state, 1, "earth") == [54]  # after 1 in the fire column
    assert field(state, R.S.hand_size, 0) == 4 and field(state, R.S.hand_size, 1) == 4


def test_solo_pool_joins_the_imitation_in_ascending_order_and_overload_to_imitation():
    """Ruling 13."""
    game = elements_ai.load_game("elementum", players=1, overload=True)
    rng = np.random.default_rng(11)
    names = set()
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                names.update(legal(state))
            state.apply_action(random_action(state, rng))
        # The imitation's cards it did not pick came from the pool at the end.
        left = [c + 1 for c in range(54) if field(state, R.S.loc, c) == R.LOC_LAYOUT + R.IMITATION
                and field(state, R.S.picker, c) != R.IMITATION]
        assert pool(state) == [] and left
        # Each joins, in ascending order, the bottom of its column (universal: the
        # leftmost column with the fewest cards at that moment).
        sources = [ELEMENTS[field(state, R.S.source, k)] for k in range(4)]
        heights = [len(column(state, 1, e)) for e in sources]  # by column, left to right
        for n in left:
            heights[field(state, R.S.col, n - 1)] -= 1
        for n in left:
            element = CARD_TABLE[n - 1].element
            k = heights.index(min(heights)) if element == "universal" else sources.index(element)
            assert field(state, R.S.loc, n - 1) == R.LOC_LAYOUT + R.IMITATION
            assert (field(state, R.S.col, n - 1), field(state, R.S.row, n - 1)) == (k, heights[k])
            heights[k] += 1
        assert state.returns() == [score_state(state).totals[0]]
    assert "overload to imitation" in names


def test_solo_removes_the_chosen_cards():
    game = elements_ai.load_game("elementum", players=1, solo_removed="1_3_4_5")
    state = game.new_initial_state()
    play_by_strings(state, *[f"source {e}" for e in ORDER])
    box = legal(state)
    assert len(box) == 38 and "box 1" not in box and "box 10" in box and "box 2" not in box


# --- hidden information ------------------------------------------------------------------------

def views(state, player):
    return (state.information_state_string(player), state.information_state_tensor(player),
            state.observation_string(player), state.observation_tensor(player))


THREE = dict(players=3, box=(7, 8, 9), pool=(10, 11, 12))
THREE_HANDS = [(1, 3, 4, 5, 6, 13), (14, 16, 17, 18, 19, 20), (27, 29, 30, 31, 32, 33)]


def test_a_hidden_pick_is_invisible_to_the_others_until_revealed():
    """Ruling 5; interface convention 4."""
    a = play_by_strings(start(**THREE, hands=THREE_HANDS), "pick 1")
    b = play_by_strings(start(**THREE, hands=THREE_HANDS), "pick 3")
    for player in (1, 2):
        assert views(a, player) == views(b, player)
    assert views(a, 0) != views(b, 0)
    play_by_strings(a, "pick 14")
    play_by_strings(b, "pick 14")
    assert views(a, 2) == views(b, 2) and views(a, 1) == views(b, 1)
    play_by_strings(a, "pick 27")
    play_by_strings(b, "pick 27")
    assert views(a, 1) != views(b, 1)  # revealed


def test_other_hands_are_hidden_until_they_arrive():
    """Ruling 37."""
    other = [THREE_HANDS[0], (27, 16, 17, 18, 19, 20), (14, 29, 30, 31, 32, 33)]
    a = start(**THREE, hands=THREE_HANDS)
    b = start(**THREE, hands=other)
    assert views(a, 0) == views(b, 0)
    assert views(a, 1) != views(b, 1) and views(a, 2) != views(b, 2)
    for state in (a, b):
        play_by_strings(state, "pick 1", "pick 16", "pick 30", "no swap", "no swap", "no swap",
                        "crystal 1", "no crystal")
    # Hands passed to the next seat: p0 now holds p2's former hand.
    assert views(a, 0) != views(b, 0)
    assert "hands passed: you receive [27 Colligit, 29 Collatio, 31 Propter, 32 Praestantia, 33 Ambientia]" in (
        a.information_state_string(0))


def test_the_box_is_never_revealed():
    game = elements_ai.load_game("elementum", players=3)
    rng = np.random.default_rng(0)
    card_pieces = [(i, piece) for i, piece in enumerate(game.config.info_pieces) if piece.shape[-1] in (54, 55)]
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        box = [c for c in range(54) if field(state, R.S.loc, c) == R.LOC_BOX]
        if len(box) == 3 and not state.is_chance_node():
            labels = [f"{c + 1} {CARD_TABLE[c].name}" for c in box]
            for player in range(3):
                text = state.information_state_string(player) + state.observation_string(player)
                assert not any(label in text for label in labels)
                observer.set_from(state, player)
                for _, piece in card_pieces:
                    assert not observer.dict[piece.name][..., box].any(), piece.name
                checked += 1
        state.apply_action(random_action(state, rng))
    assert checked > 100


def random_decision_states(params, count, seed):
    game = elements_ai.load_game("elementum", **params)
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if not state.is_chance_node() and rng.random() < 0.1:
                found.append(state.clone())
            state.apply_action(random_action(state, rng))
    return game, found


def test_resample_deals_the_unknown_cards_uniformly():
    """Ruling 39."""
    # p0 at the first pick of a 2-player game: p1's 6 cards, the box and the deck
    # are the 42 - 6 - 3 = 33 cards p0 has not seen; each lands in p1's hand with
    # probability 6/33.
    state = start(hands=[(35, 5, 10, 14, 39, 53), (48, 26, 11, 36, 49, 54)])
    game = state.get_game()
    rng = seeds_from(5, 1)
    counts = np.zeros(54)
    draws = 3000
    out = np.empty_like(state.array)
    for _ in range(draws):
        KERNEL.resample(game.cfg, state.array, 0, rng, out)
        counts += out[R.S.loc: R.S.loc + 54] == R.LOC_HAND + 1
    unknown = [c for c in range(54) if state.array[R.S.loc + c] in (R.LOC_DECK, R.LOC_BOX, R.LOC_HAND + 1)]
    assert len(unknown) == 33 and counts.sum() == 6 * draws
    share = counts[unknown] / draws
    assert np.all(np.abs(share - 6 / 33) < 0.035), share


# --- the rules bot -------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", list(elements_ai.get_kernel("elementum").variants))
def test_rules_bot_plays_legal_moves(variant):
    game = elements_ai.load_game("elementum", **elements_ai.get_kernel("elementum").variants[variant])
    rng = np.random.default_rng(1)
    bots = [make_bot("rules", game, p, seed=p) for p in range(game.num_players())]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(random_action(state, rng))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)


def test_rules_bot_beats_random():
    game = elements_ai.load_game("elementum")
    wins = 0
    games = 24
    for g in range(games):
        seat = g % 2
        bots = [make_bot("rules" if p == seat else "random", game, p, seed=g) for p in range(2)]
        returns, _ = play_game(game, bots, seed=g)
        wins += returns[seat] > 0
    assert wins >= 0.8 * games, wins


def test_rules_bot_reads_only_what_it_sees():
    a = play_by_strings(start(**THREE, hands=THREE_HANDS), "pick 1")
    b = play_by_strings(start(**THREE, hands=[THREE_HANDS[0], (14, 16, 17, 18, 19, 27), (20, 29, 30, 31, 32, 33)]),
                        "pick 3")
    assert views(a, 1)[:2] != views(b, 1)[:2]
    c = play_by_strings(start(**THREE, hands=THREE_HANDS), "pick 3")
    for seed in range(5):
        assert KERNEL.heuristic(a.get_game().cfg, a.array, 1, seeds_from(seed, 1)) == KERNEL.heuristic(
            c.get_game().cfg, c.array, 1, seeds_from(seed, 1))


# --- all bots, every player count ------------------------------------------------------------------

@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_bot_plays_every_player_count_to_the_end(players):
    game = elements_ai.load_game("elementum", players=players, overload=players == 4)
    for spec in ("random", "rules", "mcts:sims=8", "ismcts:sims=8"):
        bots = [make_bot(spec, game, p, seed=p) for p in range(players)]
        returns, _ = play_game(game, bots, seed=players)
        assert len(returns) == players and (players == 1 or abs(sum(returns)) < 1e-9)


# --- the end of the game, returns and strings ------------------------------------------------------

@pytest.mark.parametrize("variant", list(elements_ai.get_kernel("elementum").variants))
def test_returns_are_points_minus_the_mean_from_the_same_scoring(variant):
    params = elements_ai.get_kernel("elementum").variants[variant]
    game = elements_ai.load_game("elementum", **params)
    rng = np.random.default_rng(2)
    for _ in range(10):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                hand = field(state, R.S.hand_size, field(state, R.S.hand_of, state.current_player()))
                if field(state, R.S.decision) == R.DEC_PICK and hand == 1:
                    assert len(state.legal_actions()) == 1  # the last card must be placed
            state.apply_action(random_action(state, rng))
        result = score_state(state)
        points = result.totals
        for p, total in enumerate(points):
            assert total == result.cards[result.cards.player == p]["points"].sum()
        expected = points if game.num_players() == 1 else [p - sum(points) / len(points) for p in points]
        assert state.returns() == pytest.approx(expected)
        assert game.min_utility() <= min(state.returns()) <= max(state.returns()) <= game.max_utility()
        lines = str(state).splitlines()
        assert "score card" in lines and lines[-1].strip().startswith("total")
        assert lines[-1].strip().split()[1] == str(points[-1])


@pytest.mark.slow
def test_the_utility_bounds_are_the_relaxation():
    """Ruling 38."""
    for players in (1, 2, 3, 4):
        assert relaxed_max_points(players) == MAX_LAYOUT_POINTS[players]


def test_action_strings_name_every_action():
    game = elements_ai.load_game("elementum", players=4)
    state = game.new_initial_state()
    names = [state.action_to_string(0, a) for a in range(game.num_distinct_actions())]
    assert len(set(names)) == len(names) == 445
    assert names[:2] == ["pick 1", "pick 2"] and names[R.A_COLUMN] == "column 1"
    assert names[R.A_KEEP_OVERLOAD] == "keep overload" and names[R.A_OVERLOAD_TO + 3] == "overload to 3"
    assert legal(state) == [f"source {e}" for e in sorted(ORDER)]


# --- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "params, message",
    [
        ({"players": 0}, "players=0 is out of range; it must be an integer from 1 to 4"),
        ({"players": 5}, "players=5 is out of range"),
        ({"players": "two"}, "parameter players must be"),
        ({"overload": "maybe"}, "parameter overload must be"),
        ({"solo_removed": "10_11_26"}, "solo_removed='10_11_26' is out of range; it must be 4 distinct"),
        ({"solo_removed": "2_10_11_26"}, "none of the 2-player removals"),
        ({"solo_removed": "10_10_11_26"}, "4 distinct"),
        ({"solo_removed": "a_b_c_d"}, "solo_removed"),
        ({"seats": 2}, "unknown parameter 'seats'"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises((ValueError, TypeError), match=message):
        elements_ai.load_game("elementum", **params)


def test_illegal_actions_are_named_and_leave_the_state_unchanged():
    state = start(hands=[(35, 5, 10, 14, 39, 53), (48, 26, 11, 36, 49, 54)])
    before, data = str(state), state.array.copy()
    with pytest.raises(ValueError, match=r"illegal .*pick 49"):
        state.apply_action(R.A_PICK + 48)
    with pytest.raises(ValueError, match="illegal .*no swap"):
        state.apply_action(R.A_NO_SWAP)
    with pytest.raises(ValueError, match="illegal"):
        state.apply_action(10_000)
    assert str(state) == before and np.array_equal(state.array, data)
    chance = elements_ai.load_game("elementum").new_initial_state()
    with pytest.raises(ValueError, match="illegal .*7"):
        chance.apply_action(7)


def test_the_vector_face_names_an_illegal_action():
    env = elements_ai.make_vec("elementum", num_envs=3, seed=0, players=3)
    states = env.states.copy()
    with pytest.raises(ValueError, match="illegal"):
        env.step(np.full(3, R.A_KEEP_OVERLOAD))
    assert np.array_equal(env.states, states)


def test_pyspiel_loads_every_variant_by_its_string():
    for params in elements_ai.get_kernel("elementum").variants.values():
        game = elements_ai.load_game("elementum", **params)
        again = pyspiel.load_game(str(game))
        assert str(again) == str(game) and again.num_players() == game.num_players()


@pytest.mark.parametrize("variant", list(elements_ai.get_kernel("elementum").variants))
def test_sample_legal_draws_the_legal_actions_in_the_order_of_the_mask(variant):
    game, states = random_decision_states(elements_ai.get_kernel("elementum").variants[variant], 150, seed=6)
    kinds = set()
    for state in states:
        legal = state.legal_actions()
        n = len(legal)
        assert [R.sample_legal(game.cfg, state.array, (k + 0.5) / n) for k in range(n)] == legal
        kinds.add(field(state, R.S.decision))
    assert {R.DEC_PICK, R.DEC_SWAP, R.DEC_CRYSTAL} <= kinds
