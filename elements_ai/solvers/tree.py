"""Building a game's flattened tree (``flat.Tree``): what the tabular solvers iterate over.

Two builders make the same tree (the same arrays, node for node): from any
``pyspiel`` game in Python, keyed by ``information_state_string``, and straight
from a game's rules kernel in numba (``kernel_tree.py``), keyed by a 128-bit
fingerprint of the information-state tensor (``build_tree`` picks the kernel
builder for the games of this library). Before building, the size of the tree is
estimated by random walks (Knuth's estimator) and a tree that would not fit in
memory raises ``TreeTooLarge``. ``flat.py`` describes the arrays.

This module is where the solvers and their users import trees from: it re-exports
the tree record and the memory figures from the modules below it.

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
import time
from collections.abc import Callable

import numpy as np
import pyspiel
from tqdm.auto import tqdm

from ..core.kernel import CHANCE, TERMINAL
from .flat import Tree, check_game, finish_tree, is_kernel_game
from .kernel_tree import estimate_kernel_tree, tree_from_kernel
from .memory import (
    MAX_NODES,
    NODE_BYTES,
    PYSPIEL_NODE_BYTES,
    SOLVE_NODE_BYTES,
    TreeTooLarge,
    build_bytes,
    format_bytes,
    machine_memory,
    memory_budget,
    solve_bytes,
    too_large,
)

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
    # the memory figures, from memory.py, for the experiments that size trees
    "MAX_NODES",
    "SOLVE_NODE_BYTES",
]

# Trees estimated smaller than this build without a progress bar (under a second).
PROGRESS_NODES = 200_000


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
            f"{self.decision_nodes:.3g} decision nodes, needing at least {format_bytes(self.nbytes)} to build and solve"
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
    check_game(game)
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


def check_fits(game: pyspiel.Game, estimate: TreeEstimate, max_memory: float | None = None, pyspiel_builder=False):
    """Raises ``TreeTooLarge`` when the estimated tree needs more than ``max_memory``
    bytes (default: 90% of the memory available now)."""
    needed = estimate.nbytes + (estimate.nodes * PYSPIEL_NODE_BYTES if pyspiel_builder else 0.0)
    # Three standard errors above the estimate: a tree that may well be larger is
    # refused before an hour of building, not after.
    worst = needed * (1 + 3 * estimate.nodes_error / max(estimate.nodes, 1.0))
    if estimate.nodes > MAX_NODES or worst > memory_budget(max_memory):
        raise too_large(game, estimate.describe(), worst, max_memory)


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
    check_game(game)
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
    check_game(game)
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
    with tqdm(total=int(estimate.nodes), desc="building tree", unit=" nodes", unit_scale=True) as bar:

        def report(nodes: int) -> None:
            bar.update(nodes - bar.n)

        tree = tree_from_pyspiel(game, max_nodes=max_nodes, progress=report)
        bar.total = tree.num_nodes
        bar.update(tree.num_nodes - bar.n)
    return tree
