"""What a finished game of Elementos ends with in words: who won and why it ended."""

from __future__ import annotations

from ...render.words import who
from .rules import END_CAP, END_STUCK, END_WAND, C, S

WHY = {END_WAND: "the wand reached the far row", END_STUCK: "the loser had no move left"}


def result_words(state, me: int | None = None) -> str:
    """``You won: the wand reached the far row``, ``A draw: 200 moves played``."""
    winner, end = int(state.array[S.winner]), int(state.array[S.end])
    if winner < 0 or end == END_CAP:
        return f"A draw: {int(state.get_game().cfg[C.max_moves])} moves played"
    if me is None or me == winner:
        return f"{who(winner, me)} won: {WHY[end]}"
    return f"You lost: {who(winner, None)} won, {WHY[end]}"
