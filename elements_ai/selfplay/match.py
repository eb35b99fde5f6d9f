"""Games between env-loop players on the vector face, and their scores.

A seat's score in one game is 1 for the sole best return, 1/k when k players share it
and 0 otherwise (for one player: the return scaled to [0, 1] by the game's utility
range); a mean score comes with its 95% Wilson interval.

>>> import elements_ai, numpy as np
>>> from elements_ai.selfplay.players import RandomPlayer, RulesPlayer
>>> env = elements_ai.make_vec("elements", num_envs=64, seed=1, single_round=True)
>>> owners = np.array([[0, 1], [1, 0]] * 32)
>>> returns = play(env, owners, [RulesPlayer(env, 0), RandomPlayer(env, 1)])
>>> mean, low, high = mean_score(seat_scores(returns, owners == 0, env.config))
>>> 0.5 < mean <= 1.0
True
"""

from __future__ import annotations

import math

import numpy as np

from .players import Player


def play(env, owners: np.ndarray, players: list[Player], progress=None) -> np.ndarray:
    """Plays every env of ``env`` from a fresh start to the end; seat ``p`` of env ``b``
    is played by ``players[owners[b, p]]``. Returns the returns (B, players)."""
    env.reset()
    rows_all = np.arange(env.num_envs)
    while not env.terminated.all():
        actions = np.zeros(env.num_envs, np.int64)
        live = ~env.terminated
        owner = owners[rows_all, np.maximum(env.current_player, 0)]
        for k, player in enumerate(players):
            rows = np.flatnonzero(live & (owner == k))
            if len(rows):
                actions[rows] = player.act(env, rows)
        env.step(actions)
        if progress is not None:
            progress.update(int(live.sum()))
    return env.returns.copy()


def seat_scores(returns: np.ndarray, seats: np.ndarray, config) -> np.ndarray:
    """Score (B,) of the seat marked True in each row of ``seats`` (B, players)."""
    seat = np.argmax(seats, axis=1)
    mine = returns[np.arange(len(returns)), seat]
    if returns.shape[1] == 1:
        span = config.max_utility - config.min_utility
        return (mine - config.min_utility) / span if span > 0 else np.ones(len(mine))
    best = returns.max(axis=1)
    sharing = (returns == best[:, None]).sum(axis=1)
    return np.where(mine == best, 1.0 / sharing, 0.0)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``score / n``."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_score(scores: np.ndarray) -> tuple[float, float, float]:
    """The mean score and its 95% Wilson interval."""
    n = len(scores)
    low, high = wilson(float(scores.sum()), n)
    return float(scores.mean()) if n else 0.0, low, high


def rotation(num_games: int, num_players: int, focus: int = 0, other: int = 1) -> np.ndarray:
    """Owners (G, players): in game ``g`` player ``focus`` sits at seat ``g % players``,
    ``other`` at every other seat (seats alternate as in a duplicate schedule)."""
    owners = np.full((num_games, num_players), other, np.int64)
    owners[np.arange(num_games), np.arange(num_games) % num_players] = focus
    return owners
