"""Elemental Duel's exact endgame: the matrix-game solver, concrete last duels, agreement
with an exact CFR solution, the attacker's three decisions and the ``ppo`` bot's use of it."""

import numpy as np
import pyspiel
import pytest
from scipy.optimize import linprog

import elements_ai
from elements_ai.agents import make_bot
from elements_ai.games.elemental_duel import endgame
from elements_ai.games.elemental_duel.rules import FIGHT_HIDDEN, PH_CHOOSE, PH_HIDE, PH_SHOW, S
from elements_ai.solvers.cfr import CFRSolver

PLANT_1, WATER_1, FIRE_3, DARKNESS_1, DARKNESS_3, LIGHT = 0, 3, 8, 9, 11, 12


def test_matrix_game_matches_scipy_and_both_strategies_are_optimal():
    rng = np.random.default_rng(3)
    for trial in range(200):
        m, n = rng.integers(1, 7, 2)
        payoff = rng.integers(-2, 3, (m, n)).astype(float) if trial % 2 else rng.normal(size=(m, n))
        x, y = np.empty(m), np.empty(n)
        value = endgame.matrix_game(payoff, x, y)
        # max v s.t. payoff^T x >= v, sum(x) = 1, x >= 0
        reference = linprog(
            np.r_[np.zeros(m), -1.0], A_ub=np.hstack([-payoff.T, np.ones((n, 1))]), b_ub=np.zeros(n),
            A_eq=np.r_[np.ones(m), 0.0][None], b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)],
        )
        assert value == pytest.approx(reference.x[-1], abs=1e-9)
        assert x.min() >= -1e-12 and x.sum() == pytest.approx(1) and (payoff.T @ x).min() >= value - 1e-9
        assert y.min() >= -1e-12 and y.sum() == pytest.approx(1) and (payoff @ y).max() <= value + 1e-9


def last_duel(attacker_cards, defender_cards):
    """The 12th duel, for a plain forest, that decides the game.

    Player 0 attacks and holds 2 forests, the spring star, 2 springs and a volcano;
    player 1 the forest star, a spring, the volcano star and 2 volcanoes (all face up).
    Player 0 wins spring, player 1 volcano; forest goes to player 0 with the last
    forest, and to player 1 (the star breaks a tie, or more icons) without it.
    """
    game = elements_ai.load_game("elemental_duel")
    state = game.new_initial_state()
    state.apply_action(1)  # player 1 attacks first, so player 0 attacks the 12th duel
    array = state.array
    array[S.stack:S.stack + 6] = 0
    array[S.hand:S.hand + 26] = 0
    for card in attacker_cards:
        array[S.hand + card] = 1
    for card in defender_cards:
        array[S.hand + 13 + card] = 1
    held = {0: {0: 2, 3: 1, 2: 2, 4: 1}, 1: {1: 1, 2: 1, 5: 1, 4: 2}}
    for player, kinds in held.items():
        for kind, count in kinds.items():
            array[S.held + 12 * player + 2 * kind] = count
    array[S.duels] = 11
    array[S.contested] = 0
    array[S.attacker] = 0
    array[S.phase] = PH_HIDE
    array[S.player] = 0
    return game, game.state_from_array(array)


def test_a_last_duel_of_matching_pennies_is_played_half_and_half():
    # fire 3 beats light and loses to water 1; darkness 1 loses to light and beats water 1.
    game, state = last_duel([FIRE_3, DARKNESS_1], [LIGHT, WATER_1])
    cards, x, answers, ys, value = endgame.duel_strategies(game.cfg, state.array, endgame.new_memo())
    assert list(cards) == [FIRE_3, DARKNESS_1] and list(answers) == [WATER_1, LIGHT]
    assert value == pytest.approx(0.0, abs=1e-5)
    np.testing.assert_allclose(x, [0.5, 0.5], atol=1e-5)
    np.testing.assert_allclose(ys, [[0.5, 0.5], [0.5, 0.5]], atol=1e-5)


def test_a_won_last_duel_fights_the_winning_card_and_the_defender_punishes_random_play():
    # darkness 3 beats both answers: the duel is won. Any answer is then optimal, and
    # water 1 is the one that beats a random attacker's fire 3, whichever card is shown.
    game, state = last_duel([FIRE_3, DARKNESS_3], [PLANT_1, WATER_1])
    cards, x, answers, ys, value = endgame.duel_strategies(game.cfg, state.array, endgame.new_memo())
    assert list(cards) == [FIRE_3, DARKNESS_3] and list(answers) == [PLANT_1, WATER_1]
    assert value == pytest.approx(1.0)
    np.testing.assert_allclose(x, [0.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(ys, [[0.0, 1.0], [0.0, 1.0]], atol=1e-9)
    # Everything on darkness 3: it is shown and fights, and fire 3 is hidden.
    policy = endgame.Endgame(game.cfg, duels=1).policy(state.array)
    assert policy == pytest.approx({FIRE_3: 1.0, DARKNESS_3: 0.0})


def test_one_duel_values_agree_with_an_exact_cfr_solution():
    game = elements_ai.load_game("elemental_duel", num_territories=1)
    solver = CFRSolver(pyspiel.load_game(str(game)), "pcfr+", threads=1)
    solver.run(300)
    evaluation = solver.evaluate()
    assert evaluation.nash_conv < 1e-4
    memo = endgame.new_memo()
    values = []
    for first in (0, 1):
        state = game.new_initial_state()
        state.apply_action(first)
        values.append(endgame.values_between_duels(game.cfg, state.array, memo)[0])
    assert np.mean(values) == pytest.approx(evaluation.policy_values[0], abs=evaluation.nash_conv + 1e-5)
    assert values[0] == pytest.approx(-values[1])  # the attacker's value is the same from either seat


def joint_law(cards, x, hand):
    """P(hide, show, fight card) from the three decisions' conditional policies."""
    law = {}
    for hidden in hand:
        p_hide = endgame.attacker_policy(cards, x, -1, -1, PH_HIDE).get(hidden, 0.0)
        for shown, p_show in endgame.attacker_policy(cards, x, hidden, -1, PH_SHOW).items():
            choose = endgame.attacker_policy(cards, x, hidden, shown, PH_CHOOSE)
            for fight, p_fight in choose.items():
                card = hidden if fight == FIGHT_HIDDEN else shown
                law[hidden, shown, card] = law.get((hidden, shown, card), 0.0) + p_hide * p_show * p_fight
    return law


@pytest.mark.parametrize("x", [[0.5, 0.3, 0.2, 0.0], [1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
def test_the_shown_card_tells_the_defender_nothing(x):
    cards = np.array([2, 5, 9, 12])
    x = np.array(x)
    law = joint_law(cards, x, cards)
    assert sum(law.values()) == pytest.approx(1.0)
    for shown in cards:
        given = {c: sum(p for (h, s, f), p in law.items() if s == shown and f == c) for c in cards}
        total = sum(given.values())
        if total > 1e-12:
            assert [given[c] / total for c in cards] == pytest.approx(list(x))
    assert all(h != s for h, s, _ in law)


def test_ppo_plays_the_solved_endgame_and_the_network_before_it():
    game, state = last_duel([FIRE_3, DARKNESS_3], [PLANT_1, WATER_1])
    bots = [make_bot("ppo:endgame=1", game, player, seed=4) for player in (0, 1)]
    assert bots[0].played_policy(state) == pytest.approx({FIRE_3: 1.0, DARKNESS_3: 0.0})
    moves = []
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        moves.append(state.action_to_string(state.current_player(), action))
        state.apply_action(action)
    assert moves == ["hide fire 3", "show darkness 3", "defend water 1", "fight shown"]
    assert state.returns() == [1.0, -1.0]
    # Before the last duel the network plays.
    early = game.new_initial_state()
    early.apply_action(0)
    early.apply_action(0)
    assert bots[0]._endgame.policy(early.array) is None
    network = dict(make_bot("ppo", game, 0)._policy_and_action(early)[0])
    assert dict(bots[0]._policy_and_action(early)[0]) == pytest.approx(network)
    greedy = bots[0].played_policy(early)
    assert sorted(greedy.values())[-1] == 1.0 and max(network, key=network.get) == max(greedy, key=greedy.get)


def test_endgame_in_a_game_without_one_names_the_games_that_have_one():
    with pytest.raises(ValueError, match="elements has no exact endgame.*elemental_duel"):
        make_bot("ppo:endgame=2", elements_ai.load_game("elements"), 0)


def test_states_between_duels_are_not_within_a_duel():
    game = elements_ai.load_game("elemental_duel")
    state = game.new_initial_state()
    state.apply_action(0)
    with pytest.raises(ValueError, match="not within a duel"):
        endgame.duel_strategies(game.cfg, state.array, endgame.new_memo())


def test_memo_keys_tell_apart_states_that_differ_in_any_public_piece():
    game = elements_ai.load_game("elemental_duel")
    base = game.new_initial_state()
    base.apply_action(0)
    keys = {endgame._key(base.array)}
    pieces = [S.hand + c for c in range(26)] + [S.held + k for k in range(24)] + [S.attacker]
    for index in pieces:
        changed = base.array.copy()
        changed[index] = 1 - changed[index] if index < S.held else changed[index] + 1
        keys.add(endgame._key(changed))
    assert len(keys) == len(pieces) + 1
