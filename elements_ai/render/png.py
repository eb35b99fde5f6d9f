"""PNG pictures of states, for papers and for ``rgb_array`` rendering: the SVG of
``render`` drawn by cairosvg, which comes with the ``png`` extra
(``pip install "elements-ai[png]"``).

>>> import elements_ai
>>> state = elements_ai.load_game("elements", single_round=True).new_initial_state()
>>> data = to_png(state, scale=1.0)
>>> data[:8] == PNG_SIGNATURE
True
"""

from __future__ import annotations

import io
import math
import os
import re

import numpy as np

from ..core.params import ParameterError

__all__ = ["PNG_SIGNATURE", "png_size", "require_cairosvg", "svg_size", "to_png", "to_rgb_array"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
INSTALL = 'pip install "elements-ai[png]"'


def require_cairosvg():
    """The cairosvg module, or a one-line ``ParameterError`` saying how to get it."""
    try:
        import cairosvg
    except ImportError:
        raise ParameterError(f"PNG export needs cairosvg: {INSTALL}") from None
    except OSError as error:
        # cairosvg is there but the cairo C library it loads is not (cairocffi's error).
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ParameterError(f"PNG export needs the cairo library, which cairosvg could not load ({first}); "
                             f"install cairo (e.g. apt-get install libcairo2) beside {INSTALL}") from None
    return cairosvg


def _svg_text(svg_or_state, player: int | None) -> str:
    if isinstance(svg_or_state, str):
        if player is not None:
            raise ParameterError("to_png: player= chooses the view of a state; an SVG string is already drawn")
        if not re.match(r"\s*(<\?xml[^>]*>\s*)?<svg[\s>]", svg_or_state):
            raise ParameterError("to_png: a string must be an SVG document (starting with <svg), "
                                 f"got {svg_or_state[:40]!r}")
        return svg_or_state
    from . import render

    return render(svg_or_state, player)


def to_png(svg_or_state, path: str | os.PathLike | None = None, *, player: int | None = None,
           scale: float = 2.0) -> bytes:
    """The PNG of an SVG document or of a state (drawn by ``render(state, player)``).

    ``scale`` multiplies the SVG's width and height (2.0 suits print and
    high-density screens). With ``path`` the file is also written, whole or not at
    all (``files.atomic_write``). Without cairosvg, a one-line ``ParameterError``
    names the extra to install.

    >>> import elements_ai
    >>> state = elements_ai.load_game("elementos").new_initial_state()
    >>> png_size(to_png(elements_ai.render(state), scale=1.0)) == svg_size(elements_ai.render(state))
    True
    """
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
        raise ParameterError(f"to_png: scale must be a positive number, got {scale!r}")
    text = _svg_text(svg_or_state, player)
    cairosvg = require_cairosvg()
    data = cairosvg.svg2png(bytestring=text.encode("utf-8"), scale=float(scale))
    if path is not None:
        from ..files import atomic_write

        with atomic_write(path, "wb") as handle:
            handle.write(data)
    return data


def to_rgb_array(svg_or_state, *, player: int | None = None, scale: float = 1.0) -> np.ndarray:
    """The picture as a ``(height, width, 3)`` uint8 array (what ``rgb_array`` rendering returns).

    Decoded with Pillow, which matplotlib (a dependency) brings.
    """
    from PIL import Image

    with Image.open(io.BytesIO(to_png(svg_or_state, player=player, scale=scale))) as image:
        return np.asarray(image.convert("RGB"))


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height written in a PNG's header."""
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("not a PNG: the signature is missing")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def svg_size(text: str) -> tuple[int, int]:
    """The width and height of an SVG document written by ``render`` (rounded to pixels)."""
    match = re.search(r'<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"', text)
    if match is None:
        raise ValueError("the SVG has no width and height")
    return round(float(match.group(1))), round(float(match.group(2)))
