"""A finished game's result in the words a player uses, one sentence said the same way
in the picture, the web page's banner, the terminal and the game record.

``result_words(state, me)`` asks the game's own ``result_words`` in
``games/<id>/scorecard.py`` (elements says the match score, elemental_duel and
elementos how the game was won) and otherwise speaks of points, for a game whose
score card gives them (``result_card``), or of the returns.

>>> standing_words([1.0, -1.0], 0)
'You won'
>>> standing_words([20, 16, 28], 1, unit="points")
'You came 3rd of 3 with 16 points'
>>> standing_words([20, 16, 28], None, unit="points")
'Player 2 won with 28 points'
"""

from __future__ import annotations

import importlib
import importlib.util
import types

__all__ = ["ordinal", "result_words", "scorecard_module", "standing_words", "who"]


def scorecard_module(state) -> types.ModuleType | None:
    """The game's ``games/<id>/scorecard.py``, or ``None`` for a game without one."""
    module = f"{__package__.rpartition('.')[0]}.games.{state.get_game().get_type().short_name}.scorecard"
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a game made outside games/
        found = False
    return importlib.import_module(module) if found else None


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``..."""
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def who(seat: int, me: int | None) -> str:
    """``You`` for the viewer's own seat, else ``Player N`` (seats count from 0, as everywhere)."""
    return "You" if seat == me else f"Player {seat}"


def _amount(value: float, unit: str | None) -> str:
    return f"{value:g} {unit}" if unit else f"{value:g}"


def standing_words(values: list[float], me: int | None, unit: str | None = None, rank: str | None = None) -> str:
    """Where seat ``me`` (``None``: a spectator) finished by ``values``; with ``unit`` the
    values are said too (``with 16 points``). One seat: its score, and ``rank`` if any.

    >>> standing_words([5, 5], 0), standing_words([3, 9], 0, "points"), standing_words([7, 7, 2], None)
    ('A draw', 'You lost, 3 points to 9', 'Players 0 and 1 tied for first')
    >>> standing_words([14], 0, "points", "Apprentice")
    'You scored 14 points (Apprentice)'
    """
    if len(values) == 1:
        return f"{who(0, me)} scored {_amount(values[0], unit or 'points')}" + (f" ({rank})" if rank else "")
    best = max(values)
    winners = [p for p, v in enumerate(values) if v == best]
    said = f" with {_amount(best, unit)}" if unit else ""
    if len(winners) == len(values):
        return "A draw" + (f", {_amount(best, unit)} each" if unit else "")
    if me is None:
        if len(winners) == 1:
            return f"Player {winners[0]} won{said}"
        return "Players " + " and ".join(map(str, winners)) + f" tied for first{said}"
    if values[me] == best:
        return f"You won{said}" if len(winners) == 1 else f"You tied for first{said}"
    if len(values) == 2:
        return f"You lost, {_amount(values[me], unit)} to {best:g}" if unit else "You lost"
    place = 1 + sum(v > values[me] for v in values)
    return f"You came {ordinal(place)} of {len(values)}" + (f" with {_amount(values[me], unit)}" if unit else "")


def result_words(state, me: int | None = None) -> str:
    """The result of the finished ``state`` as seat ``me`` hears it (``None``: a spectator).

    >>> import elements_ai
    >>> state = elements_ai.load_game("elements(single_round=true)").new_initial_state()
    >>> while not state.is_terminal():
    ...     state.apply_action(state.legal_actions()[-1])
    >>> result_words(state, 1), result_words(state, None)
    ('You lost the round 0–1', 'Player 0 won the round 1–0')
    """
    if not state.is_terminal():
        raise ValueError("result_words: the game is not over")
    card = scorecard_module(state)
    if card is not None and hasattr(card, "result_words"):
        return card.result_words(state, me)
    if card is not None and hasattr(card, "result_card"):
        _, points, rank = card.result_card(state)
        return standing_words([float(p) for p in points], me, "points", rank)
    return standing_words([float(r) for r in state.returns()], me)
