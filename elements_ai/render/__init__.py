"""Pictures of states as SVG: ``render(state, player=None)``, drawn by each game's own
``games/<id>/picture.py`` (a game without one gets ``generic``: its state text in the
shared layout). ``to_png`` draws them as PNG (the ``png`` extra)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types


def _module(state) -> types.ModuleType:
    picture = f"{__package__.rpartition('.')[0]}.games.{state.get_game().kernel.short_name}.picture"
    try:
        found = importlib.util.find_spec(picture) is not None
    except ModuleNotFoundError:  # a game made outside games/
        found = False
    return importlib.import_module(picture if found else f"{__name__}.generic")


def render(state, player: int | None = None, *, regions: bool = False) -> str:
    """The state as an SVG document (a string).

    ``player=None`` draws everything (the god view); a seat draws only what that
    player sees: other players' hidden cards as card backs, hidden piece backs as
    unknown. Element colours, whose turn it is and, at the end, the result.
    ``regions=True`` marks the things a move is chosen by (see ``clicks``) and
    changes nothing else.

    >>> import elements_ai
    >>> state = elements_ai.load_game("elementos").new_initial_state()
    >>> picture = elements_ai.render(state, player=0)
    >>> picture.startswith("<svg")
    True
    """
    return _module(state).render(state, player, regions=regions)


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


def to_png(svg_or_state, path=None, *, player: int | None = None, scale: float = 2.0) -> bytes:
    """The PNG of an SVG document or of a state, written to ``path`` too when given
    (see ``elements_ai.render.png.to_png``; needs the ``png`` extra, cairosvg)."""
    from .png import to_png as convert

    return convert(svg_or_state, path, player=player, scale=scale)


__all__ = ["clicks", "render", "to_png"]


class _Module(types.ModuleType):
    """Importing this package sets ``elements_ai.render`` to the package itself: calling
    it then calls ``render``, so ``elements_ai.render(state)`` works either way."""

    def __call__(self, state, player: int | None = None, *, regions: bool = False) -> str:
        return render(state, player, regions=regions)


sys.modules[__name__].__class__ = _Module
