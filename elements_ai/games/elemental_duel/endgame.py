"""Elemental Duel: the last duels solved exactly.

Both hands are public (ruling 9) and the stack is drawn by chance, so between duels
the public state is all that matters, and a duel is a matrix game: whatever card the
attacker shows, it may still fight with any card of its hand (the hidden one, or the
shown one with any other hidden), while the defender picks a card without seeing
which. The shown card is cheap talk. So the value of a duel is the value of the
matrix ``W[c, d]``, the attacker's fighting card ``c`` against the defender's card
``d``, each entry the value of the game after that fight (the next territory drawn
by chance), and the value of a position is found by backward induction over the
duels that remain.

Matrix games often have many optimal strategies. In each duel both sides play one
that is optimal and, among those, does best against an opponent who plays uniformly
at random from then on: a mistake-punishing refinement (in the spirit of perfect and
proper equilibria), which gives up nothing against a perfect opponent and gains
against a weak one. Both players' values under that play are carried through the
backward induction beside the equilibrium value.

``duel_strategies`` solves the current duel; ``attacker_policy`` turns the attacker's
strategy into its three decisions' action probabilities, the shown card drawn
independently of the fighting card so that seeing it tells the defender nothing.
``Endgame(cfg, duels).policy(state)`` is what the ``ppo`` bot plays with
``endgame=duels``. Values are memoised between duels in a ``numba.typed.Dict``
keyed by the public state.

>>> import numpy as np
>>> import elements_ai
>>> from elements_ai.games.elemental_duel import endgame
>>> game = elements_ai.load_game("elemental_duel", num_territories=1)
>>> state = game.new_initial_state()
>>> state.apply_action(0); state.apply_action(1)   # player 0 attacks for the forest star
>>> memo = endgame.new_memo()
>>> cards, x, answers, ys, value = endgame.duel_strategies(game.cfg, state.array, memo)
>>> bool(abs(x.sum() - 1) < 1e-9 and abs(ys.sum(axis=1) - 1).max() < 1e-9 and -1 <= value <= 1)
True
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from .rules import (
    DRAW,
    FIGHT_HIDDEN,
    FIGHT_SHOWN,
    NUM_CARDS,
    NUM_KINDS,
    PH_CHOOSE,
    PH_DEFEND,
    PH_DRAW,
    PH_HIDE,
    PH_SHOW,
    C,
    S,
    apply,
)

TOLERANCE = 1e-12
# Weight of the play against a random opponent in the refined duels: small enough to
# keep every strategy optimal (to about this much of the value).
EPSILON = 1e-6


def new_memo():
    """An empty memo of position values (``values_between_duels``), shared by calls on one game's positions."""
    return Dict.empty(key_type=types.int64, value_type=types.UniTuple(types.float64, 3))


@nb.njit(cache=True)
def _key(state):
    """The public state between duels as one int64: hands (26 bits), territories (36), attacker (1).

    The stack is what the territories held leave, and the duels played follow from
    the hands, so neither needs bits.
    """
    # Per player, kind and side a plain kind holds 0-3 territories (2 bits), a star kind 0-1.
    key = 0
    for k in range(2 * NUM_CARDS):
        key = (key << 1) | state[S.hand + k]
    for p in range(2):
        for k in range(NUM_KINDS):
            for turned in range(2):
                bits = 2 if k % 2 == 0 else 1
                key = (key << bits) | state[S.held + 2 * NUM_KINDS * p + 2 * k + turned]
    return (key << 1) | state[S.attacker]


@nb.njit(cache=True)
def _pivot(table, row, col):
    table[row] /= table[row, col]
    for r in range(table.shape[0]):
        if r != row and table[r, col] != 0.0:
            table[r] -= table[r, col] * table[row]


@nb.njit(cache=True)
def matrix_game(payoff, rows, cols):
    """The value of the zero-sum game ``payoff`` to its row player, who maximises; writes
    both players' optimal mixed strategies into ``rows`` and ``cols``.

    The column player's linear program ``max sum(w) s.t. (payoff + shift) w <= 1, w >= 0``
    on a simplex tableau, Bland's rule against cycling: ``cols = w / sum(w)``, and the
    row player's strategy is the program's dual, read off the slack columns.
    """
    m, n = payoff.shape
    shift = 1.0 - payoff.min()
    table = np.zeros((m + 1, n + m + 1))
    basis = np.empty(m, np.int64)
    for i in range(m):
        for j in range(n):
            table[i, j] = payoff[i, j] + shift
        table[i, n + i] = 1.0
        table[i, n + m] = 1.0
        basis[i] = n + i
    for j in range(n):
        table[m, j] = -1.0
    while True:
        col = -1
        for k in range(n + m):
            if table[m, k] < -TOLERANCE:
                col = k
                break
        if col < 0:
            break
        row = -1
        best = np.inf
        for i in range(m):
            if table[i, col] > TOLERANCE:
                ratio = table[i, n + m] / table[i, col]
                if ratio < best - TOLERANCE or (ratio <= best + TOLERANCE and basis[i] < basis[row]):
                    best = ratio
                    row = i
        _pivot(table, row, col)
        basis[row] = col
    total = table[m, n + m]
    cols[:] = 0.0
    for i in range(m):
        if basis[i] < n:
            cols[basis[i]] = table[i, n + m] / total
    for i in range(m):
        rows[i] = max(table[m, n + i], 0.0) / total
    return 1.0 / total - shift


@nb.njit(cache=True)
def _cards(state, player):
    cards = np.empty(NUM_CARDS, np.int64)
    count = 0
    for c in range(NUM_CARDS):
        if state[S.hand + NUM_CARDS * player + c] == 1:
            cards[count] = c
            count += 1
    return cards[:count]


@nb.njit(cache=True)
def _fought(cfg, start, card, answer, other):
    """The state after the attacker's ``card`` fought the defender's ``answer`` (``other`` shown)."""
    child = start.copy()
    apply(cfg, child, card)
    apply(cfg, child, other)
    apply(cfg, child, answer)
    apply(cfg, child, FIGHT_HIDDEN)
    return child


@nb.njit(cache=True)
def _duel(equal, attacking, defending, x, ys):
    """One duel's strategies and values, every matrix from the attacker's side.

    ``equal[c, d]`` holds the values after the fight with both sides perfect,
    ``attacking`` those when the attacker plays these strategies on and the defender
    plays uniformly at random, ``defending`` the reverse. Writes the attacker's
    strategy to ``x`` and the defender's answer to its shown card ``cards[s]`` to
    ``ys[s]``, and returns the three values. Each strategy is optimal in ``equal``
    and, among the optimal ones (to ``EPSILON``), the best against a random opponent:
    a random defender answers uniformly, a random attacker fights with the shown card
    half the time and with each other card equally often otherwise.
    """
    m, n = equal.shape
    spare_rows, spare_cols = np.empty(m), np.empty(n)
    value = matrix_game(equal, spare_rows, spare_cols)
    payoff = np.empty((m, n))
    against_random = np.empty(m)
    for i in range(m):
        against_random[i] = attacking[i].mean()
        payoff[i] = equal[i] + EPSILON * against_random[i]
    matrix_game(payoff, x, spare_cols)
    attacker_gets = (x * against_random).sum()
    expected = np.empty(n)
    defender_gives = 0.0
    for s in range(m):
        for j in range(n):
            others = (defending[:, j].sum() - defending[s, j]) / (m - 1)
            expected[j] = 0.5 * defending[s, j] + 0.5 * others
            payoff[:, j] = equal[:, j] + EPSILON * expected[j]
        matrix_game(payoff, spare_rows, ys[s])
        defender_gives += (ys[s] * expected).sum() / m
    return value, attacker_gets, defender_gives


@nb.njit(cache=True)
def values_between_duels(cfg, state, memo):
    """Player 0's returns from a finished game, or one between duels: ``(both perfect,
    player 0 perfect against a random player 1, player 1 perfect against a random player 0)``,
    "perfect" being ``_duel``'s strategies in every duel to come."""
    # One self-recursive function: numba's cache does not reload mutually recursive ones.
    if state[S.phase] != PH_DRAW:
        result = state[S.result]
        end = 0.0 if result == DRAW else (1.0 if result == 0 else -1.0)
        return end, end, end
    key = _key(state)
    if key in memo:
        return memo[key]
    attacker = state[S.attacker]
    sign = 1.0 if attacker == 0 else -1.0
    cards = _cards(state, attacker)
    answers = _cards(state, 1 - attacker)
    m, n = cards.shape[0], answers.shape[0]
    equal, attacking, defending = np.empty((m, n)), np.empty((m, n)), np.empty((m, n))
    x, ys = np.empty(m), np.empty((m, n))
    left = 0
    for k in range(NUM_KINDS):
        left += state[S.stack + k]
    totals = np.zeros(3)
    for k in range(NUM_KINDS):
        if state[S.stack + k] == 0:
            continue
        start = state.copy()
        apply(cfg, start, k)
        for i in range(m):
            other = cards[0] if i != 0 else cards[1]
            for j in range(n):
                after = values_between_duels(cfg, _fought(cfg, start, cards[i], answers[j], other), memo)
                equal[i, j] = sign * after[0]
                attacking[i, j] = sign * after[1 + attacker]
                defending[i, j] = sign * after[2 - attacker]
        value, attacker_gets, defender_gives = _duel(equal, attacking, defending, x, ys)
        weight = sign * state[S.stack + k] / left
        totals[0] += weight * value
        totals[1 + attacker] += weight * attacker_gets
        totals[2 - attacker] += weight * defender_gives
    values = (totals[0], totals[1], totals[2])
    memo[key] = values
    return values


@nb.njit(cache=True)
def _duel_start(state):
    start = state.copy()
    start[S.hidden] = -1
    start[S.shown] = -1
    start[S.defended] = -1
    start[S.phase] = PH_HIDE
    start[S.player] = start[S.attacker]
    return start


@nb.njit(cache=True)
def _strategies(cfg, state, memo):
    # The duel's matrices as values_between_duels fills them (not shared: a helper that
    # both call would make the recursion mutual, which numba's cache does not reload).
    start = _duel_start(state)
    attacker = start[S.attacker]
    sign = 1.0 if attacker == 0 else -1.0
    cards = _cards(start, attacker)
    answers = _cards(start, 1 - attacker)
    m, n = cards.shape[0], answers.shape[0]
    equal, attacking, defending = np.empty((m, n)), np.empty((m, n)), np.empty((m, n))
    for i in range(m):
        other = cards[0] if i != 0 else cards[1]
        for j in range(n):
            after = values_between_duels(cfg, _fought(cfg, start, cards[i], answers[j], other), memo)
            equal[i, j] = sign * after[0]
            attacking[i, j] = sign * after[1 + attacker]
            defending[i, j] = sign * after[2 - attacker]
    x, ys = np.empty(m), np.empty((m, n))
    value = _duel(equal, attacking, defending, x, ys)[0]
    return cards, x, answers, ys, value


def duel_strategies(cfg, state, memo):
    """The current duel's matrix game solved: ``(cards, x, answers, ys, value)``.

    ``x`` is the attacker's optimal distribution of its fighting card over ``cards``,
    ``ys[s]`` the defender's over ``answers`` when ``cards[s]`` is shown, and ``value``
    the attacker's expected return under optimal play. ``state`` is any state within
    a duel (the cards already on the table do not change the duel's start).
    """
    if state[S.phase] == PH_DRAW or state[S.result] >= 0:
        raise ValueError("elemental_duel endgame: the state is not within a duel")
    return _strategies(cfg, np.asarray(state), memo)


def attacker_policy(cards, x, hidden: int, shown: int, phase: int) -> dict[int, float]:
    """The attacker's action probabilities at ``phase`` that fight with ``cards[i]`` with
    probability ``x[i]`` whatever card is shown.

    Drawn as if the fighting card ``c`` and the shown card ``s`` were independent draws
    of ``x``: with ``c != s`` the attacker hides ``c``, shows ``s`` and fights the hidden
    card; with ``c == s`` it hides another card (drawn from ``x`` over the others, or
    uniformly when ``x`` puts everything on ``s``) and fights the shown one. Each
    decision's probabilities are that joint law's conditionals, so the policy needs no
    memory between the three decisions.
    """
    p = {int(c): float(w) for c, w in zip(cards, x)}

    def other(s, h):
        # r_s(h): the hidden card that goes back when s fights.
        rest = 1.0 - p[s]
        return p[h] / rest if rest > TOLERANCE else 1.0 / (len(p) - 1)

    def joint(h, s):
        # P(hide h, show s): fighting h, or fighting s with h hidden.
        return p[h] * p[s] + p[s] * p[s] * other(s, h)

    if phase == PH_HIDE:
        weights = {h: sum(joint(h, s) for s in p if s != h) for h in p}
    elif phase == PH_SHOW:
        weights = {s: joint(hidden, s) for s in p if s != hidden}
    elif phase == PH_CHOOSE:
        fight_hidden = p[hidden] * p[shown]
        fight_shown = p[shown] * p[shown] * other(shown, hidden)
        weights = {FIGHT_HIDDEN: fight_hidden, FIGHT_SHOWN: fight_shown}
    else:
        raise ValueError(f"elemental_duel endgame: phase {phase} is not the attacker's")
    total = sum(weights.values())
    if total <= TOLERANCE:  # a choice the joint law never makes: fall back to uniform
        return {a: 1.0 / len(weights) for a in weights}
    return {a: w / total for a, w in weights.items()}


class Endgame:
    """Exact play in a game's last ``duels`` duels, for either seat.

    >>> import elements_ai
    >>> game = elements_ai.load_game("elemental_duel", num_territories=2)
    >>> state = game.new_initial_state()
    >>> for action in (1, 4):   # player 1 attacks first, for a volcano
    ...     state.apply_action(action)
    >>> policy = Endgame(game.cfg, duels=2).policy(state.array)
    >>> bool(abs(sum(policy.values()) - 1) < 1e-9 and set(policy) <= set(state.legal_actions()))
    True
    """

    def __init__(self, cfg, duels: int):
        self.cfg = cfg
        self.duels = int(duels)
        self.memo = new_memo()

    def policy(self, state) -> dict[int, float] | None:
        """The mover's action probabilities at ``state``, or ``None`` before the last ``duels`` duels."""
        state = np.asarray(state)
        if self.cfg[C.duels] - state[S.duels] > self.duels or state[S.player] < 0:
            return None
        if len(self.memo) > 2_000_000:  # positions of earlier games are seldom met again
            self.memo.clear()
        cards, x, answers, ys, _ = duel_strategies(self.cfg, state, self.memo)
        phase = int(state[S.phase])
        if phase == PH_DEFEND:
            y = ys[int(np.flatnonzero(cards == state[S.shown])[0])]
            return {int(d): float(w) for d, w in zip(answers, y)}
        return attacker_policy(cards, x, int(state[S.hidden]), int(state[S.shown]), phase)
