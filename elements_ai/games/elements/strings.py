"""Elements (2016): action, state, observation and information-state strings."""

from __future__ import annotations

from ...core.kernel import CHANCE, TERMINAL
from .rules import NUM_ACTIONS, NUM_VALUES, S, limit, player_sum

ACTION_NAMES = tuple(f"play {v}" for v in range(1, NUM_VALUES + 1)) + ("take", "discard 6", "knock", "yield")


def action_to_string(cfg, state, player: int, action: int) -> str:
    if player == CHANCE:
        if state[S.start] < 0 and action in (0, 1):
            return f"start player {action}"
        if state[S.start] >= 0 and 0 <= action < NUM_VALUES:
            return f"deal {action + 1}"
        raise ValueError(f"elements: {action} is not a chance outcome here")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"elements: action {action} is out of range 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def _cards(state, offset: int) -> str:
    values = [str(v + 1) for v in range(NUM_VALUES) for _ in range(int(state[offset + v]))]
    return " ".join(values) if values else "-"


def _display(cfg, state) -> str:
    cards = [str(int(state[S.display + i])) for i in range(int(state[S.display_len]))]
    return (" ".join(cards) if cards else "-") + f" (limit {int(limit(cfg, state))})"


def _history(cfg, state) -> str:
    start = int(state[S.start])
    moves = [
        f"p{start ^ (i & 1)} {ACTION_NAMES[int(state[cfg[S.history] + i])]}"
        for i in range(int(state[S.history_len]))
    ]
    return ", ".join(moves) if moves else "-"


def _to_move(state) -> str:
    player = int(state[S.player])
    return {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(player, f"p{player}")


def _public(cfg, state) -> list[str]:
    return [
        f"scores p0 {int(state[S.score])}, p1 {int(state[S.score + 1])}",
        f"to move {_to_move(state)}",
        f"display {_display(cfg, state)}",
        f"in front p0 [{_cards(state, S.front)}] p1 [{_cards(state, S.front + NUM_VALUES)}]",
        f"discarded 6s p0 {int(state[S.discarded])}, p1 {int(state[S.discarded + 1])}",
    ]


def state_to_string(cfg, state) -> str:
    rounds = int(state[S.round]) + (0 if state[S.player] == TERMINAL else 1)
    lines = [f"round {rounds}, start player {int(state[S.start])}"] + _public(cfg, state)
    lines += [
        f"hand p0 [{_cards(state, S.hand)}] sum {int(player_sum(state, 0))}",
        f"hand p1 [{_cards(state, S.hand + NUM_VALUES)}] sum {int(player_sum(state, 1))}",
        f"undealt and set aside [{_cards(state, S.deck)}]",
        f"history {_history(cfg, state)}",
    ]
    if state[S.scorer] >= 0:
        lines.append(f"last round: p{int(state[S.scorer])} scored {int(state[S.points])}")
    return "\n".join(lines)


def _hand_sizes(state) -> str:
    sizes = [sum(int(state[S.hand + NUM_VALUES * p + v]) for v in range(NUM_VALUES)) for p in (0, 1)]
    return f"hand sizes p0 {sizes[0]}, p1 {sizes[1]}"


def observation_string(cfg, state, player: int) -> str:
    lines = [f"observer p{player}"] + _public(cfg, state)
    lines += [
        f"own hand [{_cards(state, S.hand + NUM_VALUES * player)}] sum {int(player_sum(state, player))}",
        _hand_sizes(state),
    ]
    return "\n".join(lines)


def information_state_string(cfg, state, player: int) -> str:
    start = int(state[S.start])
    return "\n".join(
        [
            observation_string(cfg, state, player),
            f"own deal [{_cards(state, S.deal + NUM_VALUES * player)}]",
            f"round start {'p' + str(start) if start >= 0 else '-'}",
            f"history {_history(cfg, state)}",
        ]
    )
