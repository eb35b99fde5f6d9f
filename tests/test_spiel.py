"""The OpenSpiel face, for every registered game: what OpenSpiel's algorithms use."""

import numpy as np
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import elements_ai
from elements_ai.testing import random_states

GAMES = elements_ai.GAMES


@pytest.mark.parametrize("name", GAMES)
def test_resample_from_infostate_keeps_the_players_view(name):
    game = elements_ai.load_game(name)
    sampler = np.random.RandomState(0).rand
    for state in random_states(game, 30, seed=1):
        player = state.current_player()
        sampled = state.resample_from_infostate(player, sampler)
        assert sampled.information_state_string(player) == state.information_state_string(player)
        assert sampled.information_state_tensor(player) == state.information_state_tensor(player)
        assert sampled.legal_actions() == state.legal_actions()
    with pytest.raises(ValueError, match="player 7 is out of range"):
        state.resample_from_infostate(7, sampler)


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_ismcts_runs_without_a_resampler(name):
    game = elements_ai.load_game(name)
    state = random_states(game, 1, seed=2)[0]
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, 1.4, 50, random_state=np.random.RandomState(1))
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize("name", GAMES)
def test_clone_is_independent(name):
    game = elements_ai.load_game(name)
    state = random_states(game, 1, seed=3)[0]
    copy = state.clone()
    before = str(state)
    copy.apply_action(copy.legal_actions()[0])
    assert str(state) == before and len(copy.history()) == len(state.history()) + 1


@pytest.mark.parametrize("name", GAMES)
def test_an_illegal_action_is_refused_naming_the_legal_ones_by_their_strings(name):
    game = elements_ai.load_game(name)
    state = random_states(game, 1, seed=4)[0]
    player = state.current_player()
    legal = state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    before = str(state)
    with pytest.raises(ValueError) as error:
        state.apply_action(illegal)
    assert str(state) == before
    message = str(error.value)
    assert f"illegal action for player {player} {illegal}" in message
    for action in legal:
        assert f"{action} ({state.action_to_string(player, action)})" in message
