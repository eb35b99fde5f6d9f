"""Elements (Team SAIEN, 2016): the rules kernel.

Rulebook summary and rulings: ``RULES.md`` beside this file.

Configuration ``cfg`` (int64), built by ``configure``::

    C_HAND        cards dealt to each player (H)
    C_TARGET      victory points that win the match
    C_SINGLE      1: the game is one round, returns are the round's VP
    C_DECK + v-1  copies of value v in the deck (v = 1..6, NUM_VALUES)
    C_DECK_SIZE   cards in the deck
    C_DISPLAY     S_DISPLAY offset; the display holds at most 2H cards
    C_HISTORY     S_HISTORY offset; a round has at most 4H + 1 player actions
    OBS.<piece>, INFO.<piece>   the piece's offset in the tensors (``core.layout``)

State (int16), one round's table plus the match score::

    S_PLAYER          next to act: 0, 1, CHANCE (-1) or TERMINAL (-4)
    S_START           start player of this round; -1 before the start player is drawn
    S_SCORE + p       victory points of player p
    S_DEALT           cards dealt so far this round
    S_DISPLAY_LEN     cards in the central display
    S_HISTORY_LEN     player actions so far this round
    S_SCORER          who scored the last finished round (-1: none yet)
    S_POINTS          VP of the last finished round (2 knock, 1 yield)
    S_ROUND           rounds finished
    S_DECK + v-1      undealt copies of value v (the set-aside cards among them)
    S_HAND + 6p + v-1   copies of v in player p's hand
    S_FRONT + 6p + v-1  copies of v taken by player p (in front of them)
    S_DEAL + 6p + v-1   copies of v dealt to p this round
    S_DISCARDED + p   6s discarded by player p this round
    S_DISPLAY + i     value of the i-th display card, bottom first
    S_HISTORY + i     the i-th player action of this round (turns alternate from S_START)
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.arrays import copy, fill
from ...core.kernel import CHANCE, TERMINAL, Config, Param, int_range
from ...core.layout import tensor_layout
from ...core.params import Check, ParameterError
from ...core.rng import sample_index, uniform

NUM_VALUES = 6
SIX = NUM_VALUES - 1  # the index of value 6, the only card that may be discarded
NUM_ACTIONS = 10
TAKE, DISCARD, KNOCK, YIELD = 6, 7, 8, 9  # 0..5 play a card of value action + 1
DEFAULT_DECK = "1_1_2_2_3_3_4_4_5_5_6_6_6_6_6_6"

C_HAND, C_TARGET, C_SINGLE, C_DECK = 0, 1, 2, 3
C_DECK_SIZE = C_DECK + NUM_VALUES
C_DISPLAY, C_HISTORY = C_DECK_SIZE + 1, C_DECK_SIZE + 2
C_SIZE = C_HISTORY + 1

S_PLAYER, S_START, S_SCORE = 0, 1, 2
S_DEALT = S_SCORE + 2
S_DISPLAY_LEN, S_HISTORY_LEN, S_SCORER, S_POINTS, S_ROUND = range(S_DEALT + 1, S_DEALT + 6)
S_DECK = S_ROUND + 1
S_HAND = S_DECK + NUM_VALUES
S_FRONT = S_HAND + 2 * NUM_VALUES
S_DEAL = S_FRONT + 2 * NUM_VALUES
S_DISCARDED = S_DEAL + 2 * NUM_VALUES
S_FIXED = S_DISCARDED + 2  # the display and the history follow, sized by the hand size

# Tensor pieces. Per-player pieces are ordered (observer, opponent) so that one
# network serves both seats; "observer" carries the absolute seat.
OBS = tensor_layout(
    C_SIZE,
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
    cfg[C_HAND] = hand
    cfg[C_TARGET] = params["target_score"]
    cfg[C_SINGLE] = int(params["single_round"])
    for v in deck:
        cfg[C_DECK + v - 1] += 1
    cfg[C_DECK_SIZE] = len(deck)
    cfg[C_DISPLAY] = S_FIXED
    cfg[C_HISTORY] = S_FIXED + 2 * hand
    max_display, max_history = 2 * hand, 4 * hand + 1
    single = bool(params["single_round"])
    # Every round gives a VP to someone, so a match ends within 2(target-1)+1 rounds.
    max_rounds = 1 if single else 2 * (params["target_score"] - 1) + 1
    return Config(
        cfg=cfg,
        num_players=2,
        num_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_VALUES,
        state_size=S_FIXED + max_display + max_history,
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
        state[S_DECK + v] = cfg[C_DECK + v]
    for k in range(S_HAND, S_FIXED):
        state[k] = 0
    state[S_DEALT] = 0
    state[S_DISPLAY_LEN] = 0
    state[S_HISTORY_LEN] = 0
    state[S_PLAYER] = CHANCE


@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S_START] = -1
    state[S_SCORER] = -1
    _new_round(cfg, state)


@nb.njit(cache=True, _nrt=False, inline="always")
def current_player(cfg, state):
    return state[S_PLAYER]


@nb.njit(cache=True, _nrt=False, inline="always")
def player_sum(state, player):
    """Sum of a player's hand and of the cards in front of them."""
    total = 0
    for v in range(NUM_VALUES):
        total += (v + 1) * (state[S_HAND + NUM_VALUES * player + v] + state[S_FRONT + NUM_VALUES * player + v])
    return total


@nb.njit(cache=True, _nrt=False, inline="always")
def limit(cfg, state):
    """Sum of the central display."""
    total = 0
    for i in range(state[S_DISPLAY_LEN]):
        total += state[cfg[C_DISPLAY] + i]
    return total


@nb.njit(cache=True, _nrt=False, inline="always")
def legal_mask(cfg, state, mask):
    # One exit and no slices: inlined into loops, numba then counts no references.
    for a in range(mask.shape[0]):
        mask[a] = False
    player = state[S_PLAYER]
    if player >= 0:
        hand = S_HAND + NUM_VALUES * player
        for v in range(NUM_VALUES):
            mask[v] = state[hand + v] > 0
        mask[TAKE] = state[S_DISPLAY_LEN] > 0
        mask[DISCARD] = state[hand + SIX] > 0
        mask[KNOCK] = player_sum(state, player) <= limit(cfg, state)
        mask[YIELD] = True


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    for outcome in range(probs.shape[0]):
        probs[outcome] = 0.0
    if state[S_PLAYER] == CHANCE:
        if state[S_START] < 0:
            probs[0] = 0.5
            probs[1] = 0.5
        else:
            left = cfg[C_DECK_SIZE] - state[S_DEALT]
            for v in range(NUM_VALUES):
                probs[v] = state[S_DECK + v] / left


@nb.njit(cache=True, _nrt=False, inline="always")
def _end_round(cfg, state, scorer, points):
    state[S_SCORE + scorer] += points
    state[S_SCORER] = scorer
    state[S_POINTS] = points
    state[S_ROUND] += 1
    if cfg[C_SINGLE] == 1 or state[S_SCORE + scorer] >= cfg[C_TARGET]:
        state[S_PLAYER] = TERMINAL
    else:
        state[S_START] = scorer
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
    player = state[S_PLAYER]
    if player == CHANCE:
        if state[S_START] < 0:
            state[S_START] = action
        else:
            hand = cfg[C_HAND]
            receiver = 0 if state[S_DEALT] < hand else 1
            state[S_DECK + action] -= 1
            state[S_HAND + NUM_VALUES * receiver + action] += 1
            state[S_DEAL + NUM_VALUES * receiver + action] += 1
            state[S_DEALT] += 1
            if state[S_DEALT] == 2 * hand:
                state[S_PLAYER] = state[S_START]
    else:
        state[cfg[C_HISTORY] + state[S_HISTORY_LEN]] = action
        state[S_HISTORY_LEN] += 1
        if action < NUM_VALUES:
            state[S_HAND + NUM_VALUES * player + action] -= 1
            state[cfg[C_DISPLAY] + state[S_DISPLAY_LEN]] = action + 1
            state[S_DISPLAY_LEN] += 1
        elif action == TAKE:
            state[S_DISPLAY_LEN] -= 1
            value = state[cfg[C_DISPLAY] + state[S_DISPLAY_LEN]]
            state[S_FRONT + NUM_VALUES * player + value - 1] += 1
        elif action == DISCARD:
            state[S_HAND + NUM_VALUES * player + SIX] -= 1
            state[S_DISCARDED + player] += 1
        if action <= DISCARD:
            state[S_PLAYER] = 1 - player
        else:  # a knock or a yield ends the round
            knock = action == KNOCK
            scorer = _knock_winner(cfg, state, player) if knock else 1 - player
            _end_round(cfg, state, scorer, 2 if knock else 1)


@nb.njit(cache=True, _nrt=False, inline="always")
def returns(cfg, state, out):
    for p in range(out.shape[0]):
        out[p] = 0.0
    if state[S_PLAYER] == TERMINAL:
        scorer = state[S_SCORER]
        gain = state[S_POINTS] if cfg[C_SINGLE] == 1 else 1
        out[scorer] = gain
        out[1 - scorer] = -gain


# --- information-set sampling ------------------------------------------------------

@nb.njit(cache=True)
def resample(cfg, state, player, rng, out):
    """A state ``player`` cannot tell from ``state``: the opponent's hand is redrawn.

    The unseen cards (deck minus own hand, display, fronts and discarded 6s) are
    dealt uniformly into the opponent's hand (its size is public); the rest are the
    undealt/set-aside cards. Play gives no further constraint on the opponent's
    hand, so this is the exact chance posterior.
    """
    copy(out, state)
    other = 1 - player
    unseen = np.zeros(NUM_VALUES, np.int64)
    for v in range(NUM_VALUES):
        unseen[v] = (
            cfg[C_DECK + v]
            - state[S_HAND + NUM_VALUES * player + v]
            - state[S_FRONT + v]
            - state[S_FRONT + NUM_VALUES + v]
        )
    for i in range(state[S_DISPLAY_LEN]):
        unseen[state[cfg[C_DISPLAY] + i] - 1] -= 1
    unseen[SIX] -= state[S_DISCARDED] + state[S_DISCARDED + 1]
    hand_size = 0
    for v in range(NUM_VALUES):
        hand_size += state[S_HAND + NUM_VALUES * other + v]
        out[S_HAND + NUM_VALUES * other + v] = 0
    for _ in range(hand_size):
        v = sample_index(unseen, NUM_VALUES, uniform(rng, 0))
        unseen[v] -= 1
        out[S_HAND + NUM_VALUES * other + v] += 1
    for v in range(NUM_VALUES):
        out[S_DECK + v] = unseen[v]
        out[S_DEAL + NUM_VALUES * other + v] = out[S_HAND + NUM_VALUES * other + v]
    start = state[S_START]
    for i in range(state[S_HISTORY_LEN]):
        action = state[cfg[C_HISTORY] + i]
        if start ^ (i & 1) == other:
            if action < NUM_VALUES:
                out[S_DEAL + NUM_VALUES * other + action] += 1
            elif action == DISCARD:
                out[S_DEAL + NUM_VALUES * other + SIX] += 1


# --- the rules bot -------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def heuristic(cfg, state, player, rng):
    """A beginner's move (RULES.md): take while it fits, knock, else shed the top card."""
    total = player_sum(state, player)
    table = limit(cfg, state)
    if total <= table:
        length = state[S_DISPLAY_LEN]
        if length > 0 and total + 2 * state[cfg[C_DISPLAY] + length - 1] <= table:
            return TAKE
        return KNOCK
    for v in range(NUM_VALUES - 1, -1, -1):
        if state[S_HAND + NUM_VALUES * player + v] > 0:
            return v
    return YIELD


# --- encoders --------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    other = 1 - player
    out[cfg[OBS.observer] + player] = 1.0
    to_move = state[S_PLAYER]
    if to_move >= 0:
        out[cfg[OBS.to_move] + (0 if to_move == player else 1)] = 1.0
    own_cards = 0
    other_cards = 0
    for v in range(NUM_VALUES):
        out[cfg[OBS.hand] + v] = state[S_HAND + NUM_VALUES * player + v]
        own_cards += state[S_HAND + NUM_VALUES * player + v]
        other_cards += state[S_HAND + NUM_VALUES * other + v]
    out[cfg[OBS.hand_sizes]] = own_cards
    out[cfg[OBS.hand_sizes] + 1] = other_cards
    for v in range(NUM_VALUES):
        out[cfg[OBS.front] + v] = state[S_FRONT + NUM_VALUES * player + v]
        out[cfg[OBS.front] + NUM_VALUES + v] = state[S_FRONT + NUM_VALUES * other + v]
    out[cfg[OBS.discarded]] = state[S_DISCARDED + player]
    out[cfg[OBS.discarded] + 1] = state[S_DISCARDED + other]
    for i in range(state[S_DISPLAY_LEN]):
        out[cfg[OBS.display] + NUM_VALUES * i + state[cfg[C_DISPLAY] + i] - 1] = 1.0
    out[cfg[OBS.limit]] = limit(cfg, state)
    out[cfg[OBS.sum]] = player_sum(state, player)
    out[cfg[OBS.scores]] = state[S_SCORE + player]
    out[cfg[OBS.scores] + 1] = state[S_SCORE + other]


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    encode_observation(cfg, state, player, out)
    for v in range(NUM_VALUES):
        out[cfg[INFO.deal] + v] = state[S_DEAL + NUM_VALUES * player + v]
    start = state[S_START]
    if start >= 0:
        out[cfg[INFO.round_start] + (0 if start == player else 1)] = 1.0
    for i in range(state[S_HISTORY_LEN]):
        out[cfg[INFO.history] + NUM_ACTIONS * i + state[cfg[C_HISTORY] + i]] = 1.0


# --- strings ---------------------------------------------------------------------

ACTION_NAMES = tuple(f"play {v}" for v in range(1, NUM_VALUES + 1)) + ("take", "discard 6", "knock", "yield")


def action_to_string(cfg, state, player: int, action: int) -> str:
    if player == CHANCE:
        if state[S_START] < 0 and action in (0, 1):
            return f"start player {action}"
        if state[S_START] >= 0 and 0 <= action < NUM_VALUES:
            return f"deal {action + 1}"
        raise ValueError(f"elements: {action} is not a chance outcome here")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"elements: action {action} is out of range 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def _cards(state, offset: int) -> str:
    values = [str(v + 1) for v in range(NUM_VALUES) for _ in range(int(state[offset + v]))]
    return " ".join(values) if values else "-"


def _display(cfg, state) -> str:
    cards = [str(int(state[cfg[C_DISPLAY] + i])) for i in range(int(state[S_DISPLAY_LEN]))]
    return (" ".join(cards) if cards else "-") + f" (limit {int(limit(cfg, state))})"


def _history(cfg, state) -> str:
    start = int(state[S_START])
    moves = [
        f"p{start ^ (i & 1)} {ACTION_NAMES[int(state[cfg[C_HISTORY] + i])]}"
        for i in range(int(state[S_HISTORY_LEN]))
    ]
    return ", ".join(moves) if moves else "-"


def _to_move(state) -> str:
    player = int(state[S_PLAYER])
    return {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(player, f"p{player}")


def _public(cfg, state) -> list[str]:
    return [
        f"scores p0 {int(state[S_SCORE])}, p1 {int(state[S_SCORE + 1])}",
        f"to move {_to_move(state)}",
        f"display {_display(cfg, state)}",
        f"in front p0 [{_cards(state, S_FRONT)}] p1 [{_cards(state, S_FRONT + NUM_VALUES)}]",
        f"discarded 6s p0 {int(state[S_DISCARDED])}, p1 {int(state[S_DISCARDED + 1])}",
    ]


def state_to_string(cfg, state) -> str:
    rounds = int(state[S_ROUND]) + (0 if state[S_PLAYER] == TERMINAL else 1)
    lines = [f"round {rounds}, start player {int(state[S_START])}"] + _public(cfg, state)
    lines += [
        f"hand p0 [{_cards(state, S_HAND)}] sum {int(player_sum(state, 0))}",
        f"hand p1 [{_cards(state, S_HAND + NUM_VALUES)}] sum {int(player_sum(state, 1))}",
        f"undealt and set aside [{_cards(state, S_DECK)}]",
        f"history {_history(cfg, state)}",
    ]
    if state[S_SCORER] >= 0:
        lines.append(f"last round: p{int(state[S_SCORER])} scored {int(state[S_POINTS])}")
    return "\n".join(lines)


def _hand_sizes(state) -> str:
    sizes = [sum(int(state[S_HAND + NUM_VALUES * p + v]) for v in range(NUM_VALUES)) for p in (0, 1)]
    return f"hand sizes p0 {sizes[0]}, p1 {sizes[1]}"


def observation_string(cfg, state, player: int) -> str:
    lines = [f"observer p{player}"] + _public(cfg, state)
    lines += [
        f"own hand [{_cards(state, S_HAND + NUM_VALUES * player)}] sum {int(player_sum(state, player))}",
        _hand_sizes(state),
    ]
    return "\n".join(lines)


def information_state_string(cfg, state, player: int) -> str:
    start = int(state[S_START])
    return "\n".join(
        [
            observation_string(cfg, state, player),
            f"own deal [{_cards(state, S_DEAL + NUM_VALUES * player)}]",
            f"round start {'p' + str(start) if start >= 0 else '-'}",
            f"history {_history(cfg, state)}",
        ]
    )
