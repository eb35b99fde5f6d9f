"""Elementum: action, state, observation and information-state strings (for people, not for speed)."""

from __future__ import annotations

from ...core.kernel import CHANCE, TERMINAL
from .cards import (
    BIFARIUS_CARD,
    COMMODUM_CARD,
    ELEMENTS,
    IMITARI_CARD,
    NUM_CARDS,
    NUM_ELEMENTS,
    NUM_SPELLS,
    OVERLOAD_PENALTY,
    QUI_FIERI_CARD,
    SPECULUM_CARD,
    card_label,
)
from .state import (
    A_COLUMN,
    A_DESTROY,
    A_KEEP_OVERLOAD,
    A_NO_CRYSTAL,
    A_NO_SWAP,
    A_OVERLOAD_TO,
    A_PICK,
    A_REVERSE,
    A_SWAP,
    A_TIE_BREAKER,
    ACTOR_DEALT,
    ACTOR_IMITATION,
    ACTOR_OVERLOAD,
    ACTOR_PASS,
    ACTOR_POOL,
    ACTOR_SOURCE,
    CARD_FAMILIES,
    DEC_TAKE,
    DECISIONS,
    IMITATION,
    LOC_BOX,
    LOC_DECK,
    LOC_DESTROYED,
    LOC_HAND,
    LOC_LAYOUT,
    LOC_PICK,
    LOC_POOL,
    LOG_STRIDE,
    MAX_PLAYERS,
    MAX_SEATS,
    NO_SWAP,
    NUM_ACTIONS,
    NUM_COLUMNS,
    SOLO_RANKS,
    STEP_BOX,
    STEP_DEAL,
    STEP_PICK,
    STEP_POOL,
    STEP_SOURCE,
    STEP_SWAP,
    STEP_V_PICK,
    STEPS,
    TOP_RANK,
    UNDECLARED,
    C,
    S,
)


def _number(card: int) -> int:
    return int(card) + 1


def _seat_name(cfg, seat: int) -> str:
    return "imitation" if cfg[C.solo] == 1 and seat == IMITATION else f"p{seat}"


def action_to_string(cfg, state, player: int, action: int) -> str:
    action = int(action)
    if player == CHANCE:
        step = int(state[S.step])
        if step == STEP_SOURCE and 0 <= action < NUM_ELEMENTS:
            return f"source {ELEMENTS[action]}"
        if 0 <= action < NUM_CARDS:
            what = {STEP_BOX: "box", STEP_POOL: "pool", STEP_DEAL: "deal",
                    STEP_PICK: "imitation picks", STEP_V_PICK: "imitation picks"}.get(step)
            if what is not None:
                return f"{what} {_number(action)}"
        raise ValueError(f"elementum: {action} is not a chance outcome here")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"elementum: action {action} is out of range 0..{NUM_ACTIONS - 1}")
    if action < A_COLUMN:
        family, card = divmod(action, NUM_SPELLS)
        return f"{CARD_FAMILIES[family]} {_number(card)}"
    if action < A_NO_SWAP:
        return f"column {action - A_COLUMN + 1}"
    if A_OVERLOAD_TO <= action < A_KEEP_OVERLOAD:
        target = action - A_OVERLOAD_TO
        return "overload to imitation" if cfg[C.solo] == 1 and target == IMITATION else f"overload to {target}"
    return {A_NO_SWAP: "no swap", A_REVERSE: "reverse draft", A_TIE_BREAKER: "tie-breaker",
            A_NO_CRYSTAL: "no crystal", A_KEEP_OVERLOAD: "keep overload"}[action]


def _cards_at(state, loc: int) -> list[int]:
    return [c for c in range(NUM_SPELLS) if state[S.loc + c] == loc]


def _card_list(cards) -> str:
    return "[" + ", ".join(card_label(c) for c in sorted(cards)) + "]"


def _columns(state, seat: int) -> list[list[int]]:
    """Each column of ``seat``'s layout, top to bottom."""
    columns: list[list[int]] = [[] for _ in range(NUM_COLUMNS)]
    for c in _cards_at(state, LOC_LAYOUT + seat):
        columns[int(state[S.col + c])].append(c)
    for column in columns:
        column.sort(key=lambda c: int(state[S.row + c]))
    return columns


def _source_names(state) -> list[str]:
    return [ELEMENTS[int(state[S.source + k])] if state[S.source + k] >= 0 else "?" for k in range(NUM_COLUMNS)]


def _layout_lines(cfg, state, seat: int) -> list[str]:
    names = _source_names(state)
    lines = []
    for k, column in enumerate(_columns(state, seat)):
        cells = [card_label(c) + "*" * int(state[S.cryst + c]) for c in column]
        lines.append(f"    {names[k]}: " + (", ".join(cells) if cells else "-"))
    return lines


def _to_move(cfg, state) -> str:
    player = int(state[S.player])
    if player == TERMINAL:
        return "nobody (game over)"
    if player == CHANCE:
        return "chance"
    return f"p{player} ({DECISIONS[int(state[S.decision])]})"


def _public_lines(cfg, state) -> list[str]:
    holder = int(state[S.overload])
    marks = []
    for card, field in ((BIFARIUS_CARD, S.mark_bifarius), (SPECULUM_CARD, S.mark_speculum)):
        if state[field] >= 0:
            marks.append(f"{card_label(card)} ({_seat_name(cfg, int(state[field]))})")
    rounds = int(cfg[C.rounds])
    lines = [
        f"round {min(int(state[S.round]) + 1, rounds)} of {rounds}, turn {int(state[S.turn]) + 1}, "
        f"step {STEPS[int(state[S.step])]}, to move {_to_move(cfg, state)}",
        "sources " + " ".join(_source_names(state)),
        f"supply {int(state[S.supply])}, pool {_card_list(_cards_at(state, LOC_POOL))}",
        f"draft {'reversed' if state[S.direction] < 0 else 'to the next seat'}"
        + (", velocitatis this turn" if state[S.velocity] else ""),
    ]
    destroyed = _cards_at(state, LOC_DESTROYED)
    if destroyed:
        lines.append(f"destroyed {_card_list(destroyed)}")
    if cfg[C.overload] == 1:
        lines.append("overload " + (f"beside {_seat_name(cfg, holder)}" if holder >= 0 else "not dealt yet"))
    if marks:
        lines.append("tie-breakers " + ", ".join(marks))
    return lines


def _seat_lines(cfg, state, seat: int, observer: int | None) -> list[str]:
    """A seat's public part; its hand and hidden choices when ``observer`` may see them
    (``None``: everything, for the full state)."""
    see = observer is None or observer == seat
    hand = int(state[S.hand_of + seat])
    size = int(state[S.hand_size + hand])
    head = f"{_seat_name(cfg, seat)}: crystals {int(state[S.crystals + seat])}, hand "
    head += _card_list(_cards_at(state, LOC_HAND + hand)) if see else f"{size} cards"
    pending = int(state[S.pending + seat])
    if pending >= 0:
        head += f", picked {card_label(pending)}" if see else ", picked a card"
    placing = int(state[S.placing + seat])
    if placing >= 0:
        head += f", placing {card_label(placing)}"
    declared = int(state[S.swap + seat])
    if state[S.step] == STEP_SWAP and declared != UNDECLARED:
        if see:
            head += ", declared " + ("no swap" if declared == NO_SWAP else f"swap {_number(declared)}")
        else:
            head += ", declared"
    return [head] + _layout_lines(cfg, state, seat)


def score_lines(cfg, state) -> list[str]:
    """The score card of a finished game, card by card (column by column from the left)."""
    names = _source_names(state)
    lines = ["score card"]
    for seat in range(int(cfg[C.players])):
        lines.append(f"  p{seat}")
        for k, column in enumerate(_columns(state, seat)):
            for row, c in enumerate(column):
                note = ""
                if c == COMMODUM_CARD and state[S.halves + seat] >= 0:
                    note = f" (half of {card_label(int(state[S.halves + seat]))})"
                if c == IMITARI_CARD and state[S.imitates + seat] >= 0:
                    note = f" (as {card_label(int(state[S.imitates + seat]))})"
                helped = [int(state[f + seat]) for f in (S.qf_a, S.qf_b) if state[f + seat] >= 0]
                if c == QUI_FIERI_CARD and helped:
                    note = " (helps " + ", ".join(card_label(h) for h in helped) + ")"
                crystals = "*" * int(state[S.cryst + c])
                lines.append(
                    f"    {names[k]} {row + 1}: {card_label(c)}{crystals}{note} {int(state[S.points + c]):+d}"
                )
        if state[S.overload] == seat:
            lines.append(f"    overload {-OVERLOAD_PENALTY:+d}")
        total = int(state[S.score + seat])
        rank = f" ({solo_rank(total)})" if cfg[C.solo] == 1 else ""
        lines.append(f"    total {total}{rank}")
    return lines


def solo_rank(points: int) -> str:
    """The solo game's rank of a score.

    >>> solo_rank(34), solo_rank(35), solo_rank(76)
    ('Novice', 'Apprentice', 'Archmage')
    """
    for at_most, name in SOLO_RANKS:
        if points <= at_most:
            return name
    return TOP_RANK


def state_to_string(cfg, state) -> str:
    lines = _public_lines(cfg, state)
    for seat in range(int(cfg[C.seats])):
        lines += _seat_lines(cfg, state, seat, None)
    lines.append(f"box {_card_list(_cards_at(state, LOC_BOX))}")
    lines.append(f"deck {_card_list([c for c in range(NUM_CARDS) if state[S.loc + c] == LOC_DECK])}")
    if state[S.player] == TERMINAL:
        lines += score_lines(cfg, state)
    return "\n".join(lines)


def observation_string(cfg, state, player: int) -> str:
    lines = [f"observer {_seat_name(cfg, player)}"] + _public_lines(cfg, state)
    for seat in range(int(cfg[C.seats])):
        lines += _seat_lines(cfg, state, seat, player)
    if state[S.decision] == DEC_TAKE and state[S.player] >= 0:
        lines.append(f"given to the pool {card_label(int(state[S.given]))}")
    return "\n".join(lines)


def _history(cfg, state, player: int) -> list[str]:
    """The log as ``player`` saw it, with the hands they received."""
    seats = int(cfg[C.seats])
    start = int(S.log)
    revealed = int(state[S.revealed])
    hands: list[set[int]] = [set() for _ in range(seats)]
    hand_of = list(range(seats))
    direction = 1
    lines = []
    for i in range(int(state[S.log_len])):
        actor, value = divmod(int(state[start + i]), LOG_STRIDE)
        if actor < MAX_PLAYERS:
            hidden_kind = value < A_DESTROY or value == A_NO_SWAP  # a pick or a swap declaration
            if value < A_SWAP:
                hands[hand_of[actor]].discard(value - A_PICK)
            if value == A_REVERSE:
                direction = -direction
            if actor != player and hidden_kind and i >= revealed:
                text = "picks a card" if value < A_SWAP else "declares"
            else:
                text = action_to_string(cfg, state, actor, value)
            lines.append(f"p{actor} {text}")
        elif actor == ACTOR_SOURCE:
            lines.append(f"source {ELEMENTS[value]}")
        elif actor == ACTOR_POOL:
            lines.append(f"pool {_number(value)}")
        elif actor == ACTOR_IMITATION:
            hands[hand_of[IMITATION]].discard(value)
            lines.append(f"imitation picks {_number(value)}")
        elif actor == ACTOR_OVERLOAD:
            lines.append(f"{_seat_name(cfg, value)} is dealt the overload")
        elif actor == ACTOR_DEALT:
            hand_of = list(range(seats))
            hands = [
                {c for c in range(NUM_SPELLS) if state[S.origin + c] == value * MAX_SEATS + h} for h in range(seats)
            ]
            lines.append(f"round {value + 1}: you are dealt {_card_list(hands[player])}")
        elif actor == ACTOR_PASS:
            if direction > 0:
                hand_of = [hand_of[(s - 1) % seats] for s in range(seats)]
            else:
                hand_of = [hand_of[(s + 1) % seats] for s in range(seats)]
            lines.append(f"hands passed: you receive {_card_list(hands[hand_of[player]])}")
    return lines


def information_state_string(cfg, state, player: int) -> str:
    lines = [observation_string(cfg, state, player)]
    seen = int(state[S.seen + player])
    for seat in range(int(cfg[C.seats])):
        hand = int(state[S.hand_of + seat])
        if seat != player and (seen >> hand) & 1:
            cards = _cards_at(state, LOC_HAND + hand) + _cards_at(state, LOC_PICK + seat)
            lines.append(f"known hand of {_seat_name(cfg, seat)} (with its pick) {_card_list(cards)}")
    lines.append("history: " + "; ".join(_history(cfg, state, player)))
    return "\n".join(lines)
