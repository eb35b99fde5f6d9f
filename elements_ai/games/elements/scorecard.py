"""What a finished game of Elements ends with in words: who won the match (or the
round, with ``single_round``) and its score in victory points."""

from __future__ import annotations

from ...render.words import who
from .rules import C, S


def scores(state) -> list[int]:
    """Each seat's victory points."""
    return [int(state.array[S.score + p]) for p in range(2)]


def result_words(state, me: int | None = None) -> str:
    """``You lost the match 5–7``, ``Player 1 won the round 2–0`` and the like."""
    points = scores(state)
    what = "the round" if int(state.get_game().cfg[C.single]) == 1 else "the match"
    winner = 0 if points[0] > points[1] else 1
    if me is None:
        return f"{who(winner, None)} won {what} {points[winner]}–{points[1 - winner]}"
    verb = "won" if me == winner else "lost"
    return f"You {verb} {what} {points[me]}–{points[1 - me]}"
