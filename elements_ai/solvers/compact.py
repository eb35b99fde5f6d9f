"""A compact game tree (5 bytes a node) and the CFR family, best response and
exploitability on it, for trees too large for ``flat.Tree`` (23 bytes a node).

Layout. Nodes are stored in depth-first preorder, children last first: a node,
then its last child's whole subtree, then the one before, and so on. Children are
implicit in that order, so a node needs no pointer to them, only two arrays::

    node_shape  uint8   kind (two high bits: TERMINAL_KIND, CHANCE_KIND,
                        DECISION_KIND) and number of children (six low bits)
    node_code   uint32  decision: its information set; chance: its row of the
                        chance table; terminal: its row of ``utility``

Information sets, sequences and returns are those of ``flat.Tree`` (the same keys,
128-bit information-state tensor fingerprints, and the same arrays:
``infoset_player``, ``infoset_first``, ``infoset_parent``, ``sequence_action``,
``utility``), numbered in the order this walk first meets them, which is not the
flat tree's: compare the two by key. Chance nodes with the same
outcome probabilities share a row: ``chance_prob[chance_first[row]:]``, as many as
the node has children (games deal from a few deck compositions, so rows are few).

Last child first because a walk then meets the nodes of an information set in the
reverse of the order in which ``flat.Tree`` numbers them, the order in which its
sweeps sum their regrets: on one thread, a tree not cut into tasks (under
``sweeps.PARALLEL_NODES`` nodes) gets the same bits (where an information set's
nodes lie at one depth, as in this library's games), and regrets
that cancel exactly cancel here too (summed in another order, they can leave a
rounding error that regret matching turns into a different policy).

Sweeps. Every pass is one walk over the arrays, front to back, with an explicit
stack as deep as the tree: reach probabilities go down the stack, values come back
up, and no per-node float is stored. A subtree that nobody reaches (reach 0) is
stepped over by reading its shape bytes alone. The number of children in the shape
byte makes that a sequential scan of one byte a node, where reading it from the
information set would be a random access.

Threads. The tree is cut into subtrees (tasks) below a small top; a pass walks the
top once to find each task's reach, the tasks are dealt to ``lanes``, and the top is
walked again to bring their values up. Lane ``l`` takes tasks ``l, l + L, ...`` and
adds into its own per-sequence array; these are summed in lane order. The threads
share out the lanes, so the sums, and every bit of the results, depend on the
number of lanes and not on the number of threads: one thread sums the same partial
sums in the same order as two or sixteen. Lanes default to the machine's core
count (``numba.config.NUMBA_NUM_THREADS``), a constant of the machine, so every
``threads=`` on it gives the same bits; more threads than lanes leave the extra ones
idle. (Summed per thread instead, the regrets of different thread counts differed by
rounding, about 1e-16 relatively, and CFR+'s floor at zero turned that into a
different policy within a few iterations.) The extra memory is 8 bytes a sequence a
lane, nothing per node.

Memory (``memory.compact_tree_bytes``, ``compact_build_bytes``,
``compact_solve_bytes``): 5 bytes a node; 41 an information set and 1 a sequence
in the tree; a solver adds 8 an information set and per sequence 8 (policy), 8 or
4 (regret and cumulative policy each, float64 or float32) and 8 a thread.

Building. A counting walk first, which allocates nothing per node and sketches the
number of distinct information sets and sequences (HyperLogLog); the size is then
checked against memory, and a second walk writes the arrays in preorder, with its
information-set table sized from the sketch (grown if the sketch was low). Only
this library's games (rules kernels) are supported.

>>> import elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> tree = build_compact(game)
>>> tree.num_nodes, tree.num_infosets, tree.node_bytes
(317, 100, 5)
>>> solver = CompactCFRSolver(tree, "cfr+")
>>> solver.run(200)
>>> solver.exploitability() < 1e-3
True
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import time
from typing import Any

import numba as nb
import numpy as np

from ..core.generic import generic, rules
from ..core.kernel import CHANCE, TERMINAL
from ..core.spiel import KernelGame
from .best_response import Evaluation
from .cfr import ALGORITHMS, Settings, _average, settings_for
from .estimate import estimate_tree
from .flat import _mix, fingerprint_into, is_kernel_game
from .kernel_tree import MAX_UTILITY_ROWS, _capacity, _find_or_add, _utility_row
from .memory import (
    COMPACT_INFOSET_BYTES,
    COMPACT_NODE_BYTES,
    COMPACT_SEQUENCE_BYTES,
    TreeTooLarge,
    compact_build_bytes,
    compact_solve_bytes,
    compact_tree_bytes,
    format_bytes,
    memory_budget,
    too_large,
)
from .policy import PolicyTable
from .sweeps import (
    EVERYONE,
    PARALLEL_NODES,
    TASKS,
    add_to_average,
    best_choices,
    check_threads,
    chunk,
    iteration_factors,
    new_counter,
    regret_matching,
    updated_regret,
    using_threads,
)

__all__ = ["CompactCFRSolver", "CompactTree", "build_compact", "evaluate_compact"]

TERMINAL_KIND, CHANCE_KIND, DECISION_KIND = 0, 1, 2
KIND_SHIFT = 6
COUNT_MASK = 63  # at most 63 children a node
MAX_CHANCE_ROWS = 1 << 16
# HyperLogLog registers of the counting walk's sketches (about 0.4% error).
SKETCH_BITS = 16
# The information-set arrays are allocated this much above the sketch's count.
SKETCH_MARGIN = 1.03

# Counters shared by the builder's calls (int64 array).
NODES, DECISIONS, CHANCE_NODES, INFOSETS, SEQUENCES, CHANCE_ROWS, UTILITY_ROWS, STATUS, TOP = range(9)
RUNNING, DONE, TOO_MANY, STACK_FULL, ACTIONS_DIFFER, TABLE_FULL, GROW, NO_RECALL, TOO_WIDE = range(9)
CHUNK = 1 << 20
LANES = nb.config.NUMBA_NUM_THREADS  # the default lanes: the machine's cores, the same for every ``threads``

# Modes of the value walk over the top of a tree.
FIND_REACH, BRING_VALUES = 0, 1


# --- the tree -----------------------------------------------------------------------


@dataclasses.dataclass(eq=False)
class CompactTree:
    """A game tree in preorder, 5 bytes a node (see the module docstring)."""

    game: KernelGame
    node_shape: np.ndarray
    node_code: np.ndarray
    chance_first: np.ndarray
    chance_prob: np.ndarray
    utility: np.ndarray
    infoset_player: np.ndarray
    infoset_first: np.ndarray
    infoset_parent: np.ndarray
    sequence_action: np.ndarray
    keys: np.ndarray
    depth: int = 0
    build_seconds: float = 0.0
    build_peak_bytes: int = 0
    _plans: dict = dataclasses.field(default_factory=dict, repr=False)

    node_bytes = COMPACT_NODE_BYTES

    def __post_init__(self):
        self.num_players = self.game.num_players()
        order = np.argsort(self.infoset_player, kind="stable").astype(np.int32)
        counts = np.bincount(self.infoset_player, minlength=self.num_players)
        self.player_first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.player_infosets = order
        # The information set of each parent sequence (-1: none), for the own reach
        # of an information set: per information set, not per sequence.
        parent_infoset = np.searchsorted(self.infoset_first, self.infoset_parent, side="right") - 1
        self.infoset_parent_infoset = np.where(self.infoset_parent < 0, -1, parent_infoset).astype(np.int32)

    @property
    def num_nodes(self) -> int:
        return int(self.node_shape.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_sequences(self) -> int:
        return int(self.sequence_action.shape[0])

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.node_shape >> KIND_SHIFT == TERMINAL_KIND))

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's arrays."""
        return sum(value.nbytes for value in vars(self).values() if isinstance(value, np.ndarray))

    def describe(self) -> str:
        return (
            f"{self.num_nodes:,} nodes, {self.num_infosets:,} information sets, {self.num_sequences:,} sequences; "
            f"{format_bytes(self.nbytes)} ({self.nbytes / max(self.num_nodes, 1):.2f} bytes a node), "
            f"built in {self.build_seconds:.2f} s"
        )

    def plan(self, task_nodes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The tasks the sweeps share among threads: ``(start, stop)`` int64 arrays
        of subtrees, in increasing order, of at most ``task_nodes`` nodes each (by
        default ``num_nodes / TASKS``; none, the whole tree on one thread, below
        ``sweeps.PARALLEL_NODES`` nodes)."""
        nodes = self.num_nodes
        if task_nodes is None:
            task_nodes = 0 if nodes < PARALLEL_NODES else -(-nodes // TASKS)
        if task_nodes not in self._plans:
            self._plans[task_nodes] = _split(self.node_shape, task_nodes)
        return self._plans[task_nodes]

    def legal_actions(self, infoset: int) -> np.ndarray:
        return self.sequence_action[self.infoset_first[infoset] : self.infoset_first[infoset + 1]]


# --- walking the structure ------------------------------------------------------------


@nb.njit(cache=True)
def _subtree_stop(node_shape, pos):
    """Where the subtree at ``pos`` ends: each node read opens its children and
    closes itself."""
    open_nodes = np.int64(1)
    while open_nodes > 0:
        open_nodes += np.int64(node_shape[pos] & COUNT_MASK) - 1
        pos += 1
    return pos


@nb.njit(cache=True)
def _max_depth(node_shape):
    """The number of internal nodes on the longest path; -1 if the arrays are not
    one tree in preorder."""
    left = np.zeros(256, np.int64)  # children still to come at each open level
    depth = 0
    deepest = 0
    for pos in range(node_shape.shape[0]):
        if depth == 0 and pos > 0:
            return -1  # the root's subtree ended before the arrays
        count = node_shape[pos] & COUNT_MASK
        if count > 0:
            if depth >= left.shape[0]:
                return -1
            left[depth] = count
            depth += 1
            deepest = max(deepest, depth)
        else:
            # A finished child may finish its parent, and so on up.
            while depth > 0:
                left[depth - 1] -= 1
                if left[depth - 1] > 0:
                    break
                depth -= 1
    return deepest if depth == 0 else -1


def _split(node_shape: np.ndarray, task_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Subtrees of at most ``task_nodes`` nodes, cut by splitting the largest one
    into its children until none is larger (the nodes split join the top)."""
    if task_nodes <= 0 or node_shape.shape[0] <= 1:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    heap = [(-node_shape.shape[0], 0, node_shape.shape[0])]
    tasks = []
    while heap:
        size, start, stop = heapq.heappop(heap)
        if -size <= task_nodes:
            tasks.append((start, stop))
            continue
        child = start + 1
        for _ in range(int(node_shape[start] & COUNT_MASK)):
            end = int(_subtree_stop(node_shape, child))
            if end - child > 1:  # a terminal child stays in the top
                heapq.heappush(heap, (child - end, child, end))
            child = end
    tasks.sort()
    return np.array([t[0] for t in tasks], np.int64), np.array([t[1] for t in tasks], np.int64)


# --- the builder --------------------------------------------------------------------


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
                    base = counters[SEQUENCES]
                    k = 0
                    for a in range(mask.shape[0]):
                        if mask[a]:
                            sequence_action[base + k] = a
                            k += 1
                    counters[SEQUENCES] += count
                    infoset_first[infoset + 1] = counters[SEQUENCES]
                else:
                    base = infoset_first[infoset]
                    same = infoset_first[infoset + 1] - base == count
                    k = 0
                    for a in range(mask.shape[0]):
                        if mask[a] and same:
                            same = sequence_action[base + k] == a
                            k += 1
                    if not same:
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
    from ..progress import progress_bar

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


# --- CFR ------------------------------------------------------------------------------


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
            lane, lanes, player, task_start, task_stop, task_reach, task_value, node_shape, node_code, chance_first,
            chance_prob, infoset_player, infoset_first, utility, policy, instant, depth, width,
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
            _value_tasks(
                0, 1, player, task_start, task_stop, task_reach, task_value, node_shape, node_code, chance_first,
                chance_prob, infoset_player, infoset_first, utility, policy, instant, depth, width,
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


# --- best response and on-policy values -------------------------------------------------


@nb.njit(cache=True)
def _reach_walk(
    pos,
    reach,
    last,
    player,
    task_start,
    task_stop,
    task_reach,
    task_last,
    node_shape,
    node_code,
    chance_first,
    chance_prob,
    infoset_player,
    infoset_first,
    utility,
    policy,
    sequence_value,
    root_value,
    frame_next,
    frame_reach,
    frame_base,
    frame_who,
    frame_last,
):
    """Pushes reach down the subtree at ``pos`` and adds each terminal's returns,
    weighted by its reach, where they count:

    * ``player`` ``EVERYONE``: reach of every player and chance, every player's
      return into ``root_value[p]`` (the on-policy values);
    * else: reach of chance and the others, ``player``'s return into
      ``sequence_value`` at the last sequence ``player`` played (``root_value[0]``
      before any), the first step of best response in sequence form.

    Subtrees starting a task get their reach and last sequence written instead.
    """
    num_tasks = task_start.shape[0]
    next_task = 0
    while next_task < num_tasks and task_start[next_task] < pos:
        next_task += 1
    depth = -1
    r = reach
    own = last
    while True:
        shape = node_shape[pos]
        kind = shape >> KIND_SHIFT
        if next_task < num_tasks and pos == task_start[next_task]:
            task_reach[next_task] = r
            task_last[next_task] = own
            pos = task_stop[next_task]
            next_task += 1
        elif r == 0.0:
            pos = _subtree_stop(node_shape, pos)
            while next_task < num_tasks and task_start[next_task] < pos:
                task_reach[next_task] = 0.0
                next_task += 1
        elif kind == TERMINAL_KIND:
            row = node_code[pos]
            if player == EVERYONE:
                for p in range(utility.shape[1]):
                    root_value[p] += r * utility[row, p]
            elif own < 0:
                root_value[0] += r * utility[row, player]
            else:
                sequence_value[own] += r * utility[row, player]
            pos += 1
        else:
            depth += 1
            index = node_code[pos]
            k = (shape & COUNT_MASK) - 1
            frame_next[depth] = k
            frame_reach[depth] = r
            frame_last[depth] = own
            if kind == CHANCE_KIND:
                base = chance_first[index]
                frame_who[depth] = CHANCE
                r = r * chance_prob[base + k]
            else:
                base = infoset_first[index]
                who = infoset_player[index]
                frame_who[depth] = who
                if who == player:
                    own = base + k
                else:
                    r = r * policy[base + k]
            frame_base[depth] = base
            pos += 1
            continue
        while True:
            if depth < 0:
                return pos
            k = frame_next[depth] - 1
            if k >= 0:
                frame_next[depth] = k
                base = frame_base[depth]
                who = frame_who[depth]
                r = frame_reach[depth]
                own = frame_last[depth]
                if who == CHANCE:
                    r = r * chance_prob[base + k]
                elif who == player:
                    own = base + k
                else:
                    r = r * policy[base + k]
                break
            depth -= 1


@nb.njit(cache=True)
def _reach_tasks(
    lane, lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
    chance_prob, infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
):
    frames = _reach_frames(depth)
    none = task_start[:0]
    for t in range(lane, task_start.shape[0], lanes):
        if task_reach[t] != 0.0:
            _reach_walk(
                task_start[t], task_reach[t], task_last[t], player, none, none, task_reach[:0], task_last[:0],
                node_shape, node_code, chance_first, chance_prob, infoset_player, infoset_first, utility, policy,
                sequence_value[lane], root_value[lane], *frames,
            )


@nb.njit(cache=True, parallel=True)
def _reach_threads(
    lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first, chance_prob,
    infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
):
    for lane in nb.prange(lanes):
        _reach_tasks(
            lane, lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
            chance_prob, infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
        )


@nb.njit(cache=True)
def _reach_frames(depth):
    return (
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1),
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1, np.int64),
    )


@nb.njit(cache=True)
def reach_pass(
    player, lanes, task_start, task_stop, node_shape, node_code, chance_first, chance_prob, infoset_player,
    infoset_first, utility, policy, sequence_value, root_value, depth,
):
    """``_reach_walk`` over the whole tree: the top, then the tasks on ``lanes``
    threads, each thread into its row of ``sequence_value`` and ``root_value``."""
    task_reach = np.zeros(task_start.shape[0])
    task_last = np.full(task_start.shape[0], -1, np.int64)
    _reach_walk(
        0, 1.0, -1, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
        chance_prob, infoset_player, infoset_first, utility, policy, sequence_value[0], root_value[0],
        *_reach_frames(depth),
    )
    if lanes > 1:
        _reach_threads(
            lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
            chance_prob, infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
        )
    elif task_start.shape[0] > 0:
        _reach_tasks(
            0, 1, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
            chance_prob, infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
        )


@nb.njit(cache=True)
def _sum_rows(rows):
    """Sums the rows of ``rows`` into the first, in order; clears the others."""
    for i in range(rows.shape[1]):
        total = rows[0, i]
        for lane in range(1, rows.shape[0]):
            total += rows[lane, i]
            rows[lane, i] = 0.0
        rows[0, i] = total


def _lanes(task_start: np.ndarray, lanes: int | None = None) -> int:
    """The lanes a pass deals its tasks to: ``lanes`` (default ``LANES``), at most one a task."""
    if lanes is not None and (not isinstance(lanes, (int, np.integer)) or isinstance(lanes, bool) or lanes < 1):
        raise ValueError(f"lanes must be an integer >= 1, got {lanes!r}")
    return max(1, min(LANES if lanes is None else int(lanes), task_start.shape[0]))


def compact_probs(tree: CompactTree, table: PolicyTable) -> np.ndarray:
    """A ``PolicyTable`` of ``tree``'s game as one probability per sequence of the
    compact tree (information sets matched by key; missing ones uniform where the
    table allows it)."""
    if table.key_kind != "tensor":
        raise ValueError("the policy is keyed by information-state strings; the compact tree matches tensor keys")
    if np.array_equal(table.keys, tree.keys) and np.array_equal(table.infoset_first, tree.infoset_first):
        return np.ascontiguousarray(table.probs, np.float64)  # saved from this tree: same order
    out = np.empty(tree.num_sequences)
    for infoset in range(tree.num_infosets):
        first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
        row = table.find((int(tree.keys[infoset, 0]), int(tree.keys[infoset, 1])))
        if row < 0:
            if not table.default_uniform:
                raise KeyError(f"the policy holds no entry for information set {infoset} of the compact tree")
            out[first:stop] = 1.0 / (stop - first)
            continue
        actions, probs = table.actions_and_probs(row)
        if not np.array_equal(actions, tree.sequence_action[first:stop]):
            raise ValueError(f"the policy's legal actions differ from the game's at information set {infoset}")
        out[first:stop] = probs
    return out


def evaluate_compact(
    tree: CompactTree,
    probs: np.ndarray,
    threads: int | None = None,
    rows: np.ndarray | None = None,
    task_nodes: int | None = None,
    lanes: int | None = None,
) -> Evaluation:
    """NashConv, exploitability and values of the policy ``probs`` (one probability
    per sequence) on a compact tree, on ``threads`` cores (default every core);
    ``lanes`` as ``CompactCFRSolver``'s, so any ``threads`` gives the same bits.

    ``rows``, a float64 array ``(lanes, num_sequences)`` of zeros, is used as
    scratch if given (a solver lends its regret rows; best response then needs no
    per-sequence array of its own) and left zero.

    >>> import elements_ai
    >>> from elements_ai.solvers import build_tree, evaluate_probs, uniform_probs
    >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
    >>> compact, flat = build_compact(game), build_tree(game)
    >>> mine, theirs = evaluate_compact(compact, uniform_probs(compact)), evaluate_probs(flat, uniform_probs(flat))
    >>> abs(mine.nash_conv - theirs.nash_conv) < 1e-12
    True
    """
    probs = np.ascontiguousarray(probs, np.float64)
    if probs.shape != (tree.num_sequences,):
        raise ValueError(f"a policy on this tree has {tree.num_sequences} probabilities, got shape {probs.shape}")
    task_start, task_stop = tree.plan(task_nodes)
    args = (tree.node_shape, tree.node_code, tree.chance_first, tree.chance_prob, tree.infoset_player,
            tree.infoset_first, tree.utility, probs)
    lanes = _lanes(task_start, lanes)
    with using_threads(threads):
        if rows is None or rows.shape[0] < lanes:
            rows = np.zeros((lanes, tree.num_sequences))
        players = tree.num_players
        root_rows = np.zeros((lanes, players))
        reach_pass(EVERYONE, lanes, task_start, task_stop, *args, rows[:lanes], root_rows, tree.depth)
        values = [float(v) for v in _column_sums(root_rows)]
        best = []
        no_choices = np.zeros(0, np.int64)
        for player in range(players):
            root_rows[:] = 0.0
            reach_pass(player, lanes, task_start, task_stop, *args, rows[:lanes], root_rows, tree.depth)
            # The threads' rows summed into the first, which then holds the values of
            # the sequences (no other per-sequence array) and is cleared after.
            _sum_rows(rows[:lanes])
            root = float(_column_sums(root_rows)[0])
            infosets = tree.player_infosets[tree.player_first[player] : tree.player_first[player + 1]]
            best.append(float(best_choices(infosets, tree.infoset_first, tree.infoset_parent, rows[0], root,
                                            no_choices)))
            rows[0, :] = 0.0
    nash_conv = float(sum(b - v for b, v in zip(best, values)))
    return Evaluation(
        nash_conv=nash_conv,
        exploitability=nash_conv / players,
        best_response_values=tuple(best),
        policy_values=tuple(values),
    )


def _column_sums(rows: np.ndarray) -> np.ndarray:
    out = np.zeros(rows.shape[1])
    for lane in range(rows.shape[0]):
        out += rows[lane]
    return out


# --- the solver -----------------------------------------------------------------------


class CompactCFRSolver:
    """The CFR family (``cfr.ALGORITHMS``) on a ``CompactTree``: the iterates of
    ``CFRSolver`` (the same updates in the same order; sums in another order, so
    equal to rounding), in memory per sequence and none per node.

    ``game`` is one of this library's games (its compact tree is built) or a
    ``CompactTree``. ``accumulator`` ``"float32"`` keeps regrets, cumulative
    policy and predictions in float32 (4 bytes a sequence each instead of 8).
    ``threads``: cores to use (default every core numba has). ``lanes``: the
    per-sequence partial sums the subtrees are dealt to (default the machine's core
    count; 8 bytes a sequence each): the results depend on them, not on ``threads``,
    which share them out. ``task_nodes``: the size of the subtrees (see
    ``CompactTree.plan``).

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6", hand_size=2)
    >>> solver = CompactCFRSolver(game, "dcfr", threads=1)
    >>> solver.run(50)
    >>> solver.exploitability() < 0.01
    True
    """

    def __init__(
        self,
        game: KernelGame | CompactTree,
        algorithm: str = "cfr+",
        *,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        accumulator: str = "float64",
        max_memory: float | None = None,
        progress: bool = False,
        threads: int | None = None,
        task_nodes: int | None = None,
        lanes: int | None = None,
    ):
        self.settings: Settings = settings_for(algorithm, alpha=alpha, beta=beta, gamma=gamma)
        if accumulator not in ("float64", "float32"):
            raise ValueError(f"accumulator must be 'float64' or 'float32', got {accumulator!r}")
        self.threads = check_threads(threads)
        self.tree = game if isinstance(game, CompactTree) else build_compact(game, max_memory, progress)
        tree = self.tree
        self.task_nodes = task_nodes
        task_start, _ = tree.plan(task_nodes)
        self.lanes = lanes = _lanes(task_start, lanes)
        needed = compact_solve_bytes(
            tree.num_infosets, tree.num_sequences, lanes, np.dtype(accumulator).itemsize, self.settings.predictive
        )
        if needed > memory_budget(max_memory):
            size = f"{tree.num_infosets:,} information sets, {tree.num_sequences:,} sequences"
            raise too_large(tree.game, size, needed, max_memory)
        sequences = tree.num_sequences
        self.policy = np.empty(sequences)
        _average(tree.infoset_first, np.zeros(sequences), self.policy)  # uniform
        self.regret = np.zeros(sequences, accumulator)
        self.cumulative = np.zeros(sequences, accumulator)
        self.prediction = np.zeros(sequences if self.settings.predictive else 0, accumulator)
        self._instant = np.zeros((lanes, sequences))
        self._own_reach = np.zeros(tree.num_infosets)
        self.iteration = 0
        self.seconds = 0.0

    @property
    def algorithm(self) -> str:
        return self.settings.algorithm

    @property
    def game(self) -> KernelGame:
        return self.tree.game

    @property
    def nbytes(self) -> int:
        """Bytes of the solver's own arrays (the tree's not included)."""
        arrays = (self.policy, self.regret, self.cumulative, self.prediction, self._instant, self._own_reach)
        return sum(a.nbytes for a in arrays)

    def run(self, iterations: int) -> None:
        """Runs ``iterations`` more iterations."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        tree, s = self.tree, self.settings
        task_start, task_stop = tree.plan(self.task_nodes)
        started = time.perf_counter()
        lanes = self.lanes
        with using_threads(self.threads) as threads:
            _run(
                int(iterations), self.iteration, lanes, threads, task_start, task_stop, tree.node_shape, tree.node_code,
                tree.chance_first, tree.chance_prob, tree.infoset_player, tree.infoset_first, tree.infoset_parent,
                tree.infoset_parent_infoset, tree.player_first, tree.player_infosets, tree.utility, self.policy,
                self.regret, self.cumulative, self.prediction, self._instant[:lanes], self._own_reach, tree.depth,
                COUNT_MASK + 1, s.regret_floor, s.discount, s.alpha, s.beta, s.gamma,
            )
        self.seconds += time.perf_counter() - started
        self.iteration += int(iterations)

    def average_probs(self) -> np.ndarray:
        """The average policy, one probability per sequence."""
        out = np.empty(self.tree.num_sequences)
        _average(self.tree.infoset_first, self.cumulative, out)
        return out

    def info(self) -> dict[str, Any]:
        return {
            "settings": self.settings.to_dict(),
            "iterations": self.iteration,
            "seconds": round(self.seconds, 3),
            "layout": "compact",
            "accumulator": str(self.regret.dtype),
            "lanes": self.lanes,
        }

    def average_policy(self) -> PolicyTable:
        """The average policy as a ``PolicyTable`` (to save, play or evaluate)."""
        t = self.tree
        return PolicyTable(t.game, t.keys, t.infoset_player, t.infoset_first, t.sequence_action,
                           self.average_probs(), self.info())

    def evaluate(self) -> Evaluation:
        """NashConv, exploitability and the values of the average policy."""
        return evaluate_compact(self.tree, self.average_probs(), self.threads, self._instant, self.task_nodes,
                                self.lanes)

    def nash_conv(self) -> float:
        return self.evaluate().nash_conv

    def exploitability(self) -> float:
        return self.evaluate().exploitability

    def save(self, path) -> None:
        """Writes the average policy and the solver's state to ``path`` (a ``.npz``
        that ``cfr:policy=`` plays); ``CompactCFRSolver.load`` resumes from it."""
        state = {"regret": self.regret, "cumulative": self.cumulative, "current": self.policy,
                 "prediction": self.prediction}
        self.average_policy().save(path, solver_state=state)

    @classmethod
    def load(
        cls, path, game: KernelGame | CompactTree | None = None, *, threads: int | None = None,
        max_memory: float | None = None, progress: bool = False,
    ) -> CompactCFRSolver:
        """The solver saved at ``path`` by ``save``, ready to run more iterations:
        the same lanes and accumulators, so the same iterates as a run that never
        stopped. The compact tree is rebuilt (or ``game`` given as a
        ``CompactTree`` is used); its information sets must be those of the file.

        >>> import elements_ai, os, tempfile
        >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6", hand_size=2)
        >>> solver = CompactCFRSolver(game, "cfr+", threads=1)
        >>> solver.run(10)
        >>> path = os.path.join(tempfile.mkdtemp(), "small.npz")
        >>> solver.save(path)
        >>> again = CompactCFRSolver.load(path, threads=1)
        >>> again.run(10); solver.run(10)
        >>> bool((again.average_probs() == solver.average_probs()).all())
        True
        """
        table, state = PolicyTable.load_with_state(path, game.game if isinstance(game, CompactTree) else game)
        if state is None:
            raise ValueError(f"{path}: the file holds a policy but no solver state (saved without it)")
        info = table.info
        if info.get("layout") != "compact":
            raise ValueError(f"{path}: saved by the flat-tree solver (CFRSolver.load resumes it), not the compact one")
        settings = info.get("settings", {})
        if settings.get("algorithm") not in ALGORITHMS:
            raise ValueError(f"{path}: unknown algorithm {settings.get('algorithm')!r} in the file")
        tree = game if isinstance(game, CompactTree) else build_compact(table.game, max_memory, progress)
        if table.key_kind != "tensor" or not np.array_equal(table.keys, tree.keys) or not np.array_equal(
            table.infoset_first, tree.infoset_first
        ):
            raise ValueError(f"{path}: the file's information sets are not those of the compact tree of {tree.game}")
        solver = cls(tree, settings["algorithm"], accumulator=info.get("accumulator", "float64"),
                     max_memory=max_memory, threads=threads, lanes=int(info.get("lanes", 0)) or None)
        solver.settings = Settings(**settings)
        for name, array in (("regret", solver.regret), ("cumulative", solver.cumulative),
                            ("current", solver.policy), ("prediction", solver.prediction)):
            if state[name].shape != array.shape:
                raise ValueError(f"{path}: its {name} has shape {state[name].shape}, the tree needs {array.shape}")
            array[:] = state[name]
        solver.iteration = int(info.get("iterations", 0))
        solver.seconds = float(info.get("seconds", 0.0))
        return solver


# The figures memory.py's formulas use, checked against the arrays above.
assert COMPACT_NODE_BYTES == np.dtype(np.uint8).itemsize + np.dtype(np.uint32).itemsize
assert COMPACT_INFOSET_BYTES > 0 and COMPACT_SEQUENCE_BYTES > 0
