"""The OpenSpiel face, for every registered game: what OpenSpiel's algorithms use."""

import dataclasses
import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pyspiel
import pytest
from commands import ENV
from open_spiel.python.algorithms import ismcts, mcts

import elements_ai
from elements_ai.declaration import Declaration, check, declare
from elements_ai.games import DECLARATIONS, KERNELS
from elements_ai.testing import random_states

GAMES = elements_ai.GAMES


def _fresh(code: str, stdin: bytes = b"") -> str:
    """What ``code`` prints in a fresh interpreter (the tests' copy of the package)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], input=stdin, capture_output=True,
                          env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


# --- OpenSpiel on import ----------------------------------------------------------------------

@pytest.mark.slow
def test_importing_the_package_registers_every_game_in_a_fresh_interpreter():
    """As OpenSpiel's own Python games do; a game string then loads, a serialized game
    and state deserialize, with no other import; nothing is compiled on import."""
    states = [random_states(elements_ai.load_game(name), 1, seed=4)[0] for name in GAMES]
    sent = [pyspiel.serialize_game_and_state(state.get_game(), state) for state in states]
    said = json.loads(_fresh("""
        import json, sys
        import pyspiel, elements_ai
        said = {"compiled on import": [m for m in ("numba", "elements_ai.core") if m in sys.modules]}
        said["registered"] = sorted(set(elements_ai.games.DECLARATIONS) - set(pyspiel.registered_names()))
        said["loaded"] = str(pyspiel.load_game("elements(single_round=true)"))
        said["states"] = [str(pyspiel.deserialize_game_and_state(text)[1]) for text in json.load(sys.stdin)]
        print(json.dumps(said))
    """, json.dumps(sent).encode()))
    assert said["compiled on import"] == [] and said["registered"] == []
    assert said["loaded"] == str(elements_ai.load_game("elements(single_round=true)"))
    assert said["states"] == [str(state) for state in states]


@pytest.mark.slow
def test_a_pickled_state_loads_in_a_fresh_interpreter_that_imported_nothing():
    """What a spawned worker process meets: pickle alone brings the game back."""
    state = random_states(elements_ai.load_game("elements", single_round=True), 1, seed=5)[0]
    said = _fresh("""
        import pickle, sys
        state = pickle.loads(sys.stdin.buffer.read())
        print(state.history(), state.get_game())
    """, pickle.dumps(state))
    assert said.strip() == f"{state.history()} {state.get_game()}"


@pytest.mark.parametrize("name", GAMES)
def test_each_game_declares_what_its_kernel_registers(name):
    assert DECLARATIONS[name].differences(declare(KERNELS[name])) == []
    registered = pyspiel.load_game(name).get_type()
    assert registered.parameter_specification == DECLARATIONS[name].game_type().parameter_specification


def test_a_declaration_that_differs_from_its_kernel_is_refused_naming_the_difference():
    declared = DECLARATIONS["elements"]
    wrong = dataclasses.replace(declared, params={**declared.params, "hand_size": 5, "extra": True},
                                utility="general_sum")
    with pytest.raises(ValueError, match=r"game.toml does not declare .*parameter hand_size: 5 against 6; "
                                         r"parameter extra: True against none") as error:
        check(KERNELS["elements"], wrong, "games/elements/game.toml")
    assert "utility: 'general_sum' against 'zero_sum'" in str(error.value)
    flags = dataclasses.replace(declared, params={**declared.params, "single_round": 0})
    with pytest.raises(ValueError, match="parameter single_round: 0 against False"):
        check(KERNELS["elements"], flags, "game.toml")


def test_a_malformed_declaration_is_named_with_its_file(tmp_path):
    path = tmp_path / "game.toml"
    path.write_text('long_name = "X"\nmin_num_players = 2\nmax_num_players = 2\nplayers = 3\n[params]\n')
    with pytest.raises(ValueError, match="game.toml: unknown keys players"):
        Declaration.read(path, "x")
    path.write_text('long_name = "X"\n[params]\n')
    with pytest.raises(ValueError, match="game.toml: missing keys min_num_players, max_num_players"):
        Declaration.read(path, "x")
    path.write_text('long_name = "X\n')
    with pytest.raises(ValueError, match="game.toml: "):
        Declaration.read(path, "x")


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
