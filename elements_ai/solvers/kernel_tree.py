"""Trees built straight from a game's rules kernel, in numba (``flat.py`` describes the
arrays, ``tree.py`` holds the pyspiel builder that this one matches).

The walk is the pyspiel builder's, step for step: depth first, a node's children
allocated together when it is expanded, legal actions and chance outcomes in
increasing order. Information sets are keyed by a 128-bit fingerprint of the
player's information-state tensor, which has perfect recall, so the two builders
give the same arrays (the tests compare them).

The walk runs twice: first counting (no tensor is encoded), so the exact size is
checked against memory before anything large is allocated; then filling. It is
resumable: each call expands a bounded number of nodes and returns, so Python can
show progress between calls.

>>> import elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> tree = tree_from_kernel(game)
>>> tree.num_nodes, tree.num_infosets, tree.key_kind
(317, 100, 'tensor')
"""

from __future__ import annotations

import time

import numba as nb
import numpy as np

from ..core.generic import generic, rules
from ..core.kernel import CHANCE, TERMINAL
from ..core.spiel import KernelGame
from ..progress import progress_bar
from .flat import fingerprint_into, finish_tree, is_kernel_game
from .memory import MAX_NODES, SOLVE_NODE_BYTES, TreeTooLarge, build_bytes, memory_budget, too_large

__all__ = ["count_kernel_tree", "is_kernel_game", "tree_from_kernel"]

# Counters shared by the walk's calls (int64 array).
NODES, CHANCE_NODES, CHANCE_EDGES, INFOSETS, SEQUENCES, UTILITY_ROWS, DECISIONS, DECISION_EDGES, STATUS, TOP = range(10)
RUNNING, DONE, TOO_MANY, STACK_FULL, ACTIONS_DIFFER, RETURNS_FULL = range(6)
# Distinct returns vectors the builder keeps (games have a handful: scores, wins).
MAX_UTILITY_ROWS = 1 << 20
# Nodes expanded per call between progress updates.
CHUNK = 1 << 20


@nb.njit(cache=True)
def _find_or_add(table, keys, count, fp):
    """The id of fingerprint ``fp`` in the open-addressing ``table`` (ids into ``keys``),
    added as ``count`` if absent; returns (id, added)."""
    capacity = table.shape[0]
    slot = np.int64(fp[0] & np.uint64(capacity - 1))
    while True:
        entry = table[slot]
        if entry < 0:
            if count >= keys.shape[0]:
                return np.int64(-1), False
            table[slot] = count
            keys[count, 0] = fp[0]
            keys[count, 1] = fp[1]
            return np.int64(count), True
        if keys[entry, 0] == fp[0] and keys[entry, 1] == fp[1]:
            return np.int64(entry), False
        slot = (slot + 1) & (capacity - 1)


@nb.njit(cache=True)
def record_sequences(mask, count, infoset, added, infoset_first, sequence_action, counters, sequences_at):
    """The first sequence of ``infoset``, whose legal actions are ``mask`` (``count`` of
    them): appended as new sequences when the information set was just ``added``
    (``counters[sequences_at]`` counts the sequences), else checked against those it
    has; -1 when they differ (two states of one information set with other actions)."""
    if added:
        base = counters[sequences_at]
        k = 0
        for a in range(mask.shape[0]):
            if mask[a]:
                sequence_action[base + k] = a
                k += 1
        counters[sequences_at] += count
        infoset_first[infoset + 1] = counters[sequences_at]
        return base
    base = infoset_first[infoset]
    same = infoset_first[infoset + 1] - base == count
    k = 0
    for a in range(mask.shape[0]):
        if mask[a] and same:
            same = sequence_action[base + k] == a
            k += 1
    return base if same else -1


@nb.njit(cache=True)
def _utility_row(returns, fp, utility_table, utility_keys, counters, rows_at, utility):
    """The row of ``utility`` that holds a terminal's ``returns`` (added as the next row,
    ``counters[rows_at]``, if no terminal had them yet); -1 when the table is full."""
    for p in range(returns.shape[0]):
        returns[p] += 0.0  # -0.0 and 0.0 are one return
    fingerprint_into(returns.view(np.float32), 0, fp)
    row, added = _find_or_add(utility_table, utility_keys, counters[rows_at], fp)
    if added:
        for p in range(returns.shape[0]):
            utility[row, p] = returns[p]
        counters[rows_at] += 1
    return row


@generic
def _walk(
    cfg,
    fill,
    max_nodes,
    budget,
    counters,
    stack_states,
    stack_nodes,
    node_player,
    node_first,
    node_count,
    node_index,
    chance_prob,
    chance_action,
    infoset_table,
    infoset_keys,
    infoset_player,
    infoset_first,
    infoset_node,
    sequence_action,
    utility_table,
    utility_keys,
    utility,
    mask,
    probs,
    tensor,
    returns,
    fp,
    parent_state,
):
    """Expands up to ``budget`` nodes of the depth-first walk (see the module docstring).

    ``fill`` False only counts (the node and infoset arrays may then be empty).
    """
    expanded = 0
    while counters[TOP] > 0 and expanded < budget:
        counters[TOP] -= 1
        top = counters[TOP]
        node = stack_nodes[top]
        state = stack_states[top]
        for i in range(state.shape[0]):
            parent_state[i] = state[i]
        expanded += 1
        who = rules.current_player(cfg, parent_state)
        if who == TERMINAL:
            if fill:
                rules.returns(cfg, parent_state, returns)
                row = _utility_row(returns, fp, utility_table, utility_keys, counters, UTILITY_ROWS, utility)
                if row < 0:
                    counters[STATUS] = RETURNS_FULL
                    return
                node_player[node] = TERMINAL
                node_first[node] = 0
                node_count[node] = 0
                node_index[node] = row
            continue
        count = 0
        if who == CHANCE:
            rules.chance_outcomes(cfg, parent_state, probs)
            counters[CHANCE_NODES] += 1
            base = counters[CHANCE_EDGES]
            for a in range(probs.shape[0]):
                if probs[a] > 0.0:
                    if fill:
                        chance_prob[base + count] = probs[a]
                        chance_action[base + count] = a
                    count += 1
            counters[CHANCE_EDGES] += count
            if fill:
                node_player[node] = CHANCE
                node_index[node] = base
        else:
            rules.legal_mask(cfg, parent_state, mask)
            for a in range(mask.shape[0]):
                count += mask[a]
            counters[DECISIONS] += 1
            counters[DECISION_EDGES] += count
            if fill:
                rules.encode_information_state(cfg, parent_state, who, tensor)
                fingerprint_into(tensor, who, fp)
                infoset, added = _find_or_add(infoset_table, infoset_keys, counters[INFOSETS], fp)
                if added:
                    counters[INFOSETS] += 1
                    infoset_player[infoset] = who
                    infoset_node[infoset] = node
                if record_sequences(mask, count, infoset, added, infoset_first, sequence_action, counters,
                                    SEQUENCES) < 0:
                    counters[STATUS] = ACTIONS_DIFFER
                    return
                node_player[node] = who
                node_index[node] = infoset
        first = counters[NODES]
        if first + count > max_nodes:
            counters[STATUS] = TOO_MANY
            return
        if top + count > stack_nodes.shape[0]:
            counters[STATUS] = STACK_FULL
            return
        counters[NODES] += count
        if fill:
            node_first[node] = first
            node_count[node] = count
        # Children pushed last first, so the first child is expanded next.
        k = count
        limit = probs.shape[0] if who == CHANCE else mask.shape[0]
        for a in range(limit - 1, -1, -1):
            live = probs[a] > 0.0 if who == CHANCE else mask[a]
            if live:
                k -= 1
                slot = counters[TOP]
                child = stack_states[slot]
                for i in range(child.shape[0]):
                    child[i] = parent_state[i]
                rules.apply(cfg, child, a)
                stack_nodes[slot] = first + k
                counters[TOP] += 1
    if counters[TOP] == 0:
        counters[STATUS] = DONE


def _capacity(n: int) -> int:
    """A power of two at least twice ``n`` (open addressing stays short)."""
    return 1 << max(4, int(2 * max(n, 1) - 1).bit_length())


def tree_from_kernel(
    game: KernelGame,
    max_nodes: int = MAX_NODES,
    max_memory: float | None = None,
    progress: bool = False,
):
    """The tree of one of this library's games, walked in numba over its kernel.

    Counts the nodes first; raises ``TreeTooLarge`` when they exceed ``max_nodes``
    or need more than ``max_memory`` bytes (default 90% of the available memory).
    """
    if not is_kernel_game(game):
        raise ValueError(f"{game}: the kernel builder needs a game of this library (elements_ai.GAMES)")
    started = time.perf_counter()
    config = game.config
    counts = _run_walk(game, False, _empty_arrays(config.num_players), max_nodes, progress, "counting nodes")
    nodes, decisions, edges = int(counts[NODES]), int(counts[DECISIONS]), int(counts[DECISION_EDGES])
    rows = min(nodes - decisions - int(counts[CHANCE_NODES]), MAX_UTILITY_ROWS)
    # Exact node counts; information sets and sequences are known only once built, so
    # the solver's part is checked then (CFRSolver) and here only its per-node arrays.
    needed = build_bytes(nodes, decisions, edges) + nodes * SOLVE_NODE_BYTES
    if needed > memory_budget(max_memory):
        raise too_large(game, f"{nodes:,} nodes and {decisions:,} decision nodes", needed, max_memory)
    arrays = {
        "node_player": np.zeros(nodes, np.int8),
        "node_first": np.zeros(nodes, np.int32),
        "node_count": np.zeros(nodes, np.int16),
        "node_index": np.zeros(nodes, np.int32),
        "chance_prob": np.zeros(int(counts[CHANCE_EDGES])),
        "chance_action": np.zeros(int(counts[CHANCE_EDGES]), np.int32),
        "infoset_table": np.full(_capacity(decisions), -1, np.int32),
        "infoset_keys": np.zeros((decisions, 2), np.uint64),
        "infoset_player": np.zeros(decisions, np.int8),
        "infoset_first": np.zeros(decisions + 1, np.int64),
        "infoset_node": np.zeros(decisions, np.int32),
        "sequence_action": np.zeros(edges, np.int32),
        "utility_table": np.full(_capacity(rows), -1, np.int32),
        "utility_keys": np.zeros((rows, 2), np.uint64),
        "utility": np.zeros((rows, config.num_players)),
    }
    counts = _run_walk(game, True, arrays, max_nodes, progress, "building tree", total=nodes)
    infosets, sequences, rows = int(counts[INFOSETS]), int(counts[SEQUENCES]), int(counts[UTILITY_ROWS])
    keys = arrays.pop("infoset_keys")[:infosets].copy()
    for name in ("infoset_table", "utility_table", "utility_keys"):
        del arrays[name]
    arrays["infoset_player"] = arrays["infoset_player"][:infosets].copy()
    arrays["infoset_first"] = arrays["infoset_first"][: infosets + 1].copy()
    arrays["infoset_node"] = arrays["infoset_node"][:infosets].copy()
    arrays["sequence_action"] = arrays["sequence_action"][:sequences].copy()
    arrays["utility"] = arrays["utility"][:rows].copy()
    return finish_tree(game, arrays, keys, time.perf_counter() - started)


def _run_walk(game: KernelGame, fill: bool, arrays: dict, max_nodes: int, progress: bool, desc: str, total=None):
    """Runs the walk to its end (counting, or filling ``arrays``); returns the counters."""
    kernel, config = game.kernel, game.config
    walk = _walk[kernel]
    depth = config.max_game_length + config.max_chance_nodes + 1
    branching = max(config.num_actions, config.max_chance_outcomes, 1)
    stack_size = depth * branching + 1
    root = game.new_initial_state().array
    scratch = (
        np.zeros(config.num_actions, np.bool_),
        np.zeros(max(config.max_chance_outcomes, 1)),
        np.zeros(config.info_size, np.float32),
        np.zeros(config.num_players),
        np.zeros(2, np.uint64),
        np.zeros_like(root),
    )
    counters = np.zeros(TOP + 1, np.int64)
    stack_states = np.zeros((stack_size, config.state_size), kernel.state_dtype)
    stack_states[0] = root
    stack_nodes = np.zeros(stack_size, np.int64)
    counters[TOP] = 1
    counters[NODES] = 1
    bar = _bar(progress, desc, total)
    try:
        while counters[STATUS] == RUNNING:
            walk(
                game.cfg, fill, max_nodes, CHUNK, counters, stack_states, stack_nodes,
                arrays["node_player"], arrays["node_first"], arrays["node_count"], arrays["node_index"],
                arrays["chance_prob"], arrays["chance_action"], arrays["infoset_table"], arrays["infoset_keys"],
                arrays["infoset_player"], arrays["infoset_first"], arrays["infoset_node"], arrays["sequence_action"],
                arrays["utility_table"], arrays["utility_keys"], arrays["utility"], *scratch,
            )
            if bar is not None:
                bar.update(int(counters[NODES]) - bar.n)
    finally:
        if bar is not None:
            bar.close()
    status = counters[STATUS]
    if status == TOO_MANY:
        raise TreeTooLarge(f"{game}: the game tree has more than {max_nodes:,} nodes")
    if status == STACK_FULL:
        raise RuntimeError(f"{game}: the tree is deeper than max_game_length + max_chance_nodes allows")
    if status == RETURNS_FULL:
        raise ValueError(f"{game}: more than {MAX_UTILITY_ROWS:,} distinct returns; use builder='pyspiel'")
    if status == ACTIONS_DIFFER:
        raise ValueError(f"{game}: an information set has different legal actions in different states")
    return counters


def count_kernel_tree(game: KernelGame, max_nodes: int = MAX_NODES, progress: bool = False) -> dict[str, int]:
    """The exact size of a game's tree, walked without storing it: nodes, decision
    nodes, chance nodes, terminals and decision edges (an upper bound on sequences).

    >>> import elements_ai
    >>> count_kernel_tree(elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1))
    {'nodes': 317, 'decision_nodes': 116, 'chance_nodes': 9, 'terminals': 192, 'decision_edges': 294}
    """
    if not is_kernel_game(game):
        raise ValueError(f"{game}: the kernel builder needs a game of this library (elements_ai.GAMES)")
    counts = _run_walk(game, False, _empty_arrays(game.num_players()), max_nodes, progress, "counting nodes")
    nodes, decisions, chance = int(counts[NODES]), int(counts[DECISIONS]), int(counts[CHANCE_NODES])
    return {
        "nodes": nodes,
        "decision_nodes": decisions,
        "chance_nodes": chance,
        "terminals": nodes - decisions - chance,
        "decision_edges": int(counts[DECISION_EDGES]),
    }


def _empty_arrays(players: int) -> dict:
    return {
        "node_player": np.zeros(0, np.int8),
        "node_first": np.zeros(0, np.int32),
        "node_count": np.zeros(0, np.int16),
        "node_index": np.zeros(0, np.int32),
        "chance_prob": np.zeros(0),
        "chance_action": np.zeros(0, np.int32),
        "infoset_table": np.full(16, -1, np.int32),
        "infoset_keys": np.zeros((0, 2), np.uint64),
        "infoset_player": np.zeros(0, np.int8),
        "infoset_first": np.zeros(1, np.int64),
        "infoset_node": np.zeros(0, np.int32),
        "sequence_action": np.zeros(0, np.int32),
        "utility_table": np.full(16, -1, np.int32),
        "utility_keys": np.zeros((0, 2), np.uint64),
        "utility": np.zeros((0, players)),
    }


def _bar(progress: bool, desc: str, total: int | None = None):
    if not progress:
        return None
    return progress_bar(total=total, desc=desc, unit=" nodes", unit_scale=True)
