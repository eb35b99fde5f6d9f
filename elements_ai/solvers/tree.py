"""Building a game's flattened tree (``flat.Tree``): what the tabular solvers iterate over.

Two builders make the same tree (the same arrays, node for node): from any
``pyspiel`` game in Python, keyed by ``information_state_string``, and straight
from a game's rules kernel in numba (``kernel_tree.py``), keyed by a 128-bit
fingerprint of the information-state tensor (``build_tree`` picks the kernel
builder for the games of this library). Before building, the size of the tree is
estimated by random walks (``estimate.py``) and a tree that would not fit in
memory raises ``TreeTooLarge``. ``flat.py`` describes the arrays.

This module is where the solvers and their users import trees from: it re-exports
the tree record, the estimator and the memory figures from the modules below it.

>>> import pyspiel
>>> tree = build_tree(pyspiel.load_game("kuhn_poker"))
>>> tree.num_nodes, tree.num_infosets, tree.num_sequences
(58, 12, 24)
>>> tree.infoset_key(0), tree.legal_actions(0).tolist()
('0', [0, 1])
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pyspiel

from ..core.kernel import CHANCE, TERMINAL
from ..progress import progress_bar
from .estimate import TreeEstimate, check_fits, estimate_tree
from .flat import Tree, check_game, finish_tree, is_kernel_game
from .kernel_tree import tree_from_kernel
from .memory import (
    MAX_NODES,
    NODE_BYTES,
    PYSPIEL_NODE_BYTES,
    SOLVE_NODE_BYTES,
    TreeTooLarge,
    build_bytes,
    machine_memory,
    memory_budget,
    solve_bytes,
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
    with progress_bar(total=int(estimate.nodes), desc="building tree", unit=" nodes", unit_scale=True) as bar:

        def report(nodes: int) -> None:
            bar.update(nodes - bar.n)

        tree = tree_from_pyspiel(game, max_nodes=max_nodes, progress=report)
        bar.total = tree.num_nodes
        bar.update(tree.num_nodes - bar.n)
    return tree
