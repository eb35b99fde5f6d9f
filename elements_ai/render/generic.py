"""The picture of a game whose folder has none (``games/<id>/picture.py``): its state
text as the player sees it, in the shared header and line layout, with no regions to
click (the page then lists every move as a button)."""

from __future__ import annotations

from . import base


def render(state, player=None, regions=False) -> str:
    title = state.get_game().get_type().long_name
    return base.picture(state, player, title, base.viewer_text(state, player).splitlines(), {}, regions=regions)


def clicks(move: str) -> tuple[str, ...]:
    return ()
