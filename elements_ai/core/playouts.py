"""Whole random games inside numba: the rollouts of search and the playout benchmark."""

from __future__ import annotations

import numba as nb
import numpy as np

from .generic import generic, rules
from .kernel import CHANCE, TERMINAL, Config, Kernel
from .rng import seed_streams, uniform


@generic(no_runtime=True)
def play_out(cfg, state, mask, probs, rng, stream, ret):
    """Plays random actions (and chance, drawn from ``rng[stream]``) from ``state`` to
    the end; returns the number of decisions and writes the returns into ``ret``.
    ``mask`` and ``probs`` are scratch."""
    steps = 0
    player = rules.current_player(cfg, state)
    while player != TERMINAL:
        if player == CHANCE:
            action = rules.sample_outcome(cfg, state, probs, uniform(rng, stream))
        else:
            action = rules.sample_action(cfg, state, mask, uniform(rng, stream))
            steps += 1
        rules.apply(cfg, state, action)
        player = rules.current_player(cfg, state)
    rules.returns(cfg, state, ret)
    return steps


@generic(parallel=True)
def _random_playouts(cfg, template, num_actions, num_chance, seed, rets, lengths):
    games = rets.shape[0]
    rng = np.empty(games, np.uint64)
    seed_streams(seed, rng)
    for g in nb.prange(games):
        state = template.copy()
        mask = np.empty(num_actions, np.bool_)
        probs = np.empty(num_chance, np.float64)
        rules.init(cfg, state)
        # int64, as search passes it (prange's index is unsigned): one compiled play_out.
        lengths[g] = play_out(cfg, state, mask, probs, rng, np.int64(g), rets[g])


def random_playouts(kernel: Kernel, config: Config, num_games: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Plays ``num_games`` uniformly random games from the start, all in numba, one
    seeded stream per game (so results do not depend on the threads).

    Returns ``(returns (G, players), lengths (G,))``, a length counting the players'
    decisions (chance outcomes are not counted).

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements", single_round=True)
    >>> rets, lengths = random_playouts(game.kernel, game.config, 100, seed=1)
    >>> rets.shape, bool((rets.sum(axis=1) == 0).all())
    ((100, 2), True)
    """
    if int(num_games) < 1:
        raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
    rets = np.zeros((int(num_games), config.num_players), np.float64)
    lengths = np.zeros(int(num_games), np.int64)
    template = np.zeros(config.state_size, kernel.state_dtype)
    _random_playouts[kernel](
        config.cfg, template, config.num_actions, max(config.max_chance_outcomes, 1), int(seed), rets, lengths
    )
    return rets, lengths
