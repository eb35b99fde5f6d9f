"""The compact tree (5 bytes a node) and its solver: the same tree, iterates and best
responses as the flat tree's, on any number of threads, and an honest size check."""

import numba
import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai.solvers import ALGORITHMS, CFRSolver, TreeTooLarge, build_tree, evaluate, evaluate_probs
from elements_ai.solvers.compact import CompactCFRSolver, build_compact, count_compact, evaluate_compact
from elements_ai.solvers.compact import build as compact_build
from elements_ai.solvers.compact.tree import _max_depth, _subtree_stop
from elements_ai.solvers.memory import COMPACT_NODE_BYTES

TINY = "elements(single_round=true,deck=1_2_6_6,hand_size=1)"
SMALL = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
DUEL = "elemental_duel(num_territories=1)"
ITERATIONS = {TINY: 30, SMALL: 8, DUEL: 8}
two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread on this machine")


@pytest.fixture(scope="module")
def trees():
    """Both trees of a game, and where each compact sequence is in the flat tree."""
    cache = {}

    def get(name):
        if name not in cache:
            game = elements_ai.load_game(name)
            flat, compact = build_tree(game), build_compact(game)
            to_flat = np.empty(compact.num_sequences, np.int64)
            for i in range(compact.num_infosets):
                j = flat.find_infoset((int(compact.keys[i, 0]), int(compact.keys[i, 1])))
                assert j >= 0
                to_flat[compact.infoset_first[i] : compact.infoset_first[i + 1]] = np.arange(
                    flat.infoset_first[j], flat.infoset_first[j + 1]
                )
            cache[name] = flat, compact, to_flat
        return cache[name]

    return get


def random_probs(tree, seed):
    """A random policy on a tree, some of its actions never played."""
    rng = np.random.default_rng(seed)
    probs = rng.random(tree.num_sequences) * (rng.random(tree.num_sequences) > 0.2)
    for i in range(tree.num_infosets):
        first, stop = tree.infoset_first[i], tree.infoset_first[i + 1]
        total = probs[first:stop].sum()
        probs[first:stop] = probs[first:stop] / total if total > 0 else 1.0 / (stop - first)
    return probs


@pytest.mark.parametrize("name", [TINY, SMALL, DUEL])
def test_the_compact_tree_is_the_flat_tree_in_five_bytes_a_node(name, trees):
    flat, compact, to_flat = trees(name)
    assert (compact.num_nodes, compact.num_infosets, compact.num_sequences) == (
        flat.num_nodes, flat.num_infosets, flat.num_sequences,
    )
    assert compact.num_terminals == flat.num_terminals
    assert compact.node_shape.nbytes + compact.node_code.nbytes == COMPACT_NODE_BYTES * compact.num_nodes == (
        5 * flat.num_nodes
    )
    # Each sequence is the same action of the same information set, whose parent
    # sequence is the same too.
    np.testing.assert_array_equal(compact.sequence_action, flat.sequence_action[to_flat])
    has_parent = compact.infoset_parent >= 0
    np.testing.assert_array_equal(has_parent, flat.infoset_parent[flat.sequence_infoset[to_flat]][
        compact.infoset_first[:-1]] >= 0)
    np.testing.assert_array_equal(
        to_flat[compact.infoset_parent[has_parent]],
        flat.infoset_parent[flat.sequence_infoset[to_flat[compact.infoset_first[:-1][has_parent]]]],
    )
    # One tree in preorder.
    assert _subtree_stop(compact.node_shape, 0) == compact.num_nodes
    assert _max_depth(compact.node_shape) == compact.depth > 0
    assert _max_depth(compact.node_shape[:-1]) == -1


@pytest.mark.parametrize("name", [TINY, SMALL, DUEL])
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_algorithm_gives_the_flat_solvers_iterates(name, algorithm, trees):
    flat, compact, to_flat = trees(name)
    expected = CFRSolver(flat, algorithm, threads=1)
    solver = CompactCFRSolver(compact, algorithm, threads=1)
    expected.run(ITERATIONS[name])
    solver.run(ITERATIONS[name])
    # On one thread the regrets are summed in the flat solver's order: the same bits.
    np.testing.assert_array_equal(solver.regret, expected.regret[to_flat])
    np.testing.assert_array_equal(solver.average_probs(), expected.average_probs()[to_flat])
    assert solver.exploitability() == pytest.approx(expected.exploitability(), abs=1e-12)
    assert solver.iteration == ITERATIONS[name] and solver.exploitability() > 0


@pytest.mark.parametrize("name", [SMALL, DUEL])
def test_best_responses_and_values_are_the_flat_trees(name, trees):
    flat, compact, to_flat = trees(name)
    for seed in range(3):
        probs = random_probs(flat, seed)
        expected = evaluate_probs(flat, probs, threads=1)
        for threads, task_nodes in ((1, None), (2, 500)):
            got = evaluate_compact(compact, probs[to_flat], threads=threads, task_nodes=task_nodes)
            np.testing.assert_allclose(got.best_response_values, expected.best_response_values, rtol=0, atol=1e-12)
            np.testing.assert_allclose(got.policy_values, expected.policy_values, rtol=0, atol=1e-12)
            assert got.nash_conv == pytest.approx(expected.nash_conv, abs=1e-12) and got.nash_conv > 0.01


@two_threads
@pytest.mark.parametrize("name", [SMALL, DUEL])
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_two_threads_give_one_threads_bits(name, algorithm, trees):
    """The subtrees are dealt to lanes, whatever the threads: one thread sums the same
    partial sums in the same order as two, so the iterates are the same to the bit."""
    _, compact, _ = trees(name)
    task_nodes = 300
    assert compact.plan(task_nodes)[0].shape[0] > 100
    one = CompactCFRSolver(compact, algorithm, threads=1, task_nodes=task_nodes, lanes=2)
    two = CompactCFRSolver(compact, algorithm, threads=2, task_nodes=task_nodes, lanes=2)
    uncut = CompactCFRSolver(compact, algorithm, threads=1)
    for solver in (one, two, uncut):
        solver.run(ITERATIONS[name])
    for a, b in ((one.regret, two.regret), (one.cumulative, two.cumulative), (one.policy, two.policy)):
        np.testing.assert_array_equal(a, b)
    assert one.evaluate() == two.evaluate()
    # Other lanes (or none: the tree walked whole) sum in another order: equal to rounding.
    np.testing.assert_allclose(two.regret, uncut.regret, rtol=0, atol=1e-12)
    assert two.exploitability() == pytest.approx(uncut.exploitability(), abs=1e-9)


def test_lanes_are_checked_and_default_to_the_machines_cores(trees):
    _, compact, _ = trees(SMALL)
    assert CompactCFRSolver(compact, "cfr", task_nodes=300).lanes == min(numba.config.NUMBA_NUM_THREADS,
                                                                         compact.plan(300)[0].shape[0])
    assert CompactCFRSolver(compact, "cfr").lanes == 1  # a small tree is walked whole
    for bad in (0, -1, 1.5, "2", True):
        with pytest.raises(ValueError, match="lanes must be an integer"):
            CompactCFRSolver(compact, "cfr", lanes=bad)


def test_subtree_tasks_cover_the_tree(trees):
    _, compact, _ = trees(SMALL)
    start, stop = compact.plan(300)
    assert (stop - start <= 300).all() and (start[1:] >= stop[:-1]).all()
    for first, end in zip(start, stop):
        assert _subtree_stop(compact.node_shape, first) == end
    assert compact.plan()[0].shape[0] == 0  # a small tree runs on one thread


def test_float32_accumulators_reach_the_same_exploitability(trees):
    _, compact, _ = trees(SMALL)
    wide = CompactCFRSolver(compact, "cfr+", threads=1)
    narrow = CompactCFRSolver(compact, "cfr+", threads=1, accumulator="float32")
    wide.run(100)
    narrow.run(100)
    assert narrow.regret.dtype == narrow.cumulative.dtype == np.float32
    assert narrow.nbytes < wide.nbytes
    assert narrow.exploitability() == pytest.approx(wide.exploitability(), rel=1e-3)
    assert wide.exploitability() < 0.01
    with pytest.raises(ValueError, match="accumulator"):
        CompactCFRSolver(compact, "cfr+", accumulator="float16")


def test_the_sketch_counts_information_sets_and_sequences(trees):
    flat, _, _ = trees(SMALL)
    counts = count_compact(elements_ai.load_game(SMALL))
    assert counts["nodes"] == flat.num_nodes
    assert counts["infosets"] == pytest.approx(flat.num_infosets, rel=0.02)
    assert counts["sequences"] == pytest.approx(flat.num_sequences, rel=0.02)


def test_trees_that_do_not_fit_are_refused_with_their_size(trees):
    game = elements_ai.load_game(SMALL)
    with pytest.raises(TreeTooLarge, match=r"about .* nodes .* needs .* this machine has .* GB"):
        build_compact(game, max_memory=1e4)
    # Past the random walks (under 0.5 MB of nodes), stopped by the information sets
    # counted before building.
    with pytest.raises(TreeTooLarge, match=r"88,193 nodes, about .* information sets .* needs \d"):
        build_compact(game, max_memory=8e5)
    _, compact, _ = trees(SMALL)
    with pytest.raises(TreeTooLarge, match="information sets"):
        CompactCFRSolver(compact, max_memory=1e5)
    # The full deck's three-card round: refused from the random walks in seconds.
    full = elements_ai.load_game("elements(single_round=true,hand_size=3)")
    with pytest.raises(TreeTooLarge, match=r"about \d\.?\d? × 10\^9 nodes"):
        build_compact(full, max_memory=4e9, walks=300)
    with pytest.raises(ValueError, match="game of this library"):
        build_compact(pyspiel.load_game("kuhn_poker"))


def test_the_average_policy_is_a_policy_table(trees):
    flat, compact, _ = trees(TINY)
    solver = CompactCFRSolver(compact, "cfr+", threads=1)
    solver.run(50)
    table = solver.average_policy()
    assert table.info["layout"] == "compact" and table.num_sequences == compact.num_sequences
    assert evaluate(flat, table, threads=1).nash_conv == pytest.approx(solver.nash_conv(), abs=1e-12)


def test_the_builder_grows_its_arrays_when_the_sketch_is_low(trees, monkeypatch):
    _, expected, _ = trees(SMALL)
    monkeypatch.setattr(compact_build, "SKETCH_MARGIN", 0.3)
    tree = build_compact(elements_ai.load_game(SMALL))
    for name in ("node_shape", "node_code", "keys", "infoset_first", "infoset_parent", "sequence_action"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(expected, name))
