"""Exact exploitability of a policy network on a game small enough to flatten.

An equilibrium-seeking learner (``nfsp``) is measured against the exact best response
of the whole tree, not a learnt one: ``ExactEvaluator(game)`` builds the tree once,
reads the information-state tensor and legal actions of one state of every
information set once (in numba, in batches: ``solvers.infostates``), and then
values any network in one batched forward pass (``probs``: the masked policy it
samples from, one probability per sequence) and one exact best response per player
(``evaluate``: ``solvers.evaluate_probs``). It plays the network as
``ppo:ckpt=FILE,greedy=false`` does, in numpy.

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
from ..solvers.infostates import encode_states, infoset_states


class ExactEvaluator:
    """The exact tree of ``game`` and the network inputs of its information sets."""

    def __init__(self, game, threads: int | None = None):
        self.game = game
        self.threads = threads
        self.tree = tree = build_tree(game)
        # Information sets with one legal action play it whatever the network says:
        # the batches leave them out.
        choices, info, mask = [], [], []
        for infosets, states in infoset_states(tree):
            _, tensors, masks, _ = encode_states(game, states)
            choices.append(infosets)
            info.append(tensors)
            mask.append(masks)
        config = game.config
        self.choices = np.concatenate(choices) if choices else np.zeros(0, np.int64)
        self.info = np.concatenate(info) if info else np.zeros((0, config.info_size), np.float32)
        self.mask = np.concatenate(mask) if mask else np.zeros((0, config.num_actions), np.bool_)
        # Where each row's probabilities go: its information set's sequences, by action.
        sizes = np.diff(tree.infoset_first)[self.choices]
        self._rows = np.repeat(np.arange(len(self.choices)), sizes)
        within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        self._sequences = np.repeat(tree.infoset_first[self.choices], sizes) + within
        self._actions = tree.sequence_action[self._sequences]

    def probs(self, network: Network) -> np.ndarray:
        """The network's masked policy at every information set, one probability per sequence."""
        network.check_game(self.game)
        out = np.ones(self.tree.num_sequences)
        played = network.probabilities(self.info, self.mask)
        out[self._sequences] = played[self._rows, self._actions]
        return out

    def evaluate(self, network: Network) -> Evaluation:
        """NashConv, exploitability and values of the policy the network samples from."""
        return evaluate_probs(self.tree, self.probs(network), threads=self.threads)
