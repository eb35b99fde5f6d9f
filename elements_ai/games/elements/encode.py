"""Elements (2016): the observation and information-state tensors (pieces ``OBS`` and ``INFO``)."""

from __future__ import annotations

import numba as nb

from ...core.arrays import fill
from ...core.observers import Privacy
from .rules import INFO, NUM_ACTIONS, NUM_VALUES, OBS, S, limit, player_sum

# What only the observer knows (core/observers.py cuts the public and private
# observation types by it): its hand, and this round's deal in the information
# state. Its sum adds the hand to the cards in front of it, public and private
# together: neither view has it. Every other piece is public: the display, the
# cards taken, discarded 6s, hand sizes, scores and the action history.
PRIVACY = Privacy(private=("hand", "deal"), dropped=("sum",))


@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    other = 1 - player
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S.player]
    if to_move >= 0:
        out[cfg[OBS.to_move] + (0 if to_move == player else 1)] = 1.0
    own_cards = 0
    other_cards = 0
    for v in range(NUM_VALUES):
        out[cfg[OBS.hand] + v] = state[S.hand + NUM_VALUES * player + v]
        own_cards += state[S.hand + NUM_VALUES * player + v]
        other_cards += state[S.hand + NUM_VALUES * other + v]
    out[cfg[OBS.hand_sizes]] = own_cards
    out[cfg[OBS.hand_sizes] + 1] = other_cards
    for v in range(NUM_VALUES):
        out[cfg[OBS.front] + v] = state[S.front + NUM_VALUES * player + v]
        out[cfg[OBS.front] + NUM_VALUES + v] = state[S.front + NUM_VALUES * other + v]
    out[cfg[OBS.discarded]] = state[S.discarded + player]
    out[cfg[OBS.discarded] + 1] = state[S.discarded + other]
    for i in range(state[S.display_len]):
        out[cfg[OBS.display] + NUM_VALUES * i + state[S.display + i] - 1] = 1.0
    out[cfg[OBS.limit]] = limit(cfg, state)
    out[cfg[OBS.sum]] = player_sum(state, player)
    out[cfg[OBS.scores]] = state[S.score + player]
    out[cfg[OBS.scores] + 1] = state[S.score + other]


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    for v in range(NUM_VALUES):
        out[cfg[INFO.deal] + v] = state[S.deal + NUM_VALUES * player + v]
    start = state[S.start]
    if start >= 0:
        out[cfg[INFO.round_start] + (0 if start == player else 1)] = 1.0
    for i in range(state[S.history_len]):
        out[cfg[INFO.history] + NUM_ACTIONS * i + state[cfg[S.history] + i]] = 1.0
