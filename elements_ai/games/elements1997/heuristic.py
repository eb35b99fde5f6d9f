"""Elements (1997): the ``rules`` bot, ``heuristic`` (RULES.md's rules of thumb)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.rng import uniform
from .rules import (
    DOUBLE_AT,
    HAND_SIZE,
    KEEP,
    MAX_PLACED,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_SLOTS,
    NUM_VALUES,
    PASS,
    PH_BID,
    PH_CONTEST,
    PH_SLOT,
    SLOT_ACTION,
    C,
    S,
    best_key,
    colour_of,
    legal_mask,
    placed_key,
    value_of,
)


@nb.njit(cache=True, _nrt=False)
def _pick_best(keys, allowed, rng):
    """A uniformly random index among the allowed ones with the highest key; -1 if none."""
    best = -(1 << 62)
    count = 0
    for i in range(keys.shape[0]):
        if allowed[i]:
            if keys[i] > best:
                best = keys[i]
                count = 1
            elif keys[i] == best:
                count += 1
    k = int(uniform(rng, 0) * count)
    chosen = -1
    for i in range(keys.shape[0]):
        if allowed[i] and keys[i] == best and chosen < 0:
            if k == 0:
                chosen = i
            k -= 1
    return chosen


@nb.njit(cache=True, _nrt=False)
def _partners(state, player, card):
    """Other cards in ``player``'s hand sharing ``card``'s value or colour."""
    count = 0
    for c in range(NUM_CARDS):
        if c != card and state[S.where + c] == player:
            if value_of(c) == value_of(card) or colour_of(c) == colour_of(card):
                count += 1
    return count


@nb.njit(cache=True)
def _cheapest_win(state, player, hand, size, others_best, ranks):
    """The fewest hand cards (then the lowest total value) that, added to what
    ``player`` placed, beat ``others_best``: a bitmask over ``hand[:size]``, 0 if none."""
    placed = state[S.num_placed + player]
    cards = np.empty(MAX_PLACED, np.int64)
    scratch = np.empty(MAX_PLACED, np.int64)
    for i in range(placed):
        cards[i] = state[S.placed + MAX_PLACED * player + i]
    best_mask = 0
    best_cost = 1 << 30
    for extra in range(1, MAX_PLACED - placed + 1):
        # Enumerate the subsets of the hand with ``extra`` cards (hands hold <= 10).
        for mask in range(1, 1 << size):
            bits = 0
            for i in range(size):
                bits += (mask >> i) & 1
            if bits != extra:
                continue
            count = placed
            cost = 0
            for i in range(size):
                if mask & (1 << i):
                    cards[count] = hand[i]
                    count += 1
                    cost += value_of(hand[i])
            if best_key(cards, count, ranks, scratch) > others_best and cost < best_cost:
                best_cost = cost
                best_mask = mask
        if best_mask != 0:
            break
    return best_mask


@nb.njit(cache=True)
def heuristic(cfg, state, player, rng):
    """A beginner's move (RULES.md lists these rules of thumb); reads only what
    ``player`` sees: their hand, the row, the placed cards and the scores.

    1. Bid the lowest card in hand, among equals the one with the fewest partners
       (hand cards of the same value or colour), and put it opposite the free
       element of the colour you hold fewest of: a low bid sinks that colour.
    2. In a contest, if your placed cards already beat everything placed, pass
       (they still compete). Otherwise find the fewest hand cards (then the
       cheapest) that would beat the best placed combination; play one of them if
       the point card is worth it (value >= 2 x cards needed - 1), else pass. On a
       third turn, the second card is the one that makes the best combination.
    3. In phase 3, discard a card of value <= 5 that has no partner in hand
       (lowest first); keep the rest.

    Remaining ties are broken at random from ``rng`` stream 0.
    """
    n = cfg[C.players]
    phase = state[S.phase]
    keys = np.zeros(NUM_ACTIONS, np.int64)
    allowed = np.zeros(NUM_ACTIONS, np.bool_)
    legal_mask(cfg, state, allowed)
    action = -1
    if phase == PH_BID:
        for c in range(NUM_CARDS):
            keys[c] = -(16 * value_of(c) + _partners(state, player, c))
        action = _pick_best(keys, allowed, rng)
    elif phase == PH_SLOT:
        for i in range(NUM_SLOTS):
            held = 0
            for c in range(NUM_CARDS):
                if state[S.where + c] == player and colour_of(c) == state[S.element + i]:
                    held += 1
            keys[SLOT_ACTION + i] = -held
        action = _pick_best(keys, allowed, rng)
    elif phase == PH_CONTEST:
        ranks = np.empty(NUM_COLOURS, np.int64)
        for c in range(NUM_COLOURS):
            ranks[c] = state[S.rank + c]
        hand = np.empty(HAND_SIZE, np.int64)
        size = 0
        for c in range(NUM_CARDS):
            if state[S.where + c] == player:
                hand[size] = c
                size += 1
        others_best = 0
        for q in range(n):
            if q != player and state[S.num_placed + q] > 0:
                others_best = max(others_best, placed_key(state, q))
        mine = placed_key(state, player)
        value = value_of(state[S.slot_card + state[S.contest_pos]])
        if state[S.double] == 1:
            # The second card of a third turn: the one making the best combination.
            cards = np.empty(MAX_PLACED, np.int64)
            scratch = np.empty(MAX_PLACED, np.int64)
            for i in range(DOUBLE_AT + 1):
                cards[i] = state[S.placed + MAX_PLACED * player + i]
            for i in range(size):
                cards[DOUBLE_AT + 1] = hand[i]
                keys[hand[i]] = best_key(cards, MAX_PLACED, ranks, scratch) * 16 - value_of(hand[i])
            action = _pick_best(keys, allowed, rng)
        elif mine > others_best or size == 0:
            action = PASS
        else:
            plan = _cheapest_win(state, player, hand, size, others_best, ranks)
            needed = 0
            for i in range(size):
                needed += (plan >> i) & 1
            if plan == 0 or value < 2 * needed - 1 or not allowed[hand[0]]:
                action = PASS
            else:
                # Play the planned card of highest value first (the rest may follow).
                for i in range(size):
                    if plan & (1 << i):
                        keys[hand[i]] = 1 + value_of(hand[i])
                        allowed[hand[i]] = True
                for c in range(NUM_ACTIONS):
                    allowed[c] = allowed[c] and keys[c] > 0
                action = _pick_best(keys, allowed, rng)
    else:  # PH_DISCARD
        lowest = NUM_VALUES
        for c in range(NUM_CARDS):
            if state[S.where + c] == player and value_of(c) <= 5 and _partners(state, player, c) == 0:
                if value_of(c) < lowest:
                    lowest = value_of(c)
        if lowest == NUM_VALUES:
            action = KEEP
        else:
            for c in range(NUM_CARDS):
                allowed[c] = allowed[c] and value_of(c) == lowest and _partners(state, player, c) == 0
            allowed[KEEP] = False
            action = _pick_best(keys, allowed, rng)
    return action
