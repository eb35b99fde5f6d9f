"""Elemental Duel: rules scenarios from the rulebook and the rulings, conformance,
agreement of the faces, hidden information, resampling, the rules baseline and bad
input."""

import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai.games.elemental_duel import KERNEL, rules, strings
from elements_ai.testing import play_by_strings, random_states


def start(first=0, **params):
    game = elements_ai.load_game("elemental_duel", **params)
    return play_by_strings(game.new_initial_state(), f"first attacker {first}")


def duel(state, territory, hide, show, defend, fight="hidden"):
    """One whole duel: the territory draw, hide, show, defend and the fight choice."""
    return play_by_strings(state, territory, f"hide {hide}", f"show {show}", f"defend {defend}", f"fight {fight}")


def legal_strings(state):
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def territories(state, player):
    line = next(x for x in str(state).splitlines() if x.startswith(f"territories p{player} "))
    return line[len(f"territories p{player} ") :]


def view(state, player):
    """Everything ``player`` is given: observation and information state, tensor and string."""
    return (
        state.observation_string(player),
        state.information_state_string(player),
        tuple(state.observation_tensor(player)),
        tuple(state.information_state_tensor(player)),
    )


# --- who wins a duel ---------------------------------------------------------------
# One-duel games: the duel's winner holds the only territory and wins the game.

BEATS = [
    # (attacker's fighting card, defender's card, duel winner)
    ("fire 1", "plant 3", "attacker"),  # fire > plant
    ("plant 1", "water 3", "attacker"),  # plant > water
    ("water 1", "fire 3", "attacker"),  # water > fire
    ("plant 3", "fire 1", "defender"),
    ("water 3", "plant 1", "defender"),
    ("fire 3", "water 1", "defender"),
    ("darkness 1", "plant 3", "attacker"),  # darkness beats every regular element
    ("darkness 1", "water 3", "attacker"),
    ("darkness 1", "fire 3", "attacker"),
    ("fire 3", "darkness 1", "defender"),
    ("light", "darkness 3", "attacker"),  # light beats darkness
    ("darkness 3", "light", "defender"),
    ("light", "plant 1", "defender"),  # light loses to the regular elements
    ("light", "water 1", "defender"),
    ("fire 1", "light", "attacker"),
    ("fire 3", "fire 2", "attacker"),  # same element: the higher value
    ("fire 2", "fire 3", "defender"),
    ("darkness 2", "darkness 1", "attacker"),
    ("water 2", "water 2", "defender"),  # equal value: tie, the defender keeps it
    ("darkness 3", "darkness 3", "defender"),
    ("light", "light", "defender"),  # light against light is a tie
]


@pytest.mark.parametrize("attacker_card, defender_card, winner", BEATS)
def test_who_wins_the_duel(attacker_card, defender_card, winner):
    state = start(first=1, num_territories=1)
    show = "plant 2" if attacker_card != "plant 2" else "plant 1"
    duel(state, "forest", attacker_card, show, defender_card, "hidden")
    assert state.is_terminal()
    expected = [-1.0, 1.0] if winner == "attacker" else [1.0, -1.0]
    assert state.returns() == expected
    holder = 1 if winner == "attacker" else 0
    assert territories(state, holder).startswith("[forest")
    assert territories(state, 1 - holder).startswith("[-]")


def test_the_shown_card_can_fight_and_the_hidden_one_goes_back_to_hand():
    state = start(first=0, num_territories=2)
    duel(state, "spring", "darkness 3", "plant 1", "water 2", "shown")
    assert territories(state, 0).startswith("[spring]")  # plant beats water, no turn-over
    assert "played p0 [plant 1]" in str(state)
    assert "darkness 3" in str(state).split("hand p0 [")[1].split("]")[0]


# --- turning territories over --------------------------------------------------------

TURNS = [
    # (territory, attacker's card, defender's card, holder, turned?)
    ("forest", "plant 2", "water 1", 0, True),  # matching element
    ("spring", "water 2", "fire 1", 0, True),
    ("volcano", "fire 2", "plant 1", 0, True),
    ("forest", "fire 2", "plant 1", 0, False),  # not the matching element
    ("volcano", "water 2", "fire 1", 0, False),
    ("spring star", "light", "darkness 2", 0, True),  # light turns any territory over
    ("forest", "darkness 1", "plant 3", 0, False),  # darkness never does
    ("spring", "darkness 1", "water 3", 0, False),
    ("volcano star", "darkness 1", "fire 3", 0, False),
    ("spring", "water 2", "water 2", 1, True),  # a tie: the defender's card decides
    ("forest", "water 2", "water 2", 1, False),
    ("volcano", "light", "light", 1, True),
    ("forest", "darkness 2", "darkness 2", 1, False),
    ("volcano", "fire 1", "fire 3", 1, True),  # the defender wins with the matching element
]


@pytest.mark.parametrize("territory, attack, defend, holder, turned", TURNS)
def test_turning_over(territory, attack, defend, holder, turned):
    state = start(first=0, num_territories=2)
    show = "plant 3" if attack != "plant 3" else "plant 1"
    duel(state, territory, attack, show, defend)
    expected = territory + (" turned" if turned else "")
    assert territories(state, holder).startswith(f"[{expected}]")
    icons = 2 if turned else 1
    kind = territory.split()[0]
    assert f"{kind} {icons}" in territories(state, holder)
    observer = state.get_game().make_py_observer()
    observer.set_from(state, holder)
    assert observer.dict["icons"][0].sum() == icons and observer.dict["icons"][1].sum() == 0
    k = strings.KIND_NAMES.index(territory)
    assert observer.dict["held"][0, k, int(turned)] == 1


# --- instant wins ----------------------------------------------------------------------

def test_three_stars_win_at_once():
    state = start(first=0)
    duel(state, "forest star", "darkness 3", "plant 1", "plant 2")  # p0 attacks and wins
    duel(state, "spring star", "water 1", "water 2", "darkness 2", "shown")  # p0 defends and wins
    assert not state.is_terminal()
    duel(state, "volcano star", "fire 3", "fire 1", "plant 1")
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]
    assert "game over after 3 duels: p0 wins with all 3 star territories" in str(state)


def test_four_territories_of_one_type_win_at_once():
    state = start(first=1)
    duel(state, "forest", "darkness 3", "plant 1", "plant 2")  # p1 attacks and wins
    duel(state, "forest", "fire 1", "water 1", "darkness 2")  # p0 attacks, p1 wins
    duel(state, "forest", "darkness 1", "plant 1", "water 1")  # p1 attacks and wins
    duel(state, "spring", "light", "plant 3", "plant 2", "shown")  # p0 wins a spring
    assert territories(state, 1).startswith("[forest, forest, forest]")
    assert not state.is_terminal()
    duel(state, "forest star", "fire 3", "water 3", "plant 1")  # p1 takes the 4th forest
    assert state.is_terminal()
    assert state.returns() == [-1.0, 1.0]
    assert "game over after 5 duels: p1 wins with all 4 territories of one type" in str(state)


def test_instant_wins_need_the_real_territories_in_short_games():
    # 3 duels: three forests in a row are no instant win; the end scoring decides.
    state = start(first=0, num_territories=3)
    duel(state, "forest", "darkness 3", "plant 1", "plant 2")
    duel(state, "forest", "plant 3", "water 1", "darkness 2", "shown")
    duel(state, "forest", "darkness 1", "plant 2", "fire 1")
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]
    assert "p0 wins with more icons in total" in str(state)


# --- end scoring -----------------------------------------------------------------------

def test_star_breaks_a_tie_of_icons_in_a_type():
    # forest 1-1 goes to the star's holder (p0): p0 wins forest and spring.
    state = start(first=0, num_territories=4)
    duel(state, "forest star", "darkness 3", "plant 1", "plant 2")  # p0 attacks and wins
    duel(state, "forest", "darkness 2", "plant 1", "plant 2")  # p1 attacks and wins
    duel(state, "spring", "darkness 1", "plant 3", "fire 1")  # p0 attacks and wins
    duel(state, "volcano", "darkness 1", "plant 3", "fire 2")  # p1 attacks and wins
    assert state.is_terminal()
    assert territories(state, 0) == "[forest star, spring] icons forest 1, spring 1, volcano 0"
    assert territories(state, 1) == "[forest, volcano] icons forest 1, spring 0, volcano 1"
    assert state.returns() == [1.0, -1.0]
    assert "p0 wins with 2 of the 3 types" in str(state)


def test_total_icons_decide_when_nobody_wins_two_types():
    state = start(first=0, num_territories=2)
    duel(state, "forest", "darkness 3", "plant 1", "plant 2")  # p0: forest, 1 icon
    duel(state, "spring", "water 3", "plant 1", "water 1")  # p1: spring turned, 2 icons
    assert state.is_terminal()
    assert territories(state, 1).startswith("[spring turned]")
    assert state.returns() == [-1.0, 1.0]
    assert "p1 wins with more icons in total" in str(state)


def test_equal_types_and_equal_icons_are_a_draw():
    state = start(first=0, num_territories=2)
    duel(state, "forest", "darkness 3", "plant 1", "plant 2")  # p0
    duel(state, "forest", "darkness 3", "plant 1", "plant 2")  # p1; a 1-1 forest tie without the star
    assert state.is_terminal()
    assert state.returns() == [0.0, 0.0]
    assert "draw" in str(state)


# A whole game: every duel is a tie won by the defender with non-matching cards (no
# turn-overs); the attacker always shows light and keeps it, and both play the same
# cards. p1 takes the odd duels, p0 the even ones.
FULL_GAME = [
    ("forest star", "darkness 1"),
    ("forest", "water 1"),
    ("forest", "water 2"),
    ("forest", "fire 1"),
    ("spring star", "darkness 2"),
    ("spring", "plant 1"),
    ("spring", "fire 2"),
    ("spring", "fire 3"),
    ("volcano", "darkness 3"),
    ("volcano star", "plant 2"),
    ("volcano", "water 3"),
    ("volcano", "plant 3"),
]


def test_twelve_duels_end_scoring_and_the_last_duel_with_two_cards():
    state = start(first=0)
    for territory, card in FULL_GAME[:11]:
        duel(state, territory, card, "light", card)
    play_by_strings(state, "volcano")
    assert state.current_player() == 1  # p1 attacks the 12th duel
    assert legal_strings(state) == ["hide plant 3", "hide light"]
    play_by_strings(state, "hide plant 3")
    assert legal_strings(state) == ["show light"]
    play_by_strings(state, "show light")
    assert legal_strings(state) == ["defend plant 3", "defend light"]
    play_by_strings(state, "defend plant 3", "fight hidden")
    assert state.is_terminal()
    # Every type is 2 icons against 2: forest and spring go to p1 (stars), volcano to p0.
    assert territories(state, 0) == (
        "[forest, forest, spring, spring, volcano, volcano star] icons forest 2, spring 2, volcano 2"
    )
    assert territories(state, 1) == (
        "[forest, forest star, spring, spring star, volcano, volcano] icons forest 2, spring 2, volcano 2"
    )
    assert state.returns() == [-1.0, 1.0]
    assert "game over after 12 duels: p1 wins with 2 of the 3 types" in str(state)
    assert "hand p0 [light]" in str(state) and "hand p1 [light]" in str(state)


# --- chance -------------------------------------------------------------------------------

def test_chance_outcomes_follow_the_stack():
    state = elements_ai.load_game("elemental_duel").new_initial_state()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a in (0, 1)] == [
        "first attacker 0",
        "first attacker 1",
    ]
    play_by_strings(state, "first attacker 1")
    assert state.chance_outcomes() == [(k, p / 12) for k, p in enumerate((3, 1, 3, 1, 3, 1))]
    names = [state.action_to_string(pyspiel.PlayerId.CHANCE, k) for k in range(6)]
    assert names == ["forest", "forest star", "spring", "spring star", "volcano", "volcano star"]
    duel(state, "forest star", "darkness 3", "plant 1", "plant 2")
    assert state.chance_outcomes() == [(0, 3 / 11), (2, 3 / 11), (3, 1 / 11), (4, 3 / 11), (5, 1 / 11)]
    assert state.current_player() == pyspiel.PlayerId.CHANCE


def test_attacker_alternates_and_action_strings():
    state = start(first=1)
    play_by_strings(state, "spring")
    assert state.current_player() == 1
    assert legal_strings(state)[0] == "hide plant 1" and len(legal_strings(state)) == 13
    play_by_strings(state, "hide fire 2")
    assert "show fire 2" not in legal_strings(state) and len(legal_strings(state)) == 12
    play_by_strings(state, "show water 1")
    assert state.current_player() == 0 and legal_strings(state)[-1] == "defend light"
    play_by_strings(state, "defend plant 1")
    assert state.current_player() == 1 and legal_strings(state) == ["fight hidden", "fight shown"]
    assert state.legal_actions() == [13, 14]
    play_by_strings(state, "fight hidden", "forest")
    assert state.current_player() == 0


# --- bad input ---------------------------------------------------------------------------

def test_unknown_parameter_is_rejected():
    with pytest.raises(ValueError, match="unknown parameter 'territories'.*num_territories"):
        elements_ai.load_game("elemental_duel", territories=3)


@pytest.mark.parametrize("value", [0, 13, -1])
def test_out_of_range_num_territories_is_rejected(value):
    with pytest.raises(ValueError, match=f"num_territories={value} is out of range.*from 1 to 12"):
        elements_ai.load_game("elemental_duel", num_territories=value)


def test_wrong_type_is_rejected():
    with pytest.raises(elements_ai.ParameterError, match="num_territories must be an integer, got 'four'"):
        elements_ai.load_game("elemental_duel", num_territories="four")


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    state = start(first=0)
    duel(state, "forest", "darkness 3", "plant 1", "plant 2")
    play_by_strings(state, "spring", "hide fire 2")
    before = (str(state), state.history(), state.array.copy())
    for action in (7, 13, 15, 99):  # the hidden card again, a fight choice, out of range
        with pytest.raises(ValueError, match=f"illegal action for player 1 {action}"):
            state.apply_action(action)
        assert (str(state), state.history()) == before[:2]
        np.testing.assert_array_equal(state.array, before[2])
    play_by_strings(state, "show water 1")
    with pytest.raises(ValueError, match="defend darkness 3"):
        state.apply_action(11)  # p0 already fought with darkness 3
    with pytest.raises(ValueError, match="illegal chance outcome"):
        start(first=0).apply_action(6)


# --- OpenSpiel conformance and agreement of the faces ----------------------------------

@pytest.mark.parametrize("n", [12, 1, 3, 7])
def test_sizes_follow_the_number_of_territories(n):
    game = elements_ai.load_game("elemental_duel", num_territories=n)
    assert game.max_game_length() == 4 * n
    assert game.information_state_tensor_size() == 131 + 2 + 65 * n
    assert len(game.new_initial_state().array) * 2 <= 256


# OpenSpiel conformance and the faces' agreement run for every variant in test_games.py.


# --- hidden information --------------------------------------------------------------------

def two_hidden_cards(*after):
    """Two games that differ only in the attacker's (p0's) face-down card in duel 2."""
    states = []
    for hidden in ("fire 2", "water 3"):
        state = start(first=1)
        duel(state, "forest", "darkness 3", "plant 1", "plant 2")
        play_by_strings(state, "volcano", f"hide {hidden}", "show plant 3", *after)
        states.append(state)
    return states


@pytest.mark.parametrize(
    "after",
    [
        (),  # p1 to defend, the face-down card on the table
        ("defend darkness 1",),  # p0 to choose
        ("defend darkness 1", "fight shown"),  # back to hand unrevealed
        ("defend darkness 1", "fight shown", "spring", "hide fire 2", "show darkness 2"),
        ("defend darkness 1", "fight shown", "spring", "hide water 1", "show darkness 2",
         "defend light", "fight shown"),
    ],
)
def test_defender_never_sees_the_attackers_face_down_card(after):
    a, b = two_hidden_cards(*after)
    assert str(a) != str(b)
    assert view(a, 1) == view(b, 1)
    assert view(a, 0) != view(b, 0)  # the attacker remembers its own choice
    remembered = b.information_state_string(1).split("first attacker")[1]
    assert "water 3" not in remembered
    if "fight shown" in after:
        assert "duel 2 volcano: p0 hid a card, showed plant 3; shown plant 3" in remembered


def test_a_hidden_card_that_fights_is_revealed():
    a, b = two_hidden_cards("defend darkness 1", "fight hidden")
    assert view(a, 1) != view(b, 1)
    assert "p0 hid water 3, showed plant 3; hidden water 3" in b.information_state_string(1)


def test_attacker_does_not_see_the_defenders_card_before_the_fight():
    states = []
    for defend in ("fire 1", "water 2"):
        state = start(first=0)
        play_by_strings(state, "spring", "hide fire 2", "show plant 1", f"defend {defend}")
        states.append(state)
    assert view(states[0], 0) == view(states[1], 0)
    assert view(states[0], 1) != view(states[1], 1)
    assert "p1 face down (unseen)" in states[0].observation_string(0)
    assert "p1 face down fire 1" in states[0].observation_string(1)


def test_own_face_down_card_is_in_the_observation():
    state = start(first=0)
    play_by_strings(state, "forest", "hide darkness 2", "show light")
    observer = state.get_game().make_py_observer()
    observer.set_from(state, 0)
    assert np.flatnonzero(observer.dict["own_face_down"]).tolist() == [10]
    assert np.flatnonzero(observer.dict["face_up"]).tolist() == [12]
    observer.set_from(state, 1)
    assert not observer.dict["own_face_down"].any()
    assert np.flatnonzero(observer.dict["face_up"]).tolist() == [12]
    assert observer.dict["hands"].sum() == 26  # cards on the table are still in hand


# --- resample ------------------------------------------------------------------------------

def resampled(game, state, player, seed):
    out = np.zeros_like(state.array)
    KERNEL.resample(game.cfg, state.array, player, np.array([seed], np.uint64), out)
    return game.state_from_array(out)


def test_resample_reads_nothing_hidden():
    a, b = two_hidden_cards("defend darkness 1", "fight shown", "spring", "hide fire 2", "show darkness 2")
    game = a.get_game()
    for seed in range(20):
        np.testing.assert_array_equal(resampled(game, a, 1, seed).array, resampled(game, b, 1, seed).array)
    # The attacker choosing its fighting card has not seen the defender's card.
    c, d = (
        play_by_strings(start(first=0), "spring", "hide fire 2", "show plant 1", f"defend {card}")
        for card in ("fire 1", "water 2")
    )
    for seed in range(20):
        np.testing.assert_array_equal(resampled(game, c, 0, seed).array, resampled(game, d, 0, seed).array)


def test_resample_draws_the_hidden_card_uniformly():
    state = start(first=0)
    play_by_strings(state, "forest", "hide fire 2", "show plant 1")
    game = state.get_game()
    counts = np.zeros(13, np.int64)
    for seed in range(2400):
        counts[resampled(game, state, 1, seed).array[rules.S.hidden]] += 1
    assert counts[0] == 0  # never the face-up card
    assert counts[1:].min() > 130 and counts[1:].max() < 270  # 200 expected each


# --- the rules baseline ----------------------------------------------------------------

def heuristic_action(state, seed=0):
    game = state.get_game()
    return int(KERNEL.heuristic(game.cfg, state.array, state.current_player(), np.array([seed], np.uint64)))


def test_heuristic_plays_legal_actions():
    for n in (12, 2):
        game = elements_ai.load_game("elemental_duel", num_territories=n)
        for i, state in enumerate(random_states(game, 400, seed=n, keep=1.0)):
            assert heuristic_action(state, i) in state.legal_actions()


def test_heuristic_defender_stops_the_face_up_card_cheaply():
    state = start(first=0)
    play_by_strings(state, "spring", "hide darkness 3", "show fire 3")
    # water beats fire, and water 1 beats the fewest of p0's cards
    answers = {state.action_to_string(1, heuristic_action(state, seed)) for seed in range(30)}
    assert answers == {"defend water 1"}


def test_heuristic_attacker_hides_its_strongest_card():
    state = start(first=0)
    play_by_strings(state, "volcano")
    assert state.action_to_string(0, heuristic_action(state)) == "hide darkness 3"
    play_by_strings(state, "hide darkness 3")
    assert state.action_to_string(0, heuristic_action(state)) == "show fire 3"


def test_heuristic_reads_nothing_hidden():
    a, b = two_hidden_cards()  # p1 to defend; p0's face-down card differs
    for seed in range(10):
        assert heuristic_action(a, seed) == heuristic_action(b, seed)


def test_heuristic_beats_random_play():
    game = elements_ai.load_game("elemental_duel")
    rng = np.random.default_rng(0)
    score = 0.0
    games = 200
    for g in range(games):
        seat = g % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
            elif state.current_player() == seat:
                state.apply_action(heuristic_action(state, g))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        score += state.returns()[seat]
    assert score / games > 0.3
