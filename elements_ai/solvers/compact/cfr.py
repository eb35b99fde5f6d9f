"""The CFR family's passes over the compact tree, in tasks dealt to lanes."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.kernel import CHANCE
from ..sweeps import add_to_average, chunk, iteration_factors, new_counter, regret_matching, updated_regret
from .tree import CHANCE_KIND, COUNT_MASK, KIND_SHIFT, TERMINAL_KIND, _subtree_stop

__all__ = ["cfr_pass"]

# Modes of the value walk over the top of a tree.
FIND_REACH, BRING_VALUES = 0, 1


@nb.njit(cache=True)
def _value_walk(
    pos,
    reach,
    player,
    mode,
    task_start,
    task_stop,
    task_reach,
    task_value,
    node_shape,
    node_code,
    chance_first,
    chance_prob,
    infoset_player,
    infoset_first,
    utility,
    policy,
    instant,
    frame_count,
    frame_next,
    frame_reach,
    frame_base,
    frame_who,
    child_value,
):
    """CFR's pass for ``player`` over the subtree at ``pos`` (reached with ``reach``
    by chance and the others): returns its value, and adds each of ``player``'s
    decision nodes' instantaneous regrets ``reach * (child value - value)`` into
    ``instant`` (per sequence).

    Subtrees that start a task are not entered: with ``mode`` FIND_REACH their
    reach is written to ``task_reach`` (and no regret is added, the values being
    unknown); with BRING_VALUES their value is read from ``task_value``.
    A node nobody reaches is worth 0 (it adds no regret and weighs 0 above).
    """
    num_tasks = task_start.shape[0]
    next_task = 0
    while next_task < num_tasks and task_start[next_task] < pos:
        next_task += 1
    depth = -1
    r = reach
    value = 0.0
    while True:
        # Enter the node at ``pos``, reached with ``r``.
        shape = node_shape[pos]
        kind = shape >> KIND_SHIFT
        if next_task < num_tasks and pos == task_start[next_task]:
            if mode == FIND_REACH:
                task_reach[next_task] = r
                value = 0.0
            else:
                value = task_value[next_task]
            pos = task_stop[next_task]
            next_task += 1
        elif kind == TERMINAL_KIND:
            value = utility[node_code[pos], player] if r != 0.0 else 0.0
            pos += 1
        elif r == 0.0:
            pos = _subtree_stop(node_shape, pos)
            while next_task < num_tasks and task_start[next_task] < pos:
                task_reach[next_task] = 0.0
                next_task += 1
            value = 0.0
        else:
            depth += 1
            index = node_code[pos]
            k = (shape & COUNT_MASK) - 1
            frame_count[depth] = k + 1
            frame_next[depth] = k
            frame_reach[depth] = r
            if kind == CHANCE_KIND:
                base = chance_first[index]
                frame_who[depth] = CHANCE
                r = r * chance_prob[base + k]
            else:
                base = infoset_first[index]
                who = infoset_player[index]
                frame_who[depth] = who
                if who != player:
                    r = r * policy[base + k]
            frame_base[depth] = base
            pos += 1
            continue
        # Hand the value up until a node has a child left to enter.
        while True:
            if depth < 0:
                return value, pos
            k = frame_next[depth]
            child_value[depth, k] = value
            k -= 1
            base = frame_base[depth]
            who = frame_who[depth]
            if k >= 0:
                frame_next[depth] = k
                r = frame_reach[depth]
                if who == CHANCE:
                    r = r * chance_prob[base + k]
                elif who != player:
                    r = r * policy[base + k]
                break
            count = frame_count[depth]
            value = 0.0
            if who == CHANCE:
                for c in range(count):
                    value += chance_prob[base + c] * child_value[depth, c]
            else:
                for c in range(count):
                    value += policy[base + c] * child_value[depth, c]
                if who == player and mode == BRING_VALUES:
                    r = frame_reach[depth]
                    for c in range(count):
                        instant[base + c] += r * (child_value[depth, c] - value)
            depth -= 1


@nb.njit(cache=True)
def _value_tasks(
    lane, lanes, player, task_start, task_stop, task_reach, task_value, node_shape, node_code, chance_first,
    chance_prob, infoset_player, infoset_first, utility, policy, instant, depth, width,
):
    """The tasks of thread ``lane`` (every ``lanes``-th one), into its regret row."""
    frames = _frames(depth, width)
    none = task_start[:0]
    for t in range(lane, task_start.shape[0], lanes):
        if task_reach[t] == 0.0:
            task_value[t] = 0.0
            continue
        value, _ = _value_walk(
            task_start[t], task_reach[t], player, BRING_VALUES, none, none, task_reach[:0], task_value[:0],
            node_shape, node_code, chance_first, chance_prob, infoset_player, infoset_first, utility, policy,
            instant[lane], *frames,
        )
        task_value[t] = value


@nb.njit(cache=True, parallel=True)
def _value_threads(
    lanes, player, task_start, task_stop, task_reach, task_value, node_shape, node_code, chance_first, chance_prob,
    infoset_player, infoset_first, utility, policy, instant, depth, width,
):
    for lane in nb.prange(lanes):
        _value_tasks(
            np.int64(lane), lanes, player, task_start, task_stop, task_reach, task_value, node_shape, node_code,
            chance_first, chance_prob, infoset_player, infoset_first, utility, policy, instant, depth, width,
        )


@nb.njit(cache=True)
def _frames(depth, width):
    return (
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1),
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1, np.int64),
        np.zeros((depth + 1, width)),
    )


@nb.njit(cache=True)
def cfr_pass(
    player, lanes, task_start, task_stop, task_reach, task_value, node_shape, node_code, chance_first, chance_prob,
    infoset_player, infoset_first, utility, policy, instant, depth, width,
):
    """CFR's pass for ``player``: the top (to the tasks' reach), the tasks on
    ``lanes`` threads, the top again (their values up); leaves each thread's
    instantaneous regrets in its row of ``instant``. Returns the root value."""
    frames = _frames(depth, width)
    if task_start.shape[0] > 0:
        _value_walk(
            0, 1.0, player, FIND_REACH, task_start, task_stop, task_reach, task_value, node_shape, node_code,
            chance_first, chance_prob, infoset_player, infoset_first, utility, policy, instant[0], *frames,
        )
        if lanes > 1:
            _value_threads(
                lanes, player, task_start, task_stop, task_reach, task_value, node_shape, node_code, chance_first,
                chance_prob, infoset_player, infoset_first, utility, policy, instant, depth, width,
            )
        else:
            # int64 lane and lanes, as the threads pass them: literals would compile it again.
            _value_tasks(
                np.int64(0), np.int64(1), player, task_start, task_stop, task_reach, task_value, node_shape,
                node_code, chance_first, chance_prob, infoset_player, infoset_first, utility, policy, instant, depth,
                width,
            )
    value, _ = _value_walk(
        0, 1.0, player, BRING_VALUES, task_start, task_stop, task_reach, task_value, node_shape, node_code,
        chance_first, chance_prob, infoset_player, infoset_first, utility, policy, instant[0], *frames,
    )
    return value


@nb.njit(cache=True)
def _update_chunks(
    taken, player_infosets, infoset_first, instant, policy, regret, cumulative, prediction, own_reach,
    average_weight, regret_floor, positive_factor, negative_factor,
):
    # Each information set is one thread's alone and sums the lanes' rows in lane
    # order, so its bits do not depend on which thread takes it.
    predictive = prediction.shape[0] > 0
    lanes = instant.shape[0]
    while True:
        first_j, stop_j = chunk(taken, 0, player_infosets.shape[0])
        if first_j == stop_j:
            return
        for j in range(first_j, stop_j):
            infoset = player_infosets[j]
            first = infoset_first[infoset]
            stop = infoset_first[infoset + 1]
            add_to_average(cumulative, policy, first, stop, own_reach[infoset], average_weight)
            for s in range(first, stop):
                total = 0.0
                for lane in range(lanes):
                    total += instant[lane, s]
                    instant[lane, s] = 0.0
                regret[s] = updated_regret(regret[s], total, positive_factor, negative_factor, regret_floor)
                if predictive:
                    prediction[s] = total
            regret_matching(regret, prediction, first, stop, policy)


@nb.njit(cache=True, parallel=True)
def _update_threads(
    threads, taken, player_infosets, infoset_first, instant, policy, regret, cumulative, prediction, own_reach,
    average_weight, regret_floor, positive_factor, negative_factor,
):
    for _ in nb.prange(threads):
        _update_chunks(
            taken, player_infosets, infoset_first, instant, policy, regret, cumulative, prediction, own_reach,
            average_weight, regret_floor, positive_factor, negative_factor,
        )


@nb.njit(cache=True)
def _update_player(
    threads, player_infosets, infoset_first, infoset_parent, infoset_parent_infoset, instant, policy, regret,
    cumulative, prediction, own_reach, average_weight, regret_floor, positive_factor, negative_factor,
):
    """After a player's pass: the average policy, the regrets (the lanes' rows
    summed in order, then cleared) and the next policy, as ``cfr._update_chunks``,
    information sets in parallel on ``threads`` threads."""
    # Parents come first: one forward loop gives each information set its own reach
    # under this pass's policy, before any of them changes its policy.
    for j in range(player_infosets.shape[0]):
        infoset = player_infosets[j]
        parent = infoset_parent[infoset]
        own_reach[infoset] = 1.0 if parent < 0 else own_reach[infoset_parent_infoset[infoset]] * policy[parent]
    if threads > 1:
        _update_threads(
            threads, new_counter(), player_infosets, infoset_first, instant, policy, regret, cumulative, prediction,
            own_reach, average_weight, regret_floor, positive_factor, negative_factor,
        )
    else:
        _update_chunks(
            new_counter(), player_infosets, infoset_first, instant, policy, regret, cumulative, prediction, own_reach,
            average_weight, regret_floor, positive_factor, negative_factor,
        )


@nb.njit(cache=True)
def _run(
    iterations, start, lanes, threads, task_start, task_stop, node_shape, node_code, chance_first, chance_prob,
    infoset_player, infoset_first, infoset_parent, infoset_parent_infoset, player_first, player_infosets, utility,
    policy,
    regret, cumulative, prediction, instant, own_reach, depth, width, regret_floor, discount, alpha, beta, gamma,
):
    num_players = player_first.shape[0] - 1
    task_reach = np.zeros(task_start.shape[0])
    task_value = np.zeros(task_start.shape[0])
    for i in range(iterations):
        t = float(start + i + 1)
        average_weight, positive_factor, negative_factor = iteration_factors(t, discount, alpha, beta, gamma)
        for player in range(num_players):
            cfr_pass(
                player, lanes, task_start, task_stop, task_reach, task_value, node_shape, node_code, chance_first,
                chance_prob, infoset_player, infoset_first, utility, policy, instant, depth, width,
            )
            _update_player(
                threads, player_infosets[player_first[player] : player_first[player + 1]], infoset_first,
                infoset_parent, infoset_parent_infoset, instant, policy, regret, cumulative, prediction, own_reach,
                average_weight, regret_floor, positive_factor, negative_factor,
            )


