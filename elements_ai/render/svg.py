"""A small SVG builder: plain strings, every text XML-escaped, no dependency."""

from __future__ import annotations

import re
from xml.sax.saxutils import escape as _escape

FONT = "font-family:DejaVu Sans Mono,Menlo,Consolas,monospace"
CHAR = 7.2  # the width of one character at font size 12
CARD_W, CARD_H = 54, 44
BACK = "#5b6b8c"
INK = "#222222"


def esc(text) -> str:
    """``text`` escaped for an XML attribute or text node."""
    return _escape(str(text), {'"': "&quot;"})


def rect(x, y, w, h, fill="none", stroke=INK, rx=0, width=1, extra="") -> str:
    return (f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{esc(fill)}" '
            f'stroke="{esc(stroke)}" stroke-width="{width:g}"{extra}/>')


def circle(x, y, r, fill="none", stroke=INK, width=1, dash="") -> str:
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{esc(fill)}" stroke="{esc(stroke)}" '
            f'stroke-width="{width:g}"{d}/>')


def text(x, y, s, size=12, fill=INK, anchor="start", bold=False, passive=False) -> str:
    """``s`` at ``x, y`` (its baseline); ``passive``: the pointer goes through it to what
    lies under it (a card whose title is its tip)."""
    weight = ' font-weight="bold"' if bold else ""
    events = ' pointer-events="none"' if passive else ""
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" fill="{esc(fill)}" text-anchor="{anchor}" '
            f'style="{FONT}"{weight}{events}>{esc(s)}</text>')


def text_width(s, size=12) -> float:
    return len(str(s)) * CHAR * size / 12


def _ink_on(fill: str) -> str:
    """Black or white, whichever reads on ``fill`` (a #rrggbb colour)."""
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", fill):
        return INK
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


MIN_TEXT = 12  # no word is drawn smaller: a picture is read at its own size


def card_lines(label) -> tuple[list[str], int, float]:
    """How a card shows ``label``: its lines (split at the first space when long), the
    font size and the card width that holds them at that size."""
    label = str(label)
    lines = [label] if text_width(label, 13) <= CARD_W - 8 or " " not in label else label.split(" ", 1)
    size = 13 if len(lines) == 1 else MIN_TEXT
    return lines, size, max(CARD_W, max(text_width(line, size) for line in lines) + 10)


def card(x, y, label, fill="#ffffff", w=None, h=CARD_H, tip: str | None = None, note: str = "") -> str:
    """A face-up card: ``label`` (up to two lines) on ``fill``, as wide as its words need
    at a readable size (``card_lines``) or ``w``; ``note``: a short line under the label
    (an effect), ``tip``: the full text a pointer resting on the card shows."""
    ink = _ink_on(fill)
    lines, size, need = card_lines(label)
    if note:
        lines, size = [*lines, note], MIN_TEXT
        need = max(need, text_width(note, size) + 10)
    w = need if w is None else max(w, need)
    h = max(h, 14 * len(lines) + 8)
    face = rect(x, y, w, h, fill, rx=4)
    if tip:
        # The words on the card let the pointer through to the card, whose title is the tip.
        face = face[:-2] + f"><title>{esc(tip)}</title></rect>"
    parts = [face]
    top = y + h / 2 - (len(lines) - 1) * 7 + 4
    for i, line in enumerate(lines):
        parts.append(text(x + w / 2, top + 14 * i, line, size=size, fill=ink, anchor="middle", passive=bool(tip)))
    return "".join(parts)


def card_width(label, note: str = "") -> float:
    """The width ``card`` draws ``label`` (and ``note``) at."""
    need = card_lines(label)[2]
    return max(need, text_width(note, MIN_TEXT) + 10) if note else need


def card_height(label, note: str = "") -> float:
    lines = card_lines(label)[0]
    return max(CARD_H, 14 * (len(lines) + bool(note)) + 8)


def card_back(x, y, w=CARD_W, h=CARD_H) -> str:
    """A face-down card: its back, nothing of its face."""
    return (rect(x, y, w, h, BACK, rx=4) + rect(x + 4, y + 4, w - 8, h - 8, "none", "#c9d3ea", rx=2)
            + text(x + w / 2, y + h / 2 + 4, "?", size=12, fill="#ffffff", anchor="middle", bold=True))


class Canvas:
    """Collects shapes; ``svg()`` wraps them in a document sized to what was drawn.

    With ``regions=True`` the things a move can be chosen by (a card in hand, a
    square) are wrapped in ``<g class="region" data-region="NAME">``, for a page to
    make them clickable; without, ``region`` and ``group`` change nothing, so the
    picture is byte for byte the one drawn before regions existed.
    """

    def __init__(self, width: float = 900, title: str = "", regions: bool = False):
        self.width = self.page = width
        self.height = 0.0
        self.parts: list[str] = []
        self.title = title
        self.regions = regions

    def region(self, name: str | None, shape: str) -> str:
        """``shape`` marked as region ``name`` (unchanged without regions or a name)."""
        if not self.regions or not name:
            return shape
        return f'<g class="region" data-region="{esc(name)}">{shape}</g>'

    def mark(self) -> int:
        """Where the next shape goes; ``group(mark, name)`` then marks what was added since."""
        return len(self.parts)

    def group(self, since: int, name: str | None, box: tuple[float, float, float, float] | None = None) -> None:
        """Marks the shapes added since ``since`` as region ``name``; ``box`` (x, y, w, h)
        adds an invisible rectangle under them, so the gaps between words click too."""
        if self.regions and name and since < len(self.parts):
            hit = rect(*box, "none", "none", extra=' pointer-events="all"') if box else ""
            self.parts[since:] = [self.region(name, hit + "".join(self.parts[since:]))]

    def add(self, shape: str, bottom: float = 0.0, right: float = 0.0) -> None:
        self.parts.append(shape)
        self.height = max(self.height, bottom)
        self.width = max(self.width, right)

    def svg(self) -> str:
        w, h = max(self.page, self.width), self.height + 10
        title = f"<title>{esc(self.title)}</title>" if self.title else ""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}" height="{h:g}" '
                f'viewBox="0 0 {w:g} {h:g}">{title}' + rect(0, 0, w, h, "#fbfaf6", "none")
                + "".join(self.parts) + "</svg>")


def words(document: str) -> str:
    """Everything a picture says, its texts in drawing order joined by spaces (a line
    wrapped in the picture reads as one), for a screen reader or a test."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(document)
    return " ".join((node.text or "").strip() for node in root.iter("{http://www.w3.org/2000/svg}text"))
