"""Solved policies as bots, and any bot as a policy whose exploitability can be measured.

``PolicyBot`` plays a policy file (``make_bot("cfr:policy=FILE", game, player,
seed)``): at each decision it draws an action from the policy's probabilities at
its information set, with its own seeded stream.

``bot_policy`` goes the other way: it asks a bot for its move at one state of every
information set of the tree and returns the policy it plays there, so
``evaluate_probs`` gives its exact NashConv and exploitability. A bot that states
its action distribution (``random``, the policy bots) is read exactly; any other is
sampled ``samples`` times per information set and measured by its empirical
action frequencies (the figure then carries sampling noise; more samples, less).

>>> import elements_ai
>>> from elements_ai.solvers import build_tree, evaluate_probs
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> tree = build_tree(game)
>>> probs = bot_policy(tree, "random")
>>> round(evaluate_probs(tree, probs).exploitability, 6) > 0
True
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np
import pyspiel

from ..agents.bots import SeatBot, fingerprint_of
from ..core.params import Param, ParameterError
from ..core.rng import uniform
from ..progress import progress_bar
from .policy import PolicyMismatch, PolicyTable, load_policy
from .tree import Tree

__all__ = ["EXACT_BOTS", "MCCFRPolicyBot", "PolicyBot", "bot_policy", "read_policy"]

# Bots whose ``get_policy`` is exactly the distribution they draw their moves from.
EXACT_BOTS = ("random", "cfr", "mccfr")


class PolicyBot(SeatBot):
    """Plays a solved policy (a file written by ``elements-ai solve``, or a ``PolicyTable``).

    Each move is drawn from the policy at the information set of the state, with
    the bot's own stream seeded by ``seed``. An information set the policy does not
    hold (MCCFR leaves the ones it never sampled) is played uniformly at random,
    and counted in ``unseen``. A policy for another game than ``game`` is an error.
    ``policy`` may also be a ``PolicyTable``.
    """

    params = {"policy": Param("", "the policy file (.npz) written by elements-ai solve (none: the shipped one)")}

    def __init__(self, game: pyspiel.Game, player: int, seed: int = 0, **params: Any):
        table = params.pop("policy") if isinstance(params.get("policy"), PolicyTable) else None
        super().__init__(game, player, seed, **params)
        if table is not None:
            if str(table.game) != str(game):
                raise PolicyMismatch(f"the policy is for {table.game}, not for {game}")
            self.table = table
        else:
            policy = self.options["policy"].strip()
            if not policy:
                if self.shipped_kind is None:
                    raise ParameterError("a policy bot needs policy=FILE (a file written by elements-ai solve)")
                from .. import zoo

                policy = str(zoo.shipped_file(self.shipped_kind, game)[0])
            self.table = read_policy(policy, game)
        self.unseen = 0

    shipped_kind: str | None = "cfr"  # played without policy=: the policy shipped for the game

    def fingerprint(self) -> str:
        table = self.table
        return fingerprint_of(np.asarray(table.keys), table.infoset_first, table.sequence_action, table.probs)

    def _policy(self, state) -> tuple[list[int], np.ndarray]:
        self._check_state(state)
        row = self.table.row_of_state(state)
        if row < 0:
            self.unseen += 1
            legal = state.legal_actions()
            return legal, np.full(len(legal), 1.0 / len(legal))
        actions, probs = self.table.actions_and_probs(row)
        return actions.tolist(), probs

    def get_policy(self, state) -> list[tuple[int, float]]:
        # The distribution alone: no draw from the bot's stream.
        actions, probs = self._policy(state)
        return list(zip(actions, probs.tolist()))

    def _policy_and_action(self, state) -> tuple[list[tuple[int, float]], int]:
        actions, probs = self._policy(state)
        u = uniform(self._rng, 0) * probs.sum()
        index = min(int(np.searchsorted(np.cumsum(probs), u, side="right")), len(actions) - 1)
        return list(zip(actions, probs.tolist())), int(actions[index])


class MCCFRPolicyBot(PolicyBot):
    """``PolicyBot`` for MCCFR policies: nothing is shipped, so ``policy=`` is required."""

    params = {"policy": Param("", "the policy or checkpoint file (.npz) written by elements-ai solve")}
    shipped_kind = None


@functools.lru_cache(maxsize=4)
def _read(path: str, stamp: tuple[int, int], game: str) -> PolicyTable:
    # A tournament makes a bot for every seat of every game: a policy is read once per
    # version of its file (the full deck's, 1.5 GB, took a minute to read and index).
    # Bots only read their table.
    return load_policy(path, game)


def read_policy(path: str, game: pyspiel.Game) -> PolicyTable:
    """The policy file ``path`` for ``game``; ``ParameterError`` names a missing, damaged
    or foreign file (a user's mistake, not the program's)."""
    if not os.path.isfile(path):
        raise ParameterError(f"policy file {path!r} does not exist" if not os.path.exists(path)
                             else f"policy file {path!r} is a folder")
    status = os.stat(path)
    try:
        return _read(path, (status.st_mtime_ns, status.st_size), str(game))
    except ParameterError:
        raise
    except (ValueError, KeyError, OSError) as error:  # load_policy's kinds for a file it cannot use
        message = str(error.args[0] if isinstance(error, KeyError) and error.args else error)
        raise ParameterError(message if path in message else f"policy file {path}: {message}") from None


def bot_policy(tree: Tree, spec: str, samples: int = 32, seed: int = 0, progress: bool = False) -> np.ndarray:
    """The policy the bot ``spec`` plays, one probability per sequence of ``tree``.

    One bot per seat (seeded ``seed + player``) is asked at one state of every
    information set. Bots in ``EXACT_BOTS`` give their action distribution
    (``get_policy``); any other is asked ``samples`` times and its action
    frequencies are returned. Information sets with one legal action are not asked.
    """
    from ..agents.registry import make_bot, parse_spec

    bot_name = parse_spec(spec)[0].name
    exact = bot_name in EXACT_BOTS
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    game = tree.game
    bots = [make_bot(spec, game, player, seed + player) for player in range(tree.num_players)]
    out = np.zeros(tree.num_sequences)
    infosets = range(tree.num_infosets)
    for infoset in progress_bar(infosets, desc=f"asking {spec}", disable=not progress, unit=" infosets"):
        first, stop = int(tree.infoset_first[infoset]), int(tree.infoset_first[infoset + 1])
        if stop - first == 1:
            out[first] = 1.0
            continue
        state = tree.state(infoset)
        bot = bots[int(tree.infoset_player[infoset])]
        actions = tree.sequence_action[first:stop]
        if exact:
            given = dict(bot.get_policy(state))
            out[first:stop] = [given.get(int(a), 0.0) for a in actions]
            continue
        position = {int(a): k for k, a in enumerate(actions)}
        for _ in range(samples):
            out[first + position[int(bot.step(state))]] += 1.0 / samples
    return out
