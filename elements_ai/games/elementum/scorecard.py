"""Score layouts by hand: each player's total and a card-by-card breakdown.

The points come from the kernel's own scoring (``scoring.score_all``), the one the
games' returns use; this module only builds a kernel state from readable layouts.

The rulebook's example, 10 points: 2 for water symbols (Colligit), 2 for a set of
water and fire (Collatio) and 6 for a reinforced adjacency (Propter beside fire):

>>> card = score([{"fire": [1], "water": [31, 35], "earth": [16]}],
...              crystals={31: 1}, sources=("fire", "water", "earth", "air"))
>>> card.totals
[10]
>>> card.cards[["card", "name", "crystals", "points"]].values.tolist()
[[1, 'Colligit', 0, 2], [31, 'Propter', 1, 6], [35, 'Lapis Vires', 0, 0], [16, 'Collatio', 0, 2]]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from . import rules as R
from .cards import (
    CARD_TABLE,
    COMMODUM_CARD,
    ELEMENTS,
    IMITARI_CARD,
    NUM_SPELLS,
    OVERLOAD,
    OVERLOAD_PENALTY,
    QUI_FIERI_CARD,
    UNIVERSAL,
    card_index,
)
from .scoring import score_all
from .state import MAX_PLAYERS, MAX_ROWS, _in_layout
from .strings import _columns as layout_columns

Layout = Mapping[str, Sequence[int]] | Sequence[Sequence[int]]


@dataclasses.dataclass(frozen=True)
class ScoreCard:
    """``totals[p]``: player p's points; ``cards``: one row per scored card (column by
    column from the left, top to bottom, then the Overload), with its points and
    the scoring choice made for it (``note``)."""

    totals: list[int]
    cards: pd.DataFrame

    def __str__(self) -> str:
        return self.cards.to_string(index=False) + "\ntotals " + " ".join(map(str, self.totals))


def _columns(layout: Layout, sources: Sequence[str], who: str) -> list[list[int]]:
    if isinstance(layout, Mapping):
        unknown = sorted(set(layout) - set(ELEMENTS))
        if unknown:
            raise ValueError(f"{who}: unknown element {unknown[0]!r}; the elements are {', '.join(ELEMENTS)}")
        return [list(layout.get(e, ())) for e in sources]
    columns = [list(column) for column in layout]
    if len(columns) != R.NUM_COLUMNS:
        raise ValueError(f"{who}: a layout has {R.NUM_COLUMNS} columns (the sources left to right), got {len(columns)}")
    return columns


def build_state(
    layouts: Sequence[Layout],
    crystals: Mapping[int, int] | None = None,
    sources: Sequence[str] = ELEMENTS,
    overload: int | str | None = None,
    tie_breakers: Mapping[int, int] | None = None,
    imitation: Layout | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(cfg, state)``: a kernel state holding these layouts (see ``score``)."""
    players = len(layouts)
    if not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"elementum: 1 to {MAX_PLAYERS} layouts (one per player), got {players}")
    if imitation is not None and players != 1:
        raise ValueError("elementum: an imitation plays only in the solo game (one layout)")
    if sorted(sources) != sorted(ELEMENTS):
        raise ValueError(f"elementum: sources must order the four elements {', '.join(ELEMENTS)}, got {sources!r}")
    config = R.configure({"players": players, "overload": overload is not None,
                          "solo_removed": R.PARAMS["solo_removed"].default})
    cfg = config.cfg
    state = np.zeros(config.state_size, np.int16)
    R.init(cfg, state)
    for k, element in enumerate(sources):
        state[R.S.source + k] = ELEMENTS.index(element)
        state[R.S.column_of + ELEMENTS.index(element)] = k
    for c in range(NUM_SPELLS):
        state[R.S.loc + c] = R.LOC_OUT
    seats = [(p, layout, f"layout of player {p}") for p, layout in enumerate(layouts)]
    if players == 1:
        seats.append((R.IMITATION, imitation or [[]] * R.NUM_COLUMNS, "the imitation's layout"))
    for seat, layout, who in seats:
        for k, column in enumerate(_columns(layout, sources, who)):
            if len(column) > MAX_ROWS:
                raise ValueError(f"{who}: column {k + 1} holds {len(column)} cards, at most {MAX_ROWS}")
            for number in column:
                if not 1 <= number <= NUM_SPELLS:
                    raise ValueError(f"{who}: card {number!r} is not a spell card (1 to {NUM_SPELLS})")
                c = card_index(number)
                if state[R.S.loc + c] != R.LOC_OUT:
                    raise ValueError(f"{who}: card {number} lies in two places")
                element = int(R.CARD_ELEMENT[c])
                if element != UNIVERSAL and ELEMENTS[element] != sources[k]:
                    raise ValueError(
                        f"{who}: card {number} ({CARD_TABLE[c].name}, {ELEMENTS[element]}) "
                        f"cannot lie in the {sources[k]} column"
                    )
                R._place(cfg, state, seat, c, k)
    for number, count in (crystals or {}).items():
        c = card_index(number)
        if not 1 <= number <= NUM_SPELLS or not _in_layout(state, c):
            raise ValueError(f"elementum: crystals on card {number}, which lies in no layout")
        if not 0 <= count <= R.CARD_SLOTS[c] or R._is_imitation(cfg, int(state[R.S.loc + c]) - R.LOC_LAYOUT):
            raise ValueError(
                f"elementum: card {number} ({CARD_TABLE[c].name}) takes at most {int(R.CARD_SLOTS[c])} crystals"
                + (" and the imitation's none" if players == 1 else "")
            )
        state[R.S.cryst + c] = count
    if overload is not None:
        holder = R.IMITATION if overload == "imitation" and players == 1 else overload
        if not isinstance(holder, (int, np.integer)) or not 0 <= holder < max(players, 2):
            raise ValueError(f"elementum: overload must be a player index (or 'imitation' solo), got {overload!r}")
        state[R.S.overload] = holder
        state[R.S.loc + OVERLOAD] = R.LOC_BESIDE + holder
    for number, owner in (tie_breakers or {}).items():
        field = {51: R.S.mark_bifarius, 36: R.S.mark_speculum}.get(number)
        if field is None:
            raise ValueError(f"elementum: only cards 51 (Bifarius) and 36 (Speculum) break ties, got {number}")
        state[field] = owner
    return cfg, state


def score(
    layouts: Sequence[Layout],
    crystals: Mapping[int, int] | None = None,
    sources: Sequence[str] = ELEMENTS,
    overload: int | str | None = None,
    tie_breakers: Mapping[int, int] | None = None,
    imitation: Layout | None = None,
) -> ScoreCard:
    """Scores finished layouts exactly as the game does.

    ``layouts``: one per player, each four columns of card numbers (top to bottom)
    in the order of ``sources``, or a mapping from element name to column.
    ``crystals``: card number -> crystals on it. ``overload``: the player holding
    the Overload (``"imitation"`` in the solo game). ``tie_breakers``: card number
    (51 Bifarius, or 36 Speculum that copied it) -> the player who kept it as
    tie-breaker. ``imitation``: the solo imitation's layout (with one layout).
    Commodum, Imitari and Qui Fieri choose what scores most (ruling 4).
    """
    cfg, state = build_state(layouts, crystals, sources, overload, tie_breakers, imitation)
    score_all(cfg, state)
    return score_card(cfg, state)


def score_card(cfg: np.ndarray, state: np.ndarray) -> ScoreCard:
    """The breakdown of a scored kernel state (after ``scoring.score_all``)."""
    names = [ELEMENTS[int(state[R.S.source + k])] for k in range(R.NUM_COLUMNS)]
    rows = []
    players = int(cfg[R.C.players])
    for seat in range(players):
        for k, column in enumerate(layout_columns(state, seat)):
            for row, c in enumerate(column):
                rows.append({
                    "player": seat, "column": k + 1, "element": names[k], "row": row + 1,
                    "card": c + 1, "name": CARD_TABLE[c].name, "crystals": int(state[R.S.cryst + c]),
                    "points": int(state[R.S.points + c]), "note": _note(state, seat, c),
                })
        if state[R.S.overload] == seat:
            rows.append({"player": seat, "column": 0, "element": "", "row": 0, "card": OVERLOAD + 1,
                         "name": "Overload", "crystals": 0, "points": -OVERLOAD_PENALTY, "note": ""})
    columns = ["player", "column", "element", "row", "card", "name", "crystals", "points", "note"]
    totals = [int(state[R.S.score + p]) for p in range(players)]
    return ScoreCard(totals=totals, cards=pd.DataFrame(rows, columns=columns))


def _note(state, seat: int, c: int) -> str:
    if c == COMMODUM_CARD and state[R.S.halves + seat] >= 0:
        return f"half of {int(state[R.S.halves + seat]) + 1}"
    if c == IMITARI_CARD and state[R.S.imitates + seat] >= 0:
        return f"as {int(state[R.S.imitates + seat]) + 1}"
    if c == QUI_FIERI_CARD:
        helped = [int(state[f + seat]) + 1 for f in (R.S.qf_a, R.S.qf_b) if state[f + seat] >= 0]
        if helped:
            return "helps " + " ".join(map(str, helped))
    return ""


def score_state(state) -> ScoreCard:
    """The score card of an OpenSpiel ``elementum`` state (its layouts as they lie)."""
    game = state.get_game()
    array = state.array.copy()
    score_all(game.cfg, array)
    return score_card(game.cfg, array)


def result_card(state) -> tuple[list[str], list[int], str | None]:
    """What a finished game ends with in words (``elements_ai.play``): the score card's
    lines, each seat's points (the returns are each score less the mean) and, played
    alone, the rank the score earns."""
    from .strings import score_lines, solo_rank

    game = state.get_game()
    points = [int(state.array[R.S.score + p]) for p in range(game.num_players())]
    return score_lines(game.cfg, state.array), points, solo_rank(points[0]) if len(points) == 1 else None
