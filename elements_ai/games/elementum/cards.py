"""Elementum's 55 cards as a table, and the arrays the kernel reads.

One row per card, in card-number order: number, name, element, kind, the element
parameters X and Y (``-`` when the kind has none), reinforcement slots, and whether
the card is removed in a 2-player game and (by default) in the solo game. Check it
against the card list of the specification line by line; every other table in the
package is derived from this one.

>>> CARD_TABLE[2][:6]
(3, 'Collatio', 'fire', 'collatio', 'water', 'air')
>>> [c.number for c in CARD_TABLE if c.removed_2p]
[2, 9, 13, 15, 22, 23, 28, 37, 38, 41, 50, 51]
>>> int(CARD_KIND[card_index(24)]) == QUI_FIERI, int(CARD_SLOTS[card_index(39)])
(True, 3)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

ELEMENTS = ("fire", "earth", "water", "air")
FIRE, EARTH, WATER, AIR = range(len(ELEMENTS))
NUM_ELEMENTS = len(ELEMENTS)
UNIVERSAL = NUM_ELEMENTS  # element of the two universal cards: their symbol is their column's
NO_ELEMENT = NUM_ELEMENTS + 1  # the Overload, which never lies in a layout

# Kinds. The first nine repeat once per element (card numbers 13e+1 .. 13e+9).
KINDS = (
    "colligit", "collatio", "vicinari", "propter", "praestantia", "ambientia", "duplex", "lapis vires",
    "eversor", "vitium", "vir dives", "commodum", "multus", "qui fieri", "induratus", "speculum",
    "rectus", "imitari", "acervus", "mutare", "iniquus", "bifarius", "velocitatis", "additicius", "overload",
)
(
    COLLIGIT, COLLATIO, VICINARI, PROPTER, PRAESTANTIA, AMBIENTIA, DUPLEX, LAPIS,
    EVERSOR, VITIUM, VIR_DIVES, COMMODUM, MULTUS, QUI_FIERI, INDURATUS, SPECULUM,
    RECTUS, IMITARI, ACERVUS, MUTARE, INIQUUS, BIFARIUS, VELOCITATIS, ADDITICIUS, OVERLOAD_KIND,
) = range(len(KINDS))
NUM_KINDS = len(KINDS)

# Kinds whose effect happens once, when the card is placed ("lightning" cards).
IMMEDIATE_KINDS = (LAPIS, EVERSOR, VITIUM, SPECULUM, MUTARE, BIFARIUS, VELOCITATIS, ADDITICIUS)
# Kinds marked "during scoring" (the chalice): the texts Imitari may copy.
DURING_SCORING_KINDS = (VIR_DIVES, COMMODUM, MULTUS, RECTUS, INIQUUS)


class Card(NamedTuple):
    number: int
    name: str
    element: str
    kind: str
    x: str
    y: str
    slots: int
    removed_2p: bool
    removed_solo: bool


_ = "-"
# fmt: off
CARD_TABLE = tuple(Card(*row) for row in (
    # no  name            element      kind           X        Y        slots 2p     solo
    (1,  "Colligit",     "fire",      "colligit",    "water", _,       1,    False, False),
    (2,  "Colligit",     "fire",      "colligit",    "earth", _,       1,    True,  False),
    (3,  "Collatio",     "fire",      "collatio",    "water", "air",   0,    False, False),
    (4,  "Vicinari",     "fire",      "vicinari",    "earth", "air",   1,    False, False),
    (5,  "Propter",      "fire",      "propter",     "air",   _,       1,    False, False),
    (6,  "Praestantia",  "fire",      "praestantia", "earth", _,       1,    False, False),
    (7,  "Ambientia",    "fire",      "ambientia",   _,       _,       1,    False, False),
    (8,  "Duplex",       "fire",      "duplex",      _,       _,       1,    False, False),
    (9,  "Lapis Vires",  "fire",      "lapis vires", _,       _,       0,    True,  False),
    (10, "Eversor",      "fire",      "eversor",     _,       _,       0,    False, True),
    (11, "Vitium",       "fire",      "vitium",      _,       _,       0,    False, True),
    (12, "Vir Dives",    "fire",      "vir dives",   "earth", "air",   0,    False, False),
    (13, "Commodum",     "fire",      "commodum",    _,       _,       0,    True,  False),
    (14, "Colligit",     "earth",     "colligit",    "air",   _,       1,    False, False),
    (15, "Colligit",     "earth",     "colligit",    "fire",  _,       1,    True,  False),
    (16, "Collatio",     "earth",     "collatio",    "water", "fire",  0,    False, False),
    (17, "Vicinari",     "earth",     "vicinari",    "water", "fire",  1,    False, False),
    (18, "Propter",      "earth",     "propter",     "water", _,       1,    False, False),
    (19, "Praestantia",  "earth",     "praestantia", "fire",  _,       1,    False, False),
    (20, "Ambientia",    "earth",     "ambientia",   _,       _,       1,    False, False),
    (21, "Duplex",       "earth",     "duplex",      _,       _,       1,    False, False),
    (22, "Lapis Vires",  "earth",     "lapis vires", _,       _,       0,    True,  False),
    (23, "Multus",       "earth",     "multus",      _,       _,       0,    True,  False),
    (24, "Qui Fieri",    "earth",     "qui fieri",   _,       _,       1,    False, False),
    (25, "Vir Dives",    "earth",     "vir dives",   "fire",  "air",   0,    False, False),
    (26, "Induratus",    "earth",     "induratus",   _,       _,       0,    False, True),
    (27, "Colligit",     "water",     "colligit",    "earth", _,       1,    False, False),
    (28, "Colligit",     "water",     "colligit",    "air",   _,       1,    True,  False),
    (29, "Collatio",     "water",     "collatio",    "earth", "air",   0,    False, False),
    (30, "Vicinari",     "water",     "vicinari",    "fire",  "air",   1,    False, False),
    (31, "Propter",      "water",     "propter",     "fire",  _,       1,    False, False),
    (32, "Praestantia",  "water",     "praestantia", "air",   _,       1,    False, False),
    (33, "Ambientia",    "water",     "ambientia",   _,       _,       1,    False, False),
    (34, "Duplex",       "water",     "duplex",      _,       _,       1,    False, False),
    (35, "Lapis Vires",  "water",     "lapis vires", _,       _,       0,    False, False),
    (36, "Speculum",     "water",     "speculum",    _,       _,       0,    False, True),
    (37, "Rectus",       "water",     "rectus",      _,       _,       0,    True,  False),
    (38, "Imitari",      "water",     "imitari",     _,       _,       0,    True,  False),
    (39, "Acervus",      "water",     "acervus",     _,       _,       3,    False, False),
    (40, "Colligit",     "air",       "colligit",    "fire",  _,       1,    False, False),
    (41, "Colligit",     "air",       "colligit",    "water", _,       1,    True,  False),
    (42, "Collatio",     "air",       "collatio",    "fire",  "earth", 0,    False, False),
    (43, "Vicinari",     "air",       "vicinari",    "earth", "water", 1,    False, False),
    (44, "Propter",      "air",       "propter",     "earth", _,       1,    False, False),
    (45, "Praestantia",  "air",       "praestantia", "water", _,       1,    False, False),
    (46, "Ambientia",    "air",       "ambientia",   _,       _,       1,    False, False),
    (47, "Duplex",       "air",       "duplex",      _,       _,       1,    False, False),
    (48, "Lapis Vires",  "air",       "lapis vires", _,       _,       0,    False, False),
    (49, "Mutare",       "air",       "mutare",      _,       _,       0,    False, False),
    (50, "Iniquus",      "air",       "iniquus",     _,       _,       0,    True,  False),
    (51, "Bifarius",     "air",       "bifarius",    _,       _,       0,    True,  False),
    (52, "Acervus",      "air",       "acervus",     _,       _,       3,    False, False),
    (53, "Velocitatis",  "universal", "velocitatis", _,       _,       0,    False, False),
    (54, "Additicius",   "universal", "additicius",  _,       _,       0,    False, False),
    (55, "Overload",     "none",      "overload",    _,       _,       0,    False, False),
))
# fmt: on
del _

# Game facts the card count rests on (rulebook, Setup).
ROUND_SIZES = {1: (6, 5, 5), 2: (6, 6, 6), 3: (6, 5, 5), 4: (6, 6)}  # cards per hand, by round
BOXED = 3  # cards put back in the box unseen
TOTAL_CRYSTALS = 14

# The numbers printed on the cards (RULES.md's table).
COLLIGIT_BONUS_EVERY, COLLIGIT_BONUS = 3, 2  # reinforced Colligit: + 2 per 3 symbols
SET_POINTS = 2  # Collatio and Multus: per complete set
VICINARI_POINTS, VICINARI_REINFORCED = 5, 8
PROPTER_POINTS, PROPTER_REINFORCED = 3, 6
PRAESTANTIA_POINTS, PRAESTANTIA_REINFORCED = 6, 10
AMBIENTIA_BASIC = (0, -1, -1, 3, 5)  # by the number of cards around it (1 to 4)
AMBIENTIA_REINFORCED = (0, 1, 1, 6, 9)
VIR_DIVES_STEPS = ((10, 9), (8, 5), (6, 3))  # (symbols at least, points), best first
ROWS_MAJORITY_POINTS = 6  # Rectus, Iniquus
ACERVUS_POINTS = (0, 2, 7, 13)  # by crystals on it
DUPLEX_SYMBOLS, DUPLEX_REINFORCED_SYMBOLS = 2, 4
OVERLOAD_PENALTY = 5

NUM_SPELLS = 54  # cards 1..54 can lie in layouts, hands and the pool
NUM_CARDS = len(CARD_TABLE)  # 55 with the Overload
OVERLOAD = NUM_CARDS - 1  # card index of the Overload (card 55)
SOLO_EXTRA_REMOVED = 4  # the solo game removes 4 cards besides the 2-player ones


def card_index(number: int) -> int:
    """The kernel's index of card ``number`` (1..55)."""
    return number - 1


def _element_index(name: str) -> int:
    if name == "-":
        return -1
    return {**{e: i for i, e in enumerate(ELEMENTS)}, "universal": UNIVERSAL, "none": NO_ELEMENT}[name]


def _check_table() -> None:
    """The table's own consistency: numbers in order, elements in blocks of 13."""
    for i, card in enumerate(CARD_TABLE):
        assert card.number == i + 1, card
        assert card.kind in KINDS, card
        if card.number <= 4 * 13:
            assert card.element == ELEMENTS[(card.number - 1) // 13], card
        slots = {"acervus": 3}.get(card.kind, 1 if card.kind in (
            "colligit", "vicinari", "propter", "praestantia", "ambientia", "duplex", "qui fieri") else 0)
        assert card.slots == slots, card


_check_table()

# Arrays read by the kernel (numba freezes module-level arrays as constants).
CARD_ELEMENT = np.array([_element_index(c.element) for c in CARD_TABLE], np.int64)
CARD_KIND = np.array([KINDS.index(c.kind) for c in CARD_TABLE], np.int64)
CARD_X = np.array([_element_index(c.x) for c in CARD_TABLE], np.int64)
CARD_Y = np.array([_element_index(c.y) for c in CARD_TABLE], np.int64)
CARD_SLOTS = np.array([c.slots for c in CARD_TABLE], np.int64)
CARD_IMMEDIATE = np.array([CARD_KIND[i] in IMMEDIATE_KINDS for i in range(NUM_CARDS)], np.bool_)
CARD_DURING_SCORING = np.array([CARD_KIND[i] in DURING_SCORING_KINDS for i in range(NUM_CARDS)], np.bool_)
REMOVED_2P = tuple(c.number for c in CARD_TABLE if c.removed_2p)
REMOVED_SOLO_DEFAULT = tuple(c.number for c in CARD_TABLE if c.removed_solo)

# Cards the rules name.
INDURATUS = card_index(26)
SPECULUM_CARD = card_index(36)
BIFARIUS_CARD = card_index(51)
COMMODUM_CARD = card_index(13)
IMITARI_CARD = card_index(38)
QUI_FIERI_CARD = card_index(24)


def card_label(index: int) -> str:
    """``"24 Qui Fieri"``: a card's number and name, for people."""
    card = CARD_TABLE[index]
    return f"{card.number} {card.name}"
