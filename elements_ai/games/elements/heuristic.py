"""Elements (2016): the ``rules`` bot."""

from __future__ import annotations

import numba as nb

from .rules import KNOCK, NUM_VALUES, TAKE, YIELD, S, limit, player_sum


@nb.njit(cache=True, _nrt=False)
def heuristic(cfg, state, player, rng):
    """A beginner's move (RULES.md): take while it fits, knock, else shed the top card."""
    total = player_sum(state, player)
    table = limit(cfg, state)
    if total <= table:
        length = state[S.display_len]
        if length > 0 and total + 2 * state[S.display + length - 1] <= table:
            return TAKE
        return KNOCK
    for v in range(NUM_VALUES - 1, -1, -1):
        if state[S.hand + NUM_VALUES * player + v] > 0:
            return v
    return YIELD
