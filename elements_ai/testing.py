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


def random_action(state: pyspiel.State, rng: np.random.Generator) -> int:
    """A uniformly random legal action, or a chance outcome drawn by its probability."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return int(outcomes[rng.choice(len(outcomes), p=probs)])
    legal = state.legal_actions()
    return int(legal[rng.integers(len(legal))])


def random_states(game: pyspiel.Game, count: int, seed: int = 0, keep: float = 0.3) -> list[pyspiel.State]:
    """``count`` states at decision nodes met in random games (see ``random_action``).

    Each decision node met is kept with probability ``keep``, so the states spread
    over whole games; the same seed gives the same states.

    >>> import elements_ai
    >>> states = random_states(elements_ai.load_game("elements"), 3, seed=1)
    >>> [s.current_player() >= 0 for s in states]
    [True, True, True]
    """
    rng = np.random.default_rng(seed)
    found: list[pyspiel.State] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if not state.is_chance_node() and rng.random() < keep:
                found.append(state.clone())
            state.apply_action(random_action(state, rng))
    return found


def first_decision(game: pyspiel.Game, seed: int = 0) -> pyspiel.State:
    """The first state where a player is to move, chance drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(random_action(state, rng))
    return state


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
    chance outcomes and probabilities, observation and information-state tensors
    (every player's, through the OpenSpiel observers) and returns. Returns the
    number of games finished.
    """
    game = load_game(name, **params)
    env = make_vec(name, num_envs=num_games, seed=seed, auto_chance=False, **params)
    states = [game.new_initial_state() for _ in range(num_games)]
    players = game.num_players()
    observers = [
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall)) for recall in (False, True)
    ]
    views = [np.zeros((players, num_games, observer.tensor.size), np.float32) for observer in observers]
    to_move = np.zeros(num_games, np.int64)
    masks = np.zeros_like(env.legal_mask)
    probs = np.zeros_like(env.chance_probs)
    rets = np.zeros_like(env.returns)
    max_steps = game.max_game_length() + game.max_chance_nodes_in_history() + 1
    for _ in range(max_steps):
        masks[:] = False
        probs[:] = 0.0
        for i, state in enumerate(states):
            to_move[i] = state.current_player()
            if state.is_chance_node():
                for outcome, p in state.chance_outcomes():
                    probs[i, outcome] = p
            elif not state.is_terminal():
                masks[i, state.legal_actions()] = True
            rets[i] = state.returns()
            for observer, view in zip(observers, views):
                for p in range(players):
                    observer.set_from(state, p)
                    view[p, i] = observer.tensor
        _agree(name, states, "player to move", env.current_player, to_move)
        _agree(name, states, "legal actions", env.legal_mask, masks)
        _agree(name, states, "chance outcomes", env.chance_probs, probs, exact=False)
        _agree(name, states, "returns", env.returns, rets, exact=False)
        tensors = (("observation", views[0], env.observation), ("information state", views[1], env.information_state))
        for what, view, batch in tensors:
            for p in range(players):
                _agree(name, states, f"{what} tensor of player {p}", batch(p), view[p])
        if env.terminated.all():
            break
        actions = env.sample_actions()
        env.step(actions)
        for i, state in enumerate(states):
            if not state.is_terminal():
                state.apply_action(int(actions[i]))
    assert env.terminated.all(), f"{name}: games longer than max_game_length + max_chance_nodes"
    return num_games


def _agree(name: str, states, what: str, vector: np.ndarray, spiel: np.ndarray, exact: bool = True) -> None:
    """Asserts the vector face's batch equals the OpenSpiel face's, naming the first env that differs."""
    same = np.array_equal(vector, spiel) if exact else np.allclose(vector, spiel, rtol=1e-12, atol=1e-12)
    if same:
        return
    rows = vector.reshape(len(states), -1) != spiel.reshape(len(states), -1)
    if not exact:
        rows = ~np.isclose(vector, spiel, rtol=1e-12, atol=1e-12).reshape(len(states), -1)
    i = int(np.flatnonzero(rows.any(axis=1))[0])
    columns = np.flatnonzero(rows[i]).tolist()[:10]
    raise AssertionError(
        f"{name}: the faces disagree on the {what} of env {i} after history {states[i].history()} "
        f"(first differing entries {columns}: vector {vector.reshape(len(states), -1)[i, columns].tolist()}, "
        f"OpenSpiel {spiel.reshape(len(states), -1)[i, columns].tolist()})\n{states[i]}"
    )
