"""Elementum: the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file; the cards: ``cards.py``.

Cards are indexed 0..54 (card number - 1); the Overload is index 54. Elements are
0 fire, 1 earth, 2 water, 3 air. A *seat* owns a layout and a hand: the players
0..P-1, and in the solo game the imitation at seat 1. Hands keep their identity
while they travel: hand ``h`` is the one dealt to seat ``h`` this round, and
``S_HAND_OF + s`` says which hand seat ``s`` holds now.

Configuration ``cfg`` (int64), built by ``configure``::

    C_PLAYERS          players P (1..4)
    C_SEATS            seats S = max(P, 2): layouts and hands (solo: the imitation is seat 1)
    C_SOLO             1 in the solo game
    C_OVERLOAD         1 with the Overload variant
    C_ROUNDS           rounds of the game (2 or 3)
    C_ROUND_SIZE + r   cards dealt to each hand in round r
    C_POOL_SIZE        cards revealed into the pool at the start (3, or 4 with Overload)
    C_IN_GAME + c      1 if card c is in this game's deck (2-player and solo removals)
    C_LOG, C_LOG_CAP   offset and capacity of the log in the state
    OBS.<piece>, INFO.<piece>   the piece's offset in the tensors (``core.layout``)

State (int16). Header::

    S_PLAYER        next to act: a player, CHANCE (-1) or TERMINAL (-4)
    S_STEP          STEP_*: the setup draw or the step of the turn (see "Order of decisions")
    S_DECISION      DEC_*: what the player to move decides (DEC_NONE at chance nodes)
    S_SEAT, S_SUB   cursor of the current step: the seat whose turn it is in seat
                    order, and where that seat is within its part of the step
    S_COUNT         setup draws / cards dealt so far in this step
    S_ROUND         rounds finished; S_TURN turns finished in the whole game
    S_DIRECTION     +1 hands pass from s to s + 1; -1 after a "reverse draft"
    S_SUPPLY        crystals in the supply; S_POOL_COUNT cards in the pool
    S_ACTIVE        bit s: seat s had cards at the start of this turn (picked in step 1)
    S_VELOCITY      1 once a Velocitatis resolved this turn (step 5 follows)
    S_EFF_SOURCE    the card whose effect is resolving (a Speculum when copying)
    S_GIVEN         the card Mutare gave to the pool (it cannot be taken back)
    S_OVERLOAD      seat holding the Overload, -1 while it is in the deck or out of play
    S_MARK_BIFARIUS, S_MARK_SPECULUM   owner of a tie-breaker mark on card 51 / 36, or -1
    S_LOG_LEN       entries in the log; S_REVEALED entries before it are no longer hidden
    S_DECK_LEFT     cards in the deck (the chance draws' denominator)

Per column / element / seat / hand (sizes NUM_COLUMNS, NUM_ELEMENTS, MAX_SEATS)::

    S_SOURCE + k       element of column k (the sources left to right)
    S_COLUMN_OF + e    column of element e
    S_CRYSTALS + s     unused crystals of seat s
    S_HAND_OF + s      hand held by seat s
    S_HAND_SIZE + h    cards in hand h (its face-down pick not counted)
    S_PENDING + s      s's face-down pick (hidden until revealed), or -1
    S_PLACING + s      a revealed card of s waiting for a column (universal), or -1
    S_PLACED + s       the card s placed in steps 1-3 this turn (its effect resolves), or -1
    S_PLACED2 + s      the card s placed under Velocitatis this turn, or -1
    S_SWAP + s         s's swap declaration: a pool card, NO_SWAP, or UNDECLARED
    S_PICK_LOG + s, S_SWAP_LOG + s   log index of s's pending hidden pick / declaration
    S_SEEN + s         bit h: seat s has held hand h this round (and so knows its content)
    S_SCORE + s        points of seat s, written when the game ends
    S_QF_A/S_QF_B + s  scoring choices of s: the cards Qui Fieri's sources help (-1 none),
    S_IMITATES + s     the card Imitari copies, S_HALVES + s the card Commodum halves
    S_HEIGHT + 4s + k  cards in column k of seat s's layout (columns have no gaps)
    S_SYM + 4s + e     symbols of element e in seat s's layout (scratch of the scoring)

Per card c (size NUM_CARDS)::

    S_LOC + c          LOC_*: out of the game, deck, box, pool, destroyed, a hand, a
                       face-down pick, waiting for a column, a layout, beside a seat
    S_COL + c, S_ROW + c   position in a layout (row 0 touches the source), else -1
    S_CRYST + c        crystals lying on the card
    S_ORIGIN + c       round * MAX_SEATS + hand it was dealt into, or -1
    S_PICK_TURN + c    1 + the game turn in which it was picked, 0 if never picked
    S_PICKER + c       the seat that picked it, or -1
    S_POINTS + c       points it scored (written when the game ends)

Then ``S_SCRATCH`` (RESAMPLE_SLOTS counters used inside ``resample``, zero between
calls) and the log (``cfg[C_LOG]``): every player action and public chance event,
``actor * LOG_STRIDE + value`` (actors: the players, ACTOR_*), for the perfect-recall
strings. Hidden picks and swap declarations of the current step sit at its end.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy, fill
from ...core.kernel import CHANCE, TERMINAL, Config
from ...core.layout import tensor_layout
from ...core.params import Check, Param, int_range
from ...core.rng import uniform
from .bounds import MAX_LAYOUT_POINTS, MIN_LAYOUT_POINTS
from .cards import (
    ACERVUS,
    ACERVUS_POINTS,
    ADDITICIUS,
    AMBIENTIA,
    AMBIENTIA_BASIC,
    AMBIENTIA_REINFORCED,
    BIFARIUS,
    BIFARIUS_CARD,
    BOXED,
    CARD_DURING_SCORING,
    CARD_ELEMENT,
    CARD_IMMEDIATE,
    CARD_KIND,
    CARD_SLOTS,
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
    ELEMENTS,
    EVERSOR,
    IMITARI_CARD,
    INDURATUS,
    INIQUUS,
    LAPIS,
    MULTUS,
    MUTARE,
    NUM_CARDS,
    NUM_ELEMENTS,
    NUM_SPELLS,
    OVERLOAD,
    OVERLOAD_PENALTY,
    PRAESTANTIA,
    PRAESTANTIA_POINTS,
    PRAESTANTIA_REINFORCED,
    PROPTER,
    PROPTER_POINTS,
    PROPTER_REINFORCED,
    QUI_FIERI_CARD,
    RECTUS,
    REMOVED_2P,
    REMOVED_SOLO_DEFAULT,
    ROUND_SIZES,
    ROWS_MAJORITY_POINTS,
    SET_POINTS,
    SOLO_EXTRA_REMOVED,
    SPECULUM,
    SPECULUM_CARD,
    TOTAL_CRYSTALS,
    UNIVERSAL,
    VELOCITATIS,
    VICINARI,
    VICINARI_POINTS,
    VICINARI_REINFORCED,
    VIR_DIVES,
    VIR_DIVES_STEPS,
    VITIUM,
    card_label,
)

# Types of explicit signatures, for the helpers called with several argument types
# (an int16 read from the state, an int64 computed, each literal constant apart):
# numba would compile each combination, and the first compile took twice as long.
# The others compile on first use, so importing the package stays quick.
CFG = nb.types.Array(nb.int64, 1, "C")
STATE = nb.types.Array(nb.int16, 1, "C")
INT, BOOL, FLOAT = nb.int64, nb.boolean, nb.float64
FLOATS = nb.types.Array(nb.float64, 1, "C")
RNG = nb.types.Array(nb.uint64, 1, "C")
void = nb.void

# --- sizes and rules constants -------------------------------------------------------

MAX_PLAYERS = 4
MAX_SEATS = 4  # layouts (and hands): the players, or the player and the imitation
IMITATION = 1  # the imitation's seat in the solo game
NUM_COLUMNS = NUM_ELEMENTS
MAX_ROWS = 15  # a column holds at most its element's 13 cards and the 2 universal ones
MAX_ROUNDS = 3
START_CRYSTALS = 2
STRICT_POOL, OVERLOAD_POOL = 3, 4
NO_CARD = -1
NO_SWAP, UNDECLARED = -1, -2
# Points tables as arrays, for indexing (by crystals, or by cards around).
ACERVUS_TABLE = np.array(ACERVUS_POINTS, np.int64)
AMBIENTIA_BASIC_TABLE = np.array(AMBIENTIA_BASIC, np.int64)
AMBIENTIA_REINFORCED_TABLE = np.array(AMBIENTIA_REINFORCED, np.int64)
SOLO_RANKS = ((34, "Novice"), (45, "Apprentice"), (55, "Journeyman"), (65, "Adept"), (75, "Master"))
TOP_RANK = "Archmage"

# --- actions -----------------------------------------------------------------------------
# Eight families take a card number, one id per card; then the columns and the rest.
CARD_FAMILIES = ("pick", "swap", "destroy", "copy", "give", "take", "add", "crystal")
A_PICK, A_SWAP, A_DESTROY, A_COPY, A_GIVE, A_TAKE, A_ADD, A_CRYSTAL = (
    NUM_SPELLS * i for i in range(len(CARD_FAMILIES))
)
A_COLUMN = NUM_SPELLS * len(CARD_FAMILIES)
A_NO_SWAP = A_COLUMN + NUM_COLUMNS
A_REVERSE = A_NO_SWAP + 1
A_TIE_BREAKER = A_REVERSE + 1
A_NO_CRYSTAL = A_TIE_BREAKER + 1
A_OVERLOAD_TO = A_NO_CRYSTAL + 1
A_KEEP_OVERLOAD = A_OVERLOAD_TO + MAX_SEATS
NUM_ACTIONS = A_KEEP_OVERLOAD + 1

# Decisions (S_DECISION): the one family of actions legal at a decision node.
DECISIONS = ("none", "pick", "column", "swap", "destroy", "copy", "give", "take", "add",
             "reverse or tie-breaker", "crystal", "overload")
(DEC_NONE, DEC_PICK, DEC_COLUMN, DEC_SWAP, DEC_DESTROY, DEC_COPY, DEC_GIVE, DEC_TAKE, DEC_ADD,
 DEC_BIFARIUS, DEC_CRYSTAL, DEC_OVERLOAD) = range(len(DECISIONS))
NUM_DECISIONS = len(DECISIONS)

# Steps (S_STEP): the setup draws, then the steps of a turn in the order of the rules.
STEPS = ("source", "box", "pool", "deal", "pick", "place", "swap", "swap place", "effects",
         "velocitatis pick", "velocitatis place", "velocitatis effects", "crystals", "over")
(STEP_SOURCE, STEP_BOX, STEP_POOL, STEP_DEAL, STEP_PICK, STEP_PLACE, STEP_SWAP, STEP_SWAP_PLACE,
 STEP_EFFECTS, STEP_V_PICK, STEP_V_PLACE, STEP_V_EFFECTS, STEP_CRYSTAL, STEP_OVER) = range(len(STEPS))
NUM_STEPS = len(STEPS)
# S_SUB during a turn step: 0 the seat's part has not started; 1 it has (an effect is
# resolving, or in the crystal step the crystal choice is behind and the Overload next).
SUB_START, SUB_STARTED = 0, 1

# Card locations (S_LOC).
LOC_OUT, LOC_DECK, LOC_BOX, LOC_POOL, LOC_DESTROYED = range(5)
LOC_HAND = LOC_DESTROYED + 1            # + hand id
LOC_PICK = LOC_HAND + MAX_SEATS         # + seat: face down in front of the seat
LOC_PLACING = LOC_PICK + MAX_SEATS      # + seat: revealed, waiting for a column
LOC_LAYOUT = LOC_PLACING + MAX_SEATS    # + seat
LOC_BESIDE = LOC_LAYOUT + MAX_SEATS     # + seat (the Overload only)

# Log entries: actor * LOG_STRIDE + value; the players are actors 0..3.
LOG_STRIDE = 512
assert NUM_ACTIONS < LOG_STRIDE
ACTOR_SOURCE = MAX_PLAYERS       # value: the element drawn for the next column
ACTOR_POOL = ACTOR_SOURCE + 1    # value: the card revealed into the pool
ACTOR_IMITATION = ACTOR_POOL + 1  # value: the card the imitation picked
ACTOR_DEALT = ACTOR_IMITATION + 1  # marker: a round's hands are dealt (value: round)
ACTOR_OVERLOAD = ACTOR_DEALT + 1  # marker: the Overload was dealt (value: the seat)
ACTOR_PASS = ACTOR_OVERLOAD + 1   # marker: the hands were passed on

# Chance outcome ids: card indices, and elements for the sources.
NUM_CHANCE = NUM_CARDS

# --- configuration and state layout -------------------------------------------------------

C_PLAYERS, C_SEATS, C_SOLO, C_OVERLOAD, C_ROUNDS = range(5)
C_ROUND_SIZE = C_ROUNDS + 1
C_POOL_SIZE = C_ROUND_SIZE + MAX_ROUNDS
C_IN_GAME = C_POOL_SIZE + 1
C_LOG = C_IN_GAME + NUM_CARDS
C_LOG_CAP = C_LOG + 1
C_SIZE = C_LOG_CAP + 1

(S_PLAYER, S_STEP, S_DECISION, S_SEAT, S_SUB, S_COUNT, S_ROUND, S_TURN, S_DIRECTION, S_SUPPLY,
 S_POOL_COUNT, S_ACTIVE, S_VELOCITY, S_EFF_SOURCE, S_GIVEN, S_OVERLOAD, S_MARK_BIFARIUS,
 S_MARK_SPECULUM, S_LOG_LEN, S_REVEALED, S_DECK_LEFT) = range(21)
S_HEADER = S_DECK_LEFT + 1
S_SOURCE = S_HEADER
S_COLUMN_OF = S_SOURCE + NUM_COLUMNS
S_CRYSTALS = S_COLUMN_OF + NUM_ELEMENTS
S_HAND_OF = S_CRYSTALS + MAX_SEATS
S_HAND_SIZE = S_HAND_OF + MAX_SEATS
S_PENDING = S_HAND_SIZE + MAX_SEATS
S_PLACING = S_PENDING + MAX_SEATS
S_PLACED = S_PLACING + MAX_SEATS
S_PLACED2 = S_PLACED + MAX_SEATS
S_SWAP = S_PLACED2 + MAX_SEATS
S_PICK_LOG = S_SWAP + MAX_SEATS
S_SWAP_LOG = S_PICK_LOG + MAX_SEATS
S_SEEN = S_SWAP_LOG + MAX_SEATS
S_SCORE = S_SEEN + MAX_SEATS
S_QF_A = S_SCORE + MAX_SEATS
S_QF_B = S_QF_A + MAX_SEATS
S_IMITATES = S_QF_B + MAX_SEATS
S_HALVES = S_IMITATES + MAX_SEATS
S_HEIGHT = S_HALVES + MAX_SEATS
S_SYM = S_HEIGHT + MAX_SEATS * NUM_COLUMNS
S_LOC = S_SYM + MAX_SEATS * NUM_ELEMENTS
S_COL = S_LOC + NUM_CARDS
S_ROW = S_COL + NUM_CARDS
S_CRYST = S_ROW + NUM_CARDS
S_ORIGIN = S_CRYST + NUM_CARDS
S_PICK_TURN = S_ORIGIN + NUM_CARDS
S_PICKER = S_PICK_TURN + NUM_CARDS
S_POINTS = S_PICKER + NUM_CARDS
S_SCRATCH = S_POINTS + NUM_CARDS
# resample's counters: the deck, the box, each hand and each face-down pick
R_DECK, R_BOX, R_HAND = 0, 1, 2
R_PICK = R_HAND + MAX_SEATS
RESAMPLE_SLOTS = R_PICK + MAX_SEATS
S_FIXED = S_SCRATCH + RESAMPLE_SLOTS  # the log follows

# Per-card features of a layout in the tensors: present, row, crystals. A card's
# column is its element's (the sources piece), but for the two universal cards,
# whose columns have a piece of their own; they alone ever wait for a column.
F_PRESENT, F_ROW, F_CRYSTALS = range(3)
LAYOUT_FEATURES = 3
FIRST_UNIVERSAL = NUM_SPELLS - 2  # cards 53 and 54
NUM_UNIVERSAL = NUM_SPELLS - FIRST_UNIVERSAL


def _seats(params) -> int:
    return max(params["players"], 2)


# Tensor pieces. Per-seat pieces are ordered from the observer (observer first, then
# the seats after it in seat order; solo: the player, then the imitation), so one
# network serves every seat; "observer" carries the absolute seat.
OBS = tensor_layout(
    C_SIZE,
    observer=lambda p: p["players"],
    to_move=_seats,
    decision=NUM_DECISIONS,
    step=NUM_STEPS,
    sources=(NUM_COLUMNS, NUM_ELEMENTS),
    layouts=lambda p: (_seats(p), NUM_SPELLS, LAYOUT_FEATURES),
    universal_columns=lambda p: (_seats(p), NUM_UNIVERSAL, NUM_COLUMNS),
    heights=lambda p: (_seats(p), NUM_COLUMNS),
    symbols=lambda p: (_seats(p), NUM_ELEMENTS),
    crystals=_seats,
    supply=1,
    hand=NUM_SPELLS,
    hand_sizes=_seats,
    own_pick=NUM_SPELLS,
    picked=_seats,
    own_swap=NUM_SPELLS + 1,
    declared=_seats,
    pool=NUM_SPELLS,
    destroyed=NUM_SPELLS,
    placing=lambda p: (_seats(p), NUM_UNIVERSAL),
    effect=NUM_SPELLS,
    given=NUM_SPELLS,
    overload=lambda p: _seats(p) + 1,
    tie_breakers=_seats,
    reversed=1,
    velocitatis=1,
    round=MAX_ROUNDS,
    turn=1,
)
INFO = OBS._extend(
    known_hands=lambda p: (_seats(p), NUM_SPELLS),
    picks=lambda p: (_seats(p), NUM_SPELLS),
)
CFG_SIZE = INFO._end


def parse_cards(text: str) -> list[int]:
    """Card numbers of a parameter such as ``"10_11_26_36"``."""
    try:
        numbers = [int(part) for part in str(text).split("_")]
    except ValueError:
        numbers = []
    return numbers


def _solo_removal_ok(text: str) -> bool:
    numbers = parse_cards(text)
    allowed = [n for n in range(1, NUM_SPELLS + 1) if n not in REMOVED_2P]
    return len(numbers) == SOLO_EXTRA_REMOVED and len(set(numbers)) == SOLO_EXTRA_REMOVED and all(
        n in allowed for n in numbers
    )


SOLO_REMOVED = Check(
    _solo_removal_ok,
    f"{SOLO_EXTRA_REMOVED} distinct card numbers from 1 to {NUM_SPELLS} joined by '_', none of "
    f"the 2-player removals {'_'.join(map(str, REMOVED_2P))}, e.g. "
    f"'{'_'.join(map(str, REMOVED_SOLO_DEFAULT))}'",
)


PARAMS = {
    "players": Param(2, "number of players; 1 is the solo game against the imitation", int_range(1, MAX_PLAYERS)),
    "overload": Param(False, "the Overload variant: 4 pool cards and the Overload card (-5 for its holder)"),
    "solo_removed": Param(
        "_".join(map(str, REMOVED_SOLO_DEFAULT)),
        "the 4 cards the solo game removes besides the 2-player ones",
        SOLO_REMOVED,
    ),
}

# Named parameter sets: every generic check runs on each.
VARIANTS = {
    "default": {},
    "solo": {"players": 1},
    "three": {"players": 3},
    "four": {"players": 4},
    "overload": {"overload": True},
}


def game_cards(params: dict) -> list[int]:
    """Card numbers in this game's deck (the Overload not included)."""
    players = params["players"]
    removed = set()
    if players <= 2:
        removed |= set(REMOVED_2P)
    if players == 1:
        removed |= set(parse_cards(params["solo_removed"]))
    return [n for n in range(1, NUM_SPELLS + 1) if n not in removed]


def configure(params: dict) -> Config:
    players = params["players"]
    seats = max(players, 2)
    rounds = ROUND_SIZES[players]
    cards = game_cards(params)
    pool = OVERLOAD_POOL if params["overload"] else STRICT_POOL
    dealt = seats * sum(rounds)
    # Every card of the deck is dealt, boxed or in the pool (the parameters are checked).
    assert dealt - params["overload"] + pool + BOXED == len(cards)
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[C_PLAYERS] = players
    cfg[C_SEATS] = seats
    cfg[C_SOLO] = players == 1
    cfg[C_OVERLOAD] = int(params["overload"])
    cfg[C_ROUNDS] = len(rounds)
    for r, size in enumerate(rounds):
        cfg[C_ROUND_SIZE + r] = size
    cfg[C_POOL_SIZE] = pool
    for n in cards:
        cfg[C_IN_GAME + n - 1] = 1
    # A player picks at most a round's hand size per round (every hand shrinks by the
    # same count each turn, so the largest sets the pace), and each turn brings at most:
    # per pick a column, a Speculum copy and a Mutare's give, take and column (6 with
    # the pick), and once a swap, its column, a crystal and an Overload move.
    picks = sum(rounds)
    max_decisions = players * (6 * picks + 4 * picks)
    public_chance = NUM_COLUMNS + pool + (picks if players == 1 else 0)
    markers = len(rounds) + 1 + picks
    log_cap = max_decisions + public_chance + markers
    cfg[C_LOG] = S_FIXED
    cfg[C_LOG_CAP] = log_cap
    top = MAX_LAYOUT_POINTS[players]  # proven bounds, see bounds.py
    bottom = MIN_LAYOUT_POINTS
    if players == 1:
        low, high, total = float(bottom), float(top), None
    else:
        spread = (players - 1) * (top - bottom) / players
        low, high, total = -spread, spread, 0.0
    return Config(
        cfg=cfg,
        num_players=players,
        num_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_CHANCE,
        state_size=S_FIXED + log_cap,
        obs_pieces=OBS._place(cfg, params),
        info_pieces=INFO._place(cfg, params),
        min_utility=low,
        max_utility=high,
        utility_sum=total,
        max_game_length=max_decisions,
        max_chance_nodes=NUM_COLUMNS + BOXED + pool + dealt + (picks if players == 1 else 0),
    )


# --- small helpers ---------------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False, inline="always")
def _log(cfg, state, actor, value):
    state[cfg[C_LOG] + state[S_LOG_LEN]] = actor * LOG_STRIDE + value
    state[S_LOG_LEN] += 1


@nb.njit(cache=True, _nrt=False, inline="always")
def _is_imitation(cfg, seat):
    return cfg[C_SOLO] == 1 and seat == IMITATION


@nb.njit(cache=True, _nrt=False, inline="always")
def _nth_at(state, loc, excluded, n, k):
    """The ``k``-th (ascending) of the ``n`` cards at ``loc`` other than ``excluded``,
    counted from the nearer end: random playouts draw here, and halving the
    expected scan is a sizeable part of their time."""
    if 2 * k < n:
        for c in range(NUM_CARDS):
            if state[S_LOC + c] == loc and c != excluded:
                if k == 0:
                    return c
                k -= 1
    else:
        k = n - 1 - k
        for c in range(NUM_CARDS - 1, -1, -1):
            if state[S_LOC + c] == loc and c != excluded:
                if k == 0:
                    return c
                k -= 1
    return -1


@nb.njit(cache=True, _nrt=False, inline="always")
def _in_layout(state, card):
    loc = state[S_LOC + card]
    return loc >= LOC_LAYOUT and loc < LOC_LAYOUT + MAX_SEATS


@nb.njit(cache=True, _nrt=False, inline="always")
def _protected(cfg, state, seat):
    """Induratus in the layout: immune to other players' negative effects (not the imitation)."""
    return (not _is_imitation(cfg, seat)) and state[S_LOC + INDURATUS] == LOC_LAYOUT + seat


@nb.njit(cache=True, _nrt=False, inline="always")
def _height(state, seat, col):
    return state[S_HEIGHT + NUM_COLUMNS * seat + col]


@nb.njit(void(CFG, STATE, INT, INT, INT), cache=True, _nrt=False)
def _place(cfg, state, seat, card, col):
    """Puts ``card`` at the bottom of column ``col`` of ``seat``'s layout."""
    h = S_HEIGHT + NUM_COLUMNS * seat + col
    state[S_LOC + card] = LOC_LAYOUT + seat
    state[S_COL + card] = col
    state[S_ROW + card] = state[h]
    state[S_CRYST + card] = 0
    state[h] += 1


@nb.njit(INT(CFG, STATE, INT, INT), cache=True, _nrt=False)
def _auto_column(cfg, state, seat, card):
    """The column of a card's element; the imitation's universal cards go to its
    leftmost column with the fewest symbols (each of its cards is one symbol)."""
    element = CARD_ELEMENT[card]
    col = 0
    if element == UNIVERSAL:
        for k in range(1, NUM_COLUMNS):
            if _height(state, seat, k) < _height(state, seat, col):
                col = k
    else:
        col = state[S_COLUMN_OF + element]
    return col


@nb.njit(void(CFG, STATE, INT), cache=True, _nrt=False)
def _remove_from_layout(cfg, state, card):
    """Takes ``card`` out of its layout: its crystals go to the supply and the cards
    below it move up. The caller sets its new location."""
    seat = state[S_LOC + card] - LOC_LAYOUT
    col = state[S_COL + card]
    row = state[S_ROW + card]
    loc = state[S_LOC + card]
    for c in range(NUM_SPELLS):
        if state[S_LOC + c] == loc and state[S_COL + c] == col and state[S_ROW + c] > row:
            state[S_ROW + c] -= 1
    state[S_HEIGHT + NUM_COLUMNS * seat + col] -= 1
    state[S_SUPPLY] += state[S_CRYST + card]
    state[S_CRYST + card] = 0
    state[S_COL + card] = -1
    state[S_ROW + card] = -1


@nb.njit(INT(STATE, INT), cache=True, _nrt=False)
def _layout_size(state, seat):
    total = 0
    for k in range(NUM_COLUMNS):
        total += state[S_HEIGHT + NUM_COLUMNS * seat + k]
    return total


@nb.njit(BOOL(STATE, INT), cache=True, _nrt=False)
def _has_free_slot(state, seat):
    loc = LOC_LAYOUT + seat
    for c in range(NUM_SPELLS):
        if state[S_LOC + c] == loc and state[S_CRYST + c] < CARD_SLOTS[c]:
            return True
    return False


@nb.njit(BOOL(CFG, STATE, INT, INT), cache=True, _nrt=False)
def _overload_target(cfg, state, holder, target):
    """May ``holder`` hand the Overload to ``target``?"""
    if target == holder or target >= cfg[C_SEATS]:
        return False
    return not _protected(cfg, state, target)


@nb.njit(BOOL(CFG, STATE, INT), cache=True, _nrt=False)
def _has_overload_target(cfg, state, holder):
    for q in range(cfg[C_SEATS]):
        if _overload_target(cfg, state, holder, q):
            return True
    return False


@nb.njit(BOOL(CFG, STATE, INT, INT), cache=True, _nrt=False)
def _destroy_target(cfg, state, seat, card):
    loc = state[S_LOC + card]
    if loc < LOC_LAYOUT or loc >= LOC_LAYOUT + MAX_SEATS:
        return False
    owner = loc - LOC_LAYOUT
    return owner != seat and not _protected(cfg, state, owner)


@nb.njit(cache=True, _nrt=False)
def _copy_target(state, card):
    if card == SPECULUM_CARD or not CARD_IMMEDIATE[card]:
        return False
    return _in_layout(state, card) or state[S_LOC + card] == LOC_POOL


@nb.njit(cache=True, _nrt=False, inline="always")
def _decide(state, seat, decision):
    state[S_PLAYER] = seat
    state[S_DECISION] = decision


@nb.njit(cache=True, _nrt=False, inline="always")
def _chance(state):
    state[S_PLAYER] = CHANCE
    state[S_DECISION] = DEC_NONE


# --- scoring ------------------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def _count_symbols(cfg, state):
    """``S_SYM``: every seat's symbols by element (as ``symbols``), in one pass."""
    for i in range(MAX_SEATS * NUM_ELEMENTS):
        state[S_SYM + i] = 0
    for c in range(NUM_SPELLS):
        loc = state[S_LOC + c]
        if loc >= LOC_LAYOUT and loc < LOC_LAYOUT + MAX_SEATS:
            seat = loc - LOC_LAYOUT
            n = 1
            if CARD_KIND[c] == DUPLEX and not _is_imitation(cfg, seat):
                n = DUPLEX_REINFORCED_SYMBOLS if state[S_CRYST + c] > 0 else DUPLEX_SYMBOLS
            state[S_SYM + NUM_ELEMENTS * seat + state[S_SOURCE + state[S_COL + c]]] += n


@nb.njit(cache=True, _nrt=False, inline="always")
def _sym(state, seat, element):
    return state[S_SYM + NUM_ELEMENTS * seat + element]


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
    return (state[S_MARK_BIFARIUS] == seat and state[S_LOC + BIFARIUS_CARD] == loc) or (
        state[S_MARK_SPECULUM] == seat and state[S_LOC + SPECULUM_CARD] == loc
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
    for q in range(cfg[C_SEATS]):
        if q != seat:
            theirs = _majority_value(state, q, what, element)
            if theirs > mine or (theirs == mine and (not breaker or has_tie_breaker(cfg, state, q))):
                return False
    return True


@nb.njit(INT(STATE, INT, INT, INT), cache=True, _nrt=False)
def _neighbour(state, seat, card, side):
    """Element of the card beside ``card`` (side -1 left, +1 right, edges wrap), or -1."""
    col = (state[S_COL + card] + side + NUM_COLUMNS) % NUM_COLUMNS
    if _height(state, seat, col) > state[S_ROW + card]:
        return state[S_SOURCE + col]
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
    col = state[S_COL + card]
    row = state[S_ROW + card]
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
    reinforced = state[S_CRYST + card] > 0
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
        points = ACERVUS_TABLE[state[S_CRYST + card]]
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
        if state[S_LOC + c] == loc and c != COMMODUM_CARD and c != IMITARI_CARD:
            p = card_points(cfg, state, seat, c, help_a, help_b)
            base += p
            if write:
                state[S_POINTS + c] = p
            if p > best_other:
                best_other = p
                best_card = c
    commodum = state[S_LOC + COMMODUM_CARD] == loc
    imitari = state[S_LOC + IMITARI_CARD] == loc
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
            state[S_POINTS + COMMODUM_CARD] = commodum_points
        if imitari:
            state[S_POINTS + IMITARI_CARD] = imitari_points
        state[S_IMITATES + seat] = copied
        state[S_HALVES + seat] = halved
    return base + imitari_points + commodum_points


@nb.njit(cache=True, _nrt=False)
def _helps(cfg, state, seat, card):
    """Can a Qui Fieri source help ``card`` (an unfulfilled adjacency card of ``seat``)?"""
    return state[S_LOC + card] == LOC_LAYOUT + seat and adjacency_missing(cfg, state, seat, card) > 0


@nb.njit(INT(CFG, STATE, INT, BOOL), cache=True, _nrt=False)
def _score_seat(cfg, state, seat, write):
    """Points of ``seat`` with every scoring choice made to maximise them (ruling 4).
    Needs ``_count_symbols`` first."""
    total = 0
    if not _is_imitation(cfg, seat):
        loc = LOC_LAYOUT + seat
        qui_fieri = state[S_LOC + QUI_FIERI_CARD] == loc and state[S_CRYST + QUI_FIERI_CARD] > 0
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
            state[S_QF_A + seat] = best_a
            state[S_QF_B + seat] = best_b
    if state[S_OVERLOAD] == seat and not _is_imitation(cfg, seat):
        total -= OVERLOAD_PENALTY
    return total


@nb.njit(cache=True, _nrt=False)
def score_all(cfg, state):
    """Scores every seat: ``S_SCORE``, and per card ``S_POINTS`` (0 outside layouts)."""
    _count_symbols(cfg, state)
    for c in range(NUM_SPELLS):
        state[S_POINTS + c] = 0
    for s in range(cfg[C_SEATS]):
        state[S_SCORE + s] = _score_seat(cfg, state, s, True)


@nb.njit(cache=True, _nrt=False)
def current_score(cfg, state, seat):
    """``seat``'s points if the game ended now (its layout as it lies)."""
    _count_symbols(cfg, state)
    return _score_seat(cfg, state, seat, False)


# --- setup and turns -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    for c in range(NUM_CARDS):
        in_game = c < NUM_SPELLS and cfg[C_IN_GAME + c] == 1
        state[S_LOC + c] = LOC_DECK if in_game else LOC_OUT
        state[S_DECK_LEFT] += in_game
        state[S_COL + c] = -1
        state[S_ROW + c] = -1
        state[S_ORIGIN + c] = -1
        state[S_PICKER + c] = -1
    for s in range(MAX_SEATS):
        state[S_HAND_OF + s] = s
        state[S_PENDING + s] = NO_CARD
        state[S_PLACING + s] = NO_CARD
        state[S_PLACED + s] = NO_CARD
        state[S_PLACED2 + s] = NO_CARD
        state[S_SWAP + s] = UNDECLARED
        state[S_QF_A + s] = NO_CARD
        state[S_QF_B + s] = NO_CARD
        state[S_IMITATES + s] = NO_CARD
        state[S_HALVES + s] = NO_CARD
        if s < cfg[C_PLAYERS]:
            state[S_CRYSTALS + s] = START_CRYSTALS
    for k in range(NUM_COLUMNS):
        state[S_SOURCE + k] = -1
        state[S_COLUMN_OF + k] = -1
    state[S_SUPPLY] = TOTAL_CRYSTALS - START_CRYSTALS * cfg[C_PLAYERS]
    state[S_DIRECTION] = 1
    state[S_OVERLOAD] = -1
    state[S_MARK_BIFARIUS] = -1
    state[S_MARK_SPECULUM] = -1
    state[S_EFF_SOURCE] = NO_CARD
    state[S_GIVEN] = NO_CARD
    state[S_STEP] = STEP_SOURCE
    _chance(state)


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S_PLAYER]


@nb.njit(cache=True, _nrt=False)
def _start_turn(cfg, state):
    active = 0
    for s in range(cfg[C_SEATS]):
        if state[S_HAND_SIZE + state[S_HAND_OF + s]] > 0:
            active |= 1 << s
    for s in range(MAX_SEATS):
        state[S_PENDING + s] = NO_CARD
        state[S_PLACING + s] = NO_CARD
        state[S_PLACED + s] = NO_CARD
        state[S_PLACED2 + s] = NO_CARD
        state[S_SWAP + s] = UNDECLARED
    state[S_ACTIVE] = active
    state[S_VELOCITY] = 0
    state[S_EFF_SOURCE] = NO_CARD
    state[S_GIVEN] = NO_CARD
    state[S_STEP] = STEP_PICK
    state[S_SEAT] = 0
    state[S_SUB] = SUB_START


@nb.njit(cache=True, _nrt=False)
def _start_round(cfg, state):
    for s in range(MAX_SEATS):
        state[S_HAND_OF + s] = s
        state[S_HAND_SIZE + s] = 0
        state[S_SEEN + s] = 0
    state[S_STEP] = STEP_DEAL
    state[S_COUNT] = 0
    _chance(state)


@nb.njit(cache=True, _nrt=False)
def _end_game(cfg, state):
    if cfg[C_SOLO] == 1:
        # The pool joins the imitation's layout, in ascending card number.
        for c in range(NUM_SPELLS):
            if state[S_LOC + c] == LOC_POOL:
                _place(cfg, state, IMITATION, c, _auto_column(cfg, state, IMITATION, c))
        state[S_POOL_COUNT] = 0
    score_all(cfg, state)
    state[S_STEP] = STEP_OVER
    state[S_PLAYER] = TERMINAL
    state[S_DECISION] = DEC_NONE


@nb.njit(cache=True, _nrt=False)
def _end_turn(cfg, state):
    """Passes the hands on; starts the next turn, round or the scoring."""
    seats = cfg[C_SEATS]
    state[S_TURN] += 1
    left = 0
    for h in range(seats):
        left += state[S_HAND_SIZE + h]
    if left > 0:
        if state[S_DIRECTION] > 0:  # seat s + 1 receives the hand of seat s
            last = state[S_HAND_OF + seats - 1]
            for s in range(seats - 1, 0, -1):
                state[S_HAND_OF + s] = state[S_HAND_OF + s - 1]
            state[S_HAND_OF] = last
        else:
            first = state[S_HAND_OF]
            for s in range(seats - 1):
                state[S_HAND_OF + s] = state[S_HAND_OF + s + 1]
            state[S_HAND_OF + seats - 1] = first
        for s in range(seats):
            state[S_SEEN + s] |= 1 << state[S_HAND_OF + s]
        _log(cfg, state, ACTOR_PASS, 0)
        _start_turn(cfg, state)
    else:
        state[S_ROUND] += 1
        if state[S_ROUND] < cfg[C_ROUNDS]:
            _start_round(cfg, state)
        else:
            _end_game(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _reveal(cfg, state, second):
    """Turns the face-down picks up and places them (steps 2 and 5)."""
    for s in range(cfg[C_SEATS]):
        card = state[S_PENDING + s]
        if card < 0:
            continue
        state[S_PENDING + s] = NO_CARD
        state[S_PICK_TURN + card] = state[S_TURN] + 1
        state[S_PICKER + card] = s
        if second:
            state[S_PLACED2 + s] = card
        else:
            state[S_PLACED + s] = card
        if CARD_ELEMENT[card] == UNIVERSAL and not _is_imitation(cfg, s):
            state[S_LOC + card] = LOC_PLACING + s
            state[S_PLACING + s] = card
        else:
            _place(cfg, state, s, card, _auto_column(cfg, state, s, card))
    state[S_REVEALED] = state[S_LOG_LEN]


@nb.njit(cache=True, _nrt=False)
def symbols(cfg, state, seat, element):
    """Symbols of ``element`` in ``seat``'s layout: one per card of its column, a
    Duplex two (four reinforced); each of the imitation's cards is one symbol."""
    col = state[S_COLUMN_OF + element]
    loc = LOC_LAYOUT + seat
    imitation = _is_imitation(cfg, seat)
    total = 0
    for c in range(NUM_SPELLS):
        if state[S_LOC + c] == loc and state[S_COL + c] == col:
            if CARD_KIND[c] == DUPLEX and not imitation:
                total += 4 if state[S_CRYST + c] > 0 else 2
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
    return state[S_CRYSTALS + seat] > state[S_CRYSTALS + other]


@nb.njit(cache=True, _nrt=False)
def _resolve_swaps(cfg, state):
    """All declarations at once: a pool card goes to the one declarer who beats every
    other declarer of it (symbols of its element, then crystals); else to nobody."""
    players = cfg[C_PLAYERS]
    winners = 0
    for s in range(players):
        card = state[S_SWAP + s]
        if card < 0:
            continue
        wins = True
        for t in range(players):
            if t != s and state[S_SWAP + t] == card and not _swap_beats(cfg, state, s, t, card):
                wins = False
        if wins:
            winners |= 1 << s
    for s in range(players):
        if (winners >> s) & 1:
            card = state[S_SWAP + s]
            old = state[S_PLACED + s]
            state[S_CRYSTALS + s] -= 1
            state[S_SUPPLY] += 1
            _remove_from_layout(cfg, state, old)  # universal picks got their column in step 2
            state[S_LOC + old] = LOC_POOL
            state[S_PLACED + s] = card
            if CARD_ELEMENT[card] == UNIVERSAL:
                state[S_LOC + card] = LOC_PLACING + s
                state[S_PLACING + s] = card
            else:
                _place(cfg, state, s, card, _auto_column(cfg, state, s, card))
    state[S_REVEALED] = state[S_LOG_LEN]


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
    state[S_EFF_SOURCE] = source
    waits = False
    if kind == LAPIS:
        if state[S_SUPPLY] > 0:
            state[S_SUPPLY] -= 1
            state[S_CRYSTALS + seat] += 1
    elif kind == VITIUM:
        for q in range(cfg[C_PLAYERS]):
            if state[S_CRYSTALS + q] > 0 and (q == seat or not _protected(cfg, state, q)):
                state[S_CRYSTALS + q] -= 1
                state[S_SUPPLY] += 1
    elif kind == EVERSOR:
        if _any_destroy_target(cfg, state, seat):
            _decide(state, seat, DEC_DESTROY)
            waits = True
    elif kind == SPECULUM:
        if _any_copy_target(state):
            _decide(state, seat, DEC_COPY)
            waits = True
    elif kind == MUTARE:
        if state[S_POOL_COUNT] > 0 and _layout_size(state, seat) > 0:
            _decide(state, seat, DEC_GIVE)
            waits = True
    elif kind == ADDITICIUS:
        if state[S_POOL_COUNT] > 0:
            _decide(state, seat, DEC_ADD)
            waits = True
    elif kind == BIFARIUS:
        _decide(state, seat, DEC_BIFARIUS)
        waits = True
    elif kind == VELOCITATIS:
        if state[S_STEP] == STEP_EFFECTS:  # a second one (step 5) adds nothing
            state[S_VELOCITY] = 1
    return waits


@nb.njit(cache=True, _nrt=False, inline="always")
def _effect_done(state):
    state[S_SEAT] += 1
    state[S_SUB] = SUB_START


@nb.njit(cache=True, _nrt=False)
def _advance(cfg, state):
    """Runs the automatic parts of the turn until a decision, a chance node or the end."""
    players = cfg[C_PLAYERS]
    seats = cfg[C_SEATS]
    while True:
        step = state[S_STEP]
        seat = state[S_SEAT]
        if step == STEP_PICK or step == STEP_V_PICK:
            while seat < players and state[S_HAND_SIZE + state[S_HAND_OF + seat]] == 0:
                seat += 1
            state[S_SEAT] = seat
            if seat < players:
                _decide(state, seat, DEC_PICK)
                return
            if (cfg[C_SOLO] == 1 and state[S_SUB] == SUB_START
                    and state[S_HAND_SIZE + state[S_HAND_OF + IMITATION]] > 0):
                state[S_SUB] = SUB_STARTED
                _chance(state)
                return
            second = step == STEP_V_PICK
            _reveal(cfg, state, second)
            state[S_STEP] = STEP_V_PLACE if second else STEP_PLACE
            state[S_SEAT] = 0
            state[S_SUB] = SUB_START
        elif step == STEP_PLACE or step == STEP_SWAP_PLACE or step == STEP_V_PLACE:
            while seat < seats and state[S_PLACING + seat] < 0:
                seat += 1
            state[S_SEAT] = seat
            if seat < seats:
                _decide(state, seat, DEC_COLUMN)
                return
            state[S_SEAT] = 0
            state[S_SUB] = SUB_START
            if step == STEP_PLACE:
                state[S_STEP] = STEP_SWAP
            elif step == STEP_SWAP_PLACE:
                state[S_STEP] = STEP_EFFECTS
            else:
                state[S_STEP] = STEP_V_EFFECTS
        elif step == STEP_SWAP:
            if state[S_POOL_COUNT] > 0:
                while seat < players and not (
                    (state[S_ACTIVE] >> seat) & 1 and state[S_CRYSTALS + seat] > 0
                ):
                    seat += 1
            else:
                seat = players
            state[S_SEAT] = seat
            if seat < players:
                _decide(state, seat, DEC_SWAP)
                return
            _resolve_swaps(cfg, state)
            state[S_STEP] = STEP_SWAP_PLACE
            state[S_SEAT] = 0
        elif step == STEP_EFFECTS or step == STEP_V_EFFECTS:
            placed = S_PLACED if step == STEP_EFFECTS else S_PLACED2
            while seat < players:
                if state[S_SUB] == SUB_START:
                    card = state[placed + seat]
                    if card >= 0 and CARD_IMMEDIATE[card]:
                        state[S_SUB] = SUB_STARTED
                        if _begin_effect(cfg, state, seat, CARD_KIND[card], card):
                            state[S_SEAT] = seat
                            return
                seat += 1
                state[S_SUB] = SUB_START
            state[S_SEAT] = 0
            state[S_SUB] = SUB_START
            if step == STEP_EFFECTS and state[S_VELOCITY] == 1:
                state[S_STEP] = STEP_V_PICK
            else:
                state[S_STEP] = STEP_CRYSTAL
        elif step == STEP_CRYSTAL:
            while seat < players:
                if (state[S_ACTIVE] >> seat) & 1:
                    if state[S_SUB] == SUB_START:
                        if state[S_CRYSTALS + seat] > 0 and _has_free_slot(state, seat):
                            state[S_SEAT] = seat
                            _decide(state, seat, DEC_CRYSTAL)
                            return
                        state[S_SUB] = SUB_STARTED
                    if (state[S_OVERLOAD] == seat and state[S_CRYSTALS + seat] > 0
                            and _has_overload_target(cfg, state, seat)):
                        state[S_SEAT] = seat
                        _decide(state, seat, DEC_OVERLOAD)
                        return
                seat += 1
                state[S_SUB] = SUB_START
            _end_turn(cfg, state)
            if state[S_STEP] == STEP_DEAL or state[S_STEP] == STEP_OVER:
                return
        else:
            return


# --- the kernel's moves --------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def legal_mask(cfg, state, mask):
    for a in range(mask.shape[0]):
        mask[a] = False
    seat = state[S_PLAYER]
    if seat < 0:
        return
    decision = state[S_DECISION]
    if decision == DEC_PICK:
        loc = LOC_HAND + state[S_HAND_OF + seat]
        for c in range(NUM_SPELLS):
            mask[A_PICK + c] = state[S_LOC + c] == loc
    elif decision == DEC_COLUMN:
        for k in range(NUM_COLUMNS):
            mask[A_COLUMN + k] = True
    elif decision == DEC_SWAP:
        for c in range(NUM_SPELLS):
            mask[A_SWAP + c] = state[S_LOC + c] == LOC_POOL
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
            mask[A_GIVE + c] = state[S_LOC + c] == loc
    elif decision == DEC_TAKE:
        for c in range(NUM_SPELLS):
            mask[A_TAKE + c] = state[S_LOC + c] == LOC_POOL and c != state[S_GIVEN]
    elif decision == DEC_ADD:
        for c in range(NUM_SPELLS):
            mask[A_ADD + c] = state[S_LOC + c] == LOC_POOL
    elif decision == DEC_BIFARIUS:
        mask[A_REVERSE] = True
        mask[A_TIE_BREAKER] = True
    elif decision == DEC_CRYSTAL:
        loc = LOC_LAYOUT + seat
        for c in range(NUM_SPELLS):
            mask[A_CRYSTAL + c] = state[S_LOC + c] == loc and state[S_CRYST + c] < CARD_SLOTS[c]
        mask[A_NO_CRYSTAL] = True
    elif decision == DEC_OVERLOAD:
        for q in range(MAX_SEATS):
            mask[A_OVERLOAD_TO + q] = _overload_target(cfg, state, seat, q)
        mask[A_KEEP_OVERLOAD] = True


@nb.njit(INT(CFG, STATE, INT), cache=True, _nrt=False)
def _nth_legal(cfg, state, k):
    """The ``k``-th legal action in ascending id order (the order of ``legal_mask``),
    or the number of legal actions when ``k`` < 0."""
    seat = state[S_PLAYER]
    decision = state[S_DECISION]
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
            if state[S_LOC + c] == loc and state[S_CRYST + c] < CARD_SLOTS[c]:
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
        count = state[S_POOL_COUNT]
        if decision == DEC_PICK:
            loc = LOC_HAND + state[S_HAND_OF + seat]
            count = state[S_HAND_SIZE + state[S_HAND_OF + seat]]
        elif decision == DEC_GIVE:
            family = A_GIVE
            loc = LOC_LAYOUT + seat
            count = _layout_size(state, seat)
        elif decision == DEC_SWAP:
            family = A_SWAP
            count += 1  # and "no swap", last
        elif decision == DEC_TAKE:
            family = A_TAKE
            excluded = state[S_GIVEN]
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
    player = state[S_PLAYER]
    step = state[S_STEP]
    if player == CHANCE and step == STEP_SOURCE:
        p = 1.0 / (NUM_ELEMENTS - state[S_COUNT])
        for i in range(probs.shape[0]):
            probs[i] = p if i < NUM_ELEMENTS and state[S_COLUMN_OF + i] < 0 else 0.0
    else:
        loc, count = _card_draw(state)
        if player != CHANCE:
            loc = -1  # no outcome at all
        p = 1.0 / max(count, 1)
        for i in range(probs.shape[0]):
            probs[i] = p if i < NUM_CARDS and state[S_LOC + i] == loc else 0.0


@nb.njit(cache=True, inline="always")
def _card_draw(state):
    """Where a card draw takes its card from, and how many lie there: uniform over the
    deck (the imitation's pick: over its hand)."""
    step = state[S_STEP]
    if step == STEP_PICK or step == STEP_V_PICK:
        hand = state[S_HAND_OF + IMITATION]
        return LOC_HAND + hand, state[S_HAND_SIZE + hand]
    return LOC_DECK, state[S_DECK_LEFT]


@nb.njit(cache=True, _nrt=False)
def sample_chance(cfg, state, u):
    """The ``int(u * n)``-th of the ``n`` equally likely outcomes of ``chance_outcomes``."""
    if state[S_STEP] == STEP_SOURCE:
        k = int(u * (NUM_ELEMENTS - state[S_COUNT]))
        for element in range(NUM_ELEMENTS):
            if state[S_COLUMN_OF + element] < 0:
                if k == 0:
                    return element
                k -= 1
        return -1
    loc, count = _card_draw(state)
    return _nth_at(state, loc, -1, count, int(u * count))


@nb.njit(cache=True, _nrt=False)
def _apply_chance(cfg, state, outcome):
    step = state[S_STEP]
    if step == STEP_SOURCE:
        column = state[S_COUNT]
        state[S_SOURCE + column] = outcome
        state[S_COLUMN_OF + outcome] = column
        _log(cfg, state, ACTOR_SOURCE, outcome)
        state[S_COUNT] += 1
        if state[S_COUNT] == NUM_COLUMNS:
            state[S_STEP] = STEP_BOX
            state[S_COUNT] = 0
    elif step == STEP_BOX:
        state[S_LOC + outcome] = LOC_BOX
        state[S_DECK_LEFT] -= 1
        state[S_COUNT] += 1
        if state[S_COUNT] == BOXED:
            state[S_STEP] = STEP_POOL
            state[S_COUNT] = 0
    elif step == STEP_POOL:
        state[S_LOC + outcome] = LOC_POOL
        state[S_DECK_LEFT] -= 1
        state[S_POOL_COUNT] += 1
        _log(cfg, state, ACTOR_POOL, outcome)
        state[S_COUNT] += 1
        if state[S_COUNT] == cfg[C_POOL_SIZE]:
            if cfg[C_OVERLOAD] == 1:  # shuffled in after the box and the pool
                state[S_LOC + OVERLOAD] = LOC_DECK
                state[S_DECK_LEFT] += 1
            _start_round(cfg, state)
    elif step == STEP_DEAL:
        size = cfg[C_ROUND_SIZE + state[S_ROUND]]
        seat = state[S_COUNT] // size
        state[S_DECK_LEFT] -= 1
        if outcome == OVERLOAD:
            state[S_LOC + outcome] = LOC_BESIDE + seat
            state[S_OVERLOAD] = seat
            _log(cfg, state, ACTOR_OVERLOAD, seat)
        else:
            state[S_LOC + outcome] = LOC_HAND + seat
            state[S_ORIGIN + outcome] = state[S_ROUND] * MAX_SEATS + seat
            state[S_HAND_SIZE + seat] += 1
        state[S_COUNT] += 1
        if state[S_COUNT] == cfg[C_SEATS] * size:
            _log(cfg, state, ACTOR_DEALT, state[S_ROUND])
            for s in range(cfg[C_SEATS]):
                state[S_SEEN + s] = 1 << s
            _start_turn(cfg, state)
            _advance(cfg, state)
    else:  # the imitation's pick
        hand = state[S_HAND_OF + IMITATION]
        state[S_LOC + outcome] = LOC_PICK + IMITATION
        state[S_PENDING + IMITATION] = outcome
        state[S_HAND_SIZE + hand] -= 1
        _log(cfg, state, ACTOR_IMITATION, outcome)
        _advance(cfg, state)


@nb.njit(cache=True, _nrt=False)
def _take_from_pool(cfg, state, seat, card):
    """A pool card joins ``seat``'s layout (universal: it waits for a column); True if it waits."""
    state[S_POOL_COUNT] -= 1
    waits = CARD_ELEMENT[card] == UNIVERSAL
    if waits:
        state[S_LOC + card] = LOC_PLACING + seat
        state[S_PLACING + seat] = card
        _decide(state, seat, DEC_COLUMN)
    else:
        _place(cfg, state, seat, card, _auto_column(cfg, state, seat, card))
    return waits


@nb.njit(cache=True, _nrt=False)
def apply(cfg, state, action):
    seat = state[S_PLAYER]
    if seat == CHANCE:
        _apply_chance(cfg, state, action)
        return
    _log(cfg, state, seat, action)
    decision = state[S_DECISION]
    step = state[S_STEP]
    waits = False
    if decision == DEC_PICK:
        card = action - A_PICK
        state[S_LOC + card] = LOC_PICK + seat
        state[S_PENDING + seat] = card
        state[S_HAND_SIZE + state[S_HAND_OF + seat]] -= 1
        state[S_PICK_LOG + seat] = state[S_LOG_LEN] - 1
        state[S_SEAT] = seat + 1
    elif decision == DEC_COLUMN:
        card = state[S_PLACING + seat]
        state[S_PLACING + seat] = NO_CARD
        _place(cfg, state, seat, card, action - A_COLUMN)
        if step == STEP_EFFECTS or step == STEP_V_EFFECTS:
            _effect_done(state)
    elif decision == DEC_SWAP:
        state[S_SWAP + seat] = NO_SWAP if action == A_NO_SWAP else action - A_SWAP
        state[S_SWAP_LOG + seat] = state[S_LOG_LEN] - 1
        state[S_SEAT] = seat + 1
    elif decision == DEC_DESTROY:
        card = action - A_DESTROY
        _remove_from_layout(cfg, state, card)
        state[S_LOC + card] = LOC_DESTROYED
        _effect_done(state)
    elif decision == DEC_COPY:
        card = action - A_COPY
        waits = _begin_effect(cfg, state, seat, CARD_KIND[card], SPECULUM_CARD)
        if not waits:
            _effect_done(state)
    elif decision == DEC_GIVE:
        card = action - A_GIVE
        _remove_from_layout(cfg, state, card)
        state[S_LOC + card] = LOC_POOL
        state[S_POOL_COUNT] += 1
        state[S_GIVEN] = card
        _decide(state, seat, DEC_TAKE)
        waits = True
    elif decision == DEC_TAKE or decision == DEC_ADD:
        card = action - (A_TAKE if decision == DEC_TAKE else A_ADD)
        waits = _take_from_pool(cfg, state, seat, card)
        if not waits:
            _effect_done(state)
    elif decision == DEC_BIFARIUS:
        if action == A_REVERSE:
            state[S_DIRECTION] = -state[S_DIRECTION]
        elif state[S_EFF_SOURCE] == SPECULUM_CARD:
            state[S_MARK_SPECULUM] = seat
        else:
            state[S_MARK_BIFARIUS] = seat
        _effect_done(state)
    elif decision == DEC_CRYSTAL:
        if action != A_NO_CRYSTAL:
            state[S_CRYST + action - A_CRYSTAL] += 1
            state[S_CRYSTALS + seat] -= 1
        state[S_SUB] = SUB_STARTED
    elif decision == DEC_OVERLOAD:
        if action != A_KEEP_OVERLOAD:
            target = action - A_OVERLOAD_TO
            state[S_OVERLOAD] = target
            state[S_LOC + OVERLOAD] = LOC_BESIDE + target
            state[S_CRYSTALS + seat] -= 1
            state[S_SUPPLY] += 1
        state[S_SEAT] = seat + 1
        state[S_SUB] = SUB_START
    if not waits:
        _advance(cfg, state)


@nb.njit(cache=True, _nrt=False)
def returns(cfg, state, out):
    for p in range(out.shape[0]):
        out[p] = 0.0
    if state[S_PLAYER] == TERMINAL:
        players = cfg[C_PLAYERS]
        if players == 1:
            out[0] = state[S_SCORE]
        else:
            total = 0.0
            for p in range(players):
                total += state[S_SCORE + p]
            for p in range(players):
                out[p] = state[S_SCORE + p] - total / players


# --- information-set sampling --------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def _hidden_slot(cfg, state, player, card):
    """The resample slot of a card ``player`` cannot place, or -1 when they know where it is.

    Unknown: the deck (the Overload apart: while undealt, everyone knows it is there),
    the box, hands ``player`` has not held this round and the face-down picks made
    from them. A pick made from a hand ``player`` has held is known up to which of
    that hand's cards it is (handled apart)."""
    loc = state[S_LOC + card]
    seen = state[S_SEEN + player]
    slot = -1
    if loc == LOC_DECK and card != OVERLOAD:
        slot = R_DECK
    elif loc == LOC_BOX:
        slot = R_BOX
    elif loc >= LOC_HAND and loc < LOC_HAND + MAX_SEATS:
        if not (seen >> (loc - LOC_HAND)) & 1:
            slot = R_HAND + loc - LOC_HAND
    elif loc >= LOC_PICK and loc < LOC_PICK + MAX_SEATS:
        s = loc - LOC_PICK
        if s != player and not (seen >> state[S_HAND_OF + s]) & 1:
            slot = R_PICK + s
    return slot


@nb.njit(cache=True, _nrt=False)
def _set_pick(cfg, out, seat, card):
    out[S_LOC + card] = LOC_PICK + seat
    out[S_PENDING + seat] = card
    out[cfg[C_LOG] + out[S_PICK_LOG + seat]] = seat * LOG_STRIDE + A_PICK + card


@nb.njit(cache=True, _nrt=False)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``, hidden parts drawn uniformly.

    The cards ``player`` cannot place (see ``_hidden_slot``) are dealt again at random
    into the places they could be (deck, box, unseen hands, picks from unseen hands),
    each place keeping its public size; a pick from a hand ``player`` has held is
    redrawn among that hand's cards; other players' pending swap declarations are
    drawn uniformly among their options (opponents are not modelled). The log's
    hidden entries are rewritten to match.
    """
    copy(out, state)
    for i in range(RESAMPLE_SLOTS):
        out[S_SCRATCH + i] = 0
    unknown = 0
    for c in range(NUM_CARDS):
        slot = _hidden_slot(cfg, state, player, c)
        if slot >= 0:
            out[S_SCRATCH + slot] += 1
            unknown += 1
    round_base = state[S_ROUND] * MAX_SEATS
    for c in range(NUM_CARDS):
        if _hidden_slot(cfg, state, player, c) < 0:
            continue
        k = int(uniform(rng, 0) * unknown)
        slot = 0
        while k >= out[S_SCRATCH + slot]:
            k -= out[S_SCRATCH + slot]
            slot += 1
        out[S_SCRATCH + slot] -= 1
        unknown -= 1
        out[S_ORIGIN + c] = -1
        if slot == R_DECK:
            out[S_LOC + c] = LOC_DECK
        elif slot == R_BOX:
            out[S_LOC + c] = LOC_BOX
        elif slot < R_PICK:
            out[S_LOC + c] = LOC_HAND + slot - R_HAND
            out[S_ORIGIN + c] = round_base + slot - R_HAND
        else:
            seat = slot - R_PICK
            out[S_ORIGIN + c] = round_base + state[S_HAND_OF + seat]
            _set_pick(cfg, out, seat, c)
    seen = state[S_SEEN + player]
    for s in range(cfg[C_SEATS]):
        pending = state[S_PENDING + s]
        hand = state[S_HAND_OF + s]
        if s == player or pending < 0 or not (seen >> hand) & 1:
            continue
        k = int(uniform(rng, 0) * (state[S_HAND_SIZE + hand] + 1))
        for c in range(NUM_SPELLS):
            if state[S_LOC + c] == LOC_HAND + hand or c == pending:
                if k == 0:
                    out[S_LOC + pending] = LOC_HAND + hand
                    _set_pick(cfg, out, s, c)
                k -= 1
    if state[S_STEP] == STEP_SWAP:
        for s in range(cfg[C_PLAYERS]):
            if s == player or state[S_SWAP + s] == UNDECLARED:
                continue
            k = int(uniform(rng, 0) * (state[S_POOL_COUNT] + 1))
            action = A_NO_SWAP
            out[S_SWAP + s] = NO_SWAP
            for c in range(NUM_SPELLS):
                if state[S_LOC + c] == LOC_POOL:
                    if k == 0:
                        action = A_SWAP + c
                        out[S_SWAP + s] = c
                    k -= 1
            out[cfg[C_LOG] + state[S_SWAP_LOG + s]] = s * LOG_STRIDE + action


# --- the rules bot ---------------------------------------------------------------------------

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
    owner = state[S_LOC + card] - LOC_LAYOUT
    copy(work, state)
    _remove_from_layout(cfg, work, card)
    work[S_LOC + card] = LOC_DESTROYED
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
    decision = state[S_DECISION]
    if decision == DEC_PICK:
        loc = LOC_HAND + state[S_HAND_OF + player]
        for c in range(NUM_SPELLS):
            if state[S_LOC + c] != loc:
                continue
            value = _best_gain(cfg, state, player, c, work)
            kind = CARD_KIND[c]
            useful = True
            if kind == LAPIS:
                useful = state[S_SUPPLY] > 0
            elif kind == EVERSOR:
                useful = _any_destroy_target(cfg, state, player)
            elif kind == ADDITICIUS:
                useful = state[S_POOL_COUNT] > 0
            if useful:
                value += IMMEDIATE_BONUS[c]
            if CARD_SLOTS[c] > 0 and state[S_CRYSTALS + player] > 0:
                value += SLOT_BONUS
            _consider(value, A_PICK + c, best, rng)
    elif decision == DEC_COLUMN:
        card = state[S_PLACING + player]
        for col in range(NUM_COLUMNS):
            _consider(_placement_gain(cfg, state, player, card, col, work), A_COLUMN + col, best, rng)
    elif decision == DEC_SWAP:
        _consider(0.0, A_NO_SWAP, best, rng)
        mine = state[S_PLACED + player]
        without = state.copy()  # the layout with the pick back in the pool
        _remove_from_layout(cfg, without, mine)
        without[S_LOC + mine] = LOC_POOL
        loss = current_score(cfg, state, player) - current_score(cfg, without, player)
        for c in range(NUM_SPELLS):
            if state[S_LOC + c] == LOC_POOL:
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
            useful = not (kind == LAPIS and state[S_SUPPLY] == 0) and not (
                kind == VELOCITATIS and state[S_STEP] != STEP_EFFECTS)
            for c in range(NUM_SPELLS):
                if useful and CARD_KIND[c] == kind and _copy_target(state, c):
                    _consider(0.0, A_COPY + c, best, rng)
        if best[1] < 0:
            for c in range(NUM_SPELLS):
                if _copy_target(state, c):
                    _consider(0.0, A_COPY + c, best, rng)
    elif decision == DEC_GIVE:
        for c in range(NUM_SPELLS):
            if state[S_LOC + c] == LOC_LAYOUT + player:
                _consider(-_removal_loss(cfg, state, c, work), A_GIVE + c, best, rng)
    elif decision == DEC_TAKE or decision == DEC_ADD:
        family = A_TAKE if decision == DEC_TAKE else A_ADD
        for c in range(NUM_SPELLS):
            if state[S_LOC + c] == LOC_POOL and not (decision == DEC_TAKE and c == state[S_GIVEN]):
                _consider(_best_gain(cfg, state, player, c, work), family + c, best, rng)
    elif decision == DEC_BIFARIUS:
        best[1] = A_TIE_BREAKER
    elif decision == DEC_CRYSTAL:
        _consider(EPS * 2, A_NO_CRYSTAL, best, rng)
        now = current_score(cfg, state, player)
        for c in range(NUM_SPELLS):
            if state[S_LOC + c] == LOC_LAYOUT + player and state[S_CRYST + c] < CARD_SLOTS[c]:
                copy(work, state)
                work[S_CRYST + c] += 1
                _consider(current_score(cfg, work, player) - now, A_CRYSTAL + c, best, rng)
    elif decision == DEC_OVERLOAD:
        for q in range(cfg[C_SEATS]):
            if _overload_target(cfg, state, player, q):
                _consider(float(current_score(cfg, state, q)), A_OVERLOAD_TO + q, best, rng)
    return int(best[1])


# --- encoders --------------------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False, inline="always")
def _relative(cfg, player, seat):
    return (seat - player + cfg[C_SEATS]) % cfg[C_SEATS]


@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    seats = cfg[C_SEATS]
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S_PLAYER]
    if to_move >= 0:
        out[cfg[OBS.to_move] + _relative(cfg, player, to_move)] = 1.0
    out[cfg[OBS.decision] + state[S_DECISION]] = 1.0
    out[cfg[OBS.step] + state[S_STEP]] = 1.0
    for k in range(NUM_COLUMNS):
        if state[S_SOURCE + k] >= 0:
            out[cfg[OBS.sources] + NUM_ELEMENTS * k + state[S_SOURCE + k]] = 1.0
    own_hand = LOC_HAND + state[S_HAND_OF + player]
    for c in range(NUM_SPELLS):
        loc = state[S_LOC + c]
        if loc >= LOC_LAYOUT and loc < LOC_LAYOUT + MAX_SEATS:
            seat = loc - LOC_LAYOUT
            r = _relative(cfg, player, seat)
            col = state[S_COL + c]
            at = cfg[OBS.layouts] + (NUM_SPELLS * r + c) * LAYOUT_FEATURES
            out[at + F_PRESENT] = 1.0
            out[at + F_ROW] = state[S_ROW + c]
            out[at + F_CRYSTALS] = state[S_CRYST + c]
            if c >= FIRST_UNIVERSAL:
                out[cfg[OBS.universal_columns] + (NUM_UNIVERSAL * r + c - FIRST_UNIVERSAL) * NUM_COLUMNS + col] = 1.0
            n = 1
            if CARD_KIND[c] == DUPLEX and not _is_imitation(cfg, seat):
                n = DUPLEX_REINFORCED_SYMBOLS if state[S_CRYST + c] > 0 else DUPLEX_SYMBOLS
            out[cfg[OBS.symbols] + NUM_ELEMENTS * r + state[S_SOURCE + col]] += n
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
    swapping = state[S_STEP] == STEP_SWAP
    for s in range(seats):
        r = _relative(cfg, player, s)
        for k in range(NUM_COLUMNS):
            out[cfg[OBS.heights] + NUM_COLUMNS * r + k] = _height(state, s, k)
        out[cfg[OBS.crystals] + r] = state[S_CRYSTALS + s]
        out[cfg[OBS.hand_sizes] + r] = state[S_HAND_SIZE + state[S_HAND_OF + s]]
        out[cfg[OBS.picked] + r] = state[S_PENDING + s] >= 0
        out[cfg[OBS.declared] + r] = swapping and state[S_SWAP + s] != UNDECLARED
        out[cfg[OBS.tie_breakers] + r] = has_tie_breaker(cfg, state, s)
    out[cfg[OBS.supply]] = state[S_SUPPLY]
    if swapping and state[S_SWAP + player] != UNDECLARED:
        own = state[S_SWAP + player]
        out[cfg[OBS.own_swap] + (NUM_SPELLS if own == NO_SWAP else own)] = 1.0
    step = state[S_STEP]
    if (step == STEP_EFFECTS or step == STEP_V_EFFECTS) and state[S_EFF_SOURCE] >= 0:
        out[cfg[OBS.effect] + state[S_EFF_SOURCE]] = 1.0
    if state[S_DECISION] == DEC_TAKE:
        out[cfg[OBS.given] + state[S_GIVEN]] = 1.0
    holder = state[S_OVERLOAD]
    out[cfg[OBS.overload] + (seats if holder < 0 else _relative(cfg, player, holder))] = 1.0
    out[cfg[OBS.reversed]] = state[S_DIRECTION] < 0
    out[cfg[OBS.velocitatis]] = state[S_VELOCITY]
    out[cfg[OBS.round] + min(state[S_ROUND], MAX_ROUNDS - 1)] = 1.0
    out[cfg[OBS.turn]] = state[S_TURN]


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    seats = cfg[C_SEATS]
    seen = state[S_SEEN + player]
    for s in range(seats):
        hand = state[S_HAND_OF + s]
        if not (seen >> hand) & 1:
            continue
        at = cfg[INFO.known_hands] + NUM_SPELLS * _relative(cfg, player, s)
        for c in range(NUM_SPELLS):
            loc = state[S_LOC + c]
            if loc == LOC_HAND + hand or loc == LOC_PICK + s:
                out[at + c] = 1.0
    for c in range(NUM_SPELLS):
        picker = state[S_PICKER + c]
        if picker >= 0:
            out[cfg[INFO.picks] + NUM_SPELLS * _relative(cfg, player, picker) + c] = state[S_PICK_TURN + c]


# --- strings ---------------------------------------------------------------------------------

def _number(card: int) -> int:
    return int(card) + 1


def _seat_name(cfg, seat: int) -> str:
    return "imitation" if cfg[C_SOLO] == 1 and seat == IMITATION else f"p{seat}"


def action_to_string(cfg, state, player: int, action: int) -> str:
    action = int(action)
    if player == CHANCE:
        step = int(state[S_STEP])
        if step == STEP_SOURCE and 0 <= action < NUM_ELEMENTS:
            return f"source {ELEMENTS[action]}"
        if 0 <= action < NUM_CARDS:
            what = {STEP_BOX: "box", STEP_POOL: "pool", STEP_DEAL: "deal",
                    STEP_PICK: "imitation picks", STEP_V_PICK: "imitation picks"}.get(step)
            if what is not None:
                return f"{what} {_number(action)}"
        raise ValueError(f"elementum: {action} is not a chance outcome here")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"elementum: action {action} is out of range 0..{NUM_ACTIONS - 1}")
    if action < A_COLUMN:
        family, card = divmod(action, NUM_SPELLS)
        return f"{CARD_FAMILIES[family]} {_number(card)}"
    if action < A_NO_SWAP:
        return f"column {action - A_COLUMN + 1}"
    if A_OVERLOAD_TO <= action < A_KEEP_OVERLOAD:
        target = action - A_OVERLOAD_TO
        return "overload to imitation" if cfg[C_SOLO] == 1 and target == IMITATION else f"overload to {target}"
    return {A_NO_SWAP: "no swap", A_REVERSE: "reverse draft", A_TIE_BREAKER: "tie-breaker",
            A_NO_CRYSTAL: "no crystal", A_KEEP_OVERLOAD: "keep overload"}[action]


def _cards_at(state, loc: int) -> list[int]:
    return [c for c in range(NUM_SPELLS) if state[S_LOC + c] == loc]


def _card_list(cards) -> str:
    return "[" + ", ".join(card_label(c) for c in sorted(cards)) + "]"


def _columns(state, seat: int) -> list[list[int]]:
    """Each column of ``seat``'s layout, top to bottom."""
    columns: list[list[int]] = [[] for _ in range(NUM_COLUMNS)]
    for c in _cards_at(state, LOC_LAYOUT + seat):
        columns[int(state[S_COL + c])].append(c)
    for column in columns:
        column.sort(key=lambda c: int(state[S_ROW + c]))
    return columns


def _source_names(state) -> list[str]:
    return [ELEMENTS[int(state[S_SOURCE + k])] if state[S_SOURCE + k] >= 0 else "?" for k in range(NUM_COLUMNS)]


def _layout_lines(cfg, state, seat: int) -> list[str]:
    names = _source_names(state)
    lines = []
    for k, column in enumerate(_columns(state, seat)):
        cells = [card_label(c) + "*" * int(state[S_CRYST + c]) for c in column]
        lines.append(f"    {names[k]}: " + (", ".join(cells) if cells else "-"))
    return lines


def _to_move(cfg, state) -> str:
    player = int(state[S_PLAYER])
    if player == TERMINAL:
        return "nobody (game over)"
    if player == CHANCE:
        return "chance"
    return f"p{player} ({DECISIONS[int(state[S_DECISION])]})"


def _public_lines(cfg, state) -> list[str]:
    holder = int(state[S_OVERLOAD])
    marks = []
    for card, field in ((BIFARIUS_CARD, S_MARK_BIFARIUS), (SPECULUM_CARD, S_MARK_SPECULUM)):
        if state[field] >= 0:
            marks.append(f"{card_label(card)} ({_seat_name(cfg, int(state[field]))})")
    rounds = int(cfg[C_ROUNDS])
    lines = [
        f"round {min(int(state[S_ROUND]) + 1, rounds)} of {rounds}, turn {int(state[S_TURN]) + 1}, "
        f"step {STEPS[int(state[S_STEP])]}, to move {_to_move(cfg, state)}",
        "sources " + " ".join(_source_names(state)),
        f"supply {int(state[S_SUPPLY])}, pool {_card_list(_cards_at(state, LOC_POOL))}",
        f"draft {'reversed' if state[S_DIRECTION] < 0 else 'to the next seat'}"
        + (", velocitatis this turn" if state[S_VELOCITY] else ""),
    ]
    destroyed = _cards_at(state, LOC_DESTROYED)
    if destroyed:
        lines.append(f"destroyed {_card_list(destroyed)}")
    if cfg[C_OVERLOAD] == 1:
        lines.append("overload " + (f"beside {_seat_name(cfg, holder)}" if holder >= 0 else "not dealt yet"))
    if marks:
        lines.append("tie-breakers " + ", ".join(marks))
    return lines


def _seat_lines(cfg, state, seat: int, observer: int | None) -> list[str]:
    """A seat's public part; its hand and hidden choices when ``observer`` may see them
    (``None``: everything, for the full state)."""
    see = observer is None or observer == seat
    hand = int(state[S_HAND_OF + seat])
    size = int(state[S_HAND_SIZE + hand])
    head = f"{_seat_name(cfg, seat)}: crystals {int(state[S_CRYSTALS + seat])}, hand "
    head += _card_list(_cards_at(state, LOC_HAND + hand)) if see else f"{size} cards"
    pending = int(state[S_PENDING + seat])
    if pending >= 0:
        head += f", picked {card_label(pending)}" if see else ", picked a card"
    placing = int(state[S_PLACING + seat])
    if placing >= 0:
        head += f", placing {card_label(placing)}"
    declared = int(state[S_SWAP + seat])
    if state[S_STEP] == STEP_SWAP and declared != UNDECLARED:
        if see:
            head += ", declared " + ("no swap" if declared == NO_SWAP else f"swap {_number(declared)}")
        else:
            head += ", declared"
    return [head] + _layout_lines(cfg, state, seat)


def score_lines(cfg, state) -> list[str]:
    """The score card of a finished game, card by card (column by column from the left)."""
    names = _source_names(state)
    lines = ["score card"]
    for seat in range(int(cfg[C_PLAYERS])):
        lines.append(f"  p{seat}")
        for k, column in enumerate(_columns(state, seat)):
            for row, c in enumerate(column):
                note = ""
                if c == COMMODUM_CARD and state[S_HALVES + seat] >= 0:
                    note = f" (half of {card_label(int(state[S_HALVES + seat]))})"
                if c == IMITARI_CARD and state[S_IMITATES + seat] >= 0:
                    note = f" (as {card_label(int(state[S_IMITATES + seat]))})"
                helped = [int(state[f + seat]) for f in (S_QF_A, S_QF_B) if state[f + seat] >= 0]
                if c == QUI_FIERI_CARD and helped:
                    note = " (helps " + ", ".join(card_label(h) for h in helped) + ")"
                crystals = "*" * int(state[S_CRYST + c])
                lines.append(
                    f"    {names[k]} {row + 1}: {card_label(c)}{crystals}{note} {int(state[S_POINTS + c]):+d}"
                )
        if state[S_OVERLOAD] == seat:
            lines.append(f"    overload {-OVERLOAD_PENALTY:+d}")
        total = int(state[S_SCORE + seat])
        rank = f" ({solo_rank(total)})" if cfg[C_SOLO] == 1 else ""
        lines.append(f"    total {total}{rank}")
    return lines


def solo_rank(points: int) -> str:
    """The solo game's rank of a score.

    >>> solo_rank(34), solo_rank(35), solo_rank(76)
    ('Novice', 'Apprentice', 'Archmage')
    """
    for at_most, name in SOLO_RANKS:
        if points <= at_most:
            return name
    return TOP_RANK


def state_to_string(cfg, state) -> str:
    lines = _public_lines(cfg, state)
    for seat in range(int(cfg[C_SEATS])):
        lines += _seat_lines(cfg, state, seat, None)
    lines.append(f"box {_card_list(_cards_at(state, LOC_BOX))}")
    lines.append(f"deck {_card_list([c for c in range(NUM_CARDS) if state[S_LOC + c] == LOC_DECK])}")
    if state[S_PLAYER] == TERMINAL:
        lines += score_lines(cfg, state)
    return "\n".join(lines)


def observation_string(cfg, state, player: int) -> str:
    lines = [f"observer {_seat_name(cfg, player)}"] + _public_lines(cfg, state)
    for seat in range(int(cfg[C_SEATS])):
        lines += _seat_lines(cfg, state, seat, player)
    if state[S_DECISION] == DEC_TAKE and state[S_PLAYER] >= 0:
        lines.append(f"given to the pool {card_label(int(state[S_GIVEN]))}")
    return "\n".join(lines)


def _history(cfg, state, player: int) -> list[str]:
    """The log as ``player`` saw it, with the hands they received."""
    seats = int(cfg[C_SEATS])
    start = int(cfg[C_LOG])
    revealed = int(state[S_REVEALED])
    hands: list[set[int]] = [set() for _ in range(seats)]
    hand_of = list(range(seats))
    direction = 1
    lines = []
    for i in range(int(state[S_LOG_LEN])):
        actor, value = divmod(int(state[start + i]), LOG_STRIDE)
        if actor < MAX_PLAYERS:
            hidden_kind = value < A_DESTROY or value == A_NO_SWAP  # a pick or a swap declaration
            if value < A_SWAP:
                hands[hand_of[actor]].discard(value - A_PICK)
            if value == A_REVERSE:
                direction = -direction
            if actor != player and hidden_kind and i >= revealed:
                text = "picks a card" if value < A_SWAP else "declares"
            else:
                text = action_to_string(cfg, state, actor, value)
            lines.append(f"p{actor} {text}")
        elif actor == ACTOR_SOURCE:
            lines.append(f"source {ELEMENTS[value]}")
        elif actor == ACTOR_POOL:
            lines.append(f"pool {_number(value)}")
        elif actor == ACTOR_IMITATION:
            hands[hand_of[IMITATION]].discard(value)
            lines.append(f"imitation picks {_number(value)}")
        elif actor == ACTOR_OVERLOAD:
            lines.append(f"{_seat_name(cfg, value)} is dealt the overload")
        elif actor == ACTOR_DEALT:
            hand_of = list(range(seats))
            hands = [
                {c for c in range(NUM_SPELLS) if state[S_ORIGIN + c] == value * MAX_SEATS + h} for h in range(seats)
            ]
            lines.append(f"round {value + 1}: you are dealt {_card_list(hands[player])}")
        elif actor == ACTOR_PASS:
            if direction > 0:
                hand_of = [hand_of[(s - 1) % seats] for s in range(seats)]
            else:
                hand_of = [hand_of[(s + 1) % seats] for s in range(seats)]
            lines.append(f"hands passed: you receive {_card_list(hands[hand_of[player]])}")
    return lines


def information_state_string(cfg, state, player: int) -> str:
    lines = [observation_string(cfg, state, player)]
    seen = int(state[S_SEEN + player])
    for seat in range(int(cfg[C_SEATS])):
        hand = int(state[S_HAND_OF + seat])
        if seat != player and (seen >> hand) & 1:
            cards = _cards_at(state, LOC_HAND + hand) + _cards_at(state, LOC_PICK + seat)
            lines.append(f"known hand of {_seat_name(cfg, seat)} (with its pick) {_card_list(cards)}")
    lines.append("history: " + "; ".join(_history(cfg, state, player)))
    return "\n".join(lines)
