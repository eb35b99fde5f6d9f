"""Elementum: the observation and information-state tensors (pieces ``OBS`` and ``INFO`` of state.py)."""

from __future__ import annotations

import numba as nb

from ...core.arrays import fill
from ...core.observers import Privacy
from .cards import CARD_KIND, DUPLEX, DUPLEX_REINFORCED_SYMBOLS, DUPLEX_SYMBOLS, NUM_ELEMENTS, NUM_SPELLS
from .scoring import has_tie_breaker
from .state import (
    DEC_TAKE,
    FEATURE,
    FIRST_UNIVERSAL,
    INFO,
    LAYOUT_FEATURES,
    LOC_DESTROYED,
    LOC_HAND,
    LOC_LAYOUT,
    LOC_PICK,
    LOC_PLACING,
    LOC_POOL,
    MAX_ROUNDS,
    MAX_SEATS,
    NO_SWAP,
    NUM_COLUMNS,
    NUM_UNIVERSAL,
    OBS,
    STEP_EFFECTS,
    STEP_SWAP,
    STEP_V_EFFECTS,
    UNDECLARED,
    C,
    S,
    _height,
    _is_imitation,
)

# What only the observer knows (core/observers.py cuts the public and private
# observation types by it): the hand it holds, its face-down pick and its hidden
# swap declaration (ruling 5), and the contents of the hands it has held this
# round. Layouts, the pool, picks once revealed and every count are public.
PRIVACY = Privacy(private=("hand", "own_pick", "own_swap", "known_hands"))


@nb.njit(cache=True, _nrt=False, inline="always")
def _relative(cfg, player, seat):
    return (seat - player + cfg[C.seats]) % cfg[C.seats]


@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    seats = cfg[C.seats]
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S.player]
    if to_move >= 0:
        out[cfg[OBS.to_move] + _relative(cfg, player, to_move)] = 1.0
    out[cfg[OBS.decision] + state[S.decision]] = 1.0
    out[cfg[OBS.step] + state[S.step]] = 1.0
    for k in range(NUM_COLUMNS):
        if state[S.source + k] >= 0:
            out[cfg[OBS.sources] + NUM_ELEMENTS * k + state[S.source + k]] = 1.0
    own_hand = LOC_HAND + state[S.hand_of + player]
    for c in range(NUM_SPELLS):
        loc = state[S.loc + c]
        if loc >= LOC_LAYOUT and loc < LOC_LAYOUT + MAX_SEATS:
            seat = loc - LOC_LAYOUT
            r = _relative(cfg, player, seat)
            col = state[S.col + c]
            at = cfg[OBS.layouts] + (NUM_SPELLS * r + c) * LAYOUT_FEATURES
            out[at + FEATURE.present] = 1.0
            out[at + FEATURE.row] = state[S.row + c]
            out[at + FEATURE.crystals] = state[S.cryst + c]
            if c >= FIRST_UNIVERSAL:
                out[cfg[OBS.universal_columns] + (NUM_UNIVERSAL * r + c - FIRST_UNIVERSAL) * NUM_COLUMNS + col] = 1.0
            n = 1
            if CARD_KIND[c] == DUPLEX and not _is_imitation(cfg, seat):
                n = DUPLEX_REINFORCED_SYMBOLS if state[S.cryst + c] > 0 else DUPLEX_SYMBOLS
            out[cfg[OBS.symbols] + NUM_ELEMENTS * r + state[S.source + col]] += n
        elif loc == own_hand:
            out[cfg[OBS.hand] + c] = 1.0
        elif loc == LOC_PICK + player:
            out[cfg[OBS.own_pick] + c] = 1.0
        elif loc == LOC_POOL:
            out[cfg[OBS.pool] + c] = 1.0
        elif loc == LOC_DESTROYED:
            out[cfg[OBS.destroyed] + c] = 1.0
        elif loc >= LOC_PLACING and loc < LOC_PLACING + MAX_SEATS:  # a universal card
            r = _relative(cfg, player, loc - LOC_PLACING)
            out[cfg[OBS.placing] + NUM_UNIVERSAL * r + c - FIRST_UNIVERSAL] = 1.0
    swapping = state[S.step] == STEP_SWAP
    for s in range(seats):
        r = _relative(cfg, player, s)
        for k in range(NUM_COLUMNS):
            out[cfg[OBS.heights] + NUM_COLUMNS * r + k] = _height(state, s, k)
        out[cfg[OBS.crystals] + r] = state[S.crystals + s]
        out[cfg[OBS.hand_sizes] + r] = state[S.hand_size + state[S.hand_of + s]]
        out[cfg[OBS.picked] + r] = state[S.pending + s] >= 0
        out[cfg[OBS.declared] + r] = swapping and state[S.swap + s] != UNDECLARED
        out[cfg[OBS.tie_breakers] + r] = has_tie_breaker(cfg, state, s)
    out[cfg[OBS.supply]] = state[S.supply]
    if swapping and state[S.swap + player] != UNDECLARED:
        own = state[S.swap + player]
        out[cfg[OBS.own_swap] + (NUM_SPELLS if own == NO_SWAP else own)] = 1.0
    step = state[S.step]
    if (step == STEP_EFFECTS or step == STEP_V_EFFECTS) and state[S.eff_source] >= 0:
        out[cfg[OBS.effect] + state[S.eff_source]] = 1.0
    if state[S.decision] == DEC_TAKE:
        out[cfg[OBS.given] + state[S.given]] = 1.0
    holder = state[S.overload]
    out[cfg[OBS.overload] + (seats if holder < 0 else _relative(cfg, player, holder))] = 1.0
    out[cfg[OBS.reversed]] = state[S.direction] < 0
    out[cfg[OBS.velocitatis]] = state[S.velocity]
    out[cfg[OBS.round] + min(state[S.round], MAX_ROUNDS - 1)] = 1.0
    out[cfg[OBS.turn]] = state[S.turn]


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    seats = cfg[C.seats]
    seen = state[S.seen + player]
    for s in range(seats):
        hand = state[S.hand_of + s]
        if not (seen >> hand) & 1:
            continue
        at = cfg[INFO.known_hands] + NUM_SPELLS * _relative(cfg, player, s)
        for c in range(NUM_SPELLS):
            loc = state[S.loc + c]
            if loc == LOC_HAND + hand or loc == LOC_PICK + s:
                out[at + c] = 1.0
    for c in range(NUM_SPELLS):
        picker = state[S.picker + c]
        if picker >= 0:
            out[cfg[INFO.picks] + NUM_SPELLS * _relative(cfg, player, picker) + c] = state[S.pick_turn + c]
