"""Elemental Duel: the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

Cards (ids 0-12, the same set for both players): element ``c // 3`` (0 plant,
1 water, 2 fire, 3 darkness) with value ``c % 3 + 1``; 12 is light (element 4, no
value). Territory kinds (ids 0-5, the chance outcomes of a draw): type ``k // 2``
(0 forest, 1 spring, 2 volcano) and star ``k % 2``. A territory type and the
regular element that turns it over share their index (plant-forest, water-spring,
fire-volcano).

Configuration ``cfg`` (int64), built by ``configure``::

    C_DUELS       territories contested, one duel each (num_territories, n)

State (int16)::

    S_PLAYER          next to act: 0, 1, CHANCE (-1) or TERMINAL (-4)
    S_FIRST           first attacker; -1 before it is drawn
    S_ATTACKER        attacker of the current or next duel; -1 before the first draw
    S_PHASE           PH_DRAW, PH_HIDE, PH_SHOW, PH_DEFEND, PH_CHOOSE or PH_OVER
    S_DUELS           duels finished
    S_CONTESTED       kind of the contested territory; -1 between duels
    S_HIDDEN          the attacker's face-down card in the current duel; -1 none
    S_SHOWN           the attacker's face-up card; -1 none
    S_DEFENDED        the defender's face-down card; -1 none
    S_RESULT          winner 0 or 1, DRAW, or -1 while the game goes on
    S_HOW             how the game ended: END_* (END_NONE while it goes on)
    S_STACK + k       territories of kind k not drawn yet (of all 12)
    S_HAND + 13p + c  1 while player p has not fought with card c (the cards on the
                      table in the current duel still count as held)
    S_HELD + 12p + 2k + t   territories of kind k won by p, face up (t=0) or
                            turned over (t=1)
    S_LOG + 5i + f    the i-th finished duel, f in LOG_KIND, LOG_HIDDEN, LOG_SHOWN,
                      LOG_DEFENDED, LOG_FOUGHT (FIGHT_HIDDEN or FIGHT_SHOWN); the
                      attacker of duel i is S_FIRST ^ (i & 1)

11 header entries + 6 + 26 + 24 + 5n: 127 entries (254 bytes) for n = 12.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy, fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range
from ...core.layout import tensor_layout
from ...core.rng import uniform

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
DRAW = 2  # S_RESULT of a drawn game

# Territories of each kind in the stack: per type three plain ones and one star.
STACK = (3, 1, 3, 1, 3, 1)

PH_DRAW, PH_HIDE, PH_SHOW, PH_DEFEND, PH_CHOOSE, PH_OVER = 0, 1, 2, 3, 4, 5
NUM_PHASES = 6
END_NONE, END_STARS, END_FOUR, END_TYPES, END_ICONS, END_DRAW = 0, 1, 2, 3, 4, 5

LOG_KIND, LOG_HIDDEN, LOG_SHOWN, LOG_DEFENDED, LOG_FOUGHT = 0, 1, 2, 3, 4
LOG_FIELDS = 5

C_DUELS, C_SIZE = 0, 1

S_PLAYER, S_FIRST, S_ATTACKER, S_PHASE, S_DUELS, S_CONTESTED = 0, 1, 2, 3, 4, 5
S_HIDDEN, S_SHOWN, S_DEFENDED, S_RESULT, S_HOW = 6, 7, 8, 9, 10
S_STACK = 11
S_HAND = S_STACK + NUM_KINDS
S_HELD = S_HAND + 2 * NUM_CARDS
S_LOG = S_HELD + 2 * 2 * NUM_KINDS

# One finished duel in the information-state history, field by field: territory
# kind, attacker (observer, opponent), face-up card, which card fought (hidden,
# shown), attacker's fighting card, defender's card, the observer's own face-down
# card when the observer attacked, winner (observer, opponent), turned over.
D_KIND = 0
D_ATTACKER = D_KIND + NUM_KINDS
D_SHOWN = D_ATTACKER + 2
D_FOUGHT = D_SHOWN + NUM_CARDS
D_ATTACKER_CARD = D_FOUGHT + 2
D_DEFENDED = D_ATTACKER_CARD + NUM_CARDS
D_OWN_HIDDEN = D_DEFENDED + NUM_CARDS
D_WINNER = D_OWN_HIDDEN + NUM_CARDS
D_TURNED = D_WINNER + 2
DUEL_FEATURES = D_TURNED + 1

# Tensor pieces. Per-player pieces are ordered (observer, opponent) so that one
# network serves both seats; "observer" carries the absolute seat.
OBS = tensor_layout(
    C_SIZE,
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
    cfg[C_DUELS] = n
    return Config(
        cfg=cfg,
        num_players=2,
        num_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_KINDS,
        state_size=S_LOG + LOG_FIELDS * n,
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
        base = S_HELD + 2 * NUM_KINDS * player + 2 * (2 * kind_type + star)
        total += state[base] + 2 * state[base + 1]
    return total


@nb.njit(cache=True, _nrt=False)
def held(state, player, kind):
    return state[S_HELD + 2 * NUM_KINDS * player + 2 * kind] + state[S_HELD + 2 * NUM_KINDS * player + 2 * kind + 1]


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
    state[S_PLAYER] = CHANCE
    state[S_FIRST] = -1
    state[S_ATTACKER] = -1
    state[S_PHASE] = PH_DRAW
    state[S_CONTESTED] = -1
    state[S_HIDDEN] = -1
    state[S_SHOWN] = -1
    state[S_DEFENDED] = -1
    state[S_RESULT] = -1
    for k in range(NUM_KINDS):
        state[S_STACK + k] = STACK[k]
    for k in range(2 * NUM_CARDS):
        state[S_HAND + k] = 1


@nb.njit(cache=True, _nrt=False)
def current_player(cfg, state):
    return state[S_PLAYER]


@nb.njit(cache=True, _nrt=False)
def legal_mask(cfg, state, mask):
    fill(mask, False)
    player = state[S_PLAYER]
    if player < 0:
        return
    phase = state[S_PHASE]
    if phase == PH_CHOOSE:
        mask[FIGHT_HIDDEN] = True
        mask[FIGHT_SHOWN] = True
        return
    hand = S_HAND + NUM_CARDS * player
    for c in range(NUM_CARDS):
        mask[c] = state[hand + c] == 1
    if phase == PH_SHOW:
        mask[state[S_HIDDEN]] = False


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    fill(probs, 0.0)
    if state[S_PLAYER] != CHANCE:
        return
    if state[S_FIRST] < 0:
        probs[0] = 0.5
        probs[1] = 0.5
        return
    left = 0
    for k in range(NUM_KINDS):
        left += state[S_STACK + k]
    for k in range(NUM_KINDS):
        probs[k] = state[S_STACK + k] / left


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
    state[S_RESULT] = winner
    state[S_HOW] = how
    state[S_PHASE] = PH_OVER
    state[S_PLAYER] = TERMINAL


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
    attacker = state[S_ATTACKER]
    defender = 1 - attacker
    kind = state[S_CONTESTED]
    attacker_card = state[S_HIDDEN] if fought == FIGHT_HIDDEN else state[S_SHOWN]
    defender_card = state[S_DEFENDED]
    log = S_LOG + LOG_FIELDS * state[S_DUELS]
    state[log + LOG_KIND] = kind
    state[log + LOG_HIDDEN] = state[S_HIDDEN]
    state[log + LOG_SHOWN] = state[S_SHOWN]
    state[log + LOG_DEFENDED] = defender_card
    state[log + LOG_FOUGHT] = fought
    # Both fighting cards stay face up on the table; the other goes back to hand.
    state[S_HAND + NUM_CARDS * attacker + attacker_card] = 0
    state[S_HAND + NUM_CARDS * defender + defender_card] = 0
    winner = duel_winner(attacker, attacker_card, defender_card)
    card = attacker_card if winner == attacker else defender_card
    turned = 1 if turns_over(card, kind) else 0
    state[S_HELD + 2 * NUM_KINDS * winner + 2 * kind + turned] += 1
    state[S_DUELS] += 1
    state[S_CONTESTED] = -1
    state[S_HIDDEN] = -1
    state[S_SHOWN] = -1
    state[S_DEFENDED] = -1
    # Only the duel's winner gained a territory, so only they can have won now.
    how = instant_win(state, winner)
    if how != END_NONE:
        _finish(state, winner, how)
    elif state[S_DUELS] == cfg[C_DUELS]:
        _score_end(state)
    else:
        state[S_ATTACKER] = defender
        state[S_PHASE] = PH_DRAW
        state[S_PLAYER] = CHANCE


@nb.njit(cache=True, _nrt=False)
def apply(cfg, state, action):
    player = state[S_PLAYER]
    if player == CHANCE:
        if state[S_FIRST] < 0:
            state[S_FIRST] = action
            state[S_ATTACKER] = action
            return
        state[S_STACK + action] -= 1
        state[S_CONTESTED] = action
        state[S_PHASE] = PH_HIDE
        state[S_PLAYER] = state[S_ATTACKER]
        return
    phase = state[S_PHASE]
    if phase == PH_HIDE:
        state[S_HIDDEN] = action
        state[S_PHASE] = PH_SHOW
    elif phase == PH_SHOW:
        state[S_SHOWN] = action
        state[S_PHASE] = PH_DEFEND
        state[S_PLAYER] = 1 - player
    elif phase == PH_DEFEND:
        state[S_DEFENDED] = action
        state[S_PHASE] = PH_CHOOSE
        state[S_PLAYER] = 1 - player
    else:
        _resolve(cfg, state, action)


@nb.njit(cache=True, _nrt=False)
def returns(cfg, state, out):
    fill(out, 0.0)
    result = state[S_RESULT]
    if state[S_PLAYER] != TERMINAL or result == DRAW:
        return
    out[result] = 1.0
    out[1 - result] = -1.0


# --- information-set sampling ------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def _draw_card(hand, exclude, rng):
    """A card drawn uniformly from the hand at ``hand`` (13 entries), not ``exclude``."""
    count = 0
    for c in range(NUM_CARDS):
        if hand[c] == 1 and c != exclude:
            count += 1
    k = int(uniform(rng, 0) * count)
    for c in range(NUM_CARDS):
        if hand[c] == 1 and c != exclude:
            if k == 0:
                return c
            k -= 1
    return -1


@nb.njit(cache=True)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``: unseen face-down cards redrawn.

    What ``player`` never saw: the opponent's face-down card in the current duel
    (the attacker's hidden card, or the defender's card before the fight), and the
    opponent's hidden card in each past duel the opponent attacked and fought with
    the face-up card. Each is drawn uniformly from the cards the opponent held then
    (all public: only fought cards leave a hand) other than the face-up card; the
    draws are independent, since a hidden card that went back to hand changes
    nothing anyone sees. The undrawn territories stay undrawn (future chance).
    """
    copy(out, state)
    other = 1 - player
    first = state[S_FIRST]
    hand = np.ones(NUM_CARDS, np.int64)  # the opponent's cards before duel i
    for i in range(state[S_DUELS]):
        log = S_LOG + LOG_FIELDS * i
        attacker = first ^ (i & 1)
        if attacker == other:
            if state[log + LOG_FOUGHT] == FIGHT_SHOWN:
                out[log + LOG_HIDDEN] = _draw_card(hand, state[log + LOG_SHOWN], rng)
                hand[state[log + LOG_SHOWN]] = 0
            else:
                hand[state[log + LOG_HIDDEN]] = 0
        else:
            hand[state[log + LOG_DEFENDED]] = 0
    phase = state[S_PHASE]
    if state[S_ATTACKER] == other and phase >= PH_SHOW and phase <= PH_CHOOSE:
        out[S_HIDDEN] = _draw_card(hand, state[S_SHOWN], rng)
    elif state[S_ATTACKER] == player and phase == PH_CHOOSE:
        out[S_DEFENDED] = _draw_card(hand, -1, rng)


# --- the rules baseline ----------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def _beaten(state, card, opponent):
    """How many of ``opponent``'s remaining cards ``card`` beats outright."""
    count = 0
    for c in range(NUM_CARDS):
        if state[S_HAND + NUM_CARDS * opponent + c] == 1 and beats(card, c):
            count += 1
    return count


@nb.njit(cache=True, _nrt=False)
def _pick(keys, allowed, rng):
    """A uniformly random index among the allowed ones with the highest key."""
    best = -1_000_000
    count = 0
    for c in range(keys.shape[0]):
        if allowed[c]:
            if keys[c] > best:
                best = keys[c]
                count = 1
            elif keys[c] == best:
                count += 1
    k = int(uniform(rng, 0) * count)
    for c in range(keys.shape[0]):
        if allowed[c] and keys[c] == best:
            if k == 0:
                return c
            k -= 1
    return -1


@nb.njit(cache=True)
def heuristic(cfg, state, player, rng):
    """A beginner's rules of thumb (reads only what ``player`` can see).

    1. Hide: the strongest card, i.e. the one that beats the most of the
       defender's remaining cards; among equals one that would turn the territory
       over (matching element or light).
    2. Show: the strongest remaining card of another element than the hidden one
       (any other card if all share it), so that one answer cannot stop both.
    3. Defend: stop the face-up card (beat it or tie, ties go to the defender) with
       the cheapest card that does, the one beating the fewest of the attacker's
       remaining cards, preferring one that turns the territory over; if none can,
       give up the weakest card.
    4. Fight: the defender probably stopped the face-up card, so fight with the
       card that beats more of the defender's cards able to stop it (of all its
       cards if none can); on equal counts, the hidden card.

    Remaining ties are broken at random from ``rng`` stream 0.
    """
    phase = state[S_PHASE]
    other = 1 - player
    kind = state[S_CONTESTED]
    hand = S_HAND + NUM_CARDS * player
    keys = np.zeros(NUM_CARDS, np.int64)
    allowed = np.zeros(NUM_CARDS, np.bool_)
    if phase == PH_HIDE or phase == PH_SHOW:
        hidden = state[S_HIDDEN]
        for c in range(NUM_CARDS):
            allowed[c] = state[hand + c] == 1 and c != hidden
            keys[c] = 2 * _beaten(state, c, other) + (1 if turns_over(c, kind) else 0)
        if phase == PH_SHOW:
            other_element = False
            for c in range(NUM_CARDS):
                if allowed[c] and element(c) != element(hidden):
                    other_element = True
            if other_element:
                for c in range(NUM_CARDS):
                    if element(c) == element(hidden):
                        allowed[c] = False
        return _pick(keys, allowed, rng)
    if phase == PH_DEFEND:
        shown = state[S_SHOWN]
        can_stop = False
        for c in range(NUM_CARDS):
            allowed[c] = state[hand + c] == 1
            if allowed[c] and not beats(shown, c):
                can_stop = True
        for c in range(NUM_CARDS):
            if can_stop:
                if beats(shown, c):
                    allowed[c] = False
                keys[c] = -2 * _beaten(state, c, other) + (1 if turns_over(c, kind) else 0)
            else:
                keys[c] = -_beaten(state, c, other)
        return _pick(keys, allowed, rng)
    # PH_CHOOSE: count the defender's likely answers each of the two cards beats.
    shown = state[S_SHOWN]
    hidden = state[S_HIDDEN]
    defender_hand = S_HAND + NUM_CARDS * other
    stoppers = 0
    for c in range(NUM_CARDS):
        if state[defender_hand + c] == 1 and not beats(shown, c):
            stoppers += 1
    by_hidden = 0
    by_shown = 0
    for c in range(NUM_CARDS):
        if state[defender_hand + c] == 1 and (stoppers == 0 or not beats(shown, c)):
            by_hidden += 1 if beats(hidden, c) else 0
            by_shown += 1 if beats(shown, c) else 0
    return FIGHT_SHOWN if by_shown > by_hidden else FIGHT_HIDDEN


# --- encoders --------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    other = 1 - player
    out[cfg[OBS.observer] + player] = 1.0
    attacker = state[S_ATTACKER]
    if attacker >= 0:
        out[cfg[OBS.attacker] + (0 if attacker == player else 1)] = 1.0
    out[cfg[OBS.phase] + state[S_PHASE]] = 1.0
    for q in range(2):
        p = player if q == 0 else other
        for c in range(NUM_CARDS):
            held_card = state[S_HAND + NUM_CARDS * p + c]
            out[cfg[OBS.hands] + NUM_CARDS * q + c] = held_card
            out[cfg[OBS.played] + NUM_CARDS * q + c] = 1 - held_card
        for j in range(2 * NUM_KINDS):
            out[cfg[OBS.held] + 2 * NUM_KINDS * q + j] = state[S_HELD + 2 * NUM_KINDS * p + j]
        for t in range(NUM_TYPES):
            out[cfg[OBS.icons] + NUM_TYPES * q + t] = icons(state, p, t)
    if state[S_CONTESTED] >= 0:
        out[cfg[OBS.contested] + state[S_CONTESTED]] = 1.0
    for j in range(NUM_KINDS):
        out[cfg[OBS.stack] + j] = state[S_STACK + j]
    out[cfg[OBS.duels_left]] = cfg[C_DUELS] - state[S_DUELS]
    if state[S_SHOWN] >= 0:
        out[cfg[OBS.face_up] + state[S_SHOWN]] = 1.0
    if attacker == player and state[S_HIDDEN] >= 0:
        out[cfg[OBS.own_face_down] + state[S_HIDDEN]] = 1.0
    elif attacker == other and state[S_DEFENDED] >= 0:
        out[cfg[OBS.own_face_down] + state[S_DEFENDED]] = 1.0


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    first = state[S_FIRST]
    if first >= 0:
        out[cfg[INFO.first_attacker] + (0 if first == player else 1)] = 1.0
    for i in range(state[S_DUELS]):
        log = S_LOG + LOG_FIELDS * i
        base = cfg[INFO.history] + DUEL_FEATURES * i
        attacker = first ^ (i & 1)
        kind = state[log + LOG_KIND]
        hidden = state[log + LOG_HIDDEN]
        shown = state[log + LOG_SHOWN]
        defended = state[log + LOG_DEFENDED]
        fought = state[log + LOG_FOUGHT]
        attacker_card = hidden if fought == FIGHT_HIDDEN else shown
        winner = duel_winner(attacker, attacker_card, defended)
        card = attacker_card if winner == attacker else defended
        out[base + D_KIND + kind] = 1.0
        out[base + D_ATTACKER + (0 if attacker == player else 1)] = 1.0
        out[base + D_SHOWN + shown] = 1.0
        out[base + D_FOUGHT + fought - FIGHT_HIDDEN] = 1.0
        out[base + D_ATTACKER_CARD + attacker_card] = 1.0
        out[base + D_DEFENDED + defended] = 1.0
        # The hidden card that went back to hand is known to its owner only.
        if attacker == player:
            out[base + D_OWN_HIDDEN + hidden] = 1.0
        out[base + D_WINNER + (0 if winner == player else 1)] = 1.0
        out[base + D_TURNED] = 1.0 if turns_over(card, kind) else 0.0


# --- strings ---------------------------------------------------------------------

ELEMENT_NAMES = ("plant", "water", "fire", "darkness")
CARD_NAMES = tuple(f"{ELEMENT_NAMES[c // VALUES]} {c % VALUES + 1}" for c in range(LIGHT)) + ("light",)
TYPE_NAMES = ("forest", "spring", "volcano")
KIND_NAMES = tuple(f"{TYPE_NAMES[k // 2]}{' star' if k % 2 else ''}" for k in range(NUM_KINDS))
PHASE_VERBS = {PH_HIDE: "hide", PH_SHOW: "show", PH_DEFEND: "defend"}
HOW_TEXT = {
    END_STARS: "all 3 star territories",
    END_FOUR: "all 4 territories of one type",
    END_TYPES: "2 of the 3 types",
    END_ICONS: "more icons in total",
}


def action_to_string(cfg, state, player: int, action: int) -> str:
    if player == CHANCE:
        if state[S_FIRST] < 0 and action in (0, 1):
            return f"first attacker {action}"
        if state[S_FIRST] >= 0 and 0 <= action < NUM_KINDS:
            return KIND_NAMES[action]
        raise ValueError(f"elemental_duel: {action} is not a chance outcome here")
    if action == FIGHT_HIDDEN:
        return "fight hidden"
    if action == FIGHT_SHOWN:
        return "fight shown"
    if not 0 <= action < NUM_CARDS:
        raise ValueError(f"elemental_duel: action {action} is out of range 0..{NUM_ACTIONS - 1}")
    verb = PHASE_VERBS.get(int(state[S_PHASE]), "card")
    return f"{verb} {CARD_NAMES[action]}"


def _cards(cards) -> str:
    return ", ".join(CARD_NAMES[c] for c in cards) if cards else "-"


def _hand(state, player: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if state[S_HAND + NUM_CARDS * player + c] == 1]


def _played(state, player: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if state[S_HAND + NUM_CARDS * player + c] == 0]


def _territories(state, player: int) -> str:
    names = []
    for k in range(NUM_KINDS):
        for turned in range(2):
            count = int(state[S_HELD + 2 * NUM_KINDS * player + 2 * k + turned])
            names += [KIND_NAMES[k] + (" turned" if turned else "")] * count
    icon_text = ", ".join(f"{TYPE_NAMES[t]} {int(icons(state, player, t))}" for t in range(NUM_TYPES))
    return f"[{', '.join(names) if names else '-'}] icons {icon_text}"


def _stack(state) -> str:
    return ", ".join(f"{KIND_NAMES[k]} {int(state[S_STACK + k])}" for k in range(NUM_KINDS))


def _status(cfg, state) -> str:
    """Duel number, attacker, contested territory and whose move it is."""
    first = int(state[S_FIRST])
    if first < 0:
        return "first attacker not drawn yet"
    phase = int(state[S_PHASE])
    attacker = int(state[S_ATTACKER])
    duels = int(state[S_DUELS])
    if phase == PH_OVER:
        result = int(state[S_RESULT])
        how = int(state[S_HOW])
        if result == DRAW:
            return f"game over after {duels} duels: draw (equal types and equal icons)"
        return f"game over after {duels} duels: p{result} wins with {HOW_TEXT[how]}"
    head = f"duel {duels + 1} of {int(cfg[C_DUELS])}, p{attacker} attacks"
    if phase == PH_DRAW:
        return head + ", territory to draw"
    todo = {
        PH_HIDE: f"p{attacker} to hide a card",
        PH_SHOW: f"p{attacker} to show a card",
        PH_DEFEND: f"p{1 - attacker} to defend",
        PH_CHOOSE: f"p{attacker} to choose the fighting card",
    }[phase]
    return f"{head} for {KIND_NAMES[int(state[S_CONTESTED])]}, {todo}"


def _public(cfg, state) -> list[str]:
    lines = [_status(cfg, state), f"stack left {_stack(state)}"]
    for p in (0, 1):
        lines.append(f"hand p{p} [{_cards(_hand(state, p))}]")
    for p in (0, 1):
        lines.append(f"played p{p} [{_cards(_played(state, p))}]")
    for p in (0, 1):
        lines.append(f"territories p{p} {_territories(state, p)}")
    return lines


def _table(state, viewer: int | None) -> str:
    """The cards of the current duel on the table, as ``viewer`` sees them (None: all)."""
    attacker = int(state[S_ATTACKER])
    hidden, shown, defended = (int(state[s]) for s in (S_HIDDEN, S_SHOWN, S_DEFENDED))
    if hidden < 0:
        return "table -"
    parts = []
    see_hidden = viewer is None or viewer == attacker
    parts.append(f"p{attacker} face down " + (CARD_NAMES[hidden] if see_hidden else "(unseen)"))
    if shown >= 0:
        parts.append(f"p{attacker} face up {CARD_NAMES[shown]}")
    if defended >= 0:
        see_defended = viewer is None or viewer == 1 - attacker
        parts.append(f"p{1 - attacker} face down " + (CARD_NAMES[defended] if see_defended else "(unseen)"))
    return "table " + ", ".join(parts)


def _duel_line(state, i: int, viewer: int | None) -> str:
    """Duel ``i`` as ``viewer`` remembers it (None: everything, hidden cards too)."""
    log = S_LOG + LOG_FIELDS * i
    kind, hidden, shown, defended, fought = (int(state[log + f]) for f in range(LOG_FIELDS))
    attacker = int(state[S_FIRST]) ^ (i & 1)
    attacker_card = hidden if fought == FIGHT_HIDDEN else shown
    winner = int(duel_winner(attacker, attacker_card, defended))
    card = attacker_card if winner == attacker else defended
    if fought == FIGHT_HIDDEN or viewer is None or viewer == attacker:
        hid = CARD_NAMES[hidden]
    else:
        hid = "a card"
    how = "wins" if beats(attacker_card, defended) or beats(defended, attacker_card) else "ties"
    turned = ", turned over" if turns_over(card, kind) else ""
    return (
        f"duel {i + 1} {KIND_NAMES[kind]}: p{attacker} hid {hid}, showed {CARD_NAMES[shown]}; "
        f"{'hidden' if fought == FIGHT_HIDDEN else 'shown'} {CARD_NAMES[attacker_card]} "
        f"against p{1 - attacker} {CARD_NAMES[defended]}: p{winner} {how}{turned}"
    )


def _history(state, viewer: int | None) -> list[str]:
    return [_duel_line(state, i, viewer) for i in range(int(state[S_DUELS]))]


def state_to_string(cfg, state) -> str:
    first = int(state[S_FIRST])
    lines = _public(cfg, state) + [_table(state, None)]
    lines.append(f"first attacker {'p' + str(first) if first >= 0 else '-'}")
    return "\n".join(lines + _history(state, None))


def observation_string(cfg, state, player: int) -> str:
    return "\n".join([f"observer p{player}"] + _public(cfg, state) + [_table(state, player)])


def information_state_string(cfg, state, player: int) -> str:
    first = int(state[S_FIRST])
    lines = [observation_string(cfg, state, player)]
    lines.append(f"first attacker {'p' + str(first) if first >= 0 else '-'}")
    return "\n".join(lines + _history(state, player))
