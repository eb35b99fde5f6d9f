"""Elementum: information-set sampling, ``resample`` (a state the player cannot tell from the true one)."""

from __future__ import annotations

import numba as nb

from ...core.arrays import copy
from ...core.rng import uniform
from .cards import NUM_CARDS, NUM_SPELLS, OVERLOAD
from .state import (
    A_NO_SWAP,
    A_PICK,
    A_SWAP,
    LOC_BOX,
    LOC_DECK,
    LOC_HAND,
    LOC_PICK,
    LOC_POOL,
    LOG_STRIDE,
    MAX_SEATS,
    NO_SWAP,
    RESAMPLE_SLOTS,
    SCRATCH,
    STEP_SWAP,
    UNDECLARED,
    C,
    S,
)


@nb.njit(cache=True, _nrt=False)
def _hidden_slot(cfg, state, player, card):
    """The resample slot of a card ``player`` cannot place, or -1 when they know where it is.

    Unknown: the deck (the Overload apart: while undealt, everyone knows it is there),
    the box, hands ``player`` has not held this round and the face-down picks made
    from them. A pick made from a hand ``player`` has held is known up to which of
    that hand's cards it is (handled apart)."""
    loc = state[S.loc + card]
    seen = state[S.seen + player]
    slot = -1
    if loc == LOC_DECK and card != OVERLOAD:
        slot = SCRATCH.deck
    elif loc == LOC_BOX:
        slot = SCRATCH.box
    elif loc >= LOC_HAND and loc < LOC_HAND + MAX_SEATS:
        if not (seen >> (loc - LOC_HAND)) & 1:
            slot = SCRATCH.hand + loc - LOC_HAND
    elif loc >= LOC_PICK and loc < LOC_PICK + MAX_SEATS:
        s = loc - LOC_PICK
        if s != player and not (seen >> state[S.hand_of + s]) & 1:
            slot = SCRATCH.pick + s
    return slot


@nb.njit(cache=True, _nrt=False)
def _set_pick(cfg, out, seat, card):
    out[S.loc + card] = LOC_PICK + seat
    out[S.pending + seat] = card
    out[S.log + out[S.pick_log + seat]] = seat * LOG_STRIDE + A_PICK + card


@nb.njit(cache=True, _nrt=False)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``, hidden parts drawn uniformly.

    The cards ``player`` cannot place (see ``_hidden_slot``) are dealt again at random
    into the places they could be (deck, box, unseen hands, picks from unseen hands),
    each place keeping its public size; a pick from a hand ``player`` has held is
    redrawn among that hand's cards; other players' pending swap declarations are
    drawn uniformly among their options (opponents are not modelled). The log's
    hidden entries are rewritten to match.
    """
    copy(out, state)
    for i in range(RESAMPLE_SLOTS):
        out[S.scratch + i] = 0
    unknown = 0
    for c in range(NUM_CARDS):
        slot = _hidden_slot(cfg, state, player, c)
        if slot >= 0:
            out[S.scratch + slot] += 1
            unknown += 1
    round_base = state[S.round] * MAX_SEATS
    for c in range(NUM_CARDS):
        if _hidden_slot(cfg, state, player, c) < 0:
            continue
        k = int(uniform(rng, 0) * unknown)
        slot = 0
        while k >= out[S.scratch + slot]:
            k -= out[S.scratch + slot]
            slot += 1
        out[S.scratch + slot] -= 1
        unknown -= 1
        out[S.origin + c] = -1
        if slot == SCRATCH.deck:
            out[S.loc + c] = LOC_DECK
        elif slot == SCRATCH.box:
            out[S.loc + c] = LOC_BOX
        elif slot < SCRATCH.pick:
            out[S.loc + c] = LOC_HAND + slot - SCRATCH.hand
            out[S.origin + c] = round_base + slot - SCRATCH.hand
        else:
            seat = slot - SCRATCH.pick
            out[S.origin + c] = round_base + state[S.hand_of + seat]
            _set_pick(cfg, out, seat, c)
    seen = state[S.seen + player]
    for s in range(cfg[C.seats]):
        pending = state[S.pending + s]
        hand = state[S.hand_of + s]
        if s == player or pending < 0 or not (seen >> hand) & 1:
            continue
        k = int(uniform(rng, 0) * (state[S.hand_size + hand] + 1))
        for c in range(NUM_SPELLS):
            if state[S.loc + c] == LOC_HAND + hand or c == pending:
                if k == 0:
                    out[S.loc + pending] = LOC_HAND + hand
                    _set_pick(cfg, out, s, c)
                k -= 1
    if state[S.step] == STEP_SWAP:
        for s in range(cfg[C.players]):
            if s == player or state[S.swap + s] == UNDECLARED:
                continue
            k = int(uniform(rng, 0) * (state[S.pool_count] + 1))
            action = A_NO_SWAP
            out[S.swap + s] = NO_SWAP
            for c in range(NUM_SPELLS):
                if state[S.loc + c] == LOC_POOL:
                    if k == 0:
                        action = A_SWAP + c
                        out[S.swap + s] = c
                    k -= 1
            out[S.log + state[S.swap_log + s]] = s * LOG_STRIDE + action
