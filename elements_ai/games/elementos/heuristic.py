"""Elementos: the ``rules`` bot, ``heuristic`` (RULES.md's rules of thumb)."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.rng import uniform
from .rules import (
    ACTIONS_PER_SQUARE,
    COLS,
    FLIP,
    NUM_DIRECTIONS,
    WAND,
    C,
    S,
    cell_owner,
    cell_up,
    legal_mask,
    neighbour,
    takes,
)


@nb.njit(cache=True, _nrt=False)
def _attacked(cfg, state, player, target, symbol):
    """Could an opponent's ordinary piece take a ``symbol`` piece on ``target`` next turn?

    Uses face-up symbols only, as the player sees them.
    """
    other = 1 - player
    rows = cfg[C.rows]
    for square in range(cfg[C.squares]):
        cell = state[S.board + square]
        if cell == 0 or cell_owner(cell) != other or square == state[S.home + other] or square == target:
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
    rows = cfg[C.rows]
    num_actions = cfg[C.squares] * ACTIONS_PER_SQUARE
    mask = np.zeros(num_actions, np.bool_)
    legal_mask(cfg, state, mask)
    far_row = rows - 1 if player == 0 else 0
    home = state[S.home + player]
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
        symbol = cell_up(state[S.board + square])
        safe = not _attacked(cfg, state, player, target, symbol)
        if state[S.board + target] != 0:
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
