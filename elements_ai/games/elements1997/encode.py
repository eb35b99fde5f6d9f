"""Elements (1997): the observation and information-state tensors (pieces ``OBS`` and ``INFO`` of rules.py)."""

from __future__ import annotations

import numba as nb

from ...core.arrays import fill
from ...core.observers import Privacy
from .rules import (
    AT_MASK,
    AT_SHIFT,
    DISCARD_BIT,
    EV_BID,
    EV_FILL,
    EV_MASK,
    EV_PLAY,
    EV_SHIFT,
    FILLED,
    INFO,
    LOG_HOLDER,
    MAX_PLACED,
    NTH_MASK,
    NTH_SHIFT,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_SLOTS,
    OBS,
    PLAYER_PHASES,
    RES_NOBODY,
    RES_OPEN,
    RES_ZERO,
    RESULT_KINDS,
    C,
    S,
    log_at,
    round_first,
    row_revealed,
)

# What only the observer knows (core/observers.py cuts the public and private
# observation types by it): its hand, the card it just bid and has not yet put on
# a slot (``pending``), the cards it held and discarded each round; and, in the
# row of bids (``row_card``, ``row_history``, by slot and card), its own bid
# cards before the reveal. Hand sizes, slots bid on, contests, counts of discards
# and the draw pile's size are public.
PRIVACY = Privacy(
    private=("hand", "pending", "own_holdings", "own_discards"),
    shared=("row_card", "row_history"),
)


@nb.njit(cache=True, _nrt=False, inline="always")
def _relative(cfg, observer, seat):
    return (seat - observer) % cfg[C.players]


@nb.njit(cache=True, _nrt=False, inline="always")
def _result_kind(cfg, observer, code, being_contested):
    """Column of a point card's fate in a results row; -1 for no point card."""
    kind = -1
    if code == RES_OPEN:
        kind = 1 if being_contested else 0
    elif code == RES_ZERO:
        kind = 2
    elif code == RES_NOBODY:
        kind = 3
    elif code >= 0:
        kind = RESULT_KINDS + _relative(cfg, observer, code)
    return kind


@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    n = cfg[C.players]
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S.player]
    phase = state[S.phase]
    if to_move >= 0:
        out[cfg[OBS.to_move] + _relative(cfg, player, to_move)] = 1.0
        for k in range(len(PLAYER_PHASES)):
            if PLAYER_PHASES[k] == phase:
                out[cfg[OBS.phase] + k] = 1.0
    rnd = state[S.round]
    if state[S.first] >= 0:
        out[cfg[OBS.round] + rnd] = 1.0
        out[cfg[OBS.round_first] + _relative(cfg, player, round_first(cfg, state))] = 1.0
    for c in range(NUM_CARDS):
        if state[S.where + c] == player:
            out[cfg[OBS.hand] + c] = 1.0
    for q in range(n):
        rel = _relative(cfg, player, q)
        out[cfg[OBS.hand_sizes] + rel] = state[S.hand_size + q]
        out[cfg[OBS.scores] + rel] = state[S.score + q]
    out[cfg[OBS.pile]] = state[S.pile]
    for i in range(state[S.placed_elements]):
        out[cfg[OBS.colours] + NUM_COLOURS * i + state[S.element + i]] = 1.0
    revealed = row_revealed(state)
    for i in range(NUM_SLOTS):
        owner = state[S.slot_owner + i]
        if owner == FILLED:
            out[cfg[OBS.row_owner] + (n + 1) * i + n] = 1.0
        elif owner >= 0:
            out[cfg[OBS.row_owner] + (n + 1) * i + _relative(cfg, player, owner)] = 1.0
        card = state[S.slot_card + i]
        if card >= 0 and (revealed or owner == player):
            out[cfg[OBS.row_card] + NUM_CARDS * i + card] = 1.0
    if state[S.pending] >= 0 and to_move == player:
        out[cfg[OBS.pending] + state[S.pending]] = 1.0
    contest = state[S.contest_pos]
    for i in range(NUM_SLOTS):
        kind = _result_kind(cfg, player, state[S.result + NUM_SLOTS * rnd + i], i == contest)
        if kind >= 0:
            out[cfg[OBS.results] + (RESULT_KINDS + n) * i + kind] = 1.0
    if contest >= 0:
        for q in range(n):
            rel = _relative(cfg, player, q)
            for i in range(state[S.num_placed + q]):
                out[cfg[OBS.placed] + NUM_CARDS * rel + state[S.placed + MAX_PLACED * q + i]] = 1.0
            out[cfg[OBS.passed] + rel] = state[S.out + q]
        out[cfg[OBS.double]] = state[S.double]


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    n = cfg[C.players]
    current = state[S.round]
    columns = n + NUM_SLOTS + MAX_PLACED
    for rnd in range(current + 1):
        for i in range(NUM_SLOTS):
            colour = state[S.order + NUM_SLOTS * rnd + i]
            if colour >= 0:
                out[cfg[INFO.orders] + NUM_SLOTS * NUM_COLOURS * rnd + NUM_COLOURS * i + colour] = 1.0
            kind = _result_kind(
                cfg, player, state[S.result + NUM_SLOTS * rnd + i], rnd == current and i == state[S.contest_pos]
            )
            if kind >= 0:
                out[cfg[INFO.result_history] + (RESULT_KINDS + n) * (NUM_SLOTS * rnd + i) + kind] = 1.0
        public_row = rnd < current or row_revealed(state)
        for c in range(NUM_CARDS):
            entry = state[log_at(state, rnd, c)]
            holder = (entry & LOG_HOLDER) - 1
            event = (entry >> EV_SHIFT) & EV_MASK
            at = (entry >> AT_SHIFT) & AT_MASK
            if holder == player:
                out[cfg[INFO.own_holdings] + NUM_CARDS * rnd + c] = 1.0
                if entry & DISCARD_BIT:
                    out[cfg[INFO.own_discards] + NUM_CARDS * rnd + c] = 1.0
            if entry & DISCARD_BIT:  # how many each player discarded is public
                out[cfg[INFO.discards] + n * rnd + _relative(cfg, player, holder)] += 1.0
            if event == EV_BID:  # who bid where is public; the card once revealed
                out[cfg[INFO.bid_slots] + NUM_SLOTS * (n * rnd + _relative(cfg, player, holder)) + at] = 1.0
            if (event == EV_BID or event == EV_FILL) and (public_row or holder == player):
                out[cfg[INFO.row_history] + NUM_CARDS * (NUM_SLOTS * rnd + at) + c] = 1.0
            if event == EV_PLAY:
                base = cfg[INFO.plays] + columns * (NUM_CARDS * rnd + c)
                out[base + _relative(cfg, player, holder)] = 1.0
                out[base + n + at] = 1.0
                out[base + n + NUM_SLOTS + ((entry >> NTH_SHIFT) & NTH_MASK)] = 1.0
