"""Elementos: information-set sampling, ``resample`` (a state the player cannot tell from the true one)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy
from ...core.rng import sample_index, uniform
from .rules import (
    NUM_SYMBOLS,
    PIECES,
    PIECES_PER_KIND,
    C,
    S,
    cell_kind,
    cell_owner,
    cell_public,
    cell_up,
    make_cell,
    start_square,
)

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
    squares = cfg[C.squares]
    placed = state[S.placed]
    pending = state[S.pending]
    pending_owner = placed // PIECES if pending >= 0 else -1
    # The player's own pending kind is not part of any observation either.
    if pending_owner == player:
        own_left = np.full(3, PIECES_PER_KIND, np.float64)
        for j in range(placed - player * PIECES):
            own_left[cell_kind(state[S.board + start_square(cfg, player, j)])] -= 1.0
        out[S.pending] = sample_index(own_left, 3, uniform(rng, 0))
    left = np.empty(3, np.int64)
    for k in range(NUM_SYMBOLS):
        left[k] = PIECES_PER_KIND - state[S.captured + NUM_SYMBOLS * other + k]
    hidden = np.zeros(3, np.int64)
    for square in range(squares):
        cell = state[S.board + square]
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
        out[S.pending] = q
    # Within each face group, a uniform subset of x_u pieces lies on side 0. Owners
    # and face-up symbols stay, so the boards stay right without ``set_cell``.
    need = chosen.copy()
    remaining = hidden.copy()
    for square in range(squares):
        cell = state[S.board + square]
        if cell == 0 or cell_owner(cell) != other or cell_public(cell) == 1:
            continue
        up = cell_up(cell)
        side0 = uniform(rng, 0) * remaining[up] < need[up]
        remaining[up] -= 1
        if side0:
            need[up] -= 1
            out[S.board + square] = make_cell(other, up, 0, 0)
        else:
            out[S.board + square] = make_cell(other, (up + 2) % NUM_SYMBOLS, 1, 0)
