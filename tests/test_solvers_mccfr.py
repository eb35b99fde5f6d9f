"""MCCFR over the rules kernels, and the solvers on every game of the library."""

import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai.agents import make_bot, play_game
from elements_ai.solvers import CFRSolver, PolicyMismatch, TreeTooLarge, build_tree, estimate_tree, load_policy
from elements_ai.solvers.mccfr import MCCFRSolver

TINY = {"single_round": True, "deck": "1_2_6_6", "hand_size": 1}
SMALLER = {"single_round": True, "deck": "1_2_3_6", "hand_size": 2}


@pytest.fixture(scope="module")
def smaller():
    game = elements_ai.load_game("elements", **SMALLER)
    return game, build_tree(game)


@pytest.mark.parametrize("sampler, early, late", [("external", 50, 3000), ("outcome", 500, 30_000)])
def test_exploitability_falls(sampler, early, late, smaller):
    game, tree = smaller
    solver = MCCFRSolver(game, sampler, seed=2, memory=5e7)
    solver.run(early)
    first = solver.evaluate(tree).exploitability
    solver.run(late - early)
    last = solver.evaluate(tree).exploitability
    assert last < first / 2, (first, last)
    assert solver.num_infosets <= tree.num_infosets and solver.dropped == 0


def test_external_sampling_nearly_solves_the_tiny_variant():
    game = elements_ai.load_game("elements", **TINY)
    exact = CFRSolver(game, "cfr+")
    exact.run(2000)
    solver = MCCFRSolver(game, "external", seed=0, memory=1e7)
    solver.run(20_000)
    assert solver.num_infosets == exact.tree.num_infosets
    assert solver.evaluate(exact.tree).exploitability < 0.01
    value = exact.evaluate().policy_values[0]
    assert abs(solver.evaluate(exact.tree).policy_values[0] - value) < 0.02


@pytest.mark.parametrize("sampler", ["external", "outcome"])
def test_checkpoints_resume_exactly(sampler, tmp_path, smaller):
    game, _ = smaller
    straight = MCCFRSolver(game, sampler, seed=7, memory=5e7)
    straight.run(400)
    stopped = MCCFRSolver(game, sampler, seed=7, memory=5e7)
    stopped.run(250)
    path = tmp_path / "checkpoint.npz"
    stopped.save(path)
    resumed = MCCFRSolver.load(path, game)
    assert resumed.iteration == 250 and resumed.num_infosets == stopped.num_infosets
    resumed.run(150)
    assert resumed.iteration == 400
    for name in ("regret", "average", "keys", "actions", "first", "rng"):
        np.testing.assert_array_equal(getattr(resumed, name), getattr(straight, name), name)
    assert resumed.settings == straight.settings


def test_a_checkpoint_is_a_policy_and_a_bot(tmp_path, smaller):
    game, tree = smaller
    solver = MCCFRSolver(game, "outcome", seed=1, memory=5e7)
    solver.run(200)
    path = tmp_path / "os.npz"
    solver.save(path)
    table = load_policy(path, game)
    assert table.default_uniform and table.num_infosets == solver.num_infosets < tree.num_infosets
    assert table.info["iterations"] == 200
    np.testing.assert_array_equal(table.on_tree(tree), solver.average_policy().on_tree(tree))
    bots = [make_bot(f"mccfr:policy={path}", game, 0, seed=3), make_bot("random", game, 1, seed=4)]
    for seed in range(30):
        returns, _ = play_game(game, bots, seed=seed)
        assert sum(returns) == 0
    assert bots[0].unseen > 0  # information sets never sampled are played uniformly
    with pytest.raises(PolicyMismatch, match="holds a policy for elements"):
        make_bot(f"mccfr:policy={path}", elements_ai.load_game("elements", **TINY), 0)
    with pytest.raises(PolicyMismatch):
        MCCFRSolver.load(path, elements_ai.load_game("elements", **TINY))


def test_a_full_table_stops_learning_new_information_sets(smaller):
    game, tree = smaller
    solver = MCCFRSolver(game, "external", seed=1, memory=20_000)
    assert "up to" in solver.describe_table()
    solver.run(300)
    assert solver.num_infosets == solver.settings.capacity or solver.dropped > 0
    assert solver.dropped > 0
    assert np.isfinite(solver.evaluate(tree).nash_conv)


def test_bad_arguments_are_errors():
    game = elements_ai.load_game("elements", **TINY)
    with pytest.raises(ValueError, match="unknown sampler"):
        MCCFRSolver(game, "internal")
    with pytest.raises(ValueError, match="epsilon"):
        MCCFRSolver(game, "outcome", epsilon=0.0)
    with pytest.raises(ValueError, match="memory must be"):
        MCCFRSolver(game, memory=-1)
    with pytest.raises(ValueError, match="rules kernel"):
        MCCFRSolver(pyspiel.load_game("kuhn_poker"))
    with pytest.raises(ValueError, match="use outcome sampling"):
        MCCFRSolver(elements_ai.load_game("elements"), "external")


CASES = [
    pytest.param(name, variant, id=f"{name}-{variant}")
    for name in elements_ai.GAMES
    for variant in elements_ai.get_kernel(name).variants
]


@pytest.mark.parametrize("name, variant", CASES)
def test_every_game_is_estimated_sampled_and_solved_where_small(name, variant):
    """No game needs a special case: each variant's tree is estimated; small ones are
    built and solved exactly, the others refused with their size; outcome-sampling MCCFR
    runs on all."""
    game = elements_ai.load_game(name, **elements_ai.get_kernel(name).variants[variant])
    estimate = estimate_tree(game, walks=100)
    assert estimate.nodes >= 1 and np.isfinite(estimate.nodes)
    if estimate.nodes < 2e5:
        solver = CFRSolver(game, "cfr+")
        solver.run(20)
        assert solver.nash_conv() >= -1e-9
    else:
        with pytest.raises(TreeTooLarge, match="nodes"):
            build_tree(game, max_memory=1e6, walks=100)
    mccfr = MCCFRSolver(game, "outcome", seed=0, memory=1e7)
    mccfr.run(20)
    assert mccfr.num_infosets > 0
