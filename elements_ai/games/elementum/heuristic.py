"""Elementum: the ``rules`` bot, ``heuristic`` (RULES.md's rules of thumb)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy
from ...core.rng import uniform
from .cards import (
    ADDITICIUS,
    BIFARIUS,
    CARD_ELEMENT,
    CARD_KIND,
    CARD_SLOTS,
    EVERSOR,
    LAPIS,
    MUTARE,
    NUM_SPELLS,
    SPECULUM,
    UNIVERSAL,
    VELOCITATIS,
    VITIUM,
)
from .rules import _any_destroy_target
from .scoring import current_score
from .state import (
    A_ADD,
    A_COLUMN,
    A_COPY,
    A_CRYSTAL,
    A_DESTROY,
    A_GIVE,
    A_NO_CRYSTAL,
    A_NO_SWAP,
    A_OVERLOAD_TO,
    A_PICK,
    A_SWAP,
    A_TAKE,
    A_TIE_BREAKER,
    CFG,
    DEC_ADD,
    DEC_BIFARIUS,
    DEC_COLUMN,
    DEC_COPY,
    DEC_CRYSTAL,
    DEC_DESTROY,
    DEC_GIVE,
    DEC_OVERLOAD,
    DEC_PICK,
    DEC_SWAP,
    DEC_TAKE,
    FLOAT,
    FLOATS,
    INT,
    LOC_DESTROYED,
    LOC_HAND,
    LOC_LAYOUT,
    LOC_POOL,
    NUM_COLUMNS,
    RNG,
    STATE,
    STEP_EFFECTS,
    C,
    S,
    _auto_column,
    _copy_target,
    _destroy_target,
    _in_layout,
    _overload_target,
    _place,
    _remove_from_layout,
    void,
)

# Flat bonus of the rules bot for a card's immediate effect (points), by card.
_BONUS_BY_KIND = {ADDITICIUS: 3.0, EVERSOR: 3.0, LAPIS: 2.0, SPECULUM: 2.0, VELOCITATIS: 2.0, MUTARE: 1.0,
                  BIFARIUS: 1.0}
IMMEDIATE_BONUS = np.array([_BONUS_BY_KIND.get(int(kind), 0.0) for kind in CARD_KIND], np.float64)
SLOT_BONUS = 1.0  # a card that can take a crystal, while the picker holds one
SWAP_MARGIN = 3.0  # a swap costs a crystal: only for a card this much better
# Speculum's choice, best first.
COPY_PREFERENCE = np.array([ADDITICIUS, LAPIS, VELOCITATIS, EVERSOR, MUTARE, BIFARIUS, VITIUM], np.int64)
EPS = 1e-9


@nb.njit(void(FLOAT, INT, FLOATS, RNG), cache=True, _nrt=False)
def _consider(value, action, best, rng):
    """Reservoir choice among equal values: best = (value, action, ties)."""
    if value > best[0] + EPS:
        best[0] = value
        best[1] = action
        best[2] = 1.0
    elif value > best[0] - EPS:
        best[2] += 1.0
        if uniform(rng, 0) * best[2] < 1.0:
            best[1] = action


@nb.njit(FLOAT(CFG, STATE, INT, INT, INT, STATE), cache=True, _nrt=False)
def _placement_gain(cfg, state, seat, card, col, work):
    """Points ``seat`` gains by ``card`` in column ``col`` (-1: its element's)."""
    copy(work, state)
    if _in_layout(work, card):
        _remove_from_layout(cfg, work, card)
    _place(cfg, work, seat, card, _auto_column(cfg, work, seat, card) if col < 0 else col)
    return current_score(cfg, work, seat) - current_score(cfg, state, seat)


@nb.njit(cache=True, _nrt=False)
def _best_gain(cfg, state, seat, card, work):
    if CARD_ELEMENT[card] != UNIVERSAL:
        return _placement_gain(cfg, state, seat, card, -1, work)
    best = -1e9
    for col in range(NUM_COLUMNS):
        best = max(best, _placement_gain(cfg, state, seat, card, col, work))
    return best


@nb.njit(cache=True, _nrt=False)
def _removal_loss(cfg, state, card, work):
    owner = state[S.loc + card] - LOC_LAYOUT
    copy(work, state)
    _remove_from_layout(cfg, work, card)
    work[S.loc + card] = LOC_DESTROYED
    return current_score(cfg, state, owner) - current_score(cfg, work, owner)


@nb.njit(cache=True)
def heuristic(cfg, state, player, rng):
    """A beginner's move, by the rules of thumb in RULES.md:

    pick the card that adds most to your score now (plus a flat bonus for a useful
    immediate effect, and for a crystal slot while you hold a crystal); put a
    universal card where it adds most; swap only for a pool card worth 3 points more;
    destroy the card whose loss costs its owner most; copy the first available of
    Additicius, Lapis, Velocitatis, Eversor, Mutare, Bifarius, Vitium; give away the
    card you miss least and take / add the pool card that adds most; keep Bifarius as
    a tie-breaker; put a crystal where it adds most (none if it adds nothing); hand
    the Overload to the leading opponent. Ties at random.
    """
    work = np.empty_like(state)
    best = np.array([-1e18, -1.0, 0.0])
    decision = state[S.decision]
    if decision == DEC_PICK:
        loc = LOC_HAND + state[S.hand_of + player]
        for c in range(NUM_SPELLS):
            if state[S.loc + c] != loc:
                continue
            value = _best_gain(cfg, state, player, c, work)
            kind = CARD_KIND[c]
            useful = True
            if kind == LAPIS:
                useful = state[S.supply] > 0
            elif kind == EVERSOR:
                useful = _any_destroy_target(cfg, state, player)
            elif kind == ADDITICIUS:
                useful = state[S.pool_count] > 0
            if useful:
                value += IMMEDIATE_BONUS[c]
            if CARD_SLOTS[c] > 0 and state[S.crystals + player] > 0:
                value += SLOT_BONUS
            _consider(value, A_PICK + c, best, rng)
    elif decision == DEC_COLUMN:
        card = state[S.placing + player]
        for col in range(NUM_COLUMNS):
            _consider(_placement_gain(cfg, state, player, card, col, work), A_COLUMN + col, best, rng)
    elif decision == DEC_SWAP:
        _consider(0.0, A_NO_SWAP, best, rng)
        mine = state[S.placed + player]
        without = state.copy()  # the layout with the pick back in the pool
        _remove_from_layout(cfg, without, mine)
        without[S.loc + mine] = LOC_POOL
        loss = current_score(cfg, state, player) - current_score(cfg, without, player)
        for c in range(NUM_SPELLS):
            if state[S.loc + c] == LOC_POOL:
                value = _best_gain(cfg, without, player, c, work) - loss - SWAP_MARGIN
                if value > 0:
                    _consider(value, A_SWAP + c, best, rng)
    elif decision == DEC_DESTROY:
        for c in range(NUM_SPELLS):
            if _destroy_target(cfg, state, player, c):
                _consider(_removal_loss(cfg, state, c, work), A_DESTROY + c, best, rng)
    elif decision == DEC_COPY:
        for i in range(COPY_PREFERENCE.shape[0]):
            kind = COPY_PREFERENCE[i]
            if best[1] >= 0:
                break
            useful = not (kind == LAPIS and state[S.supply] == 0) and not (
                kind == VELOCITATIS and state[S.step] != STEP_EFFECTS)
            for c in range(NUM_SPELLS):
                if useful and CARD_KIND[c] == kind and _copy_target(state, c):
                    _consider(0.0, A_COPY + c, best, rng)
        if best[1] < 0:
            for c in range(NUM_SPELLS):
                if _copy_target(state, c):
                    _consider(0.0, A_COPY + c, best, rng)
    elif decision == DEC_GIVE:
        for c in range(NUM_SPELLS):
            if state[S.loc + c] == LOC_LAYOUT + player:
                _consider(-_removal_loss(cfg, state, c, work), A_GIVE + c, best, rng)
    elif decision == DEC_TAKE or decision == DEC_ADD:
        family = A_TAKE if decision == DEC_TAKE else A_ADD
        for c in range(NUM_SPELLS):
            if state[S.loc + c] == LOC_POOL and not (decision == DEC_TAKE and c == state[S.given]):
                _consider(_best_gain(cfg, state, player, c, work), family + c, best, rng)
    elif decision == DEC_BIFARIUS:
        best[1] = A_TIE_BREAKER
    elif decision == DEC_CRYSTAL:
        _consider(EPS * 2, A_NO_CRYSTAL, best, rng)
        now = current_score(cfg, state, player)
        for c in range(NUM_SPELLS):
            if state[S.loc + c] == LOC_LAYOUT + player and state[S.cryst + c] < CARD_SLOTS[c]:
                copy(work, state)
                work[S.cryst + c] += 1
                _consider(current_score(cfg, work, player) - now, A_CRYSTAL + c, best, rng)
    elif decision == DEC_OVERLOAD:
        for q in range(cfg[C.seats]):
            if _overload_target(cfg, state, player, q):
                _consider(float(current_score(cfg, state, q)), A_OVERLOAD_TO + q, best, rng)
    return int(best[1])
