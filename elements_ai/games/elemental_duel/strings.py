"""Elemental Duel: action, state, observation and information-state strings (for people, not for speed)."""

from __future__ import annotations

from ...core.kernel import CHANCE
from .rules import (
    DRAW,
    END_FOUR,
    END_ICONS,
    END_STARS,
    END_TYPES,
    FIGHT_HIDDEN,
    FIGHT_SHOWN,
    LIGHT,
    LOG_FIELDS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_KINDS,
    NUM_TYPES,
    PH_CHOOSE,
    PH_DEFEND,
    PH_DRAW,
    PH_HIDE,
    PH_OVER,
    PH_SHOW,
    VALUES,
    C,
    S,
    beats,
    duel_winner,
    icons,
    turns_over,
)

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
        if state[S.first] < 0 and action in (0, 1):
            return f"first attacker {action}"
        if state[S.first] >= 0 and 0 <= action < NUM_KINDS:
            return KIND_NAMES[action]
        raise ValueError(f"elemental_duel: {action} is not a chance outcome here")
    if action == FIGHT_HIDDEN:
        return "fight hidden"
    if action == FIGHT_SHOWN:
        return "fight shown"
    if not 0 <= action < NUM_CARDS:
        raise ValueError(f"elemental_duel: action {action} is out of range 0..{NUM_ACTIONS - 1}")
    verb = PHASE_VERBS.get(int(state[S.phase]), "card")
    return f"{verb} {CARD_NAMES[action]}"


def _cards(cards) -> str:
    return ", ".join(CARD_NAMES[c] for c in cards) if cards else "-"


def _hand(state, player: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if state[S.hand + NUM_CARDS * player + c] == 1]


def _played(state, player: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if state[S.hand + NUM_CARDS * player + c] == 0]


def _territories(state, player: int) -> str:
    names = []
    for k in range(NUM_KINDS):
        for turned in range(2):
            count = int(state[S.held + 2 * NUM_KINDS * player + 2 * k + turned])
            names += [KIND_NAMES[k] + (" turned" if turned else "")] * count
    icon_text = ", ".join(f"{TYPE_NAMES[t]} {int(icons(state, player, t))}" for t in range(NUM_TYPES))
    return f"[{', '.join(names) if names else '-'}] icons {icon_text}"


def _stack(state) -> str:
    return ", ".join(f"{KIND_NAMES[k]} {int(state[S.stack + k])}" for k in range(NUM_KINDS))


def _status(cfg, state) -> str:
    """Duel number, attacker, contested territory and whose move it is."""
    first = int(state[S.first])
    if first < 0:
        return "first attacker not drawn yet"
    phase = int(state[S.phase])
    attacker = int(state[S.attacker])
    duels = int(state[S.duels])
    if phase == PH_OVER:
        result = int(state[S.result])
        how = int(state[S.how])
        if result == DRAW:
            return f"game over after {duels} duels: draw (equal types and equal icons)"
        return f"game over after {duels} duels: p{result} wins with {HOW_TEXT[how]}"
    head = f"duel {duels + 1} of {int(cfg[C.duels])}, p{attacker} attacks"
    if phase == PH_DRAW:
        return head + ", territory to draw"
    todo = {
        PH_HIDE: f"p{attacker} to hide a card",
        PH_SHOW: f"p{attacker} to show a card",
        PH_DEFEND: f"p{1 - attacker} to defend",
        PH_CHOOSE: f"p{attacker} to choose the fighting card",
    }[phase]
    return f"{head} for {KIND_NAMES[int(state[S.contested])]}, {todo}"


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
    attacker = int(state[S.attacker])
    hidden, shown, defended = (int(state[s]) for s in (S.hidden, S.shown, S.defended))
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
    log = S.log + LOG_FIELDS * i
    kind, hidden, shown, defended, fought = (int(state[log + f]) for f in range(LOG_FIELDS))
    attacker = int(state[S.first]) ^ (i & 1)
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
    return [_duel_line(state, i, viewer) for i in range(int(state[S.duels]))]


def state_to_string(cfg, state) -> str:
    first = int(state[S.first])
    lines = _public(cfg, state) + [_table(state, None)]
    lines.append(f"first attacker {'p' + str(first) if first >= 0 else '-'}")
    return "\n".join(lines + _history(state, None))


def observation_string(cfg, state, player: int) -> str:
    return "\n".join([f"observer p{player}"] + _public(cfg, state) + [_table(state, player)])


def information_state_string(cfg, state, player: int) -> str:
    first = int(state[S.first])
    lines = [observation_string(cfg, state, player)]
    lines.append(f"first attacker {'p' + str(first) if first >= 0 else '-'}")
    return "\n".join(lines + _history(state, player))
