"""Elementos: the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

Board: 3 columns (a, b, c) x ``rows`` rows; square = (row - 1) * 3 + column, so
``a1`` = 0, ``c1`` = 2, ``a2`` = 3. Player 0 moves towards higher rows, player 1
towards row 1.

Symbols: 0 fire, 1 wood, 2 water; symbol s takes symbol (s + 1) % 3 (fire takes wood,
wood takes water, water takes fire). Piece kind k has the faces k and (k + 1) % 3:
0 fire/wood, 1 wood/water, 2 water/fire. A piece lies on ``side`` 0 (face k up) or
1 (face k + 1 up).

The configuration ``cfg`` and the state (int16) are laid out by ``C`` and ``S``
below, named pieces whose tables close this docstring; the tensors by ``OBS`` and
``INFO``.

A cell packs one piece: bit 0 set (occupied), bit 1 the owner, bits 2-3 the kind,
bit 4 the side, bit 5 set once the back face is public (the piece was flipped, or the
setup is the public standard one). The home piece is not marked in its cell: the
wand's square is ``state[S.home + p]``.

Rule 8 (equilibrium) needs every position since the last non-flip action. Those are
kept exactly by the trailing ``S.flips`` entries of the history; see ``flip_barred``.

Legal actions are found on bitboards (one int64 per set of squares) that the state
keeps beside the cells, updated with every change of a cell; see "move generation on
bitboards" below.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range, one_of
from ...core.layout import state_layout, tensor_layout

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
MAX_MOVES_LIMIT = 10000  # S.moves is an int16 and the history is stored in the state

C = state_layout(
    rows=(1, "rows of the board (6..15)"),
    squares=(1, "3 x rows"),
    max_moves=(1, "player actions after which the game is a draw"),
    standard=(1, "1: the fixed public setup, 0: chance places the pieces"),
)

# The boards kept in the state: the squares of player 0's pieces, of player 1's, and
# of the pieces showing wood and showing water (fire: occupied and neither).
OCC_0, OCC_1, WOOD_UP, WATER_UP = 0, 1, 2, 3
NUM_BOARDS = 4
WORDS, WORD_BITS = 3, 15  # 3 x 15 = 45 squares, the largest board; a word stays a positive int16
WORD_MASK = (1 << WORD_BITS) - 1



def _squares(params):
    return COLS * params["rows"]


S = state_layout(
    player=(1, "next to act: 0, 1, CHANCE (-1) or TERMINAL (-4)"),
    placed=(1, "pieces placed by the setup (0..18; player 0's nine come first)"),
    pending=(1, "kind drawn for the next piece whose face is not drawn yet, or -1"),
    moves=(1, "player actions played"),
    flips=(1, "flips since the last action that was not a flip (rule 8)"),
    winner=(1, "0 or 1; -1 while playing and for a draw"),
    end=(1, "why the game ended: END_NONE, END_WAND, END_STUCK, END_CAP"),
    home=(2, "square of player p's home piece (the one carrying the wand)"),
    captured=((2, NUM_SYMBOLS), "player p's pieces of kind k taken by the opponent"),
    bits=((NUM_BOARDS, WORDS), "the board b (OCC_0, OCC_1, WOOD_UP, WATER_UP) as 3 words of 15 bits"),
    board=(_squares, "the piece on square sq as a cell (below); 0 when empty"),
    history=(lambda p: p["max_moves"], "the i-th player action, plus CAPTURE_UNIT * (kind + 1) when it "
             "took a piece of that kind (turns alternate from player 0)"),
    slots=C._size,
)

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


# Tensor pieces. Per-player pieces are ordered (observer, opponent) so that one
# network serves both seats; "observer" carries the absolute seat. The board is
# not turned: squares are the action squares.
OBS = tensor_layout(
    S._end,
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

__doc__ += f"""
Configuration ``cfg``, ``C`` (then the cfg slots of ``S``, ``OBS`` and ``INFO``)::

{C._table("C")}

State ``S``::

{S._table()}
"""

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
    cfg[C.rows] = rows
    cfg[C.squares] = squares
    cfg[C.max_moves] = max_moves
    cfg[C.standard] = int(standard)
    state_pieces = S._place(cfg, params)
    return Config(
        cfg=cfg,
        num_players=2,
        num_actions=squares * ACTIONS_PER_SQUARE,
        max_chance_outcomes=0 if standard else NUM_CHANCE,
        state_size=state_pieces[-1].stop,
        state_pieces=state_pieces,
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
    return j if player == 0 else COLS * (cfg[C.rows] - START_ROWS) + j


# --- rules -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S.pending] = -1
    state[S.winner] = -1
    rows = cfg[C.rows]
    state[S.home] = 4  # b2
    state[S.home + 1] = COLS * (rows - 2) + 1  # b(rows - 1)
    if cfg[C.standard] == 1:
        for j in range(PIECES):
            kind, side = STANDARD[j, 0], STANDARD[j, 1]
            set_cell(state, j, make_cell(0, kind, side, 1))
            # Turned 180 degrees: column c -> 2 - c, row r -> rows + 1 - r.
            mirrored = COLS * (rows - 1 - j // COLS) + COLS - 1 - j % COLS
            set_cell(state, mirrored, make_cell(1, kind, side, 1))
        state[S.placed] = 2 * PIECES
        state[S.player] = 0
    else:
        state[S.player] = CHANCE


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S.player]


@nb.njit(cache=True, _nrt=False, inline="always")
def flip_barred(cfg, state):
    """Bitmask of the squares whose flip rule 8 forbids now.

    Since the last non-flip action the positions were P_0 .. P_n, P_i being P_0 with
    the flips f_1 .. f_i applied (history's trailing S.flips entries). No piece moves
    and no wand moves meanwhile, so a square names a piece, and the side to move of
    P_i is that of P_0 switched i times. Flipping X makes P_{n+1}, which equals P_i
    exactly when f_{i+1} .. f_n, X turn every piece an even number of times: an even
    number of flips, so the side to move agrees too. Hence X is barred exactly when
    the XOR of the square bits of some suffix f_t .. f_n is the single bit of X. Only
    the mover's own squares matter to the caller (a single opponent bit is harmless).
    """
    return _flip_barred(cfg[S.history], state)


@nb.njit(cache=True, _nrt=False, inline="always")
def _flip_barred(history, state):
    barred = np.int64(0)
    acc = np.int64(0)
    end = history + state[S.moves]
    for i in range(state[S.flips]):
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
    at = S.bits + WORDS * board
    return np.int64(state[at]) | (np.int64(state[at + 1]) << WORD_BITS) | (np.int64(state[at + 2]) << 2 * WORD_BITS)


@nb.njit(cache=True, _nrt=False, inline="always")
def _toggle_board(state, board, squares):
    at = S.bits + WORDS * board
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
    old_0, old_1, old_wood, old_water = _cell_boards(np.int64(state[S.board + square]), bit)
    new_0, new_1, new_wood, new_water = _cell_boards(np.int64(cell), bit)
    _toggle_board(state, OCC_0, old_0 ^ new_0)
    _toggle_board(state, OCC_1, old_1 ^ new_1)
    _toggle_board(state, WOOD_UP, old_wood ^ new_wood)
    _toggle_board(state, WATER_UP, old_water ^ new_water)
    state[S.board + square] = cell


@nb.njit(cache=True, _nrt=False)
def rebuild_boards(cfg, state):
    """Recomputes the boards from the cells (for positions written cell by cell)."""
    for at in range(S.bits, S.board):
        state[at] = 0
    for square in range(cfg[C.squares]):
        cell = state[S.board + square]
        state[S.board + square] = 0  # empty boards: the square is empty in them
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
    home_square = state[S.home + player]
    home = np.int64(1) << home_square
    movers = own & ~home
    prey = other & ~(np.int64(1) << state[S.home + 1 - player])
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
    player = state[S.player]
    live = -np.int64(player >= 0)
    player = max(player, 0)
    barred = flip_barred(cfg, state)
    forward, diagonal_a, diagonal_c, side_a, side_c, flip, wand = _legal_boards(cfg[C.squares], state, player, barred)
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
    base = state[S.home + player] * ACTIONS_PER_SQUARE + WAND
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
    player = max(state[S.player], 0)
    barred = flip_barred(cfg, state)
    forward, diagonal_a, diagonal_c, side_a, side_c, flip, wand = _legal_boards(cfg[C.squares], state, player, barred)
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
        action = state[S.home + player] * ACTIONS_PER_SQUARE + WAND + _nth_square(wand, n - c5)
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
    pending = state[S.pending]
    if state[S.player] == CHANCE and pending >= 0:
        probs[FACE_OUTCOME + pending] = 0.5
        probs[FACE_OUTCOME + (pending + 1) % NUM_SYMBOLS] = 0.5
    elif state[S.player] == CHANCE:
        placed = state[S.placed]
        player = placed // PIECES
        first = S.board + start_square(cfg, player, 0)
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
    rows, squares, history, max_moves = cfg[C.rows], cfg[C.squares], cfg[S.history], cfg[C.max_moves]
    player = state[S.player]
    if player == CHANCE:
        kind = state[S.pending]
        if kind < 0:
            state[S.pending] = action
        else:
            placed = state[S.placed]
            owner = placed // PIECES
            side = 0 if action - FACE_OUTCOME == kind else 1
            square = placed - owner * PIECES + (0 if owner == 0 else COLS * (rows - START_ROWS))  # start_square
            set_cell(state, square, make_cell(owner, kind, side, 0))
            state[S.pending] = -1
            state[S.placed] = placed + 1
            if placed + 1 == 2 * PIECES:
                player = 0
    else:
        square = action // ACTIONS_PER_SQUARE
        k = action % ACTIONS_PER_SQUARE
        target = square + STEP[player, k % WAND] if k != FLIP else square
        entry = action
        if k < FLIP:
            occupant = state[S.board + target]
            if occupant != 0:
                state[S.captured + NUM_SYMBOLS * cell_owner(occupant) + cell_kind(occupant)] += 1
                entry += CAPTURE_UNIT * (cell_kind(occupant) + 1)
            set_cell(state, target, state[S.board + square])
            set_cell(state, square, 0)
        elif k == FLIP:
            set_cell(state, square, (state[S.board + square] ^ SIDE_BIT) | PUBLIC_BIT)
        # The wand moves with a wand move, and with the home piece's step.
        wand_moved = k > FLIP or (k < FLIP and square == state[S.home + player])
        if wand_moved:
            state[S.home + player] = target
        flips = state[S.flips] + 1 if k == FLIP else 0
        state[S.flips] = flips
        moves = state[S.moves]
        state[history + moves] = entry
        state[S.moves] = moves + 1
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
        state[S.winner] = winner
        state[S.end] = why
        player = 1 - player if why == END_NONE else TERMINAL
    state[S.player] = player


@nb.njit(cache=True, _nrt=False, inline="always")
def returns(cfg, state, out):
    fill(out, 0.0)
    winner = state[S.winner]
    if state[S.player] == TERMINAL and winner >= 0:
        out[winner] = 1.0
        out[1 - winner] = -1.0
