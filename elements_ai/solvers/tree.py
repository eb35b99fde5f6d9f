"""Game trees flattened into arrays: what the tabular solvers iterate over.

A ``Tree`` holds every history of a game as a node in a few flat arrays. Nodes are
numbered so that a parent comes before its children and the children of a node
are consecutive (``first[n] .. first[n] + count[n] - 1``): one forward sweep
pushes reach probabilities down the tree, one backward sweep pulls values up.

Node arrays (length ``num_nodes``)::

    node_player   int8   player to move, CHANCE (-1) or TERMINAL (-4)
    node_first    int32  first child
    node_count    int16  number of children (0 at a terminal)
    node_index    int32  decision node: its information set; chance node: where
                         its outcomes start in ``chance_prob``/``chance_action``;
                         terminal: its row of ``utility``

Information sets (length ``num_infosets``), numbered in the order the depth-first
walk first meets them, so an information set comes after every information set
that its player passed through before reaching it::

    infoset_player  int8
    infoset_first   int64  its sequences are infoset_first[i] .. infoset_first[i+1]-1
    infoset_parent  int64  the sequence its player last played before reaching it
                           (-1: none); the same from every history (perfect recall)
    infoset_node    int32  one node of the information set

Sequences (an information set and one of its legal actions, in increasing action
order; length ``num_sequences``): ``sequence_action`` int32. The children of a
decision node follow its information set's sequences in the same order, so a
policy is one float per sequence. Chance outcomes: ``chance_prob`` float64,
``chance_action`` int32. ``utility`` float64 ``(rows, players)`` holds each
distinct returns vector once (most games have a handful).

Two builders make the same tree (the same arrays, node for node): from any
``pyspiel`` game in Python, keyed by ``information_state_string``, and straight
from a game's rules kernel in numba, keyed by a 128-bit fingerprint of the
information-state tensor (``build_tree`` picks the kernel builder for the games of
this library). Before building, the size of the tree is estimated by random walks
(Knuth's estimator) and a tree that would not fit in memory raises ``TreeTooLarge``.

>>> import pyspiel
>>> tree = build_tree(pyspiel.load_game("kuhn_poker"))
>>> tree.num_nodes, tree.num_infosets, tree.num_sequences
(58, 12, 24)
>>> tree.infoset_key(0), tree.legal_actions(0).tolist()
('0', [0, 1])
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable

import numba as nb
import numpy as np
import pyspiel

from ..core.kernel import CHANCE, TERMINAL
from ..core.spiel import KernelState

__all__ = [
    "Tree",
    "TreeEstimate",
    "TreeTooLarge",
    "build_tree",
    "estimate_tree",
    "build_bytes",
    "machine_memory",
    "solve_bytes",
    "tree_from_pyspiel",
]

# Memory, in bytes, of a tabular solve. The tree keeps per node its player (1), first
# child (4), child count (2) and index (4); the solver one float64 per node (reach down,
# values up, in place) and best response an int32 (the last own sequence).
TREE_NODE_BYTES = 1 + 4 + 2 + 4
SOLVE_NODE_BYTES = 8 + 4
NODE_BYTES = TREE_NODE_BYTES + SOLVE_NODE_BYTES
# Per sequence: its action and information set (4 + 4), the solver's regret,
# cumulative and current policy, prediction and scratch (5 * 8), best response's value.
SEQUENCE_BYTES = 4 + 4 + 5 * 8 + 8
# Per information set: player, first sequence, parent sequence, a node (1 + 8 + 8 + 4),
# its key (16), the per-player list (4), own reach and best response (8 + 8).
INFOSET_BYTES = 1 + 8 + 8 + 4 + 16 + 4 + 8 + 8
# While the kernel builder fills a tree, its information-set arrays are sized for
# every decision node (key, player, first sequence, node, and the hash table at up to
# four int32 slots each), its sequences for every edge out of a decision node.
BUILD_DECISION_BYTES = 16 + 1 + 8 + 4 + 16
BUILD_EDGE_BYTES = 4
# The pyspiel builder keeps Python lists while it walks: about this much per node.
PYSPIEL_NODE_BYTES = 150


def solve_bytes(nodes: float, infosets: float, sequences: float) -> float:
    """Bytes a tabular solver (and its exact best response) needs for a tree of this size."""
    return nodes * NODE_BYTES + sequences * SEQUENCE_BYTES + infosets * INFOSET_BYTES


def build_bytes(nodes: float, decision_nodes: float, decision_edges: float) -> float:
    """Peak bytes of the kernel builder, which sizes its information sets from the decision nodes."""
    return nodes * TREE_NODE_BYTES + decision_nodes * BUILD_DECISION_BYTES + decision_edges * BUILD_EDGE_BYTES


# Trees estimated smaller than this build without a progress bar (under a second).
PROGRESS_NODES = 200_000
# Nodes are numbered with int32.
MAX_NODES = 2**31 - 1


class TreeTooLarge(MemoryError):
    """The game tree would not fit in memory (the message gives the estimate)."""


def machine_memory() -> tuple[int, int]:
    """This machine's total and available memory in bytes (available: MemAvailable
    from ``/proc/meminfo`` where there is one, else the total)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    available = total
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return total, available


def _gb(nbytes: float) -> str:
    return f"{nbytes / 1e9:.3g} GB"


@dataclasses.dataclass(frozen=True)
class TreeEstimate:
    """The size of a game tree estimated by random walks (Knuth 1975).

    Each walk goes from the root to a terminal choosing uniformly among the children
    and adds up the products of the branching factors met: an unbiased estimate of
    the number of nodes at each depth. ``*_error`` are standard errors over walks.
    """

    nodes: float
    decision_nodes: float
    sequences: float  # edges out of decision nodes: an upper bound on sequences
    walks: int
    nodes_error: float

    @property
    def nbytes(self) -> float:
        """Bytes needed at least to build this tree and solve it: the builder's peak
        and the solver's per-node arrays (information sets and sequences, unknown
        before building, add to this)."""
        return build_bytes(self.nodes, self.decision_nodes, self.sequences) + self.nodes * SOLVE_NODE_BYTES

    def describe(self) -> str:
        return (
            f"about {self.nodes:.3g} nodes (± {self.nodes_error:.2g}, from {self.walks} random walks), "
            f"{self.decision_nodes:.3g} decision nodes, needing at least {_gb(self.nbytes)} to build and solve"
        )


def estimate_tree(game: pyspiel.Game, walks: int = 2000, seed: int = 0) -> TreeEstimate:
    """Estimates the size of ``game``'s tree from ``walks`` uniformly random walks.

    Uses the rules kernel in numba for this library's games, ``pyspiel`` states
    otherwise.

    >>> import pyspiel
    >>> estimate = estimate_tree(pyspiel.load_game("kuhn_poker"), walks=500)
    >>> 40 < estimate.nodes < 80
    True
    """
    from .kernel_tree import estimate_kernel_tree, is_kernel_game

    _check_game(game)
    if is_kernel_game(game):
        samples = estimate_kernel_tree(game, walks, seed)
    else:
        samples = _walk_samples_pyspiel(game, walks, seed)
    nodes, decisions, edges = samples[:, 0], samples[:, 1], samples[:, 2]
    scale = max(float(nodes.max()), 1.0)  # the squares of 1e133 nodes would overflow
    error = float((nodes / scale).std(ddof=1) * scale / math.sqrt(walks)) if walks > 1 else math.inf
    return TreeEstimate(float(nodes.mean()), float(decisions.mean()), float(edges.mean()), walks, error)


def _walk_samples_pyspiel(game: pyspiel.Game, walks: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.zeros((walks, 3))
    for w in range(walks):
        state = game.new_initial_state()
        weight = nodes = 1.0
        decisions = edges = 0.0
        while not state.is_terminal():
            children = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            if not state.is_chance_node():
                decisions += weight
                edges += weight * len(children)
            weight *= len(children)
            nodes += weight
            state.apply_action(children[rng.integers(len(children))])
        out[w] = nodes, decisions, edges
    return out


def memory_budget(max_memory: float | None = None) -> float:
    """``max_memory``, or by default 90% of the memory available now."""
    return 0.9 * machine_memory()[1] if max_memory is None else float(max_memory)


def too_large(game, size: str, needed: float, max_memory: float | None) -> TreeTooLarge:
    """The error for a tree of ``size`` (a phrase) needing ``needed`` bytes."""
    total, available = machine_memory()
    return TreeTooLarge(
        f"{game}: the game tree has {size}, needing {_gb(needed)}; this machine has {_gb(total)} of memory "
        f"({_gb(available)} available, budget {_gb(memory_budget(max_memory))}). Solve a smaller variant, or use "
        "MCCFR (elements-ai solve --algorithm os-mccfr), which samples the game without building the tree."
    )


def check_fits(game: pyspiel.Game, estimate: TreeEstimate, max_memory: float | None = None, pyspiel_builder=False):
    """Raises ``TreeTooLarge`` when the estimated tree needs more than ``max_memory``
    bytes (default: 90% of the memory available now)."""
    needed = estimate.nbytes + (estimate.nodes * PYSPIEL_NODE_BYTES if pyspiel_builder else 0.0)
    # Three standard errors above the estimate: a tree that may well be larger is
    # refused before an hour of building, not after.
    worst = needed * (1 + 3 * estimate.nodes_error / max(estimate.nodes, 1.0))
    if estimate.nodes > MAX_NODES or worst > memory_budget(max_memory):
        raise too_large(game, estimate.describe(), worst, max_memory)


def _check_game(game: pyspiel.Game) -> None:
    if not isinstance(game, pyspiel.Game):
        raise TypeError(f"expected a pyspiel.Game (e.g. elements_ai.load_game(...)), got {type(game).__name__}")
    game_type = game.get_type()
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(
            f"{game}: the tabular solvers need a sequential game; wrap a simultaneous game with "
            "pyspiel.convert_to_turn_based first"
        )
    if not game_type.provides_information_state_string and not game_type.provides_information_state_tensor:
        raise ValueError(f"{game}: the game provides no information state, so its information sets are unknown")


@dataclasses.dataclass(eq=False)
class Tree:
    """A game's tree of histories flattened into arrays (see the module docstring)."""

    game: pyspiel.Game
    node_player: np.ndarray
    node_first: np.ndarray
    node_count: np.ndarray
    node_index: np.ndarray
    chance_prob: np.ndarray
    chance_action: np.ndarray
    utility: np.ndarray
    infoset_player: np.ndarray
    infoset_first: np.ndarray
    infoset_parent: np.ndarray
    infoset_node: np.ndarray
    sequence_action: np.ndarray
    # Keys of the information sets: their information-state strings (a list), or a
    # uint64 (num_infosets, 2) array of information-state tensor fingerprints.
    keys: list[str] | np.ndarray
    build_seconds: float = 0.0
    _lookup: dict | None = dataclasses.field(default=None, repr=False)
    _parents: np.ndarray | None = dataclasses.field(default=None, repr=False)

    def __post_init__(self):
        self.num_players = self.game.num_players()
        # Each player's information sets, in increasing order.
        order = np.argsort(self.infoset_player, kind="stable").astype(np.int32)
        counts = np.bincount(self.infoset_player, minlength=self.num_players)
        self.player_first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.player_infosets = order
        self.sequence_infoset = np.repeat(
            np.arange(self.num_infosets, dtype=np.int32), np.diff(self.infoset_first)
        ).astype(np.int32)

    @property
    def key_kind(self) -> str:
        """``"string"`` (information-state strings) or ``"tensor"`` (tensor fingerprints)."""
        return "string" if isinstance(self.keys, list) else "tensor"

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_sequences(self) -> int:
        return int(self.sequence_action.shape[0])

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.node_player == TERMINAL))

    @property
    def solve_nbytes(self) -> float:
        """Bytes a tabular solver and exact best response need on this tree."""
        return solve_bytes(self.num_nodes, self.num_infosets, self.num_sequences)

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's arrays."""
        return sum(
            value.nbytes for value in vars(self).values() if isinstance(value, np.ndarray)
        )

    def describe(self) -> str:
        return (
            f"{self.num_nodes:,} nodes ({self.num_terminals:,} terminal), {self.num_infosets:,} information sets, "
            f"{self.num_sequences:,} sequences; {_gb(self.nbytes)}, built in {self.build_seconds:.2f} s"
        )

    def legal_actions(self, infoset: int) -> np.ndarray:
        """The legal actions of an information set, in sequence order."""
        return self.sequence_action[self.infoset_first[infoset] : self.infoset_first[infoset + 1]]

    def infoset_key(self, infoset: int) -> str | tuple[int, int]:
        """The key of an information set: its string, or its tensor fingerprint."""
        if isinstance(self.keys, list):
            return self.keys[infoset]
        return (int(self.keys[infoset, 0]), int(self.keys[infoset, 1]))

    def find_infoset(self, key) -> int:
        """The information set with this key (``infoset_key``), or -1."""
        if self._lookup is None:
            self._lookup = {self.infoset_key(i): i for i in range(self.num_infosets)}
        return self._lookup.get(key, -1)

    def history(self, node: int) -> list[int]:
        """The actions (chance outcomes included) from the root to ``node``."""
        if self._parents is None:
            self._parents = _node_parents(self.node_player, self.node_first, self.node_count)
        actions = []
        while node > 0:
            parent = int(self._parents[node])
            k = node - int(self.node_first[parent])
            if self.node_player[parent] == CHANCE:
                actions.append(int(self.chance_action[self.node_index[parent] + k]))
            else:
                actions.append(int(self.sequence_action[self.infoset_first[self.node_index[parent]] + k]))
            node = parent
        return actions[::-1]

    def state(self, infoset: int) -> pyspiel.State:
        """A state of the information set (the first history the walk met)."""
        state = self.game.new_initial_state()
        for action in self.history(int(self.infoset_node[infoset])):
            state.apply_action(action)
        return state

    def key_of_state(self, state: pyspiel.State) -> str | tuple[int, int]:
        """The key this tree gives the information set of ``state``'s player to move."""
        return state_key(state, self.key_kind)


def state_key(state: pyspiel.State, kind: str) -> str | tuple[int, int]:
    """The key of the information set of the player to move, as a tree of ``kind`` keys it."""
    player = state.current_player()
    if kind == "string":
        return state.information_state_string(player)
    if isinstance(state, KernelState):
        game = state.get_game()
        tensor = np.zeros(game.config.info_size, np.float32)
        game.kernel.encode_information_state(game.cfg, state.array, player, tensor)
    else:
        tensor = np.asarray(state.information_state_tensor(player), np.float32)
    h = fingerprint(tensor, player)
    return (int(h[0]), int(h[1]))


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SEED_A = np.uint64(0x9E3779B97F4A7C15)
_SEED_B = np.uint64(0xD1B54A32D192ED03)


@nb.njit(cache=True, inline="always")
def _mix(x):
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True)
def fingerprint_into(tensor, player, out):
    """Writes a 128-bit fingerprint of ``(player, tensor)`` into ``out[0:2]`` (uint64).

    Two independent 64-bit hashes of the float32 bit patterns: two different
    information states share a fingerprint with probability about 2^-128 per pair.
    Entries that are zero are skipped (their positions still enter through the
    others), so sparse tensors hash quickly.
    """
    bits = tensor.view(np.uint32)
    a = _SEED_A ^ np.uint64(player + 1)
    b = _SEED_B ^ np.uint64(player + 1)
    for i in range(bits.shape[0]):
        word = bits[i]
        if word != 0:
            x = (np.uint64(i) << np.uint64(32)) | np.uint64(word)
            a = _mix(a ^ x) + _SEED_B
            b = _mix(b + x * _MIX1) ^ _SEED_A
    out[0] = _mix(a ^ np.uint64(bits.shape[0]))
    out[1] = _mix(b + np.uint64(bits.shape[0]))


def fingerprint(tensor: np.ndarray, player: int) -> np.ndarray:
    """The 128-bit fingerprint (two uint64) of an information-state tensor."""
    out = np.empty(2, np.uint64)
    fingerprint_into(np.ascontiguousarray(tensor, np.float32), int(player), out)
    return out


# --- numba passes over the node arrays -----------------------------------------------


@nb.njit(cache=True)
def _node_parents(node_player, node_first, node_count):
    parents = np.full(node_player.shape[0], -1, np.int32)
    for n in range(node_player.shape[0]):
        first = node_first[n]
        for k in range(node_count[n]):
            parents[first + k] = n
    return parents


@nb.njit(cache=True)
def _infoset_parents(node_player, node_first, node_count, node_index, infoset_first, infoset_player, player, out):
    """Writes ``out[i]``, the last sequence of ``player`` before information set ``i``
    (-1 for none), for every information set of ``player``. Returns -1, or an
    information set reached after different own sequences (no perfect recall)."""
    last = np.empty(node_player.shape[0], np.int64)
    last[0] = -1
    seen = np.zeros(infoset_player.shape[0], np.bool_)
    for n in range(node_player.shape[0]):
        who = node_player[n]
        if who == TERMINAL:
            continue
        first = node_first[n]
        if who == player:
            infoset = node_index[n]
            if not seen[infoset]:
                seen[infoset] = True
                out[infoset] = last[n]
            elif out[infoset] != last[n]:
                return infoset
            base = infoset_first[infoset]
            for k in range(node_count[n]):
                last[first + k] = base + k
        else:
            for k in range(node_count[n]):
                last[first + k] = last[n]
    return -1


def finish_tree(game, arrays: dict, keys, build_seconds: float) -> Tree:
    """A ``Tree`` from a builder's arrays, with the parent sequences filled in and
    perfect recall checked."""
    num_infosets = arrays["infoset_player"].shape[0]
    parent = np.full(num_infosets, -1, np.int64)
    for player in range(game.num_players()):
        bad = _infoset_parents(
            arrays["node_player"], arrays["node_first"], arrays["node_count"], arrays["node_index"],
            arrays["infoset_first"], arrays["infoset_player"], player, parent,
        )
        if bad >= 0:
            key = keys[bad] if isinstance(keys, list) else tuple(int(k) for k in keys[bad])
            raise ValueError(
                f"{game}: information set {key!r} of player {player} is reached after different own "
                "actions (the game's information state forgets some of the player's earlier moves); tabular CFR "
                "and exact best response need perfect recall. MCCFR runs without it."
            )
    return Tree(game=game, infoset_parent=parent, keys=keys, build_seconds=build_seconds, **arrays)


# --- the pyspiel builder ---------------------------------------------------------------


def tree_from_pyspiel(
    game: pyspiel.Game,
    max_nodes: int = MAX_NODES,
    progress: Callable[[int], None] | None = None,
) -> Tree:
    """The tree of any sequential ``pyspiel`` game, walked in Python.

    Information sets are keyed by ``information_state_string``. ``progress(n)`` is
    called now and then with the number of nodes built so far.

    >>> import pyspiel
    >>> tree = tree_from_pyspiel(pyspiel.load_game("leduc_poker"))
    >>> tree.num_nodes, tree.num_infosets
    (9457, 936)
    """
    _check_game(game)
    started = time.perf_counter()
    num_players = game.num_players()
    node_player: list[int] = [0]
    node_first: list[int] = [0]
    node_count: list[int] = [0]
    node_index: list[int] = [0]
    chance_prob: list[float] = []
    chance_action: list[int] = []
    utility_rows: dict[tuple[float, ...], int] = {}
    infosets: dict[tuple[int, str], int] = {}
    keys: list[str] = []
    infoset_player: list[int] = []
    infoset_first: list[int] = [0]
    infoset_node: list[int] = []
    sequence_action: list[int] = []

    stack = [(0, game.new_initial_state())]
    while stack:
        node, state = stack.pop()
        if state.is_terminal():
            returns = tuple(state.returns())
            node_player[node] = TERMINAL
            node_index[node] = utility_rows.setdefault(returns, len(utility_rows))
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            node_player[node] = CHANCE
            node_index[node] = len(chance_prob)
            chance_action.extend(actions)
            chance_prob.extend(p for _, p in outcomes)
        else:
            player = state.current_player()
            key = state.information_state_string(player)
            actions = state.legal_actions()
            infoset = infosets.get((player, key))
            if infoset is None:
                infoset = infosets[(player, key)] = len(keys)
                keys.append(key)
                infoset_player.append(player)
                infoset_node.append(node)
                sequence_action.extend(actions)
                infoset_first.append(len(sequence_action))
            elif sequence_action[infoset_first[infoset] : infoset_first[infoset + 1]] != actions:
                raise ValueError(f"{game}: information set {key!r} has different legal actions in different states")
            node_player[node] = player
            node_index[node] = infoset
        first = len(node_player)
        if first + len(actions) > max_nodes:
            raise TreeTooLarge(f"{game}: the game tree has more than {max_nodes:,} nodes")
        node_first[node] = first
        node_count[node] = len(actions)
        node_player.extend([0] * len(actions))
        node_first.extend([0] * len(actions))
        node_count.extend([0] * len(actions))
        node_index.extend([0] * len(actions))
        for k in range(len(actions) - 1, -1, -1):
            stack.append((first + k, state.child(actions[k])))
        if progress is not None and node % 4096 == 0:
            progress(len(node_player))

    utility = np.zeros((len(utility_rows), num_players))
    for row, index in utility_rows.items():
        utility[index] = row
    arrays = dict(
        node_player=np.array(node_player, np.int8),
        node_first=np.array(node_first, np.int32),
        node_count=np.array(node_count, np.int16),
        node_index=np.array(node_index, np.int32),
        chance_prob=np.array(chance_prob, np.float64),
        chance_action=np.array(chance_action, np.int32),
        utility=utility,
        infoset_player=np.array(infoset_player, np.int8),
        infoset_first=np.array(infoset_first, np.int64),
        infoset_node=np.array(infoset_node, np.int32),
        sequence_action=np.array(sequence_action, np.int32),
    )
    return finish_tree(game, arrays, keys, time.perf_counter() - started)


def build_tree(
    game: pyspiel.Game,
    builder: str = "auto",
    max_memory: float | None = None,
    walks: int = 2000,
    progress: bool = False,
) -> Tree:
    """The flattened tree of ``game``, after checking that it fits in memory.

    ``builder``: ``"kernel"`` (numba over the rules kernel, for this library's
    games), ``"pyspiel"`` (any game, in Python) or ``"auto"`` (the kernel when the
    game has one). ``max_memory`` in bytes (default 90% of the available memory).
    ``progress`` shows a progress bar while building.

    Raises ``TreeTooLarge`` with the estimated size and the machine's memory when
    the tree would not fit.
    """
    from .kernel_tree import is_kernel_game, tree_from_kernel

    _check_game(game)
    if builder not in ("auto", "kernel", "pyspiel"):
        raise ValueError(f"builder must be 'auto', 'kernel' or 'pyspiel', got {builder!r}")
    use_kernel = builder == "kernel" or (builder == "auto" and is_kernel_game(game))
    if use_kernel and not is_kernel_game(game):
        raise ValueError(f"{game}: the kernel builder needs a game of this library (elements_ai.GAMES)")
    estimate = estimate_tree(game, walks=walks)
    check_fits(game, estimate, max_memory, pyspiel_builder=not use_kernel)
    # The estimate is unbiased but noisy: a hard cap on nodes stops a tree that is
    # far larger than estimated before it exhausts memory.
    budget = memory_budget(max_memory)
    max_nodes = int(min(MAX_NODES, budget / (NODE_BYTES if use_kernel else NODE_BYTES + PYSPIEL_NODE_BYTES)))
    progress = progress and estimate.nodes >= PROGRESS_NODES
    if use_kernel:
        return tree_from_kernel(game, max_nodes=max_nodes, max_memory=budget, progress=progress)
    if not progress:
        return tree_from_pyspiel(game, max_nodes=max_nodes)
    from tqdm.auto import tqdm

    with tqdm(total=int(estimate.nodes), desc="building tree", unit=" nodes", unit_scale=True) as bar:

        def report(nodes: int) -> None:
            bar.update(nodes - bar.n)

        tree = tree_from_pyspiel(game, max_nodes=max_nodes, progress=report)
        bar.total = tree.num_nodes
        bar.update(tree.num_nodes - bar.n)
    return tree
