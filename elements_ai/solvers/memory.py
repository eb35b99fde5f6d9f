"""What a tabular solve costs in memory, what this machine has, and the error when it does not fit.

The tree builders, the size estimator, the CFR solvers and MCCFR's table all size
themselves from these figures, so they live below every one of them.

>>> format_bytes(2.1e10), format_bytes(6.74e12), format_bytes(1.64e79), format_bytes(2.37e6)
('21 GB', '6,740 GB', '1.6 × 10^70 GB', '2.37 MB')
"""

from __future__ import annotations

from ..system import format_bytes, format_count, machine_memory

__all__ = [
    "MAX_NODES",
    "TreeTooLarge",
    "build_bytes",
    "compact_build_bytes",
    "compact_solve_bytes",
    "compact_tree_bytes",
    "format_bytes",
    "format_count",
    "machine_memory",
    "memory_budget",
    "solve_bytes",
    "too_large",
]

# Memory, in bytes, of a tabular solve. The tree keeps per node its player (1), first
# child (4), child count (2) and index (4); the solver one float64 per node (reach down,
# values up, in place) and, for the threads, the first child of each decision node
# grouped by information set (int32; counted for every node, an upper bound).
TREE_NODE_BYTES = 1 + 4 + 2 + 4
SOLVE_NODE_BYTES = 8 + 4
NODE_BYTES = TREE_NODE_BYTES + SOLVE_NODE_BYTES
# Per sequence: its action and information set (4 + 4), the solver's regret,
# cumulative and current policy, prediction and one thread's regret total (5 * 8),
# best response's value.
SEQUENCE_BYTES = 4 + 4 + 5 * 8 + 8
# Per information set: player, first sequence, parent sequence, a node (1 + 8 + 8 + 4),
# its key (16), the per-player list (4), own reach and best response (8 + 8), where
# its nodes start in the grouped list (8).
INFOSET_BYTES = 1 + 8 + 8 + 4 + 16 + 4 + 8 + 8 + 8
# While the kernel builder fills a tree, its information-set arrays are sized for
# every decision node (key, player, first sequence, node, and the hash table at up to
# four int32 slots each), its sequences for every edge out of a decision node.
BUILD_DECISION_BYTES = 16 + 1 + 8 + 4 + 16
BUILD_EDGE_BYTES = 4
# The pyspiel builder keeps Python lists while it walks: about this much per node.
PYSPIEL_NODE_BYTES = 150
# Nodes are numbered with int32.
MAX_NODES = 2**31 - 1

# The compact tree (the compact package): per node a shape byte and a 32-bit code, nothing
# else (its sweeps keep values on a stack as deep as the tree). Per information set:
# key (16), player (1), first sequence and parent sequence (8 + 8), the parent's
# information set and the per-player list (4 + 4). Per sequence: its action (1; 4
# in games with more than 256 actions).
COMPACT_NODE_BYTES = 1 + 4
COMPACT_INFOSET_BYTES = 16 + 1 + 8 + 8 + 4 + 4
COMPACT_SEQUENCE_BYTES = 1
# Its builder: the node arrays, and per information set the key, player, first and
# parent sequences and the hash table (at most four int32 slots each, a power of two
# at least twice the information sets); per sequence its action.
COMPACT_BUILD_INFOSET_BYTES = 16 + 1 + 8 + 8 + 4 * 4
COMPACT_BUILD_SEQUENCE_BYTES = 1


def solve_bytes(nodes: float, infosets: float, sequences: float) -> float:
    """Bytes a tabular solver (and its exact best response) needs for a tree of this size."""
    return nodes * NODE_BYTES + sequences * SEQUENCE_BYTES + infosets * INFOSET_BYTES


def build_bytes(nodes: float, decision_nodes: float, decision_edges: float) -> float:
    """Peak bytes of the kernel builder, which sizes its information sets from the decision nodes."""
    return nodes * TREE_NODE_BYTES + decision_nodes * BUILD_DECISION_BYTES + decision_edges * BUILD_EDGE_BYTES


def compact_tree_bytes(nodes: float, infosets: float, sequences: float) -> float:
    """Bytes of a compact tree of this size."""
    return nodes * COMPACT_NODE_BYTES + infosets * COMPACT_INFOSET_BYTES + sequences * COMPACT_SEQUENCE_BYTES


def compact_build_bytes(nodes: float, infosets: float, sequences: float) -> float:
    """Peak bytes of the compact builder (its information-set arrays sized as given)."""
    return (
        nodes * COMPACT_NODE_BYTES
        + infosets * COMPACT_BUILD_INFOSET_BYTES
        + sequences * COMPACT_BUILD_SEQUENCE_BYTES
    )


def compact_solve_bytes(
    infosets: float, sequences: float, lanes: int = 1, accumulator_bytes: int = 8, predictive: bool = True
) -> float:
    """Bytes a solver on a compact tree adds to it: per sequence the policy (8), the
    regret and cumulative policy (and prediction) accumulators, and a regret total
    per lane (8 each; best response sums into them too); per information set its
    own reach (8). Nothing per node."""
    per_sequence = 8 + accumulator_bytes * (3 if predictive else 2) + 8 * lanes
    return sequences * per_sequence + infosets * 8


class TreeTooLarge(MemoryError):
    """The game tree would not fit in memory (the message gives the estimate)."""


def memory_budget(max_memory: float | None = None) -> float:
    """``max_memory``, or by default 90% of the memory available now."""
    return 0.9 * machine_memory()[1] if max_memory is None else float(max_memory)


def too_large(game, size: str, needed: float, max_memory: float | None) -> TreeTooLarge:
    """The error for a tree of ``size`` (a phrase) needing ``needed`` bytes."""
    total, available = machine_memory()
    return TreeTooLarge(
        f"{game}: the game tree has {size}; building and solving it needs {format_bytes(needed)}, and this machine "
        f"has {format_bytes(total)} of memory ({format_bytes(available)} available, budget "
        f"{format_bytes(memory_budget(max_memory))}). Solve a smaller variant, or use MCCFR "
        "(elements-ai solve --algorithm os-mccfr), which samples the game without building the tree."
    )
