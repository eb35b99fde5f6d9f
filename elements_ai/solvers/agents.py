"""Solved policies as bots, and any bot as a policy whose exploitability can be measured.

``PolicyBot`` plays a policy file (``make_bot("cfr:policy=FILE", game, player,
seed)``): at each decision it draws an action from the policy's probabilities at
its information set, with its own seeded stream.

``bot_policy`` goes the other way: it asks a bot for its move at one state of every
information set of the tree and returns the policy it plays there, so
``evaluate_probs`` (``evaluate_compact`` on a compact tree) gives its exact NashConv
and exploitability. A bot that states its action distribution (``random``, the
policy bots, a bot with ``played_policy``) is read exactly; any other is sampled
``samples`` times per information set and measured by its empirical action
frequencies (the figure then carries sampling noise; more samples, less).

A network bot (``ppo`` and the bots derived from it) is read exactly and in bulk
(``network_probs``): the states of the information sets are rebuilt and encoded in
numba, in batches, on every core (``infostates.py``), and each batch is one numpy
forward pass, so the 2.8e7 information sets of the full-deck three-card round need
no Python call each. The ``rules`` bot is read the same way (``rules_probs``: the
kernel's heuristic on every core), ``random`` is the uniform policy, and a policy
bot's table is matched to a compact tree's information sets in bulk
(``compact_probs``). A ``psro`` bot on a flat tree is its members, each read as
above, mixed exactly (``mixture.mixture_probs``).

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

import numba as nb
import numpy as np
import pyspiel

from ..agents.bots import RandomBot, RulesBot, SeatBot, fingerprint_of
from ..agents.netbots import PPOBot, PSROBot
from ..core.params import Param, ParameterError
from ..core.rng import uniform
from ..progress import progress_bar
from .best_response import uniform_probs
from .compact import CompactTree
from .infostates import BATCH, encode_states, heuristic_moves, infoset_states
from .policy import PolicyMismatch, PolicyTable, load_policy
from .tree import Tree

__all__ = ["EXACT_BOTS", "MCCFRPolicyBot", "PolicyBot", "bot_policy", "is_exact_bot", "network_probs", "read_policy",
           "rules_probs"]

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


def bot_policy(
    tree: Tree | CompactTree, spec: str, samples: int = 32, seed: int = 0, progress: bool = False,
    batch: int = BATCH,
) -> np.ndarray:
    """The policy the bot ``spec`` plays, one probability per sequence of ``tree`` (a
    flat or a compact tree).

    One bot per seat (seeded ``seed + player``) is asked at one state of every
    information set. A ``psro`` bot is the exact mixture of its members
    (``mixture.mixture_probs``). A network bot (``ppo``, or any bot class derived from
    ``PPOBot`` that plays as it does) is read exactly and in batches:
    ``network_probs``; one that overrides ``played_policy`` is read from it. Bots in
    ``EXACT_BOTS`` give their action distribution (``get_policy``), and any other bot
    that states what it plays (``played_policy``) is read from it; any other is asked
    ``samples`` times and its action frequencies are returned. Information sets with
    one legal action are not asked.
    """
    from ..agents.registry import make_bot, parse_spec

    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    bot_name = parse_spec(spec)[0].name
    game = tree.game
    bots = [make_bot(spec, game, player, seed + player) for player in range(tree.num_players)]
    if all(type(bot) is PSROBot for bot in bots):
        from .mixture import mixture_probs

        members = [bot_policy(tree, member, samples, seed, progress, batch) for member in bots[0].member_specs]
        return mixture_probs(tree, members, bots[0].weights)
    if all(isinstance(bot, PPOBot) and type(bot).played_policy is PPOBot.played_policy for bot in bots):
        return network_probs(tree, bots, seed=seed, progress=progress, batch=batch)
    if all(type(bot) is RandomBot for bot in bots):
        return uniform_probs(tree)
    if all(type(bot) is RulesBot for bot in bots):
        return rules_probs(tree, samples=samples, seed=seed, progress=progress, batch=batch)
    if isinstance(tree, CompactTree) and all(type(bot) in (PolicyBot, MCCFRPolicyBot) for bot in bots):
        from .compact.values import compact_probs

        return compact_probs(tree, bots[0].table)
    exact = bot_name in EXACT_BOTS
    stated = all(callable(getattr(bot, "played_policy", None)) for bot in bots)
    out = np.zeros(tree.num_sequences)
    single = np.flatnonzero(np.diff(tree.infoset_first) == 1)
    out[tree.infoset_first[single]] = 1.0
    if isinstance(tree, CompactTree):
        # No node pointers to replay a history along: the states come from the walk.
        asked = ((infoset, game.state_from_array(row)) for infosets, states in infoset_states(tree, batch)
                 for infoset, row in zip(infosets.tolist(), states))
        total = len(tree.infoset_first) - 1 - len(single)
    else:
        asked = ((infoset, tree.state(infoset)) for infoset in range(tree.num_infosets)
                 if tree.infoset_first[infoset + 1] - tree.infoset_first[infoset] > 1)
        total = tree.num_infosets - len(single)
    for infoset, state in progress_bar(asked, total=total, desc=f"asking {spec}", disable=not progress,
                                       unit=" infosets"):
        first, stop = int(tree.infoset_first[infoset]), int(tree.infoset_first[infoset + 1])
        bot = bots[int(tree.infoset_player[infoset])]
        actions = tree.sequence_action[first:stop]
        if exact or stated:
            given = dict(bot.get_policy(state)) if exact else bot.played_policy(state)
            out[first:stop] = [given.get(int(a), 0.0) for a in actions]
            continue
        position = {int(a): k for k, a in enumerate(actions)}
        for _ in range(samples):
            out[first + position[int(bot.step(state))]] += 1.0 / samples
    return out


def is_exact_bot(spec: str) -> bool:
    """Is the bot ``spec`` read exactly by ``bot_policy`` (its stated distribution), not sampled?"""
    from ..agents.registry import parse_spec

    entry = parse_spec(spec)[0]
    if entry.name in EXACT_BOTS:
        return True
    return callable(getattr(entry.load(), "played_policy", None))


@nb.njit(cache=True)
def _scatter(infosets, infoset_first, sequence_action, probs, out):
    """``out`` at the sequences of ``infosets[b]``: row ``b`` of ``probs`` at their actions."""
    for b in range(infosets.shape[0]):
        infoset = infosets[b]
        for s in range(infoset_first[infoset], infoset_first[infoset + 1]):
            out[s] = probs[b, sequence_action[s]]


def network_probs(
    tree: Tree | CompactTree, bots: list[PPOBot], seed: int = 0, progress: bool = False, batch: int = BATCH
) -> np.ndarray:
    """What the network bots ``bots`` (one a seat) play, one probability per sequence
    of ``tree``: exactly their ``played_policy`` at every information set.

    The states come in batches (``infostates.infoset_states``) and are encoded on
    every core; each seat's rows then take one forward pass of its network (numpy,
    on BLAS's threads). A greedy bot plays the most likely legal action (the first
    of equals); a bot with a solved endgame plays its policy where it has one. A
    network that takes the rules bot's move as a hint gets it from the game's
    heuristic (ties broken from a stream of ``seed``, as the bot's own are drawn).

    >>> import elements_ai
    >>> from elements_ai.agents import make_bot
    >>> from elements_ai.solvers import build_compact, evaluate_compact
    >>> game = elements_ai.load_game("elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)")
    >>> tree = build_compact(game)
    >>> bots = [make_bot("ppo", game, player) for player in range(2)]
    >>> round(evaluate_compact(tree, network_probs(tree, bots)).exploitability, 4)
    0.9273
    """
    game = tree.game
    if len(bots) != tree.num_players:
        raise ValueError(f"one bot a seat: {tree.num_players} seats, {len(bots)} bots")
    out = np.zeros(tree.num_sequences)
    single = np.flatnonzero(np.diff(tree.infoset_first) == 1)
    out[tree.infoset_first[single]] = 1.0
    hint = any(bot.net.hint for bot in bots)
    total = len(tree.infoset_first) - 1 - len(single)
    with progress_bar(total=total, desc="network policy", disable=not progress, unit=" infosets",
                      unit_scale=True) as bar:
        for infosets, states in infoset_states(tree, batch):
            players, tensors, masks, hints = encode_states(game, states, hint, seed)
            probs = np.zeros(masks.shape)
            for player, bot in enumerate(bots):
                rows = np.flatnonzero(players == player)
                if rows.size == 0:
                    continue
                mine = bot.net.probabilities(tensors[rows], masks[rows], hints[rows] if bot.net.hint else None,
                                             bot.temperature)
                if bot.greedy:
                    best = np.argmax(np.where(masks[rows], mine, -1.0), axis=1)
                    mine = np.zeros_like(mine)
                    mine[np.arange(len(rows)), best] = 1.0
                if bot._endgame is not None:
                    for k, row in enumerate(rows.tolist()):
                        exact = bot._endgame.policy(states[row])
                        if exact is not None:
                            mine[k] = 0.0
                            for action, p in exact.items():
                                mine[k, action] = p
                probs[rows] = mine
            _scatter(infosets, tree.infoset_first, tree.sequence_action, probs, out)
            bar.update(len(infosets))
    return out


@nb.njit(cache=True)
def _count_moves(infosets, infoset_first, sequence_action, moves, weight, out):
    """Adds ``weight`` at the sequence of ``infosets[b]`` whose action is ``moves[b]``."""
    for b in range(infosets.shape[0]):
        infoset = infosets[b]
        for s in range(infoset_first[infoset], infoset_first[infoset + 1]):
            if sequence_action[s] == moves[b]:
                out[s] += weight


def rules_probs(
    tree: Tree | CompactTree, samples: int = 32, seed: int = 0, progress: bool = False, batch: int = BATCH
) -> np.ndarray:
    """What the ``rules`` bot plays, one probability per sequence of ``tree``: the
    kernel's heuristic at one state of every information set, in numba, in batches,
    on every core. Each information set is asked ``samples`` times with streams of
    ``seed`` (``seed``, ``seed + 1``, ...), and the action frequencies returned: a
    heuristic that draws nothing (``elements``'s) is thus read exactly.

    >>> import elements_ai
    >>> from elements_ai.solvers import build_compact, evaluate_compact
    >>> game = elements_ai.load_game("elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)")
    >>> tree = build_compact(game)
    >>> probs = rules_probs(tree, samples=2)
    >>> sorted(set(probs.round(6).tolist()))
    [0.0, 1.0]
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    game = tree.game
    out = np.zeros(tree.num_sequences)
    single = np.flatnonzero(np.diff(tree.infoset_first) == 1)
    out[tree.infoset_first[single]] = 1.0
    total = len(tree.infoset_first) - 1 - len(single)
    with progress_bar(total=total, desc="rules policy", disable=not progress, unit=" infosets",
                      unit_scale=True) as bar:
        for infosets, states in infoset_states(tree, batch):
            for k in range(samples):
                moves = heuristic_moves(game, states, seed + k)
                _count_moves(infosets, tree.infoset_first, tree.sequence_action, moves, 1.0 / samples, out)
            bar.update(len(infosets))
    return out
