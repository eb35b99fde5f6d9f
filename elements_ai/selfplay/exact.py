"""Exact exploitability of a policy network on a game small enough to flatten.

An equilibrium-seeking learner (``nfsp``) is measured against the exact best response
of the whole tree, not a learnt one: ``ExactEvaluator(game)`` builds the tree once,
reads the information-state tensor and legal actions of one state of every
information set once, and then values any network in one batched forward pass
(``probs``: the masked policy it samples from, one probability per sequence) and one
exact best response per player (``evaluate``: ``solvers.evaluate_probs``). It plays
the network as ``ppo:ckpt=FILE,greedy=false`` does, in numpy.

>>> import elements_ai
>>> import numpy as np
>>> from elements_ai.agents.network import Network
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> evaluator = ExactEvaluator(game)
>>> config = game.config
>>> flat = Network([], policy=(np.zeros((config.num_actions, config.info_size)), np.zeros(config.num_actions)),
...                value=(np.zeros((2, config.info_size)), np.zeros(2)))
>>> from elements_ai.solvers import evaluate_probs, uniform_probs
>>> evaluator.evaluate(flat) == evaluate_probs(evaluator.tree, uniform_probs(evaluator.tree))
True
"""

from __future__ import annotations

import numpy as np

from ..agents.network import Network
from ..solvers import Evaluation, build_tree, evaluate_probs


class ExactEvaluator:
    """The exact tree of ``game`` and the network inputs of its information sets."""

    def __init__(self, game, threads: int | None = None):
        self.game = game
        self.threads = threads
        self.tree = tree = build_tree(game)
        sizes = np.diff(tree.infoset_first)
        # Information sets with one legal action play it whatever the network says.
        self.choices = np.flatnonzero(sizes > 1)
        config = game.config
        self.info = np.zeros((len(self.choices), config.info_size), np.float32)
        self.mask = np.zeros((len(self.choices), config.num_actions), np.bool_)
        for k, infoset in enumerate(self.choices):
            state = tree.state(int(infoset))
            self.info[k] = state.information_state_tensor(int(tree.infoset_player[infoset]))
            self.mask[k, tree.legal_actions(int(infoset))] = True

    def probs(self, network: Network) -> np.ndarray:
        """The network's masked policy at every information set, one probability per sequence."""
        network.check_game(self.game)
        tree = self.tree
        played = network.probabilities(self.info, self.mask)
        out = np.ones(tree.num_sequences)
        for k, infoset in enumerate(self.choices):
            first, stop = int(tree.infoset_first[infoset]), int(tree.infoset_first[infoset + 1])
            out[first:stop] = played[k, tree.sequence_action[first:stop]]
        return out

    def evaluate(self, network: Network) -> Evaluation:
        """NashConv, exploitability and values of the policy the network samples from."""
        return evaluate_probs(self.tree, self.probs(network), threads=self.threads)
