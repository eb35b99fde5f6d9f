"""Elementos: the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

Board: 3 columns (a, b, c) x ``rows`` rows; square = (row - 1) * 3 + column, so
``a1`` = 0, ``c1`` = 2, ``a2`` = 3. Player 0 moves towards higher rows, player 1
towards row 1.

Symbols: 0 fire, 1 wood, 2 water; symbol s takes symbol (s + 1) % 3 (fire takes wood,
wood takes water, water takes fire). Piece kind k has the faces k and (k + 1) % 3:
0 fire/wood, 1 wood/water, 2 water/fire. A piece lies on ``side`` 0 (face k up) or
1 (face k + 1 up).

Configuration ``cfg`` (int64), built by ``configure``::

    C_ROWS       rows of the board (6..15)
    C_SQUARES    3 x rows
    C_MAX_MOVES  player actions after which the game is a draw
    C_STANDARD   1: the fixed public setup, 0: chance places the pieces
    C_HISTORY    S_HISTORY offset (after the board)

State (int16)::

    S_PLAYER        next to act: 0, 1, CHANCE (-1) or TERMINAL (-4)
    S_PLACED        pieces placed by the setup (0..18; player 0's nine come first)
    S_PENDING       kind drawn for the next piece whose face is not drawn yet, or -1
    S_MOVES         player actions played
    S_FLIPS         flips since the last action that was not a flip (rule 8)
    S_WINNER        0 or 1; -1 while playing and for a draw
    S_END           why the game ended: END_NONE, END_WAND, END_STUCK, END_CAP
    S_HOME + p      square of player p's home piece (the one carrying the wand)
    S_CAPTURED + 3p + k   player p's pieces of kind k taken by the opponent
    S_BITS + 3b + w the board b (OCC_0, OCC_1, WOOD_UP, WATER_UP) as 3 words of 15
                    bits; see "move generation on bitboards"
    S_BOARD + sq    the piece on square sq as a cell (below); 0 when empty
    S_HISTORY + i   the i-th player action, plus CAPTURE_UNIT * (kind + 1) when it
                    took a piece of that kind (turns alternate from player 0)

A cell packs one piece: bit 0 set (occupied), bit 1 the owner, bits 2-3 the kind,
bit 4 the side, bit 5 set once the back face is public (the piece was flipped, or the
setup is the public standard one). The home piece is not marked in its cell: the
wand's square is ``S_HOME + p``.

Rule 8 (equilibrium) needs every position since the last non-flip action. Those are
kept exactly by the trailing ``S_FLIPS`` entries of the history; see ``flip_barred``.

Legal actions are found on bitboards (one int64 per set of squares) that the state
keeps beside the cells, updated with every change of a cell; see "move generation on
bitboards" below.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy, fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range, one_of
from ...core.layout import tensor_layout
from ...core.rng import sample_index, uniform

FIRE, WOOD, WATER = 0, 1, 2
NUM_SYMBOLS = 3  # fire, wood, water; also the number of piece kinds
SYMBOLS = ("fire", "wood", "water")
KINDS = ("fire/wood", "wood/water", "water/fire")
COLUMNS = "abc"
COLS = len(COLUMNS)  # square = (row - 1) * COLS + column
PIECES_PER_KIND = 3
PIECES = 9  # per player: 3 of each kind
START_ROWS = 3  # the rows a player's pieces start on

ACTIONS_PER_SQUARE = 11
FLIP = 5  # k = 0..4 move a piece, 5 flip, 6..10 move the wand (direction k - 6)
WAND = 6
# The five directions (see STEP below): 0 forward, 1 diagonally forward towards a,
# 2 diagonally forward towards c, 3 sideways towards a, 4 sideways towards c.
NUM_DIRECTIONS = 5
DIR_NAMES = ("forward", "diagonally forward towards a", "diagonally forward towards c",
             "sideways towards a", "sideways towards c")

NUM_CHANCE = 6  # 0..2 place a kind, 3..5 the face up (fire, wood, water)
FACE_OUTCOME = 3

END_NONE, END_WAND, END_STUCK, END_CAP = 0, 1, 2, 3

OCCUPIED, OWNER_BIT, SIDE_BIT, PUBLIC_BIT = 1, 2, 16, 32
CAPTURE_UNIT = 512  # history entries: action id (< 512) + CAPTURE_UNIT * (kind + 1)
MAX_MOVES_LIMIT = 10000  # S_MOVES is an int16 and the history is stored in the state

C_ROWS, C_SQUARES, C_MAX_MOVES, C_STANDARD, C_HISTORY, C_SIZE = 0, 1, 2, 3, 4, 5

# The boards kept in the state: the squares of player 0's pieces, of player 1's, and
# of the pieces showing wood and showing water (fire: occupied and neither).
OCC_0, OCC_1, WOOD_UP, WATER_UP = 0, 1, 2, 3
NUM_BOARDS = 4
WORDS, WORD_BITS = 3, 15  # 3 x 15 = 45 squares, the largest board; a word stays a positive int16
WORD_MASK = (1 << WORD_BITS) - 1

S_PLAYER, S_PLACED, S_PENDING, S_MOVES, S_FLIPS, S_WINNER, S_END = range(7)
S_HOME = S_END + 1
S_CAPTURED = S_HOME + 2
S_BITS = S_CAPTURED + 2 * NUM_SYMBOLS
S_BOARD = S_BITS + NUM_BOARDS * WORDS

# Standard setup of player 0 on a1, b1, c1, a2, ... as (kind, side): three of each
# symbol face up. Player 1's is the same turned 180 degrees.
STANDARD = np.array(
    [
        [0, 0], [1, 0], [2, 0],  # a1 fire/wood fire, b1 wood/water wood, c1 water/fire water
        [1, 1], [2, 1], [0, 1],  # a2 wood/water water, b2 water/fire fire, c2 fire/wood wood
        [0, 1], [1, 1], [2, 1],  # a3 fire/wood wood, b3 wood/water water, c3 water/fire fire
    ],
    np.int64,
)


def _squares(params):
    return COLS * params["rows"]


# Tensor pieces. Per-player pieces are ordered (observer, opponent) so that one
# network serves both seats; "observer" carries the absolute seat. The board is
# not turned: squares are the action squares.
OBS = tensor_layout(
    C_SIZE,
    observer=2,
    to_move=2,
    pieces=lambda p: (2, _squares(p)),
    up=lambda p: (NUM_SYMBOLS, _squares(p)),
    back=lambda p: (NUM_SYMBOLS, _squares(p)),
    public_back=_squares,
    home=lambda p: (2, _squares(p)),
    captured=(2, NUM_SYMBOLS),
    moves=1,
    flip_barred=_squares,
)
INFO = OBS._extend(
    history_square=lambda p: (p["max_moves"], _squares(p)),
    history_kind=lambda p: (p["max_moves"], ACTIONS_PER_SQUARE),
    history_capture=lambda p: (p["max_moves"], NUM_SYMBOLS),
)
CFG_SIZE = INFO._end

PARAMS = {
    "rows": Param(9, "rows of the board (3 columns)", int_range(6, 15)),
    "setup": Param("random", "'random': chance places the pieces, backs hidden; "
                   "'standard': a fixed public setup", one_of("random", "standard")),
    "max_moves": Param(200, "player actions after which the game is a draw", int_range(1, MAX_MOVES_LIMIT)),
}

# Named parameter sets: every generic check runs on each.
VARIANTS = {
    "default": {},
    "standard": {"setup": "standard", "max_moves": 60},
    "small": {"rows": 6, "max_moves": 40},
    "long_board": {"rows": 15, "setup": "standard", "max_moves": 80},
}


# --- configuration ---------------------------------------------------------------

def configure(params: dict) -> Config:
    rows = params["rows"]
    squares = COLS * rows
    max_moves = params["max_moves"]
    standard = params["setup"] == "standard"
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[C_ROWS] = rows
    cfg[C_SQUARES] = squares
    cfg[C_MAX_MOVES] = max_moves
    cfg[C_STANDARD] = int(standard)
    cfg[C_HISTORY] = S_BOARD + squares
    return Config(
        cfg=cfg,
        num_players=2,
        num_actions=squares * ACTIONS_PER_SQUARE,
        max_chance_outcomes=0 if standard else NUM_CHANCE,
        state_size=S_BOARD + squares + max_moves,
        obs_pieces=OBS._place(cfg, params),
        info_pieces=INFO._place(cfg, params),
        min_utility=-1.0,
        max_utility=1.0,
        max_game_length=max_moves,
        max_chance_nodes=0 if standard else 4 * PIECES,
        perfect_information=standard,
        deterministic=standard,
    )


# --- cells and squares -----------------------------------------------------------

@nb.njit(cache=True, _nrt=False, inline="always")
def make_cell(owner, kind, side, public):
    return OCCUPIED | (owner << 1) | (kind << 2) | (side << 4) | (public << 5)


@nb.njit(cache=True, _nrt=False, inline="always")
def cell_owner(cell):
    return (cell >> 1) & 1


@nb.njit(cache=True, _nrt=False, inline="always")
def cell_kind(cell):
    return (cell >> 2) & 3


@nb.njit(cache=True, _nrt=False, inline="always")
def cell_side(cell):
    return (cell >> 4) & 1


@nb.njit(cache=True, _nrt=False, inline="always")
def cell_public(cell):
    return (cell >> 5) & 1


@nb.njit(cache=True, _nrt=False, inline="always")
def cell_up(cell):
    return (((cell >> 2) & 3) + ((cell >> 4) & 1)) % NUM_SYMBOLS


@nb.njit(cache=True, _nrt=False, inline="always")
def cell_back(cell):
    return (((cell >> 2) & 3) + 1 - ((cell >> 4) & 1)) % NUM_SYMBOLS


@nb.njit(cache=True, _nrt=False, inline="always")
def takes(attacker, target):
    """Does face-up symbol ``attacker`` take face-up symbol ``target``?"""
    return target == (attacker + 1) % NUM_SYMBOLS


@nb.njit(cache=True, _nrt=False, inline="always")
def start_square(cfg, player, j):
    """Square of the j-th piece (board order) of ``player``'s starting block."""
    return j if player == 0 else COLS * (cfg[C_ROWS] - START_ROWS) + j


# --- rules -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S_PENDING] = -1
    state[S_WINNER] = -1
    rows = cfg[C_ROWS]
    state[S_HOME] = 4  # b2
    state[S_HOME + 1] = COLS * (rows - 2) + 1  # b(rows - 1)
    if cfg[C_STANDARD] == 1:
        for j in range(PIECES):
            kind, side = STANDARD[j, 0], STANDARD[j, 1]
            set_cell(state, j, make_cell(0, kind, side, 1))
            # Turned 180 degrees: column c -> 2 - c, row r -> rows + 1 - r.
            mirrored = COLS * (rows - 1 - j // COLS) + COLS - 1 - j % COLS
            set_cell(state, mirrored, make_cell(1, kind, side, 1))
        state[S_PLACED] = 2 * PIECES
        state[S_PLAYER] = 0
    else:
        state[S_PLAYER] = CHANCE


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S_PLAYER]


@nb.njit(cache=True, _nrt=False, inline="always")
def flip_barred(cfg, state):
    """Bitmask of the squares whose flip rule 8 forbids now.

    Since the last non-flip action the positions were P_0 .. P_n, P_i being P_0 with
    the flips f_1 .. f_i applied (history's trailing S_FLIPS entries). No piece moves
    and no wand moves meanwhile, so a square names a piece, and the side to move of
    P_i is that of P_0 switched i times. Flipping X makes P_{n+1}, which equals P_i
    exactly when f_{i+1} .. f_n, X turn every piece an even number of times: an even
    number of flips, so the side to move agrees too. Hence X is barred exactly when
    the XOR of the square bits of some suffix f_t .. f_n is the single bit of X. Only
    the mover's own squares matter to the caller (a single opponent bit is harmless).
    """
    return _flip_barred(cfg[C_HISTORY], state)


@nb.njit(cache=True, _nrt=False, inline="always")
def _flip_barred(history, state):
    barred = np.int64(0)
    acc = np.int64(0)
    end = history + state[S_MOVES]
    for i in range(state[S_FLIPS]):
        square = (state[end - 1 - i] % CAPTURE_UNIT) // ACTIONS_PER_SQUARE
        acc ^= np.int64(1) << square
        if acc != 0 and (acc & (acc - 1)) == 0:
            barred |= acc
    return barred


# --- move generation on bitboards ---------------------------------------------------
# numba counts references to the arrays a function holds, with atomic operations
# that cost more than a move, and leaves the counting out only where a reference's
# life is simple. So ``legal_mask`` and ``apply`` take no early return, call nothing
# that takes an array inside a branch, and inline only helpers with a single exit.
#
# Bit ``sq`` of a board (an int64) is square ``sq``; 3 x 15 = 45 squares fit. A step
# in direction d adds STEP[player, d] to the square. Shifting a board of targets back
# by that step gives the squares the step starts from; a step must not leave its
# column range, so sources on column a (towards a) or c (towards c) are masked off.
# Rows need no mask: a step off either end of the board leaves the shifted board.

STEP = np.array([[COLS, COLS - 1, COLS + 1, -1, 1], [-COLS, -COLS - 1, -COLS + 1, -1, 1]], np.int64)
COLUMN_A = sum(1 << sq for sq in range(0, COLS * 15, COLS))
NOT_COLUMN_A = ~COLUMN_A
NOT_COLUMN_C = ~(COLUMN_A << (COLS - 1))
# The squares a step in each direction may start from (it must not leave the columns).
STEP_FROM = np.array([~0, NOT_COLUMN_A, NOT_COLUMN_C, NOT_COLUMN_A, NOT_COLUMN_C], np.int64)


@nb.njit(cache=True, _nrt=False, inline="always")
def neighbour(rows, square, direction, player):
    """The square one step from ``square`` in ``direction`` for ``player``, or -1."""
    target = square + STEP[player, direction]
    if (STEP_FROM[direction] >> square) & 1 == 0 or target < 0 or target >= COLS * rows:
        target = -1
    return target


@nb.njit(cache=True, _nrt=False, inline="always")
def popcount(board):
    """Number of set bits. LLVM compiles this loop to one popcnt instruction (numba's
    own intrinsic would keep the disk cache from finding the helpers that call it)."""
    count = 0
    while board != 0:
        board &= board - 1
        count += 1
    return count


@nb.njit(cache=True, _nrt=False, inline="always")
def lowest_square(board):
    """Index of the lowest set bit of a non-zero board."""
    return popcount((board & -board) - 1)


@nb.njit(cache=True, _nrt=False, inline="always")
def read_board(state, board):
    """The bitboard ``board`` (OCC_0, OCC_1, WOOD_UP or WATER_UP) of ``state``."""
    at = S_BITS + WORDS * board
    return np.int64(state[at]) | (np.int64(state[at + 1]) << WORD_BITS) | (np.int64(state[at + 2]) << 2 * WORD_BITS)


@nb.njit(cache=True, _nrt=False, inline="always")
def _toggle_board(state, board, squares):
    at = S_BITS + WORDS * board
    state[at] ^= squares & WORD_MASK
    state[at + 1] ^= (squares >> WORD_BITS) & WORD_MASK
    state[at + 2] ^= (squares >> 2 * WORD_BITS) & WORD_MASK


@nb.njit(cache=True, _nrt=False, inline="always")
def _cell_boards(cell, bit):
    """``bit`` (a square's board bit) in each board the cell belongs to, else 0."""
    occupied = np.int64(cell & 1)
    owner = (cell >> 1) & 1
    up = ((cell >> 2) & 3) + ((cell >> 4) & 1)  # kind + side: 3 is fire again
    return (
        bit * (occupied & (owner == 0)),
        bit * (occupied & (owner == 1)),
        bit * (occupied & (up == WOOD)),
        bit * (occupied & (up == WATER)),
    )


@nb.njit(cache=True, _nrt=False, inline="always")
def set_cell(state, square, cell):
    """Puts ``cell`` on ``square`` and keeps the boards in step. Every change of a
    cell goes through here (or ``rebuild_boards`` after the cells were written)."""
    bit = np.int64(1) << square
    old_0, old_1, old_wood, old_water = _cell_boards(np.int64(state[S_BOARD + square]), bit)
    new_0, new_1, new_wood, new_water = _cell_boards(np.int64(cell), bit)
    _toggle_board(state, OCC_0, old_0 ^ new_0)
    _toggle_board(state, OCC_1, old_1 ^ new_1)
    _toggle_board(state, WOOD_UP, old_wood ^ new_wood)
    _toggle_board(state, WATER_UP, old_water ^ new_water)
    state[S_BOARD + square] = cell


@nb.njit(cache=True, _nrt=False)
def rebuild_boards(cfg, state):
    """Recomputes the boards from the cells (for positions written cell by cell)."""
    for at in range(S_BITS, S_BOARD):
        state[at] = 0
    for square in range(cfg[C_SQUARES]):
        cell = state[S_BOARD + square]
        state[S_BOARD + square] = 0  # empty boards: the square is empty in them
        set_cell(state, square, cell)


@nb.njit(cache=True, _nrt=False, inline="always")
def _sources(targets, step):
    """The squares from which a step of ``step`` lands on a square of ``targets``."""
    return targets >> step if step > 0 else targets << -step


@nb.njit(cache=True, _nrt=False, inline="always")
def _legal_boards(squares, state, player, barred):
    """``player``'s legal actions as boards of the squares they start from.

    Returns (forward, diagonal towards a, diagonal towards c, sideways towards a,
    sideways towards c, flip, wand), the moves including the home piece's step; bit
    d of ``wand`` is the wand move in direction d. ``barred``: see ``flip_barred``.
    """
    own, other = read_board(state, OCC_0 + player), read_board(state, OCC_1 - player)
    wood, water = read_board(state, WOOD_UP), read_board(state, WATER_UP)
    empty = ((np.int64(1) << squares) - 1) & ~(own | other)
    fire = (own | other) & ~(wood | water)
    home_square = state[S_HOME + player]
    home = np.int64(1) << home_square
    movers = own & ~home
    prey = other & ~(np.int64(1) << state[S_HOME + 1 - player])
    # Where a piece showing fire, wood or water may go: empty, or a piece it takes.
    by_fire, by_wood, by_water = movers & fire, movers & wood, movers & water
    to_fire, to_wood, to_water = empty | (prey & wood), empty | (prey & water), empty | (prey & fire)
    step = STEP[player]
    s = step[0]
    forward = (
        (by_fire & _sources(to_fire, s)) | (by_wood & _sources(to_wood, s))
        | (by_water & _sources(to_water, s)) | (home & _sources(empty, s))
    )
    wand = (_sources(own, s) >> home_square) & 1
    s = step[1]
    diagonal_a = ((by_fire & _sources(to_fire, s)) | (by_wood & _sources(to_wood, s))
                  | (by_water & _sources(to_water, s))) & NOT_COLUMN_A
    wand |= ((_sources(own, s) & NOT_COLUMN_A) >> home_square & 1) << 1
    s = step[2]
    diagonal_c = ((by_fire & _sources(to_fire, s)) | (by_wood & _sources(to_wood, s))
                  | (by_water & _sources(to_water, s))) & NOT_COLUMN_C
    wand |= ((_sources(own, s) & NOT_COLUMN_C) >> home_square & 1) << 2
    side_a = ((by_fire & (to_fire << 1)) | (by_wood & (to_wood << 1)) | (by_water & (to_water << 1))) & NOT_COLUMN_A
    wand |= (((own << 1) & NOT_COLUMN_A) >> home_square & 1) << 3
    side_c = ((by_fire & (to_fire >> 1)) | (by_wood & (to_wood >> 1)) | (by_water & (to_water >> 1))) & NOT_COLUMN_C
    wand |= (((own >> 1) & NOT_COLUMN_C) >> home_square & 1) << 4
    return forward, diagonal_a, diagonal_c, side_a, side_c, own & ~barred, wand


@nb.njit(cache=True, _nrt=False, inline="always")
def legal_mask(cfg, state, mask):
    for action in range(mask.shape[0]):
        mask[action] = False
    # Written without a branch around the arrays so that numba keeps no reference
    # counting here: at chance and terminal nodes every board is masked off.
    player = state[S_PLAYER]
    live = -np.int64(player >= 0)
    player = max(player, 0)
    barred = flip_barred(cfg, state)
    forward, diagonal_a, diagonal_c, side_a, side_c, flip, wand = _legal_boards(cfg[C_SQUARES], state, player, barred)
    # Only squares with a legal action get written: every other entry stays False.
    left = (forward | diagonal_a | diagonal_c | side_a | side_c | flip) & live
    while left != 0:
        square = lowest_square(left)
        base = square * ACTIONS_PER_SQUARE
        mask[base] = (forward >> square) & 1
        mask[base + 1] = (diagonal_a >> square) & 1
        mask[base + 2] = (diagonal_c >> square) & 1
        mask[base + 3] = (side_a >> square) & 1
        mask[base + 4] = (side_c >> square) & 1
        mask[base + FLIP] = (flip >> square) & 1
        left &= left - 1
    base = state[S_HOME + player] * ACTIONS_PER_SQUARE + WAND
    wand &= live
    for direction in range(NUM_DIRECTIONS):
        mask[base + direction] = (wand >> direction) & 1


@nb.njit(cache=True, _nrt=False, inline="always")
def _nth_square(board, n):
    """The square of the ``n``-th (from 0) set bit of ``board``."""
    for _ in range(n):
        board &= board - 1
    return lowest_square(board)


@nb.njit(cache=True, _nrt=False, inline="always")
def sample_legal(cfg, state, u):
    """The ``int(u * count)``-th legal action, counted board by board (forward moves
    by square, then diagonal towards a, ..., flips, wand moves by direction)."""
    player = max(state[S_PLAYER], 0)
    barred = flip_barred(cfg, state)
    forward, diagonal_a, diagonal_c, side_a, side_c, flip, wand = _legal_boards(cfg[C_SQUARES], state, player, barred)
    c0 = popcount(forward)
    c1 = c0 + popcount(diagonal_a)
    c2 = c1 + popcount(diagonal_c)
    c3 = c2 + popcount(side_a)
    c4 = c3 + popcount(side_c)
    c5 = c4 + popcount(flip)
    c6 = c5 + popcount(wand)
    n = int(u * c6)
    # The board holding the n-th action and the offset of its action id in a square.
    board, kind, first = forward, 0, 0
    if n >= c0:
        board, kind, first = diagonal_a, 1, c0
    if n >= c1:
        board, kind, first = diagonal_c, 2, c1
    if n >= c2:
        board, kind, first = side_a, 3, c2
    if n >= c3:
        board, kind, first = side_c, 4, c3
    if n >= c4:
        board, kind, first = flip, FLIP, c4
    # One exit: inlined into a loop, numba then counts no references to ``state``.
    if n >= c5:
        action = state[S_HOME + player] * ACTIONS_PER_SQUARE + WAND + _nth_square(wand, n - c5)
    else:
        action = _nth_square(board, n - first) * ACTIONS_PER_SQUARE + kind
    return action


@nb.njit(cache=True, _nrt=False, inline="always")
def _any_action(squares, state, player, barred):
    forward, diagonal_a, diagonal_c, side_a, side_c, flip, wand = _legal_boards(squares, state, player, barred)
    return (forward | diagonal_a | diagonal_c | side_a | side_c | flip | wand) != 0


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    for outcome in range(probs.shape[0]):
        probs[outcome] = 0.0
    pending = state[S_PENDING]
    if state[S_PLAYER] == CHANCE and pending >= 0:
        probs[FACE_OUTCOME + pending] = 0.5
        probs[FACE_OUTCOME + (pending + 1) % NUM_SYMBOLS] = 0.5
    elif state[S_PLAYER] == CHANCE:
        placed = state[S_PLACED]
        player = placed // PIECES
        first = S_BOARD + start_square(cfg, player, 0)
        done = placed - player * PIECES
        left_0 = left_1 = left_2 = PIECES_PER_KIND
        for j in range(done):
            kind = cell_kind(state[first + j])
            left_0 -= kind == 0
            left_1 -= kind == 1
            left_2 -= kind == 2
        total = PIECES - done
        probs[0] = left_0 / total
        probs[1] = left_1 / total
        probs[2] = left_2 / total


@nb.njit(cache=True, _nrt=False, inline="always")
def apply(cfg, state, action):
    rows, squares, history, max_moves = cfg[C_ROWS], cfg[C_SQUARES], cfg[C_HISTORY], cfg[C_MAX_MOVES]
    player = state[S_PLAYER]
    if player == CHANCE:
        kind = state[S_PENDING]
        if kind < 0:
            state[S_PENDING] = action
        else:
            placed = state[S_PLACED]
            owner = placed // PIECES
            side = 0 if action - FACE_OUTCOME == kind else 1
            square = placed - owner * PIECES + (0 if owner == 0 else COLS * (rows - START_ROWS))  # start_square
            set_cell(state, square, make_cell(owner, kind, side, 0))
            state[S_PENDING] = -1
            state[S_PLACED] = placed + 1
            if placed + 1 == 2 * PIECES:
                player = 0
    else:
        square = action // ACTIONS_PER_SQUARE
        k = action % ACTIONS_PER_SQUARE
        target = square + STEP[player, k % WAND] if k != FLIP else square
        entry = action
        if k < FLIP:
            occupant = state[S_BOARD + target]
            if occupant != 0:
                state[S_CAPTURED + NUM_SYMBOLS * cell_owner(occupant) + cell_kind(occupant)] += 1
                entry += CAPTURE_UNIT * (cell_kind(occupant) + 1)
            set_cell(state, target, state[S_BOARD + square])
            set_cell(state, square, 0)
        elif k == FLIP:
            set_cell(state, square, (state[S_BOARD + square] ^ SIDE_BIT) | PUBLIC_BIT)
        # The wand moves with a wand move, and with the home piece's step.
        wand_moved = k > FLIP or (k < FLIP and square == state[S_HOME + player])
        if wand_moved:
            state[S_HOME + player] = target
        flips = state[S_FLIPS] + 1 if k == FLIP else 0
        state[S_FLIPS] = flips
        moves = state[S_MOVES]
        state[history + moves] = entry
        state[S_MOVES] = moves + 1
        # The end checks, in the order of ruling 12.
        winner, why = -1, END_NONE
        if wand_moved and target // COLS == (rows - 1 if player == 0 else 0):
            winner, why = player, END_WAND
        elif moves + 1 >= max_moves:
            why = END_CAP
        elif flips >= 3 and not _any_action(squares, state, 1 - player, _flip_barred(history, state)):
            # Fewer flips in a row bar no flip of the opponent's home piece: the run
            # alternates between the players' own pieces and ends with this player's,
            # so a suffix that flips that piece an odd number of times and every
            # other piece an even number of times holds at least three flips.
            winner, why = player, END_STUCK
        state[S_WINNER] = winner
        state[S_END] = why
        player = 1 - player if why == END_NONE else TERMINAL
    state[S_PLAYER] = player


@nb.njit(cache=True, _nrt=False, inline="always")
def returns(cfg, state, out):
    fill(out, 0.0)
    winner = state[S_WINNER]
    if state[S_PLAYER] == TERMINAL and winner >= 0:
        out[winner] = 1.0
        out[1 - winner] = -1.0


# --- information-set sampling ------------------------------------------------------

FACTORIAL = np.array([1, 1, 2, 6], np.int64)


@nb.njit(cache=True, _nrt=False, inline="always")
def _binomial(n, k):
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


@nb.njit(cache=True)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``; the opponent's hidden backs redrawn.

    Hidden from ``player`` are the kinds of the opponent's pieces whose back is not
    public, and during the setup the kind drawn for a piece whose face is not drawn
    yet. The setup draws kinds without replacement (every arrangement of the 3 + 3 + 3
    kinds is equally likely) and each face with probability 1/2, so given what the
    player saw, a sequence of kinds with c_k of kind k among the opponent's placed
    pieces has weight 1 / prod_k (r_k - c_k)!, where r_k counts the opponent's kind-k
    pieces not yet public (the (r_k - c_k)! are the arrangements of the unplaced
    pieces; after the setup all are placed and the weight is 1 for every consistent
    assignment). A hidden piece showing face u is of kind u (side 0) or u - 1 (side
    1). With x_u of the n_u hidden pieces showing u on side 0, c_k = x_k + n_{k+1} -
    x_{k+1} and there are prod_u C(n_u, x_u) such assignments: (x_0, x_1, x_2) is drawn
    with that weight, then the x_u pieces uniformly.

    Reads only what ``player`` sees: every hidden field of ``out`` is overwritten.
    """
    copy(out, state)
    other = 1 - player
    squares = cfg[C_SQUARES]
    placed = state[S_PLACED]
    pending = state[S_PENDING]
    pending_owner = placed // PIECES if pending >= 0 else -1
    # The player's own pending kind is not part of any observation either.
    if pending_owner == player:
        own_left = np.full(3, PIECES_PER_KIND, np.float64)
        for j in range(placed - player * PIECES):
            own_left[cell_kind(state[S_BOARD + start_square(cfg, player, j)])] -= 1.0
        out[S_PENDING] = sample_index(own_left, 3, uniform(rng, 0))
    left = np.empty(3, np.int64)
    for k in range(NUM_SYMBOLS):
        left[k] = PIECES_PER_KIND - state[S_CAPTURED + NUM_SYMBOLS * other + k]
    hidden = np.zeros(3, np.int64)
    for square in range(squares):
        cell = state[S_BOARD + square]
        if cell == 0 or cell_owner(cell) != other:
            continue
        if cell_public(cell) == 1:
            left[cell_kind(cell)] -= 1
        else:
            hidden[cell_up(cell)] += 1
    pend_choices = 3 if pending_owner == other else 1
    n0, n1, n2 = hidden[0] + 1, hidden[1] + 1, hidden[2] + 1
    weights = np.zeros(n0 * n1 * n2 * pend_choices, np.float64)
    counts = np.zeros(3, np.int64)
    for x0 in range(n0):
        for x1 in range(n1):
            for x2 in range(n2):
                ways = _binomial(hidden[0], x0) * _binomial(hidden[1], x1) * _binomial(hidden[2], x2)
                for q in range(pend_choices):
                    counts[0] = x0 + hidden[1] - x1
                    counts[1] = x1 + hidden[2] - x2
                    counts[2] = x2 + hidden[0] - x0
                    if pend_choices == 3:
                        counts[q] += 1
                    denominator = 1
                    for k in range(NUM_SYMBOLS):
                        slack = left[k] - counts[k]
                        if slack < 0:
                            denominator = 0
                            break
                        denominator *= FACTORIAL[slack]
                    if denominator > 0:
                        weights[((x0 * n1 + x1) * n2 + x2) * pend_choices + q] = ways / denominator
    pick = sample_index(weights, weights.shape[0], uniform(rng, 0))
    q = pick % pend_choices
    pick //= pend_choices
    chosen = np.empty(3, np.int64)
    chosen[2] = pick % n2
    pick //= n2
    chosen[1] = pick % n1
    chosen[0] = pick // n1
    if pend_choices == 3:
        out[S_PENDING] = q
    # Within each face group, a uniform subset of x_u pieces lies on side 0. Owners
    # and face-up symbols stay, so the boards stay right without ``set_cell``.
    need = chosen.copy()
    remaining = hidden.copy()
    for square in range(squares):
        cell = state[S_BOARD + square]
        if cell == 0 or cell_owner(cell) != other or cell_public(cell) == 1:
            continue
        up = cell_up(cell)
        side0 = uniform(rng, 0) * remaining[up] < need[up]
        remaining[up] -= 1
        if side0:
            need[up] -= 1
            out[S_BOARD + square] = make_cell(other, up, 0, 0)
        else:
            out[S_BOARD + square] = make_cell(other, (up + 2) % NUM_SYMBOLS, 1, 0)


# --- rule-of-thumb play ------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def _attacked(cfg, state, player, target, symbol):
    """Could an opponent's ordinary piece take a ``symbol`` piece on ``target`` next turn?

    Uses face-up symbols only, as the player sees them.
    """
    other = 1 - player
    rows = cfg[C_ROWS]
    for square in range(cfg[C_SQUARES]):
        cell = state[S_BOARD + square]
        if cell == 0 or cell_owner(cell) != other or square == state[S_HOME + other] or square == target:
            continue
        if not takes(cell_up(cell), symbol):
            continue
        for direction in range(NUM_DIRECTIONS):
            if neighbour(rows, square, direction, other) == target:
                return True
    return False


@nb.njit(cache=True, _nrt=False)
def _pick(candidates, count, rng):
    return candidates[int(uniform(rng, 0) * count)]


@nb.njit(cache=True)
def heuristic(cfg, state, player, rng):
    """A beginner's move for ``player`` (the player to move). In order:

    1. win now: a home-piece step or wand move into the far row;
    2. take a piece (the capture whose taker is then safe first);
    3. advance the wand: a home-piece step forward or a forward wand move;
    4. advance an ordinary piece (forward or diagonally) to a square no opponent
       piece could take it on next turn;
    5. any other move of an ordinary piece to a safe square;
    6. any legal action (flips included).

    Ties are broken uniformly at random. Only face-up symbols, owners and wands are
    read: nothing hidden from ``player``.
    """
    rows = cfg[C_ROWS]
    num_actions = cfg[C_SQUARES] * ACTIONS_PER_SQUARE
    mask = np.zeros(num_actions, np.bool_)
    legal_mask(cfg, state, mask)
    far_row = rows - 1 if player == 0 else 0
    home = state[S_HOME + player]
    wins = np.empty(num_actions, np.int64)
    safe_captures = np.empty(num_actions, np.int64)
    captures = np.empty(num_actions, np.int64)
    wand = np.empty(num_actions, np.int64)
    advances = np.empty(num_actions, np.int64)
    safe_moves = np.empty(num_actions, np.int64)
    anything = np.empty(num_actions, np.int64)
    nw = nsc = nc = nwand = na = ns = nany = 0
    for action in range(num_actions):
        if not mask[action]:
            continue
        anything[nany] = action
        nany += 1
        square = action // ACTIONS_PER_SQUARE
        k = action % ACTIONS_PER_SQUARE
        if k == FLIP:
            continue
        direction = k if k < FLIP else k - WAND
        target = neighbour(rows, square, direction, player)
        if (square == home and k == 0) or k >= WAND:
            if target // COLS == far_row:
                wins[nw] = action
                nw += 1
            elif direction <= 2:
                wand[nwand] = action
                nwand += 1
            continue
        symbol = cell_up(state[S_BOARD + square])
        safe = not _attacked(cfg, state, player, target, symbol)
        if state[S_BOARD + target] != 0:
            captures[nc] = action
            nc += 1
            if safe:
                safe_captures[nsc] = action
                nsc += 1
        elif safe and direction <= 2:
            advances[na] = action
            na += 1
        elif safe:
            safe_moves[ns] = action
            ns += 1
    if nw > 0:
        return _pick(wins, nw, rng)
    if nsc > 0:
        return _pick(safe_captures, nsc, rng)
    if nc > 0:
        return _pick(captures, nc, rng)
    if nwand > 0:
        return _pick(wand, nwand, rng)
    if na > 0:
        return _pick(advances, na, rng)
    if ns > 0:
        return _pick(safe_moves, ns, rng)
    return _pick(anything, nany, rng)


# --- encoders --------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    n = cfg[C_SQUARES]
    other = 1 - player
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S_PLAYER]
    if to_move >= 0:
        out[cfg[OBS.to_move] + (0 if to_move == player else 1)] = 1.0
    for square in range(n):
        cell = state[S_BOARD + square]
        if cell == 0:
            continue
        owner = cell_owner(cell)
        out[cfg[OBS.pieces] + (0 if owner == player else 1) * n + square] = 1.0
        out[cfg[OBS.up] + cell_up(cell) * n + square] = 1.0
        if owner == player or cell_public(cell) == 1:
            out[cfg[OBS.back] + cell_back(cell) * n + square] = 1.0
        out[cfg[OBS.public_back] + square] = cell_public(cell)
    if state[S_PLACED] == 2 * PIECES:
        out[cfg[OBS.home] + state[S_HOME + player]] = 1.0
        out[cfg[OBS.home] + n + state[S_HOME + other]] = 1.0
    for k in range(NUM_SYMBOLS):
        out[cfg[OBS.captured] + k] = state[S_CAPTURED + NUM_SYMBOLS * player + k]
        out[cfg[OBS.captured] + NUM_SYMBOLS + k] = state[S_CAPTURED + NUM_SYMBOLS * other + k]
    out[cfg[OBS.moves]] = state[S_MOVES]
    if to_move >= 0 and state[S_FLIPS] > 0:
        barred = flip_barred(cfg, state)
        for square in range(n):
            cell = state[S_BOARD + square]
            if cell != 0 and cell_owner(cell) == to_move and (barred >> square) & 1:
                out[cfg[OBS.flip_barred] + square] = 1.0


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    n = cfg[C_SQUARES]
    history = cfg[C_HISTORY]
    for i in range(state[S_MOVES]):
        entry = state[history + i]
        action = entry % CAPTURE_UNIT
        out[cfg[INFO.history_square] + i * n + action // ACTIONS_PER_SQUARE] = 1.0
        out[cfg[INFO.history_kind] + i * ACTIONS_PER_SQUARE + action % ACTIONS_PER_SQUARE] = 1.0
        taken = entry // CAPTURE_UNIT - 1
        if taken >= 0:
            out[cfg[INFO.history_capture] + NUM_SYMBOLS * i + taken] = 1.0


# --- strings ---------------------------------------------------------------------

CHANCE_NAMES = tuple(f"place {kind}" for kind in KINDS) + tuple(f"{s} up" for s in SYMBOLS)


def square_name(square: int) -> str:
    return f"{COLUMNS[square % COLS]}{square // COLS + 1}"


def _action_text(rows: int, player: int, action: int, capture: bool) -> str:
    square, k = divmod(action, ACTIONS_PER_SQUARE)
    if k == FLIP:
        return f"flip {square_name(square)}"
    direction = k if k < FLIP else k - WAND
    target = int(neighbour(rows, square, direction, player))
    verb = "move" if k < FLIP else "wand"
    if target < 0:
        return f"{verb} {square_name(square)} {DIR_NAMES[direction]} (off the board)"
    return f"{verb} {square_name(square)}{'x' if capture else '-'}{square_name(target)}"


def action_to_string(cfg, state, player: int, action: int) -> str:
    action = int(action)
    if player == CHANCE:
        if 0 <= action < NUM_CHANCE:
            return CHANCE_NAMES[action]
        raise ValueError(f"elementos: {action} is not a chance outcome (0..{NUM_CHANCE - 1})")
    num_actions = int(cfg[C_SQUARES]) * ACTIONS_PER_SQUARE
    if not 0 <= action < num_actions:
        raise ValueError(f"elementos: action {action} is out of range 0..{num_actions - 1}")
    if player not in (0, 1):
        raise ValueError(f"elementos: player {player} has no actions")
    square, k = divmod(action, ACTIONS_PER_SQUARE)
    capture = False
    if k < FLIP:
        target = int(neighbour(int(cfg[C_ROWS]), square, k, player))
        if target >= 0:
            cell = int(state[S_BOARD + target])
            capture = cell != 0 and int(cell_owner(cell)) != player
    return _action_text(int(cfg[C_ROWS]), player, action, capture)


def _cell_text(state, square: int, viewer: int | None) -> str:
    """A piece as ``owner up/back``; ``up(back)``: back known to its owner only;
    ``up/?``: back hidden from the viewer; ``@``: carries the wand."""
    cell = int(state[S_BOARD + square])
    if cell == 0:
        return "."
    owner = int(cell_owner(cell))
    up, back = SYMBOLS[int(cell_up(cell))], SYMBOLS[int(cell_back(cell))]
    if cell_public(cell):
        face = f"{up}/{back}"
    elif viewer is None or viewer == owner:
        face = f"{up}({back})"
    else:
        face = f"{up}/?"
    placed = int(state[S_PLACED]) == 2 * PIECES
    home = "@" if placed and int(state[S_HOME + owner]) == square else ""
    return f"{owner} {face}{home}"


def _board(cfg, state, viewer: int | None) -> list[str]:
    rows = int(cfg[C_ROWS])
    width = 16
    header = "     " + "".join(c.ljust(width) for c in COLUMNS).rstrip()
    lines = [header]
    for row in range(rows - 1, -1, -1):
        cells = "".join(_cell_text(state, COLS * row + c, viewer).ljust(width) for c in range(COLS))
        lines.append(f"{row + 1:>3}  {cells}".rstrip())
    lines.append(header)
    return lines


def _public(cfg, state) -> list[str]:
    player = int(state[S_PLAYER])
    if player == TERMINAL:
        winner = int(state[S_WINNER])
        why = {
            END_WAND: "wand reached the far row",
            END_STUCK: "opponent had no legal action",
            END_CAP: f"{int(cfg[C_MAX_MOVES])} moves played",
        }[int(state[S_END])]
        to_move = "game over: " + (f"p{winner} wins ({why})" if winner >= 0 else f"draw ({why})")
    elif player == CHANCE:
        to_move = f"setup: {int(state[S_PLACED])} of {2 * PIECES} pieces placed"
    else:
        to_move = f"to move: p{player}"
    captured = []
    for p in (0, 1):
        lost = [KINDS[k] for k in range(NUM_SYMBOLS) for _ in range(int(state[S_CAPTURED + NUM_SYMBOLS * p + k]))]
        captured.append(f"p{p} lost [{', '.join(lost)}]" if lost else f"p{p} lost none")
    barred = int(flip_barred(cfg, state)) if player >= 0 and state[S_FLIPS] > 0 else 0
    own = [
        square_name(sq)
        for sq in range(int(cfg[C_SQUARES]))
        if (barred >> sq) & 1 and state[S_BOARD + sq] != 0 and int(cell_owner(int(state[S_BOARD + sq]))) == player
    ]
    return [
        f"{to_move}; moves played {int(state[S_MOVES])} of {int(cfg[C_MAX_MOVES])}",
        "captured: " + "; ".join(captured),
        "flips barred by equilibrium: " + (", ".join(own) if own else "none"),
    ]


LEGEND = "pieces: owner face-up/back known to both, face-up(back) known to its owner only, face-up/? hidden; @ wand"


def state_to_string(cfg, state) -> str:
    lines = _board(cfg, state, None) + _public(cfg, state)
    if state[S_PENDING] >= 0:
        lines.append(f"kind drawn for the next piece: {KINDS[int(state[S_PENDING])]}")
    moves = history_strings(cfg, state)
    lines += ["history: " + (", ".join(moves) if moves else "-"), LEGEND]
    return "\n".join(lines)


def observation_string(cfg, state, player: int) -> str:
    return "\n".join(_observation_lines(cfg, state, player) + [LEGEND])


def _observation_lines(cfg, state, player: int) -> list[str]:
    return [f"observer p{player}"] + _board(cfg, state, player) + _public(cfg, state)


def history_strings(cfg, state) -> list[str]:
    """The player actions so far as ``p0 move b2-b3``, captures with the piece taken."""
    rows = int(cfg[C_ROWS])
    out = []
    for i in range(int(state[S_MOVES])):
        entry = int(state[int(cfg[C_HISTORY]) + i])
        action, taken = entry % CAPTURE_UNIT, entry // CAPTURE_UNIT - 1
        text = f"p{i % 2} {_action_text(rows, i % 2, action, taken >= 0)}"
        if taken >= 0:
            text += f" (took {KINDS[taken]})"
        out.append(text)
    return out


def information_state_string(cfg, state, player: int) -> str:
    moves = history_strings(cfg, state)
    lines = _observation_lines(cfg, state, player) + ["history: " + (", ".join(moves) if moves else "-"), LEGEND]
    return "\n".join(lines)
