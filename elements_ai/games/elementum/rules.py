"""Elementum: the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file; the cards: ``cards.py``.

Cards are indexed 0..54 (card number - 1); the Overload is index 54. Elements are
0 fire, 1 earth, 2 water, 3 air. A *seat* owns a layout and a hand: the players
0..P-1, and in the solo game the imitation at seat 1. Hands keep their identity
while they travel: hand ``h`` is the one dealt to seat ``h`` this round, and
``S.hand_of + s`` says which hand seat ``s`` holds now.

The constants, the state layout (``S``) and the configuration: ``state.py``; the
scoring: ``scoring.py``. This module holds the setup, the turn structure and the
kernel's moves (initial state, legal actions, chance, apply, returns).
"""

from __future__ import annotations

import numba as nb

from ...core.arrays import fill
from ...core.kernel import CHANCE, TERMINAL
from .cards import (
    ADDITICIUS,
    BIFARIUS,
    BOXED,
    CARD_ELEMENT,
    CARD_IMMEDIATE,
    CARD_KIND,
    CARD_SLOTS,
    DUPLEX,
    EVERSOR,
    LAPIS,
    MUTARE,
    NUM_CARDS,
    NUM_ELEMENTS,
    NUM_SPELLS,
    OVERLOAD,
    SPECULUM,
    SPECULUM_CARD,
    TOTAL_CRYSTALS,
    UNIVERSAL,
    VELOCITATIS,
    VITIUM,
)
from .scoring import score_all
from .state import (
    A_ADD,
    A_COLUMN,
    A_COPY,
    A_CRYSTAL,
    A_DESTROY,
    A_GIVE,
    A_KEEP_OVERLOAD,
    A_NO_CRYSTAL,
    A_NO_SWAP,
    A_OVERLOAD_TO,
    A_PICK,
    A_REVERSE,
    A_SWAP,
    A_TAKE,
    A_TIE_BREAKER,
    ACTOR_DEALT,
    ACTOR_IMITATION,
    ACTOR_OVERLOAD,
    ACTOR_PASS,
    ACTOR_POOL,
    ACTOR_SOURCE,
    BOOL,
    CFG,
    DEC_ADD,
    DEC_BIFARIUS,
    DEC_COLUMN,
    DEC_COPY,
    DEC_CRYSTAL,
    DEC_DESTROY,
    DEC_GIVE,
    DEC_NONE,
    DEC_OVERLOAD,
    DEC_PICK,
    DEC_SWAP,
    DEC_TAKE,
    IMITATION,
    INT,
    LOC_BESIDE,
    LOC_BOX,
    LOC_DECK,
    LOC_DESTROYED,
    LOC_HAND,
    LOC_LAYOUT,
    LOC_OUT,
    LOC_PICK,
    LOC_PLACING,
    LOC_POOL,
    MAX_SEATS,
    NO_CARD,
    NO_SWAP,
    NUM_COLUMNS,
    PARAMS,  # noqa: F401 (the kernel reads PARAMS, VARIANTS and configure from rules)
    START_CRYSTALS,
    STATE,
    STEP_BOX,
    STEP_CRYSTAL,
    STEP_DEAL,
    STEP_EFFECTS,
    STEP_OVER,
    STEP_PICK,
    STEP_PLACE,
    STEP_POOL,
    STEP_SOURCE,
    STEP_SWAP,
    STEP_SWAP_PLACE,
    STEP_V_EFFECTS,
    STEP_V_PICK,
    STEP_V_PLACE,
    SUB_START,
    SUB_STARTED,
    UNDECLARED,
    VARIANTS,  # noqa: F401
    C,
    S,
    _auto_column,
    _chance,
    _copy_target,
    _decide,
    _destroy_target,
    _has_free_slot,
    _has_overload_target,
    _is_imitation,
    _layout_size,
    _log,
    _nth_at,
    _overload_target,
    _place,
    _protected,
    _remove_from_layout,
    configure,  # noqa: F401
)

# --- setup and turns -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    for c in range(NUM_CARDS):
        in_game = c < NUM_SPELLS and cfg[C.in_game + c] == 1
        state[S.loc + c] = LOC_DECK if in_game else LOC_OUT
        state[S.deck_left] += in_game
        state[S.col + c] = -1
        state[S.row + c] = -1
        state[S.origin + c] = -1
        state[S.picker + c] = -1
    for s in range(MAX_SEATS):
        state[S.hand_of + s] = s
        state[S.pending + s] = NO_CARD
        state[S.placing + s] = NO_CARD
        state[S.placed + s] = NO_CARD
        state[S.placed2 + s] = NO_CARD
        state[S.swap + s] = UNDECLARED
        state[S.qf_a + s] = NO_CARD
        state[S.qf_b + s] = NO_CARD
        state[S.imitates + s] = NO_CARD
        state[S.halves + s] = NO_CARD
        if s < cfg[C.players]:
            state[S.crystals + s] = START_CRYSTALS
    for k in range(NUM_COLUMNS):
        state[S.source + k] = -1
        state[S.column_of + k] = -1
    state[S.supply] = TOTAL_CRYSTALS - START_CRYSTALS * cfg[C.players]
    state[S.direction] = 1
    state[S.overload] = -1
    state[S.mark_bifarius] = -1
    state[S.mark_speculum] = -1
    state[S.eff_source] = NO_CARD
    state[S.given] = NO_CARD
    state[S.step] = STEP_SOURCE
    _chance(state)


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S.player]


@nb.njit(cache=True, _nrt=False)
def _start_turn(cfg, state):
    active = 0
    for s in range(cfg[C.seats]):
        if state[S.hand_size + state[S.hand_of + s]] > 0:
            active |= 1 << s
    for s in range(MAX_SEATS):
        state[S.pending + s] = NO_CARD
        state[S.placing + s] = NO_CARD
        state[S.placed + s] = NO_CARD
        state[S.placed2 + s] = NO_CARD
        state[S.swap + s] = UNDECLARED
    state[S.active] = active
    state[S.velocity] = 0
    state[S.eff_source] = NO_CARD
    state[S.given] = NO_CARD
    state[S.step] = STEP_PICK
    state[S.seat] = 0
    state[S.sub] = SUB_START


@nb.njit(cache=True, _nrt=False)
def _start_round(cfg, state):
    for s in range(MAX_SEATS):
        state[S.hand_of + s] = s
        state[S.hand_size + s] = 0
        state[S.seen + s] = 0
    state[S.step] = STEP_DEAL
    state[S.step_count] = 0
    _chance(state)


@nb.njit(cache=True, _nrt=False)
def _end_game(cfg, state):
    if cfg[C.solo] == 1:
        # The pool joins the imitation's layout, in ascending card number.
        for c in range(NUM_SPELLS):
            if state[S.loc + c] == LOC_POOL:
                _place(cfg, state, IMITATION, c, _auto_column(cfg, state, IMITATION, c))
        state[S.pool_count] = 0
    score_all(cfg, state)
    state[S.step] = STEP_OVER
    state[S.player] = TERMINAL
    state[S.decision] = DEC_NONE


@nb.njit(cache=True, _nrt=False)
def _end_turn(cfg, state):
    """Passes the hands on; starts the next turn, round or the scoring."""
    seats = cfg[C.seats]
    state[S.turn] += 1
    left = 0
    for h in range(seats):
        left += state[S.hand_size + h]
    if left > 0:
        if state[S.direction] > 0:  # seat s + 1 receives the hand of seat s
            last = state[S.hand_of + seats - 1]
            for s in range(seats - 1, 0, -1):
                state[S.hand_of + s] = state[S.hand_of + s - 1]
            state[S.hand_of] = last
        else:
            first = state[S.hand_of]
            for s in range(seats - 1):
                state[S.hand_of + s] = state[S.hand_of + s + 1]
            state[S.hand_of + seats - 1] = first
        for s in range(seats):
            state[S.seen + s] |= 1 << state[S.hand_of + s]
        _log(cfg, state, ACTOR_PASS, 0)
        _start_turn(cfg, state)
    else:
        state[S.round] += 1
        if state[S.round] < cfg[C.rounds]:
            _start_round(cfg, state)
        else:
            _end_game(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _reveal(cfg, state, second):
    """Turns the face-down picks up and places them (steps 2 and 5)."""
    for s in range(cfg[C.seats]):
        card = state[S.pending + s]
        if card < 0:
            continue
        state[S.pending + s] = NO_CARD
        state[S.pick_turn + card] = state[S.turn] + 1
        state[S.picker + card] = s
        if second:
            state[S.placed2 + s] = card
        else:
            state[S.placed + s] = card
        if CARD_ELEMENT[card] == UNIVERSAL and not _is_imitation(cfg, s):
            state[S.loc + card] = LOC_PLACING + s
            state[S.placing + s] = card
        else:
            _place(cfg, state, s, card, _auto_column(cfg, state, s, card))
    state[S.revealed] = state[S.log_len]


@nb.njit(cache=True, _nrt=False)
def symbols(cfg, state, seat, element):
    """Symbols of ``element`` in ``seat``'s layout: one per card of its column, a
    Duplex two (four reinforced); each of the imitation's cards is one symbol."""
    col = state[S.column_of + element]
    loc = LOC_LAYOUT + seat
    imitation = _is_imitation(cfg, seat)
    total = 0
    for c in range(NUM_SPELLS):
        if state[S.loc + c] == loc and state[S.col + c] == col:
            if CARD_KIND[c] == DUPLEX and not imitation:
                total += 4 if state[S.cryst + c] > 0 else 2
            else:
                total += 1
    return total


@nb.njit(cache=True, _nrt=False)
def _swap_beats(cfg, state, seat, other, card):
    """Does ``seat`` win the contention for pool ``card`` against ``other`` (ruling 5)?"""
    element = CARD_ELEMENT[card]
    if element != UNIVERSAL:
        mine = symbols(cfg, state, seat, element)
        theirs = symbols(cfg, state, other, element)
        if mine != theirs:
            return mine > theirs
    return state[S.crystals + seat] > state[S.crystals + other]


@nb.njit(cache=True, _nrt=False)
def _resolve_swaps(cfg, state):
    """All declarations at once: a pool card goes to the one declarer who beats every
    other declarer of it (symbols of its element, then crystals); else to nobody."""
    players = cfg[C.players]
    winners = 0
    for s in range(players):
        card = state[S.swap + s]
        if card < 0:
            continue
        wins = True
        for t in range(players):
            if t != s and state[S.swap + t] == card and not _swap_beats(cfg, state, s, t, card):
                wins = False
        if wins:
            winners |= 1 << s
    for s in range(players):
        if (winners >> s) & 1:
            card = state[S.swap + s]
            old = state[S.placed + s]
            state[S.crystals + s] -= 1
            state[S.supply] += 1
            _remove_from_layout(cfg, state, old)  # universal picks got their column in step 2
            state[S.loc + old] = LOC_POOL
            state[S.placed + s] = card
            if CARD_ELEMENT[card] == UNIVERSAL:
                state[S.loc + card] = LOC_PLACING + s
                state[S.placing + s] = card
            else:
                _place(cfg, state, s, card, _auto_column(cfg, state, s, card))
    state[S.revealed] = state[S.log_len]


@nb.njit(BOOL(CFG, STATE, INT), cache=True, _nrt=False)
def _any_destroy_target(cfg, state, seat):
    for c in range(NUM_SPELLS):
        if _destroy_target(cfg, state, seat, c):
            return True
    return False


@nb.njit(cache=True, _nrt=False)
def _any_copy_target(state):
    for c in range(NUM_SPELLS):
        if _copy_target(state, c):
            return True
    return False


@nb.njit(BOOL(CFG, STATE, INT, INT, INT), cache=True, _nrt=False)
def _begin_effect(cfg, state, seat, kind, source):
    """Starts the immediate effect ``kind`` of ``source`` for ``seat``; True when it
    waits for ``seat``'s choice (the decision is set), False when it is done."""
    state[S.eff_source] = source
    waits = False
    if kind == LAPIS:
        if state[S.supply] > 0:
            state[S.supply] -= 1
            state[S.crystals + seat] += 1
    elif kind == VITIUM:
        for q in range(cfg[C.players]):
            if state[S.crystals + q] > 0 and (q == seat or not _protected(cfg, state, q)):
                state[S.crystals + q] -= 1
                state[S.supply] += 1
    elif kind == EVERSOR:
        if _any_destroy_target(cfg, state, seat):
            _decide(state, seat, DEC_DESTROY)
            waits = True
    elif kind == SPECULUM:
        if _any_copy_target(state):
            _decide(state, seat, DEC_COPY)
            waits = True
    elif kind == MUTARE:
        if state[S.pool_count] > 0 and _layout_size(state, seat) > 0:
            _decide(state, seat, DEC_GIVE)
            waits = True
    elif kind == ADDITICIUS:
        if state[S.pool_count] > 0:
            _decide(state, seat, DEC_ADD)
            waits = True
    elif kind == BIFARIUS:
        _decide(state, seat, DEC_BIFARIUS)
        waits = True
    elif kind == VELOCITATIS:
        if state[S.step] == STEP_EFFECTS:  # a second one (step 5) adds nothing
            state[S.velocity] = 1
    return waits


@nb.njit(cache=True, _nrt=False, inline="always")
def _effect_done(state):
    state[S.seat] += 1
    state[S.sub] = SUB_START


@nb.njit(cache=True, _nrt=False)
def _advance(cfg, state):
    """Runs the automatic parts of the turn until a decision, a chance node or the end."""
    players = cfg[C.players]
    seats = cfg[C.seats]
    while True:
        step = state[S.step]
        seat = state[S.seat]
        if step == STEP_PICK or step == STEP_V_PICK:
            while seat < players and state[S.hand_size + state[S.hand_of + seat]] == 0:
                seat += 1
            state[S.seat] = seat
            if seat < players:
                _decide(state, seat, DEC_PICK)
                return
            if (cfg[C.solo] == 1 and state[S.sub] == SUB_START
                    and state[S.hand_size + state[S.hand_of + IMITATION]] > 0):
                state[S.sub] = SUB_STARTED
                _chance(state)
                return
            second = step == STEP_V_PICK
            _reveal(cfg, state, second)
            state[S.step] = STEP_V_PLACE if second else STEP_PLACE
            state[S.seat] = 0
            state[S.sub] = SUB_START
        elif step == STEP_PLACE or step == STEP_SWAP_PLACE or step == STEP_V_PLACE:
            while seat < seats and state[S.placing + seat] < 0:
                seat += 1
            state[S.seat] = seat
            if seat < seats:
                _decide(state, seat, DEC_COLUMN)
                return
            state[S.seat] = 0
            state[S.sub] = SUB_START
            if step == STEP_PLACE:
                state[S.step] = STEP_SWAP
            elif step == STEP_SWAP_PLACE:
                state[S.step] = STEP_EFFECTS
            else:
                state[S.step] = STEP_V_EFFECTS
        elif step == STEP_SWAP:
            if state[S.pool_count] > 0:
                while seat < players and not (
                    (state[S.active] >> seat) & 1 and state[S.crystals + seat] > 0
                ):
                    seat += 1
            else:
                seat = players
            state[S.seat] = seat
            if seat < players:
                _decide(state, seat, DEC_SWAP)
                return
            _resolve_swaps(cfg, state)
            state[S.step] = STEP_SWAP_PLACE
            state[S.seat] = 0
        elif step == STEP_EFFECTS or step == STEP_V_EFFECTS:
            placed = S.placed if step == STEP_EFFECTS else S.placed2
            while seat < players:
                if state[S.sub] == SUB_START:
                    card = state[placed + seat]
                    if card >= 0 and CARD_IMMEDIATE[card]:
                        state[S.sub] = SUB_STARTED
                        if _begin_effect(cfg, state, seat, CARD_KIND[card], card):
                            state[S.seat] = seat
                            return
                seat += 1
                state[S.sub] = SUB_START
            state[S.seat] = 0
            state[S.sub] = SUB_START
            if step == STEP_EFFECTS and state[S.velocity] == 1:
                state[S.step] = STEP_V_PICK
            else:
                state[S.step] = STEP_CRYSTAL
        elif step == STEP_CRYSTAL:
            while seat < players:
                if (state[S.active] >> seat) & 1:
                    if state[S.sub] == SUB_START:
                        if state[S.crystals + seat] > 0 and _has_free_slot(state, seat):
                            state[S.seat] = seat
                            _decide(state, seat, DEC_CRYSTAL)
                            return
                        state[S.sub] = SUB_STARTED
                    if (state[S.overload] == seat and state[S.crystals + seat] > 0
                            and _has_overload_target(cfg, state, seat)):
                        state[S.seat] = seat
                        _decide(state, seat, DEC_OVERLOAD)
                        return
                seat += 1
                state[S.sub] = SUB_START
            _end_turn(cfg, state)
            if state[S.step] == STEP_DEAL or state[S.step] == STEP_OVER:
                return
        else:
            return


# --- the kernel's moves --------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def legal_mask(cfg, state, mask):
    for a in range(mask.shape[0]):
        mask[a] = False
    seat = state[S.player]
    if seat < 0:
        return
    decision = state[S.decision]
    if decision == DEC_PICK:
        loc = LOC_HAND + state[S.hand_of + seat]
        for c in range(NUM_SPELLS):
            mask[A_PICK + c] = state[S.loc + c] == loc
    elif decision == DEC_COLUMN:
        for k in range(NUM_COLUMNS):
            mask[A_COLUMN + k] = True
    elif decision == DEC_SWAP:
        for c in range(NUM_SPELLS):
            mask[A_SWAP + c] = state[S.loc + c] == LOC_POOL
        mask[A_NO_SWAP] = True
    elif decision == DEC_DESTROY:
        for c in range(NUM_SPELLS):
            mask[A_DESTROY + c] = _destroy_target(cfg, state, seat, c)
    elif decision == DEC_COPY:
        for c in range(NUM_SPELLS):
            mask[A_COPY + c] = _copy_target(state, c)
    elif decision == DEC_GIVE:
        loc = LOC_LAYOUT + seat
        for c in range(NUM_SPELLS):
            mask[A_GIVE + c] = state[S.loc + c] == loc
    elif decision == DEC_TAKE:
        for c in range(NUM_SPELLS):
            mask[A_TAKE + c] = state[S.loc + c] == LOC_POOL and c != state[S.given]
    elif decision == DEC_ADD:
        for c in range(NUM_SPELLS):
            mask[A_ADD + c] = state[S.loc + c] == LOC_POOL
    elif decision == DEC_BIFARIUS:
        mask[A_REVERSE] = True
        mask[A_TIE_BREAKER] = True
    elif decision == DEC_CRYSTAL:
        loc = LOC_LAYOUT + seat
        for c in range(NUM_SPELLS):
            mask[A_CRYSTAL + c] = state[S.loc + c] == loc and state[S.cryst + c] < CARD_SLOTS[c]
        mask[A_NO_CRYSTAL] = True
    elif decision == DEC_OVERLOAD:
        for q in range(MAX_SEATS):
            mask[A_OVERLOAD_TO + q] = _overload_target(cfg, state, seat, q)
        mask[A_KEEP_OVERLOAD] = True


@nb.njit(INT(CFG, STATE, INT), cache=True, _nrt=False)
def _nth_legal(cfg, state, k):
    """The ``k``-th legal action in ascending id order (the order of ``legal_mask``),
    or the number of legal actions when ``k`` < 0."""
    seat = state[S.player]
    decision = state[S.decision]
    count = 0
    found = -1
    if decision == DEC_COLUMN or decision == DEC_BIFARIUS:
        count = NUM_COLUMNS if decision == DEC_COLUMN else 2
        found = (A_COLUMN if decision == DEC_COLUMN else A_REVERSE) + k
    elif decision == DEC_OVERLOAD:
        for q in range(MAX_SEATS):
            if _overload_target(cfg, state, seat, q):
                if count == k:
                    found = A_OVERLOAD_TO + q
                count += 1
        if count == k:
            found = A_KEEP_OVERLOAD
        count += 1
    elif decision == DEC_DESTROY or decision == DEC_COPY:
        family = A_DESTROY if decision == DEC_DESTROY else A_COPY
        for c in range(NUM_SPELLS):
            ok = _destroy_target(cfg, state, seat, c) if decision == DEC_DESTROY else _copy_target(state, c)
            if ok:
                if count == k:
                    found = family + c
                count += 1
    elif decision == DEC_CRYSTAL:
        loc = LOC_LAYOUT + seat
        for c in range(NUM_SPELLS):
            if state[S.loc + c] == loc and state[S.cryst + c] < CARD_SLOTS[c]:
                if count == k:
                    found = A_CRYSTAL + c
                count += 1
        if count == k:
            found = A_NO_CRYSTAL
        count += 1
    else:
        # One location to look in, a count the state keeps: no scan to count.
        family = A_PICK
        loc = LOC_POOL
        excluded = -1
        count = state[S.pool_count]
        if decision == DEC_PICK:
            loc = LOC_HAND + state[S.hand_of + seat]
            count = state[S.hand_size + state[S.hand_of + seat]]
        elif decision == DEC_GIVE:
            family = A_GIVE
            loc = LOC_LAYOUT + seat
            count = _layout_size(state, seat)
        elif decision == DEC_SWAP:
            family = A_SWAP
            count += 1  # and "no swap", last
        elif decision == DEC_TAKE:
            family = A_TAKE
            excluded = state[S.given]
            count -= 1
        elif decision == DEC_ADD:
            family = A_ADD
        cards = count - (decision == DEC_SWAP)
        if k >= cards:
            found = A_NO_SWAP  # reached only by the last swap option
        elif k >= 0:
            found = family + _nth_at(state, loc, excluded, cards, k)
    return count if k < 0 else found


@nb.njit(cache=True, _nrt=False)
def sample_legal(cfg, state, u):
    """The ``int(u * n)``-th of the ``n`` legal actions, in ascending id order."""
    return _nth_legal(cfg, state, int(u * _nth_legal(cfg, state, -1)))


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    player = state[S.player]
    step = state[S.step]
    if player == CHANCE and step == STEP_SOURCE:
        p = 1.0 / (NUM_ELEMENTS - state[S.step_count])
        for i in range(probs.shape[0]):
            probs[i] = p if i < NUM_ELEMENTS and state[S.column_of + i] < 0 else 0.0
    else:
        loc, count = _card_draw(state)
        if player != CHANCE:
            loc = -1  # no outcome at all
        p = 1.0 / max(count, 1)
        for i in range(probs.shape[0]):
            probs[i] = p if i < NUM_CARDS and state[S.loc + i] == loc else 0.0


@nb.njit(cache=True, inline="always")
def _card_draw(state):
    """Where a card draw takes its card from, and how many lie there: uniform over the
    deck (the imitation's pick: over its hand)."""
    step = state[S.step]
    if step == STEP_PICK or step == STEP_V_PICK:
        hand = state[S.hand_of + IMITATION]
        return LOC_HAND + hand, state[S.hand_size + hand]
    return LOC_DECK, state[S.deck_left]


@nb.njit(cache=True, _nrt=False)
def sample_chance(cfg, state, u):
    """The ``int(u * n)``-th of the ``n`` equally likely outcomes of ``chance_outcomes``."""
    if state[S.step] == STEP_SOURCE:
        k = int(u * (NUM_ELEMENTS - state[S.step_count]))
        for element in range(NUM_ELEMENTS):
            if state[S.column_of + element] < 0:
                if k == 0:
                    return element
                k -= 1
        return -1
    loc, count = _card_draw(state)
    return _nth_at(state, loc, -1, count, int(u * count))


@nb.njit(cache=True, _nrt=False)
def _apply_chance(cfg, state, outcome):
    step = state[S.step]
    if step == STEP_SOURCE:
        column = state[S.step_count]
        state[S.source + column] = outcome
        state[S.column_of + outcome] = column
        _log(cfg, state, ACTOR_SOURCE, outcome)
        state[S.step_count] += 1
        if state[S.step_count] == NUM_COLUMNS:
            state[S.step] = STEP_BOX
            state[S.step_count] = 0
    elif step == STEP_BOX:
        state[S.loc + outcome] = LOC_BOX
        state[S.deck_left] -= 1
        state[S.step_count] += 1
        if state[S.step_count] == BOXED:
            state[S.step] = STEP_POOL
            state[S.step_count] = 0
    elif step == STEP_POOL:
        state[S.loc + outcome] = LOC_POOL
        state[S.deck_left] -= 1
        state[S.pool_count] += 1
        _log(cfg, state, ACTOR_POOL, outcome)
        state[S.step_count] += 1
        if state[S.step_count] == cfg[C.pool_size]:
            if cfg[C.overload] == 1:  # shuffled in after the box and the pool
                state[S.loc + OVERLOAD] = LOC_DECK
                state[S.deck_left] += 1
            _start_round(cfg, state)
    elif step == STEP_DEAL:
        size = cfg[C.round_size + state[S.round]]
        seat = state[S.step_count] // size
        state[S.deck_left] -= 1
        if outcome == OVERLOAD:
            state[S.loc + outcome] = LOC_BESIDE + seat
            state[S.overload] = seat
            _log(cfg, state, ACTOR_OVERLOAD, seat)
        else:
            state[S.loc + outcome] = LOC_HAND + seat
            state[S.origin + outcome] = state[S.round] * MAX_SEATS + seat
            state[S.hand_size + seat] += 1
        state[S.step_count] += 1
        if state[S.step_count] == cfg[C.seats] * size:
            _log(cfg, state, ACTOR_DEALT, state[S.round])
            for s in range(cfg[C.seats]):
                state[S.seen + s] = 1 << s
            _start_turn(cfg, state)
            _advance(cfg, state)
    else:  # the imitation's pick
        hand = state[S.hand_of + IMITATION]
        state[S.loc + outcome] = LOC_PICK + IMITATION
        state[S.pending + IMITATION] = outcome
        state[S.hand_size + hand] -= 1
        _log(cfg, state, ACTOR_IMITATION, outcome)
        _advance(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _take_from_pool(cfg, state, seat, card):
    """A pool card joins ``seat``'s layout (universal: it waits for a column); True if it waits."""
    state[S.pool_count] -= 1
    waits = CARD_ELEMENT[card] == UNIVERSAL
    if waits:
        state[S.loc + card] = LOC_PLACING + seat
        state[S.placing + seat] = card
        _decide(state, seat, DEC_COLUMN)
    else:
        _place(cfg, state, seat, card, _auto_column(cfg, state, seat, card))
    return waits


@nb.njit(cache=True, _nrt=False)
def apply(cfg, state, action):
    seat = state[S.player]
    if seat == CHANCE:
        _apply_chance(cfg, state, action)
        return
    _log(cfg, state, seat, action)
    decision = state[S.decision]
    step = state[S.step]
    waits = False
    if decision == DEC_PICK:
        card = action - A_PICK
        state[S.loc + card] = LOC_PICK + seat
        state[S.pending + seat] = card
        state[S.hand_size + state[S.hand_of + seat]] -= 1
        state[S.pick_log + seat] = state[S.log_len] - 1
        state[S.seat] = seat + 1
    elif decision == DEC_COLUMN:
        card = state[S.placing + seat]
        state[S.placing + seat] = NO_CARD
        _place(cfg, state, seat, card, action - A_COLUMN)
        if step == STEP_EFFECTS or step == STEP_V_EFFECTS:
            _effect_done(state)
    elif decision == DEC_SWAP:
        state[S.swap + seat] = NO_SWAP if action == A_NO_SWAP else action - A_SWAP
        state[S.swap_log + seat] = state[S.log_len] - 1
        state[S.seat] = seat + 1
    elif decision == DEC_DESTROY:
        card = action - A_DESTROY
        _remove_from_layout(cfg, state, card)
        state[S.loc + card] = LOC_DESTROYED
        _effect_done(state)
    elif decision == DEC_COPY:
        card = action - A_COPY
        waits = _begin_effect(cfg, state, seat, CARD_KIND[card], SPECULUM_CARD)
        if not waits:
            _effect_done(state)
    elif decision == DEC_GIVE:
        card = action - A_GIVE
        _remove_from_layout(cfg, state, card)
        state[S.loc + card] = LOC_POOL
        state[S.pool_count] += 1
        state[S.given] = card
        _decide(state, seat, DEC_TAKE)
        waits = True
    elif decision == DEC_TAKE or decision == DEC_ADD:
        card = action - (A_TAKE if decision == DEC_TAKE else A_ADD)
        waits = _take_from_pool(cfg, state, seat, card)
        if not waits:
            _effect_done(state)
    elif decision == DEC_BIFARIUS:
        if action == A_REVERSE:
            state[S.direction] = -state[S.direction]
        elif state[S.eff_source] == SPECULUM_CARD:
            state[S.mark_speculum] = seat
        else:
            state[S.mark_bifarius] = seat
        _effect_done(state)
    elif decision == DEC_CRYSTAL:
        if action != A_NO_CRYSTAL:
            state[S.cryst + action - A_CRYSTAL] += 1
            state[S.crystals + seat] -= 1
        state[S.sub] = SUB_STARTED
    elif decision == DEC_OVERLOAD:
        if action != A_KEEP_OVERLOAD:
            target = action - A_OVERLOAD_TO
            state[S.overload] = target
            state[S.loc + OVERLOAD] = LOC_BESIDE + target
            state[S.crystals + seat] -= 1
            state[S.supply] += 1
        state[S.seat] = seat + 1
        state[S.sub] = SUB_START
    if not waits:
        _advance(cfg, state)


@nb.njit(cache=True, _nrt=False)
def returns(cfg, state, out):
    for p in range(out.shape[0]):
        out[p] = 0.0
    if state[S.player] == TERMINAL:
        players = cfg[C.players]
        if players == 1:
            out[0] = state[S.score]
        else:
            total = 0.0
            for p in range(players):
                total += state[S.score + p]
            for p in range(players):
                out[p] = state[S.score + p] - total / players
