"""The compact tree's format: its arrays, its shape bytes and how a walk cuts it into tasks."""

from __future__ import annotations

import dataclasses
import heapq

import numba as nb
import numpy as np

from ...core.spiel import KernelGame
from ..memory import COMPACT_NODE_BYTES, format_bytes
from ..sweeps import PARALLEL_NODES, TASKS

__all__ = ["CompactTree"]

TERMINAL_KIND, CHANCE_KIND, DECISION_KIND = 0, 1, 2
KIND_SHIFT = 6
COUNT_MASK = 63  # at most 63 children a node
LANES = nb.config.NUMBA_NUM_THREADS  # the default lanes: the machine's cores, the same for every ``threads``


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


