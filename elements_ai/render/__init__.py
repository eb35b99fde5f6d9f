"""Pictures of states as SVG: ``render(state, player=None)``; one module per game."""

from __future__ import annotations

import importlib


def render(state, player: int | None = None) -> str:
    """The state as an SVG document (a string).

    ``player=None`` draws everything (the god view); a seat draws only what that
    player sees: other players' hidden cards as card backs, hidden piece backs as
    unknown. Element colours, whose turn it is and, at the end, the result.

    >>> import elements_ai
    >>> state = elements_ai.load_game("elementos").new_initial_state()
    >>> picture = elements_ai.render(state, player=0)
    >>> picture.startswith("<svg")
    True
    """
    module = importlib.import_module(f"{__name__}.{state.get_game().kernel.short_name}")
    return module.render(state, player)


__all__ = ["render"]
