"""A mixed strategy over policies, as the one behavioural policy that plays the same.

A population learner (PSRO) ends with a mixture: draw member ``k`` with probability
``w_k`` once, before the game, and play it throughout. By Kuhn's theorem (perfect
recall) one behavioural policy is equivalent to it: at an information set ``I`` of
player ``p``,

    pi(I) = sum_k w_k x_k(I) pi_k(I) / sum_k w_k x_k(I),

where ``x_k(I)`` is the probability of ``p``'s own moves on the way to ``I`` under
member ``k``: the posterior over the members, given what ``p`` has played so far. It
is read off the chain of ``p``'s earlier moves (``infoset_parent``), on the flat and
the compact tree alike: no pass over the nodes, so a mixture on the two-billion-node
round costs its members' policies and little more. Where no member reaches ``I``,
``pi(I)`` is the weighted average of the members' policies.

>>> import pyspiel
>>> from elements_ai.solvers import build_tree, evaluate_probs, uniform_probs
>>> tree = build_tree(pyspiel.load_game("kuhn_poker"))
>>> uniform = uniform_probs(tree)
>>> bool(np.allclose(mixture_probs(tree, [uniform, uniform], [0.3, 0.7]), uniform))
True
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .compact import CompactTree
from .flat import Tree

__all__ = ["mixture_probs", "mixture_weights", "own_reach"]


def mixture_weights(weights) -> np.ndarray:
    """``weights`` as a probability vector (``ValueError`` for negative, non-finite or all-zero ones).

    >>> mixture_weights([1, 3]).tolist()
    [0.25, 0.75]
    """
    weights = np.asarray(weights, np.float64)
    if weights.ndim != 1 or not len(weights) or not np.isfinite(weights).all() or (weights < 0).any() \
            or weights.sum() <= 0:
        raise ValueError(f"mixture weights must be finite, >= 0 and not all 0, got {weights.tolist()!r}")
    return weights / weights.sum()


@nb.njit(cache=True)
def _own_reach(infoset_parent, infoset_parent_infoset, probs, out):
    """The probability of each information set's player's own moves on the way to it."""
    for infoset in range(out.shape[0]):
        reach = 1.0
        at = infoset
        while infoset_parent[at] >= 0:
            reach *= probs[infoset_parent[at]]
            at = infoset_parent_infoset[at]
        out[infoset] = reach


def own_reach(tree: Tree | CompactTree, probs: np.ndarray) -> np.ndarray:
    """Each information set's own reach under ``probs`` (one probability per sequence of
    the flat or compact ``tree``): the product of its player's earlier move probabilities.

    >>> import elements_ai
    >>> from elements_ai.solvers import build_compact, uniform_probs
    >>> tree = build_compact(elements_ai.load_game("elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"))
    >>> float(own_reach(tree, uniform_probs(tree)).max())   # a first move is reached by its player for sure
    1.0
    """
    if isinstance(tree, CompactTree):
        parent_infoset = tree.infoset_parent_infoset
    else:  # the flat tree keeps each sequence's information set
        parent_infoset = tree.sequence_infoset[np.maximum(tree.infoset_parent, 0)]
    out = np.empty(tree.num_infosets)
    _own_reach(tree.infoset_parent, parent_infoset, np.asarray(probs, np.float64), out)
    return out


def mixture_probs(tree: Tree | CompactTree, member_probs: list[np.ndarray], weights) -> np.ndarray:
    """The behavioural policy (one probability per sequence of the flat or compact ``tree``) that
    plays as the mixed strategy "member ``k`` with probability ``weights[k]``", each
    member a policy of every seat (``member_probs[k]``, one probability per sequence).

    >>> import pyspiel
    >>> from elements_ai.solvers import build_tree
    >>> tree = build_tree(pyspiel.load_game("kuhn_poker"))
    >>> bet, check = np.zeros(tree.num_sequences), np.zeros(tree.num_sequences)
    >>> bet[tree.infoset_first[:-1] + 1], check[tree.infoset_first[:-1]] = 1.0, 1.0
    >>> mixed = mixture_probs(tree, [bet, check], [0.25, 0.75])
    >>> float(mixed[tree.infoset_first[0] + 1])   # player 0's first move: bet a quarter of the time
    0.25
    """
    weights = mixture_weights(weights)
    if len(member_probs) != len(weights):
        raise ValueError(f"one weight a member: {len(member_probs)} members, {len(weights)} weights")
    members = [np.asarray(p, np.float64) for p in member_probs]
    for probs in members:
        if probs.shape != (tree.num_sequences,):
            raise ValueError(f"a policy on this tree has {tree.num_sequences} probabilities, got shape {probs.shape}")
    sizes = np.diff(tree.infoset_first)
    numerator = np.zeros(tree.num_sequences)
    denominator = np.zeros(tree.num_infosets)
    for w, probs in zip(weights, members):
        if w == 0:
            continue
        reach = own_reach(tree, probs)
        denominator += w * reach
        numerator += w * np.repeat(reach, sizes) * probs
    average = sum(w * probs for w, probs in zip(weights, members))
    reached = np.repeat(denominator > 0, sizes)
    out = np.where(reached, numerator / np.where(reached, np.repeat(denominator, sizes), 1.0), average)
    return out
