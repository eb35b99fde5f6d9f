"""Elements (2016): information-set sampling (``resample``)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy
from ...core.rng import sample_index, uniform
from .rules import DISCARD, NUM_VALUES, SIX, C, S


@nb.njit(cache=True)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``: the opponent's hand is redrawn.

    The unseen cards (deck minus own hand, display, fronts and discarded 6s) are
    dealt uniformly into the opponent's hand (its size is public); the rest are the
    undealt/set-aside cards. Play gives no further constraint on the opponent's
    hand, so this is the exact chance posterior.
    """
    copy(out, state)
    other = 1 - player
    unseen = np.zeros(NUM_VALUES, np.int64)
    for v in range(NUM_VALUES):
        unseen[v] = (
            cfg[C.deck + v]
            - state[S.hand + NUM_VALUES * player + v]
            - state[S.front + v]
            - state[S.front + NUM_VALUES + v]
        )
    for i in range(state[S.display_len]):
        unseen[state[S.display + i] - 1] -= 1
    unseen[SIX] -= state[S.discarded] + state[S.discarded + 1]
    hand_size = 0
    for v in range(NUM_VALUES):
        hand_size += state[S.hand + NUM_VALUES * other + v]
        out[S.hand + NUM_VALUES * other + v] = 0
    for _ in range(hand_size):
        v = sample_index(unseen, NUM_VALUES, uniform(rng, 0))
        unseen[v] -= 1
        out[S.hand + NUM_VALUES * other + v] += 1
    for v in range(NUM_VALUES):
        out[S.deck + v] = unseen[v]
        out[S.deal + NUM_VALUES * other + v] = out[S.hand + NUM_VALUES * other + v]
    start = state[S.start]
    for i in range(state[S.history_len]):
        action = state[cfg[S.history] + i]
        if start ^ (i & 1) == other:
            if action < NUM_VALUES:
                out[S.deal + NUM_VALUES * other + action] += 1
            elif action == DISCARD:
                out[S.deal + NUM_VALUES * other + SIX] += 1
