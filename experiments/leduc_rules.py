"""Leduc hold'em as a rules kernel, so that this library's learners train on it.

Leduc hold'em (Southey et al., 2005) is the game on which the field reports its
equilibrium learners' exact exploitability (NFSP, MMD, R-NaD); OpenSpiel ships it as
``leduc_poker``. This module writes it in the library's kernel protocol
(``elements_ai.core.kernel``, one module defining everything), so that
``NFSPTrainer`` and ``MMDTrainer`` run on it through the vector face exactly as on
the library's own games, and their curves can be set beside the papers'.

It copies OpenSpiel's ``leduc_poker`` move for move: the same chance outcomes (card
``c`` of six, rank ``c // 2``), the same actions (0 fold, 1 call or check, 2 raise),
the same players and the same returns, so that a history of one is a history of
the other (``tests/test_leduc.py`` walks both whole trees side by side). The
rules: each player antes 1 and gets one private card; a betting round (raises of 2,
at most two per round, player 0 first) is followed by a public card and a second
round (raises of 4); a fold loses what the folder put in; at the showdown a private
card that pairs the public card wins, else the higher rank, else the pot is split.

>>> import elements_ai
>>> game = load()
>>> game.num_distinct_actions(), game.information_state_tensor_shape()
(3, [30])
>>> state = game.new_initial_state()
>>> for action in (0, 3, 2, 2, 1, 1, 2, 1):  # deal J, Q; raise, re-raise, call; public J; raise, call
...     state.apply_action(action)
>>> state.returns()
[9.0, -9.0]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from elements_ai.core.arrays import fill
from elements_ai.core.kernel import CHANCE, TERMINAL, Config, Kernel
from elements_ai.core.layout import state_layout, tensor_layout
from elements_ai.core.observers import Privacy

SHORT_NAME = "leduc_kernel"
NUM_CARDS = 6
NUM_ACTIONS = 3
FOLD, CALL, RAISE = 0, 1, 2
MAX_RAISES = 2
MAX_ROUND_ACTIONS = 4  # check, raise, raise, call
RAISE_SIZE = (2, 4)
ANTE = 1
NO_CARD = -1
# Where the game stands: who is dealt next, or who may bet.
DEAL_0, DEAL_1, BET_1, DEAL_PUBLIC, BET_2, OVER = 0, 1, 2, 3, 4, 5

S = state_layout(
    phase=(1, "DEAL_0, DEAL_1, BET_1, DEAL_PUBLIC, BET_2 or OVER"),
    player=(1, "the player to bet, while betting"),
    card=(2, "player p's private card (NO_CARD before the deal)"),
    public=(1, "the public card (NO_CARD before it is dealt)"),
    raises=(1, "raises so far this round"),
    spent=(2, "chips player p has put in the pot, ante included"),
    folded=(1, "the player who folded (-1: none)"),
    actions=(2, "actions of round r so far"),
    history=((2, MAX_ROUND_ACTIONS), "the i-th action of round r"),
)

# Observation: OpenSpiel's own pieces (the observer, its card, the public card, each
# player's chips in the pot); the information state adds both rounds' actions, two
# bits an action (call, raise), as OpenSpiel's information-state tensor does.
OBS = tensor_layout(S._end, observer=2, private=NUM_CARDS, public=NUM_CARDS, spent=2)
INFO = tensor_layout(OBS._end, observer=2, private=NUM_CARDS, public=NUM_CARDS,
                     history=(2, MAX_ROUND_ACTIONS, 2))
CFG_SIZE = INFO._end

PARAMS: dict = {}
PRIVACY = Privacy(private=("private",))


def configure(params: dict) -> Config:
    cfg = np.zeros(CFG_SIZE, np.int64)
    state_pieces = S._place(cfg, params)
    return Config(
        cfg=cfg,
        num_players=2,
        num_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_CARDS,
        state_size=state_pieces[-1].stop,
        state_pieces=state_pieces,
        obs_pieces=OBS._place(cfg, params),
        info_pieces=INFO._place(cfg, params),
        # The most a player can lose: the ante and two raises in each round.
        min_utility=-float(ANTE + MAX_RAISES * (RAISE_SIZE[0] + RAISE_SIZE[1])),
        max_utility=float(ANTE + MAX_RAISES * (RAISE_SIZE[0] + RAISE_SIZE[1])),
        max_game_length=2 * MAX_ROUND_ACTIONS,
        max_chance_nodes=3,
    )


# --- rules -----------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def init(cfg, state):
    fill(state, 0)
    state[S.phase] = DEAL_0
    state[S.card] = NO_CARD
    state[S.card + 1] = NO_CARD
    state[S.public] = NO_CARD
    state[S.spent] = ANTE
    state[S.spent + 1] = ANTE
    state[S.folded] = -1


@nb.njit(cache=True, _nrt=False)
def current_player(cfg, state):
    phase = state[S.phase]
    if phase == BET_1 or phase == BET_2:
        return state[S.player]
    if phase == OVER:
        return TERMINAL
    return CHANCE


@nb.njit(cache=True, _nrt=False)
def legal_mask(cfg, state, mask):
    for a in range(NUM_ACTIONS):
        mask[a] = False
    phase = state[S.phase]
    if phase != BET_1 and phase != BET_2:
        return
    player = state[S.player]
    mask[FOLD] = state[S.spent + 1 - player] > state[S.spent + player]  # only facing a bet
    mask[CALL] = True
    mask[RAISE] = state[S.raises] < MAX_RAISES


@nb.njit(cache=True, _nrt=False)
def _dealt(state, card):
    return state[S.card] == card or state[S.card + 1] == card or state[S.public] == card


@nb.njit(cache=True, _nrt=False)
def chance_outcomes(cfg, state, probs):
    for c in range(NUM_CARDS):
        probs[c] = 0.0
    phase = state[S.phase]
    if phase != DEAL_0 and phase != DEAL_1 and phase != DEAL_PUBLIC:
        return
    left = NUM_CARDS - phase + (phase == DEAL_PUBLIC)  # 6, 5, then 4 cards left
    for c in range(NUM_CARDS):
        if not _dealt(state, c):
            probs[c] = 1.0 / left


@nb.njit(cache=True, _nrt=False)
def apply(cfg, state, action):
    phase = state[S.phase]
    if phase == DEAL_0 or phase == DEAL_1:
        state[S.card + phase] = action
        state[S.phase] = phase + 1
        state[S.player] = 0
        return
    if phase == DEAL_PUBLIC:
        state[S.public] = action
        state[S.phase] = BET_2
        state[S.player] = 0
        state[S.raises] = 0
        return
    player = state[S.player]
    other = 1 - player
    betting_round = 0 if phase == BET_1 else 1
    if action == FOLD:
        state[S.folded] = player
        state[S.phase] = OVER
        return
    position = state[S.actions + betting_round]
    state[S.history + MAX_ROUND_ACTIONS * betting_round + position] = action
    state[S.actions + betting_round] = position + 1
    if action == RAISE:
        state[S.spent + player] = state[S.spent + other] + RAISE_SIZE[betting_round]
        state[S.raises] += 1
        state[S.player] = other
    else:
        state[S.spent + player] = state[S.spent + other]
        if position == 0:  # a check opens the round: the other player may still bet
            state[S.player] = other
        else:
            state[S.phase] = DEAL_PUBLIC if phase == BET_1 else OVER


@nb.njit(cache=True, _nrt=False)
def _strength(card, public):
    rank = card // 2
    return rank + 10 * (rank == public // 2)


@nb.njit(cache=True, _nrt=False)
def returns(cfg, state, out):
    out[0] = 0.0
    out[1] = 0.0
    if state[S.phase] != OVER:
        return
    folded = state[S.folded]
    if folded >= 0:
        out[folded] = -float(state[S.spent + folded])
        out[1 - folded] = float(state[S.spent + folded])
        return
    first = _strength(state[S.card], state[S.public])
    second = _strength(state[S.card + 1], state[S.public])
    if first != second:
        winner = 0 if first > second else 1
        out[winner] = float(state[S.spent + 1 - winner])
        out[1 - winner] = -float(state[S.spent + 1 - winner])


# --- tensors ---------------------------------------------------------------------

@nb.njit(cache=True, _nrt=False)
def encode_observation(cfg, state, player, out):
    fill(out, 0.0)
    out[cfg[OBS.observer] + player] = 1.0
    if state[S.card + player] >= 0:
        out[cfg[OBS.private] + state[S.card + player]] = 1.0
    if state[S.public] >= 0:
        out[cfg[OBS.public] + state[S.public]] = 1.0
    out[cfg[OBS.spent]] = state[S.spent]
    out[cfg[OBS.spent] + 1] = state[S.spent + 1]


@nb.njit(cache=True, _nrt=False)
def encode_information_state(cfg, state, player, out):
    fill(out, 0.0)
    out[cfg[INFO.observer] + player] = 1.0
    if state[S.card + player] >= 0:
        out[cfg[INFO.private] + state[S.card + player]] = 1.0
    if state[S.public] >= 0:
        out[cfg[INFO.public] + state[S.public]] = 1.0
    for betting_round in range(2):
        for i in range(state[S.actions + betting_round]):
            action = state[S.history + MAX_ROUND_ACTIONS * betting_round + i]
            out[cfg[INFO.history] + 2 * (MAX_ROUND_ACTIONS * betting_round + i) + action - 1] = 1.0


# --- strings ---------------------------------------------------------------------

RANKS = "JQK"
ACTION_NAMES = ("Fold", "Call", "Raise")


def _card(card: int) -> str:
    return "-" if card < 0 else f"{RANKS[card // 2]}{card % 2}"


def action_to_string(cfg, state, player, action) -> str:
    if player == CHANCE:
        return f"deal {_card(int(action))}"
    return ACTION_NAMES[int(action)]


def _rounds(state) -> str:
    return " | ".join(
        " ".join(ACTION_NAMES[int(state[S.history + MAX_ROUND_ACTIONS * r + i])] for i in range(state[S.actions + r]))
        for r in range(2))


def state_to_string(cfg, state) -> str:
    return (f"cards {_card(int(state[S.card]))} {_card(int(state[S.card + 1]))}, public "
            f"{_card(int(state[S.public]))}, spent {int(state[S.spent])} {int(state[S.spent + 1])}, "
            f"actions {_rounds(state)}")


def observation_string(cfg, state, player) -> str:
    return (f"player {player}, card {_card(int(state[S.card + player]))}, public {_card(int(state[S.public]))}, "
            f"spent {int(state[S.spent])} {int(state[S.spent + 1])}")


def information_state_string(cfg, state, player) -> str:
    return f"{observation_string(cfg, state, player)}, actions {_rounds(state)}"


KERNEL = Kernel(
    short_name=SHORT_NAME,
    long_name="Leduc hold'em (a kernel of OpenSpiel's leduc_poker)",
    min_num_players=2,
    max_num_players=2,
    params=PARAMS,
    configure=configure,
    init=init,
    current_player=current_player,
    legal_mask=legal_mask,
    chance_outcomes=chance_outcomes,
    apply=apply,
    returns=returns,
    encode_observation=encode_observation,
    encode_information_state=encode_information_state,
    action_to_string=action_to_string,
    state_to_string=state_to_string,
    observation_string=observation_string,
    information_state_string=information_state_string,
    privacy=PRIVACY,
)


def load():
    """The game, registered with pyspiel and the library's loader on first use, so that
    ``elements_ai.load_game("leduc_kernel")`` and the trainers' collectors find it."""
    import pyspiel

    from elements_ai.core.spiel import register
    from elements_ai.games import KERNELS

    if SHORT_NAME not in KERNELS:
        KERNELS[SHORT_NAME] = KERNEL
        if SHORT_NAME not in pyspiel.registered_names():
            register(KERNEL)
    return pyspiel.load_game(SHORT_NAME)
