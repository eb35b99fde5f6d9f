"""Many PUCT searches stepped together, their leaves evaluated by a network in one batch.

The search of ``elements_ai.agents.search`` calls its leaf-value hook from numba, once
per leaf; a network evaluated that way would pay a Python call and a tiny forward pass
per simulation. Here ``G`` searches (one per game being played) advance in lock step:
``descend`` walks every tree from its root to a new leaf (numba), the leaves' tensors
go through the network in one batch, and ``expand_and_back_up`` (numba) expands each
leaf with the network's prior and adds its value along the path. The trees use the
search module's node layout, child creation and PUCT score.

Values are the returns of every player (the network predicts them from the mover's
point of view; ``evaluate`` turns them around), so the backup is max^n as in the
search module and serves any number of players.

>>> import elements_ai, numpy as np
>>> game = elements_ai.load_game("elementos", setup="standard", max_moves=20)
>>> search = BatchedSearch(game, num_searches=3, max_sims=16)
>>> roots = np.stack([game.new_initial_state().array] * 3)
>>> counts = search.run(roots, sims=16, evaluate=search.uniform_evaluator)
>>> counts.sum(axis=1).tolist()
[16, 16, 16]
"""

from __future__ import annotations

from collections.abc import Callable

import numba as nb
import numpy as np

from ..core.arrays import copy
from ..core.generic import generic, rules
from ..core.kernel import CHANCE, TERMINAL
from ..core.rng import sample_index, seeds_from, uniform
from ..core.vec import batch_encode_information_state
from .network import Network, masked_softmax, value_bound
from .search import (
    PUCT,
    T_COLUMNS,
    T_FIRST,
    T_KEY,
    T_NCHILD,
    T_SIBLING,
    T_VISITS,
    _add_child,
    _explore,
    _score,
    reset_tree,
    root_stats,
)

NEEDS_VALUE = 0  # a new decision node: the network gives its prior and value
TERMINAL_LEAF = 1  # the game ended on the way: the returns are known
FULL = 2  # the tree has no room: evaluate without expanding


@generic
def descend(cfg, roots, active, ti, tf, meta, c, lo, scale, work, path, depth, status, ret, probs, rng,
            leaf_player, leaf_mask):
    """Walks each active tree ``g`` from ``roots[g]`` by PUCT to a node not yet expanded
    (chance outcomes drawn from ``rng[g]``); ``status[g]`` says what the leaf needs, and a
    new decision leaf's player and legal mask go to ``leaf_player[g]``, ``leaf_mask[g]``."""
    num_actions = leaf_mask.shape[1]
    for g in range(roots.shape[0]):
        if not active[g]:
            continue
        copy(work[g], roots[g])
        node = 0
        d = 0
        path[g, 0] = 0
        status[g] = NEEDS_VALUE
        while True:
            to_move = rules.current_player(cfg, work[g])
            if to_move == TERMINAL:
                rules.returns(cfg, work[g], ret[g])
                status[g] = TERMINAL_LEAF
                break
            if to_move == CHANCE:
                rules.chance_outcomes(cfg, work[g], probs[g])
                outcome = sample_index(probs[g], probs.shape[1], uniform(rng, g))
                key = num_actions + outcome
                child = ti[g, node, T_FIRST]
                while child >= 0 and ti[g, child, T_KEY] != key:
                    child = ti[g, child, T_SIBLING]
                if child < 0:
                    child = _add_child(ti[g], tf[g], meta[g], node, key, probs[g, outcome])
                    if child < 0:
                        status[g] = FULL
                        break
                rules.apply(cfg, work[g], outcome)
                d += 1
                path[g, d] = child
                node = child
                continue
            if ti[g, node, T_NCHILD] == 0:  # a new leaf
                leaf_player[g] = to_move
                rules.legal_mask(cfg, work[g], leaf_mask[g])
                break
            explore = _explore(PUCT, c, ti[g, node, T_VISITS])
            best = -np.inf
            chosen = -1
            child = ti[g, node, T_FIRST]
            while child >= 0:
                score = _score(
                    ti[g, child, T_VISITS], tf[g, child, to_move], tf[g, child, tf.shape[2] - 1],
                    ti[g, node, T_VISITS], tf[g, node, to_move], PUCT, lo, scale, explore,
                )
                if score > best:
                    best = score
                    chosen = child
                child = ti[g, child, T_SIBLING]
            rules.apply(cfg, work[g], ti[g, chosen, T_KEY])
            d += 1
            path[g, d] = chosen
            node = chosen
        depth[g] = d


@nb.njit(cache=True)
def expand_and_back_up(active, ti, tf, meta, path, depth, status, ret, priors, leaf_mask):
    """Gives each new leaf its children (prior from ``priors[g]``) and adds ``ret[g]`` along the path."""
    num_players = ret.shape[1]
    for g in range(ti.shape[0]):
        if not active[g]:
            continue
        d = depth[g]
        leaf = path[g, d]
        if status[g] == NEEDS_VALUE and ti[g, leaf, T_NCHILD] == 0:
            mask = leaf_mask[g]
            legal = 0
            for a in range(mask.shape[0]):
                legal += mask[a]
            if meta[g, 0] + legal <= ti.shape[1]:  # else evaluated, not expanded
                for a in range(mask.shape[0]):
                    if mask[a]:
                        _add_child(ti[g], tf[g], meta[g], leaf, a, priors[g, a])
        for k in range(d + 1):
            node = path[g, k]
            ti[g, node, T_VISITS] += 1
            for p in range(num_players):
                tf[g, node, p] += ret[g, p]


@nb.njit(cache=True)
def reset_trees(ti, tf, meta, active):
    for g in range(ti.shape[0]):
        if active[g]:
            reset_tree(ti[g], tf[g], meta[g])


@nb.njit(cache=True)
def all_root_stats(ti, tf, players, counts, values):
    for g in range(ti.shape[0]):
        if players[g] >= 0:
            root_stats(ti[g], tf[g], players[g], counts[g], values[g])


# An evaluator takes the leaf states (n, S), their players to move (n,) and legal masks
# (n, A) and returns priors (n, A) and the returns of every player (n, players).
Evaluator = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class BatchedSearch:
    """``num_searches`` PUCT searches of one game, run together by ``run``.

    ``c`` is the PUCT constant on values scaled to [0, 1]; ``max_sims`` sizes the trees
    (a leaf found when its tree is full is evaluated but not expanded). ``noise`` mixes
    Dirichlet(``alpha``) noise into each root's prior (AlphaZero's exploration in self-play).
    """

    def __init__(self, game, num_searches: int, max_sims: int, c: float = 1.5, seed: int = 0,
                 noise: float = 0.0, alpha: float = 0.3, max_children: int = 64):
        config = game.config
        self.game, self.kernel, self.config = game, game.kernel, config
        self.cfg = config.cfg
        g, a, players = int(num_searches), config.num_actions, config.num_players
        nodes = 1 + (int(max_sims) + 1) * min(a, int(max_children)) + a
        self.ti = np.zeros((g, nodes, T_COLUMNS), np.int32)
        self.tf = np.zeros((g, nodes, players + 1), np.float64)
        self.meta = np.zeros((g, 1), np.int64)
        self.work = np.zeros((g, config.state_size), game.kernel.state_dtype)
        self.path = np.zeros((g, config.max_game_length + config.max_chance_nodes + 2), np.int64)
        self.depth = np.zeros(g, np.int64)
        self.status = np.zeros(g, np.int64)
        self.ret = np.zeros((g, players), np.float64)
        self.priors = np.zeros((g, a), np.float64)
        self.probs = np.zeros((g, max(config.max_chance_outcomes, 1)), np.float64)
        self.leaf_player = np.zeros(g, np.int64)
        self.leaf_mask = np.zeros((g, a), np.bool_)
        self.c = float(c)
        self.noise, self.alpha = float(noise), float(alpha)
        self.rng = seeds_from(seed, g)
        self.noise_rng = np.random.default_rng(seed)
        span = config.max_utility - config.min_utility
        self.lo = float(config.min_utility)
        self.scale = 1.0 / span if span > 0 else 1.0
        self._descend = descend[game.kernel]

    def uniform_evaluator(self, states, players, masks):
        """A uniform prior and a value of 0 for everyone (a search with no knowledge)."""
        priors = masks / masks.sum(axis=1, keepdims=True)
        return priors, np.zeros((len(states), self.config.num_players))

    def run(self, roots: np.ndarray, sims: int, evaluate: Evaluator, active: np.ndarray | None = None) -> np.ndarray:
        """Searches from each root state (G, S) for its player to move; returns the root
        children's visit counts (G, A). Rows with ``active`` False are left alone (zeros)."""
        g = self.ti.shape[0]
        active = np.ones(g, np.bool_) if active is None else np.asarray(active, np.bool_)
        reset_trees(self.ti, self.tf, self.meta, active)
        movers = np.full(g, -4, np.int64)
        for sim in range(int(sims) + 1):  # the first round expands the roots
            self._descend(self.cfg, roots, active, self.ti, self.tf, self.meta, self.c, self.lo, self.scale,
                          self.work, self.path, self.depth, self.status, self.ret, self.probs, self.rng,
                          self.leaf_player, self.leaf_mask)
            rows = np.flatnonzero(active & (self.status == NEEDS_VALUE))
            if len(rows):
                players, masks = self.leaf_player[rows], self.leaf_mask[rows]
                priors, values = evaluate(self.work[rows], players, masks)
                if sim == 0:
                    movers[rows] = players
                    if self.noise > 0:
                        priors = self._add_noise(priors, masks)
                self.priors[rows] = priors
                self.ret[rows] = values
            expand_and_back_up(active, self.ti, self.tf, self.meta, self.path, self.depth, self.status, self.ret,
                               self.priors, self.leaf_mask)
        counts = np.zeros((g, self.config.num_actions), np.int64)
        values = np.zeros((g, self.config.num_actions), np.float64)
        all_root_stats(self.ti, self.tf, movers, counts, values)
        return counts

    def _add_noise(self, priors, masks):
        out = np.array(priors, np.float64)
        for k in range(len(out)):
            legal = np.flatnonzero(masks[k])
            if len(legal) > 1:
                noise = self.noise_rng.dirichlet(np.full(len(legal), self.alpha))
                out[k, legal] = (1 - self.noise) * out[k, legal] + self.noise * noise
        return out


def evaluator(game, forward: Callable) -> Callable:
    """A ``BatchedSearch`` evaluator from ``forward(info) -> (logits, values)`` (numpy, float32 in):
    the masked prior and every player's return, from the value head's mover-first order."""
    config = game.config
    players_count = config.num_players
    bound = value_bound(config)
    encode = batch_encode_information_state[game.kernel]

    def evaluate(states, players, masks):
        info = np.empty((len(states), config.info_size), np.float32)
        encode(config.cfg, np.ascontiguousarray(states), np.ascontiguousarray(players, np.int64), info)
        logits, values = forward(info)
        priors = masked_softmax(logits, np.ascontiguousarray(masks))
        relative = np.clip(np.asarray(values, np.float64) * bound, config.min_utility, config.max_utility)
        returns = np.empty_like(relative)
        rows = np.arange(len(states))
        for k in range(players_count):
            returns[rows, (players + k) % players_count] = relative[:, k]
        return priors, returns

    return evaluate


def network_evaluator(net: Network, game) -> Callable:
    """``evaluator`` for a numpy ``Network`` (the ``az`` bot's)."""
    return evaluator(game, net.forward)
