"""Building the compact tree: a counting walk that sketches its size (HyperLogLog), then a
writing walk, in preorder, last child first."""

from __future__ import annotations

import math
import time

import numba as nb
import numpy as np

from ...core.generic import generic, rules
from ...core.kernel import CHANCE, TERMINAL
from ...core.spiel import KernelGame
from ..estimate import estimate_tree
from ..flat import _mix, fingerprint_into, is_kernel_game
from ..kernel_tree import MAX_UTILITY_ROWS, _capacity, _find_or_add, _utility_row, record_sequences
from ..memory import (
    COMPACT_NODE_BYTES,
    TreeTooLarge,
    compact_build_bytes,
    compact_solve_bytes,
    compact_tree_bytes,
    memory_budget,
    too_large,
)
from .tree import CHANCE_KIND, COUNT_MASK, DECISION_KIND, KIND_SHIFT, LANES, TERMINAL_KIND, CompactTree, _max_depth

__all__ = ["build_compact", "count_compact"]

MAX_CHANCE_ROWS = 1 << 16
# HyperLogLog registers of the counting walk's sketches (about 0.4% error).
SKETCH_BITS = 16
# The information-set arrays are allocated this much above the sketch's count.
SKETCH_MARGIN = 1.03

# Counters shared by the builder's calls (int64 array).
NODES, DECISIONS, CHANCE_NODES, INFOSETS, SEQUENCES, CHANCE_ROWS, UTILITY_ROWS, STATUS, TOP = range(9)
RUNNING, DONE, TOO_MANY, STACK_FULL, ACTIONS_DIFFER, TABLE_FULL, GROW, NO_RECALL, TOO_WIDE = range(9)
CHUNK = 1 << 20


@nb.njit(cache=True)
def _sketch_add(registers, h):
    """Adds the 64-bit hash ``h`` to a HyperLogLog sketch."""
    index = np.int64(h & np.uint64(registers.shape[0] - 1))
    rest = h >> np.uint64(SKETCH_BITS)
    rank = 1
    while rank <= 64 - SKETCH_BITS and (rest & np.uint64(1)) == 0:
        rest >>= np.uint64(1)
        rank += 1
    if rank > registers[index]:
        registers[index] = rank


def _sketch_count(registers: np.ndarray) -> float:
    """The number of distinct hashes a HyperLogLog sketch has seen (Flajolet et al. 2007)."""
    m = registers.shape[0]
    estimate = 0.7213 / (1 + 1.079 / m) * m * m / float(np.sum(np.ldexp(1.0, -registers.astype(np.int64))))
    zeros = int(np.count_nonzero(registers == 0))
    if estimate <= 2.5 * m and zeros > 0:
        estimate = m * math.log(m / zeros)
    return estimate


@nb.njit(cache=True)
def _rehash(table, keys, count):
    table[:] = -1
    capacity = table.shape[0]
    for i in range(count):
        slot = np.int64(keys[i, 0] & np.uint64(capacity - 1))
        while table[slot] >= 0:
            slot = (slot + 1) & (capacity - 1)
        table[slot] = i


@generic
def _compact_walk(
    cfg,
    fill,
    max_nodes,
    budget,
    counters,
    stack_states,
    stack_last,
    node_shape,
    node_code,
    chance_table,
    chance_keys,
    chance_first,
    chance_prob,
    infoset_table,
    infoset_keys,
    infoset_player,
    infoset_first,
    infoset_parent,
    sequence_action,
    utility_table,
    utility_keys,
    utility,
    sketch_infosets,
    sketch_sequences,
    mask,
    probs,
    live,
    tensor,
    returns,
    fp,
    state,
    last,
):
    """Expands up to ``budget`` nodes of the depth-first walk, in preorder: the node
    on top of the stack is written at the next position, then its children are
    pushed, last first. ``fill`` False counts and sketches instead of writing.

    A node whose information set does not fit in the arrays is left on the stack
    with status GROW, for the caller to grow them and call again.
    """
    expanded = 0
    players = last.shape[0]
    while counters[TOP] > 0 and expanded < budget:
        top = counters[TOP] - 1
        source = stack_states[top]
        for i in range(source.shape[0]):
            state[i] = source[i]
        for p in range(players):
            last[p] = stack_last[top, p]
        pos = counters[NODES]
        if pos >= max_nodes:
            counters[STATUS] = TOO_MANY
            return
        who = rules.current_player(cfg, state)
        if who == TERMINAL:
            if fill:
                rules.returns(cfg, state, returns)
                row = _utility_row(returns, fp, utility_table, utility_keys, counters, UTILITY_ROWS, utility)
                if row < 0:
                    counters[STATUS] = TABLE_FULL
                    return
                node_shape[pos] = TERMINAL_KIND << KIND_SHIFT
                node_code[pos] = row
            counters[TOP] = top
            counters[NODES] += 1
            expanded += 1
            continue
        count = 0
        base = 0
        if who == CHANCE:
            rules.chance_outcomes(cfg, state, probs)
            for a in range(probs.shape[0]):
                live[a] = 0.0
            for a in range(probs.shape[0]):
                if probs[a] > 0.0:
                    live[count] = probs[a]
                    count += 1
            if fill:
                fingerprint_into(live.view(np.float32), 0, fp)
                row, added = _find_or_add(chance_table, chance_keys, counters[CHANCE_ROWS], fp)
                if row < 0:
                    counters[STATUS] = TABLE_FULL
                    return
                if added:
                    start = row * probs.shape[0]
                    chance_first[row] = start
                    for k in range(count):
                        chance_prob[start + k] = live[k]
                    counters[CHANCE_ROWS] += 1
                node_shape[pos] = (CHANCE_KIND << KIND_SHIFT) | count
                node_code[pos] = row
            else:
                counters[CHANCE_NODES] += 1
        else:
            rules.legal_mask(cfg, state, mask)
            for a in range(mask.shape[0]):
                count += mask[a]
            rules.encode_information_state(cfg, state, who, tensor)
            fingerprint_into(tensor, who, fp)
            if fill:
                if counters[SEQUENCES] + count > sequence_action.shape[0]:
                    counters[STATUS] = GROW
                    return
                infoset, added = _find_or_add(infoset_table, infoset_keys, counters[INFOSETS], fp)
                if infoset < 0:
                    counters[STATUS] = GROW
                    return
                if added:
                    counters[INFOSETS] += 1
                    infoset_player[infoset] = who
                    infoset_parent[infoset] = last[who]
                base = record_sequences(mask, count, infoset, added, infoset_first, sequence_action, counters,
                                        SEQUENCES)
                if base < 0:
                    counters[STATUS] = ACTIONS_DIFFER
                    return
                if infoset_parent[infoset] != last[who]:
                    counters[STATUS] = NO_RECALL
                    return
                node_shape[pos] = (DECISION_KIND << KIND_SHIFT) | count
                node_code[pos] = infoset
            else:
                counters[DECISIONS] += 1
                _sketch_add(sketch_infosets, fp[0])
                for a in range(mask.shape[0]):
                    if mask[a]:
                        _sketch_add(sketch_sequences, _mix(fp[1] ^ (np.uint64(a + 1) * np.uint64(0x9E3779B97F4A7C15))))
        if count > COUNT_MASK:
            counters[STATUS] = TOO_WIDE
            return
        if top + count > stack_states.shape[0]:
            counters[STATUS] = STACK_FULL
            return
        counters[TOP] = top
        counters[NODES] += 1
        expanded += 1
        # Children pushed first first, so that the last is expanded next: the arrays
        # hold a node's children from the last to the first (see the module docstring).
        k = 0
        limit = probs.shape[0] if who == CHANCE else mask.shape[0]
        for a in range(limit):
            alive = probs[a] > 0.0 if who == CHANCE else mask[a]
            if alive:
                slot = counters[TOP]
                child = stack_states[slot]
                for i in range(child.shape[0]):
                    child[i] = state[i]
                rules.apply(cfg, child, a)
                for p in range(players):
                    stack_last[slot, p] = last[p]
                if who >= 0:
                    stack_last[slot, who] = base + k
                k += 1
                counters[TOP] += 1
    if counters[TOP] == 0:
        counters[STATUS] = DONE


class _Builder:
    """The arrays of one build and the walk's scratch, grown between calls."""

    def __init__(self, game: KernelGame, fill: bool, nodes: int = 0, infosets: int = 0, sequences: int = 0):
        config = game.config
        players = config.num_players
        self.game = game
        self.fill = fill
        outcomes = max(config.max_chance_outcomes, 1)
        # The returns and chance tables start small and grow (games have a handful).
        chance_rows = 256 if fill else 0
        utility_rows = 256 if fill else 0
        self.outcomes = outcomes
        self.arrays = {
            "node_shape": np.zeros(nodes, np.uint8),
            "node_code": np.zeros(nodes, np.uint32),
            "chance_table": np.full(_capacity(chance_rows), -1, np.int32),
            "chance_keys": np.zeros((chance_rows, 2), np.uint64),
            "chance_first": np.zeros(chance_rows, np.int64),
            "chance_prob": np.zeros(chance_rows * outcomes),
            "infoset_table": np.full(_capacity(infosets), -1, np.int32),
            "infoset_keys": np.zeros((infosets, 2), np.uint64),
            "infoset_player": np.zeros(infosets, np.int8),
            "infoset_first": np.zeros(infosets + 1, np.int64),
            "infoset_parent": np.zeros(infosets, np.int64),
            "sequence_action": np.zeros(sequences, np.uint8 if config.num_actions <= 256 else np.int32),
            "utility_table": np.full(_capacity(utility_rows), -1, np.int32),
            "utility_keys": np.zeros((utility_rows, 2), np.uint64),
            "utility": np.zeros((utility_rows, players)),
        }
        self.sketches = (np.zeros(1 << SKETCH_BITS, np.uint8), np.zeros(1 << SKETCH_BITS, np.uint8))
        depth = config.max_game_length + config.max_chance_nodes + 1
        stack_size = depth * max(config.num_actions, outcomes, 1) + 1
        root = game.new_initial_state().array
        self.stack_states = np.zeros((stack_size, config.state_size), game.kernel.state_dtype)
        self.stack_states[0] = root
        self.stack_last = np.full((stack_size, players), -1, np.int64)
        self.scratch = (
            np.zeros(config.num_actions, np.bool_),
            np.zeros(outcomes),
            np.zeros(outcomes),
            np.zeros(config.info_size, np.float32),
            np.zeros(players),
            np.zeros(2, np.uint64),
            np.zeros_like(root),
            np.zeros(players, np.int64),
        )
        self.counters = np.zeros(TOP + 1, np.int64)
        self.counters[TOP] = 1

    def grow(self, name: str, size: int) -> None:
        old = self.arrays[name]
        new = np.zeros((size,) + old.shape[1:], old.dtype)
        new[: old.shape[0]] = old[: min(old.shape[0], size)]
        self.arrays[name] = new

    def grow_infosets(self, max_memory: float | None) -> None:
        """Room for a quarter more information sets and sequences (the sketch was low)."""
        a = self.arrays
        infosets = int(a["infoset_player"].shape[0] * 1.25) + 1024
        sequences = int(a["sequence_action"].shape[0] * 1.25) + 4096
        needed = a["node_shape"].nbytes + a["node_code"].nbytes + compact_build_bytes(0, infosets, sequences)
        if needed > memory_budget(max_memory):
            raise too_large(self.game, f"more than {self.counters[INFOSETS]:,} information sets", needed, max_memory)
        for name in ("infoset_keys", "infoset_player", "infoset_parent"):
            self.grow(name, infosets)
        self.grow("infoset_first", infosets + 1)
        self.grow("sequence_action", sequences)
        a["infoset_table"] = np.full(_capacity(infosets), -1, np.int32)
        _rehash(a["infoset_table"], a["infoset_keys"], int(self.counters[INFOSETS]))

    def grow_tables(self) -> bool:
        """Four times the rows of whichever of the returns and chance tables is full;
        False when it is at its limit."""
        a, counters = self.arrays, self.counters
        for prefix, used, limit, rows_of in (
            ("utility", UTILITY_ROWS, MAX_UTILITY_ROWS, ("utility",)),
            ("chance", CHANCE_ROWS, MAX_CHANCE_ROWS, ("chance_first",)),
        ):
            rows = a[f"{prefix}_keys"].shape[0]
            if counters[used] < rows:
                continue
            if rows >= limit:
                return False
            self.grow(f"{prefix}_keys", rows * 4)
            for name in rows_of:
                self.grow(name, rows * 4)
            if prefix == "chance":
                self.grow("chance_prob", rows * 4 * self.outcomes)
            a[f"{prefix}_table"] = np.full(_capacity(rows * 4), -1, np.int32)
            _rehash(a[f"{prefix}_table"], a[f"{prefix}_keys"], int(counters[used]))
            return True
        return False

    def run(self, max_nodes: int, max_memory: float | None, bar=None) -> np.ndarray:
        walk = _compact_walk[self.game.kernel]
        counters, a = self.counters, self.arrays
        while True:
            walk(
                self.game.cfg, self.fill, max_nodes, CHUNK, counters, self.stack_states, self.stack_last,
                a["node_shape"], a["node_code"], a["chance_table"], a["chance_keys"], a["chance_first"],
                a["chance_prob"], a["infoset_table"], a["infoset_keys"], a["infoset_player"], a["infoset_first"],
                a["infoset_parent"], a["sequence_action"], a["utility_table"], a["utility_keys"], a["utility"],
                *self.sketches, *self.scratch,
            )
            if bar is not None:
                bar.update(int(counters[NODES]) - bar.n)
            status = counters[STATUS]
            if status == RUNNING:
                continue
            if status == GROW:
                counters[STATUS] = RUNNING
                self.grow_infosets(max_memory)
                continue
            if status == TABLE_FULL and self.grow_tables():
                counters[STATUS] = RUNNING
                continue
            break
        game = self.game
        if status == TOO_MANY:
            raise TreeTooLarge(f"{game}: the game tree has more than {max_nodes:,} nodes")
        if status == STACK_FULL:
            raise RuntimeError(f"{game}: the tree is deeper than max_game_length + max_chance_nodes allows")
        if status == TABLE_FULL:
            raise ValueError(f"{game}: too many distinct returns or chance distributions for the compact tree")
        if status == ACTIONS_DIFFER:
            raise ValueError(f"{game}: an information set has different legal actions in different states")
        if status == NO_RECALL:
            raise ValueError(
                f"{game}: an information set is reached after different own actions; tabular CFR and exact best "
                "response need perfect recall"
            )
        if status == TOO_WIDE:
            raise ValueError(f"{game}: a node has more than {COUNT_MASK} children, more than the compact tree holds")
        return counters


def _bar(progress: bool, desc: str, total: int | None = None):
    if not progress:
        return None
    from ...progress import progress_bar

    return progress_bar(total=total, desc=desc, unit=" nodes", unit_scale=True)


def count_compact(game: KernelGame, max_nodes: int | None = None, progress: bool = False) -> dict[str, float]:
    """The exact number of nodes of ``game``'s tree, and its information sets and
    sequences as sketched (within about 1%), walked without storing anything per node.

    >>> import elements_ai
    >>> counts = count_compact(elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1))
    >>> counts["nodes"], round(counts["infosets"])
    (317, 100)
    """
    if not is_kernel_game(game):
        raise ValueError(f"{game}: the compact tree needs a game of this library (elements_ai.GAMES)")
    builder = _Builder(game, fill=False)
    bar = _bar(progress, "counting nodes")
    try:
        counters = builder.run(max_nodes if max_nodes is not None else 2**62, None, bar)
    finally:
        if bar is not None:
            bar.close()
    return {
        "nodes": int(counters[NODES]),
        "decision_nodes": int(counters[DECISIONS]),
        "chance_nodes": int(counters[CHANCE_NODES]),
        "infosets": _sketch_count(builder.sketches[0]),
        "sequences": _sketch_count(builder.sketches[1]),
    }


def build_compact(
    game: KernelGame,
    max_memory: float | None = None,
    progress: bool = False,
    walks: int = 2000,
) -> CompactTree:
    """The compact tree of one of this library's games.

    Raises ``TreeTooLarge`` before building when the tree and a solve on it need
    more than ``max_memory`` bytes (default 90% of the memory available now): first
    from random walks (seconds, three standard errors above the estimate), then
    from the exact count of nodes and the sketched information sets and sequences.
    """
    if not is_kernel_game(game):
        raise ValueError(f"{game}: the compact tree needs a game of this library (elements_ai.GAMES)")
    started = time.perf_counter()
    budget = memory_budget(max_memory)
    estimate = estimate_tree(game, walks=walks)
    worst_nodes = estimate.nodes + 3 * estimate.nodes_error
    if worst_nodes * COMPACT_NODE_BYTES > budget:
        raise too_large(game, estimate.describe_size(), worst_nodes * COMPACT_NODE_BYTES, max_memory)
    counts = count_compact(game, max_nodes=int(budget / COMPACT_NODE_BYTES) + 1, progress=progress)
    nodes = counts["nodes"]
    if counts["infosets"] > 2**31:
        raise ValueError(f"{game}: about {counts['infosets']:.3g} information sets, more than a 32-bit code holds")
    infosets = min(int(counts["infosets"] * SKETCH_MARGIN) + 64, counts["decision_nodes"])
    sequences = int(counts["sequences"] * SKETCH_MARGIN) + 256
    needed = max(
        compact_build_bytes(nodes, infosets, sequences),
        compact_tree_bytes(nodes, infosets, sequences) + compact_solve_bytes(infosets, sequences, LANES),
    )
    if needed > budget:
        size = (
            f"{nodes:,} nodes, about {counts['infosets']:,.0f} information sets and "
            f"{counts['sequences']:,.0f} sequences"
        )
        raise too_large(game, size, needed, max_memory)
    builder = _Builder(game, True, nodes, infosets, sequences)
    bar = _bar(progress, "building tree", nodes)
    try:
        counters = builder.run(nodes, max_memory, bar)
    finally:
        if bar is not None:
            bar.close()
    a = builder.arrays
    peak = sum(value.nbytes for value in a.values())
    infosets, sequences = int(counters[INFOSETS]), int(counters[SEQUENCES])
    rows, chance_rows = int(counters[UTILITY_ROWS]), int(counters[CHANCE_ROWS])
    outcomes = max(game.config.max_chance_outcomes, 1)

    def trimmed(name: str, length: int, arrays: dict = a) -> np.ndarray:
        # Shrunk in place (realloc): a copy would double the information sets' bytes.
        array = arrays.pop(name)
        array.resize((length,) + array.shape[1:], refcheck=False)
        return array

    for name in ("infoset_table", "utility_table", "utility_keys", "chance_table", "chance_keys"):
        del a[name]
    tree = CompactTree(
        game=game,
        node_shape=a.pop("node_shape"),
        node_code=a.pop("node_code"),
        chance_first=trimmed("chance_first", chance_rows),
        chance_prob=trimmed("chance_prob", chance_rows * outcomes),
        utility=trimmed("utility", rows),
        infoset_player=trimmed("infoset_player", infosets),
        infoset_first=trimmed("infoset_first", infosets + 1),
        infoset_parent=trimmed("infoset_parent", infosets),
        sequence_action=trimmed("sequence_action", sequences),
        keys=trimmed("infoset_keys", infosets),
    )
    del builder, a
    tree.depth = int(_max_depth(tree.node_shape))
    if tree.depth < 0:
        raise RuntimeError(f"{game}: the compact tree's arrays are not one tree in preorder")
    tree.build_peak_bytes = peak
    tree.build_seconds = time.perf_counter() - started
    return tree


