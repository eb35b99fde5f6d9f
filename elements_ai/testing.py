"""Checks every game must pass; used by the test suite and handy for new kernels.

>>> from elements_ai import testing
>>> testing.check_faces_agree("elements", num_games=20, single_round=True)
20
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from . import load_game, make_vec


def check_conformance(game: pyspiel.Game, num_sims: int = 10) -> None:
    """OpenSpiel's own checks: ``random_sim_test`` with serialization and ``sim_game``."""
    from open_spiel.python.tests.games_sim_test import GamesSimTest

    pyspiel.random_sim_test(game, num_sims=num_sims, serialize=True, verbose=False)
    GamesSimTest().sim_game(game)


def play_by_strings(state: pyspiel.State, *moves: str) -> pyspiel.State:
    """Applies actions (chance outcomes included) named by their action strings."""
    for move in moves:
        player = state.current_player()
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            actions = state.legal_actions()
        names = {state.action_to_string(player, a): a for a in actions}
        if move not in names:
            raise ValueError(f"{move!r} is not possible here; possible: {sorted(names)}\n{state}")
        state.apply_action(names[move])
    return state


def check_faces_agree(name: str, num_games: int = 1000, seed: int = 0, **params: Any) -> int:
    """Plays ``num_games`` random games on the vector face and replays them on the
    OpenSpiel face, asserting at every step the same player to move, legal actions,
    chance outcomes, observation and information-state tensors (every player's) and
    returns. Returns the number of games finished.
    """
    game = load_game(name, **params)
    env = make_vec(name, num_envs=num_games, seed=seed, auto_chance=False, **params)
    states = [game.new_initial_state() for _ in range(num_games)]
    players = game.num_players()
    max_steps = game.max_game_length() + game.max_chance_nodes_in_history() + 1
    for _ in range(max_steps):
        observations = [env.observation(p) for p in range(players)]
        infos = [env.information_state(p) for p in range(players)]
        for i, state in enumerate(states):
            player = state.current_player()
            where = f"{name} env {i} after {state.history()}"
            assert env.current_player[i] == player, where
            assert env.terminated[i] == state.is_terminal(), where
            if state.is_chance_node():
                support = np.flatnonzero(env.chance_probs[i]).tolist()
                expected = state.chance_outcomes()
                assert support == [a for a, _ in expected], where
                np.testing.assert_allclose(env.chance_probs[i][support], [p for _, p in expected], err_msg=where)
            else:
                assert np.flatnonzero(env.legal_mask[i]).tolist() == state.legal_actions(), where
            np.testing.assert_allclose(env.returns[i], state.returns(), err_msg=where)
            for p in range(players):
                np.testing.assert_array_equal(observations[p][i], state.observation_tensor(p), err_msg=where)
                np.testing.assert_array_equal(infos[p][i], state.information_state_tensor(p), err_msg=where)
        if env.terminated.all():
            break
        actions = env.sample_actions()
        env.step(actions)
        for i, state in enumerate(states):
            if not state.is_terminal():
                state.apply_action(int(actions[i]))
    assert env.terminated.all(), f"{name}: games longer than max_game_length + max_chance_nodes"
    return num_games
