"""The shared core: generic functions compiled per game stay apart and load from disk."""

import doctest
import importlib
import os
import pkgutil
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import elements_ai
import elements_ai.testing
from elements_ai.core.generic import _source_digest, generic, rules, rules_of
from elements_ai.core.kernel import GAME_MODULES, Kernel
from elements_ai.core.rules import KERNEL_FUNCTIONS, OPTIONAL_FUNCTIONS


@generic
def legal_count(cfg, state, mask):
    """A small generic function: the number of legal actions of the player to move."""
    rules.legal_mask(cfg, state, mask)
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a]
    return n


def test_a_generic_function_compiles_once_per_game_and_names_its_game():
    copies = {}
    for name in elements_ai.GAMES:
        kernel = elements_ai.get_kernel(name)
        compiled = legal_count[kernel]
        assert legal_count[kernel] is compiled
        assert f"[{name}-" in compiled.py_func.__qualname__
        game = elements_ai.load_game(name)
        for state in elements_ai.testing.random_states(game, 5, seed=2):
            mask = np.zeros(game.num_distinct_actions(), np.bool_)
            assert compiled(game.cfg, state.array, mask) == len(state.legal_actions())
        copies[name] = compiled.py_func.__qualname__
    assert len(set(copies.values())) == len(copies)


def test_calling_a_generic_function_without_a_game_is_an_error():
    with pytest.raises(TypeError, match=r"legal_count is generic over the games: call legal_count\[kernel\]"):
        legal_count(None, None, None)
    with pytest.raises(TypeError, match="rules.apply stands for a game's function"):
        rules.apply(None, None, 0)


def test_rules_give_defaults_for_the_optional_functions():
    duel = rules_of(elements_ai.get_kernel("elemental_duel"))
    elementos = rules_of(elements_ai.get_kernel("elementos"))
    assert duel.HAS_RESAMPLE and duel.resample is elements_ai.get_kernel("elemental_duel").resample
    assert elementos.sample_action is elementos.sample_action_masked  # its own sample_legal
    assert duel.sample_action is not duel.sample_action_masked  # the mask scan


# Two games' copies of one generic function, loaded from the disk cache into one
# process, must each run its own game (their symbols must not collide).
CACHE_SCRIPT = textwrap.dedent(
    """
    import numpy as np, elements_ai, elements_ai.testing, sys
    sys.path.insert(0, {tests!r})
    from test_core import legal_count
    for name in ("elements", "elemental_duel"):
        game = elements_ai.load_game(name)
        state = elements_ai.testing.first_decision(game, seed=4)
        mask = np.zeros(game.num_distinct_actions(), np.bool_)
        print(name, legal_count[game.kernel](game.cfg, state.array, mask), len(state.legal_actions()))
    """
)


@pytest.mark.slow
def test_a_second_process_loads_generic_copies_from_the_disk_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_DEBUG_CACHE="1")
    script = CACHE_SCRIPT.format(tests=os.path.dirname(__file__))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
        counts = [line.split() for line in run.stdout.splitlines() if line.startswith("ele")]
        assert len(counts) == 2 and all(found == expected for _, found, expected in counts), run.stdout
    first, second = (run.stdout + run.stderr for run in runs)
    assert "legal_count[elements-" in first and "data saved" in first
    saved = [line for line in second.splitlines() if "data saved" in line and "legal_count" in line]
    assert not saved, "compiled again instead of loading:\n" + "\n".join(saved)
    loaded = [line for line in second.splitlines() if "data loaded" in line and "legal_count" in line]
    assert len(loaded) == 2


def test_editing_a_rules_file_changes_the_digest(tmp_path, monkeypatch):
    package = tmp_path / "digest_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("import numba\n@numba.njit\ndef f(x):\n    return x\n")
    (package / "rules.py").write_text("import numba\nfrom .helper import f\n@numba.njit\ndef g(x):\n    return f(x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("digest_pkg.rules")
    before = _source_digest([module.g])
    (package / "helper.py").write_text("import numba\n@numba.njit\ndef f(x):\n    return x + 1\n")
    assert _source_digest([module.g]) != before  # a module reached through a jitted function


@pytest.mark.slow
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


def test_a_game_written_as_one_module_makes_the_same_kernel():
    """A newcomer may start with one module holding the whole game."""
    one_file = types.ModuleType("my_game")
    for part in GAME_MODULES:
        if importlib.util.find_spec(f"elements_ai.games.elements.{part}") is not None:
            vars(one_file).update(vars(importlib.import_module(f"elements_ai.games.elements.{part}")))
    one_file.__name__ = "my_game"
    kernel = Kernel.from_rules(one_file, long_name="One file", min_num_players=2, max_num_players=2)
    packaged = elements_ai.get_kernel("elements")
    assert kernel.short_name == "my_game" and kernel.variants == packaged.variants
    for name in KERNEL_FUNCTIONS + OPTIONAL_FUNCTIONS + ("action_to_string", "state_to_string", "configure"):
        assert getattr(kernel, name) is getattr(packaged, name), name


def test_a_game_package_must_define_every_kernel_function():
    lacking = types.ModuleType("lacking")
    lacking.PARAMS, lacking.configure = {}, None
    with pytest.raises(AttributeError, match="lacking: no module of the game defines 'init'"):
        Kernel.from_rules(lacking, long_name="x", min_num_players=1, max_num_players=1)


# Each type an argument arrives with compiles the callee once more (a literal 0, an
# unsigned prange index, a state's int16): the kernels' callers agree on int64.
ONE_COPY_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import elements_ai
    from elements_ai import testing
    from elements_ai.agents.search import RULES_ROLLOUT, policy_playout, random_rollout
    from elements_ai.core.playouts import play_out, random_playouts

    game = elements_ai.load_game("elements", single_round=True)
    random_playouts(game.kernel, game.config, 4, seed=0)
    state = testing.first_decision(game).array
    mask = np.zeros(game.num_distinct_actions(), np.bool_)
    probs = np.zeros(game.max_chance_outcomes())
    rng, out = np.ones(1, np.uint64), np.zeros(2)
    random_rollout[game.kernel](game.cfg, state.copy(), rng, 1, mask, probs, out)
    policy_playout[game.kernel](game.cfg, state.copy(), mask, probs, rng, RULES_ROLLOUT, 0, out)
    game.kernel.heuristic(game.cfg, state, 0, rng)  # the rules bot's call
    print([str(signature[5]) for signature in play_out[game.kernel].overloads])
    print([str(signature[2]) for signature in game.kernel.heuristic.overloads])
    """
)


@pytest.mark.slow
def test_playouts_and_the_heuristic_compile_once_for_all_their_callers(tmp_path):
    # A fresh cache: signatures loaded from disk would not list the nested calls' copies.
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", ONE_COPY_SCRIPT], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["['int64']", "['int64']"], run.stdout
