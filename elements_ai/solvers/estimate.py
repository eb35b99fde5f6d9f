"""How large a game tree is, from random walks (Knuth 1975): the one estimator that
the tree builders and MCCFR use.

A walk goes from the root to a terminal, choosing uniformly among the children, and
adds up the products of the branching factors it met: an unbiased estimate of the
number of nodes at each depth. Counting only some nodes' branching (``brancher``)
estimates the part of the tree a sampling algorithm enumerates: with one player,
the nodes an external-sampling MCCFR traversal for that player visits, where the
player tries every action and chance and the others are sampled.

Walks run in numba over the rules kernel for this library's games and through
``pyspiel`` states for any other game; both draw from ``core.rng`` with the same
rule (the ``int(u * n)``-th child in increasing action order), so on a kernel game
the two give the same numbers.

>>> import pyspiel
>>> estimate = estimate_tree(pyspiel.load_game("kuhn_poker"), walks=500)
>>> 40 < estimate.nodes < 80
True
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pyspiel

from ..core.generic import generic, rules
from ..core.kernel import CHANCE, TERMINAL
from ..core.rng import sample_true_index, seed_streams, seeds_from, uniform
from .flat import check_game, is_kernel_game
from .memory import (
    MAX_NODES,
    PYSPIEL_NODE_BYTES,
    SOLVE_NODE_BYTES,
    build_bytes,
    format_bytes,
    format_count,
    memory_budget,
    too_large,
)
from .sweeps import EVERYONE

__all__ = ["EVERYONE", "TreeEstimate", "check_fits", "estimate_tree", "walk_samples"]

# Columns of ``walk_samples``: Knuth's sums (nodes, decision nodes, edges out of
# decision nodes), then the decisions the walk itself met and their legal actions.
NODES, DECISIONS, EDGES, MOVES, LEGAL = range(5)


@generic
def _walks(cfg, root, walks, seed, brancher, mask, live, probs, out):
    """``walks`` uniformly random walks from ``root``, one row of ``out`` each (see
    ``walk_samples``). The weight grows at chance and decision nodes when ``brancher``
    is ``EVERYONE``, else at ``brancher``'s decisions only."""
    rng = np.empty(1, np.uint64)
    seed_streams(seed, rng)
    state = root.copy()
    for w in range(walks):
        for i in range(root.shape[0]):
            state[i] = root[i]
        weight = 1.0
        nodes = 1.0
        decisions = 0.0
        edges = 0.0
        moves = 0
        legal = 0
        who = rules.current_player(cfg, state)
        while who != TERMINAL:
            count = 0
            if who == CHANCE:
                rules.chance_outcomes(cfg, state, probs)
                for a in range(probs.shape[0]):
                    live[a] = probs[a] > 0.0
                    count += live[a]
                action = sample_true_index(live, uniform(rng, 0))
            else:
                rules.legal_mask(cfg, state, mask)
                for a in range(mask.shape[0]):
                    count += mask[a]
                decisions += weight
                edges += weight * count
                moves += 1
                legal += count
                action = sample_true_index(mask, uniform(rng, 0))
            if brancher == EVERYONE or who == brancher:
                weight *= count
            nodes += weight
            rules.apply(cfg, state, action)
            who = rules.current_player(cfg, state)
        out[w, NODES] = nodes
        out[w, DECISIONS] = decisions
        out[w, EDGES] = edges
        out[w, MOVES] = moves
        out[w, LEGAL] = legal


def _pyspiel_walks(game: pyspiel.Game, walks: int, seed: int, brancher: int, out: np.ndarray) -> None:
    """``_walks`` through ``pyspiel`` states, for games without a rules kernel."""
    rng = seeds_from(seed, 1)
    for w in range(walks):
        state = game.new_initial_state()
        weight = nodes = 1.0
        decisions = edges = 0.0
        moves = legal = 0
        while not state.is_terminal():
            if state.is_chance_node():
                children = [a for a, p in state.chance_outcomes() if p > 0.0]
            else:
                children = state.legal_actions()
                decisions += weight
                edges += weight * len(children)
                moves += 1
                legal += len(children)
            if brancher == EVERYONE or state.current_player() == brancher:
                weight *= len(children)
            nodes += weight
            state.apply_action(children[int(uniform(rng, 0) * len(children))])
        out[w] = nodes, decisions, edges, moves, legal


def walk_samples(game: pyspiel.Game, walks: int, seed: int = 0, brancher: int = EVERYONE) -> np.ndarray:
    """``walks`` random walks' figures, a ``(walks, 5)`` array: Knuth's samples of the
    nodes, decision nodes and decision edges of the tree (columns ``NODES``,
    ``DECISIONS``, ``EDGES``; their means estimate the tree's), and the number of
    decisions each walk met and their legal actions (``MOVES``, ``LEGAL``).

    ``brancher``: ``EVERYONE`` for the whole tree, or a player whose decisions alone
    branch (see the module docstring).
    """
    out = np.zeros((walks, 5))
    if is_kernel_game(game):
        config = game.config
        root = game.new_initial_state().array.copy()
        mask = np.zeros(config.num_actions, np.bool_)
        live = np.zeros(max(config.max_chance_outcomes, 1), np.bool_)
        probs = np.zeros(live.shape[0])
        _walks[game.kernel](game.cfg, root, int(walks), int(seed), int(brancher), mask, live, probs, out)
    else:
        _pyspiel_walks(game, int(walks), int(seed), int(brancher), out)
    return out


@dataclasses.dataclass(frozen=True)
class TreeEstimate:
    """The size of a game tree estimated by random walks (see the module docstring).
    ``nodes_error`` is the standard error of ``nodes`` over walks."""

    nodes: float
    decision_nodes: float
    sequences: float  # edges out of decision nodes: an upper bound on sequences
    walks: int
    nodes_error: float

    @classmethod
    def from_samples(cls, samples: np.ndarray) -> TreeEstimate:
        """The estimate from ``walk_samples`` of the whole tree."""
        walks = samples.shape[0]
        nodes = samples[:, NODES]
        scale = max(float(nodes.max()), 1.0)  # the squares of 1e133 nodes would overflow
        error = float((nodes / scale).std(ddof=1) * scale / math.sqrt(walks)) if walks > 1 else math.inf
        return cls(float(nodes.mean()), float(samples[:, DECISIONS].mean()), float(samples[:, EDGES].mean()),
                   walks, error)

    @property
    def nbytes(self) -> float:
        """Bytes needed at least to build this tree and solve it: the builder's peak
        and the solver's per-node arrays (information sets and sequences, unknown
        before building, add to this)."""
        return build_bytes(self.nodes, self.decision_nodes, self.sequences) + self.nodes * SOLVE_NODE_BYTES

    def describe_size(self) -> str:
        return (
            f"about {format_count(self.nodes)} nodes (± {format_count(self.nodes_error)}, from {self.walks:,} "
            f"random walks) and {format_count(self.decision_nodes)} decision nodes"
        )

    def describe(self) -> str:
        return f"{self.describe_size()}, needing at least {format_bytes(self.nbytes)} to build and solve"


def estimate_tree(game: pyspiel.Game, walks: int = 2000, seed: int = 0) -> TreeEstimate:
    """Estimates the size of ``game``'s tree from ``walks`` uniformly random walks.

    Uses the rules kernel in numba for this library's games, ``pyspiel`` states
    otherwise.
    """
    check_game(game)
    return TreeEstimate.from_samples(walk_samples(game, walks, seed))


def check_fits(game: pyspiel.Game, estimate: TreeEstimate, max_memory: float | None = None, pyspiel_builder=False):
    """Raises ``TreeTooLarge`` when the estimated tree needs more than ``max_memory``
    bytes (default: 90% of the memory available now)."""
    needed = estimate.nbytes + (estimate.nodes * PYSPIEL_NODE_BYTES if pyspiel_builder else 0.0)
    # Three standard errors above the estimate: a tree that may well be larger is
    # refused before an hour of building, not after.
    worst = needed * (1 + 3 * estimate.nodes_error / max(estimate.nodes, 1.0))
    if estimate.nodes > MAX_NODES or worst > memory_budget(max_memory):
        raise too_large(game, estimate.describe_size(), worst, max_memory)
