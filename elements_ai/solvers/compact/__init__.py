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

Modules: ``tree`` the format, ``build`` the builder, ``cfr`` the CFR family's passes,
``values`` best response and the exploitability of any policy, ``solver`` the solver,
``file`` a built tree saved to disk and mapped back.

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


from .build import build_compact, count_compact
from .file import load_compact, save_compact
from .solver import CompactCFRSolver
from .tree import CompactTree
from .values import compact_probs, evaluate_compact, profile_values, seat_profile

__all__ = ["CompactCFRSolver", "CompactTree", "build_compact", "compact_probs", "count_compact", "evaluate_compact",
           "load_compact", "profile_values", "save_compact", "seat_profile"]
