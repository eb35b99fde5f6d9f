"""Elementos: action, state, observation and information-state strings (for people, not for speed)."""

from __future__ import annotations

from ...core.kernel import CHANCE, TERMINAL
from .rules import (
    ACTIONS_PER_SQUARE,
    CAPTURE_UNIT,
    COLS,
    COLUMNS,
    DIR_NAMES,
    END_CAP,
    END_STUCK,
    END_WAND,
    FLIP,
    KINDS,
    NUM_CHANCE,
    NUM_SYMBOLS,
    PIECES,
    SYMBOLS,
    WAND,
    C,
    S,
    cell_back,
    cell_owner,
    cell_public,
    cell_up,
    flip_barred,
    neighbour,
)

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
    num_actions = int(cfg[C.squares]) * ACTIONS_PER_SQUARE
    if not 0 <= action < num_actions:
        raise ValueError(f"elementos: action {action} is out of range 0..{num_actions - 1}")
    if player not in (0, 1):
        raise ValueError(f"elementos: player {player} has no actions")
    square, k = divmod(action, ACTIONS_PER_SQUARE)
    capture = False
    if k < FLIP:
        target = int(neighbour(int(cfg[C.rows]), square, k, player))
        if target >= 0:
            cell = int(state[S.board + target])
            capture = cell != 0 and int(cell_owner(cell)) != player
    return _action_text(int(cfg[C.rows]), player, action, capture)


def _cell_text(state, square: int, viewer: int | None) -> str:
    """A piece as ``owner up/back``; ``up(back)``: back known to its owner only;
    ``up/?``: back hidden from the viewer; ``@``: carries the wand."""
    cell = int(state[S.board + square])
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
    placed = int(state[S.placed]) == 2 * PIECES
    home = "@" if placed and int(state[S.home + owner]) == square else ""
    return f"{owner} {face}{home}"


def _board(cfg, state, viewer: int | None) -> list[str]:
    rows = int(cfg[C.rows])
    width = 16
    header = "     " + "".join(c.ljust(width) for c in COLUMNS).rstrip()
    lines = [header]
    for row in range(rows - 1, -1, -1):
        cells = "".join(_cell_text(state, COLS * row + c, viewer).ljust(width) for c in range(COLS))
        lines.append(f"{row + 1:>3}  {cells}".rstrip())
    lines.append(header)
    return lines


def _public(cfg, state) -> list[str]:
    player = int(state[S.player])
    if player == TERMINAL:
        winner = int(state[S.winner])
        why = {
            END_WAND: "wand reached the far row",
            END_STUCK: "opponent had no legal action",
            END_CAP: f"{int(cfg[C.max_moves])} moves played",
        }[int(state[S.end])]
        to_move = "game over: " + (f"p{winner} wins ({why})" if winner >= 0 else f"draw ({why})")
    elif player == CHANCE:
        to_move = f"setup: {int(state[S.placed])} of {2 * PIECES} pieces placed"
    else:
        to_move = f"to move: p{player}"
    captured = []
    for p in (0, 1):
        lost = [KINDS[k] for k in range(NUM_SYMBOLS) for _ in range(int(state[S.captured + NUM_SYMBOLS * p + k]))]
        captured.append(f"p{p} lost [{', '.join(lost)}]" if lost else f"p{p} lost none")
    barred = int(flip_barred(cfg, state)) if player >= 0 and state[S.flips] > 0 else 0
    own = [
        square_name(sq)
        for sq in range(int(cfg[C.squares]))
        if (barred >> sq) & 1 and state[S.board + sq] != 0 and int(cell_owner(int(state[S.board + sq]))) == player
    ]
    return [
        f"{to_move}; moves played {int(state[S.moves])} of {int(cfg[C.max_moves])}",
        "captured: " + "; ".join(captured),
        "flips barred by equilibrium: " + (", ".join(own) if own else "none"),
    ]


LEGEND = "pieces: owner face-up/back known to both, face-up(back) known to its owner only, face-up/? hidden; @ wand"


def state_to_string(cfg, state) -> str:
    lines = _board(cfg, state, None) + _public(cfg, state)
    if state[S.pending] >= 0:
        lines.append(f"kind drawn for the next piece: {KINDS[int(state[S.pending])]}")
    moves = history_strings(cfg, state)
    lines += ["history: " + (", ".join(moves) if moves else "-"), LEGEND]
    return "\n".join(lines)


def observation_string(cfg, state, player: int) -> str:
    return "\n".join(_observation_lines(cfg, state, player) + [LEGEND])


def _observation_lines(cfg, state, player: int) -> list[str]:
    return [f"observer p{player}"] + _board(cfg, state, player) + _public(cfg, state)


def history_strings(cfg, state) -> list[str]:
    """The player actions so far as ``p0 move b2-b3``, captures with the piece taken."""
    rows = int(cfg[C.rows])
    out = []
    for i in range(int(state[S.moves])):
        entry = int(state[int(cfg[S.history]) + i])
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
