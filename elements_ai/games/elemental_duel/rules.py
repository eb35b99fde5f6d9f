"""Elemental Duel: the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

Cards (ids 0-12, the same set for both players): element ``c // 3`` (0 plant,
1 water, 2 fire, 3 darkness) with value ``c % 3 + 1``; 12 is light (element 4, no
value). Territory kinds (ids 0-5, the chance outcomes of a draw): type ``k // 2``
(0 forest, 1 spring, 2 volcano) and star ``k % 2``. A territory type and the
regular element that turns it over share their index (plant-forest, water-spring,
fire-volcano).

The configuration ``cfg`` and the state (int16) are laid out by ``C`` and ``S``
below, named pieces whose tables close this docstring; the tensors by ``OBS`` and
``INFO``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range
from ...core.layout import state_layout, tensor_layout

NUM_CARDS = 13
LIGHT = 12
DARKNESS = 3  # element index of darkness
LIGHT_ELEMENT = 4
VALUES = 3  # cards of each regular element, valued 1..3
NUM_KINDS = 6
NUM_TYPES = 3
NUM_TERRITORIES = 12
FIGHT_HIDDEN, FIGHT_SHOWN = 13, 14
NUM_ACTIONS = 15
DRAW = 2  # S.result of a drawn game

# Territories of each kind in the stack: per type three plain ones and one star.
STACK = (3, 1, 3, 1, 3, 1)

PH_DRAW, PH_HIDE, PH_SHOW, PH_DEFEND, PH_CHOOSE, PH_OVER = 0, 1, 2, 3, 4, 5
NUM_PHASES = 6
END_NONE, END_STARS, END_FOUR, END_TYPES, END_ICONS, END_DRAW = 0, 1, 2, 3, 4, 5

# One finished duel in the state's log.
LOG = state_layout(
    kind=(1, "kind of the territory contested"),
    hidden=(1, "the attacker's face-down card"),
    shown=(1, "the attacker's face-up card"),
    defended=(1, "the defender's card"),
    fought=(1, "which attacker card fought: FIGHT_HIDDEN or FIGHT_SHOWN"),
)
LOG_FIELDS = LOG._size

C = state_layout(duels=(1, "territories contested, one duel each (num_territories, n)"))

S = state_layout(
    player=(1, "next to act: 0, 1, CHANCE (-1) or TERMINAL (-4)"),
    first=(1, "first attacker; -1 before it is drawn"),
    attacker=(1, "attacker of the current or next duel; -1 before the first draw"),
    phase=(1, "PH_DRAW, PH_HIDE, PH_SHOW, PH_DEFEND, PH_CHOOSE or PH_OVER"),
    duels=(1, "duels finished"),
    contested=(1, "kind of the contested territory; -1 between duels"),
    hidden=(1, "the attacker's face-down card in the current duel; -1 none"),
    shown=(1, "the attacker's face-up card; -1 none"),
    defended=(1, "the defender's face-down card; -1 none"),
    result=(1, "winner 0 or 1, DRAW, or -1 while the game goes on"),
    how=(1, "how the game ended: END_* (END_NONE while it goes on)"),
    stack=(NUM_KINDS, "territories of kind k not drawn yet (of all 12)"),
    hand=((2, NUM_CARDS), "1 while player p has not fought with card c (cards on the table still count)"),
    held=((2, NUM_KINDS, 2), "territories of kind k won by p, face up (t=0) or turned over (t=1)"),
    log=(lambda params: (params["num_territories"], LOG_FIELDS), "the i-th finished duel, a LOG record; "
         "the attacker of duel i is first ^ (i & 1)"),
)

# One finished duel in the information-state history: territory kind, attacker
# (observer, opponent), face-up card, which card fought (hidden, shown), attacker's
# fighting card, defender's card, the observer's own face-down card when the
# observer attacked, winner (observer, opponent), turned over.
DUEL = state_layout(
    kind=(NUM_KINDS, "territory kind"),
    attacker=(2, "attacker: observer, opponent"),
    shown=(NUM_CARDS, "face-up card"),
    fought=(2, "which card fought: hidden, shown"),
    attacker_card=(NUM_CARDS, "the attacker's fighting card"),
    defended=(NUM_CARDS, "the defender's card"),
    own_hidden=(NUM_CARDS, "the observer's own face-down card when the observer attacked"),
    winner=(2, "winner: observer, opponent"),
    turned=(1, "turned over"),
)
DUEL_FEATURES = DUEL._size

# Tensor pieces. Per-player pieces are ordered (observer, opponent) so that one
# network serves both seats; "observer" carries the absolute seat.
OBS = tensor_layout(
    C._size,
    observer=2,
    attacker=2,
    phase=NUM_PHASES,
    hands=(2, NUM_CARDS),
    played=(2, NUM_CARDS),
    held=(2, NUM_KINDS, 2),
    icons=(2, NUM_TYPES),
    contested=NUM_KINDS,
    stack=NUM_KINDS,
    duels_left=1,
    face_up=NUM_CARDS,
    own_face_down=NUM_CARDS,
)
INFO = OBS._extend(
    first_attacker=2,
    history=lambda params: (params["num_territories"], DUEL_FEATURES),
)
CFG_SIZE = INFO._end

__doc__ += f"""
Configuration ``cfg``, ``C`` (then the cfg slots of ``OBS`` and ``INFO``)::

{C._table("C")}

State ``S``::

{S._table()}

A duel in ``S.log``, ``LOG``::

{LOG._table("LOG")}
"""


# --- configuration ---------------------------------------------------------------

PARAMS = {
    "num_territories": Param(
        NUM_TERRITORIES,
        "territories contested (the first n of the shuffled 12), one duel each",
        int_range(1, NUM_TERRITORIES),
    ),
}

# Named parameter sets: every generic check runs on each.
VARIANTS = {
    "default": {},
    "short": {"num_territories": 3},
    "one_duel": {"num_territories": 1},
}


def configure(params: dict) -> Config:
    n = params["num_territories"]
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[C.duels] = n
    state_pieces = S._place(cfg, params)
    return Config(
        cfg=cfg,
        num_players=2,
        num_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_KINDS,
        state_size=state_pieces[-1].stop,
        state_pieces=state_pieces,
        obs_pieces=OBS._place(cfg, params),
        info_pieces=INFO._place(cfg, params),
        min_utility=-1.0,
        max_utility=1.0,
        max_game_length=4 * n,
        max_chance_nodes=1 + n,
    )


# --- card and territory facts ----------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def element(card):
    return LIGHT_ELEMENT if card == LIGHT else card // VALUES


@nb.njit(cache=True, _nrt=False)
def beats(card, other):
    """Does ``card`` win against ``other`` outright (not a tie)?"""
    e, f = element(card), element(other)
    if e == f:
        # Same element: the higher value wins; light against light is a tie.
        return e != LIGHT_ELEMENT and card > other
    if e == LIGHT_ELEMENT:
        return f == DARKNESS
    if e == DARKNESS:
        return f < DARKNESS
    if f == DARKNESS:
        return False
    if f == LIGHT_ELEMENT:
        return True
    # fire > plant > water > fire: each regular beats the next one in id order.
    return f == (e + 1) % NUM_TYPES


@nb.njit(cache=True, _nrt=False)
def turns_over(card, kind):
    """Is a territory of ``kind`` turned over when won with ``card``?"""
    e = element(card)
    return e == LIGHT_ELEMENT or e == kind // 2


@nb.njit(cache=True, _nrt=False)
def duel_winner(attacker, attacker_card, defender_card):
    """The player who takes the territory; a tie goes to the defender."""
    return attacker if beats(attacker_card, defender_card) else 1 - attacker


@nb.njit(cache=True, _nrt=False)
def icons(state, player, kind_type):
    """Icons of one type held by ``player``: 1 per territory, 2 when turned over."""
    total = 0
    for star in range(2):
        base = S.held + 2 * NUM_KINDS * player + 2 * (2 * kind_type + star)
        total += state[base] + 2 * state[base + 1]
    return total


@nb.njit(cache=True, _nrt=False)
def held(state, player, kind):
    return state[S.held + 2 * NUM_KINDS * player + 2 * kind] + state[S.held + 2 * NUM_KINDS * player + 2 * kind + 1]


@nb.njit(cache=True, _nrt=False)
def type_winner(state, kind_type):
    """Who wins a type at the end: more icons, else the star's holder, else -1."""
    a, b = icons(state, 0, kind_type), icons(state, 1, kind_type)
    if a != b:
        return 0 if a > b else 1
    star = 2 * kind_type + 1
    if held(state, 0, star) > 0:
        return 0
    if held(state, 1, star) > 0:
        return 1
    return -1


# --- rules -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S.player] = CHANCE
    state[S.first] = -1
    state[S.attacker] = -1
    state[S.phase] = PH_DRAW
    state[S.contested] = -1
    state[S.hidden] = -1
    state[S.shown] = -1
    state[S.defended] = -1
    state[S.result] = -1
    for k in range(NUM_KINDS):
        state[S.stack + k] = STACK[k]
    for k in range(2 * NUM_CARDS):
        state[S.hand + k] = 1


@nb.njit(cache=True, _nrt=False)
def current_player(cfg, state):
    return state[S.player]


@nb.njit(cache=True, _nrt=False)
def legal_mask(cfg, state, mask):
    fill(mask, False)
    player = state[S.player]
    if player < 0:
        return
    phase = state[S.phase]
    if phase == PH_CHOOSE:
        mask[FIGHT_HIDDEN] = True
        mask[FIGHT_SHOWN] = True
        return
    hand = S.hand + NUM_CARDS * player
    for c in range(NUM_CARDS):
        mask[c] = state[hand + c] == 1
    if phase == PH_SHOW:
        mask[state[S.hidden]] = False


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    fill(probs, 0.0)
    if state[S.player] != CHANCE:
        return
    if state[S.first] < 0:
        probs[0] = 0.5
        probs[1] = 0.5
        return
    left = 0
    for k in range(NUM_KINDS):
        left += state[S.stack + k]
    for k in range(NUM_KINDS):
        probs[k] = state[S.stack + k] / left


@nb.njit(cache=True, _nrt=False)
def instant_win(state, player):
    """END_STARS or END_FOUR if ``player`` now holds all 3 stars or 4 of a type."""
    stars = 0
    for t in range(NUM_TYPES):
        stars += held(state, player, 2 * t + 1)
    if stars == NUM_TYPES:
        return END_STARS
    for t in range(NUM_TYPES):
        if held(state, player, 2 * t) + held(state, player, 2 * t + 1) == 4:
            return END_FOUR
    return END_NONE


@nb.njit(cache=True, _nrt=False)
def _finish(state, winner, how):
    state[S.result] = winner
    state[S.how] = how
    state[S.phase] = PH_OVER
    state[S.player] = TERMINAL


@nb.njit(cache=True, _nrt=False)
def _score_end(state):
    """After the last duel: two types win; otherwise more icons; otherwise a draw."""
    won0 = 0
    won1 = 0
    for t in range(NUM_TYPES):
        w = type_winner(state, t)
        if w == 0:
            won0 += 1
        elif w == 1:
            won1 += 1
    if won0 >= 2 or won1 >= 2:
        _finish(state, 0 if won0 >= 2 else 1, END_TYPES)
        return
    total0 = 0
    total1 = 0
    for t in range(NUM_TYPES):
        total0 += icons(state, 0, t)
        total1 += icons(state, 1, t)
    if total0 == total1:
        _finish(state, DRAW, END_DRAW)
    else:
        _finish(state, 0 if total0 > total1 else 1, END_ICONS)


@nb.njit(cache=True, _nrt=False)
def _resolve(cfg, state, fought):
    attacker = state[S.attacker]
    defender = 1 - attacker
    kind = state[S.contested]
    attacker_card = state[S.hidden] if fought == FIGHT_HIDDEN else state[S.shown]
    defender_card = state[S.defended]
    log = S.log + LOG_FIELDS * state[S.duels]
    state[log + LOG.kind] = kind
    state[log + LOG.hidden] = state[S.hidden]
    state[log + LOG.shown] = state[S.shown]
    state[log + LOG.defended] = defender_card
    state[log + LOG.fought] = fought
    # Both fighting cards stay face up on the table; the other goes back to hand.
    state[S.hand + NUM_CARDS * attacker + attacker_card] = 0
    state[S.hand + NUM_CARDS * defender + defender_card] = 0
    winner = duel_winner(attacker, attacker_card, defender_card)
    card = attacker_card if winner == attacker else defender_card
    turned = 1 if turns_over(card, kind) else 0
    state[S.held + 2 * NUM_KINDS * winner + 2 * kind + turned] += 1
    state[S.duels] += 1
    state[S.contested] = -1
    state[S.hidden] = -1
    state[S.shown] = -1
    state[S.defended] = -1
    # Only the duel's winner gained a territory, so only they can have won now.
    how = instant_win(state, winner)
    if how != END_NONE:
        _finish(state, winner, how)
    elif state[S.duels] == cfg[C.duels]:
        _score_end(state)
    else:
        state[S.attacker] = defender
        state[S.phase] = PH_DRAW
        state[S.player] = CHANCE


@nb.njit(cache=True, _nrt=False)
def apply(cfg, state, action):
    player = state[S.player]
    if player == CHANCE:
        if state[S.first] < 0:
            state[S.first] = action
            state[S.attacker] = action
            return
        state[S.stack + action] -= 1
        state[S.contested] = action
        state[S.phase] = PH_HIDE
        state[S.player] = state[S.attacker]
        return
    phase = state[S.phase]
    if phase == PH_HIDE:
        state[S.hidden] = action
        state[S.phase] = PH_SHOW
    elif phase == PH_SHOW:
        state[S.shown] = action
        state[S.phase] = PH_DEFEND
        state[S.player] = 1 - player
    elif phase == PH_DEFEND:
        state[S.defended] = action
        state[S.phase] = PH_CHOOSE
        state[S.player] = 1 - player
    else:
        _resolve(cfg, state, action)


@nb.njit(cache=True, _nrt=False)
def returns(cfg, state, out):
    fill(out, 0.0)
    result = state[S.result]
    if state[S.player] != TERMINAL or result == DRAW:
        return
    out[result] = 1.0
    out[1 - result] = -1.0
