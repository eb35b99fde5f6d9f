"""The picture of a game whose folder has none (``games/<id>/picture.py``): its state
text as the player sees it, in the shared header and a panel over the picture's
width, with no regions to click (the page then lists every move as a button)."""

from __future__ import annotations

from . import base, svg


def render(state, player=None, regions=False, *, width=900.0, last=None, debug=False) -> str:
    title = state.get_game().get_type().long_name
    canvas = svg.Canvas(width=width, title=title, regions=regions)
    y = base.header(canvas, state, player, title)
    lines = base.viewer_text(state, player).splitlines()
    boxes = [base.Panel("The table", lines, wide=True)]
    boxes += [base.Panel(base.seat_title(p, player), last=move) for p, move in sorted((last or {}).items())]
    y = base.panels(canvas, boxes, y, {})
    return base.finish(canvas, state, player, y, debug)


def clicks(move: str) -> tuple[str, ...]:
    return ()
