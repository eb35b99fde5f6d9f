"""Elemental Duel: information-set sampling, ``resample`` (a state the player cannot tell from the true one)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy
from ...core.rng import uniform
from .rules import FIGHT_SHOWN, LOG, LOG_FIELDS, NUM_CARDS, PH_CHOOSE, PH_SHOW, S


@nb.njit(cache=True, _nrt=False)
def _draw_card(hand, exclude, rng):
    """A card drawn uniformly from the hand at ``hand`` (13 entries), not ``exclude``."""
    count = 0
    for c in range(NUM_CARDS):
        if hand[c] == 1 and c != exclude:
            count += 1
    k = int(uniform(rng, 0) * count)
    for c in range(NUM_CARDS):
        if hand[c] == 1 and c != exclude:
            if k == 0:
                return c
            k -= 1
    return -1


@nb.njit(cache=True)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``: unseen face-down cards redrawn.

    What ``player`` never saw: the opponent's face-down card in the current duel
    (the attacker's hidden card, or the defender's card before the fight), and the
    opponent's hidden card in each past duel the opponent attacked and fought with
    the face-up card. Each is drawn uniformly from the cards the opponent held then
    (all public: only fought cards leave a hand) other than the face-up card; the
    draws are independent, since a hidden card that went back to hand changes
    nothing anyone sees. The undrawn territories stay undrawn (future chance).
    """
    copy(out, state)
    other = 1 - player
    first = state[S.first]
    hand = np.ones(NUM_CARDS, np.int64)  # the opponent's cards before duel i
    for i in range(state[S.duels]):
        log = S.log + LOG_FIELDS * i
        attacker = first ^ (i & 1)
        if attacker == other:
            if state[log + LOG.fought] == FIGHT_SHOWN:
                out[log + LOG.hidden] = _draw_card(hand, state[log + LOG.shown], rng)
                hand[state[log + LOG.shown]] = 0
            else:
                hand[state[log + LOG.hidden]] = 0
        else:
            hand[state[log + LOG.defended]] = 0
    phase = state[S.phase]
    if state[S.attacker] == other and phase >= PH_SHOW and phase <= PH_CHOOSE:
        out[S.hidden] = _draw_card(hand, state[S.shown], rng)
    elif state[S.attacker] == player and phase == PH_CHOOSE:
        out[S.defended] = _draw_card(hand, -1, rng)
