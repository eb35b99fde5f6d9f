"""One state of every information set of a tree, in batches, in numba: what a bot is
asked at to read its policy on the tree (``agents.bot_policy``).

``infoset_states(tree)`` yields ``(infosets, states)`` batches: information-set numbers
(int64) and, row for row, the kernel state array of one history of each. Every
information set with more than one legal action comes exactly once; those with one
are left out (a policy there is 1). Only this library's games (rules kernels).

On a flat tree (``flat.Tree``) the state of an information set is rebuilt from the
root along its first node's path (``infoset_node``, the node parents), on every core.
On a compact tree (``compact.CompactTree``), whose nodes hold no pointers, one walk
over the shape bytes in preorder finds the first node of each information set; the
states along the path are applied lazily, only down to the nodes that are kept, so
the walk reads a byte a node and applies the rules about once an information set,
not once a node. It is resumable: each call fills one batch and returns.

``encode_states`` turns a batch into what a network reads: information-state
tensors, legal masks, the player to move and, for a network that takes the rules
bot's move as a hint, that move (all on every core).

>>> import elements_ai
>>> from elements_ai.solvers import build_compact, build_tree
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> flat, compact = build_tree(game), build_compact(game)
>>> sum(len(infosets) for infosets, _ in infoset_states(flat, batch=16))
86
>>> sum(len(infosets) for infosets, _ in infoset_states(compact, batch=16))
86
"""

from __future__ import annotations

from collections.abc import Iterator

import numba as nb
import numpy as np

from ..core.generic import generic, rules
from ..core.kernel import CHANCE
from .compact.tree import CHANCE_KIND, COUNT_MASK, DECISION_KIND, KIND_SHIFT, CompactTree
from .flat import Tree, _node_parents, is_kernel_game

__all__ = ["BATCH", "encode_states", "heuristic_moves", "infoset_states"]

# Information sets a batch holds: large enough that a network's forward pass is a
# matrix product, small enough that its tensors take tens of megabytes.
BATCH = 1 << 15


def _kernel_game(tree):
    if not is_kernel_game(tree.game):
        raise ValueError(f"{tree.game}: states are rebuilt from this library's rules kernels; it is not one of "
                         f"its games")
    return tree.game


# --- the flat tree --------------------------------------------------------------------


@generic(parallel=True)
def _flat_states(cfg, infosets, infoset_node, parents, node_player, node_first, node_index, chance_action,
                 infoset_first, sequence_action, root, states):
    """Writes into ``states[b]`` the state of the first node of information set
    ``infosets[b]``: the root's, with the actions of its path applied from the top."""
    for b in nb.prange(infosets.shape[0]):
        node = infoset_node[infosets[b]]
        depth = 0
        up = node
        while up > 0:
            up = parents[up]
            depth += 1
        state = states[b]
        for i in range(root.shape[0]):
            state[i] = root[i]
        # The ancestor at each depth, found again from the node: paths are short.
        for level in range(depth):
            child = node
            for _ in range(depth - level - 1):
                child = parents[child]
            parent = parents[child]
            k = child - node_first[parent]
            if node_player[parent] == CHANCE:
                action = chance_action[node_index[parent] + k]
            else:
                action = sequence_action[infoset_first[node_index[parent]] + k]
            rules.apply(cfg, state, action)


def _flat_batches(tree: Tree, batch: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    game = _kernel_game(tree)
    kernel = game.kernel
    parents = _node_parents(tree.node_player, tree.node_first, tree.node_count)
    asked = np.flatnonzero(np.diff(tree.infoset_first) > 1).astype(np.int64)
    root = np.asarray(game.new_initial_state().array)
    for start in range(0, asked.shape[0], batch):
        infosets = asked[start : start + batch]
        states = np.empty((infosets.shape[0], root.shape[0]), root.dtype)
        _flat_states[kernel](game.cfg, infosets, tree.infoset_node, parents, tree.node_player, tree.node_first,
                             tree.node_index, tree.chance_action, tree.infoset_first, tree.sequence_action, root,
                             states)
        yield infosets, states


# --- the compact tree -----------------------------------------------------------------

# The walk's position between calls (int64 array).
POS, DEPTH, VALID, FILLED = range(4)


@generic
def _compact_states(cfg, node_shape, node_code, infoset_first, sequence_action, root, seen, walk, level_pos,
                    level_next, level_states, probs, infosets, states):
    """Walks the preorder arrays from ``walk[POS]`` until ``states`` is full or the tree
    ends, writing the state of the first node of each information set not ``seen``
    with more than one action. Returns the number of rows written.

    ``level_pos[l]`` is the open node at depth ``l`` and ``level_next[l]`` the child
    of it being walked (in storage order: last child first); ``level_states[l]`` is
    that node's state for ``l < walk[VALID]``, applied only when a kept node needs it.
    """
    filled = 0
    pos = walk[POS]
    depth = walk[DEPTH]
    valid = walk[VALID]
    end = node_shape.shape[0]
    while pos < end and filled < infosets.shape[0]:
        shape = node_shape[pos]
        count = np.int64(shape & COUNT_MASK)
        if valid > depth:
            valid = depth  # a new node: the states below its parent were another child's
        if (shape >> KIND_SHIFT) == DECISION_KIND and count > 1:
            infoset = node_code[pos]
            if not seen[infoset]:
                seen[infoset] = True
                for level in range(valid, depth + 1):
                    state = level_states[level]
                    if level == 0:
                        for i in range(root.shape[0]):
                            state[i] = root[i]
                        continue
                    above = level_states[level - 1]
                    for i in range(above.shape[0]):
                        state[i] = above[i]
                    parent = level_pos[level - 1]
                    parent_count = np.int64(node_shape[parent] & COUNT_MASK)
                    k = parent_count - 1 - level_next[level - 1]  # children are stored last first
                    if (node_shape[parent] >> KIND_SHIFT) == CHANCE_KIND:
                        rules.chance_outcomes(cfg, above, probs)
                        action = -1
                        for a in range(probs.shape[0]):
                            if probs[a] > 0.0:
                                if k == 0:
                                    action = a
                                    break
                                k -= 1
                    else:
                        action = sequence_action[infoset_first[node_code[parent]] + k]
                    rules.apply(cfg, state, action)
                valid = depth + 1
                infosets[filled] = infoset
                target = states[filled]
                source = level_states[depth]
                for i in range(source.shape[0]):
                    target[i] = source[i]
                filled += 1
        pos += 1
        if count > 0:
            level_pos[depth] = pos - 1
            level_next[depth] = 0
            depth += 1
        else:
            # A finished node may finish its parent, and so on up.
            while depth > 0:
                level_next[depth - 1] += 1
                if level_next[depth - 1] < np.int64(node_shape[level_pos[depth - 1]] & COUNT_MASK):
                    break
                depth -= 1
    walk[POS] = pos
    walk[DEPTH] = depth
    walk[VALID] = valid
    return filled


def _compact_batches(tree: CompactTree, batch: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    game = _kernel_game(tree)
    kernel = game.kernel
    root = np.asarray(game.new_initial_state().array)
    levels = max(tree.depth, 1) + 1
    walk = np.zeros(4, np.int64)
    seen = np.zeros(tree.num_infosets, np.bool_)
    level_pos = np.zeros(levels, np.int64)
    level_next = np.zeros(levels, np.int64)
    level_states = np.zeros((levels, root.shape[0]), root.dtype)
    probs = np.zeros(max(game.config.max_chance_outcomes, 1))
    walker = _compact_states[kernel]
    while walk[POS] < tree.num_nodes:
        infosets = np.empty(batch, np.int64)
        states = np.empty((batch, root.shape[0]), root.dtype)
        filled = walker(game.cfg, tree.node_shape, tree.node_code, tree.infoset_first, tree.sequence_action, root,
                        seen, walk, level_pos, level_next, level_states, probs, infosets, states)
        if filled:
            yield infosets[:filled], states[:filled]


def infoset_states(tree: Tree | CompactTree, batch: int = BATCH) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(infosets, states)`` batches of at most ``batch`` rows: every information set of
    ``tree`` with more than one legal action once, with the state array of one of its
    histories (module docstring)."""
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    if isinstance(tree, CompactTree):
        return _compact_batches(tree, batch)
    return _flat_batches(tree, batch)


# --- what a network reads -------------------------------------------------------------


@generic(parallel=True)
def _encode(cfg, states, hint, rng, players, tensors, masks, hints):
    for b in nb.prange(states.shape[0]):
        state = states[b]
        player = np.int64(rules.current_player(cfg, state))  # as the vector env passes it
        players[b] = player
        tensors[b, :] = 0.0
        rules.encode_information_state(cfg, state, player, tensors[b])
        rules.legal_mask(cfg, state, masks[b])
        if hint:
            hints[b] = rules.heuristic(cfg, state, player, rng[b : b + 1])


def encode_states(game, states: np.ndarray, hint: bool = False, seed: int = 0):
    """``(players, tensors, masks, hints)`` of a batch of state arrays of ``game``:
    the player to move, its information-state tensor (float32), the legal actions
    (bool) and, with ``hint``, the rules bot's move (int64; -1 without). A heuristic
    that breaks ties at random draws from a stream of ``seed`` for each row."""
    from ..core.rng import seed_streams

    config = game.config
    size = states.shape[0]
    players = np.empty(size, np.int64)
    tensors = np.empty((size, config.info_size), np.float32)
    masks = np.zeros((size, game.num_distinct_actions()), np.bool_)
    hints = np.full(size, -1, np.int64)
    rng = np.zeros(size, np.uint64)
    if hint:
        seed_streams(np.uint64(seed), rng)
    _encode[game.kernel](game.cfg, np.ascontiguousarray(states), hint, rng, players, tensors, masks, hints)
    return players, tensors, masks, hints


@generic(parallel=True)
def _heuristic(cfg, states, rng, moves):
    for b in nb.prange(states.shape[0]):
        state = states[b]
        moves[b] = rules.heuristic(cfg, state, np.int64(rules.current_player(cfg, state)), rng[b : b + 1])


def heuristic_moves(game, states: np.ndarray, seed: int = 0) -> np.ndarray:
    """The rules bot's move (int64) at each of a batch of state arrays of ``game``, on
    every core. A heuristic that breaks ties at random draws from a stream of
    ``seed`` for each row. ``ValueError`` for a game whose kernel has no heuristic."""
    from ..core.rng import seed_streams

    if game.kernel.heuristic is None:
        raise ValueError(f"{game.kernel.short_name}: the kernel defines no heuristic (no rules bot)")
    size = states.shape[0]
    rng = np.zeros(size, np.uint64)
    seed_streams(np.uint64(seed), rng)
    moves = np.empty(size, np.int64)
    _heuristic[game.kernel](game.cfg, np.ascontiguousarray(states), rng, moves)
    return moves
