"""Elements (Team SAIEN, 2016): the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

The configuration ``cfg`` (int64, built by ``configure``) and the state (int16, one
round's table plus the match score) are laid out by ``C`` and ``S`` below, named
pieces whose tables close this docstring; the tensors by ``OBS`` and ``INFO``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range
from ...core.layout import state_layout, tensor_layout
from ...core.params import Check, ParameterError

NUM_VALUES = 6
SIX = NUM_VALUES - 1  # the index of value 6, the only card that may be discarded
NUM_ACTIONS = 10
TAKE, DISCARD, KNOCK, YIELD = 6, 7, 8, 9  # 0..5 play a card of value action + 1
DEFAULT_DECK = "1_1_2_2_3_3_4_4_5_5_6_6_6_6_6_6"

C = state_layout(
    hand=(1, "cards dealt to each player (H)"),
    target=(1, "victory points that win the match"),
    single=(1, "1: the game is one round, returns are the round's VP"),
    deck=(NUM_VALUES, "copies of value v + 1 in the deck"),
    deck_size=(1, "cards in the deck"),
)

S = state_layout(
    player=(1, "next to act: 0, 1, CHANCE (-1) or TERMINAL (-4)"),
    start=(1, "start player of this round; -1 before the start player is drawn"),
    score=(2, "victory points of player p"),
    dealt=(1, "cards dealt so far this round"),
    display_len=(1, "cards in the central display"),
    history_len=(1, "player actions so far this round"),
    scorer=(1, "who scored the last finished round (-1: none yet)"),
    points=(1, "VP of the last finished round (2 knock, 1 yield)"),
    round=(1, "rounds finished"),
    deck=(NUM_VALUES, "undealt copies of value v + 1 (the set-aside cards among them)"),
    hand=((2, NUM_VALUES), "copies of value v + 1 in player p's hand"),
    front=((2, NUM_VALUES), "copies of value v + 1 taken by player p (in front of them)"),
    deal=((2, NUM_VALUES), "copies of value v + 1 dealt to player p this round"),
    discarded=(2, "6s discarded by player p this round"),
    # The display holds at most 2H cards, and a round has at most 4H + 1 player actions.
    display=(lambda params: 2 * params["hand_size"], "value of the i-th display card, bottom first"),
    history=(lambda params: 4 * params["hand_size"] + 1, "the i-th player action of this round (turns alternate)"),
    slots=C._size,
)

# Tensor pieces. Per-player pieces are ordered (observer, opponent) so that one
# network serves both seats; "observer" carries the absolute seat.
OBS = tensor_layout(
    S._end,
    observer=2,
    to_move=2,
    hand=NUM_VALUES,
    hand_sizes=2,
    front=(2, NUM_VALUES),
    discarded=2,
    display=lambda params: (2 * params["hand_size"], NUM_VALUES),
    limit=1,
    sum=1,
    scores=2,
)
INFO = OBS._extend(
    deal=NUM_VALUES,
    round_start=2,
    history=lambda params: (4 * params["hand_size"] + 1, NUM_ACTIONS),
)
CFG_SIZE = INFO._end

__doc__ += f"""
Configuration ``cfg``, ``C`` (then the cfg slots of ``S``, ``OBS`` and ``INFO``)::

{C._table("C")}

State ``S``::

{S._table()}
"""


# --- configuration ---------------------------------------------------------------

def parse_deck(text: str) -> list[int]:
    """Card values of a deck parameter such as ``"1_2_3_6_6_6"``."""
    try:
        values = [int(part) for part in str(text).split("_")]
    except ValueError:
        values = []
    if not values or any(not 1 <= v <= NUM_VALUES for v in values):
        raise ValueError(
            f"elements: parameter deck={text!r} is malformed; it must be card values "
            "1 to 6 joined by '_', e.g. '1_2_3_6_6_6'"
        )
    return values


def _valid_deck(text: str) -> bool:
    try:
        parse_deck(text)
    except ValueError:
        return False
    return True


PARAMS = {
    "target_score": Param(6, "victory points needed to win the match", int_range(1, 1000)),
    "single_round": Param(False, "play one round only; returns are the VP gained"),
    "hand_size": Param(6, "cards dealt to each player", int_range(1, 100)),
    "deck": Param(
        DEFAULT_DECK,
        "the cards, by value (at least 2 x hand_size of them)",
        Check(_valid_deck, "card values 1 to 6 joined by '_', e.g. '1_2_3_6_6_6'"),
    ),
}

# Named parameter sets: every generic check runs on each. "small" solves exactly.
VARIANTS = {
    "default": {},
    "round": {"single_round": True},
    "small": {"single_round": True, "deck": "1_2_3_6_6_6", "hand_size": 2},
    "short_match": {"target_score": 2, "hand_size": 3},
}


def configure(params: dict) -> Config:
    hand = params["hand_size"]
    deck = parse_deck(params["deck"])
    if len(deck) < 2 * hand:
        raise ParameterError(
            f"elements: parameter hand_size={hand} is out of range for a deck of "
            f"{len(deck)} cards; it must be at most {len(deck) // 2} (two hands are dealt)"
        )
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[C.hand] = hand
    cfg[C.target] = params["target_score"]
    cfg[C.single] = int(params["single_round"])
    for v in deck:
        cfg[C.deck + v - 1] += 1
    cfg[C.deck_size] = len(deck)
    max_history = 4 * hand + 1
    single = bool(params["single_round"])
    # Every round gives a VP to someone, so a match ends within 2(target-1)+1 rounds.
    state_pieces = S._place(cfg, params)
    max_rounds = 1 if single else 2 * (params["target_score"] - 1) + 1
    return Config(
        cfg=cfg,
        num_players=2,
        num_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_VALUES,
        state_size=state_pieces[-1].stop,
        state_pieces=state_pieces,
        obs_pieces=OBS._place(cfg, params),
        info_pieces=INFO._place(cfg, params),
        min_utility=-2.0 if single else -1.0,
        max_utility=2.0 if single else 1.0,
        max_game_length=max_rounds * max_history,
        max_chance_nodes=1 + max_rounds * 2 * hand,
    )


# --- rules -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False, inline="always")
def _new_round(cfg, state):
    for v in range(NUM_VALUES):
        state[S.deck + v] = cfg[C.deck + v]
    for k in range(S.hand, S.display):
        state[k] = 0
    state[S.dealt] = 0
    state[S.display_len] = 0
    state[S.history_len] = 0
    state[S.player] = CHANCE


@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S.start] = -1
    state[S.scorer] = -1
    _new_round(cfg, state)


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S.player]


@nb.njit(cache=True, _nrt=False, inline="always")
def player_sum(state, player):
    """Sum of a player's hand and of the cards in front of them."""
    total = 0
    for v in range(NUM_VALUES):
        total += (v + 1) * (state[S.hand + NUM_VALUES * player + v] + state[S.front + NUM_VALUES * player + v])
    return total


@nb.njit(cache=True, _nrt=False, inline="always")
def limit(cfg, state):
    """Sum of the central display."""
    total = 0
    for i in range(state[S.display_len]):
        total += state[S.display + i]
    return total


@nb.njit(cache=True, _nrt=False, inline="always")
def legal_mask(cfg, state, mask):
    # One exit and no slices: inlined into loops, numba then counts no references.
    for a in range(mask.shape[0]):
        mask[a] = False
    player = state[S.player]
    if player >= 0:
        hand = S.hand + NUM_VALUES * player
        for v in range(NUM_VALUES):
            mask[v] = state[hand + v] > 0
        mask[TAKE] = state[S.display_len] > 0
        mask[DISCARD] = state[hand + SIX] > 0
        mask[KNOCK] = player_sum(state, player) <= limit(cfg, state)
        mask[YIELD] = True


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    for outcome in range(probs.shape[0]):
        probs[outcome] = 0.0
    if state[S.player] == CHANCE:
        if state[S.start] < 0:
            probs[0] = 0.5
            probs[1] = 0.5
        else:
            left = cfg[C.deck_size] - state[S.dealt]
            for v in range(NUM_VALUES):
                probs[v] = state[S.deck + v] / left


@nb.njit(cache=True, _nrt=False, inline="always")
def _end_round(cfg, state, scorer, points):
    state[S.score + scorer] += points
    state[S.scorer] = scorer
    state[S.points] = points
    state[S.round] += 1
    if cfg[C.single] == 1 or state[S.score + scorer] >= cfg[C.target]:
        state[S.player] = TERMINAL
    else:
        state[S.start] = scorer
        _new_round(cfg, state)


@nb.njit(cache=True, _nrt=False, inline="always")
def _knock_winner(cfg, state, knocker):
    """Opponent over the limit: knocker wins; else the higher sum; a tie loses the knock."""
    other = 1 - knocker
    opponent_sum = player_sum(state, other)
    over = opponent_sum > limit(cfg, state)
    return knocker if over or player_sum(state, knocker) > opponent_sum else other


@nb.njit(cache=True, _nrt=False, inline="always")
def apply(cfg, state, action):
    # One exit, and only single-exit helpers inlined: numba then keeps no reference
    # counting inside the loops this is inlined into.
    player = state[S.player]
    if player == CHANCE:
        if state[S.start] < 0:
            state[S.start] = action
        else:
            hand = cfg[C.hand]
            receiver = 0 if state[S.dealt] < hand else 1
            state[S.deck + action] -= 1
            state[S.hand + NUM_VALUES * receiver + action] += 1
            state[S.deal + NUM_VALUES * receiver + action] += 1
            state[S.dealt] += 1
            if state[S.dealt] == 2 * hand:
                state[S.player] = state[S.start]
    else:
        state[cfg[S.history] + state[S.history_len]] = action
        state[S.history_len] += 1
        if action < NUM_VALUES:
            state[S.hand + NUM_VALUES * player + action] -= 1
            state[S.display + state[S.display_len]] = action + 1
            state[S.display_len] += 1
        elif action == TAKE:
            state[S.display_len] -= 1
            value = state[S.display + state[S.display_len]]
            state[S.front + NUM_VALUES * player + value - 1] += 1
        elif action == DISCARD:
            state[S.hand + NUM_VALUES * player + SIX] -= 1
            state[S.discarded + player] += 1
        if action <= DISCARD:
            state[S.player] = 1 - player
        else:  # a knock or a yield ends the round
            knock = action == KNOCK
            scorer = _knock_winner(cfg, state, player) if knock else 1 - player
            _end_round(cfg, state, scorer, 2 if knock else 1)


@nb.njit(cache=True, _nrt=False, inline="always")
def returns(cfg, state, out):
    for p in range(out.shape[0]):
        out[p] = 0.0
    if state[S.player] == TERMINAL:
        scorer = state[S.scorer]
        gain = state[S.points] if cfg[C.single] == 1 else 1
        out[scorer] = gain
        out[1 - scorer] = -gain
