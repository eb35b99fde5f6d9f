"""Elements (1997): information-set sampling, ``resample`` (a state the player cannot tell from the true one)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ...core.arrays import copy
from ...core.rng import uniform
from .rules import (
    AT_MASK,
    AT_SHIFT,
    DISCARD_BIT,
    EV_BID,
    EV_FILL,
    EV_MASK,
    EV_NONE,
    EV_PLAY,
    EV_SHIFT,
    FILLED,
    HAND_SIZE,
    LOC_PILE,
    LOC_ROW,
    LOG_HOLDER,
    MAX_PLAYERS,
    NTH_MASK,
    NTH_SHIFT,
    NUM_CARDS,
    NUM_SLOTS,
    PH_DEAL,
    PH_DISCARD,
    PH_ELEMENTS,
    PH_SLOT,
    C,
    S,
    log_at,
    row_revealed,
)

#
# What a player does not see: the cards the others were dealt each round (and so
# which cards they kept across a refill), their discards, their face-down bids and
# the draw pile. ``resample`` redraws all of it, round by round, as the chance
# process would, conditioned on what the player saw (RULES.md, "Resampling").
#
# Notation for round j: H_X is opponent X's cards when round j was dealt, R_X the
# cards X showed in it (bid after the reveal, played), K_X (j >= 1) the cards X
# kept from round j-1 (a public number k_X of them). Given the kept sets, each
# round's hands are a uniform split of the cards the player could not place:
# X's hand holds R_X, K_X and the cards X keeps for round j+1, and the rest is
# dealt uniformly. So the kept sets carry all the coupling between rounds, and
# each round j weighs them by the number of ways to complete its hands,
# N_j = (free cards)! / prod_X (free places in X's hand)!.

# Attempts at a consistent history before the last resort (see resample); only the
# approximate case ever needs more than one.
MAX_RESAMPLE_ATTEMPTS = 8


LOG_FACTORIAL = np.array([math.lgamma(i + 1.0) for i in range(NUM_CARDS + 1)])  # log(i!), i <= 55


@nb.njit(cache=True, _nrt=False, inline="always")
def _lfact(x):
    return LOG_FACTORIAL[x] if x >= 0 else -np.inf


@nb.njit(cache=True, _nrt=False, inline="always")
def _linvfact(x):
    """log(1 / x!), -inf for negative x (no way to fill a negative number of places)."""
    return -LOG_FACTORIAL[x] if x >= 0 else -np.inf


@nb.njit(cache=True, _nrt=False, inline="always")
def _lchoose(n, k):
    return _lfact(n) - _lfact(k) - _lfact(n - k) if 0 <= k <= n else -np.inf


@nb.njit(cache=True, _nrt=False)
def _log_add(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    high = max(a, b)
    return high + math.log(math.exp(a - high) + math.exp(b - high))


@nb.njit(cache=True, _nrt=False)
def _choose_into(pool, size, take, rng, out, out_start):
    """Moves ``take`` cards drawn uniformly from ``pool[:size]`` to ``out[out_start:]``
    (partial Fisher-Yates: the chosen cards end at the back of the pool); returns
    the pool's new size."""
    for t in range(take):
        k = int(uniform(rng, 0) * (size - t))
        last = size - 1 - t
        held = pool[k]
        pool[k] = pool[last]
        pool[last] = held
        out[out_start + t] = held
    return size - take


# An opponent's option at one refill: how many cards it takes from each of its
# pools, and what that does to its hand in the rounds before and after the refill.
# Pools: P_SHOWN kept before and shown in round j; P_KEPT_ON / P_KEPT_OFF kept
# before, not shown, and able / not able to stay in its hand into round j+1;
# P_NEW_SHOWN new and shown in round j; P_NEW_ON / P_NEW_OFF new from the shared
# pool (nobody's, not shown), able / not able to stay (``_stays``).
P_SHOWN, P_KEPT_ON, P_KEPT_OFF, P_NEW_SHOWN, P_NEW_ON, P_NEW_OFF = range(6)
NUM_POOLS = 6
OPT_NEW, OPT_TWICE, OPT_EXCESS = NUM_POOLS, NUM_POOLS + 1, NUM_POOLS + 2
OPT_FIELDS = NUM_POOLS + 3


@nb.njit(cache=True, _nrt=False)
def _pool_of(before, shown, stays, x):
    """The pool of opponent x a card falls in (-1: none); ``before`` kept it into
    round j-1, ``shown`` showed it in round j, ``stays``: x could keep it into j+1."""
    pool = -1
    if before == x:
        pool = P_SHOWN if shown == x else (-1 if shown >= 0 else (P_KEPT_ON if stays else P_KEPT_OFF))
    elif before < 0:
        pool = P_NEW_SHOWN if shown == x else (-1 if shown >= 0 else (P_NEW_ON if stays else P_NEW_OFF))
    return pool


@nb.njit(cache=True, _nrt=False)
def _options(pools, i, k, k_next, big_a, shown_now, hand_prev, hand_now, exact, options, weights):
    """Opponent i's options when it kept k cards into round j; returns their number.

    Writes each option (cards from each pool; new ones; kept twice; excess, below)
    with the log of its number of ways times its factors of N_{j-1} and N_j; in the
    ``exact`` case the shared pool's ways are counted for all opponents at once by
    the caller. In round j-1 its hand holds ``big_a`` minus the cards kept twice as
    forced cards; in round j, ``shown_now`` plus its unshown kept cards plus the
    cards it keeps into round j+1 that cannot be among them (as many as possible
    are taken to be: the excess over ``shown_now + k_next`` is recorded).
    """
    count = 0
    for x1 in range(min(k, pools[i, P_SHOWN]) + 1):
        for x2 in range(min(k - x1, pools[i, P_KEPT_ON]) + 1):
            for x3 in range(min(k - x1 - x2, pools[i, P_KEPT_OFF]) + 1):
                for x4 in range(min(k - x1 - x2 - x3, pools[i, P_NEW_SHOWN]) + 1):
                    for x5 in range(min(k - x1 - x2 - x3 - x4, pools[i, P_NEW_ON]) + 1):
                        x6 = k - x1 - x2 - x3 - x4 - x5
                        if x6 > pools[i, P_NEW_OFF]:
                            continue
                        twice = x1 + x2 + x3
                        unshown = x2 + x3 + x5 + x6
                        f_prev = big_a - twice
                        f_now = shown_now + unshown + max(0, k_next - x2 - x5)
                        weight = (
                            _lchoose(pools[i, P_SHOWN], x1) + _lchoose(pools[i, P_KEPT_ON], x2)
                            + _lchoose(pools[i, P_KEPT_OFF], x3) + _lchoose(pools[i, P_NEW_SHOWN], x4)
                            + _linvfact(hand_prev - f_prev) + _linvfact(hand_now - f_now)
                        )
                        if exact:
                            weight += _linvfact(x5 + x6)
                        else:
                            weight += _lchoose(pools[i, P_NEW_ON], x5) + _lchoose(pools[i, P_NEW_OFF], x6)
                        if weight != -np.inf:
                            options[count, P_SHOWN] = x1
                            options[count, P_KEPT_ON] = x2
                            options[count, P_KEPT_OFF] = x3
                            options[count, P_NEW_SHOWN] = x4
                            options[count, P_NEW_ON] = x5
                            options[count, P_NEW_OFF] = x6
                            options[count, OPT_NEW] = x5 + x6
                            options[count, OPT_TWICE] = twice
                            options[count, OPT_EXCESS] = f_now - shown_now - k_next
                            weights[count] = weight
                            count += 1
    return count


@nb.njit(cache=True, _nrt=False)
def _draw_log(weights, count, rng):
    """An index drawn with probability proportional to ``exp(weights[:count])``; -1
    when every weight is zero."""
    high = -np.inf
    for i in range(count):
        high = max(high, weights[i])
    chosen = -1
    if high != -np.inf:
        mass = 0.0
        for i in range(count):
            mass += math.exp(weights[i] - high)
        target = uniform(rng, 0) * mass
        for i in range(count):
            w = math.exp(weights[i] - high)
            if w > 0.0:
                chosen = i  # rounding can leave a sliver: the last possible index then
                target -= w
                if target < 0.0:
                    break
    return chosen


NEVER_SEEN, SEEN_BY_PLAYER = -1, -2  # _next_seen besides a seat


@nb.njit(cache=True, _nrt=False)
def _next_seen(j, c, rounds, omega, revealed_by):
    """Who is next seen with card c after round j: a seat that shows it, the player
    (in its hand or filled from the pile: SEEN_BY_PLAYER), or NEVER_SEEN."""
    seen = NEVER_SEEN
    for i in range(j + 1, rounds):
        if seen == NEVER_SEEN:
            if not omega[i, c]:
                seen = SEEN_BY_PLAYER
            elif revealed_by[i, c] >= 0:
                seen = revealed_by[i, c]
    return seen


@nb.njit(cache=True, _nrt=False)
def _stays(j, c, x, rounds, omega, revealed_by):
    """Could opponent x, holding card c unshown in round j, keep it for as long as
    it likes: is the card next seen in x's hands, or never?"""
    seen = _next_seen(j, c, rounds, omega, revealed_by)
    return seen == NEVER_SEEN or seen == x


@nb.njit(cache=True)
def _sample_kept(j, rounds, opponents, m, kept_count, reveals, revealed_by, omega, hand_total, omega_count,
                 kept, kept_shown, rng):
    """Draws the sets the opponents kept into round j (``kept[j]``), given those
    kept into round j-1 (``kept[j-1]``). Returns False at a dead end (no choice
    left), which only the approximate case can meet.

    Weight of a choice: its number of ways times N_{j-1} N_j (see ``_options``).
    When nobody kept cards into round j-1 nor into round j+1 this is the exact
    posterior: the opponents share one pool and the free cards of rounds j-1 and
    j, so a table over the totals taken from the shared pool and shown runs
    through the opponents. Otherwise each opponent is drawn on its own, the cards
    to be kept into round j+1 counted as if as many as possible were among these
    (so that the later draw has room).
    """
    prev = j - 1
    total = 0
    exact = True
    for i in range(m):
        x = opponents[i]
        total += kept_count[j, x]
        exact = exact and kept_count[j + 1, x] == 0 and kept_count[prev, x] == 0
    pools = np.zeros((m, NUM_POOLS), np.int64)
    shared = 0
    for c in range(NUM_CARDS):
        if not (omega[prev, c] and omega[j, c]) or revealed_by[prev, c] >= 0:
            continue
        before = kept[prev, c]
        shown = revealed_by[j, c]
        shared += before < 0 and shown < 0
        for i in range(m):
            x = opponents[i]
            pool = _pool_of(before, shown, exact or _stays(j, c, x, rounds, omega, revealed_by), x)
            if pool >= 0:
                pools[i, pool] += 1
    most = 0  # options of the opponent keeping the most: 6 counts summing to k
    for i in range(m):
        k = kept_count[j, opponents[i]]
        most = max(most, (k + 1) * (k + 2) * (k + 3) * (k + 4) * (k + 5) // 120)
    options = np.empty((m, most, OPT_FIELDS), np.int64)
    weights = np.empty((m, most))
    counts = np.zeros(m, np.int64)
    forced_prev = 0
    forced_now = 0
    for i in range(m):
        x = opponents[i]
        k = kept_count[j, x]
        big_a = reveals[prev, x] + kept_count[prev, x] - kept_shown[prev, x] + k
        forced_prev += big_a
        forced_now += reveals[j, x] + kept_count[j + 1, x]
        counts[i] = _options(pools, i, k, kept_count[j + 1, x], big_a, reveals[j, x], hand_total[prev, x],
                             hand_total[j, x], exact, options[i], weights[i])
    chosen = np.zeros(m, np.int64)
    if not exact:
        # Each opponent weighed on its own, the pools they share respected: the
        # cards able to stay that one takes come first from those it shows later,
        # then from those never seen again (common to all); the others come from
        # what remains. A table over how many never-seen (u1) and other shared
        # cards (u2) the opponents take together.
        never = 0
        own_later = np.zeros(m, np.int64)
        for c in range(NUM_CARDS):
            if (omega[prev, c] and omega[j, c] and revealed_by[prev, c] < 0 and kept[prev, c] < 0
                    and revealed_by[j, c] < 0):
                seen = _next_seen(j, c, rounds, omega, revealed_by)
                never += seen == NEVER_SEEN
                for i in range(m):
                    own_later[i] += seen == opponents[i]
        dim = total + 1
        by_use = np.full((m, dim, dim), -np.inf)
        for i in range(m):
            for o in range(counts[i]):
                on, off = options[i, o, P_NEW_ON], options[i, o, P_NEW_OFF]
                u1, u2 = max(0, on - own_later[i]), min(on, own_later[i]) + off
                by_use[i, u1, u2] = _log_add(by_use[i, u1, u2], weights[i, o])
        table = np.full((m + 1, dim, dim), -np.inf)
        table[0, 0, 0] = 0.0
        reach = 0
        for i in range(m):
            k = kept_count[j, opponents[i]]
            for s1 in range(reach + 1):
                for s2 in range(reach + 1):
                    if table[i, s1, s2] != -np.inf:
                        for u1 in range(k + 1):
                            for u2 in range(k + 1 - u1):
                                if by_use[i, u1, u2] != -np.inf:
                                    cell = table[i + 1, s1 + u1, s2 + u2]
                                    table[i + 1, s1 + u1, s2 + u2] = _log_add(
                                        cell, table[i, s1, s2] + by_use[i, u1, u2]
                                    )
            reach += k
        cells = np.full(dim * dim, -np.inf)
        for s1 in range(min(dim, never + 1)):
            for s2 in range(min(dim, shared - never + 1)):
                cells[s1 * dim + s2] = table[m, s1, s2]
        cell = _draw_log(cells, dim * dim, rng)
        if cell < 0:
            return False
        s1, s2 = cell // dim, cell % dim
        back = np.empty(max(most, dim * dim))
        for i in range(m - 1, -1, -1):
            for u in range(dim * dim):
                u1, u2 = u // dim, u % dim
                back[u] = table[i, s1 - u1, s2 - u2] + by_use[i, u1, u2] if u1 <= s1 and u2 <= s2 else -np.inf
            u = _draw_log(back, dim * dim, rng)
            u1, u2 = u // dim, u % dim
            for o in range(counts[i]):
                on, off = options[i, o, P_NEW_ON], options[i, o, P_NEW_OFF]
                match = max(0, on - own_later[i]) == u1 and min(on, own_later[i]) + off == u2
                back[o] = weights[i, o] if match else -np.inf
            chosen[i] = _draw_log(back, counts[i], rng)
            s1 -= u1
            s2 -= u2
        return _take_cards(j, rounds, opponents, m, options, chosen, revealed_by, omega, exact, kept, kept_shown,
                           rng)
    # Exact: nothing is kept twice, so round j-1 has forced_prev forced cards and
    # round j forced_now plus the excess; the table runs over (new, excess) totals.
    dim = total + 1
    table = np.full((m + 1, dim, dim), -np.inf)
    table[0, 0, 0] = 0.0
    reach = 0
    for i in range(m):
        for o in range(counts[i]):
            new, excess = options[i, o, OPT_NEW], options[i, o, OPT_EXCESS]
            for s_new in range(reach + 1):
                for s_excess in range(reach + 1):
                    here = table[i, s_new, s_excess]
                    if here != -np.inf:
                        cell = table[i + 1, s_new + new, s_excess + excess]
                        table[i + 1, s_new + new, s_excess + excess] = _log_add(cell, here + weights[i, o])
        reach += kept_count[j, opponents[i]]
    cells = np.full(dim * dim, -np.inf)
    for s_new in range(min(dim, shared + 1)):
        for s_excess in range(dim):
            here = table[m, s_new, s_excess]
            if here != -np.inf:
                cells[s_new * dim + s_excess] = (
                    here + _lfact(shared) + _linvfact(shared - s_new)
                    + _lfact(omega_count[prev] - forced_prev) + _lfact(omega_count[j] - (forced_now + s_excess))
                )
    cell = _draw_log(cells, dim * dim, rng)
    if cell < 0:
        return False
    s_new, s_excess = cell // dim, cell % dim
    # Back through the opponents: each one's option given what the others took.
    back = np.empty(most)
    for i in range(m - 1, -1, -1):
        for o in range(counts[i]):
            new, excess = options[i, o, OPT_NEW], options[i, o, OPT_EXCESS]
            back[o] = -np.inf
            if new <= s_new and excess <= s_excess:
                back[o] = table[i, s_new - new, s_excess - excess] + weights[i, o]
        chosen[i] = _draw_log(back, counts[i], rng)
        s_new -= options[i, chosen[i], OPT_NEW]
        s_excess -= options[i, chosen[i], OPT_EXCESS]
    return _take_cards(j, rounds, opponents, m, options, chosen, revealed_by, omega, exact, kept, kept_shown, rng)


@nb.njit(cache=True)
def _take_cards(j, rounds, opponents, m, options, chosen, revealed_by, omega, exact, kept, kept_shown, rng):
    """Draws the cards of each opponent's chosen option uniformly within each pool;
    a card of the shared pool taken by one opponent is gone for the next. Pool by
    pool, so that the cards able to stay are taken before the others. False when a
    pool runs out (only possible in the approximate case)."""
    prev = j - 1
    pool = np.empty(NUM_CARDS, np.int64)
    picked = np.empty(NUM_CARDS, np.int64)
    for which in range(NUM_POOLS):
        for i in range(m):
            x = opponents[i]
            size = 0
            for c in range(NUM_CARDS):
                if (omega[prev, c] and omega[j, c] and revealed_by[prev, c] < 0 and kept[j, c] < 0
                        and _pool_of(kept[prev, c], revealed_by[j, c],
                                     exact or _stays(j, c, x, rounds, omega, revealed_by), x) == which):
                    pool[size] = c
                    size += 1
            take = options[i, chosen[i], which]
            if take > size:
                return False
            if which == P_NEW_ON and not exact:
                # Cards it shows later first (see _sample_kept), then never-seen ones.
                own = 0
                for t in range(size):
                    if _next_seen(j, pool[t], rounds, omega, revealed_by) == x:
                        held = pool[own]
                        pool[own] = pool[t]
                        pool[t] = held
                        own += 1
                first = min(take, own)
                _choose_into(pool, own, first, rng, picked, 0)
                for t in range(size - own):
                    pool[t] = pool[own + t]
                _choose_into(pool, size - own, take - first, rng, picked, first)
            else:
                _choose_into(pool, size, take, rng, picked, 0)
            for t in range(take):
                kept[j, picked[t]] = x
            if which == P_SHOWN or which == P_NEW_SHOWN:
                kept_shown[j, x] += take
    return True


@nb.njit(cache=True)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``, hidden parts redrawn.

    Redrawn: every opponent's cards in every round (so their kept cards), their
    discards, their face-down bid, any face-down filled card and the draw pile.
    The draw follows the chance process conditioned on what ``player`` saw, with
    the opponents' choices among equally visible actions taken as uniform
    (strategies are not modelled): the kept sets refill by refill
    (``_sample_kept``), then each round's hands given them. It is exact whenever
    no two consecutive refills both had opponents keep cards, approximate
    otherwise, and after MAX_RESAMPLE_ATTEMPTS dead ends it draws each round on
    its own (RULES.md, ruling 19). Reads nothing ``player`` cannot see.
    """
    copy(out, state)
    n = cfg[C.players]
    phase = state[S.phase]
    if state[S.first] < 0 or phase == PH_ELEMENTS:
        return
    current = state[S.round]
    rounds = current + 1
    m = n - 1
    opponents = np.empty(m, np.int64)
    for i in range(m):
        opponents[i] = (player + 1 + i) % n
    revealed = row_revealed(state)
    # What ``player`` knows, round by round.
    mine = np.zeros((rounds, NUM_CARDS), np.bool_)
    revealed_by = np.full((rounds, NUM_CARDS), -1, np.int64)  # shown by that seat
    public_fill = np.zeros((rounds, NUM_CARDS), np.bool_)
    omega = np.zeros((rounds, NUM_CARDS), np.bool_)  # where the player cannot place it
    reveals = np.zeros((rounds + 1, n), np.int64)
    discards = np.zeros((rounds, n), np.int64)
    hand_total = np.zeros((rounds + 1, n), np.int64)
    kept_count = np.zeros((rounds + 2, n), np.int64)
    omega_count = np.zeros(rounds + 1, np.int64)
    for j in range(rounds):
        public_row = j < current or revealed
        for c in range(NUM_CARDS):
            entry = state[log_at(state, j, c)]
            holder = (entry & LOG_HOLDER) - 1
            event = (entry >> EV_SHIFT) & EV_MASK
            mine[j, c] = holder == player
            if event == EV_PLAY or (event == EV_BID and public_row):
                revealed_by[j, c] = holder
                reveals[j, holder] += 1
            if event == EV_FILL and public_row:
                public_fill[j, c] = True
            if entry & DISCARD_BIT:  # the number each player discarded is public
                discards[j, holder] += 1
            omega[j, c] = not mine[j, c] and not public_fill[j, c]
            omega_count[j] += omega[j, c]
        for x in range(n):
            hand_total[j, x] = HAND_SIZE
    if phase == PH_DEAL:  # the cards of this round are still being dealt
        for x in range(n):
            hand_total[current, x] = state[S.hand_size + x]
    for j in range(current):
        for x in range(n):
            kept_count[j + 1, x] = hand_total[j, x] - reveals[j, x] - discards[j, x]
    # The opponents' hidden bid and filled cards of this round, before the reveal.
    hidden_bid_slot = np.full(n, -2, np.int64)  # -1: the pending bid, >= 0: its slot
    hidden_fills = 0
    if not revealed:
        for i in range(NUM_SLOTS):
            owner = state[S.slot_owner + i]
            if owner >= 0 and owner < MAX_PLAYERS and owner != player:
                hidden_bid_slot[owner] = i
            elif owner == FILLED:
                hidden_fills += 1
        if phase == PH_SLOT and state[S.player] != player:
            hidden_bid_slot[state[S.player]] = -1

    kept = np.full((rounds + 1, NUM_CARDS), -1, np.int64)
    kept_shown = np.zeros((rounds + 1, n), np.int64)
    holder = np.full((rounds, NUM_CARDS), -1, np.int64)
    free = np.empty(NUM_CARDS, np.int64)
    dealt = np.empty(NUM_CARDS, np.int64)
    for attempt in range(MAX_RESAMPLE_ATTEMPTS + 1):
        # The kept sets, refill by refill (left empty by the last resort, below).
        last_resort = attempt == MAX_RESAMPLE_ATTEMPTS
        ok = True
        for j in range(1, rounds):
            for c in range(NUM_CARDS):
                kept[j, c] = -1
            for x in range(n):
                kept_shown[j, x] = 0
            total = 0
            for i in range(m):
                total += kept_count[j, opponents[i]]
            if ok and total > 0 and not last_resort:
                ok = _sample_kept(j, rounds, opponents, m, kept_count, reveals, revealed_by, omega, hand_total,
                                  omega_count, kept, kept_shown, rng)
        # Each round's hands: what is forced, then the free cards dealt uniformly.
        for j in range(rounds):
            if not ok:
                break
            size = 0
            room = np.zeros(n, np.int64)
            for x in range(n):
                room[x] = hand_total[j, x]
            for c in range(NUM_CARDS):
                forced = revealed_by[j, c]
                if forced < 0 and kept[j, c] >= 0:
                    forced = kept[j, c]
                if forced < 0 and j + 1 < rounds and kept[j + 1, c] >= 0:
                    forced = kept[j + 1, c]
                if mine[j, c]:
                    holder[j, c] = player
                elif forced >= 0:
                    holder[j, c] = forced
                    room[forced] -= 1
                else:
                    holder[j, c] = -1
                    if omega[j, c]:
                        free[size] = c
                        size += 1
            for i in range(m):
                x = opponents[i]
                if room[x] < 0 or room[x] > size:
                    ok = False
                    break
                size = _choose_into(free, size, room[x], rng, dealt, 0)
                for t in range(room[x]):
                    holder[j, dealt[t]] = x
        if ok:
            break
    if last_resort:
        # Every round's hands were drawn on their own; the kept cards are then any
        # of each opponent's unshown cards (the numbers are right, so the player's
        # view is kept, but they need not be in the next round's hand).
        for j in range(current):
            for i in range(m):
                x = opponents[i]
                size = 0
                for c in range(NUM_CARDS):
                    if holder[j, c] == x and revealed_by[j, c] != x:
                        free[size] = c
                        size += 1
                _choose_into(free, size, kept_count[j + 1, x], rng, dealt, 0)
                for t in range(kept_count[j + 1, x]):
                    kept[j + 1, dealt[t]] = x

    # Write the redrawn history: holders, discards and hidden events.
    for j in range(rounds):
        for c in range(NUM_CARDS):
            entry = state[log_at(state, j, c)]
            event = (entry >> EV_SHIFT) & EV_MASK
            known = revealed_by[j, c] >= 0 or public_fill[j, c] or mine[j, c]
            rebuilt = holder[j, c] + 1
            if known and event != EV_NONE:
                rebuilt |= entry & ((EV_MASK << EV_SHIFT) | (AT_MASK << AT_SHIFT) | (NTH_MASK << NTH_SHIFT))
            if mine[j, c] and entry & DISCARD_BIT:
                rebuilt |= DISCARD_BIT
            x = holder[j, c]
            if j < current and x >= 0 and x != player and revealed_by[j, c] != x and kept[j + 1, c] != x:
                rebuilt |= DISCARD_BIT  # what an opponent did not show nor keep, it discarded
            out[log_at(out, j, c)] = rebuilt
    # This round's hidden cards: the opponents' hands, bids and discards, the pile.
    for c in range(NUM_CARDS):
        if omega[current, c] and revealed_by[current, c] < 0:
            out[S.where + c] = LOC_PILE
    for i in range(m):
        x = opponents[i]
        size = 0
        for c in range(NUM_CARDS):
            if holder[current, c] == x and revealed_by[current, c] < 0:
                free[size] = c
                size += 1
        if hidden_bid_slot[x] != -2:
            size = _choose_into(free, size, 1, rng, dealt, 0)
            card = dealt[0]
            out[S.where + card] = LOC_ROW
            if hidden_bid_slot[x] == -1:
                out[S.pending] = card
            else:
                out[S.slot_card + hidden_bid_slot[x]] = card
                out[log_at(out, current, card)] |= (EV_BID << EV_SHIFT) | (hidden_bid_slot[x] << AT_SHIFT)
        if phase == PH_DISCARD:
            size = _choose_into(free, size, discards[current, x], rng, dealt, 0)
            for t in range(discards[current, x]):
                out[log_at(out, current, dealt[t])] |= DISCARD_BIT
        for t in range(size):
            out[S.where + free[t]] = x
    if hidden_fills > 0:
        size = 0
        for c in range(NUM_CARDS):
            if omega[current, c] and holder[current, c] < 0:
                free[size] = c
                size += 1
        for i in range(NUM_SLOTS):
            if state[S.slot_owner + i] == FILLED:
                size = _choose_into(free, size, 1, rng, dealt, 0)
                card = dealt[0]
                out[S.slot_card + i] = card
                out[S.where + card] = LOC_ROW
                out[log_at(out, current, card)] |= (EV_FILL << EV_SHIFT) | (i << AT_SHIFT)
