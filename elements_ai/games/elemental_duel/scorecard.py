"""What a finished Elemental Duel ends with in words: who won and how."""

from __future__ import annotations

from ...render.words import who
from .rules import DRAW, S
from .strings import HOW_TEXT


def result_words(state, me: int | None = None) -> str:
    """``You won with all 3 star territories``, ``Player 0 won with 2 of the 3 types``,
    ``A draw (equal types and equal icons)``."""
    result, how = int(state.array[S.result]), int(state.array[S.how])
    if result == DRAW:
        return "A draw (equal types and equal icons)"
    if me is None or me == result:
        return f"{who(result, me)} won with {HOW_TEXT[how]}"
    return f"You lost: {who(result, None)} won with {HOW_TEXT[how]}"
