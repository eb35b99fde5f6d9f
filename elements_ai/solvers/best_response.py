"""Exact best response, NashConv and exploitability on a flattened tree.

``evaluate_probs(tree, probs)`` takes a policy as one probability per sequence of
the tree (what the solvers keep; ``policy_probs`` converts any OpenSpiel policy).
Each player's best response against the others is computed in sequence form, in
two sweeps over the tree and one over the player's information sets (see
``sweeps.best_response``), on ``threads`` cores (default: every core numba has;
the results are the same bit for bit on any number).

What the numbers mean:

* ``nash_conv``: the sum over players of what each could gain by switching alone
  to a best response. Zero exactly at a Nash equilibrium, for any number of
  players and any returns.
* ``exploitability``: ``nash_conv / players``. In a two-player zero-sum game it is
  the mean of what the two best responses win against the policy, OpenSpiel's
  ``exploitability``: the policy's distance to an equilibrium in units of the
  game's returns. With more players, or returns that do not sum to a constant,
  it is only NashConv scaled, and a low value does not mean the policy is safe
  against coalitions.

>>> import pyspiel
>>> from elements_ai.solvers.tree import build_tree
>>> tree = build_tree(pyspiel.load_game("kuhn_poker"))
>>> result = evaluate_probs(tree, uniform_probs(tree))
>>> round(result.nash_conv, 6), round(result.exploitability, 6)
(0.916667, 0.458333)
"""

from __future__ import annotations

import dataclasses

import numba as nb
import numpy as np

from .flat import Tree
from .sweeps import EVERYONE, best_response, on_policy_values, reach_down, using_threads

__all__ = ["Evaluation", "best_response_probs", "evaluate_probs", "infoset_reach", "uniform_probs"]


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """A policy's NashConv, exploitability and per-player values (module docstring)."""

    nash_conv: float
    exploitability: float
    best_response_values: tuple[float, ...]
    policy_values: tuple[float, ...]

    def __str__(self) -> str:
        return f"NashConv {self.nash_conv:.12g}, exploitability {self.exploitability:.12g}"


@nb.njit(cache=True)
def _uniform(infoset_first, out):
    for infoset in range(infoset_first.shape[0] - 1):
        first, stop = infoset_first[infoset], infoset_first[infoset + 1]
        for s in range(first, stop):
            out[s] = 1.0 / (stop - first)


def uniform_probs(tree: Tree) -> np.ndarray:
    """The uniformly random policy, one probability per sequence."""
    out = np.empty(tree.num_sequences)
    _uniform(tree.infoset_first, out)
    return out


def _scratch(tree: Tree, work: np.ndarray | None = None):
    return (
        work if work is not None else np.empty(tree.num_nodes),
        np.empty(tree.num_sequences),
        np.full(tree.num_infosets, -1, np.int64),
    )


def _best_response_value(tree: Tree, probs: np.ndarray, player: int, scratch) -> float:
    work, sequence_value, best = scratch
    plan = tree.sweep_plan()
    players = tree.player_infosets[tree.player_first[player] : tree.player_first[player + 1]]
    return float(
        best_response(
            player, tree.node_player, tree.node_first, tree.node_count, tree.node_index, tree.chance_prob,
            tree.infoset_first, tree.infoset_parent, players, tree.utility, plan.tasks, plan.top,
            plan.lanes(), plan.infoset_members, plan.member_child, probs, work, sequence_value, best,
        )
    )


def _check_probs(tree: Tree, probs: np.ndarray) -> np.ndarray:
    probs = np.ascontiguousarray(probs, np.float64)
    if probs.shape != (tree.num_sequences,):
        raise ValueError(f"a policy on this tree has {tree.num_sequences} probabilities, got shape {probs.shape}")
    return probs


def evaluate_probs(
    tree: Tree, probs: np.ndarray, work: np.ndarray | None = None, threads: int | None = None
) -> Evaluation:
    """NashConv, exploitability and values of the policy ``probs`` (per sequence),
    on ``threads`` cores (default every core).

    ``work``, a float64 array with one entry per node, is used as scratch if given
    (a solver lends its own, so evaluating costs no node-sized float array).

    >>> import pyspiel
    >>> from elements_ai.solvers.tree import build_tree
    >>> tree = build_tree(pyspiel.load_game("leduc_poker"))
    >>> evaluate_probs(tree, uniform_probs(tree), threads=1) == evaluate_probs(tree, uniform_probs(tree))
    True
    """
    probs = _check_probs(tree, probs)
    scratch = _scratch(tree, work)
    plan = tree.sweep_plan()
    with using_threads(threads):
        values = on_policy_values(
            tree.node_player, tree.node_first, tree.node_count, tree.node_index, tree.chance_prob,
            tree.infoset_first, tree.utility, plan.tasks, plan.top, plan.lanes(), probs, scratch[0],
        )
        best = [_best_response_value(tree, probs, p, scratch) for p in range(tree.num_players)]
    nash_conv = float(sum(b - v for b, v in zip(best, values)))
    return Evaluation(
        nash_conv=nash_conv,
        exploitability=nash_conv / tree.num_players,
        best_response_values=tuple(best),
        policy_values=tuple(float(v) for v in values),
    )


def best_response_probs(
    tree: Tree, probs: np.ndarray, player: int, threads: int | None = None
) -> tuple[np.ndarray, float]:
    """A pure best response of ``player`` to the others playing ``probs``, and its
    value, on ``threads`` cores (default every core).

    Returns a policy (per sequence) that plays the best response at ``player``'s
    information sets and ``probs`` elsewhere.
    """
    probs = _check_probs(tree, probs)
    if not 0 <= player < tree.num_players:
        raise ValueError(f"player {player} is out of range 0..{tree.num_players - 1}")
    scratch = _scratch(tree)
    with using_threads(threads):
        value = _best_response_value(tree, probs, player, scratch)
    best = scratch[2]
    out = probs.copy()
    for infoset in tree.player_infosets[tree.player_first[player] : tree.player_first[player + 1]]:
        first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
        out[first:stop] = 0.0
        out[best[infoset]] = 1.0
    return out, value


@nb.njit(cache=True)
def _sum_by_infoset(node_player, node_index, reach, out):
    for n in range(node_player.shape[0]):
        if node_player[n] >= 0:
            out[node_index[n]] += reach[n]


def infoset_reach(tree: Tree, probs: np.ndarray) -> np.ndarray:
    """The probability of reaching each information set when every player plays
    ``probs`` (chance included): where a policy's play actually happens.

    >>> import pyspiel
    >>> from elements_ai.solvers.tree import build_tree
    >>> tree = build_tree(pyspiel.load_game("kuhn_poker"))
    >>> reach = infoset_reach(tree, uniform_probs(tree))
    >>> round(float(reach[0]), 6), round(float(reach.sum()), 6)   # a jack for player 0: 1/3; 2.25 decisions a game
    (0.333333, 2.25)
    """
    probs = _check_probs(tree, probs)
    reach = np.empty(tree.num_nodes)
    plan = tree.sweep_plan()
    reach_down(
        EVERYONE, tree.node_player, tree.node_first, tree.node_count, tree.node_index, tree.chance_prob,
        tree.infoset_first, plan.tasks, plan.top, plan.lanes(), probs, reach,
    )
    out = np.zeros(tree.num_infosets)
    _sum_by_infoset(tree.node_player, tree.node_index, reach, out)
    return out
