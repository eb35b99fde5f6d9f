"""Elemental Duel: the observation and information-state tensors (pieces ``OBS`` and ``INFO`` of rules.py)."""

from __future__ import annotations

import numba as nb

from ...core.arrays import fill
from ...core.observers import Privacy
from .rules import (
    DUEL,
    DUEL_FEATURES,
    FIGHT_HIDDEN,
    INFO,
    LOG,
    LOG_FIELDS,
    NUM_CARDS,
    NUM_KINDS,
    NUM_TYPES,
    OBS,
    C,
    S,
    duel_winner,
    icons,
    turns_over,
)

# What only the observer knows (core/observers.py cuts the public and private
# observation types by it): its own face-down card in the current duel, and in
# the history the face-down cards it took back to hand unrevealed (ruling 8).
# Both hands are public by elimination.
PRIVACY = Privacy(
    private=("own_face_down",),
    private_columns={"history": (DUEL.own_hidden, DUEL.own_hidden + NUM_CARDS)},
)


@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    other = 1 - player
    out[cfg[OBS.observer] + player] = 1.0
    attacker = state[S.attacker]
    if attacker >= 0:
        out[cfg[OBS.attacker] + (0 if attacker == player else 1)] = 1.0
    out[cfg[OBS.phase] + state[S.phase]] = 1.0
    for q in range(2):
        p = player if q == 0 else other
        for c in range(NUM_CARDS):
            held_card = state[S.hand + NUM_CARDS * p + c]
            out[cfg[OBS.hands] + NUM_CARDS * q + c] = held_card
            out[cfg[OBS.played] + NUM_CARDS * q + c] = 1 - held_card
        for j in range(2 * NUM_KINDS):
            out[cfg[OBS.held] + 2 * NUM_KINDS * q + j] = state[S.held + 2 * NUM_KINDS * p + j]
        for t in range(NUM_TYPES):
            out[cfg[OBS.icons] + NUM_TYPES * q + t] = icons(state, p, t)
    if state[S.contested] >= 0:
        out[cfg[OBS.contested] + state[S.contested]] = 1.0
    for j in range(NUM_KINDS):
        out[cfg[OBS.stack] + j] = state[S.stack + j]
    out[cfg[OBS.duels_left]] = cfg[C.duels] - state[S.duels]
    if state[S.shown] >= 0:
        out[cfg[OBS.face_up] + state[S.shown]] = 1.0
    if attacker == player and state[S.hidden] >= 0:
        out[cfg[OBS.own_face_down] + state[S.hidden]] = 1.0
    elif attacker == other and state[S.defended] >= 0:
        out[cfg[OBS.own_face_down] + state[S.defended]] = 1.0


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    first = state[S.first]
    if first >= 0:
        out[cfg[INFO.first_attacker] + (0 if first == player else 1)] = 1.0
    for i in range(state[S.duels]):
        log = S.log + LOG_FIELDS * i
        base = cfg[INFO.history] + DUEL_FEATURES * i
        attacker = first ^ (i & 1)
        kind = state[log + LOG.kind]
        hidden = state[log + LOG.hidden]
        shown = state[log + LOG.shown]
        defended = state[log + LOG.defended]
        fought = state[log + LOG.fought]
        attacker_card = hidden if fought == FIGHT_HIDDEN else shown
        winner = duel_winner(attacker, attacker_card, defended)
        card = attacker_card if winner == attacker else defended
        out[base + DUEL.kind + kind] = 1.0
        out[base + DUEL.attacker + (0 if attacker == player else 1)] = 1.0
        out[base + DUEL.shown + shown] = 1.0
        out[base + DUEL.fought + fought - FIGHT_HIDDEN] = 1.0
        out[base + DUEL.attacker_card + attacker_card] = 1.0
        out[base + DUEL.defended + defended] = 1.0
        # The hidden card that went back to hand is known to its owner only.
        if attacker == player:
            out[base + DUEL.own_hidden + hidden] = 1.0
        out[base + DUEL.winner + (0 if winner == player else 1)] = 1.0
        out[base + DUEL.turned] = 1.0 if turns_over(card, kind) else 0.0
