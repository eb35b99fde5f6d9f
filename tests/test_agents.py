"""Search agents and baseline bots: legality, seeding, search quality, hidden
information, the registry, and the search benchmark's quick mode."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pathlib
import re
import time

import numba as nb
import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots
from open_spiel.python.algorithms import mcts as os_mcts

import elements_ai
from elements_ai.agents import (
    ISMCTSBot,
    MCTSBot,
    RandomBot,
    RulesBot,
    TreeSearch,
    list_bots,
    make_bot,
    play_game,
)
from elements_ai.core import CHANCE, TERMINAL, Config, Kernel, KernelGame, Param, register
from elements_ai.core.layout import tensor_layout
from elements_ai.testing import play_by_strings

SEARCH_SPECS = [
    "mcts:sims=30",
    "mcts:sims=30,worlds=3",
    "mcts:sims=30,worlds=0",
    "mcts:sims=20,select=puct,rollouts=2",
    "ismcts:sims=30",
    "ismcts:sims=20,select=puct",
]


class Checked:
    """Wraps a bot and asserts that each policy and action is over legal actions."""

    def __init__(self, bot):
        self.bot = bot
        self.moves = 0

    def restart_at(self, state):
        self.bot.restart_at(state)

    def inform_action(self, state, player, action):
        self.bot.inform_action(state, player, action)

    def step(self, state):
        legal = state.legal_actions()
        policy, action = self.bot.step_with_policy(state)
        assert action in legal, (action, legal, str(state))
        assert sorted(a for a, _ in policy) == legal
        assert abs(sum(p for _, p in policy) - 1.0) < 1e-9
        self.moves += 1
        return action


def _play_checked(game, spec, seed):
    bots = [Checked(make_bot(spec, game, p, seed=seed + p)) for p in range(game.num_players())]
    returns, _ = play_game(game, bots, seed=seed)
    assert sum(bot.moves for bot in bots) > 0
    return returns


# --- legality in every registered game ----------------------------------------------------

@pytest.mark.parametrize("spec", ["random", *SEARCH_SPECS])
@pytest.mark.parametrize("name", elements_ai.GAMES)
def test_bots_play_only_legal_actions(name, spec):
    game = elements_ai.load_game(name)
    if not game.config.perfect_information and game.kernel.resample is None and not spec.startswith("random"):
        with pytest.raises(ValueError, match=f"{name}.*resample"):
            make_bot(spec, game, 0)
        return
    for seed in (0, 1):
        returns = _play_checked(game, spec, seed)
        assert len(returns) == game.num_players()


@pytest.mark.parametrize("name", elements_ai.GAMES)
def test_rules_bot_plays_the_heuristic_or_names_the_game(name):
    game = elements_ai.load_game(name)
    if game.kernel.heuristic is None:
        with pytest.raises(ValueError, match=f"rules: the game '{name}' has no rule-based heuristic"):
            make_bot("rules", game, 0)
        return
    _play_checked(game, "rules", 0)


def test_rules_bot_error_names_a_game_without_heuristic():
    kernel = dataclasses.replace(elements_ai.get_kernel("elements"), heuristic=None)
    game = type("NoHeuristicGame", (KernelGame,), {"kernel": kernel})()
    with pytest.raises(ValueError, match="'elements' has no rule-based heuristic"):
        RulesBot(game, 0)


def test_bots_run_under_openspiel_evaluate_bots():
    game = elements_ai.load_game("elements", single_round=True)
    bots = [make_bot("ismcts:sims=50", game, 0, seed=1), make_bot("mcts:sims=50", game, 1, seed=2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == 2 and sum(returns) == 0 and max(returns) > 0


# --- seeding ------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["random", "mcts:sims=25", "mcts:sims=25,worlds=0", "ismcts:sims=25"])
def test_same_seed_same_moves(spec):
    game = elements_ai.load_game("elements", single_round=True)

    def actions(seed):
        bots = [make_bot(spec, game, p, seed=seed + p) for p in range(2)]
        return play_game(game, bots, seed=3)[1]

    first = actions(10)
    assert actions(10) == first
    assert any(actions(s) != first for s in (11, 12, 13))


# --- search quality -------------------------------------------------------------------------

def _certain_knock(knocker: int):
    """Single-round elements where ``knocker`` is to move and knocking wins 2 for sure.

    Deck 1 2 6 6 6 6, two cards each: the knocker holds 1 2, the opponent 6 6. The
    knocker plays 2, the opponent discards a 6; now the knocker's sum 1 is within
    the limit 2 and the opponent's 6 is over it, whatever the unseen cards are.
    """
    game = elements_ai.load_game("elements", single_round=True, hand_size=2, deck="1_2_6_6_6_6")
    deals = ["deal 1", "deal 2", "deal 6", "deal 6"] if knocker == 0 else ["deal 6", "deal 6", "deal 1", "deal 2"]
    state = play_by_strings(game.new_initial_state(), f"start player {knocker}", *deals, "play 2", "discard 6")
    assert state.current_player() == knocker
    return game, state


@pytest.mark.parametrize("knocker", [0, 1])
@pytest.mark.parametrize(
    "spec", ["mcts:sims=300", "mcts:sims=300,worlds=0", "ismcts:sims=300", "ismcts:sims=300,select=puct"]
)
def test_search_takes_a_certain_win(spec, knocker):
    game, state = _certain_knock(knocker)
    action = make_bot(spec, game, knocker, seed=4).step(state)
    assert state.action_to_string(knocker, action) == "knock"
    after = state.clone()
    after.apply_action(action)
    assert after.returns()[knocker] == 2.0


# A three-player general-sum toy game with a chance node: each player picks 0, 1
# or 2 once (player 0, then a coin, then players 1 and 2). A player gains their
# own pick and loses half of everyone else's, so picking 2 is best for each
# player by their own return, and worst for the others'.

@nb.njit(cache=True)
def _toy_init(cfg, state):
    state[:] = 0


@nb.njit(cache=True)
def _toy_current_player(cfg, state):
    return (0, CHANCE, 1, 2, TERMINAL)[state[0]]


@nb.njit(cache=True)
def _toy_legal_mask(cfg, state, mask):
    turn = state[0]
    mask[:] = turn == 0 or turn == 2 or turn == 3


@nb.njit(cache=True)
def _toy_chance_outcomes(cfg, state, probs):
    probs[:] = 0.0
    if state[0] == 1:
        probs[0] = 0.5
        probs[1] = 0.5


@nb.njit(cache=True)
def _toy_apply(cfg, state, action):
    state[1 + state[0]] = action
    state[0] += 1


@nb.njit(cache=True)
def _toy_returns(cfg, state, out):
    out[:] = 0.0
    if state[0] == 4:
        picks = np.array([state[1], state[3], state[4]], np.float64)
        for p in range(3):
            out[p] = picks[p] - 0.5 * (picks.sum() - picks[p]) + state[2]


@nb.njit(cache=True)
def _toy_encode(cfg, state, player, out):
    out[:] = 0.0
    out[0] = state[0]


TOY_TENSOR = tensor_layout(0, turn=1)


def _toy_configure(params):
    cfg = np.zeros(TOY_TENSOR._end, np.int64)
    pieces = TOY_TENSOR._place(cfg, params)
    return Config(
        cfg=cfg, num_players=3, num_actions=3, max_chance_outcomes=2, state_size=5,
        obs_pieces=pieces, info_pieces=pieces, min_utility=-2.0, max_utility=3.0,
        max_game_length=3, max_chance_nodes=1, utility_sum=None, perfect_information=not params["hidden"],
    )


TOY = Kernel(
    short_name="agents_test_three_picks",
    long_name="Three picks (agents test)",
    min_num_players=3,
    max_num_players=3,
    params={"hidden": Param(False, "claim hidden information (and provide no resample)")},
    configure=_toy_configure,
    init=_toy_init,
    current_player=_toy_current_player,
    legal_mask=_toy_legal_mask,
    chance_outcomes=_toy_chance_outcomes,
    apply=_toy_apply,
    returns=_toy_returns,
    encode_observation=_toy_encode,
    encode_information_state=_toy_encode,
    action_to_string=lambda cfg, state, player, action: f"pick {action}",
    state_to_string=lambda cfg, state: str(list(state)),
    observation_string=lambda cfg, state, player: str(int(state[0])),
    information_state_string=lambda cfg, state, player: str(list(state)),
    resample=None,
)


@pytest.fixture(scope="module")
def toy():
    return register(TOY)


@pytest.mark.parametrize("spec", ["mcts", "ismcts"])
def test_hidden_information_without_resample_is_refused(toy, spec):
    with pytest.raises(ValueError, match="agents_test_three_picks: this game has hidden information.*resample"):
        make_bot(spec, toy({"hidden": True}), 0)


@pytest.mark.parametrize("search", ["mcts", "ismcts"])
def test_every_player_maximises_their_own_return(toy, search):
    game = toy()
    for seed in range(3):
        bots = [make_bot(f"{search}:sims=300", game, p, seed=seed + p) for p in range(3)]
        returns, actions = play_game(game, bots, seed=seed)
        assert [actions[0], actions[2], actions[3]] == [2, 2, 2]
        assert returns == [actions[1]] * 3  # each gains 2 and loses 2, plus the coin


# --- hidden information ---------------------------------------------------------------------

OWN = ["deal 1", "deal 2", "deal 3", "deal 4", "deal 5", "deal 6"]
OPPONENT_HANDS = (
    ["deal 1", "deal 2", "deal 3", "deal 4", "deal 5", "deal 6"],  # set aside: 6 6 6 6
    ["deal 1", "deal 2", "deal 6", "deal 6", "deal 6", "deal 6"],  # set aside: 3 4 5 6
)
PUBLIC = (["play 3", "play 1"], ["play 3", "play 1", "play 5", "play 2"])


def _twin_states(public):
    game = elements_ai.load_game("elements")
    states = [
        play_by_strings(game.new_initial_state(), "start player 0", *OWN, *hand, *public)
        for hand in OPPONENT_HANDS
    ]
    return game, states


@pytest.mark.parametrize("public", PUBLIC)
@pytest.mark.parametrize(
    "spec", ["ismcts:sims=500", "ismcts:sims=300,select=puct", "mcts:sims=500,worlds=4", "mcts:sims=300,worlds=0"]
)
def test_search_never_reads_hidden_information(spec, public):
    game, (a, b) = _twin_states(public)
    assert a.current_player() == b.current_player() == 0
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.legal_actions() == b.legal_actions()
    bot_a, bot_b = make_bot(spec, game, 0, seed=21), make_bot(spec, game, 0, seed=21)
    for _ in range(3):  # several searches from the same bots
        assert bot_a.step_with_policy(a) == bot_b.step_with_policy(b)


@pytest.mark.slow
def test_a_search_of_the_true_state_tells_the_twins_apart():
    game, (a, b) = _twin_states(PUBLIC[0])

    def visits(state):
        evaluator = os_mcts.RandomRolloutEvaluator(random_state=np.random.RandomState(0))
        bot = os_mcts.MCTSBot(game, 1.4, 300, evaluator, random_state=np.random.RandomState(0), solve=False)
        return sorted((c.action, c.explore_count) for c in bot.mcts_search(state).children)

    assert visits(a) != visits(b)


# --- limits and tree size -------------------------------------------------------------------

def test_time_limit():
    game = elements_ai.load_game("elements")
    _, (state, _) = _twin_states(PUBLIC[0])
    bot = make_bot("ismcts:seconds=0.2", game, 0, seed=0)
    bot.step(state)  # compiled already; measure the second call
    start = time.perf_counter()
    action = bot.step(state)
    elapsed = time.perf_counter() - start
    assert action in state.legal_actions()
    assert 0.15 < elapsed < 0.6
    assert bot.search.last_iterations > 1000
    capped = make_bot("mcts:seconds=5,sims=200", game, 0, seed=0)
    start = time.perf_counter()
    capped.step(state)
    assert time.perf_counter() - start < 2.0 and capped.search.last_iterations == 200


@pytest.mark.parametrize("ismcts", [False, True])
def test_tree_grows_and_a_full_tree_keeps_searching(ismcts):
    game, (state, _) = _twin_states(PUBLIC[0])
    grown = TreeSearch(game, ismcts=ismcts)
    counts, _ = grown.search(state.array, 0, sims=9000, seed=1)
    assert counts.sum() == 9000 and grown.last_nodes > 4096
    small = TreeSearch(game, ismcts=ismcts, max_nodes=64)
    counts, _ = small.search(state.array, 0, sims=2000, seed=1)
    assert counts.sum() == 2000 and small.last_nodes <= 64
    assert set(np.flatnonzero(counts)) <= set(state.legal_actions())


@nb.njit(cache=True)
def _prefer_take(cfg, state, mask, out):
    out[:] = 0.0
    for a in range(mask.shape[0]):
        out[a] = 0.01 * mask[a]
    out[6] += 1.0  # "take"


@nb.njit(cache=True)
def _neutral_value(cfg, state, rng, rollouts, mask, probs, out):
    out[:] = 0.0


def test_prior_and_leaf_value_hooks_steer_puct():
    game, (state, _) = _twin_states(PUBLIC[0])
    assert "take" in [state.action_to_string(0, a) for a in state.legal_actions()]
    search = TreeSearch(game, selection="puct", prior=_prefer_take, leaf_value=_neutral_value)
    counts, values = search.search(state.array, 0, sims=400, seed=0)
    assert counts.argmax() == 6 and counts[6] > 300
    assert not values.any()


# --- elementos: a forced win in one --------------------------------------------------------

# elementos(setup=standard, rows=6): a race. Player 0's column-c piece captures its
# way to the far row (player 1 flips the pieces in its way to wood), player 0's
# wand steps onto it and its home piece walks up the column; player 1 does the same
# down column a. Then player 0 must pass the wand onto the far row at once, or
# player 1 wins with its wand next move. The mirror image, after a spare first
# move of player 0, gives player 1 the same race one tempo ahead.
RACE = [
    "move c3xc4", "flip c5", "move c4xc5", "flip c6", "move c5xc6", "move a4xa3", "flip a2", "move a3xa2",
    "flip a1", "move a2xa1", "move c2-c3", "move a5-a4", "wand b2-c3", "wand b5-a4", "move c3-c4", "move a4-a3",
    "move c4-c5", "move a3-a2",
]


def _mirror(move: str) -> str:
    """The same move by the other player: columns a and c swap, row r becomes 7 - r."""
    return re.sub(r"([abc])([1-6])", lambda m: "cba"["abc".index(m[1])] + str(7 - int(m[2])), move)


ELEMENTOS_RACES = {
    0: (RACE, "wand c5-c6"),
    1: (["flip b1", *map(_mirror, RACE)], "wand a2-a1"),
}


@pytest.mark.parametrize("spec", ["mcts:sims=400", "ismcts:sims=400"])
@pytest.mark.parametrize("winner", [0, 1])
def test_mcts_finds_a_forced_win_in_elementos(spec, winner):
    game = elements_ai.load_game("elementos", setup="standard", rows=6)
    moves, winning = ELEMENTOS_RACES[winner]
    state = play_by_strings(game.new_initial_state(), *moves)
    assert state.current_player() == winner
    wins = []
    for action in state.legal_actions():
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal() and after.returns()[winner] > 0:
            wins.append(state.action_to_string(winner, action))
    assert wins == [winning]
    # Any other move lets the opponent win at once.
    loser = 1 - winner
    for action in state.legal_actions():
        if state.action_to_string(winner, action) != winning:
            after = state.clone()
            after.apply_action(action)
            assert any(_wins_at_once(after, loser, reply) for reply in after.legal_actions())
    assert len(state.legal_actions()) > 5
    for seed in range(3):
        action = make_bot(spec, game, winner, seed=seed).step(state)
        assert state.action_to_string(winner, action) == winning


def _wins_at_once(state, player, action):
    after = state.clone()
    after.apply_action(action)
    return after.is_terminal() and after.returns()[player] > 0


# --- registry --------------------------------------------------------------------------------

def test_list_bots_names_parameters_and_defaults():
    bots = list_bots()
    assert set(bots) == {"random", "rules", "mcts", "ismcts", "cfr", "mccfr", "ppo", "mmd", "nfsp", "psro", "az"}
    assert bots["mcts"] == {
        "sims": 1000, "seconds": 0.0, "c": 1.4, "rollouts": 1, "rollout": "random", "depth": 0, "worlds": 1,
        "select": "uct",
    }
    assert bots["random"] == {} and bots["rules"] == {}


def test_make_bot_builds_the_named_bot_with_its_parameters():
    game = elements_ai.load_game("elements")
    bot = make_bot(" mcts : sims=123 , c=0.5, rollouts=2, worlds=0 ", game, 1, seed=9)
    assert isinstance(bot, MCTSBot) and bot.player == 1 and bot.seed == 9
    assert (bot.sims, bot.search.c, bot.search.rollouts, bot.search.worlds) == (123, 0.5, 2, 0)
    timed = make_bot("ismcts:seconds=1.5", game, 0)
    assert isinstance(timed, ISMCTSBot) and timed.seconds == 1.5 and timed.sims > 10**12
    assert make_bot("ismcts", game, 0, sims=7).sims == 7


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "empty"),
        ("alphazero", "unknown bot 'alphazero'; bots are random, rules, mcts, ismcts"),
        ("mcts:simz=10",
         "(mcts): unknown parameter 'simz'; parameters are c, depth, rollout, rollouts, seconds, select, sims"),
        ("random:sims=10", "(random): unknown parameter 'sims'; parameters are none"),
        ("mcts:sims", "'sims' must look like name=value"),
        ("mcts:sims=ten", "(mcts): parameter sims must be an integer, got 'ten'"),
        ("mcts:sims=1.5", "(mcts): parameter sims must be an integer"),
        ("ismcts:c=high", "(ismcts): parameter c must be a number"),
        ("mcts:sims=0", "(mcts): parameter sims=0 is out of range; it must be an integer >= 1"),
        ("mcts:seconds=-1", "(mcts): parameter seconds=-1.0 is out of range"),
        ("mcts:worlds=-1", "(mcts): parameter worlds=-1 is out of range"),
        ("ismcts:select=greedy", "parameter select='greedy' is out of range; it must be one of 'uct', 'puct'"),
        ("ismcts:worlds=2", "(ismcts): unknown parameter 'worlds'"),
        ("mcts:sims=5,sims=6", "'sims' is given twice"),
    ],
)
def test_bad_specs_are_named(spec, message):
    game = elements_ai.load_game("elements")
    with pytest.raises(ValueError, match=re.escape(message)):
        make_bot(spec, game, 0)


def test_bad_game_or_player_or_state():
    game = elements_ai.load_game("elements")
    with pytest.raises(ValueError, match="player 2 is out of range 0..1"):
        make_bot("random", game, 2)
    # Through the registry a game the bot cannot play is a user's mistake, named as such.
    with pytest.raises(elements_ai.ParameterError, match="random plays elements_ai games .*not kuhn_poker"):
        make_bot("random", pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(TypeError, match="elements_ai games"):
        RandomBot(pyspiel.load_game("kuhn_poker"), 0)
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="chance node"):
        make_bot("ismcts", game, 0).step(state)


# --- the benchmark -------------------------------------------------------------------------

@pytest.mark.slow
def test_search_benchmark_quick(tmp_path):
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "search.py"
    spec = importlib.util.spec_from_file_location("bench_search", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    start = time.perf_counter()
    tables = bench.main(["--quick", "--out", str(tmp_path)])
    assert time.perf_counter() - start < 60
    assert (tmp_path / "search_speed.csv").read_text().count("\n") > 1
    ratios = [row[6] for row in tables["speed"] if row[0] == "elements"]
    assert len(ratios) == 2 and all(r > 10 for r in ratios)
