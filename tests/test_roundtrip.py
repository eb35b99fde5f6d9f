"""Every state the library hands out survives every way of copying it.

Parametrised like ``tests/test_games.py``, over ``elements_ai.GAMES`` and each
kernel's ``variants``. States are made every way a client can get one: played from
the initial state (chance, decision and terminal nodes), resampled for each player,
deserialized, cloned and built from a state array. Each is copied by pickle, clone,
``copy.deepcopy`` and OpenSpiel's serialization, and the copy must look the same to
every player and play on the same.
"""

import copy
import pickle

import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai.testing import random_action, random_states

# The longest variants take seconds each: `pytest -m "not slow"` leaves them out and keeps
# at least one variant of every game.
SLOW = {"elementos-default", "elements1997-four_aside", "elements1997-five", "elementum-three", "elementum-four",
        "elementum-overload"}
CASES = [
    pytest.param(name, variant, id=f"{name}-{variant}", marks=pytest.mark.slow if f"{name}-{variant}" in SLOW else ())
    for name in elements_ai.GAMES
    for variant in elements_ai.get_kernel(name).variants
]
assert SLOW <= {case.id for case in CASES}, "SLOW names a variant that does not exist"


def load(name, variant):
    return elements_ai.load_game(name, **elements_ai.get_kernel(name).variants[variant])


def _serialize_game_and_state(state):
    return pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(state.get_game(), state))[1]


COPIES = {
    "pickle": lambda state: pickle.loads(pickle.dumps(state)),
    "clone": lambda state: state.clone(),
    "deepcopy": copy.deepcopy,
    "serialize_game_and_state": _serialize_game_and_state,
    "deserialize_state": lambda state: state.get_game().deserialize_state(state.serialize()),
}


def view(state, every_player: bool = True) -> dict:
    """All a client can ask of a state; two states that agree here are the same to it.

    ``every_player=False`` leaves out the players' strings and tensors (the slow part).
    """
    seen = {
        "game": str(state.get_game()),
        "string": str(state),
        "array": state.array.tolist(),
        "history": state.history(),
        "move number": state.move_number(),
        "current player": state.current_player(),
        "is terminal": state.is_terminal(),
        "returns": state.returns(),
        "legal actions": state.legal_actions(),
        "chance outcomes": state.chance_outcomes() if state.is_chance_node() else [],
    }
    for player in range(state.num_players() if every_player else 0):
        seen[f"information state string {player}"] = state.information_state_string(player)
        seen[f"information state tensor {player}"] = state.information_state_tensor(player)
        seen[f"observation string {player}"] = state.observation_string(player)
        seen[f"observation tensor {player}"] = state.observation_tensor(player)
    return seen


def assert_same(expected: dict, state, where: str) -> None:
    got = view(state, every_player="observation tensor 0" in expected)
    differ = [key for key in expected if got[key] != expected[key]]
    assert not differ, f"{where}: differs in {differ}"


def played(game, rng, games: int = 2, per_kind: int = 3):
    """(label, state) for the initial state, a few chance and decision nodes spread
    over each of ``games`` random games, and the terminal state."""
    for g in range(games):
        state = game.new_initial_state()
        path = [state.clone()]
        while not state.is_terminal():
            state.apply_action(random_action(state, rng))
            path.append(state.clone())
        yield f"game {g} initial", path[0]
        middle = path[1:-1]
        for kind, nodes in (
            ("chance", [s for s in middle if s.is_chance_node()]),
            ("decision", [s for s in middle if s.current_player() >= 0]),
        ):
            for i in sorted(rng.choice(len(nodes), min(per_kind, len(nodes)), replace=False)):
                yield f"game {g} {kind} node after {len(nodes[i].history())} actions", nodes[i]
        yield f"game {g} terminal after {len(path) - 1} actions", path[-1]


def made(game, seed: int = 0):
    """(label, state) for every way the library hands out a state."""
    rng = np.random.default_rng(seed)
    sampler = np.random.RandomState(seed).rand
    for label, state in played(game, rng):
        yield f"played: {label}", state
        if state.is_terminal():
            continue
        yield f"from clone: {label}", state.clone()
        yield f"from deserialize_state: {label}", game.deserialize_state(state.serialize())
        yield f"from state_from_array: {label}", game.state_from_array(state.array)
        if state.current_player() >= 0:
            for player in range(game.num_players()):
                yield f"resampled for player {player}: {label}", state.resample_from_infostate(player, sampler)


@pytest.mark.parametrize("name, variant", CASES)
def test_every_state_survives_every_copy(name, variant):
    """Each copy equals the original to every player, is independent of it and plays
    on like it: the same action applied to both leaves them equal."""
    game = load(name, variant)
    rng = np.random.default_rng(1)
    kinds = set()
    for label, state in made(game):
        kinds.add(label.split(":")[0])
        original = view(state)
        follow = None
        if not state.is_terminal():
            action = random_action(state, rng)
            after = state.clone()
            after.apply_action(action)
            # Once a copy is known to look like the original, its array, history and
            # moves show it plays on alike.
            follow = view(after, every_player=False)
        for how, make_copy in COPIES.items():
            where = f"{name}-{variant}, {how} of a state {label}"
            twin = make_copy(state)
            assert type(twin) is type(state), where
            assert_same(original, twin, where)
            if follow is not None:
                twin.apply_action(action)
                assert state.array.tolist() == original["array"], f"{where}: the copy shares the state array"
                assert state.history() == original["history"], f"{where}: the copy shares the history"
                assert_same(follow, twin, f"{where}, then action {action}")
    resampled = {f"resampled for player {p}" for p in range(game.num_players())}
    assert kinds == {"played", "from clone", "from deserialize_state", "from state_from_array"} | resampled


@pytest.mark.parametrize("name", elements_ai.GAMES)
def test_a_resampled_state_pickles_as_itself_not_as_the_initial_state(name):
    """Pickle used to replay the history, which a resampled state does not record."""
    game = elements_ai.load_game(name)
    state = random_states(game, 1, seed=6)[0]
    sampled = state.resample_from_infostate(state.current_player(), np.random.RandomState(0).rand)
    assert sampled.history() == []
    twin = pickle.loads(pickle.dumps(sampled))
    assert str(twin) != str(game.new_initial_state())
    assert twin.current_player() == sampled.current_player() >= 0
    np.testing.assert_array_equal(twin.array, sampled.array)
