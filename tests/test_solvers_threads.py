"""The tabular solvers on several threads: the same iterates and the same best
responses, bit for bit, as on one."""

import numba
import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai import cli
from elements_ai.solvers import ALGORITHMS, CFRSolver, Tree, best_response_probs, build_tree, evaluate_probs
from elements_ai.solvers.sweeps import check_threads, using_threads

SMALL = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
# Tasks small enough that even kuhn_poker is shared among threads (by default a
# tree this small is swept on one).
TASK_NODES = {"kuhn_poker": 4, "leduc_poker": 64, SMALL: 1024}
ITERATIONS = {"kuhn_poker": 40, "leduc_poker": 12, SMALL: 4}

pytestmark = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread on this machine")


@pytest.fixture(scope="module")
def trees():
    cache = {}

    def get(name):
        if name not in cache:
            game = elements_ai.load_game(name) if name.startswith("elements") else pyspiel.load_game(name)
            cache[name] = build_tree(game)
        return cache[name]

    return get


def solved(tree: Tree, algorithm: str, iterations: int, threads: int) -> CFRSolver:
    solver = CFRSolver(tree, algorithm, threads=threads)
    solver.run(iterations)
    return solver


@pytest.mark.parametrize("name", list(TASK_NODES))
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_two_threads_give_the_one_thread_iterates(name, algorithm, trees):
    tree = trees(name)
    iterations = ITERATIONS[name]
    tree.sweep_plan(task_nodes=tree.num_nodes)  # one task: the whole tree on one thread
    whole = solved(tree, algorithm, iterations, threads=1)
    plan = tree.sweep_plan(task_nodes=TASK_NODES[name])
    assert plan.num_tasks > 4
    one, two = (solved(tree, algorithm, iterations, threads) for threads in (1, 2))
    for solver in (one, two):
        # Each information set sums its nodes in one order, whoever swept them.
        np.testing.assert_array_equal(solver.average_probs(), whole.average_probs())
        np.testing.assert_array_equal(solver.regret, whole.regret)
        np.testing.assert_array_equal(solver.policy, whole.policy)
    # Each solver measures on its own threads.
    assert one.evaluate() == two.evaluate()
    assert one.exploitability() == pytest.approx(whole.exploitability(), abs=1e-12)


@pytest.mark.parametrize("name", list(TASK_NODES))
def test_best_responses_agree_on_any_number_of_threads(name, trees):
    tree = trees(name)
    probs = solved(tree, "cfr", 3, threads=1).average_probs()
    tree.sweep_plan(task_nodes=tree.num_nodes)
    whole = evaluate_probs(tree, probs, threads=1)
    tree.sweep_plan(task_nodes=TASK_NODES[name])
    one, two = (evaluate_probs(tree, probs, threads=threads) for threads in (1, 2))
    assert one == two
    for mine, theirs in zip(
        (one.nash_conv, *one.best_response_values, *one.policy_values),
        (whole.nash_conv, *whole.best_response_values, *whole.policy_values),
    ):
        assert mine == pytest.approx(theirs, abs=1e-12)
    for player in range(tree.num_players):
        best_one, value_one = best_response_probs(tree, probs, player, threads=1)
        best_two, value_two = best_response_probs(tree, probs, player, threads=2)
        np.testing.assert_array_equal(best_one, best_two)
        assert value_one == value_two == one.best_response_values[player]


def depth_first_to_breadth_first(tree: Tree) -> Tree:
    """The same tree numbered level by level: children still consecutive, but a
    node's descendants no longer one range."""
    order = [0]
    for node in order:
        first = int(tree.node_first[node])
        order.extend(range(first, first + int(tree.node_count[node])))
    order = np.array(order)
    new_index = np.empty_like(order)
    new_index[order] = np.arange(order.shape[0])
    node_first = np.where(tree.node_count[order] > 0, new_index[tree.node_first[order]], 0).astype(np.int32)
    return Tree(
        game=tree.game, node_player=tree.node_player[order], node_first=node_first,
        node_count=tree.node_count[order], node_index=tree.node_index[order], chance_prob=tree.chance_prob,
        chance_action=tree.chance_action, utility=tree.utility, infoset_player=tree.infoset_player,
        infoset_first=tree.infoset_first, infoset_parent=tree.infoset_parent,
        infoset_node=new_index[tree.infoset_node].astype(np.int32), sequence_action=tree.sequence_action,
        keys=tree.keys,
    )


def test_a_tree_numbered_otherwise_is_split_only_where_its_subtrees_are_ranges(trees):
    tree = trees("leduc_poker")
    other = depth_first_to_breadth_first(tree)
    split, plan = other.sweep_plan(task_nodes=64), tree.sweep_plan(task_nodes=64)
    # Level by level, only the last levels' subtrees are ranges: far fewer nodes in tasks.
    in_tasks = [int((p.tasks[:, 1] - p.tasks[:, 0]).sum()) for p in (split, plan)]
    assert 0 < in_tasks[0] < in_tasks[1] // 2
    mine = solved(tree, "dcfr", 5, threads=2)
    theirs = [solved(other, "dcfr", 5, threads) for threads in (1, 2)]
    np.testing.assert_array_equal(theirs[0].average_probs(), theirs[1].average_probs())
    np.testing.assert_allclose(theirs[1].average_probs(), mine.average_probs(), rtol=0, atol=1e-12)
    assert theirs[1].exploitability() == pytest.approx(mine.exploitability(), abs=1e-12)


def test_threads_are_checked_and_restored():
    before = numba.get_num_threads()
    with using_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    assert check_threads(None) == numba.config.NUMBA_NUM_THREADS
    assert check_threads(10_000) == numba.config.NUMBA_NUM_THREADS
    for bad, error in ((0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="threads"):
            check_threads(bad)
    with pytest.raises(ValueError, match="threads must be >= 1, got 0"):
        CFRSolver(pyspiel.load_game("kuhn_poker"), threads=0)


def test_the_commands_take_threads(tmp_path, capsys):
    path = tmp_path / "kuhn.npz"
    argv = ["solve", "kuhn_poker", "--iterations", "50", "--out", str(path), "--threads", "1"]
    assert cli.main(argv) == 0
    assert "iterations 50" in capsys.readouterr().err
    assert cli.main(["exploitability", "kuhn_poker", str(path), "--threads", "2"]) == 0
    assert "exploitability: " in capsys.readouterr().out
    commands = (["solve", "kuhn_poker", "--out", str(tmp_path / "x.npz")], ["exploitability", "kuhn_poker", str(path)])
    for command in commands:
        assert cli.main([*command, "--threads", "0"]) == 2
        assert "--threads must be >= 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()
