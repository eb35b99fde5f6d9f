"""Elements (1997): the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

Cards: ``card = colour * 11 + value`` (colours ``red, yellow, green, blue, white``;
values 0-10), each once. The five element cards stand in a row from the box
outwards; ``position`` 0 is next to the box (the strongest colour once the row is
sorted).

The configuration ``cfg`` and the state (int16) are laid out by ``C`` and ``S``
below, named pieces whose tables close this docstring; the tensors by ``OBS`` and
``INFO``.

``S.log`` is the whole history the information states need: every player's
holdings per round (their own private deal), every public event, and the discards
(private to their owner). 179 entries + 55 per round: 344 (688 bytes) for 3
players, 454 for 5.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ...core.arrays import fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range, one_of
from ...core.layout import state_layout, tensor_layout

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

# S.where codes besides a seat's hand (0..MAX_PLAYERS-1).
LOC_PILE = MAX_PLAYERS
LOC_ROW = LOC_PILE + 1  # opposite an element card: a bid, a filled card or a point card
LOC_PLACED = LOC_ROW + 1  # placed in the current contest
LOC_WON = LOC_PLACED + 1  # won this round; back to the pile when points are recorded

FILLED = MAX_PLAYERS  # S.slot_owner of a card drawn from the pile
EMPTY = -1

# S.result codes (a seat >= 0 is the winner).
RES_NONE = -1  # no point card at this position (yet, or its element was set aside)
RES_OPEN = -2  # not contested yet, or being contested
RES_ZERO = -3  # worth 0: put into the draw pile unplayed
RES_NOBODY = -4  # everybody passed without placing a card

# S.log fields, packed in one int16 per (round, card).
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

C = state_layout(
    players=(1, "number of players n (3..5)"),
    aside=(1, "1: empty element slots are set aside (empty_slots=aside), 0: filled from the draw pile"),
    rounds=(1, "rounds played (n: one per player, the full game)"),
)


def rounds_of(params) -> int:
    """Rounds played: ``rounds``, or one per player when it is 0 (the full game)."""
    return params["rounds"] or params["players"]


def _players(params):
    return params["players"]


def _rounds(params):
    return rounds_of(params)


def _rounds_by_cards(params):
    return (rounds_of(params), NUM_CARDS)


S = state_layout(
    player=(1, "next to act: a seat, CHANCE (-1) or TERMINAL (-4)"),
    phase=(1, "PH_* above"),
    first=(1, "first player of the first round; -1 until drawn"),
    round=(1, "current round, 0-based (its first player is first + round)"),
    placed_elements=(1, "element cards laid out by the setup (0..5)"),
    deal_from=(1, "the deal serves players in seat order from this seat"),
    pile=(1, "cards in the draw pile"),
    bids=(1, "bids completed this round"),
    pending=(1, "card just bid, waiting for its slot; -1"),
    contest=(1, "contests started this round (the current one is contest - 1)"),
    contest_pos=(1, "position of the point card being contested; -1 between contests"),
    starter=(1, "starter of the current (or next) contest"),
    double=(1, "1 between the two cards of a third turn"),
    discarder=(1, "phase 3: players done, counted in seat order from the round's first player"),
    hand_size=(MAX_PLAYERS, "cards in player p's hand"),
    score=(MAX_PLAYERS, "points won by p"),
    num_placed=(MAX_PLAYERS, "cards p placed in the current contest (0..4)"),
    out=(MAX_PLAYERS, "1 once p passed in the current contest"),
    placed=((MAX_PLAYERS, MAX_PLACED), "the i-th card p placed in the current contest"),
    element=(NUM_SLOTS, "colour of the element card at position i"),
    rank=(NUM_COLOURS, "strength of colour c: its element's position (0 strongest)"),
    slot_card=(NUM_SLOTS, "card opposite the element at position i; -1 none"),
    slot_owner=(NUM_SLOTS, "who put it there: a seat, FILLED (from the pile) or EMPTY"),
    where=(NUM_CARDS, "where card c is: a seat's hand (0..4) or LOC_*"),
    order=((MAX_ROUNDS, NUM_SLOTS), "colour at position i when round r started; -1 before"),
    result=((MAX_ROUNDS, NUM_SLOTS), "fate of the point card at position i of round r (positions after "
            "the sort): RES_* or the winner's seat"),
    log=(_rounds_by_cards, "what happened to card c in round r, packed (LOG_* above): who held it when the "
         "round's cards were dealt, how it was bid, filled or played, and whether it was discarded"),
)

# Tensor pieces. Per-player pieces are ordered from the observer (observer, next
# seat, ...) so that one network serves every seat; "observer" carries the seat.
# Positions count from the box; cards are ids 0..54.
RESULT_KINDS = 4  # open, being contested, zero, won by nobody; then won by each player
OBS = tensor_layout(
    C._size,
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

__doc__ += f"""
Configuration ``cfg``, ``C`` (then the cfg slots of ``OBS`` and ``INFO``)::

{C._table("C")}

State ``S``::

{S._table()}
"""

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
    cfg[C.players] = n
    cfg[C.aside] = int(aside)
    cfg[C.rounds] = rounds
    state_pieces = S._place(cfg, params)
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
        state_size=state_pieces[-1].stop,
        state_pieces=state_pieces,
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
    return (state[S.first] + state[S.round]) % cfg[C.players]


@nb.njit(cache=True, _nrt=False, inline="always")
def log_at(state, rnd, card):
    return S.log + NUM_CARDS * rnd + card


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
        strength = WEAKEST - state[S.rank + colour_of(first)]
        key = (CAT_SINGLE << CAT_SHIFT) | (strength << VALUE_BITS) | value_of(first)
    elif same_value:
        category = CAT_PAIR_NUMBER if count == 2 else (CAT_THREE_NUMBER if count == 3 else CAT_FOUR_NUMBER)
        tie = 0
        slot = 0
        for strength in range(WEAKEST, -1, -1):
            for i in range(MAX_PLACED):
                if subset & (1 << i) and WEAKEST - state[S.rank + colour_of(state[base + i])] == strength:
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
        strength = WEAKEST - state[S.rank + colour_of(first)]
        key = (category << CAT_SHIFT) | (strength << (VALUE_BITS * MAX_PLACED)) | tie
    return key


@nb.njit(cache=True, _nrt=False)
def placed_key(state, player):
    """The best combination among the cards ``player`` placed in this contest (0: none)."""
    count = state[S.num_placed + player]
    base = S.placed + MAX_PLACED * player
    best = 0
    for subset in range(1, 1 << count):
        key = _state_group_key(state, base, subset)
        if key > best:
            best = key
    return best


@nb.njit(cache=True, _nrt=False, inline="always")
def row_revealed(state):
    """Are the cards opposite the element cards face up (the bids of this round revealed)?"""
    phase = state[S.phase]
    return phase != PH_BID and phase != PH_SLOT and phase != PH_FILL


# --- rules -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S.player] = CHANCE
    state[S.phase] = PH_FIRST
    state[S.first] = -1
    state[S.pending] = -1
    state[S.contest_pos] = -1
    state[S.pile] = NUM_CARDS
    for c in range(NUM_CARDS):
        state[S.where + c] = LOC_PILE
    for i in range(NUM_SLOTS):
        state[S.element + i] = -1
        state[S.slot_card + i] = -1
        state[S.slot_owner + i] = EMPTY
    for k in range(MAX_ROUNDS * NUM_SLOTS):
        state[S.order + k] = -1
        state[S.result + k] = RES_NONE


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S.player]


@nb.njit(cache=True, _nrt=False, inline="always")
def legal_mask(cfg, state, mask):
    # One exit and no slices: inlined into loops, numba then counts no references.
    for a in range(mask.shape[0]):
        mask[a] = False
    player = state[S.player]
    if player >= 0:
        phase = state[S.phase]
        if phase == PH_SLOT:
            for i in range(NUM_SLOTS):
                mask[SLOT_ACTION + i] = state[S.slot_owner + i] == EMPTY
        else:
            cards = True
            if phase == PH_CONTEST and state[S.double] == 0:
                mask[PASS] = True
                # The third turn places two cards: with fewer in hand, pass alone.
                if state[S.num_placed + player] == DOUBLE_AT and state[S.hand_size + player] < 2:
                    cards = False
            elif phase == PH_DISCARD:
                mask[KEEP] = True
            if cards:
                for c in range(NUM_CARDS):
                    mask[c] = state[S.where + c] == player


@nb.njit(cache=True, _nrt=False, inline="always")
def sample_legal(cfg, state, u):
    """The ``int(u * n)``-th of the n legal actions in id order (hand cards, then
    slot, pass or keep). The hand size is in the state, so a random card costs a
    scan of the card locations and no mask."""
    player = state[S.player]
    phase = state[S.phase]
    action = -1
    if phase == PH_SLOT:
        free = 0
        for i in range(NUM_SLOTS):
            free += state[S.slot_owner + i] == EMPTY
        k = int(u * free)
        for i in range(NUM_SLOTS):
            if action < 0 and state[S.slot_owner + i] == EMPTY:
                if k == 0:
                    action = SLOT_ACTION + i
                k -= 1
    else:
        cards = state[S.hand_size + player]
        extra = NUM_ACTIONS  # the action after the cards, if any
        if phase == PH_CONTEST and state[S.double] == 0:
            extra = PASS
            if state[S.num_placed + player] == DOUBLE_AT and cards < 2:
                cards = 0
        elif phase == PH_DISCARD:
            extra = KEEP
        k = int(u * (cards + (extra < NUM_ACTIONS)))
        if k >= cards:
            action = extra
        else:
            for c in range(NUM_CARDS):
                if action < 0 and state[S.where + c] == player:
                    if k == 0:
                        action = c
                    k -= 1
    return action


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    for outcome in range(probs.shape[0]):
        probs[outcome] = 0.0
    if state[S.player] == CHANCE:
        phase = state[S.phase]
        if phase == PH_FIRST:
            n = cfg[C.players]
            for k in range(n):
                probs[k] = 1.0 / n
        elif phase == PH_ELEMENTS:
            placed = state[S.placed_elements]
            for c in range(NUM_COLOURS):
                probs[c] = 1.0 / (NUM_COLOURS - placed)
            for i in range(placed):
                probs[state[S.element + i]] = 0.0
        else:  # a deal, a refill or a slot filled from the pile
            pile = state[S.pile]
            for c in range(NUM_CARDS):
                if state[S.where + c] == LOC_PILE:
                    probs[c] = 1.0 / pile


@nb.njit(cache=True, _nrt=False)
def _receiver(cfg, state):
    """The next player the deal serves (seat order from S.deal_from), or -1."""
    n = cfg[C.players]
    start = state[S.deal_from]
    receiver = -1
    for i in range(n):
        p = (start + i) % n
        if receiver < 0 and state[S.hand_size + p] < HAND_SIZE:
            receiver = p
    return receiver


@nb.njit(cache=True, _nrt=False)
def _start_round(cfg, state):
    rnd = state[S.round]
    for i in range(NUM_SLOTS):
        state[S.order + NUM_SLOTS * rnd + i] = state[S.element + i]
        state[S.slot_card + i] = -1
        state[S.slot_owner + i] = EMPTY
    state[S.bids] = 0
    state[S.pending] = -1
    state[S.contest] = 0
    state[S.contest_pos] = -1
    first = round_first(cfg, state)
    state[S.starter] = first
    state[S.player] = first
    state[S.phase] = PH_BID


@nb.njit(cache=True, _nrt=False)
def _begin_refill(cfg, state):
    """Phase 3 is over: the next round's cards are dealt from its first player on."""
    rnd = state[S.round] + 1
    state[S.round] = rnd
    n = cfg[C.players]
    for c in range(NUM_CARDS):
        holder = state[S.where + c]
        if holder < n:
            state[log_at(state, rnd, c)] = holder + 1
    state[S.deal_from] = round_first(cfg, state)
    state[S.phase] = PH_DEAL
    state[S.player] = CHANCE
    if _receiver(cfg, state) < 0:
        _start_round(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _next_discarder(cfg, state):
    """Moves phase 3 on to the next player with cards, or to the refill."""
    n = cfg[C.players]
    first = round_first(cfg, state)
    i = state[S.discarder]
    while i < n and state[S.hand_size + (first + i) % n] == 0:
        i += 1
    state[S.discarder] = i
    if i < n:
        state[S.player] = (first + i) % n
    else:
        _begin_refill(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _end_round(cfg, state):
    for c in range(NUM_CARDS):
        if state[S.where + c] == LOC_WON:
            state[S.where + c] = LOC_PILE
            state[S.pile] += 1
    if state[S.round] == cfg[C.rounds] - 1:
        state[S.phase] = PH_OVER
        state[S.player] = TERMINAL
    else:
        state[S.phase] = PH_DISCARD
        state[S.discarder] = 0
        _next_discarder(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _start_contest(cfg, state):
    """Starts the contest for the lowest open point card (the one furthest from the
    box among equals), or ends the round."""
    results = S.result + NUM_SLOTS * state[S.round]
    pos = -1
    for i in range(NUM_SLOTS):
        if state[results + i] == RES_OPEN:
            pos = i
    if pos < 0:
        _end_round(cfg, state)
    else:
        state[S.contest_pos] = pos
        state[S.contest] += 1
        for p in range(MAX_PLAYERS):
            state[S.num_placed + p] = 0
            state[S.out + p] = 0
        state[S.double] = 0
        state[S.player] = state[S.starter]
        state[S.phase] = PH_CONTEST


@nb.njit(cache=True, _nrt=False)
def _reveal(cfg, state):
    """Turns the bids over and sorts the pairs by value, highest next to the box.

    A stable insertion sort: among equal values the pair nearer the box stays
    nearer; element cards without a card (set aside) go last, in their order.
    """
    for i in range(1, NUM_SLOTS):
        j = i
        while j > 0:
            left = state[S.slot_card + j - 1]
            right = state[S.slot_card + j]
            left_key = value_of(left) if left >= 0 else -1
            right_key = value_of(right) if right >= 0 else -1
            if left_key >= right_key:
                break
            for base in (S.element, S.slot_card, S.slot_owner):
                held = state[base + j - 1]
                state[base + j - 1] = state[base + j]
                state[base + j] = held
            j -= 1
    results = S.result + NUM_SLOTS * state[S.round]
    for i in range(NUM_SLOTS):
        state[S.rank + state[S.element + i]] = i
        card = state[S.slot_card + i]
        if card < 0:
            state[results + i] = RES_NONE
        elif value_of(card) == 0:
            state[results + i] = RES_ZERO
            state[S.where + card] = LOC_PILE
            state[S.pile] += 1
        else:
            state[results + i] = RES_OPEN
    state[S.starter] = round_first(cfg, state)
    _start_contest(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _after_bids(cfg, state):
    empty = False
    for i in range(NUM_SLOTS):
        empty = empty or state[S.slot_owner + i] == EMPTY
    if empty and cfg[C.aside] == 0:
        state[S.phase] = PH_FILL
        state[S.player] = CHANCE
    else:
        _reveal(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _end_contest(cfg, state):
    n = cfg[C.players]
    winner = -1
    best = 0
    for p in range(n):
        if state[S.num_placed + p] > 0:
            key = placed_key(state, p)
            if key > best:
                best = key
                winner = p
    pos = state[S.contest_pos]
    point = state[S.slot_card + pos]
    result = S.result + NUM_SLOTS * state[S.round] + pos
    if winner < 0:
        state[result] = RES_NOBODY
        state[S.where + point] = LOC_PILE
        state[S.pile] += 1
    else:
        state[result] = winner
        state[S.score + winner] += value_of(point)
        state[S.where + point] = LOC_WON
        state[S.starter] = winner
    for p in range(n):
        for i in range(state[S.num_placed + p]):
            state[S.where + state[S.placed + MAX_PLACED * p + i]] = LOC_PILE
            state[S.pile] += 1
    state[S.contest_pos] = -1
    _start_contest(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _advance(cfg, state, player):
    """The next seat still in the contest (the player again if alone), or the end."""
    n = cfg[C.players]
    following = -1
    for i in range(1, n + 1):
        q = (player + i) % n
        if following < 0 and state[S.out + q] == 0 and state[S.num_placed + q] < MAX_PLACED:
            following = q
    if following < 0:
        _end_contest(cfg, state)
    else:
        state[S.player] = following


@nb.njit(cache=True, _nrt=False)
def apply(cfg, state, action):
    player = state[S.player]
    phase = state[S.phase]
    rnd = state[S.round]
    if player == CHANCE:
        if phase == PH_FIRST:
            state[S.first] = action
            state[S.phase] = PH_ELEMENTS
        elif phase == PH_ELEMENTS:
            placed = state[S.placed_elements]
            state[S.element + placed] = action
            state[S.placed_elements] = placed + 1
            if placed + 1 == NUM_SLOTS:
                for i in range(NUM_SLOTS):
                    state[S.rank + state[S.element + i]] = i
                state[S.deal_from] = 0  # the first deal always starts at seat 0
                state[S.phase] = PH_DEAL
        elif phase == PH_DEAL:
            receiver = _receiver(cfg, state)
            state[S.where + action] = receiver
            state[S.hand_size + receiver] += 1
            state[S.pile] -= 1
            state[log_at(state, rnd, action)] = receiver + 1
            if _receiver(cfg, state) < 0:
                _start_round(cfg, state)
        else:  # PH_FILL: the empty slot nearest the box gets the card
            pos = 0
            while state[S.slot_owner + pos] != EMPTY:
                pos += 1
            state[S.slot_card + pos] = action
            state[S.slot_owner + pos] = FILLED
            state[S.where + action] = LOC_ROW
            state[S.pile] -= 1
            state[log_at(state, rnd, action)] |= (EV_FILL << EV_SHIFT) | (pos << AT_SHIFT)
            _after_bids(cfg, state)
    elif phase == PH_BID:
        state[S.where + action] = LOC_ROW
        state[S.hand_size + player] -= 1
        state[S.pending] = action
        state[S.phase] = PH_SLOT
    elif phase == PH_SLOT:
        pos = action - SLOT_ACTION
        card = state[S.pending]
        state[S.slot_card + pos] = card
        state[S.slot_owner + pos] = player
        state[log_at(state, rnd, card)] |= (EV_BID << EV_SHIFT) | (pos << AT_SHIFT)
        state[S.pending] = -1
        state[S.bids] += 1
        if state[S.bids] < cfg[C.players]:
            state[S.player] = (player + 1) % cfg[C.players]
            state[S.phase] = PH_BID
        else:
            _after_bids(cfg, state)
    elif phase == PH_CONTEST:
        if action == PASS:
            state[S.out + player] = 1
            _advance(cfg, state, player)
        else:
            count = state[S.num_placed + player]
            state[S.where + action] = LOC_PLACED
            state[S.hand_size + player] -= 1
            state[S.placed + MAX_PLACED * player + count] = action
            state[log_at(state, rnd, action)] |= (
                (EV_PLAY << EV_SHIFT) | ((state[S.contest] - 1) << AT_SHIFT) | (count << NTH_SHIFT)
            )
            state[S.num_placed + player] = count + 1
            if count + 1 == DOUBLE_AT + 1:
                state[S.double] = 1  # the second card of the third turn follows at once
            else:
                state[S.double] = 0
                _advance(cfg, state, player)
    else:  # PH_DISCARD
        if action == KEEP:
            state[S.discarder] += 1
            _next_discarder(cfg, state)
        else:
            state[S.where + action] = LOC_PILE
            state[S.hand_size + player] -= 1
            state[S.pile] += 1
            state[log_at(state, rnd, action)] |= DISCARD_BIT
            if state[S.hand_size + player] == 0:
                state[S.discarder] += 1
                _next_discarder(cfg, state)


@nb.njit(cache=True, _nrt=False, inline="always")
def _round_half_even(x):
    """``np.round(x)`` (halves to the even neighbour) as an integer, from ``math.floor``:
    NVVM has no ``llvm.rint``, which ``np.round`` compiles to, and the GPU no ``np.floor``
    of a scalar."""
    low = math.floor(x)
    rest = x - low  # exact: low <= x < low + 1
    if rest > 0.5 or (rest == 0.5 and low % 2 != 0):
        low += 1
    return low


@nb.njit(cache=True, _nrt=False)
def returns(cfg, state, out):
    for p in range(out.shape[0]):
        out[p] = 0.0
    if state[S.player] == TERMINAL:
        n = cfg[C.players]
        total = 0
        for p in range(n):
            total += state[S.score + p]
        # score - mean = (n * score - total) / n, rounded to a multiple of the
        # quantum; the rounding error is then given back so the units sum to zero.
        units = 1.0 / RETURN_QUANTUM
        residual = 0
        largest = 0
        for p in range(n):
            exact = n * state[S.score + p] - total
            rounded = np.int64(_round_half_even(exact * units / n))
            out[p] = rounded
            residual += rounded
            if abs(exact) > abs(n * state[S.score + largest] - total):
                largest = p
        out[largest] -= residual
        for p in range(n):
            out[p] *= RETURN_QUANTUM
