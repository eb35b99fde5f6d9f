"""Elements (2016): rules scenarios from the rulebook and the rulings, conformance,
agreement of the faces, hidden information, and bad input."""

import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai.core.layout import views
from elements_ai.testing import play_by_strings, random_states


def deal(p0, p1):
    return [f"deal {v}" for v in list(p0) + list(p1)]


def new_round(game_kwargs=None, start=0, p0=(), p1=()):
    game = elements_ai.load_game("elements", **(game_kwargs or {}))
    state = game.new_initial_state()
    return play_by_strings(state, f"start player {start}", *deal(p0, p1))


def legal_strings(state):
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


# The rulebook's example: limit 13 (6+3+4); the knocker (p0) holds 6+1 with 3+1+2 in
# front; the opponent has 4+2 in front and a 6 in hand.
EXAMPLE_MOVES = [
    "play 4", "take",        # p1 takes the 4
    "play 2", "take",        # p1 takes the 2
    "discard 6", "play 3",   # p0 sheds a 6
    "take", "play 1",        # p0 takes the 3
    "take", "play 2",        # p0 takes the 1
    "take", "play 6",        # p0 takes the 2
    "play 3", "play 4",      # display 6 3 4: limit 13
]


def test_rulebook_example_knock_13_against_12_wins_2_vp():
    state = new_round({"single_round": True}, 0, (6, 1, 4, 2, 6, 3), (6, 3, 1, 2, 6, 4))
    play_by_strings(state, *EXAMPLE_MOVES)
    obs = state.observation_string(0)
    assert "display 6 3 4 (limit 13)" in obs
    assert "in front p0 [1 2 3] p1 [2 4]" in obs
    assert "own hand [1 6] sum 13" in obs
    assert state.current_player() == 0 and "knock" in legal_strings(state)
    play_by_strings(state, "knock")
    assert state.is_terminal()
    assert state.returns() == [2.0, -2.0]


def test_rulebook_example_equal_sums_lose_the_knock():
    # "Had your 6 instead been a 5": the knocker's sum is 12 against 12.
    state = new_round({"single_round": True}, 0, (5, 1, 4, 2, 6, 3), (6, 3, 1, 2, 6, 4))
    play_by_strings(state, *EXAMPLE_MOVES, "knock")
    assert state.is_terminal()
    assert state.returns() == [-2.0, 2.0]


def test_opponent_over_the_limit_loses_to_a_lower_knock():
    state = new_round({"single_round": True}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    play_by_strings(state, "play 3", "play 5", "play 3", "discard 6")
    # limit 11; p0 sum 1+1+2+2 = 6; p1 sum 6+6+6+5 = 23 > 11
    play_by_strings(state, "knock")
    assert state.returns() == [2.0, -2.0]


def test_knock_needs_sum_within_limit():
    state = new_round({"single_round": True}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    play_by_strings(state, "play 3")  # limit 3, p1 sum 34
    assert "knock" not in legal_strings(state)
    with pytest.raises(ValueError, match="knock"):
        state.apply_action(8)


def test_yield_gives_the_opponent_one_point():
    state = new_round({"single_round": True}, 1, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    play_by_strings(state, "play 6", "yield")
    assert state.returns() == [-1.0, 1.0]


def test_first_move_of_a_round_is_play_discard_or_yield():
    state = new_round({}, 0, (1, 1, 2, 6, 3, 3), (6, 6, 6, 6, 5, 5))
    assert legal_strings(state) == ["play 1", "play 2", "play 3", "play 6", "discard 6", "yield"]
    state = new_round({}, 1, (1, 2, 6, 6, 3, 3), (1, 2, 4, 4, 5, 5))
    assert legal_strings(state) == ["play 1", "play 2", "play 4", "play 5", "yield"]


def test_take_moves_the_top_card_in_front_and_needs_a_display():
    state = new_round({}, 0, (1, 1, 2, 6, 3, 3), (6, 6, 6, 6, 5, 5))
    play_by_strings(state, "play 2", "play 5")
    play_by_strings(state, "take")
    obs = state.observation_string(0)
    assert "display 2 (limit 2)" in obs and "in front p0 [5] p1 [-]" in obs
    play_by_strings(state, "take")
    assert "display - (limit 0)" in state.observation_string(1)
    assert "take" not in legal_strings(state)


def test_the_scorer_starts_the_next_round():
    state = new_round({}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    play_by_strings(state, "play 1", "yield")  # p1 yields: p0 scores 1
    assert state.is_chance_node() and "scores p0 1, p1 0" in str(state)
    play_by_strings(state, *deal((1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5)))
    assert state.current_player() == 0
    play_by_strings(state, "yield")  # p0 yields: p1 scores and starts
    play_by_strings(state, *deal((1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5)))
    assert state.current_player() == 1
    assert "scores p0 1, p1 1" in str(state)


def test_match_ends_at_target_with_five_plus_two():
    state = new_round({}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    for round_number in range(5):
        play_by_strings(state, "play 1", "yield")  # p0 scores 1
        assert not state.is_terminal()
        play_by_strings(state, *deal((1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5)))
        assert f"scores p0 {round_number + 1}, p1 0" in str(state)
    play_by_strings(state, "play 3", "play 5", "play 3", "discard 6", "knock")
    assert state.is_terminal()
    assert "scores p0 7, p1 0" in str(state)
    assert state.returns() == [1.0, -1.0]


def test_deal_probabilities_follow_the_copies_left():
    game = elements_ai.load_game("elements")
    state = play_by_strings(game.new_initial_state(), "start player 1", "deal 6", "deal 6", "deal 1")
    probs = dict(state.chance_outcomes())
    assert probs == pytest.approx({0: 1 / 13, 1: 2 / 13, 2: 2 / 13, 3: 2 / 13, 4: 2 / 13, 5: 4 / 13})


def test_small_deck_variant():
    state = new_round({"single_round": True, "deck": "1_2_3_6_6_6", "hand_size": 2}, 0, (1, 6), (3, 6))
    assert legal_strings(state) == ["play 1", "play 6", "discard 6", "yield"]
    play_by_strings(state, "play 6", "play 3", "knock")  # p0 1 <= 9, p1 6 <= 9: 6 wins
    assert state.returns() == [-2.0, 2.0]


# --- information ----------------------------------------------------------------------

def test_information_state_hides_the_opponent_hand_and_the_set_aside_cards():
    moves = ["play 1", "play 5", "take", "discard 6"]
    a = new_round({}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    b = new_round({}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 5, 4, 4, 6))
    for state in (a, b):
        play_by_strings(state, *moves)
    assert str(a) != str(b)
    assert a.information_state_tensor(0) == b.information_state_tensor(0)
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_tensor(0) == b.observation_tensor(0)
    assert a.observation_string(0) == b.observation_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)


def test_information_state_recalls_the_round():
    state = new_round({}, 1, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    play_by_strings(state, "play 6", "play 1", "take")
    text = state.information_state_string(0)
    assert "own deal [1 1 2 2 3 3]" in text
    assert "history p1 play 6, p0 play 1, p1 take" in text
    game = state.get_game()
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(state, 0)
    assert observer.dict["deal"].tolist() == [2, 2, 2, 0, 0, 0]
    assert observer.dict["history"][:3].argmax(axis=1).tolist() == [5, 0, 6]
    assert observer.dict["round_start"].tolist() == [0, 1]


def test_resample_keeps_every_card_of_the_deck_somewhere():
    # The information state, reading nothing hidden and reachability: tests/test_games.py.
    game = elements_ai.load_game("elements")
    rng = np.array([3], np.uint64)
    for state in random_states(game, 40, seed=1):
        out = np.empty_like(state.array)
        game.kernel.resample(game.cfg, state.array, state.current_player(), rng, out)
        piece = views(game.config.state_pieces, out)
        cards = piece.deck.sum() + piece.hand.sum() + piece.front.sum()
        cards += piece.display_len[0] + piece.discarded.sum()
        assert cards == 16


def test_resample_reads_nothing_hidden():
    moves = ["play 1", "play 5", "take"]
    a = new_round({}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    b = new_round({}, 0, (1, 1, 2, 2, 3, 3), (6, 4, 5, 4, 6, 6))
    game = a.get_game()
    for state in (a, b):
        play_by_strings(state, *moves)
    outs = []
    for state in (a, b):
        out = np.empty_like(state.array)
        game.kernel.resample(game.cfg, state.array, 0, np.array([9], np.uint64), out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


# --- the faces ------------------------------------------------------------------------

# OpenSpiel conformance and the faces' agreement run for every variant in test_games.py.


def test_state_array_is_small():
    game = elements_ai.load_game("elements")
    state = game.new_initial_state()
    assert state.array.nbytes <= 256


def test_heuristic_plays_legal_moves():
    game = elements_ai.load_game("elements")
    rng = np.array([1], np.uint64)
    for seed in range(30):
        state = game.new_initial_state()
        rnd = np.random.default_rng(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rnd.choice(actions, p=probs)))
            else:
                action = game.kernel.heuristic(game.cfg, state.array, state.current_player(), rng)
                assert action in state.legal_actions()
                state.apply_action(int(action))
        assert sorted(state.returns()) == [-1.0, 1.0]


# --- bad input -----------------------------------------------------------------------

def test_unknown_game():
    with pytest.raises(ValueError, match="unknown game 'elementz'"):
        elements_ai.load_game("elementz")
    with pytest.raises(ValueError, match="unknown game"):
        elements_ai.make_vec("nope", 4)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"colour": 1}, "unknown parameter 'colour'"),
        ({"hand_size": 0}, "hand_size=0 is out of range"),
        ({"hand_size": 9}, "hand_size=9 is out of range for a deck of 16 cards"),
        ({"target_score": 0}, "target_score=0 is out of range"),
        ({"deck": "1_2_7"}, "deck='1_2_7' is out of range"),
        ({"deck": "1-2-3"}, "deck"),
        ({"single_round": "maybe"}, "single_round must be true or false"),
    ],
)
def test_bad_parameters_name_the_problem(params, message):
    with pytest.raises(elements_ai.ParameterError, match=message):
        elements_ai.load_game("elements", **params)
    with pytest.raises(elements_ai.ParameterError, match=message):
        elements_ai.make_vec("elements", 2, **params)


def test_bad_parameters_through_pyspiel_strings():
    # The same kind of error as OpenSpiel's own for a bad game string: a SpielError.
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'foo'"):
        pyspiel.load_game("elements(foo=1)")
    for load in (pyspiel.load_game, elements_ai.load_game):
        with pytest.raises(pyspiel.SpielError, match="hand_size=0 is out of range"):
            load("elements(hand_size=0)")
    with pytest.raises(pyspiel.SpielError, match="hand_size=0 is out of range"):
        elements_ai.load_game("elements", hand_size=0)
    with pytest.raises(pyspiel.SpielError, match="unknown parameter 'foo'"):
        elements_ai.load_game("elements", foo=1)


def test_illegal_action_raises_and_leaves_the_state_unchanged():
    state = new_round({}, 0, (1, 1, 2, 2, 3, 3), (6, 6, 6, 6, 5, 5))
    before, history = str(state), state.history()
    for action in (6, 7, 8, 5, 42, -2):  # take, discard 6, knock, play 6, out of range
        with pytest.raises(ValueError, match=f"illegal action for player 0 {action}"):
            state.apply_action(action)
        assert str(state) == before and state.history() == history
    with pytest.raises(ValueError, match="illegal chance outcome 2"):
        elements_ai.load_game("elements").new_initial_state().apply_action(2)
