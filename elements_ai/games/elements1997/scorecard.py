"""What a finished game ends with in words (``elements_ai.play``): each seat's points,
which the returns are not (they are each score less the mean)."""

from __future__ import annotations

from .rules import S


def result_card(state) -> tuple[list[str], list[int], str | None]:
    """No card lines, each seat's points, and no rank."""
    return [], [int(state.array[S.score + p]) for p in range(state.get_game().num_players())], None
