"""Pictures of states as SVG: ``render(state, player=None)``, drawn by each game's own
``games/<id>/picture.py`` (a game without one gets ``generic``: its state text in the
shared layout). ``to_png`` draws them as PNG (the ``png`` extra)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Mapping


def _module(state) -> types.ModuleType:
    picture = f"{__package__.rpartition('.')[0]}.games.{state.get_game().kernel.short_name}.picture"
    try:
        found = importlib.util.find_spec(picture) is not None
    except ModuleNotFoundError:  # a game made outside games/
        found = False
    return importlib.import_module(picture if found else f"{__name__}.generic")


def render(state, player: int | None = None, *, regions: bool = False, width: float = 900,
           last: Mapping[int, str] | None = None, debug: bool = False) -> str:
    """The state as an SVG document (a string).

    ``player=None`` draws everything (the god view); a seat draws only what that
    player sees: other players' hidden cards as card backs, hidden piece backs as
    unknown. Element colours, whose turn it is and what they may do in words and, at
    the end, the result (``words.result_words``). ``regions=True`` marks the things a
    move is chosen by (see ``clicks``) and changes nothing else.

    ``width``: the picture's width (at least 320): the table and the seats are laid
    out over it, side by side or one under the other, so that a picture drawn for a
    phone's width reads at its own size. ``last``: seat -> that seat's last move as
    the viewer saw it, marked in the seat's panel (the state alone does not say it:
    a state drawn from what a player knows has no history). ``debug``: the engine's
    own text for the viewer under the picture.

    >>> import elements_ai
    >>> state = elements_ai.load_game("elementos").new_initial_state()
    >>> picture = elements_ai.render(state, player=0)
    >>> picture.startswith("<svg")
    True
    """
    from ..core.params import ParameterError
    from .base import MIN_WIDTH

    if isinstance(width, bool) or not isinstance(width, (int, float)) or not MIN_WIDTH <= width <= 10_000:
        raise ParameterError(f"render: width must be a number from {MIN_WIDTH} to 10000, got {width!r}")
    return _module(state).render(state, player, regions=regions, width=float(width), last=dict(last or {}),
                                 debug=debug)


def clicks(state, player: int, action: int) -> tuple[str, ...]:
    """The regions of ``render(state, player, regions=True)`` that choose ``action``,
    in the order to click them; ``()`` for a move the picture has no place for
    (elements' knock and yield, for one).

    >>> import elements_ai
    >>> game = elements_ai.load_game("elementos", setup="standard")
    >>> state = game.new_initial_state()
    >>> [clicks(state, 0, a) for a in state.legal_actions()[:2]]
    [('sq:a1',), ('sq:b1',)]
    >>> 'data-region="sq:a1"' in render(state, 0, regions=True)
    True
    """
    return tuple(_module(state).clicks(state.action_to_string(player, action)))


def explain(state, action: int, viewer: int | None = None) -> str | None:
    """What ``action``, about to be played at ``state``, did, in words ``viewer`` may
    hear (``None``: everyone's), when the move's name does not say it: the card
    "take" takes, who won a duel, a knock's sums and hands and the round's score.
    ``None`` when there is nothing to add (a game whose picture says nothing more).

    >>> import elements_ai
    >>> from elements_ai.testing import play_by_strings
    >>> state = play_by_strings(elements_ai.load_game("elements").new_initial_state(), "start player 0",
    ...                         *[f"deal {v}" for v in (1, 1, 2, 3, 6, 6, 2, 3, 4, 4, 5, 5)], "play 3")
    >>> take = next(a for a in state.legal_actions() if state.action_to_string(1, a) == "take")
    >>> explain(state, take, 1)
    'takes the 3 from the display'
    """
    module = _module(state)
    if not hasattr(module, "explain") or state.is_chance_node() or state.is_terminal():
        return None
    return module.explain(state, int(action), viewer)


def to_png(svg_or_state, path=None, *, player: int | None = None, scale: float = 2.0) -> bytes:
    """The PNG of an SVG document or of a state, written to ``path`` too when given
    (see ``elements_ai.render.png.to_png``; needs the ``png`` extra, cairosvg)."""
    from .png import to_png as convert

    return convert(svg_or_state, path, player=player, scale=scale)


__all__ = ["clicks", "explain", "render", "to_png"]


class _Module(types.ModuleType):
    """Importing this package sets ``elements_ai.render`` to the package itself: calling
    it then calls ``render``, so ``elements_ai.render(state)`` works either way."""

    def __call__(self, state, player: int | None = None, **options) -> str:
        return render(state, player, **options)


sys.modules[__name__].__class__ = _Module
