"""Elementos: the observation and information-state tensors (pieces ``OBS`` and ``INFO`` of rules.py)."""

from __future__ import annotations

import numba as nb

from ...core.arrays import fill
from ...core.observers import Privacy
from .rules import (
    ACTIONS_PER_SQUARE,
    CAPTURE_UNIT,
    INFO,
    NUM_SYMBOLS,
    OBS,
    PIECES,
    C,
    S,
    cell_back,
    cell_owner,
    cell_public,
    cell_up,
    flip_barred,
)

# What only the observer knows (core/observers.py cuts the public and private
# observation types by it): the backs of its own pieces that were never flipped
# nor captured (ruling 11). ``back`` shows those and the public ones, by square.
PRIVACY = Privacy(shared=("back",))


@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    n = cfg[C.squares]
    other = 1 - player
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S.player]
    if to_move >= 0:
        out[cfg[OBS.to_move] + (0 if to_move == player else 1)] = 1.0
    for square in range(n):
        cell = state[S.board + square]
        if cell == 0:
            continue
        owner = cell_owner(cell)
        out[cfg[OBS.pieces] + (0 if owner == player else 1) * n + square] = 1.0
        out[cfg[OBS.up] + cell_up(cell) * n + square] = 1.0
        if owner == player or cell_public(cell) == 1:
            out[cfg[OBS.back] + cell_back(cell) * n + square] = 1.0
        out[cfg[OBS.public_back] + square] = cell_public(cell)
    if state[S.placed] == 2 * PIECES:
        out[cfg[OBS.home] + state[S.home + player]] = 1.0
        out[cfg[OBS.home] + n + state[S.home + other]] = 1.0
    for k in range(NUM_SYMBOLS):
        out[cfg[OBS.captured] + k] = state[S.captured + NUM_SYMBOLS * player + k]
        out[cfg[OBS.captured] + NUM_SYMBOLS + k] = state[S.captured + NUM_SYMBOLS * other + k]
    out[cfg[OBS.moves]] = state[S.moves]
    if to_move >= 0 and state[S.flips] > 0:
        barred = flip_barred(cfg, state)
        for square in range(n):
            cell = state[S.board + square]
            if cell != 0 and cell_owner(cell) == to_move and (barred >> square) & 1:
                out[cfg[OBS.flip_barred] + square] = 1.0


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    n = cfg[C.squares]
    history = cfg[S.history]
    for i in range(state[S.moves]):
        entry = state[history + i]
        action = entry % CAPTURE_UNIT
        out[cfg[INFO.history_square] + i * n + action // ACTIONS_PER_SQUARE] = 1.0
        out[cfg[INFO.history_kind] + i * ACTIONS_PER_SQUARE + action % ACTIONS_PER_SQUARE] = 1.0
        taken = entry // CAPTURE_UNIT - 1
        if taken >= 0:
            out[cfg[INFO.history_capture] + NUM_SYMBOLS * i + taken] = 1.0
