"""The shared core: specialised helpers stay apart per game and load from disk."""

import doctest
import importlib
import os
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

import elements_ai
from elements_ai.agents.search import specialize_search
from elements_ai.core.jit import legal_samplers, specialize


def test_specialised_helpers_carry_their_game_in_their_names():
    names = {}
    for game in elements_ai.GAMES:
        kernel = elements_ai.get_kernel(game)
        helpers = vars(specialize(kernel)) | vars(specialize_search(kernel))
        for helper, dispatcher in helpers.items():
            qualname = dispatcher.py_func.__qualname__
            assert f"<locals>.{game}." in qualname, qualname
            names.setdefault(helper, set()).add(qualname)
    assert all(len(found) == len(elements_ai.GAMES) for found in names.values())


SCRIPT = """
import numpy as np, elements_ai
from elements_ai.agents import make_bot
for name in elements_ai.GAMES:
    env = elements_ai.make_vec(name, 4, seed=0)
    env.step(env.sample_actions())
    env.observation(), env.information_state(), env.random_playouts(2)
    game = elements_ai.load_game(name)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    make_bot("mcts:sims=20", game, state.current_player()).step(state)
    make_bot("ismcts:sims=20", game, state.current_player()).step(state)
"""


def test_a_second_process_loads_every_helper_from_the_disk_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_DEBUG_CACHE="1")
    first = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "data saved" in first.stdout + first.stderr
    second = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr[-2000:]
    log = second.stdout + second.stderr
    saved = [line for line in log.splitlines() if "data saved" in line]
    assert not saved, "compiled again instead of loading:\n" + "\n".join(saved[:10])
    assert "data loaded" in log


def test_docstring_examples_run():
    modules = [info.name for info in pkgutil.walk_packages(elements_ai.__path__, "elements_ai.")]
    failed, attempted = [], 0
    for name in ["elements_ai", *modules]:
        result = doctest.testmod(importlib.import_module(name))
        attempted += result.attempted
        if result.failed:
            failed.append(name)
    assert not failed, f"docstring examples fail in {failed}"
    assert attempted >= 20


SAMPLER_CASES = [
    ("elements", {}),
    ("elements", {"single_round": True, "hand_size": 3}),
    ("elemental_duel", {}),
    ("elementos", {}),
    ("elementos", {"rows": 15, "setup": "standard"}),
    ("elementos", {"rows": 6, "max_moves": 40}),
]


@pytest.mark.parametrize("name, params", SAMPLER_CASES)
def test_the_samplers_draw_every_legal_action_once_from_an_even_grid(name, params):
    """u = (j + 1/2) / n for j < n must give each of the n legal actions exactly once:
    then a uniform u draws a uniform legal action. Covers the kernels' own
    ``sample_legal`` and the mask scan used without it."""
    kernel = elements_ai.get_kernel(name)
    env = elements_ai.make_vec(name, 64, seed=11, autoreset=True, **params)
    samplers = legal_samplers(kernel)
    mask = np.zeros(env.num_actions, np.bool_)
    checked = 0
    for _ in range(150):
        for i in np.flatnonzero(env.current_player >= 0):
            state = env.states[i]
            legal = np.flatnonzero(env.legal_mask[i]).tolist()
            n = len(legal)
            for sample in (samplers.sample_fresh, samplers.sample_cached):
                drawn = sorted(int(sample(env.config.cfg, state, env.legal_mask[i], (j + 0.5) / n)) for j in range(n))
                assert drawn == legal, (name, params, i)
            assert samplers.sample_fresh(env.config.cfg, state, mask, 0.999999) in legal
            checked += 1
        env.step(env.sample_actions())
    assert checked > 3000


def test_elementos_has_its_own_sampler():
    assert elements_ai.get_kernel("elementos").sample_legal is not None
