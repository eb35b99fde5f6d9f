"""Elements (1997): rulebook scenarios and the rulings with exact outcomes, the
combination ranking, hidden information, resampling, the rules bot and bad input."""

import collections
import itertools

import numpy as np
import pyspiel
import pytest
from scipy import stats

import elements_ai
from elements_ai.agents import make_bot, play_game
from elements_ai.core import layout
from elements_ai.games.elements1997 import rules as R
from elements_ai.games.elements1997.strings import card_name
from elements_ai.testing import check_conformance, check_faces_agree, play_by_strings, random_action, random_states

ORDER = ("red", "yellow", "green", "blue", "white")  # the element row from the box


def card(name):
    colour, value = name.split()
    return R.COLOURS.index(colour) * R.NUM_VALUES + int(value)


def cards(colour, *values):
    return [f"{colour} {v}" for v in values]


def new_game(hands, first=0, order=ORDER, **params):
    """A game after the setup and the deal: ``hands[p]`` are player p's 11 cards."""
    game = elements_ai.load_game("elements1997", players=len(hands), **params)
    state = game.new_initial_state()
    setup = [f"first player {first}"] + [f"element {c}" for c in order]
    deals = [f"deal {c}" for hand in hands for c in hand]
    return play_by_strings(state, *setup, *deals)


def moves(state, *script):
    """Applies ``(player, move)`` pairs, checking who is to move before each."""
    for player, move in script:
        assert state.current_player() == player, (player, move, str(state))
        play_by_strings(state, move)
    return state


def legal(state):
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def line(state, prefix, player=None):
    text = str(state) if player is None else state.information_state_string(player)
    found = [row for row in text.split("\n") if row.startswith(prefix)]
    assert len(found) == 1, (prefix, text)
    return found[0]


def strength_order(state):
    """The element row from the box, strongest colour first."""
    return line(state, "element row from the box").split(": ")[1]


def hand_sizes(state):
    return [int(state.array[R.S.hand_size + p]) for p in range(state.get_game().num_players())]


def scores(state):
    return [int(state.array[R.S.score + p]) for p in range(state.get_game().num_players())]


# Three players; p0 holds reds, p1 yellows, p2 greens and blues.
HANDS_3 = [
    cards("red", *range(1, 11)) + ["yellow 1"],
    cards("yellow", *range(2, 11)) + ["green 1", "green 2"],
    cards("green", *range(3, 11)) + cards("blue", 1, 2, 3),
]
# Bids on slots 1-3; equal values on slots 1 and 3 (5s), and a 7 on slot 2.
BIDS_3 = [(0, "bid red 5"), (0, "slot 1"), (1, "bid yellow 7"), (1, "slot 2"), (2, "bid green 5"), (2, "slot 3")]


# --- phase 1: bids, filling, sorting ------------------------------------------------------

def test_setup_chance_nodes_follow_the_specification():
    game = elements_ai.load_game("elements1997", players=5)
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(k, 0.2) for k in range(5)]
    play_by_strings(state, "first player 3", "element blue", "element red")
    assert state.chance_outcomes() == [(1, 1 / 3), (2, 1 / 3), (4, 1 / 3)]
    play_by_strings(state, "element white", "element green")
    assert state.chance_outcomes() == [(1, 1.0)]  # the fifth element has one outcome
    play_by_strings(state, "element yellow", "deal red 0")
    # The first deal serves seat 0 first, whoever is the first player.
    assert hand_sizes(state) == [1, 0, 0, 0, 0]
    assert len(state.chance_outcomes()) == 54


def test_bids_are_followed_by_their_slot_and_fill_the_row_from_the_box():
    state = new_game(HANDS_3)
    assert state.current_player() == 0 and len(legal(state)) == 11
    moves(state, (0, "bid red 5"))
    assert legal(state) == [f"slot {k}" for k in range(1, 6)]  # asked even for one free slot
    moves(state, (0, "slot 1"), (1, "bid yellow 7"))
    assert legal(state) == ["slot 2", "slot 3", "slot 4", "slot 5"]
    moves(state, (1, "slot 2"), (2, "bid green 5"), (2, "slot 3"))
    # Ruling 2: the two empty slots get the top cards of the pile, nearest the box first.
    assert state.is_chance_node()
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 22 and set(outcomes.values()) == {1 / 22}
    play_by_strings(state, "deal blue 7")
    assert line(state, "row").startswith("row 1 red: p0 red 5 | 2 yellow: p1 yellow 7 | 3 green: p2 green 5 | "
                                          "4 blue: pile blue 7 | 5 white: -")


def test_sorting_is_stable_and_sets_colour_strength_and_the_contest_order():
    state = new_game(HANDS_3)
    moves(state, *BIDS_3)
    play_by_strings(state, "deal blue 7", "deal white 2")
    # Values 5, 7, 5, 7, 2 on red, yellow, green, blue, white: the 7s keep their
    # order (yellow was nearer the box), then the 5s (red before green), then white.
    assert strength_order(state) == "yellow > blue > red > green > white"
    assert line(state, "row") == (
        "row 1 yellow: p1 yellow 7, open | 2 blue: pile blue 7, open | 3 red: p0 red 5, open | "
        "4 green: p2 green 5, open | 5 white: pile white 2, being contested"
    )
    # Lowest first; of the equal 5s the one further from the box (green) first.
    contested = []
    while not state.array[R.S.phase] == R.PH_DISCARD:
        contested.append(card_name(int(state.array[R.S.slot_card + state.array[R.S.contest_pos]])))
        for _ in range(3):
            play_by_strings(state, "pass")
    assert contested == ["white 2", "green 5", "red 5", "blue 7", "yellow 7"]


def test_aside_rule_sets_empty_elements_last_and_gives_no_point_card():
    state = new_game(HANDS_3, empty_slots="aside")
    moves(state, *BIDS_3)
    assert not state.is_chance_node()  # nothing is filled
    assert strength_order(state) == "yellow > red > green > blue > white"
    assert line(state, "row") == (
        "row 1 yellow: p1 yellow 7, open | 2 red: p0 red 5, open | 3 green: p2 green 5, being contested | "
        "4 blue: - | 5 white: -"
    )
    assert [int(r) for r in state.array[R.S.rank : R.S.rank + 5]] == [1, 0, 2, 3, 4]


def test_aside_colours_keep_their_previous_order_below_all_others():
    # Start order white, blue, green, yellow, red: bids on green (slot 3) and red (slot 5) and yellow (4).
    state = new_game(HANDS_3, order=("white", "blue", "green", "yellow", "red"), empty_slots="aside")
    moves(state, (0, "bid red 5"), (0, "slot 3"), (1, "bid yellow 7"), (1, "slot 5"), (2, "bid green 5"), (2, "slot 4"))
    assert strength_order(state) == "red > green > yellow > white > blue"


# --- phase 2: contests ------------------------------------------------------------------------

def round_one_of_scenario_a():
    """Round 1 of a three-player game played to its end (see the comments)."""
    state = new_game(HANDS_3)
    moves(state, *BIDS_3)
    play_by_strings(state, "deal blue 7", "deal white 2")
    # Contest 1 (white 2): nobody enters; the point card goes to the pile.
    moves(state, (0, "pass"), (1, "pass"), (2, "pass"))
    # Contest 2 (green 5): the same starter again. p0's pair of red (strength 3rd)
    # beats p1's single yellow (strongest colour) and p2's single green.
    moves(state, (0, "play red 1"), (1, "play yellow 2"), (2, "play green 3"), (0, "play red 2"),
          (1, "pass"), (2, "pass"), (0, "pass"))
    return state


def test_a_contest_nobody_enters_and_the_same_player_starts_again():
    state = new_game(HANDS_3)
    moves(state, *BIDS_3)
    play_by_strings(state, "deal blue 7", "deal white 2")
    pile = int(state.array[R.S.pile])
    moves(state, (0, "pass"), (1, "pass"), (2, "pass"))
    assert "5 white: pile white 2, won by nobody" in line(state, "row")
    assert int(state.array[R.S.pile]) == pile + 1 and scores(state) == [0, 0, 0]
    assert state.current_player() == 0 and "contest 2 for green 5, started by p0" in str(state)


def test_after_a_contest_nobody_won_its_starter_starts_again_not_the_first_player():
    state = new_game(HANDS_3, empty_slots="aside")
    moves(state, *BIDS_3)
    # green 5: p2 alone places a card and wins; p2 starts the next contest.
    moves(state, (0, "pass"), (1, "pass"), (2, "play green 3"), (2, "pass"))
    assert scores(state) == [0, 0, 5] and state.current_player() == 2
    # red 5: everybody passes; the same starter (p2, not the round's first p0) again.
    moves(state, (2, "pass"), (0, "pass"), (1, "pass"))
    assert "2 red: p0 red 5, won by nobody" in line(state, "row")
    assert state.current_player() == 2 and "contest 3 for yellow 7, started by p2" in str(state)


def test_turns_place_one_card_then_one_then_two_and_passing_is_final():
    state = round_one_of_scenario_a()
    assert scores(state) == [5, 0, 0] and "4 green: p2 green 5, won by p0" in line(state, "row")
    # Contest 3 (red 5) starts with the winner p0.
    moves(state, (0, "play yellow 1"), (1, "play green 1"), (2, "play blue 1"))
    moves(state, (0, "play red 4"), (1, "play green 2"), (2, "play blue 2"))
    # Third turn: two cards at once, nobody acts in between; the second has no pass.
    moves(state, (0, "play red 6"))
    assert state.current_player() == 0 and "pass" not in legal(state)
    moves(state, (0, "play red 7"))
    moves(state, (1, "pass"))
    moves(state, (2, "play blue 3"), (2, "play green 4"))
    # p0: three of red; p1 passed with a pair of green; p2: three of blue (blue is stronger).
    assert scores(state) == [5, 0, 5] and "3 red: p0 red 5, won by p2" in line(state, "row")
    assert state.current_player() == 2  # the winner starts the next contest
    # Contest 4 (blue 7): four of a colour each; yellow is the strongest colour.
    moves(state, (2, "play green 6"), (0, "play red 8"), (1, "play yellow 8"))
    moves(state, (2, "play green 7"), (0, "play red 9"), (1, "play yellow 9"))
    moves(state, (2, "play green 8"), (2, "play green 9"), (0, "play red 10"), (0, "play red 3"))
    moves(state, (1, "play yellow 10"), (1, "play yellow 3"))
    assert scores(state) == [5, 7, 5] and state.current_player() == 1


# The rest of round 1 of scenario A, from contest 3 on (see the tests below).
REST_OF_ROUND_ONE = [
    (0, "play yellow 1"), (1, "play green 1"), (2, "play blue 1"), (0, "play red 4"), (1, "play green 2"),
    (2, "play blue 2"), (0, "play red 6"), (0, "play red 7"), (1, "pass"), (2, "play blue 3"), (2, "play green 4"),
    (2, "play green 6"), (0, "play red 8"), (1, "play yellow 8"), (2, "play green 7"), (0, "play red 9"),
    (1, "play yellow 9"), (2, "play green 8"), (2, "play green 9"), (0, "play red 10"), (0, "play red 3"),
    (1, "play yellow 10"), (1, "play yellow 3"), (1, "play yellow 4"), (2, "play green 10"), (0, "pass"),
    (1, "play yellow 5"), (2, "pass"), (1, "pass"),
]
SHOWN_IN_ROUND_ONE = {"red 5", "yellow 7", "green 5", "blue 7", "white 2", "red 1", "yellow 2", "green 3", "red 2"} | {
    move.split(" ", 1)[1] for _, move in REST_OF_ROUND_ONE if move.startswith("play")
}


def test_a_player_without_two_cards_must_pass_on_the_third_turn_and_without_cards_always():
    state = round_one_of_scenario_a()
    moves(state, *REST_OF_ROUND_ONE[:23])
    # Contest 5 (yellow 7), started by p1. p0 has no cards: pass is its only action.
    assert hand_sizes(state) == [0, 3, 1]
    moves(state, (1, "play yellow 4"), (2, "play green 10"))
    assert legal(state) == ["pass"]
    moves(state, (0, "pass"), (1, "play yellow 5"), (2, "pass"))
    # p1 is alone and keeps its turns; on the third it holds one card: pass only.
    assert state.current_player() == 1 and hand_sizes(state)[1] == 1 and legal(state) == ["pass"]
    moves(state, (1, "pass"))
    assert scores(state) == [5, 14, 5]
    # Phase 3 from the round's first player: p0 and p2 have no cards and no turn.
    assert state.current_player() == 1 and legal(state) == ["discard yellow 6", "keep"]
    moves(state, (1, "keep"))
    # The refill deals the next round's first player (p1) all it needs, then p2, then p0.
    assert state.is_chance_node() and len(state.chance_outcomes()) == 54
    for dealt in range(32):
        play_by_strings(state, state.action_to_string(-1, state.chance_outcomes()[0][0]))
        sizes = hand_sizes(state)
        expected = [max(0, dealt + 1 - 21), min(11, 2 + dealt), min(11, max(0, dealt + 1 - 10))]
        assert sizes == expected, (dealt, sizes)
    assert state.current_player() == 1 and "round 2 of 3, first player p1" in str(state)


def test_a_lone_player_keeps_taking_turns_until_it_passes_or_placed_four():
    state = new_game(HANDS_3)
    moves(state, *BIDS_3)
    play_by_strings(state, "deal blue 7", "deal white 2")
    moves(state, (0, "play red 1"), (1, "pass"), (2, "pass"))
    moves(state, (0, "play red 2"), (0, "play red 3"), (0, "play red 4"))
    assert scores(state) == [2, 0, 0] and state.current_player() == 0  # placed four: contest over


# --- the combination ranking ---------------------------------------------------------------

RANKS = np.array([0, 1, 2, 3, 4])  # red strongest ... white weakest


def key(names, ranks=RANKS):
    ids = np.array([card(n) for n in names], np.int64)
    return R.best_key(ids, len(ids), np.asarray(ranks, np.int64), np.empty(4, np.int64))


# Per category its weakest and strongest example, weakest category first.
CATEGORIES = [
    ("single card", ["white 0"], ["red 10"]),
    ("pair of colour", ["white 0", "white 1"], ["red 10", "red 9"]),
    ("pair of numbers", ["blue 0", "white 0"], ["red 10", "yellow 10"]),
    ("three of a colour", ["white 0", "white 1", "white 2"], ["red 10", "red 9", "red 8"]),
    ("three of a number", ["green 0", "blue 0", "white 0"], ["red 10", "yellow 10", "green 10"]),
    ("four of a colour", cards("white", 0, 1, 2, 3), cards("red", 10, 9, 8, 7)),
    ("four of a number", ["yellow 0", "green 0", "blue 0", "white 0"], ["red 10", "yellow 10", "green 10", "blue 10"]),
]


@pytest.mark.parametrize(
    "higher, lower", list(itertools.combinations(range(len(CATEGORIES)), 2)),
    ids=[f"{CATEGORIES[j][0]} > {CATEGORIES[i][0]}" for i, j in itertools.combinations(range(len(CATEGORIES)), 2)],
)
def test_every_category_beats_every_lower_one(lower, higher):
    lower, higher = sorted((lower, higher))
    weakest_higher = key(CATEGORIES[higher][1])
    strongest_lower = key(CATEGORIES[lower][2])
    assert weakest_higher > strongest_lower
    assert R.CATEGORY_NAMES[weakest_higher >> R.CAT_SHIFT] == CATEGORIES[higher][0]
    assert R.CATEGORY_NAMES[strongest_lower >> R.CAT_SHIFT] == CATEGORIES[lower][0]


@pytest.mark.parametrize(
    "stronger, weaker, rule",
    [
        (["blue 5", "white 5"], ["red 4", "yellow 4"], "number groups: the higher number first"),
        (["green 9", "blue 9", "white 9"], ["red 8", "yellow 8", "green 8"], "three of a number: the number"),
        (["red 7", "white 7"], ["yellow 7", "green 7"], "same number: the strongest colour in the group"),
        (["red 7", "blue 7"], ["red 7", "white 7"], "same strongest colour: the next one"),
        (["yellow 2", "yellow 1"], ["green 10", "green 9"], "colour groups: the colour's strength first"),
        (cards("red", 2, 1, 0), cards("yellow", 10, 9, 8), "three of a colour: the colour's strength"),
        (cards("blue", 3, 2, 1, 0), cards("white", 10, 9, 8, 7), "four of a colour: the colour's strength"),
        (["red 9", "red 1"], ["red 8", "red 7"], "same colour: the highest value first"),
        (["red 9", "red 5"], ["red 9", "red 4"], "same colour and highest value: the next value"),
        (["red 0"], ["yellow 10"], "singles: the colour's strength first"),
        (["blue 7"], ["blue 6"], "singles of one colour: the value"),
    ],
)
def test_tie_breaks_inside_a_category(stronger, weaker, rule):
    assert key(stronger) > key(weaker), rule


def test_colour_strength_comes_from_the_sorted_row():
    # With white strongest (after a sort) a white pair beats a red pair.
    ranks = [4, 1, 2, 3, 0]
    assert key(["white 1", "white 0"], ranks) > key(["red 10", "red 9"], ranks)
    assert key(["white 1", "white 0"]) < key(["red 10", "red 9"])


@pytest.mark.parametrize(
    "placed, best",
    [
        (["red 3", "blue 3", "red 9", "blue 9"], ["red 9", "blue 9"]),  # two pairs of numbers: the 9s
        (["red 5", "blue 5", "green 5", "red 6"], ["red 5", "blue 5", "green 5"]),
        (["red 1", "red 2", "red 3", "blue 1"], ["red 1", "red 2", "red 3"]),  # three of red over a pair of 1s
        (["white 9", "red 0"], ["red 0"]),  # no group: the single of the strongest colour
        (["green 4", "green 8", "white 8"], ["green 8", "white 8"]),  # a pair of numbers over a pair of colour
    ],
)
def test_a_players_combination_is_the_best_among_their_placed_cards(placed, best):
    assert key(placed) == key(best)


# --- phase 3 and the refill with five players -----------------------------------------------

HANDS_5 = [cards(colour, *range(11)) for colour in ORDER]  # p0 all reds, p1 all yellows, ...


def test_five_players_put_all_55_cards_in_play_and_refill_from_the_next_first_player():
    state = new_game(HANDS_5, first=2)
    assert int(state.array[R.S.pile]) == 0 and state.current_player() == 2
    moves(state, (2, "bid green 3"), (2, "slot 1"), (3, "bid blue 4"), (3, "slot 2"), (4, "bid white 5"),
          (4, "slot 3"), (0, "bid red 6"), (0, "slot 4"), (1, "bid yellow 7"), (1, "slot 5"))
    assert not state.is_chance_node()  # five bids fill the row
    assert strength_order(state) == "white > blue > green > yellow > red"
    for _ in range(5):  # nobody enters any contest
        for seat in (2, 3, 4, 0, 1):
            moves(state, (seat, "pass"))
    assert scores(state) == [0, 0, 0, 0, 0] and int(state.array[R.S.pile]) == 5
    # Phase 3 in seat order from p2: discards go into the pile at once.
    moves(state, (2, "discard green 0"), (2, "discard green 1"), (2, "keep"), (3, "keep"))
    for value in (0, 1, 2, 3, 4, 6, 7, 8, 9, 10):  # p4 discards everything: no keep
        moves(state, (4, f"discard white {value}"))
    moves(state, (0, "keep"), (1, "discard yellow 10"), (1, "keep"))
    assert state.is_chance_node() and hand_sizes(state) == [10, 9, 8, 10, 0]
    pile = sorted(a for a, _ in state.chance_outcomes())
    expected = sorted(card(n) for n in ["green 3", "blue 4", "white 5", "red 6", "yellow 7", "green 0", "green 1",
                                        "yellow 10"] + cards("white", 0, 1, 2, 3, 4, 6, 7, 8, 9, 10))
    assert pile == expected and {p for _, p in state.chance_outcomes()} == {1 / 18}
    # Round 2's first player is p3: it is served first, then p4, p0, p1, p2.
    receivers = []
    for _ in range(18):
        before = hand_sizes(state)
        play_by_strings(state, state.action_to_string(-1, state.chance_outcomes()[0][0]))
        receivers.append(int(np.argmax(np.array(hand_sizes(state)) - np.array(before))))
    assert receivers == [3] + [4] * 11 + [0] + [1] * 2 + [2] * 3
    assert hand_sizes(state) == [11] * 5 and int(state.array[R.S.pile]) == 0
    assert state.current_player() == 3 and "round 2 of 5, first player p3" in str(state)
    # The element row stays as sorted; the kept cards stay in hand.
    assert strength_order(state) == "white > blue > green > yellow > red"
    assert "blue 10" in line(state, "hand p3")


# --- returns ------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [{}, {"players": 4, "empty_slots": "aside"}, {"players": 5}])
def test_returns_are_score_minus_mean_and_sum_to_exactly_zero(params):
    game = elements_ai.load_game("elements1997", **params)
    rng = np.random.default_rng(4)
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            assert state.returns() == [0.0] * game.num_players()
            state.apply_action(random_action(state, rng))
        points = np.array(scores(state), float)
        returns = np.array(state.returns())
        np.testing.assert_allclose(returns, points - points.mean(), atol=1e-12)
        assert returns.sum() == 0.0 and sum(state.returns()) == 0.0
        assert game.min_utility() <= returns.min() and returns.max() <= game.max_utility()


def test_returns_of_a_whole_scripted_round_one():
    # Round 1 of scenario A played out, then everybody passes to the end.
    state = round_one_of_scenario_a()
    while not state.is_terminal():
        if state.is_chance_node():
            play_by_strings(state, state.action_to_string(-1, state.chance_outcomes()[0][0]))
        elif "pass" in legal(state):
            play_by_strings(state, "pass")
        elif "keep" in legal(state):
            play_by_strings(state, "keep")
        else:
            state.apply_action(state.legal_actions()[0])
    assert scores(state) == [5, 0, 0]
    assert state.returns() == pytest.approx([10 / 3, -5 / 3, -5 / 3], abs=1e-12)


# --- hidden information ---------------------------------------------------------------------

SWAPPED = [HANDS_3[0], HANDS_3[1][:-1] + ["blue 10"], HANDS_3[2]]  # p1 holds blue 10 for green 2


def views(state, player):
    return state.information_state_tensor(player), state.information_state_string(player), \
        state.observation_tensor(player), state.observation_string(player)


def test_a_hand_stays_hidden_from_every_other_player():
    a, b = new_game(HANDS_3), new_game(SWAPPED)
    for state in (a, b):
        moves(state, *BIDS_3)
        play_by_strings(state, "deal blue 7", "deal white 2")
        moves(state, (0, "pass"), (1, "pass"), (2, "pass"), (0, "play red 1"), (1, "play yellow 2"))
    assert str(a) != str(b)
    for other in (0, 2):
        assert views(a, other) == views(b, other)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.observation_tensor(1) != b.observation_tensor(1)


def test_a_bid_stays_hidden_until_the_reveal():
    a, b = new_game(HANDS_3), new_game(HANDS_3)
    moves(a, (0, "bid red 5"), (0, "slot 1"), (1, "bid yellow 7"))
    moves(b, (0, "bid red 5"), (0, "slot 1"), (1, "bid yellow 9"))
    for other in (0, 2):  # the pending bid
        assert views(a, other) == views(b, other)
    moves(a, (1, "slot 2"))
    moves(b, (1, "slot 2"))
    for other in (0, 2):  # the face-down bid, and where it lies
        assert views(a, other) == views(b, other)
    assert "2 yellow: p1 face down" in a.observation_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    for state in (a, b):
        moves(state, (2, "bid green 5"), (2, "slot 3"))
        play_by_strings(state, "deal blue 7", "deal white 2")
    assert a.information_state_string(0) != b.information_state_string(0)  # revealed
    assert "p1 yellow 9" in b.observation_string(0)


def test_discarded_cards_are_hidden_but_their_number_is_public():
    a, b = round_one_of_scenario_a(), round_one_of_scenario_a()
    for state, (first, second) in ((a, ("red 3", "red 4")), (b, ("red 6", "red 7"))):
        while state.array[R.S.phase] != R.PH_DISCARD:
            play_by_strings(state, "pass")
        moves(state, (0, f"discard {first}"), (0, f"discard {second}"), (0, "keep"))
    for other in (1, 2):
        assert views(a, other) == views(b, other)
        assert "round 1: discarded p0 2, p1 0, p2 0; own []" in a.information_state_string(other)
    assert "own [red 3, red 4]" in a.information_state_string(0)


def test_information_state_recalls_past_rounds():
    state = round_one_of_scenario_a()
    while not state.is_chance_node():
        play_by_strings(state, "pass" if "pass" in legal(state) else "keep")
    text = state.information_state_string(2)
    assert "round 1: own cards [green 3, green 4, green 5" in text
    assert "round 1: bids slot 1 p0 red 5, slot 2 p1 yellow 7, slot 3 p2 green 5, slot 4 pile blue 7, " \
           "slot 5 pile white 2" in text
    assert "round 1: contest 2 p0 [red 1, red 2]; p1 [yellow 2]; p2 [green 3]" in text
    observer = state.get_game().make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(state, 2)
    plays = observer.dict["plays"]  # (rounds, cards, players from the observer + contest + placement)
    assert plays[0, card("red 2")].tolist() == [0, 1, 0] + [0, 1, 0, 0, 0] + [0, 1, 0, 0]
    # Round 2's holdings so far: the nine cards p2 kept (nothing is dealt yet).
    assert observer.dict["own_holdings"][0].sum() == 11 and observer.dict["own_holdings"][1].sum() == 9


# --- resampling ---------------------------------------------------------------------------------

def resampled(state, player, count, seed=0):
    game = state.get_game()
    rng = np.array([seed], np.uint64)
    out = np.empty_like(state.array)
    for _ in range(count):
        game.kernel.resample(game.cfg, state.array, player, rng, out)
        yield out


def test_resample_deals_every_hand_its_size_and_the_pile_its_count():
    # The information state, reading nothing hidden and reachability: tests/test_games.py.
    for params in ({}, {"players": 4, "empty_slots": "aside"}, {"players": 5}):
        game = elements_ai.load_game("elements1997", **params)
        for state in random_states(game, 40, seed=2, keep=0.05):
            for player in range(game.num_players()):
                where = layout.views(game.config.state_pieces, next(resampled(state, player, 1, seed=player))).where
                assert [int((where == p).sum()) for p in range(game.num_players())] == hand_sizes(state)
                assert int((where == R.LOC_PILE).sum()) == int(state.array[R.S.pile])


def kept_cards_stay(out, rounds):
    """Does every card an opponent kept (not shown, not discarded) stay in its next hand?"""
    for rnd in range(rounds - 1):
        now = out[R.S.log + R.NUM_CARDS * rnd : R.S.log + R.NUM_CARDS * (rnd + 1)].astype(int)
        after = out[R.S.log + R.NUM_CARDS * (rnd + 1) : R.S.log + R.NUM_CARDS * (rnd + 2)].astype(int)
        kept = (now & R.LOG_HOLDER > 0) & (now >> R.EV_SHIFT == 0)  # held, no event, not discarded
        if not np.array_equal(now[kept] & R.LOG_HOLDER, after[kept] & R.LOG_HOLDER):
            return False
    return True


@pytest.mark.parametrize("players", [3, 4])
def test_resample_draws_a_consistent_history_when_players_keep_cards(players):
    # The rules bot keeps most of its cards, so consecutive refills carry cards.
    game = elements_ai.load_game("elements1997", players=players)
    rng = np.random.default_rng(players)
    checked = 0
    for g in range(2):
        bots = [make_bot("rules", game, p, seed=10 * g + p) for p in range(players)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(random_action(state, rng))
                continue
            if state.array[R.S.round] >= 2 and rng.random() < 0.3:
                player = state.current_player()
                out = next(resampled(state, player, 1, seed=checked)).copy()
                assert kept_cards_stay(out, int(state.array[R.S.round]) + 1)
                other = game.state_from_array(out)
                assert other.information_state_string(player) == state.information_state_string(player)
                checked += 1
            state.apply_action(bots[state.current_player()].step(state))
    assert checked > 10


def chi_square_uniform(counts, cells):
    observed = np.array([counts.get(c, 0) for c in cells])
    assert sum(counts.values()) == observed.sum()  # nothing outside the cells
    return stats.chisquare(observed).pvalue


def test_resample_is_uniform_over_the_card_it_cannot_tell_apart():
    # End of round 1 of scenario A: p1 holds one card p0 never saw; p2 and p0 none.
    state = moves(round_one_of_scenario_a(), *REST_OF_ROUND_ONE)
    assert hand_sizes(state) == [0, 1, 0] and state.current_player() == 1
    unseen = [c for c in range(R.NUM_CARDS) if card_name(c) not in SHOWN_IN_ROUND_ONE | set(HANDS_3[0])]
    counts = collections.Counter()
    for out in resampled(state, 0, 12_000, seed=3):
        where = out[R.S.where : R.S.where + R.NUM_CARDS]
        (held,) = np.flatnonzero(where == 1)
        counts[int(held)] += 1
        # The rest of the history follows: p1 held in round 1 its shown cards and this one.
        log0 = out[R.S.log : R.S.log + R.NUM_CARDS]
        assert (log0[held] & R.LOG_HOLDER) == 2
    # 44 cards p0 did not hold, 23 of them shown: p1 holds each of the other 21 equally often.
    assert len(unseen) == 21 and chi_square_uniform(counts, unseen) > 1e-3


def test_resample_counts_the_kept_card_across_the_refill():
    # p1 keeps the one card nobody saw (yellow 6); the others keep none. In round 2
    # p0 knows p1's kept card is one it did not see in round 1 nor was dealt now.
    state = moves(round_one_of_scenario_a(), *REST_OF_ROUND_ONE, (1, "keep"))
    round_one_unseen = {c for c in range(R.NUM_CARDS) if card_name(c) not in SHOWN_IN_ROUND_ONE | set(HANDS_3[0])}
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        state.apply_action(random_action(state, rng))
    own = set(np.flatnonzero(state.array[R.S.where : R.S.where + R.NUM_CARDS] == 0).tolist())
    candidates = sorted(round_one_unseen - own)
    others = sorted(set(range(R.NUM_CARDS)) - own - set(candidates))
    assert len(own) == 11 and len(candidates) + len(others) == 44
    draws = 20_000
    kept = collections.Counter()
    in_hand = collections.Counter()
    for out in resampled(state, 0, draws, seed=5):
        log0 = out[R.S.log : R.S.log + R.NUM_CARDS]
        log1 = out[R.S.log + R.NUM_CARDS : R.S.log + 2 * R.NUM_CARDS]
        (held,) = [c for c in range(R.NUM_CARDS) if (log0[c] & R.LOG_HOLDER) == 2 and (log0[c] >> R.EV_SHIFT) == 0]
        assert (log1[held] & R.LOG_HOLDER) == 2  # p1's unshown card of round 1 is its kept one
        assert kept_cards_stay(out, 2)
        if not kept:  # the check notices a kept card that left its holder
            tampered = out.copy()
            tampered[R.S.log + R.NUM_CARDS + held] = (tampered[R.S.log + R.NUM_CARDS + held] & ~R.LOG_HOLDER) | 3
            assert not kept_cards_stay(tampered, 2)
        kept[held] += 1
        for c in np.flatnonzero((log1 & R.LOG_HOLDER) == 2):
            in_hand[int(c)] += 1
    # The kept card is uniform over the candidates: each completes as many deals.
    assert chi_square_uniform(kept, candidates) > 1e-3
    # p1's other 10 cards are dealt uniformly from the 43 that p0's deal and the kept card leave.
    u = len(candidates)
    frac_candidate = np.mean([in_hand[c] / draws for c in candidates])
    frac_other = np.mean([in_hand[c] / draws for c in others])
    assert frac_candidate == pytest.approx(1 / u + (1 - 1 / u) * 10 / 43, abs=0.006)
    assert frac_other == pytest.approx(10 / 43, abs=0.006)


# --- the rules bot ----------------------------------------------------------------------------

@pytest.mark.parametrize("params", [{}, {"players": 4, "empty_slots": "aside"}, {"players": 5}])
def test_heuristic_plays_legal_actions_and_beats_random(params):
    game = elements_ai.load_game("elements1997", **params)
    n = game.num_players()
    games = 24
    total = 0.0
    wins = 0
    for g in range(games):
        seat = g % n
        bots = [make_bot("rules" if p == seat else "random", game, p, seed=100 * g + p) for p in range(n)]
        returns, _ = play_game(game, bots, seed=g)  # the rules bot checks every action is legal
        total += returns[seat]
        wins += returns[seat] == max(returns)
    assert total / games > 5.0 and wins / games > 0.6


def test_heuristic_reads_only_what_the_player_sees():
    game = elements_ai.load_game("elements1997")
    for state in random_states(game, 60, seed=8):
        player = state.current_player()
        twin = next(resampled(state, player, 1, seed=4)).copy()
        a = game.kernel.heuristic(game.cfg, state.array, player, np.array([3], np.uint64))
        b = game.kernel.heuristic(game.cfg, twin, player, np.array([3], np.uint64))
        assert a == b and a in state.legal_actions()


# --- every bot, every player count --------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("spec", ["random", "rules", "mcts:sims=20", "ismcts:sims=20"])
def test_every_bot_plays_every_player_count_to_the_end(players, spec):
    game = elements_ai.load_game("elements1997", players=players, empty_slots="aside" if players == 4 else "fill")
    bots = [make_bot(spec, game, p, seed=p) for p in range(players)]
    returns, actions = play_game(game, bots, seed=players)
    assert len(returns) == players and sum(returns) == 0.0 and len(actions) > 100


# --- full-length games through the generic checks --------------------------------------------
# The declared variants shorten the four- and five-player games (ruling 18) to keep
# tests/test_games.py fast; the full games get the same checks here, on fewer games.

@pytest.mark.slow
def test_full_five_player_game_passes_openspiel_conformance():
    check_conformance(elements_ai.load_game("elements1997", players=5), num_sims=2)


@pytest.mark.slow
@pytest.mark.parametrize("params, games", [({"players": 5}, 30), ({"players": 4, "empty_slots": "aside"}, 60)])
def test_full_length_games_agree_on_both_faces(params, games):
    assert check_faces_agree("elements1997", num_games=games, seed=3, **params) == games


@pytest.mark.slow
def test_full_four_player_aside_game_passes_openspiel_conformance():
    check_conformance(elements_ai.load_game("elements1997", players=4, empty_slots="aside"), num_sims=3)


@pytest.mark.slow
def test_sample_legal_draws_every_legal_action_once_from_an_even_grid():
    for params in ({}, {"players": 5}):
        env = elements_ai.make_vec("elements1997", 32, seed=5, autoreset=True, **params)
        checked = 0
        for _ in range(300):
            for i in np.flatnonzero(env.current_player >= 0):
                legal = np.flatnonzero(env.legal_mask[i]).tolist()
                drawn = [int(R.sample_legal(env.config.cfg, env.states[i], (j + 0.5) / len(legal)))
                         for j in range(len(legal))]
                assert sorted(drawn) == legal
                checked += 1
            env.step(env.sample_actions())
        assert checked > 5000


# --- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "params, message",
    [
        ({"players": 2}, "players=2 is out of range; it must be an integer from 3 to 5"),
        ({"players": 6}, "players=6 is out of range"),
        ({"empty_slots": "discard"}, "empty_slots='discard' is out of range; it must be one of 'fill', 'aside'"),
        ({"players": "three"}, "parameter players must be an integer, got 'three'"),
        ({"colours": 4}, "unknown parameter 'colours'"),
        ({"rounds": 4}, "rounds=4 is out of range for 3 players; it must be from 1 to 3, or 0 for one round per"),
        ({"rounds": -1}, "rounds=-1 is out of range; it must be an integer from 0 to 5"),
    ],
)
def test_bad_parameters_name_the_problem(params, message):
    with pytest.raises((ValueError, TypeError), match=message):
        elements_ai.load_game("elements1997", **params)
    with pytest.raises((ValueError, TypeError), match=message):
        elements_ai.make_vec("elements1997", 2, **params)


def test_bad_parameters_through_pyspiel_strings():
    with pytest.raises(ValueError, match="players=7 is out of range"):
        pyspiel.load_game("elements1997(players=7)")
    assert pyspiel.load_game("elements1997(players=4,empty_slots=aside)").num_players() == 4


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    state = new_game(HANDS_3)
    before, history = str(state), state.history()
    for action in (R.SLOT_ACTION, R.PASS, R.KEEP, card("yellow 2"), 62, -2):
        with pytest.raises(ValueError, match=f"illegal action for player 0 {action}"):
            state.apply_action(action)
        assert str(state) == before and state.history() == history
    moves(state, (0, "bid red 5"), (0, "slot 1"))
    with pytest.raises(ValueError, match="illegal action for player 1 55 \\(slot 1\\)"):
        state.apply_action(R.SLOT_ACTION)  # bid first, and slot 1 is taken anyway
    moves(state, (1, "bid yellow 7"))
    with pytest.raises(ValueError, match="illegal action for player 1 55"):
        state.apply_action(R.SLOT_ACTION)
    moves(state, (1, "slot 2"), (2, "bid green 5"), (2, "slot 3"))
    with pytest.raises(ValueError, match=f"illegal chance outcome {card('red 1')}"):
        state.apply_action(card("red 1"))  # in p0's hand, not in the pile
    with pytest.raises(ValueError, match="is not a chance outcome here"):
        state.action_to_string(-1, 60)
    with pytest.raises(ValueError, match="out of range"):
        state.action_to_string(0, 62)


def test_rounds_shortens_the_game():
    game = elements_ai.load_game("elements1997", players=4, rounds=1)
    state = new_game([cards(colour, *range(11)) for colour in ORDER[:4]], rounds=1)
    assert "round 1 of 1" in str(state) and game.max_game_length() < 100
    moves(state, *[(p, m) for p in range(4) for m in (f"bid {ORDER[p]} {p + 1}", f"slot {p + 1}")])
    play_by_strings(state, "deal white 9")
    while not state.is_terminal():
        moves(state, (state.current_player(), "pass"))  # nobody enters: no points, no phase 3
    assert state.returns() == [0.0] * 4
    assert state.get_game().new_initial_state().array.size == R.S.log + R.NUM_CARDS


def test_state_array_is_small():
    for players in (3, 5):
        game = elements_ai.load_game("elements1997", players=players)
        assert game.new_initial_state().array.size <= 500
