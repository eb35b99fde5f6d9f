"""Elementum: the scoring, in numba: every seat's points and each card's (with ruling 4's
best choices), which the returns and the encoders read; ``scorecard.py`` scores layouts
by hand through it."""

from __future__ import annotations

import numba as nb

from .cards import (
    ACERVUS,
    AMBIENTIA,
    BIFARIUS_CARD,
    CARD_DURING_SCORING,
    CARD_KIND,
    CARD_X,
    CARD_Y,
    COLLATIO,
    COLLIGIT,
    COLLIGIT_BONUS,
    COLLIGIT_BONUS_EVERY,
    COMMODUM,
    COMMODUM_CARD,
    DUPLEX,
    DUPLEX_REINFORCED_SYMBOLS,
    DUPLEX_SYMBOLS,
    IMITARI_CARD,
    INIQUUS,
    MULTUS,
    NUM_ELEMENTS,
    NUM_SPELLS,
    OVERLOAD_PENALTY,
    PRAESTANTIA,
    PRAESTANTIA_POINTS,
    PRAESTANTIA_REINFORCED,
    PROPTER,
    PROPTER_POINTS,
    PROPTER_REINFORCED,
    QUI_FIERI_CARD,
    RECTUS,
    ROWS_MAJORITY_POINTS,
    SET_POINTS,
    SPECULUM_CARD,
    VICINARI,
    VICINARI_POINTS,
    VICINARI_REINFORCED,
    VIR_DIVES,
    VIR_DIVES_STEPS,
)
from .state import (
    ACERVUS_TABLE,
    AMBIENTIA_BASIC_TABLE,
    AMBIENTIA_REINFORCED_TABLE,
    BOOL,
    CFG,
    INT,
    LOC_LAYOUT,
    MAX_SEATS,
    NO_CARD,
    NUM_COLUMNS,
    STATE,
    C,
    S,
    _height,
    _in_layout,
    _is_imitation,
)


@nb.njit(cache=True, _nrt=False)
def _count_symbols(cfg, state):
    """``S.sym``: every seat's symbols by element (as ``symbols``), in one pass."""
    for i in range(MAX_SEATS * NUM_ELEMENTS):
        state[S.sym + i] = 0
    for c in range(NUM_SPELLS):
        loc = state[S.loc + c]
        if loc >= LOC_LAYOUT and loc < LOC_LAYOUT + MAX_SEATS:
            seat = loc - LOC_LAYOUT
            n = 1
            if CARD_KIND[c] == DUPLEX and not _is_imitation(cfg, seat):
                n = DUPLEX_REINFORCED_SYMBOLS if state[S.cryst + c] > 0 else DUPLEX_SYMBOLS
            state[S.sym + NUM_ELEMENTS * seat + state[S.source + state[S.col + c]]] += n


@nb.njit(cache=True, _nrt=False, inline="always")
def _sym(state, seat, element):
    return state[S.sym + NUM_ELEMENTS * seat + element]


@nb.njit(cache=True, _nrt=False)
def _full_rows(state, seat):
    low = _height(state, seat, 0)
    for k in range(1, NUM_COLUMNS):
        low = min(low, _height(state, seat, k))
    return low


@nb.njit(cache=True, _nrt=False)
def _incomplete_rows(state, seat):
    low = _height(state, seat, 0)
    high = low
    for k in range(1, NUM_COLUMNS):
        low = min(low, _height(state, seat, k))
        high = max(high, _height(state, seat, k))
    return high - low


@nb.njit(cache=True, _nrt=False)
def has_tie_breaker(cfg, state, seat):
    """A tie-breaker mark on a card lying in its owner's layout (ruling 15)."""
    loc = LOC_LAYOUT + seat
    return (state[S.mark_bifarius] == seat and state[S.loc + BIFARIUS_CARD] == loc) or (
        state[S.mark_speculum] == seat and state[S.loc + SPECULUM_CARD] == loc
    )


MAJ_SYMBOLS, MAJ_FULL_ROWS, MAJ_INCOMPLETE_ROWS = 0, 1, 2


@nb.njit(INT(STATE, INT, INT, INT), cache=True, _nrt=False)
def _majority_value(state, seat, what, element):
    if what == MAJ_SYMBOLS:
        return _sym(state, seat, element)
    if what == MAJ_FULL_ROWS:
        return _full_rows(state, seat)
    return _incomplete_rows(state, seat)


@nb.njit(BOOL(CFG, STATE, INT, INT, INT), cache=True, _nrt=False)
def _has_majority(cfg, state, seat, what, element):
    """Strictly more than every other seat (the imitation included); a tie goes to a
    tie-breaker holder unless the other holds one too."""
    mine = _majority_value(state, seat, what, element)
    breaker = has_tie_breaker(cfg, state, seat)
    for q in range(cfg[C.seats]):
        if q != seat:
            theirs = _majority_value(state, q, what, element)
            if theirs > mine or (theirs == mine and (not breaker or has_tie_breaker(cfg, state, q))):
                return False
    return True


@nb.njit(INT(STATE, INT, INT, INT), cache=True, _nrt=False)
def _neighbour(state, seat, card, side):
    """Element of the card beside ``card`` (side -1 left, +1 right, edges wrap), or -1."""
    col = (state[S.col + card] + side + NUM_COLUMNS) % NUM_COLUMNS
    if _height(state, seat, col) > state[S.row + card]:
        return state[S.source + col]
    return -1


@nb.njit(cache=True, _nrt=False)
def adjacency_missing(cfg, state, seat, card):
    """Sides a Propter / Vicinari still lacks (0: fulfilled); -1 for other cards."""
    kind = CARD_KIND[card]
    left = _neighbour(state, seat, card, -1)
    right = _neighbour(state, seat, card, 1)
    x = CARD_X[card]
    if kind == PROPTER:
        return 0 if left == x or right == x else 1
    if kind == VICINARI:
        y = CARD_Y[card]
        one = (left != x) + (right != y)
        other = (left != y) + (right != x)
        return min(one, other)
    return -1


@nb.njit(cache=True, _nrt=False)
def _surrounding(state, seat, card):
    """Cards around ``card``: above (the source for row 0), below, left and right, no wrap."""
    col = state[S.col + card]
    row = state[S.row + card]
    count = 1  # above: a card, or the element source
    if _height(state, seat, col) > row + 1:
        count += 1
    if col > 0 and _height(state, seat, col - 1) > row:
        count += 1
    if col < NUM_COLUMNS - 1 and _height(state, seat, col + 1) > row:
        count += 1
    return count


@nb.njit(cache=True, _nrt=False)
def _vir_dives(total):
    points = 0
    for at_least, value in VIR_DIVES_STEPS:
        if points == 0 and total >= at_least:
            points = value
    return points


@nb.njit(INT(CFG, STATE, INT, INT, INT, INT), cache=True, _nrt=False)
def card_points(cfg, state, seat, card, help_a, help_b):
    """Points of ``card`` as a card of ``seat``'s layout (Commodum and Imitari apart;
    ``_score_seat`` adds them). ``help_a``/``help_b``: the cards that Qui Fieri's two
    virtual sources help (a card given both gets two), or -1."""
    kind = CARD_KIND[card]
    reinforced = state[S.cryst + card] > 0
    x = CARD_X[card]
    y = CARD_Y[card]
    points = 0
    if kind == COLLIGIT:
        n = _sym(state, seat, x)
        points = n + (COLLIGIT_BONUS * (n // COLLIGIT_BONUS_EVERY) if reinforced else 0)
    elif kind == COLLATIO:
        points = SET_POINTS * min(_sym(state, seat, x), _sym(state, seat, y))
    elif kind == VICINARI or kind == PROPTER:
        missing = adjacency_missing(cfg, state, seat, card)
        helped = (help_a == card) + (help_b == card)
        if missing <= helped:
            if kind == VICINARI:
                points = VICINARI_REINFORCED if reinforced else VICINARI_POINTS
            else:
                points = PROPTER_REINFORCED if reinforced else PROPTER_POINTS
    elif kind == PRAESTANTIA:
        if _has_majority(cfg, state, seat, MAJ_SYMBOLS, x):
            points = PRAESTANTIA_REINFORCED if reinforced else PRAESTANTIA_POINTS
    elif kind == AMBIENTIA:
        n = _surrounding(state, seat, card)
        points = AMBIENTIA_REINFORCED_TABLE[n] if reinforced else AMBIENTIA_BASIC_TABLE[n]
    elif kind == VIR_DIVES:
        points = _vir_dives(_sym(state, seat, x) + _sym(state, seat, y))
    elif kind == MULTUS:
        low = _sym(state, seat, 0)
        for e in range(1, NUM_ELEMENTS):
            low = min(low, _sym(state, seat, e))
        points = SET_POINTS * low
    elif kind == RECTUS:
        if _has_majority(cfg, state, seat, MAJ_FULL_ROWS, 0):
            points = ROWS_MAJORITY_POINTS
    elif kind == INIQUUS:
        if _has_majority(cfg, state, seat, MAJ_INCOMPLETE_ROWS, 0):
            points = ROWS_MAJORITY_POINTS
    elif kind == ACERVUS:
        points = ACERVUS_TABLE[state[S.cryst + card]]
    return points


NO_POINTS = -(1 << 14)  # below any card's points: "no card to choose"


@nb.njit(cache=True, _nrt=False, inline="always")
def _half(points):
    """Commodum's half, rounded down; a negative card gives nothing (ruling 20)."""
    return points // 2 if points > 0 else 0


@nb.njit(INT(CFG, STATE, INT, INT, INT, BOOL), cache=True, _nrt=False)
def _evaluate(cfg, state, seat, help_a, help_b, write):
    """``seat``'s best total with Qui Fieri helping ``help_a``/``help_b``, choosing
    Imitari's copy and Commodum's card; with ``write`` the per-card points and the
    choices are stored. Returns the total (the Overload not included)."""
    loc = LOC_LAYOUT + seat
    base = 0
    best_other = NO_POINTS  # the best card a Commodum may halve
    best_card = NO_CARD
    for c in range(NUM_SPELLS):
        if state[S.loc + c] == loc and c != COMMODUM_CARD and c != IMITARI_CARD:
            p = card_points(cfg, state, seat, c, help_a, help_b)
            base += p
            if write:
                state[S.points + c] = p
            if p > best_other:
                best_other = p
                best_card = c
    commodum = state[S.loc + COMMODUM_CARD] == loc
    imitari = state[S.loc + IMITARI_CARD] == loc
    copied = NO_CARD
    imitari_points = 0
    commodum_points = _half(best_other)
    halved = best_card
    if imitari:
        # Without a text to copy Imitari scores 0, and Commodum may choose it.
        if best_other < 0:
            commodum_points = 0
            halved = IMITARI_CARD
        best = -1 << 30
        for k in range(NUM_SPELLS):
            if not CARD_DURING_SCORING[k] or not _in_layout(state, k):
                continue
            if CARD_KIND[k] == COMMODUM:
                # Imitari is a Commodum then: it and card 13 cannot choose each other.
                imi = _half(best_other)
                com = _half(best_other)
                target = best_card
            else:
                imi = card_points(cfg, state, seat, k, -1, -1)
                com = _half(max(best_other, imi))
                target = IMITARI_CARD if imi > best_other else best_card
            value = imi + (com if commodum else 0)
            if value > best:
                best = value
                copied = k
                imitari_points = imi
                commodum_points = com
                halved = target
    if not commodum:
        commodum_points = 0
        halved = NO_CARD
    if write:
        if commodum:
            state[S.points + COMMODUM_CARD] = commodum_points
        if imitari:
            state[S.points + IMITARI_CARD] = imitari_points
        state[S.imitates + seat] = copied
        state[S.halves + seat] = halved
    return base + imitari_points + commodum_points


@nb.njit(cache=True, _nrt=False)
def _helps(cfg, state, seat, card):
    """Can a Qui Fieri source help ``card`` (an unfulfilled adjacency card of ``seat``)?"""
    return state[S.loc + card] == LOC_LAYOUT + seat and adjacency_missing(cfg, state, seat, card) > 0


@nb.njit(INT(CFG, STATE, INT, BOOL), cache=True, _nrt=False)
def _score_seat(cfg, state, seat, write):
    """Points of ``seat`` with every scoring choice made to maximise them (ruling 4).
    Needs ``_count_symbols`` first."""
    total = 0
    if not _is_imitation(cfg, seat):
        loc = LOC_LAYOUT + seat
        qui_fieri = state[S.loc + QUI_FIERI_CARD] == loc and state[S.cryst + QUI_FIERI_CARD] > 0
        best_a = -1
        best_b = -1
        if qui_fieri:
            best = _evaluate(cfg, state, seat, -1, -1, False)
            # Two sources: both on one card (a Vicinari missing both sides) or one each.
            for a in range(NUM_SPELLS):
                if not _helps(cfg, state, seat, a):
                    continue
                for b in range(a, NUM_SPELLS):
                    if b != a and not _helps(cfg, state, seat, b):
                        continue
                    value = _evaluate(cfg, state, seat, a, b, False)
                    if value > best:
                        best = value
                        best_a = a
                        best_b = b
        total = _evaluate(cfg, state, seat, best_a, best_b, write)
        if write:
            state[S.qf_a + seat] = best_a
            state[S.qf_b + seat] = best_b
    if state[S.overload] == seat and not _is_imitation(cfg, seat):
        total -= OVERLOAD_PENALTY
    return total


@nb.njit(cache=True, _nrt=False)
def score_all(cfg, state):
    """Scores every seat: ``S.score``, and per card ``S.points`` (0 outside layouts)."""
    _count_symbols(cfg, state)
    for c in range(NUM_SPELLS):
        state[S.points + c] = 0
    for s in range(cfg[C.seats]):
        state[S.score + s] = _score_seat(cfg, state, s, True)


@nb.njit(cache=True, _nrt=False)
def current_score(cfg, state, seat):
    """``seat``'s points if the game ended now (its layout as it lies)."""
    _count_symbols(cfg, state)
    return _score_seat(cfg, state, seat, False)
