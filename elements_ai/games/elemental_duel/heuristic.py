"""Elemental Duel: the ``rules`` bot, ``heuristic`` (RULES.md's rules of thumb)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.rng import uniform
from .rules import FIGHT_HIDDEN, FIGHT_SHOWN, NUM_CARDS, PH_DEFEND, PH_HIDE, PH_SHOW, S, beats, element, turns_over


@nb.njit(cache=True, _nrt=False)
def _beaten(state, card, opponent):
    """How many of ``opponent``'s remaining cards ``card`` beats outright."""
    count = 0
    for c in range(NUM_CARDS):
        if state[S.hand + NUM_CARDS * opponent + c] == 1 and beats(card, c):
            count += 1
    return count


@nb.njit(cache=True, _nrt=False)
def _pick(keys, allowed, rng):
    """A uniformly random index among the allowed ones with the highest key."""
    best = -1_000_000
    count = 0
    for c in range(keys.shape[0]):
        if allowed[c]:
            if keys[c] > best:
                best = keys[c]
                count = 1
            elif keys[c] == best:
                count += 1
    k = int(uniform(rng, 0) * count)
    for c in range(keys.shape[0]):
        if allowed[c] and keys[c] == best:
            if k == 0:
                return c
            k -= 1
    return -1


@nb.njit(cache=True)
def heuristic(cfg, state, player, rng):
    """A beginner's rules of thumb (reads only what ``player`` can see).

    1. Hide: the strongest card, i.e. the one that beats the most of the
       defender's remaining cards; among equals one that would turn the territory
       over (matching element or light).
    2. Show: the strongest remaining card of another element than the hidden one
       (any other card if all share it), so that one answer cannot stop both.
    3. Defend: stop the face-up card (beat it or tie, ties go to the defender) with
       the cheapest card that does, the one beating the fewest of the attacker's
       remaining cards, preferring one that turns the territory over; if none can,
       give up the weakest card.
    4. Fight: the defender probably stopped the face-up card, so fight with the
       card that beats more of the defender's cards able to stop it (of all its
       cards if none can); on equal counts, the hidden card.

    Remaining ties are broken at random from ``rng`` stream 0.
    """
    phase = state[S.phase]
    other = 1 - player
    kind = state[S.contested]
    hand = S.hand + NUM_CARDS * player
    keys = np.zeros(NUM_CARDS, np.int64)
    allowed = np.zeros(NUM_CARDS, np.bool_)
    if phase == PH_HIDE or phase == PH_SHOW:
        hidden = state[S.hidden]
        for c in range(NUM_CARDS):
            allowed[c] = state[hand + c] == 1 and c != hidden
            keys[c] = 2 * _beaten(state, c, other) + (1 if turns_over(c, kind) else 0)
        if phase == PH_SHOW:
            other_element = False
            for c in range(NUM_CARDS):
                if allowed[c] and element(c) != element(hidden):
                    other_element = True
            if other_element:
                for c in range(NUM_CARDS):
                    if element(c) == element(hidden):
                        allowed[c] = False
        return _pick(keys, allowed, rng)
    if phase == PH_DEFEND:
        shown = state[S.shown]
        can_stop = False
        for c in range(NUM_CARDS):
            allowed[c] = state[hand + c] == 1
            if allowed[c] and not beats(shown, c):
                can_stop = True
        for c in range(NUM_CARDS):
            if can_stop:
                if beats(shown, c):
                    allowed[c] = False
                keys[c] = -2 * _beaten(state, c, other) + (1 if turns_over(c, kind) else 0)
            else:
                keys[c] = -_beaten(state, c, other)
        return _pick(keys, allowed, rng)
    # PH_CHOOSE: count the defender's likely answers each of the two cards beats.
    shown = state[S.shown]
    hidden = state[S.hidden]
    defender_hand = S.hand + NUM_CARDS * other
    stoppers = 0
    for c in range(NUM_CARDS):
        if state[defender_hand + c] == 1 and not beats(shown, c):
            stoppers += 1
    by_hidden = 0
    by_shown = 0
    for c in range(NUM_CARDS):
        if state[defender_hand + c] == 1 and (stoppers == 0 or not beats(shown, c)):
            by_hidden += 1 if beats(hidden, c) else 0
            by_shown += 1 if beats(shown, c) else 0
    return FIGHT_SHOWN if by_shown > by_hidden else FIGHT_HIDDEN
