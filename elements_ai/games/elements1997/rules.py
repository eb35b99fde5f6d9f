"""Elements (1997): the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

Cards: ``card = colour * 11 + value`` (colours ``red, yellow, green, blue, white``;
values 0-10), each once. The five element cards stand in a row from the box
outwards; ``position`` 0 is next to the box (the strongest colour once the row is
sorted).

Configuration ``cfg`` (int64), built by ``configure``::

    C_PLAYERS     number of players n (3..5)
    C_ASIDE       1: empty element slots are set aside (``empty_slots=aside``),
                  0: they are filled from the draw pile
    C_ROUNDS      rounds played (n: one per player, the full game)
    OBS.<piece>, INFO.<piece>   the piece's offset in the tensors (``core.layout``)

State (int16)::

    S_PLAYER          next to act: a seat, CHANCE (-1) or TERMINAL (-4)
    S_PHASE           PH_* below
    S_FIRST           first player of the first round; -1 until drawn
    S_ROUND           current round, 0-based (its first player is S_FIRST + S_ROUND)
    S_PLACED_ELEMENTS element cards laid out by the setup (0..5)
    S_DEAL_FROM       the deal serves players in seat order from this seat
    S_PILE            cards in the draw pile
    S_BIDS            bids completed this round
    S_PENDING         card just bid, waiting for its slot; -1
    S_CONTEST         contests started this round (the current one is S_CONTEST - 1)
    S_CONTEST_POS     position of the point card being contested; -1 between contests
    S_STARTER         starter of the current (or next) contest
    S_DOUBLE          1 between the two cards of a third turn
    S_DISCARDER       phase 3: players done, counted in seat order from the round's
                      first player
    S_HAND_SIZE + p   cards in player p's hand
    S_SCORE + p       points won by p
    S_NUM_PLACED + p  cards p placed in the current contest (0..4)
    S_OUT + p         1 once p passed in the current contest
    S_PLACED + 4p + i the i-th card p placed in the current contest
    S_ELEMENT + i     colour of the element card at position i
    S_RANK + c        strength of colour c: its element's position (0 strongest)
    S_SLOT_CARD + i   card opposite the element at position i; -1 none
    S_SLOT_OWNER + i  who put it there: a seat, FILLED (from the pile) or EMPTY
    S_WHERE + c       where card c is: a seat's hand (0..4) or LOC_*
    S_ORDER + 5r + i  colour at position i when round r started; -1 before
    S_RESULT + 5r + i fate of the point card at position i of round r (positions
                      after the sort): RES_* or the winner's seat
    S_LOG + 55r + c   (r < C_ROUNDS) what happened to card c in round r, packed (LOG_* below):
                      who held it when the round's cards were dealt, how it was
                      bid, filled or played, and whether it was discarded

``S_LOG`` is the whole history the information states need: every player's
holdings per round (their own private deal), every public event, and the discards
(private to their owner). 179 entries + 55 per round: 344 (688 bytes) for 3
players, 454 for 5.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ...core.arrays import copy, fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range, one_of
from ...core.layout import tensor_layout
from ...core.rng import uniform

# --- the cards and the table ---------------------------------------------------------

COLOURS = ("red", "yellow", "green", "blue", "white")
NUM_COLOURS = len(COLOURS)
NUM_VALUES = 11  # values 0..10
NUM_CARDS = NUM_COLOURS * NUM_VALUES
HAND_SIZE = 11
NUM_SLOTS = NUM_COLOURS  # one element card per colour
MIN_PLAYERS, MAX_PLAYERS = 3, 5
MAX_ROUNDS = MAX_PLAYERS  # one round per player
MAX_PLACED = 4  # cards one player may place in one contest
DOUBLE_AT = 2  # cards placed before the third turn, which places two at once
WEAKEST = NUM_COLOURS - 1  # rank of the weakest colour

# Player actions: 0..54 bid / play / discard that card (by phase), then these.
SLOT_ACTION = NUM_CARDS  # "slot k" is SLOT_ACTION + k - 1
PASS = SLOT_ACTION + NUM_SLOTS
KEEP = PASS + 1
NUM_ACTIONS = KEEP + 1

# Phases. The first three and PH_FILL are chance nodes.
PH_FIRST, PH_ELEMENTS, PH_DEAL, PH_BID, PH_SLOT, PH_FILL, PH_CONTEST, PH_DISCARD, PH_OVER = range(9)
# The phases in which a player acts, in the order of the "phase" tensor piece.
PLAYER_PHASES = (PH_BID, PH_SLOT, PH_CONTEST, PH_DISCARD)

# S_WHERE codes besides a seat's hand (0..MAX_PLAYERS-1).
LOC_PILE = MAX_PLAYERS
LOC_ROW = LOC_PILE + 1  # opposite an element card: a bid, a filled card or a point card
LOC_PLACED = LOC_ROW + 1  # placed in the current contest
LOC_WON = LOC_PLACED + 1  # won this round; back to the pile when points are recorded

FILLED = MAX_PLAYERS  # S_SLOT_OWNER of a card drawn from the pile
EMPTY = -1

# S_RESULT codes (a seat >= 0 is the winner).
RES_NONE = -1  # no point card at this position (yet, or its element was set aside)
RES_OPEN = -2  # not contested yet, or being contested
RES_ZERO = -3  # worth 0: put into the draw pile unplayed
RES_NOBODY = -4  # everybody passed without placing a card

# S_LOG fields, packed in one int16 per (round, card).
LOG_HOLDER = 7  # bits 0-2: seat + 1 of the holder when the round's cards were dealt; 0: none
EV_SHIFT, EV_MASK = 3, 3  # bits 3-4: what happened to the card in the round
EV_NONE, EV_BID, EV_FILL, EV_PLAY = 0, 1, 2, 3
AT_SHIFT, AT_MASK = 5, 7  # bits 5-7: slot position (bid, fill) or contest index (play)
NTH_SHIFT, NTH_MASK = 8, 3  # bits 8-9: which of the player's cards in that contest
DISCARD_BIT = 1 << 10  # discarded by its holder in phase 3 of the round

# Combination categories, weakest first; a key packs category and tie-breaks.
CAT_SINGLE, CAT_PAIR_COLOUR, CAT_PAIR_NUMBER = 1, 2, 3
CAT_THREE_COLOUR, CAT_THREE_NUMBER, CAT_FOUR_COLOUR, CAT_FOUR_NUMBER = 4, 5, 6, 7
CAT_SHIFT = 20  # tie-breaks take the 20 bits below the category
STRENGTH_BITS, VALUE_BITS = 3, 4
CATEGORY_NAMES = {
    CAT_SINGLE: "single card",
    CAT_PAIR_COLOUR: "pair of colour",
    CAT_PAIR_NUMBER: "pair of numbers",
    CAT_THREE_COLOUR: "three of a colour",
    CAT_THREE_NUMBER: "three of a number",
    CAT_FOUR_COLOUR: "four of a colour",
    CAT_FOUR_NUMBER: "four of a number",
}

# Returns are rounded to a multiple of this so that they sum to exactly zero in
# floating point whatever the order of summation (score minus mean is a multiple
# of 1/3 or 1/5, which no float holds exactly); the rounding is below 1e-13 (and sums stay exact up to 512).
RETURN_QUANTUM = 2.0**-44

# --- configuration and state layout --------------------------------------------------

C_PLAYERS, C_ASIDE, C_ROUNDS = 0, 1, 2
C_SIZE = C_ROUNDS + 1

S_PLAYER, S_PHASE, S_FIRST, S_ROUND, S_PLACED_ELEMENTS, S_DEAL_FROM, S_PILE = range(7)
S_BIDS, S_PENDING, S_CONTEST, S_CONTEST_POS, S_STARTER, S_DOUBLE, S_DISCARDER = range(7, 14)
S_HAND_SIZE = S_DISCARDER + 1
S_SCORE = S_HAND_SIZE + MAX_PLAYERS
S_NUM_PLACED = S_SCORE + MAX_PLAYERS
S_OUT = S_NUM_PLACED + MAX_PLAYERS
S_PLACED = S_OUT + MAX_PLAYERS
S_ELEMENT = S_PLACED + MAX_PLAYERS * MAX_PLACED
S_RANK = S_ELEMENT + NUM_SLOTS
S_SLOT_CARD = S_RANK + NUM_COLOURS
S_SLOT_OWNER = S_SLOT_CARD + NUM_SLOTS
S_WHERE = S_SLOT_OWNER + NUM_SLOTS
S_ORDER = S_WHERE + NUM_CARDS
S_RESULT = S_ORDER + MAX_ROUNDS * NUM_SLOTS
S_LOG = S_RESULT + MAX_ROUNDS * NUM_SLOTS  # C_ROUNDS rounds of NUM_CARDS entries follow


def rounds_of(params) -> int:
    """Rounds played: ``rounds``, or one per player when it is 0 (the full game)."""
    return params["rounds"] or params["players"]


def _players(params):
    return params["players"]


def _rounds(params):
    return rounds_of(params)


def _rounds_by_cards(params):
    return (rounds_of(params), NUM_CARDS)


# Tensor pieces. Per-player pieces are ordered from the observer (observer, next
# seat, ...) so that one network serves every seat; "observer" carries the seat.
# Positions count from the box; cards are ids 0..54.
RESULT_KINDS = 4  # open, being contested, zero, won by nobody; then won by each player
OBS = tensor_layout(
    C_SIZE,
    observer=_players,
    to_move=_players,
    phase=len(PLAYER_PHASES),
    round=_rounds,
    round_first=_players,
    hand=NUM_CARDS,
    hand_sizes=_players,
    scores=_players,
    pile=1,
    colours=(NUM_SLOTS, NUM_COLOURS),
    row_owner=lambda p: (NUM_SLOTS, p["players"] + 1),
    row_card=(NUM_SLOTS, NUM_CARDS),
    pending=NUM_CARDS,
    results=lambda p: (NUM_SLOTS, RESULT_KINDS + p["players"]),
    placed=lambda p: (p["players"], NUM_CARDS),
    passed=_players,
    double=1,
)
INFO = OBS._extend(
    own_holdings=_rounds_by_cards,
    own_discards=_rounds_by_cards,
    orders=lambda p: (rounds_of(p), NUM_SLOTS, NUM_COLOURS),
    bid_slots=lambda p: (rounds_of(p), p["players"], NUM_SLOTS),
    row_history=lambda p: (rounds_of(p), NUM_SLOTS, NUM_CARDS),
    plays=lambda p: (rounds_of(p), NUM_CARDS, p["players"] + NUM_SLOTS + MAX_PLACED),
    discards=lambda p: (rounds_of(p), p["players"]),
    result_history=lambda p: (rounds_of(p), NUM_SLOTS, RESULT_KINDS + p["players"]),
)
CFG_SIZE = INFO._end

PARAMS = {
    "players": Param(MIN_PLAYERS, "number of players; one round per player", int_range(MIN_PLAYERS, MAX_PLAYERS)),
    "empty_slots": Param(
        "fill",
        "element cards nobody bid on (3 or 4 players): 'fill' puts the top card of the draw "
        "pile opposite them; 'aside' sets them aside (weakest colours, no point card)",
        one_of("fill", "aside"),
    ),
    "rounds": Param(
        0,
        "rounds played, the first player moving one seat on each round; 0: one round per "
        "player (the full game); fewer give shorter games for research and tests",
        int_range(0, MAX_ROUNDS),
    ),
}

# Named parameter sets: every generic check runs on each. The shortened ones keep
# those checks fast; tests/test_elements1997.py checks the full-length games too.
VARIANTS = {
    "default": {},
    "four_aside": {"players": 4, "empty_slots": "aside", "rounds": 2},
    "five": {"players": 5, "rounds": 1},
}


def max_round_score(players: int, aside: bool) -> int:
    """Most points one round can give: a 10 on every point card."""
    return (NUM_VALUES - 1) * (players if aside else NUM_SLOTS)


def configure(params: dict) -> Config:
    n = params["players"]
    rounds = rounds_of(params)
    if rounds > n:
        raise ValueError(
            f"elements1997: parameter rounds={rounds} is out of range for {n} players; it must be "
            f"from 1 to {n}, or 0 for one round per player"
        )
    aside = params["empty_slots"] == "aside"
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[C_PLAYERS] = n
    cfg[C_ASIDE] = int(aside)
    cfg[C_ROUNDS] = rounds
    total = rounds * max_round_score(n, aside)
    # A round: bids and slots (2 per player); per player at most 10 cards played
    # (11 dealt, 1 bid) and one pass per contest; in phase 3 (not after the last
    # round) at most 10 discards and a keep.
    contest_actions = HAND_SIZE - 1 + NUM_SLOTS
    phase3_actions = HAND_SIZE
    max_length = rounds * n * (2 + contest_actions) + (rounds - 1) * n * phase3_actions
    max_chance = 1 + NUM_COLOURS + n * HAND_SIZE + rounds * (NUM_SLOTS - n) + (rounds - 1) * n * HAND_SIZE
    return Config(
        cfg=cfg,
        num_players=n,
        num_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_CARDS,
        state_size=S_LOG + rounds * NUM_CARDS,
        obs_pieces=OBS._place(cfg, params),
        info_pieces=INFO._place(cfg, params),
        min_utility=-total / n,
        max_utility=total * (n - 1) / n,
        max_game_length=max_length,
        max_chance_nodes=max_chance,
    )


# --- card facts ----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False, inline="always")
def colour_of(card):
    return card // NUM_VALUES


@nb.njit(cache=True, _nrt=False, inline="always")
def value_of(card):
    return card % NUM_VALUES


@nb.njit(cache=True, _nrt=False, inline="always")
def round_first(cfg, state):
    """The first player of the current round."""
    return (state[S_FIRST] + state[S_ROUND]) % cfg[C_PLAYERS]


@nb.njit(cache=True, _nrt=False, inline="always")
def log_at(state, rnd, card):
    return S_LOG + NUM_CARDS * rnd + card


@nb.njit(cache=True, _nrt=False)
def group_key(cards, count, ranks):
    """The key of the combination formed by ``cards[:count]`` (0: no combination).

    ``ranks[c]`` is colour c's strength (0 strongest). Keys compare as the
    rulebook's ranking: category first; number groups by the number, then the
    strongest colour in the group, then the next; colour groups by the colour's
    strength, then the values from the highest down; singles by colour, then value.
    """
    first = cards[0]
    same_value = True
    same_colour = True
    for i in range(1, count):
        same_value = same_value and value_of(cards[i]) == value_of(first)
        same_colour = same_colour and colour_of(cards[i]) == colour_of(first)
    key = 0
    if count == 1:
        strength = WEAKEST - ranks[colour_of(first)]
        key = (CAT_SINGLE << CAT_SHIFT) | (strength << VALUE_BITS) | value_of(first)
    elif same_value:
        category = CAT_PAIR_NUMBER if count == 2 else (CAT_THREE_NUMBER if count == 3 else CAT_FOUR_NUMBER)
        tie = 0
        slot = 0
        for strength in range(WEAKEST, -1, -1):  # the group's colours, strongest first
            for i in range(count):
                if WEAKEST - ranks[colour_of(cards[i])] == strength:
                    tie |= strength << (STRENGTH_BITS * (MAX_PLACED - 1 - slot))
                    slot += 1
        key = (category << CAT_SHIFT) | (value_of(first) << (STRENGTH_BITS * MAX_PLACED)) | tie
    elif same_colour:
        category = CAT_PAIR_COLOUR if count == 2 else (CAT_THREE_COLOUR if count == 3 else CAT_FOUR_COLOUR)
        tie = 0
        slot = 0
        for value in range(NUM_VALUES - 1, -1, -1):  # the group's values, highest first
            for i in range(count):
                if value_of(cards[i]) == value:
                    tie |= value << (VALUE_BITS * (MAX_PLACED - 1 - slot))
                    slot += 1
        strength = WEAKEST - ranks[colour_of(first)]
        key = (category << CAT_SHIFT) | (strength << (VALUE_BITS * MAX_PLACED)) | tie
    return key


@nb.njit(cache=True, _nrt=False)
def best_key(cards, count, ranks, scratch):
    """The best combination among ``cards[:count]`` (any subset); ``scratch`` holds 4."""
    best = 0
    for subset in range(1, 1 << count):
        size = 0
        for i in range(count):
            if subset & (1 << i):
                scratch[size] = cards[i]
                size += 1
        key = group_key(scratch, size, ranks)
        if key > best:
            best = key
    return best


@nb.njit(cache=True, _nrt=False)
def _state_group_key(state, base, subset):
    """``group_key`` of the cards ``state[base + i]`` for the bits i of ``subset``,
    read from the state itself so that the hot path allocates nothing."""
    count = 0
    first = -1
    same_value = True
    same_colour = True
    for i in range(MAX_PLACED):
        if subset & (1 << i):
            card = state[base + i]
            if first < 0:
                first = card
            else:
                same_value = same_value and value_of(card) == value_of(first)
                same_colour = same_colour and colour_of(card) == colour_of(first)
            count += 1
    key = 0
    if count == 1:
        strength = WEAKEST - state[S_RANK + colour_of(first)]
        key = (CAT_SINGLE << CAT_SHIFT) | (strength << VALUE_BITS) | value_of(first)
    elif same_value:
        category = CAT_PAIR_NUMBER if count == 2 else (CAT_THREE_NUMBER if count == 3 else CAT_FOUR_NUMBER)
        tie = 0
        slot = 0
        for strength in range(WEAKEST, -1, -1):
            for i in range(MAX_PLACED):
                if subset & (1 << i) and WEAKEST - state[S_RANK + colour_of(state[base + i])] == strength:
                    tie |= strength << (STRENGTH_BITS * (MAX_PLACED - 1 - slot))
                    slot += 1
        key = (category << CAT_SHIFT) | (value_of(first) << (STRENGTH_BITS * MAX_PLACED)) | tie
    elif same_colour:
        category = CAT_PAIR_COLOUR if count == 2 else (CAT_THREE_COLOUR if count == 3 else CAT_FOUR_COLOUR)
        tie = 0
        slot = 0
        for value in range(NUM_VALUES - 1, -1, -1):
            for i in range(MAX_PLACED):
                if subset & (1 << i) and value_of(state[base + i]) == value:
                    tie |= value << (VALUE_BITS * (MAX_PLACED - 1 - slot))
                    slot += 1
        strength = WEAKEST - state[S_RANK + colour_of(first)]
        key = (category << CAT_SHIFT) | (strength << (VALUE_BITS * MAX_PLACED)) | tie
    return key


@nb.njit(cache=True, _nrt=False)
def placed_key(state, player):
    """The best combination among the cards ``player`` placed in this contest (0: none)."""
    count = state[S_NUM_PLACED + player]
    base = S_PLACED + MAX_PLACED * player
    best = 0
    for subset in range(1, 1 << count):
        key = _state_group_key(state, base, subset)
        if key > best:
            best = key
    return best


# --- rules -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S_PLAYER] = CHANCE
    state[S_PHASE] = PH_FIRST
    state[S_FIRST] = -1
    state[S_PENDING] = -1
    state[S_CONTEST_POS] = -1
    state[S_PILE] = NUM_CARDS
    for c in range(NUM_CARDS):
        state[S_WHERE + c] = LOC_PILE
    for i in range(NUM_SLOTS):
        state[S_ELEMENT + i] = -1
        state[S_SLOT_CARD + i] = -1
        state[S_SLOT_OWNER + i] = EMPTY
    for k in range(MAX_ROUNDS * NUM_SLOTS):
        state[S_ORDER + k] = -1
        state[S_RESULT + k] = RES_NONE


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S_PLAYER]


@nb.njit(cache=True, _nrt=False, inline="always")
def legal_mask(cfg, state, mask):
    # One exit and no slices: inlined into loops, numba then counts no references.
    for a in range(mask.shape[0]):
        mask[a] = False
    player = state[S_PLAYER]
    if player >= 0:
        phase = state[S_PHASE]
        if phase == PH_SLOT:
            for i in range(NUM_SLOTS):
                mask[SLOT_ACTION + i] = state[S_SLOT_OWNER + i] == EMPTY
        else:
            cards = True
            if phase == PH_CONTEST and state[S_DOUBLE] == 0:
                mask[PASS] = True
                # The third turn places two cards: with fewer in hand, pass alone.
                if state[S_NUM_PLACED + player] == DOUBLE_AT and state[S_HAND_SIZE + player] < 2:
                    cards = False
            elif phase == PH_DISCARD:
                mask[KEEP] = True
            if cards:
                for c in range(NUM_CARDS):
                    mask[c] = state[S_WHERE + c] == player


@nb.njit(cache=True, _nrt=False, inline="always")
def sample_legal(cfg, state, u):
    """The ``int(u * n)``-th of the n legal actions in id order (hand cards, then
    slot, pass or keep). The hand size is in the state, so a random card costs a
    scan of the card locations and no mask."""
    player = state[S_PLAYER]
    phase = state[S_PHASE]
    action = -1
    if phase == PH_SLOT:
        free = 0
        for i in range(NUM_SLOTS):
            free += state[S_SLOT_OWNER + i] == EMPTY
        k = int(u * free)
        for i in range(NUM_SLOTS):
            if action < 0 and state[S_SLOT_OWNER + i] == EMPTY:
                if k == 0:
                    action = SLOT_ACTION + i
                k -= 1
    else:
        cards = state[S_HAND_SIZE + player]
        extra = NUM_ACTIONS  # the action after the cards, if any
        if phase == PH_CONTEST and state[S_DOUBLE] == 0:
            extra = PASS
            if state[S_NUM_PLACED + player] == DOUBLE_AT and cards < 2:
                cards = 0
        elif phase == PH_DISCARD:
            extra = KEEP
        k = int(u * (cards + (extra < NUM_ACTIONS)))
        if k >= cards:
            action = extra
        else:
            for c in range(NUM_CARDS):
                if action < 0 and state[S_WHERE + c] == player:
                    if k == 0:
                        action = c
                    k -= 1
    return action


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    for outcome in range(probs.shape[0]):
        probs[outcome] = 0.0
    if state[S_PLAYER] == CHANCE:
        phase = state[S_PHASE]
        if phase == PH_FIRST:
            n = cfg[C_PLAYERS]
            for k in range(n):
                probs[k] = 1.0 / n
        elif phase == PH_ELEMENTS:
            placed = state[S_PLACED_ELEMENTS]
            for c in range(NUM_COLOURS):
                probs[c] = 1.0 / (NUM_COLOURS - placed)
            for i in range(placed):
                probs[state[S_ELEMENT + i]] = 0.0
        else:  # a deal, a refill or a slot filled from the pile
            pile = state[S_PILE]
            for c in range(NUM_CARDS):
                if state[S_WHERE + c] == LOC_PILE:
                    probs[c] = 1.0 / pile


@nb.njit(cache=True, _nrt=False)
def _receiver(cfg, state):
    """The next player the deal serves (seat order from S_DEAL_FROM), or -1."""
    n = cfg[C_PLAYERS]
    start = state[S_DEAL_FROM]
    receiver = -1
    for i in range(n):
        p = (start + i) % n
        if receiver < 0 and state[S_HAND_SIZE + p] < HAND_SIZE:
            receiver = p
    return receiver


@nb.njit(cache=True, _nrt=False)
def _start_round(cfg, state):
    rnd = state[S_ROUND]
    for i in range(NUM_SLOTS):
        state[S_ORDER + NUM_SLOTS * rnd + i] = state[S_ELEMENT + i]
        state[S_SLOT_CARD + i] = -1
        state[S_SLOT_OWNER + i] = EMPTY
    state[S_BIDS] = 0
    state[S_PENDING] = -1
    state[S_CONTEST] = 0
    state[S_CONTEST_POS] = -1
    first = round_first(cfg, state)
    state[S_STARTER] = first
    state[S_PLAYER] = first
    state[S_PHASE] = PH_BID


@nb.njit(cache=True, _nrt=False)
def _begin_refill(cfg, state):
    """Phase 3 is over: the next round's cards are dealt from its first player on."""
    rnd = state[S_ROUND] + 1
    state[S_ROUND] = rnd
    n = cfg[C_PLAYERS]
    for c in range(NUM_CARDS):
        holder = state[S_WHERE + c]
        if holder < n:
            state[log_at(state, rnd, c)] = holder + 1
    state[S_DEAL_FROM] = round_first(cfg, state)
    state[S_PHASE] = PH_DEAL
    state[S_PLAYER] = CHANCE
    if _receiver(cfg, state) < 0:
        _start_round(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _next_discarder(cfg, state):
    """Moves phase 3 on to the next player with cards, or to the refill."""
    n = cfg[C_PLAYERS]
    first = round_first(cfg, state)
    i = state[S_DISCARDER]
    while i < n and state[S_HAND_SIZE + (first + i) % n] == 0:
        i += 1
    state[S_DISCARDER] = i
    if i < n:
        state[S_PLAYER] = (first + i) % n
    else:
        _begin_refill(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _end_round(cfg, state):
    for c in range(NUM_CARDS):
        if state[S_WHERE + c] == LOC_WON:
            state[S_WHERE + c] = LOC_PILE
            state[S_PILE] += 1
    if state[S_ROUND] == cfg[C_ROUNDS] - 1:
        state[S_PHASE] = PH_OVER
        state[S_PLAYER] = TERMINAL
    else:
        state[S_PHASE] = PH_DISCARD
        state[S_DISCARDER] = 0
        _next_discarder(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _start_contest(cfg, state):
    """Starts the contest for the lowest open point card (the one furthest from the
    box among equals), or ends the round."""
    results = S_RESULT + NUM_SLOTS * state[S_ROUND]
    pos = -1
    for i in range(NUM_SLOTS):
        if state[results + i] == RES_OPEN:
            pos = i
    if pos < 0:
        _end_round(cfg, state)
    else:
        state[S_CONTEST_POS] = pos
        state[S_CONTEST] += 1
        for p in range(MAX_PLAYERS):
            state[S_NUM_PLACED + p] = 0
            state[S_OUT + p] = 0
        state[S_DOUBLE] = 0
        state[S_PLAYER] = state[S_STARTER]
        state[S_PHASE] = PH_CONTEST


@nb.njit(cache=True, _nrt=False)
def _reveal(cfg, state):
    """Turns the bids over and sorts the pairs by value, highest next to the box.

    A stable insertion sort: among equal values the pair nearer the box stays
    nearer; element cards without a card (set aside) go last, in their order.
    """
    for i in range(1, NUM_SLOTS):
        j = i
        while j > 0:
            left = state[S_SLOT_CARD + j - 1]
            right = state[S_SLOT_CARD + j]
            left_key = value_of(left) if left >= 0 else -1
            right_key = value_of(right) if right >= 0 else -1
            if left_key >= right_key:
                break
            for base in (S_ELEMENT, S_SLOT_CARD, S_SLOT_OWNER):
                held = state[base + j - 1]
                state[base + j - 1] = state[base + j]
                state[base + j] = held
            j -= 1
    results = S_RESULT + NUM_SLOTS * state[S_ROUND]
    for i in range(NUM_SLOTS):
        state[S_RANK + state[S_ELEMENT + i]] = i
        card = state[S_SLOT_CARD + i]
        if card < 0:
            state[results + i] = RES_NONE
        elif value_of(card) == 0:
            state[results + i] = RES_ZERO
            state[S_WHERE + card] = LOC_PILE
            state[S_PILE] += 1
        else:
            state[results + i] = RES_OPEN
    state[S_STARTER] = round_first(cfg, state)
    _start_contest(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _after_bids(cfg, state):
    empty = False
    for i in range(NUM_SLOTS):
        empty = empty or state[S_SLOT_OWNER + i] == EMPTY
    if empty and cfg[C_ASIDE] == 0:
        state[S_PHASE] = PH_FILL
        state[S_PLAYER] = CHANCE
    else:
        _reveal(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _end_contest(cfg, state):
    n = cfg[C_PLAYERS]
    winner = -1
    best = 0
    for p in range(n):
        if state[S_NUM_PLACED + p] > 0:
            key = placed_key(state, p)
            if key > best:
                best = key
                winner = p
    pos = state[S_CONTEST_POS]
    point = state[S_SLOT_CARD + pos]
    result = S_RESULT + NUM_SLOTS * state[S_ROUND] + pos
    if winner < 0:
        state[result] = RES_NOBODY
        state[S_WHERE + point] = LOC_PILE
        state[S_PILE] += 1
    else:
        state[result] = winner
        state[S_SCORE + winner] += value_of(point)
        state[S_WHERE + point] = LOC_WON
        state[S_STARTER] = winner
    for p in range(n):
        for i in range(state[S_NUM_PLACED + p]):
            state[S_WHERE + state[S_PLACED + MAX_PLACED * p + i]] = LOC_PILE
            state[S_PILE] += 1
    state[S_CONTEST_POS] = -1
    _start_contest(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _advance(cfg, state, player):
    """The next seat still in the contest (the player again if alone), or the end."""
    n = cfg[C_PLAYERS]
    following = -1
    for i in range(1, n + 1):
        q = (player + i) % n
        if following < 0 and state[S_OUT + q] == 0 and state[S_NUM_PLACED + q] < MAX_PLACED:
            following = q
    if following < 0:
        _end_contest(cfg, state)
    else:
        state[S_PLAYER] = following


@nb.njit(cache=True, _nrt=False)
def apply(cfg, state, action):
    player = state[S_PLAYER]
    phase = state[S_PHASE]
    rnd = state[S_ROUND]
    if player == CHANCE:
        if phase == PH_FIRST:
            state[S_FIRST] = action
            state[S_PHASE] = PH_ELEMENTS
        elif phase == PH_ELEMENTS:
            placed = state[S_PLACED_ELEMENTS]
            state[S_ELEMENT + placed] = action
            state[S_PLACED_ELEMENTS] = placed + 1
            if placed + 1 == NUM_SLOTS:
                for i in range(NUM_SLOTS):
                    state[S_RANK + state[S_ELEMENT + i]] = i
                state[S_DEAL_FROM] = 0  # the first deal always starts at seat 0
                state[S_PHASE] = PH_DEAL
        elif phase == PH_DEAL:
            receiver = _receiver(cfg, state)
            state[S_WHERE + action] = receiver
            state[S_HAND_SIZE + receiver] += 1
            state[S_PILE] -= 1
            state[log_at(state, rnd, action)] = receiver + 1
            if _receiver(cfg, state) < 0:
                _start_round(cfg, state)
        else:  # PH_FILL: the empty slot nearest the box gets the card
            pos = 0
            while state[S_SLOT_OWNER + pos] != EMPTY:
                pos += 1
            state[S_SLOT_CARD + pos] = action
            state[S_SLOT_OWNER + pos] = FILLED
            state[S_WHERE + action] = LOC_ROW
            state[S_PILE] -= 1
            state[log_at(state, rnd, action)] |= (EV_FILL << EV_SHIFT) | (pos << AT_SHIFT)
            _after_bids(cfg, state)
    elif phase == PH_BID:
        state[S_WHERE + action] = LOC_ROW
        state[S_HAND_SIZE + player] -= 1
        state[S_PENDING] = action
        state[S_PHASE] = PH_SLOT
    elif phase == PH_SLOT:
        pos = action - SLOT_ACTION
        card = state[S_PENDING]
        state[S_SLOT_CARD + pos] = card
        state[S_SLOT_OWNER + pos] = player
        state[log_at(state, rnd, card)] |= (EV_BID << EV_SHIFT) | (pos << AT_SHIFT)
        state[S_PENDING] = -1
        state[S_BIDS] += 1
        if state[S_BIDS] < cfg[C_PLAYERS]:
            state[S_PLAYER] = (player + 1) % cfg[C_PLAYERS]
            state[S_PHASE] = PH_BID
        else:
            _after_bids(cfg, state)
    elif phase == PH_CONTEST:
        if action == PASS:
            state[S_OUT + player] = 1
            _advance(cfg, state, player)
        else:
            count = state[S_NUM_PLACED + player]
            state[S_WHERE + action] = LOC_PLACED
            state[S_HAND_SIZE + player] -= 1
            state[S_PLACED + MAX_PLACED * player + count] = action
            state[log_at(state, rnd, action)] |= (
                (EV_PLAY << EV_SHIFT) | ((state[S_CONTEST] - 1) << AT_SHIFT) | (count << NTH_SHIFT)
            )
            state[S_NUM_PLACED + player] = count + 1
            if count + 1 == DOUBLE_AT + 1:
                state[S_DOUBLE] = 1  # the second card of the third turn follows at once
            else:
                state[S_DOUBLE] = 0
                _advance(cfg, state, player)
    else:  # PH_DISCARD
        if action == KEEP:
            state[S_DISCARDER] += 1
            _next_discarder(cfg, state)
        else:
            state[S_WHERE + action] = LOC_PILE
            state[S_HAND_SIZE + player] -= 1
            state[S_PILE] += 1
            state[log_at(state, rnd, action)] |= DISCARD_BIT
            if state[S_HAND_SIZE + player] == 0:
                state[S_DISCARDER] += 1
                _next_discarder(cfg, state)


@nb.njit(cache=True, _nrt=False)
def returns(cfg, state, out):
    for p in range(out.shape[0]):
        out[p] = 0.0
    if state[S_PLAYER] == TERMINAL:
        n = cfg[C_PLAYERS]
        total = 0
        for p in range(n):
            total += state[S_SCORE + p]
        # score - mean = (n * score - total) / n, rounded to a multiple of the
        # quantum; the rounding error is then given back so the units sum to zero.
        units = 1.0 / RETURN_QUANTUM
        residual = 0
        largest = 0
        for p in range(n):
            exact = n * state[S_SCORE + p] - total
            rounded = np.int64(np.round(exact * units / n))
            out[p] = rounded
            residual += rounded
            if abs(exact) > abs(n * state[S_SCORE + largest] - total):
                largest = p
        out[largest] -= residual
        for p in range(n):
            out[p] *= RETURN_QUANTUM


# --- information-set sampling ------------------------------------------------------
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
    n = cfg[C_PLAYERS]
    phase = state[S_PHASE]
    if state[S_FIRST] < 0 or phase == PH_ELEMENTS:
        return
    current = state[S_ROUND]
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
            hand_total[current, x] = state[S_HAND_SIZE + x]
    for j in range(current):
        for x in range(n):
            kept_count[j + 1, x] = hand_total[j, x] - reveals[j, x] - discards[j, x]
    # The opponents' hidden bid and filled cards of this round, before the reveal.
    hidden_bid_slot = np.full(n, -2, np.int64)  # -1: the pending bid, >= 0: its slot
    hidden_fills = 0
    if not revealed:
        for i in range(NUM_SLOTS):
            owner = state[S_SLOT_OWNER + i]
            if owner >= 0 and owner < MAX_PLAYERS and owner != player:
                hidden_bid_slot[owner] = i
            elif owner == FILLED:
                hidden_fills += 1
        if phase == PH_SLOT and state[S_PLAYER] != player:
            hidden_bid_slot[state[S_PLAYER]] = -1

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
            out[S_WHERE + c] = LOC_PILE
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
            out[S_WHERE + card] = LOC_ROW
            if hidden_bid_slot[x] == -1:
                out[S_PENDING] = card
            else:
                out[S_SLOT_CARD + hidden_bid_slot[x]] = card
                out[log_at(out, current, card)] |= (EV_BID << EV_SHIFT) | (hidden_bid_slot[x] << AT_SHIFT)
        if phase == PH_DISCARD:
            size = _choose_into(free, size, discards[current, x], rng, dealt, 0)
            for t in range(discards[current, x]):
                out[log_at(out, current, dealt[t])] |= DISCARD_BIT
        for t in range(size):
            out[S_WHERE + free[t]] = x
    if hidden_fills > 0:
        size = 0
        for c in range(NUM_CARDS):
            if omega[current, c] and holder[current, c] < 0:
                free[size] = c
                size += 1
        for i in range(NUM_SLOTS):
            if state[S_SLOT_OWNER + i] == FILLED:
                size = _choose_into(free, size, 1, rng, dealt, 0)
                card = dealt[0]
                out[S_SLOT_CARD + i] = card
                out[S_WHERE + card] = LOC_ROW
                out[log_at(out, current, card)] |= (EV_FILL << EV_SHIFT) | (i << AT_SHIFT)


# --- the rules bot -------------------------------------------------------------------

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
        if c != card and state[S_WHERE + c] == player:
            if value_of(c) == value_of(card) or colour_of(c) == colour_of(card):
                count += 1
    return count


@nb.njit(cache=True)
def _cheapest_win(state, player, hand, size, others_best, ranks):
    """The fewest hand cards (then the lowest total value) that, added to what
    ``player`` placed, beat ``others_best``: a bitmask over ``hand[:size]``, 0 if none."""
    placed = state[S_NUM_PLACED + player]
    cards = np.empty(MAX_PLACED, np.int64)
    scratch = np.empty(MAX_PLACED, np.int64)
    for i in range(placed):
        cards[i] = state[S_PLACED + MAX_PLACED * player + i]
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
    n = cfg[C_PLAYERS]
    phase = state[S_PHASE]
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
                if state[S_WHERE + c] == player and colour_of(c) == state[S_ELEMENT + i]:
                    held += 1
            keys[SLOT_ACTION + i] = -held
        action = _pick_best(keys, allowed, rng)
    elif phase == PH_CONTEST:
        ranks = np.empty(NUM_COLOURS, np.int64)
        for c in range(NUM_COLOURS):
            ranks[c] = state[S_RANK + c]
        hand = np.empty(HAND_SIZE, np.int64)
        size = 0
        for c in range(NUM_CARDS):
            if state[S_WHERE + c] == player:
                hand[size] = c
                size += 1
        others_best = 0
        for q in range(n):
            if q != player and state[S_NUM_PLACED + q] > 0:
                others_best = max(others_best, placed_key(state, q))
        mine = placed_key(state, player)
        value = value_of(state[S_SLOT_CARD + state[S_CONTEST_POS]])
        if state[S_DOUBLE] == 1:
            # The second card of a third turn: the one making the best combination.
            cards = np.empty(MAX_PLACED, np.int64)
            scratch = np.empty(MAX_PLACED, np.int64)
            for i in range(DOUBLE_AT + 1):
                cards[i] = state[S_PLACED + MAX_PLACED * player + i]
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
            if state[S_WHERE + c] == player and value_of(c) <= 5 and _partners(state, player, c) == 0:
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


# --- encoders --------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False, inline="always")
def _relative(cfg, observer, seat):
    return (seat - observer) % cfg[C_PLAYERS]


@nb.njit(cache=True, _nrt=False, inline="always")
def row_revealed(state):
    """Are the cards opposite the element cards face up (the bids of this round revealed)?"""
    phase = state[S_PHASE]
    return phase != PH_BID and phase != PH_SLOT and phase != PH_FILL


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
    n = cfg[C_PLAYERS]
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S_PLAYER]
    phase = state[S_PHASE]
    if to_move >= 0:
        out[cfg[OBS.to_move] + _relative(cfg, player, to_move)] = 1.0
        for k in range(len(PLAYER_PHASES)):
            if PLAYER_PHASES[k] == phase:
                out[cfg[OBS.phase] + k] = 1.0
    rnd = state[S_ROUND]
    if state[S_FIRST] >= 0:
        out[cfg[OBS.round] + rnd] = 1.0
        out[cfg[OBS.round_first] + _relative(cfg, player, round_first(cfg, state))] = 1.0
    for c in range(NUM_CARDS):
        if state[S_WHERE + c] == player:
            out[cfg[OBS.hand] + c] = 1.0
    for q in range(n):
        rel = _relative(cfg, player, q)
        out[cfg[OBS.hand_sizes] + rel] = state[S_HAND_SIZE + q]
        out[cfg[OBS.scores] + rel] = state[S_SCORE + q]
    out[cfg[OBS.pile]] = state[S_PILE]
    for i in range(state[S_PLACED_ELEMENTS]):
        out[cfg[OBS.colours] + NUM_COLOURS * i + state[S_ELEMENT + i]] = 1.0
    revealed = row_revealed(state)
    for i in range(NUM_SLOTS):
        owner = state[S_SLOT_OWNER + i]
        if owner == FILLED:
            out[cfg[OBS.row_owner] + (n + 1) * i + n] = 1.0
        elif owner >= 0:
            out[cfg[OBS.row_owner] + (n + 1) * i + _relative(cfg, player, owner)] = 1.0
        card = state[S_SLOT_CARD + i]
        if card >= 0 and (revealed or owner == player):
            out[cfg[OBS.row_card] + NUM_CARDS * i + card] = 1.0
    if state[S_PENDING] >= 0 and to_move == player:
        out[cfg[OBS.pending] + state[S_PENDING]] = 1.0
    contest = state[S_CONTEST_POS]
    for i in range(NUM_SLOTS):
        kind = _result_kind(cfg, player, state[S_RESULT + NUM_SLOTS * rnd + i], i == contest)
        if kind >= 0:
            out[cfg[OBS.results] + (RESULT_KINDS + n) * i + kind] = 1.0
    if contest >= 0:
        for q in range(n):
            rel = _relative(cfg, player, q)
            for i in range(state[S_NUM_PLACED + q]):
                out[cfg[OBS.placed] + NUM_CARDS * rel + state[S_PLACED + MAX_PLACED * q + i]] = 1.0
            out[cfg[OBS.passed] + rel] = state[S_OUT + q]
        out[cfg[OBS.double]] = state[S_DOUBLE]


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    n = cfg[C_PLAYERS]
    current = state[S_ROUND]
    columns = n + NUM_SLOTS + MAX_PLACED
    for rnd in range(current + 1):
        for i in range(NUM_SLOTS):
            colour = state[S_ORDER + NUM_SLOTS * rnd + i]
            if colour >= 0:
                out[cfg[INFO.orders] + NUM_SLOTS * NUM_COLOURS * rnd + NUM_COLOURS * i + colour] = 1.0
            kind = _result_kind(
                cfg, player, state[S_RESULT + NUM_SLOTS * rnd + i], rnd == current and i == state[S_CONTEST_POS]
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


# --- strings ---------------------------------------------------------------------

def card_name(card: int) -> str:
    """``"red 7"`` for card id 7, ``"yellow 0"`` for 11."""
    return f"{COLOURS[card // NUM_VALUES]} {card % NUM_VALUES}"


PHASE_NAMES = {
    PH_FIRST: "setup",
    PH_ELEMENTS: "setup",
    PH_DEAL: "deal",
    PH_BID: "phase 1 (bids)",
    PH_SLOT: "phase 1 (bids)",
    PH_FILL: "phase 1 (bids)",
    PH_CONTEST: "phase 2 (contests)",
    PH_DISCARD: "phase 3 (keep or discard)",
    PH_OVER: "game over",
}
CARD_VERBS = {PH_BID: "bid", PH_CONTEST: "play", PH_DISCARD: "discard"}


def action_to_string(cfg, state, player: int, action: int) -> str:
    action = int(action)
    phase = int(state[S_PHASE])
    if player == CHANCE:
        if phase == PH_FIRST and 0 <= action < cfg[C_PLAYERS]:
            return f"first player {action}"
        if phase == PH_ELEMENTS and 0 <= action < NUM_COLOURS:
            return f"element {COLOURS[action]}"
        if phase in (PH_DEAL, PH_FILL) and 0 <= action < NUM_CARDS:
            return f"deal {card_name(action)}"
        raise ValueError(f"elements1997: {action} is not a chance outcome here")
    if 0 <= action < NUM_CARDS:
        return f"{CARD_VERBS.get(phase, 'card')} {card_name(action)}"
    if SLOT_ACTION <= action < SLOT_ACTION + NUM_SLOTS:
        return f"slot {action - SLOT_ACTION + 1}"
    if action == PASS:
        return "pass"
    if action == KEEP:
        return "keep"
    raise ValueError(f"elements1997: action {action} is out of range 0..{NUM_ACTIONS - 1}")


def _cards(cards) -> str:
    return "[" + ", ".join(card_name(c) for c in cards) + "]"


def _seat(seat: int) -> str:
    return f"p{seat}"


def _to_move(state) -> str:
    player = int(state[S_PLAYER])
    return {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(player, _seat(player))


def _hand(state, player: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if state[S_WHERE + c] == player]


def _result_text(code: int) -> str:
    if code == RES_OPEN:
        return "open"
    if code == RES_ZERO:
        return "worth 0, into the pile"
    if code == RES_NOBODY:
        return "won by nobody"
    return f"won by {_seat(code)}"


def _header(cfg, state) -> list[str]:
    n = int(cfg[C_PLAYERS])
    if state[S_FIRST] < 0:
        return ["setup: first player not drawn yet"]
    rnd = int(state[S_ROUND])
    lines = [
        f"round {rnd + 1} of {int(cfg[C_ROUNDS])}, first player {_seat(int(round_first(cfg, state)))}, "
        f"{PHASE_NAMES[int(state[S_PHASE])]}, to move {_to_move(state)}"
    ]
    placed = int(state[S_PLACED_ELEMENTS])
    colours = [COLOURS[int(state[S_ELEMENT + i])] for i in range(placed)]
    lines.append("element row from the box (strongest first): " + (" > ".join(colours) if colours else "-"))
    lines.append("scores " + ", ".join(f"{_seat(q)} {int(state[S_SCORE + q])}" for q in range(n)))
    lines.append("hand sizes " + ", ".join(f"{_seat(q)} {int(state[S_HAND_SIZE + q])}" for q in range(n)))
    lines.append(f"draw pile {int(state[S_PILE])}")
    return lines


def _row(cfg, state, viewer: int | None) -> list[str]:
    """The cards opposite the element cards, as ``viewer`` sees them (None: all)."""
    if state[S_PLACED_ELEMENTS] < NUM_SLOTS or state[S_PHASE] == PH_DEAL:
        return []
    revealed = bool(row_revealed(state))
    rnd = int(state[S_ROUND])
    parts = []
    for i in range(NUM_SLOTS):
        colour = COLOURS[int(state[S_ELEMENT + i])]
        owner = int(state[S_SLOT_OWNER + i])
        card = int(state[S_SLOT_CARD + i])
        if owner == EMPTY:
            parts.append(f"{i + 1} {colour}: -")
            continue
        who = "pile" if owner == FILLED else _seat(owner)
        visible = revealed or viewer is None or owner == viewer
        text = f"{i + 1} {colour}: {who} {card_name(card) if visible else 'face down'}"
        if revealed:
            code = int(state[S_RESULT + NUM_SLOTS * rnd + i])
            text += ", being contested" if i == state[S_CONTEST_POS] else f", {_result_text(code)}"
        parts.append(text)
    return ["row " + " | ".join(parts)]


def _contest(cfg, state) -> list[str]:
    pos = int(state[S_CONTEST_POS])
    if pos < 0:
        return []
    n = int(cfg[C_PLAYERS])
    parts = []
    for q in range(n):
        cards = [int(state[S_PLACED + MAX_PLACED * q + i]) for i in range(int(state[S_NUM_PLACED + q]))]
        status = " passed" if state[S_OUT + q] else ""
        parts.append(f"{_seat(q)} {_cards(cards)}{status}")
    point = card_name(int(state[S_SLOT_CARD + pos]))
    turn = ", second card of a third turn" if state[S_DOUBLE] else ""
    return [f"contest {int(state[S_CONTEST])} for {point}, started by {_seat(int(state[S_STARTER]))}{turn}: "
            + "; ".join(parts)]


def state_to_string(cfg, state) -> str:
    n = int(cfg[C_PLAYERS])
    lines = _header(cfg, state) + _row(cfg, state, None) + _contest(cfg, state)
    if state[S_PENDING] >= 0:
        lines.append(f"bid waiting for a slot: {card_name(int(state[S_PENDING]))}")
    for q in range(n):
        lines.append(f"hand {_seat(q)} {_cards(_hand(state, q))}")
    lines.append("draw pile " + _cards([c for c in range(NUM_CARDS) if state[S_WHERE + c] == LOC_PILE]))
    return "\n".join(lines)


def observation_string(cfg, state, player: int) -> str:
    lines = [f"observer {_seat(player)}"] + _header(cfg, state) + _row(cfg, state, player) + _contest(cfg, state)
    if state[S_PENDING] >= 0 and state[S_PLAYER] == player:
        lines.append(f"own bid waiting for a slot: {card_name(int(state[S_PENDING]))}")
    lines.append(f"own hand {_cards(_hand(state, player))}")
    return "\n".join(lines)


def _round_history(cfg, state, rnd: int, player: int) -> list[str]:
    """Round ``rnd`` as ``player`` remembers it: own cards and discards, public events."""
    n = int(cfg[C_PLAYERS])
    entries = [int(state[S_LOG + NUM_CARDS * rnd + c]) for c in range(NUM_CARDS)]
    holders = [(e & LOG_HOLDER) - 1 for e in entries]
    events = [(e >> EV_SHIFT) & EV_MASK for e in entries]
    ats = [(e >> AT_SHIFT) & AT_MASK for e in entries]
    order = [int(state[S_ORDER + NUM_SLOTS * rnd + i]) for i in range(NUM_SLOTS)]
    lines = []
    own = [c for c in range(NUM_CARDS) if holders[c] == player]
    lines.append(f"round {rnd + 1}: own cards {_cards(own)}")
    if order[0] >= 0:
        lines.append(f"round {rnd + 1}: element row " + " > ".join(COLOURS[c] for c in order))
    public_row = rnd < state[S_ROUND] or bool(row_revealed(state))
    bids = []
    for c in range(NUM_CARDS):
        if events[c] in (EV_BID, EV_FILL):
            who = _seat(holders[c]) if events[c] == EV_BID else "pile"
            seen = public_row or holders[c] == player
            bids.append((ats[c], f"slot {ats[c] + 1} {who} {card_name(c) if seen else 'face down'}"))
    if bids:
        lines.append(f"round {rnd + 1}: bids " + ", ".join(text for _, text in sorted(bids)))
    plays = sorted(
        (ats[c], (entries[c] >> NTH_SHIFT) & NTH_MASK, holders[c], c) for c in range(NUM_CARDS) if events[c] == EV_PLAY
    )
    contests = sorted({p[0] for p in plays})
    for k in contests:
        by_player = {q: [c for (kk, _, h, c) in plays if kk == k and h == q] for q in range(n)}
        lines.append(
            f"round {rnd + 1}: contest {k + 1} "
            + "; ".join(f"{_seat(q)} {_cards(cards)}" for q, cards in by_player.items())
        )
    results = [int(state[S_RESULT + NUM_SLOTS * rnd + i]) for i in range(NUM_SLOTS)]
    if any(code != RES_NONE for code in results) and rnd < state[S_ROUND]:
        lines.append(f"round {rnd + 1}: results " + ", ".join(
            f"{i + 1} {_result_text(code)}" for i, code in enumerate(results) if code != RES_NONE))
    counts = [sum(1 for c in range(NUM_CARDS) if entries[c] & DISCARD_BIT and holders[c] == q) for q in range(n)]
    if any(counts):
        own_discards = [c for c in range(NUM_CARDS) if entries[c] & DISCARD_BIT and holders[c] == player]
        lines.append(
            f"round {rnd + 1}: discarded " + ", ".join(f"{_seat(q)} {counts[q]}" for q in range(n))
            + f"; own {_cards(own_discards)}"
        )
    return lines


def information_state_string(cfg, state, player: int) -> str:
    lines = [observation_string(cfg, state, player)]
    if state[S_FIRST] >= 0:
        lines.append(f"first player of round 1 {_seat(int(state[S_FIRST]))}")
        for rnd in range(int(state[S_ROUND]) + 1):
            lines += _round_history(cfg, state, rnd, player)
    return "\n".join(lines)
