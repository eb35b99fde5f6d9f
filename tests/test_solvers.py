"""The tabular solvers against OpenSpiel: the same iterates, the same best responses."""

import os
import re

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import discounted_cfr, exploitability

import elements_ai
from elements_ai.solvers import (
    ALGORITHMS,
    CFRSolver,
    PolicyMismatch,
    PolicyTable,
    TreeTooLarge,
    best_response_probs,
    build_tree,
    estimate_tree,
    evaluate,
    evaluate_probs,
    load_policy,
    policy_probs,
    to_tabular,
    tree_from_pyspiel,
    uniform_probs,
)
from elements_ai.solvers.estimate import EVERYONE, NODES, _pyspiel_walks, walk_samples
from elements_ai.solvers.kernel_tree import count_kernel_tree
from elements_ai.solvers.mccfr import PROBE_WALKS, MCCFRSolver
from elements_ai.solvers.tree import MAX_NODES

TINY = "elements(single_round=true,deck=1_2_6_6,hand_size=1)"
SMALL = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"


@pytest.fixture(scope="module")
def trees():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = build_tree(pyspiel.load_game(name))
        return cache[name]

    return get


def openspiel_table(policy) -> dict[str, dict[int, float]]:
    """A pyspiel solver's average policy as {information state: {action: prob}}."""
    return {key: dict(pairs) for key, pairs in policy.policy_table().items()}


@pytest.mark.parametrize("name", ["kuhn_poker", pytest.param("leduc_poker", marks=pytest.mark.slow)])
@pytest.mark.parametrize(
    "algorithm, reference", [("cfr", pyspiel.CFRSolver), ("cfr+", pyspiel.CFRPlusSolver)], ids=["cfr", "cfr+"]
)
def test_cfr_and_cfr_plus_match_openspiel_cpp(name, algorithm, reference, trees):
    game = pyspiel.load_game(name)
    tree = trees(name)
    ours = CFRSolver(tree, algorithm)
    theirs = reference(game)
    for iterations in (10, 100):
        for _ in range(iterations - ours.iteration):
            theirs.evaluate_and_update_policy()
        ours.run(iterations - ours.iteration)
        expected = pyspiel.nash_conv(game, theirs.average_policy())
        assert abs(ours.nash_conv() - expected) < 1e-9, (iterations, ours.nash_conv(), expected)
        # Not only the same NashConv: the same average policy, information set by information set.
        table = openspiel_table(theirs.tabular_average_policy())
        probs = ours.average_probs()
        for infoset in range(tree.num_infosets):
            row = table[tree.keys[infoset]]
            first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
            expected_row = [row[int(a)] for a in tree.sequence_action[first:stop]]
            np.testing.assert_allclose(probs[first:stop], expected_row, atol=1e-12)


@pytest.mark.parametrize(
    "name, iterations",
    [("kuhn_poker", 50), pytest.param("leduc_poker", 5, marks=pytest.mark.slow)],
    ids=["kuhn_poker", "leduc_poker"],
)
@pytest.mark.parametrize(
    "algorithm, reference",
    [("lcfr", discounted_cfr.LCFRSolver), ("dcfr", discounted_cfr.DCFRSolver)],
    ids=["lcfr", "dcfr"],
)
def test_linear_and_discounted_cfr_match_openspiel_python(name, iterations, algorithm, reference, trees):
    game = pyspiel.load_game(name)
    ours = CFRSolver(trees(name), algorithm)
    ours.run(iterations)
    theirs = reference(game)
    for _ in range(iterations):
        theirs.evaluate_and_update_policy()
    expected = exploitability.nash_conv(game, theirs.average_policy())
    assert abs(ours.nash_conv() - expected) < 1e-9


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_algorithm_solves_kuhn(algorithm, trees):
    solver = CFRSolver(trees("kuhn_poker"), algorithm)
    solver.run(1000)
    assert solver.exploitability() < 1e-3
    # Kuhn's game value for the first player is -1/18.
    assert abs(solver.evaluate().policy_values[0] + 1 / 18) < 2e-3


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_algorithm_improves_on_leduc(algorithm, trees):
    solver = CFRSolver(trees("leduc_poker"), algorithm)
    solver.run(50)
    early = solver.exploitability()
    solver.run(450)
    assert solver.exploitability() < min(early / 3, 0.03)


def random_tabular_policy(game, seed):
    table = openspiel_policy.TabularPolicy(game)
    rng = np.random.default_rng(seed)
    weights = rng.random(table.action_probability_array.shape) * table.legal_actions_mask
    table.action_probability_array = weights / weights.sum(axis=1, keepdims=True)
    return table


@pytest.mark.parametrize("name", ["kuhn_poker", pytest.param("leduc_poker", marks=pytest.mark.slow), TINY])
def test_exploitability_of_uniform_and_random_policies_matches_openspiel(name, trees):
    game = pyspiel.load_game(name)
    for given in (openspiel_policy.UniformRandomPolicy(game), random_tabular_policy(game, seed=3)):
        ours = evaluate(trees(name), given)
        assert abs(ours.nash_conv - exploitability.nash_conv(game, given)) < 1e-9
        assert abs(ours.exploitability - exploitability.exploitability(game, given)) < 1e-9


SMALL_VARIANTS = [
    pytest.param("elements", elements_ai.get_kernel("elements").variants["small"], id="elements-small"),
    pytest.param("elemental_duel", {"num_territories": 1}, id="elemental_duel-1"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, params", SMALL_VARIANTS)
def test_exploitability_matches_openspiel_on_small_variants(name, params):
    """OpenSpiel's Python best response takes 20 s or more a policy on these: one random
    tabular policy (a distinct distribution at every information set) checks them."""
    game = elements_ai.load_game(name, **params)
    given = random_tabular_policy(game, seed=5)
    ours = evaluate(build_tree(game), given)
    assert abs(ours.nash_conv - exploitability.nash_conv(game, given)) < 1e-9


def test_best_response_is_a_best_response(trees):
    """The best response's value is what it earns when played, and no one-shot change at
    any information set earns more."""
    tree = trees("leduc_poker")
    solver = CFRSolver(tree, "cfr")
    solver.run(20)
    probs = solver.average_probs()
    for player in range(2):
        best, value = best_response_probs(tree, probs, player)
        assert abs(evaluate_probs(tree, best).policy_values[player] - value) < 1e-12
        rng = np.random.default_rng(player)
        for infoset in rng.choice(tree.player_infosets[tree.player_first[player] : tree.player_first[player + 1]], 20):
            first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
            for s in range(first, stop):
                changed = best.copy()
                changed[first:stop] = 0.0
                changed[s] = 1.0
                assert evaluate_probs(tree, changed).policy_values[player] <= value + 1e-12


def test_nash_conv_of_an_equilibrium_is_zero(trees):
    """Kuhn's equilibrium family with alpha = 0 (never bluff as player 0's jack)."""
    game = pyspiel.load_game("kuhn_poker")
    table = openspiel_policy.TabularPolicy(game)
    third = 1.0 / 3.0
    # Keys: card (0 J, 1 Q, 2 K) then the actions so far (p pass, b bet).
    bets = {"0": 0.0, "1": 0.0, "2": 0.0, "0pb": 0.0, "1pb": third, "2pb": 1.0,
            "0p": third, "1p": 0.0, "2p": 1.0, "0b": 0.0, "1b": third, "2b": 1.0}
    for key, bet in bets.items():
        table.action_probability_array[table.state_lookup[key]] = [1.0 - bet, bet]
    assert abs(evaluate(game, table).nash_conv) < 1e-12


def test_tabular_policy_round_trip(trees):
    tree = trees("leduc_poker")
    solver = CFRSolver(tree, "cfr+")
    solver.run(30)
    probs = solver.average_probs()
    tabular = to_tabular(tree, probs)
    assert isinstance(tabular, openspiel_policy.TabularPolicy)
    np.testing.assert_array_equal(policy_probs(tree, tabular), probs)
    game = pyspiel.load_game("leduc_poker")
    assert abs(exploitability.nash_conv(game, tabular) - evaluate_probs(tree, probs).nash_conv) < 1e-9
    # And through the policy table an OpenSpiel tool reads directly.
    table = solver.average_policy()
    assert abs(exploitability.nash_conv(game, table) - solver.nash_conv()) < 1e-9


def test_pyspiel_policies_are_read(trees):
    game = pyspiel.load_game("kuhn_poker")
    theirs = pyspiel.CFRPlusSolver(game)
    for _ in range(30):
        theirs.evaluate_and_update_policy()
    ours = evaluate(trees("kuhn_poker"), theirs.average_policy())
    assert abs(ours.nash_conv - pyspiel.nash_conv(game, theirs.average_policy())) < 1e-9


def test_policies_that_are_not_distributions_are_rejected(trees):
    game = pyspiel.load_game("kuhn_poker")
    table = openspiel_policy.TabularPolicy(game)
    table.action_probability_array[0] = [0.7, 0.7]
    with pytest.raises(ValueError, match="not a distribution"):
        policy_probs(trees("kuhn_poker"), table)
    table.action_probability_array[0] = [0.5, 0.5]
    state = trees("kuhn_poker").state(3)
    legal = {a: 1.0 / len(state.legal_actions()) for a in state.legal_actions()}

    class Leaky(openspiel_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            return {**legal, 7: 0.5}

    with pytest.raises(ValueError, match="illegal action 7"):
        policy_probs(trees("kuhn_poker"), Leaky(game, [0, 1]))


def test_save_and_load_round_trip(tmp_path, trees):
    tree = trees("leduc_poker")
    solver = CFRSolver(tree, "dcfr")
    solver.run(40)
    path = tmp_path / "leduc.npz"
    solver.save(path)
    table = load_policy(path, pyspiel.load_game("leduc_poker"))
    assert table.info["iterations"] == 40 and table.info["settings"]["algorithm"] == "dcfr"
    assert table.info["settings"]["alpha"] == 1.5 and table.info["settings"]["gamma"] == 2.0
    np.testing.assert_array_equal(table.on_tree(tree), solver.average_probs())
    assert table.keys == tree.keys
    # Resuming continues exactly where the solver stopped.
    resumed = CFRSolver.load(path, tree)
    solver.run(25)
    resumed.run(25)
    assert resumed.iteration == 65
    np.testing.assert_array_equal(resumed.average_probs(), solver.average_probs())
    np.testing.assert_array_equal(resumed.regret, solver.regret)


def test_loading_for_another_game_is_an_error(tmp_path, trees):
    solver = CFRSolver(trees("kuhn_poker"), "cfr")
    solver.run(5)
    path = tmp_path / "kuhn.npz"
    solver.average_policy().save(path)
    with pytest.raises(PolicyMismatch, match=r"holds a policy for kuhn_poker\(\), not for leduc_poker\(\)"):
        load_policy(path, pyspiel.load_game("leduc_poker"))
    with pytest.raises(PolicyMismatch):
        load_policy(path, "kuhn_poker(players=3)")
    assert load_policy(path, "kuhn_poker").num_infosets == 12


def test_malformed_and_missing_files_are_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_policy(tmp_path / "nothing.npz")
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="not a file of elements_ai"):
        load_policy(garbage)
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    with pytest.raises(ValueError, match="no readable header"):
        load_policy(other)


def test_a_failed_save_leaves_nothing_behind(tmp_path, trees, monkeypatch):
    solver = CFRSolver(trees("kuhn_poker"), "cfr")
    solver.run(5)
    path = tmp_path / "kuhn.npz"
    solver.save(path)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken)
    solver.run(5)
    with pytest.raises(OSError, match="disk full"):
        solver.save(path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["kuhn.npz"]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        solver.save(tmp_path / "no" / "such" / "folder.npz")


def test_trees_are_built_in_the_same_order_by_both_builders_and_check_perfect_recall(trees):
    tree = trees("leduc_poker")
    assert (tree.node_first[tree.node_count > 0] > np.flatnonzero(tree.node_count > 0)).all()
    assert tree.num_nodes == 9457 and tree.num_infosets == 936 and tree.num_terminals == 5520
    # Every sequence's information set comes before the information sets it leads to.
    has_parent = tree.infoset_parent >= 0
    assert (tree.sequence_infoset[tree.infoset_parent[has_parent]] < np.flatnonzero(has_parent)).all()
    state = tree.state(100)
    assert state.information_state_string() == tree.keys[100]


def test_estimates_and_the_memory_check():
    estimate = estimate_tree(pyspiel.load_game("leduc_poker"), walks=3000, seed=1)
    assert abs(estimate.nodes - 9457) < 4 * estimate.nodes_error
    with pytest.raises(TreeTooLarge, match=r"about .* nodes .* this machine has .* GB"):
        build_tree(pyspiel.load_game("leduc_poker"), max_memory=1e4)
    full = elements_ai.load_game("elements")
    with pytest.raises(TreeTooLarge, match="use MCCFR") as error:
        build_tree(full, walks=200)
    # One figure for the memory needed, in powers of ten people read (not 1.6e+124 GB).
    message = str(error.value)
    assert message.count("needs") == 1 and "e+" not in message, message
    assert re.search(r"about \d\.?\d? × 10\^\d+ nodes .* needs \d\.?\d? × 10\^\d+ GB, and this machine", message)
    with pytest.raises(TreeTooLarge, match="more than 50 nodes"):
        tree_from_pyspiel(pyspiel.load_game("kuhn_poker"), max_nodes=50)
    assert MAX_NODES == 2**31 - 1


def test_one_estimator_walks_kernel_and_pyspiel_games_alike():
    """The numba walks over a rules kernel and the walks through pyspiel states draw
    the same children from the same stream: on a kernel game their figures are equal,
    whichever player branches. External-sampling MCCFR is sized by the same walks."""
    game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6", hand_size=2)
    for brancher in (EVERYONE, 0, 1):
        kernel = walk_samples(game, 300, seed=5, brancher=brancher)
        python = np.zeros_like(kernel)
        _pyspiel_walks(game, 300, 5, brancher, python)
        np.testing.assert_array_equal(kernel, python)
    exact = count_kernel_tree(game)
    estimate = estimate_tree(game, walks=3000, seed=1)
    assert abs(estimate.nodes - exact["nodes"]) < 4 * estimate.nodes_error
    assert abs(estimate.decision_nodes - exact["decision_nodes"]) < 0.2 * exact["decision_nodes"]
    solver = MCCFRSolver(game, "external", seed=3, memory=1e7)
    traversals = [walk_samples(game, PROBE_WALKS, 3, brancher=player)[:, NODES].mean() for player in (0, 1)]
    assert solver.nodes_per_iteration == sum(traversals) < estimate.nodes


def test_bad_arguments_are_errors(trees):
    with pytest.raises(ValueError, match="unknown algorithm 'cfr-'"):
        CFRSolver(trees("kuhn_poker"), "cfr-")
    with pytest.raises(ValueError, match="alpha cannot be set"):
        CFRSolver(trees("kuhn_poker"), "cfr+", alpha=2.0)
    with pytest.raises(ValueError, match="sequential game"):
        build_tree(pyspiel.load_game("matrix_rps"))
    with pytest.raises(ValueError, match="iterations must be >= 0"):
        CFRSolver(trees("kuhn_poker")).run(-1)


def test_policy_table_plays_as_an_openspiel_policy(trees):
    tree = trees(TINY)
    solver = CFRSolver(tree, "cfr+")
    solver.run(200)
    table = solver.average_policy()
    assert isinstance(table, PolicyTable)
    state = tree.state(5)
    given = table.action_probabilities(state)
    assert sorted(given) == state.legal_actions() and abs(sum(given.values()) - 1) < 1e-12
    np.testing.assert_array_equal(policy_probs(tree, table), solver.average_probs())
    assert evaluate_probs(tree, uniform_probs(tree)).nash_conv > solver.nash_conv()


TREE_ARRAYS = (
    "node_player", "node_first", "node_count", "node_index", "chance_prob", "chance_action", "utility",
    "infoset_player", "infoset_first", "infoset_parent", "infoset_node", "sequence_action",
)


@pytest.mark.parametrize(
    "name, params",
    [
        ("elements", {"single_round": True, "deck": "1_2_6_6", "hand_size": 1}),
        pytest.param("elements", {"single_round": True, "deck": "1_2_3_6", "hand_size": 2}, marks=pytest.mark.slow),
    ],
    ids=["elements-tiny", "elements-1236"],
)
def test_kernel_and_pyspiel_builders_give_the_same_tree_and_results(name, params):
    game = elements_ai.load_game(name, **params)
    kernel_tree = build_tree(game, builder="kernel")
    pyspiel_tree = build_tree(game, builder="pyspiel")
    assert kernel_tree.key_kind == "tensor" and pyspiel_tree.key_kind == "string"
    for array in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(kernel_tree, array), getattr(pyspiel_tree, array), array)
    # The two keys name the same information set: the representative state's string.
    for infoset in range(0, kernel_tree.num_infosets, 97):
        state = kernel_tree.state(infoset)
        assert state.information_state_string() == pyspiel_tree.keys[infoset]
    for algorithm in ALGORITHMS:
        first, second = CFRSolver(kernel_tree, algorithm), CFRSolver(pyspiel_tree, algorithm)
        first.run(30)
        second.run(30)
        np.testing.assert_array_equal(first.average_probs(), second.average_probs())
        assert first.nash_conv() == second.nash_conv()
    # A policy keyed one way is read on a tree keyed the other way.
    table = CFRSolver(kernel_tree, "cfr+").average_policy()
    np.testing.assert_array_equal(policy_probs(pyspiel_tree, table), policy_probs(kernel_tree, table))


@pytest.mark.slow
@pytest.mark.parametrize("name, params", SMALL_VARIANTS)
def test_kernel_and_pyspiel_builders_agree_on_the_small_variants(name, params):
    game = elements_ai.load_game(name, **params)
    kernel_tree, pyspiel_tree = build_tree(game, builder="kernel"), build_tree(game, builder="pyspiel")
    for array in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(kernel_tree, array), getattr(pyspiel_tree, array), array)
    first, second = CFRSolver(kernel_tree, "dcfr"), CFRSolver(pyspiel_tree, "dcfr")
    first.run(50)
    second.run(50)
    assert first.nash_conv() == second.nash_conv()


def test_kernel_builder_checks_the_exact_size():
    game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6", hand_size=2)
    from elements_ai.solvers.kernel_tree import tree_from_kernel

    with pytest.raises(TreeTooLarge, match="more than 1,000 nodes"):
        tree_from_kernel(game, max_nodes=1000)
    with pytest.raises(TreeTooLarge, match=r"26,227 nodes and 10,608 decision nodes"):
        tree_from_kernel(game, max_memory=1e5)


def test_three_player_kuhn_matches_openspiel():
    """More than two players: the same CFR iterates and the same NashConv (sum over the
    three players of what a best response gains) as OpenSpiel."""
    game = pyspiel.load_game("kuhn_poker(players=3)")
    ours = CFRSolver(game, "cfr")
    theirs = pyspiel.CFRSolver(game)
    for _ in range(20):
        theirs.evaluate_and_update_policy()
    ours.run(20)
    assert abs(ours.nash_conv() - pyspiel.nash_conv(game, theirs.average_policy())) < 1e-9
    uniform = openspiel_policy.UniformRandomPolicy(game)
    assert abs(evaluate(game, uniform).nash_conv - exploitability.nash_conv(game, uniform)) < 1e-9


def test_policy_bot_plays_any_game_and_refuses_another(tmp_path, trees):
    from elements_ai.agents import make_bot

    solver = CFRSolver(trees("kuhn_poker"), "cfr+")
    solver.run(300)
    path = tmp_path / "kuhn.npz"
    solver.save(path)
    game = pyspiel.load_game("kuhn_poker")
    bots = [make_bot(f"cfr:policy={path}", game, player, seed=player) for player in range(2)]
    state = game.new_initial_state().child(2).child(0)  # king against jack
    policy = dict(bots[0].get_policy(state))
    expected = solver.average_policy().action_probabilities(state)
    assert policy == pytest.approx(expected, abs=0)
    # The bot's moves follow its policy: player 1 with a king always calls a bet.
    facing_bet = game.new_initial_state().child(0).child(2).child(1)
    assert all(bots[1].step(facing_bet) == 1 for _ in range(20))
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 1)
    assert sum(returns) == 0
    with pytest.raises(PolicyMismatch, match="not for leduc_poker"):
        make_bot(f"cfr:policy={path}", pyspiel.load_game("leduc_poker"), 0)
    with pytest.raises(ValueError, match="does not exist"):
        make_bot("cfr:policy=/no/such/file.npz", game, 0)
    with pytest.raises(ValueError, match="no shipped agent for kuhn_poker.*give policy=FILE"):
        make_bot("cfr", game, 0)
