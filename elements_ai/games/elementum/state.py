"""Elementum: the constants, the state and configuration layouts, ``configure``, and the
small helpers over the state that the rules, the scoring and the encoders share.

The configuration ``cfg`` and the state (int16) are laid out by ``C`` and ``S`` below
(their tables close this docstring); the tensors by ``OBS`` and ``INFO``. The state's
header comes first, then pieces per column, element, seat or hand (sized NUM_COLUMNS,
NUM_ELEMENTS, MAX_SEATS), then per card, then ``S.scratch`` (``SCRATCH``: counters
used inside ``resample``, zero between calls) and the log: every player action and
public chance event, ``actor * LOG_STRIDE + value`` (actors: the players, ACTOR_*),
for the perfect-recall strings. Hidden picks and swap declarations of the current
step sit at its end.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.kernel import CHANCE, Config
from ...core.layout import state_layout, tensor_layout
from ...core.params import Check, Param, int_range
from .bounds import MAX_LAYOUT_POINTS, MIN_LAYOUT_POINTS
from .cards import (
    ACERVUS_POINTS,
    AMBIENTIA_BASIC,
    AMBIENTIA_REINFORCED,
    BOXED,
    CARD_ELEMENT,
    CARD_IMMEDIATE,
    CARD_SLOTS,
    INDURATUS,
    NUM_CARDS,
    NUM_ELEMENTS,
    NUM_SPELLS,
    REMOVED_2P,
    REMOVED_SOLO_DEFAULT,
    ROUND_SIZES,
    SOLO_EXTRA_REMOVED,
    SPECULUM_CARD,
    UNIVERSAL,
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

# Decisions (S.decision): the one family of actions legal at a decision node.
DECISIONS = ("none", "pick", "column", "swap", "destroy", "copy", "give", "take", "add",
             "reverse or tie-breaker", "crystal", "overload")
(DEC_NONE, DEC_PICK, DEC_COLUMN, DEC_SWAP, DEC_DESTROY, DEC_COPY, DEC_GIVE, DEC_TAKE, DEC_ADD,
 DEC_BIFARIUS, DEC_CRYSTAL, DEC_OVERLOAD) = range(len(DECISIONS))
NUM_DECISIONS = len(DECISIONS)

# Steps (S.step): the setup draws, then the steps of a turn in the order of the rules.
STEPS = ("source", "box", "pool", "deal", "pick", "place", "swap", "swap place", "effects",
         "velocitatis pick", "velocitatis place", "velocitatis effects", "crystals", "over")
(STEP_SOURCE, STEP_BOX, STEP_POOL, STEP_DEAL, STEP_PICK, STEP_PLACE, STEP_SWAP, STEP_SWAP_PLACE,
 STEP_EFFECTS, STEP_V_PICK, STEP_V_PLACE, STEP_V_EFFECTS, STEP_CRYSTAL, STEP_OVER) = range(len(STEPS))
NUM_STEPS = len(STEPS)
# S.sub during a turn step: 0 the seat's part has not started; 1 it has (an effect is
# resolving, or in the crystal step the crystal choice is behind and the Overload next).
SUB_START, SUB_STARTED = 0, 1

# Card locations (S.loc).
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

C = state_layout(
    players=(1, "players P (1..4)"),
    seats=(1, "seats S = max(P, 2): layouts and hands (solo: the imitation is seat 1)"),
    solo=(1, "1 in the solo game"),
    overload=(1, "1 with the Overload variant"),
    rounds=(1, "rounds of the game (2 or 3)"),
    round_size=(MAX_ROUNDS, "cards dealt to each hand in round r"),
    pool_size=(1, "cards revealed into the pool at the start (3, or 4 with Overload)"),
    in_game=(NUM_CARDS, "1 if card c is in this game's deck (2-player and solo removals)"),
    log_cap=(1, "capacity of the log in the state"),
)

# resample's counters: the deck, the box, each hand and each face-down pick
SCRATCH = state_layout(
    deck=(1, "unseen cards in the deck"),
    box=(1, "unseen cards in the box"),
    hand=(MAX_SEATS, "unseen cards in hand h"),
    pick=(MAX_SEATS, "seat s's unseen face-down pick"),
)
RESAMPLE_SLOTS = SCRATCH._size


def _log_cap(params) -> int:
    # A player picks at most a round's hand size per round (every hand shrinks by the
    # same count each turn, so the largest sets the pace), and each turn brings at most:
    # per pick a column, a Speculum copy and a Mutare's give, take and column (6 with
    # the pick), and once a swap, its column, a crystal and an Overload move.
    players = params["players"]
    rounds = ROUND_SIZES[players]
    pool = OVERLOAD_POOL if params["overload"] else STRICT_POOL
    picks = sum(rounds)
    max_decisions = players * (6 * picks + 4 * picks)
    public_chance = NUM_COLUMNS + pool + (picks if players == 1 else 0)
    markers = len(rounds) + 1 + picks
    return max_decisions + public_chance + markers


S = state_layout(
    player=(1, "next to act: a player, CHANCE (-1) or TERMINAL (-4)"),
    step=(1, "STEP_*: the setup draw or the step of the turn (see \"Order of decisions\")"),
    decision=(1, "DEC_*: what the player to move decides (DEC_NONE at chance nodes)"),
    seat=(1, "cursor of the current step: the seat whose turn it is in seat order"),
    sub=(1, "where that seat is within its part of the step (SUB_*)"),
    step_count=(1, "setup draws / cards dealt so far in this step"),
    round=(1, "rounds finished"),
    turn=(1, "turns finished in the whole game"),
    direction=(1, "+1 hands pass from s to s + 1; -1 after a \"reverse draft\""),
    supply=(1, "crystals in the supply"),
    pool_count=(1, "cards in the pool"),
    active=(1, "bit s: seat s had cards at the start of this turn (picked in step 1)"),
    velocity=(1, "1 once a Velocitatis resolved this turn (step 5 follows)"),
    eff_source=(1, "the card whose effect is resolving (a Speculum when copying)"),
    given=(1, "the card Mutare gave to the pool (it cannot be taken back)"),
    overload=(1, "seat holding the Overload, -1 while it is in the deck or out of play"),
    mark_bifarius=(1, "owner of the tie-breaker mark on card 51, or -1"),
    mark_speculum=(1, "owner of the tie-breaker mark on card 36, or -1"),
    log_len=(1, "entries in the log"),
    revealed=(1, "log entries before this one are no longer hidden"),
    deck_left=(1, "cards in the deck (the chance draws' denominator)"),
    source=(NUM_COLUMNS, "element of column k (the sources left to right)"),
    column_of=(NUM_ELEMENTS, "column of element e"),
    crystals=(MAX_SEATS, "unused crystals of seat s"),
    hand_of=(MAX_SEATS, "hand held by seat s"),
    hand_size=(MAX_SEATS, "cards in hand h (its face-down pick not counted)"),
    pending=(MAX_SEATS, "s's face-down pick (hidden until revealed), or -1"),
    placing=(MAX_SEATS, "a revealed card of s waiting for a column (universal), or -1"),
    placed=(MAX_SEATS, "the card s placed in steps 1-3 this turn (its effect resolves), or -1"),
    placed2=(MAX_SEATS, "the card s placed under Velocitatis this turn, or -1"),
    swap=(MAX_SEATS, "s's swap declaration: a pool card, NO_SWAP, or UNDECLARED"),
    pick_log=(MAX_SEATS, "log index of s's pending hidden pick"),
    swap_log=(MAX_SEATS, "log index of s's pending swap declaration"),
    seen=(MAX_SEATS, "bit h: seat s has held hand h this round (and so knows its content)"),
    score=(MAX_SEATS, "points of seat s, written when the game ends"),
    qf_a=(MAX_SEATS, "scoring choice of s: the first card Qui Fieri's sources help (-1 none)"),
    qf_b=(MAX_SEATS, "scoring choice of s: the second card Qui Fieri's sources help (-1 none)"),
    imitates=(MAX_SEATS, "the card Imitari copies for s"),
    halves=(MAX_SEATS, "the card Commodum halves for s"),
    height=((MAX_SEATS, NUM_COLUMNS), "cards in column k of seat s's layout (columns have no gaps)"),
    sym=((MAX_SEATS, NUM_ELEMENTS), "symbols of element e in seat s's layout (scratch of the scoring)"),
    loc=(NUM_CARDS, "LOC_*: out of the game, deck, box, pool, destroyed, a hand, a face-down pick, "
         "waiting for a column, a layout, beside a seat"),
    col=(NUM_CARDS, "column of card c in a layout, else -1"),
    row=(NUM_CARDS, "row of card c in a layout (row 0 touches the source), else -1"),
    cryst=(NUM_CARDS, "crystals lying on card c"),
    origin=(NUM_CARDS, "round * MAX_SEATS + hand card c was dealt into, or -1"),
    pick_turn=(NUM_CARDS, "1 + the game turn in which card c was picked, 0 if never picked"),
    picker=(NUM_CARDS, "the seat that picked card c, or -1"),
    points=(NUM_CARDS, "points card c scored (written when the game ends)"),
    scratch=(RESAMPLE_SLOTS, "resample's counters, SCRATCH"),
    log=(_log_cap, "actor * LOG_STRIDE + value per player action and public chance event"),
)

# Per-card features of a layout in the tensors: present, row, crystals. A card's
# column is its element's (the sources piece), but for the two universal cards,
# whose columns have a piece of their own; they alone ever wait for a column.
FEATURE = state_layout(
    present=(1, "1: the card lies in the seat's layout"),
    row=(1, "its row"),
    crystals=(1, "crystals on it"),
)
LAYOUT_FEATURES = FEATURE._size
FIRST_UNIVERSAL = NUM_SPELLS - 2  # cards 53 and 54
NUM_UNIVERSAL = NUM_SPELLS - FIRST_UNIVERSAL


def _seats(params) -> int:
    return max(params["players"], 2)


# Tensor pieces. Per-seat pieces are ordered from the observer (observer first, then
# the seats after it in seat order; solo: the player, then the imitation), so one
# network serves every seat; "observer" carries the absolute seat.
OBS = tensor_layout(
    C._size,
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

__doc__ += f"""
Configuration ``cfg``, ``C`` (then the cfg slots of ``OBS`` and ``INFO``)::

{C._table("C")}

State ``S``::

{S._table()}
"""


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
    cfg[C.players] = players
    cfg[C.seats] = seats
    cfg[C.solo] = players == 1
    cfg[C.overload] = int(params["overload"])
    cfg[C.rounds] = len(rounds)
    for r, size in enumerate(rounds):
        cfg[C.round_size + r] = size
    cfg[C.pool_size] = pool
    for n in cards:
        cfg[C.in_game + n - 1] = 1
    picks = sum(rounds)
    max_decisions = players * (6 * picks + 4 * picks)
    cfg[C.log_cap] = _log_cap(params)
    state_pieces = S._place(cfg, params)
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
        state_size=state_pieces[-1].stop,
        state_pieces=state_pieces,
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
    state[S.log + state[S.log_len]] = actor * LOG_STRIDE + value
    state[S.log_len] += 1


@nb.njit(cache=True, _nrt=False, inline="always")
def _is_imitation(cfg, seat):
    return cfg[C.solo] == 1 and seat == IMITATION


@nb.njit(cache=True, _nrt=False, inline="always")
def _nth_at(state, loc, excluded, n, k):
    """The ``k``-th (ascending) of the ``n`` cards at ``loc`` other than ``excluded``,
    counted from the nearer end: random playouts draw here, and halving the
    expected scan is a sizeable part of their time."""
    if 2 * k < n:
        for c in range(NUM_CARDS):
            if state[S.loc + c] == loc and c != excluded:
                if k == 0:
                    return c
                k -= 1
    else:
        k = n - 1 - k
        for c in range(NUM_CARDS - 1, -1, -1):
            if state[S.loc + c] == loc and c != excluded:
                if k == 0:
                    return c
                k -= 1
    return -1


@nb.njit(cache=True, _nrt=False, inline="always")
def _in_layout(state, card):
    loc = state[S.loc + card]
    return loc >= LOC_LAYOUT and loc < LOC_LAYOUT + MAX_SEATS


@nb.njit(cache=True, _nrt=False, inline="always")
def _protected(cfg, state, seat):
    """Induratus in the layout: immune to other players' negative effects (not the imitation)."""
    return (not _is_imitation(cfg, seat)) and state[S.loc + INDURATUS] == LOC_LAYOUT + seat


@nb.njit(cache=True, _nrt=False, inline="always")
def _height(state, seat, col):
    return state[S.height + NUM_COLUMNS * seat + col]


@nb.njit(void(CFG, STATE, INT, INT, INT), cache=True, _nrt=False)
def _place(cfg, state, seat, card, col):
    """Puts ``card`` at the bottom of column ``col`` of ``seat``'s layout."""
    h = S.height + NUM_COLUMNS * seat + col
    state[S.loc + card] = LOC_LAYOUT + seat
    state[S.col + card] = col
    state[S.row + card] = state[h]
    state[S.cryst + card] = 0
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
        col = state[S.column_of + element]
    return col


@nb.njit(void(CFG, STATE, INT), cache=True, _nrt=False)
def _remove_from_layout(cfg, state, card):
    """Takes ``card`` out of its layout: its crystals go to the supply and the cards
    below it move up. The caller sets its new location."""
    seat = state[S.loc + card] - LOC_LAYOUT
    col = state[S.col + card]
    row = state[S.row + card]
    loc = state[S.loc + card]
    for c in range(NUM_SPELLS):
        if state[S.loc + c] == loc and state[S.col + c] == col and state[S.row + c] > row:
            state[S.row + c] -= 1
    state[S.height + NUM_COLUMNS * seat + col] -= 1
    state[S.supply] += state[S.cryst + card]
    state[S.cryst + card] = 0
    state[S.col + card] = -1
    state[S.row + card] = -1


@nb.njit(INT(STATE, INT), cache=True, _nrt=False)
def _layout_size(state, seat):
    total = 0
    for k in range(NUM_COLUMNS):
        total += state[S.height + NUM_COLUMNS * seat + k]
    return total


@nb.njit(BOOL(STATE, INT), cache=True, _nrt=False)
def _has_free_slot(state, seat):
    loc = LOC_LAYOUT + seat
    for c in range(NUM_SPELLS):
        if state[S.loc + c] == loc and state[S.cryst + c] < CARD_SLOTS[c]:
            return True
    return False


@nb.njit(BOOL(CFG, STATE, INT, INT), cache=True, _nrt=False)
def _overload_target(cfg, state, holder, target):
    """May ``holder`` hand the Overload to ``target``?"""
    if target == holder or target >= cfg[C.seats]:
        return False
    return not _protected(cfg, state, target)


@nb.njit(BOOL(CFG, STATE, INT), cache=True, _nrt=False)
def _has_overload_target(cfg, state, holder):
    for q in range(cfg[C.seats]):
        if _overload_target(cfg, state, holder, q):
            return True
    return False


@nb.njit(BOOL(CFG, STATE, INT, INT), cache=True, _nrt=False)
def _destroy_target(cfg, state, seat, card):
    loc = state[S.loc + card]
    if loc < LOC_LAYOUT or loc >= LOC_LAYOUT + MAX_SEATS:
        return False
    owner = loc - LOC_LAYOUT
    return owner != seat and not _protected(cfg, state, owner)


@nb.njit(cache=True, _nrt=False)
def _copy_target(state, card):
    if card == SPECULUM_CARD or not CARD_IMMEDIATE[card]:
        return False
    return _in_layout(state, card) or state[S.loc + card] == LOC_POOL


@nb.njit(cache=True, _nrt=False, inline="always")
def _decide(state, seat, decision):
    state[S.player] = seat
    state[S.decision] = decision


@nb.njit(cache=True, _nrt=False, inline="always")
def _chance(state):
    state[S.player] = CHANCE
    state[S.decision] = DEC_NONE
