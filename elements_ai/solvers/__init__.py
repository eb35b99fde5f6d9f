"""Solvers: the CFR family on flattened game trees, exact best response and
exploitability of any policy or bot, and sampling MCCFR for games too large to
flatten.

>>> import pyspiel
>>> from elements_ai.solvers import CFRSolver, evaluate
>>> solver = CFRSolver(pyspiel.load_game("kuhn_poker"), "dcfr")
>>> solver.run(500)
>>> solver.exploitability() < 1e-3
True
"""

from .best_response import Evaluation, best_response_probs, evaluate_probs, infoset_reach, uniform_probs
from .cfr import ALGORITHMS, CFRSolver, Settings
from .compact import CompactCFRSolver, CompactTree, build_compact, evaluate_compact, profile_values, seat_profile
from .policy import PolicyMismatch, PolicyTable, evaluate, load_policy, policy_probs, to_tabular
from .solver import Solver
from .tree import Tree, TreeEstimate, TreeTooLarge, build_tree, estimate_tree, machine_memory, tree_from_pyspiel

__all__ = [
    "ALGORITHMS",
    "CFRSolver",
    "CompactCFRSolver",
    "CompactTree",
    "Evaluation",
    "PolicyMismatch",
    "PolicyTable",
    "Settings",
    "Solver",
    "Tree",
    "TreeEstimate",
    "TreeTooLarge",
    "best_response_probs",
    "build_compact",
    "build_tree",
    "estimate_tree",
    "evaluate",
    "evaluate_compact",
    "evaluate_probs",
    "infoset_reach",
    "load_policy",
    "machine_memory",
    "policy_probs",
    "profile_values",
    "seat_profile",
    "to_tabular",
    "tree_from_pyspiel",
    "uniform_probs",
]
