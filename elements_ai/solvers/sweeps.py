"""The numba sweeps over a flattened tree that CFR and best response share.

Every function takes the tree's arrays (see ``tree.py``) and a policy given as one
probability per sequence. Nodes are visited in index order (parents first) to push
reach probabilities down and in reverse order to pull values up; one float64
array per node serves both directions in place.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..core.kernel import CHANCE, TERMINAL

EVERYONE = -2  # as ``player`` of reach_down: count every player's actions


@nb.njit(cache=True)
def reach_down(player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, policy, reach):
    """Writes ``reach[n]``: the probability that chance and every player but
    ``player`` take the actions leading to ``n`` (``player``'s own count as 1;
    ``EVERYONE``: all players' actions count)."""
    reach[0] = 1.0
    for n in range(node_player.shape[0]):
        who = node_player[n]
        if who == TERMINAL:
            continue
        r = reach[n]
        first = node_first[n]
        count = node_count[n]
        if r == 0.0:
            for k in range(count):
                reach[first + k] = 0.0
        elif who == CHANCE:
            base = node_index[n]
            for k in range(count):
                reach[first + k] = r * chance_prob[base + k]
        elif who == player:
            for k in range(count):
                reach[first + k] = r
        else:
            base = infoset_first[node_index[n]]
            for k in range(count):
                reach[first + k] = r * policy[base + k]


@nb.njit(cache=True)
def regrets_up(
    player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility, policy, work, regret
):
    """CFR's backward sweep for ``player``: ``work`` holds the counterfactual reach
    written by ``reach_down`` and is overwritten with ``player``'s values; each
    decision node of ``player`` adds ``reach * (child value - value)`` to
    ``regret`` of its sequences. Returns the root value.

    A node nobody else reaches (reach 0) adds no regret and its value reaches its
    parent with weight 0, so it is skipped (its value is left 0).
    """
    for n in range(node_player.shape[0] - 1, -1, -1):
        who = node_player[n]
        if who == TERMINAL:
            work[n] = utility[node_index[n], player]
            continue
        r = work[n]
        if r == 0.0:
            continue
        first = node_first[n]
        count = node_count[n]
        value = 0.0
        if who == CHANCE:
            base = node_index[n]
            for k in range(count):
                value += chance_prob[base + k] * work[first + k]
        else:
            base = infoset_first[node_index[n]]
            for k in range(count):
                value += policy[base + k] * work[first + k]
            if who == player:
                for k in range(count):
                    regret[base + k] += r * (work[first + k] - value)
        work[n] = value
    return work[0]


@nb.njit(cache=True)
def on_policy_values(
    node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility, policy, reach
):
    """Every player's expected return when all play ``policy`` (``reach`` is scratch)."""
    reach_down(EVERYONE, node_player, node_first, node_count, node_index, chance_prob, infoset_first, policy, reach)
    values = np.zeros(utility.shape[1])
    for n in range(node_player.shape[0]):
        if node_player[n] == TERMINAL:
            r = reach[n]
            if r != 0.0:
                for p in range(utility.shape[1]):
                    values[p] += r * utility[node_index[n], p]
    return values


@nb.njit(cache=True)
def best_response(
    player,
    node_player,
    node_first,
    node_count,
    node_index,
    chance_prob,
    infoset_first,
    infoset_parent,
    player_infosets,
    utility,
    policy,
    reach,
    last,
    sequence_value,
    best,
):
    """The value of ``player``'s best response to the others playing ``policy``.

    Sequence form: each terminal adds its return, weighted by the probability that
    chance and the others reach it, to the last sequence ``player`` played on the
    way (``last`` is scratch per node); then ``player``'s information sets, deepest
    first (reverse order: perfect recall puts them after the ones above), choose
    their best sequence and pass its value to their parent sequence. Writes the
    chosen sequence of each of ``player``'s information sets into ``best``.
    """
    reach[0] = 1.0
    last[0] = -1
    root = 0.0
    for s in range(sequence_value.shape[0]):
        sequence_value[s] = 0.0
    for n in range(node_player.shape[0]):
        who = node_player[n]
        r = reach[n]
        if who == TERMINAL:
            if r != 0.0:
                u = r * utility[node_index[n], player]
                if last[n] < 0:
                    root += u
                else:
                    sequence_value[last[n]] += u
            continue
        first = node_first[n]
        count = node_count[n]
        if who == player:
            base = infoset_first[node_index[n]]
            for k in range(count):
                reach[first + k] = r
                last[first + k] = base + k
        elif who == CHANCE:
            base = node_index[n]
            for k in range(count):
                reach[first + k] = r * chance_prob[base + k]
                last[first + k] = last[n]
        else:
            base = infoset_first[node_index[n]]
            for k in range(count):
                reach[first + k] = r * policy[base + k]
                last[first + k] = last[n]
    for j in range(player_infosets.shape[0] - 1, -1, -1):
        infoset = player_infosets[j]
        choice = infoset_first[infoset]
        value = sequence_value[choice]
        for s in range(choice + 1, infoset_first[infoset + 1]):
            if sequence_value[s] > value:
                value = sequence_value[s]
                choice = s
        best[infoset] = choice
        parent = infoset_parent[infoset]
        if parent < 0:
            root += value
        else:
            sequence_value[parent] += value
    return root


@nb.njit(cache=True)
def regret_matching(regret, prediction, first, stop, policy):
    """``policy[first:stop]`` proportional to the positive part of ``regret``
    (+ ``prediction`` when it is not empty); uniform when none is positive."""
    total = 0.0
    predictive = prediction.shape[0] > 0
    for s in range(first, stop):
        q = regret[s] + prediction[s] if predictive else regret[s]
        if q > 0.0:
            total += q
    if total > 0.0:
        for s in range(first, stop):
            q = regret[s] + prediction[s] if predictive else regret[s]
            policy[s] = q / total if q > 0.0 else 0.0
    else:
        uniform = 1.0 / (stop - first)
        for s in range(first, stop):
            policy[s] = uniform
