"""Elements (1997): action, state, observation and information-state strings (for people, not for speed)."""

from __future__ import annotations

from ...core.kernel import CHANCE, TERMINAL
from .rules import (
    AT_MASK,
    AT_SHIFT,
    COLOURS,
    DISCARD_BIT,
    EMPTY,
    EV_BID,
    EV_FILL,
    EV_MASK,
    EV_PLAY,
    EV_SHIFT,
    FILLED,
    KEEP,
    LOC_PILE,
    LOG_HOLDER,
    MAX_PLACED,
    NTH_MASK,
    NTH_SHIFT,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_SLOTS,
    NUM_VALUES,
    PASS,
    PH_BID,
    PH_CONTEST,
    PH_DEAL,
    PH_DISCARD,
    PH_ELEMENTS,
    PH_FILL,
    PH_FIRST,
    PH_OVER,
    PH_SLOT,
    RES_NOBODY,
    RES_NONE,
    RES_OPEN,
    RES_ZERO,
    SLOT_ACTION,
    C,
    S,
    round_first,
    row_revealed,
)


def card_name(card: int) -> str:
    """``"red 7"`` for card id 7, ``"yellow 0"`` for 11."""
    return f"{COLOURS[card // NUM_VALUES]} {card % NUM_VALUES}"


PHASE_NAMES = {
    PH_FIRST: "setup",
    PH_ELEMENTS: "setup",
    PH_DEAL: "deal",
    PH_BID: "phase 1 (bids)",
    PH_SLOT: "phase 1 (bids)",
    PH_FILL: "phase 1 (bids)",
    PH_CONTEST: "phase 2 (contests)",
    PH_DISCARD: "phase 3 (keep or discard)",
    PH_OVER: "game over",
}
CARD_VERBS = {PH_BID: "bid", PH_CONTEST: "play", PH_DISCARD: "discard"}


def action_to_string(cfg, state, player: int, action: int) -> str:
    action = int(action)
    phase = int(state[S.phase])
    if player == CHANCE:
        if phase == PH_FIRST and 0 <= action < cfg[C.players]:
            return f"first player {action}"
        if phase == PH_ELEMENTS and 0 <= action < NUM_COLOURS:
            return f"element {COLOURS[action]}"
        if phase in (PH_DEAL, PH_FILL) and 0 <= action < NUM_CARDS:
            return f"deal {card_name(action)}"
        raise ValueError(f"elements1997: {action} is not a chance outcome here")
    if 0 <= action < NUM_CARDS:
        return f"{CARD_VERBS.get(phase, 'card')} {card_name(action)}"
    if SLOT_ACTION <= action < SLOT_ACTION + NUM_SLOTS:
        return f"slot {action - SLOT_ACTION + 1}"
    if action == PASS:
        return "pass"
    if action == KEEP:
        return "keep"
    raise ValueError(f"elements1997: action {action} is out of range 0..{NUM_ACTIONS - 1}")


def _cards(cards) -> str:
    return "[" + ", ".join(card_name(c) for c in cards) + "]"


def _seat(seat: int) -> str:
    return f"p{seat}"


def _to_move(state) -> str:
    player = int(state[S.player])
    return {CHANCE: "chance", TERMINAL: "nobody (game over)"}.get(player, _seat(player))


def _hand(state, player: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if state[S.where + c] == player]


def _result_text(code: int) -> str:
    if code == RES_OPEN:
        return "open"
    if code == RES_ZERO:
        return "worth 0, into the pile"
    if code == RES_NOBODY:
        return "won by nobody"
    return f"won by {_seat(code)}"


def _header(cfg, state) -> list[str]:
    n = int(cfg[C.players])
    if state[S.first] < 0:
        return ["setup: first player not drawn yet"]
    rnd = int(state[S.round])
    lines = [
        f"round {rnd + 1} of {int(cfg[C.rounds])}, first player {_seat(int(round_first(cfg, state)))}, "
        f"{PHASE_NAMES[int(state[S.phase])]}, to move {_to_move(state)}"
    ]
    placed = int(state[S.placed_elements])
    colours = [COLOURS[int(state[S.element + i])] for i in range(placed)]
    lines.append("element row from the box (strongest first): " + (" > ".join(colours) if colours else "-"))
    lines.append("scores " + ", ".join(f"{_seat(q)} {int(state[S.score + q])}" for q in range(n)))
    lines.append("hand sizes " + ", ".join(f"{_seat(q)} {int(state[S.hand_size + q])}" for q in range(n)))
    lines.append(f"draw pile {int(state[S.pile])}")
    return lines


def _row(cfg, state, viewer: int | None) -> list[str]:
    """The cards opposite the element cards, as ``viewer`` sees them (None: all)."""
    if state[S.placed_elements] < NUM_SLOTS or state[S.phase] == PH_DEAL:
        return []
    revealed = bool(row_revealed(state))
    rnd = int(state[S.round])
    parts = []
    for i in range(NUM_SLOTS):
        colour = COLOURS[int(state[S.element + i])]
        owner = int(state[S.slot_owner + i])
        card = int(state[S.slot_card + i])
        if owner == EMPTY:
            parts.append(f"{i + 1} {colour}: -")
            continue
        who = "pile" if owner == FILLED else _seat(owner)
        visible = revealed or viewer is None or owner == viewer
        text = f"{i + 1} {colour}: {who} {card_name(card) if visible else 'face down'}"
        if revealed:
            code = int(state[S.result + NUM_SLOTS * rnd + i])
            text += ", being contested" if i == state[S.contest_pos] else f", {_result_text(code)}"
        parts.append(text)
    return ["row " + " | ".join(parts)]


def _contest(cfg, state) -> list[str]:
    pos = int(state[S.contest_pos])
    if pos < 0:
        return []
    n = int(cfg[C.players])
    parts = []
    for q in range(n):
        cards = [int(state[S.placed + MAX_PLACED * q + i]) for i in range(int(state[S.num_placed + q]))]
        status = " passed" if state[S.out + q] else ""
        parts.append(f"{_seat(q)} {_cards(cards)}{status}")
    point = card_name(int(state[S.slot_card + pos]))
    turn = ", second card of a third turn" if state[S.double] else ""
    return [f"contest {int(state[S.contest])} for {point}, started by {_seat(int(state[S.starter]))}{turn}: "
            + "; ".join(parts)]


def state_to_string(cfg, state) -> str:
    n = int(cfg[C.players])
    lines = _header(cfg, state) + _row(cfg, state, None) + _contest(cfg, state)
    if state[S.pending] >= 0:
        lines.append(f"bid waiting for a slot: {card_name(int(state[S.pending]))}")
    for q in range(n):
        lines.append(f"hand {_seat(q)} {_cards(_hand(state, q))}")
    lines.append("draw pile " + _cards([c for c in range(NUM_CARDS) if state[S.where + c] == LOC_PILE]))
    return "\n".join(lines)


def observation_string(cfg, state, player: int) -> str:
    lines = [f"observer {_seat(player)}"] + _header(cfg, state) + _row(cfg, state, player) + _contest(cfg, state)
    if state[S.pending] >= 0 and state[S.player] == player:
        lines.append(f"own bid waiting for a slot: {card_name(int(state[S.pending]))}")
    lines.append(f"own hand {_cards(_hand(state, player))}")
    return "\n".join(lines)


def _round_history(cfg, state, rnd: int, player: int) -> list[str]:
    """Round ``rnd`` as ``player`` remembers it: own cards and discards, public events."""
    n = int(cfg[C.players])
    entries = [int(state[S.log + NUM_CARDS * rnd + c]) for c in range(NUM_CARDS)]
    holders = [(e & LOG_HOLDER) - 1 for e in entries]
    events = [(e >> EV_SHIFT) & EV_MASK for e in entries]
    ats = [(e >> AT_SHIFT) & AT_MASK for e in entries]
    order = [int(state[S.order + NUM_SLOTS * rnd + i]) for i in range(NUM_SLOTS)]
    lines = []
    own = [c for c in range(NUM_CARDS) if holders[c] == player]
    lines.append(f"round {rnd + 1}: own cards {_cards(own)}")
    if order[0] >= 0:
        lines.append(f"round {rnd + 1}: element row " + " > ".join(COLOURS[c] for c in order))
    public_row = rnd < state[S.round] or bool(row_revealed(state))
    bids = []
    for c in range(NUM_CARDS):
        if events[c] in (EV_BID, EV_FILL):
            who = _seat(holders[c]) if events[c] == EV_BID else "pile"
            seen = public_row or holders[c] == player
            bids.append((ats[c], f"slot {ats[c] + 1} {who} {card_name(c) if seen else 'face down'}"))
    if bids:
        lines.append(f"round {rnd + 1}: bids " + ", ".join(text for _, text in sorted(bids)))
    plays = sorted(
        (ats[c], (entries[c] >> NTH_SHIFT) & NTH_MASK, holders[c], c) for c in range(NUM_CARDS) if events[c] == EV_PLAY
    )
    contests = sorted({p[0] for p in plays})
    for k in contests:
        by_player = {q: [c for (kk, _, h, c) in plays if kk == k and h == q] for q in range(n)}
        lines.append(
            f"round {rnd + 1}: contest {k + 1} "
            + "; ".join(f"{_seat(q)} {_cards(cards)}" for q, cards in by_player.items())
        )
    results = [int(state[S.result + NUM_SLOTS * rnd + i]) for i in range(NUM_SLOTS)]
    if any(code != RES_NONE for code in results) and rnd < state[S.round]:
        lines.append(f"round {rnd + 1}: results " + ", ".join(
            f"{i + 1} {_result_text(code)}" for i, code in enumerate(results) if code != RES_NONE))
    counts = [sum(1 for c in range(NUM_CARDS) if entries[c] & DISCARD_BIT and holders[c] == q) for q in range(n)]
    if any(counts):
        own_discards = [c for c in range(NUM_CARDS) if entries[c] & DISCARD_BIT and holders[c] == player]
        lines.append(
            f"round {rnd + 1}: discarded " + ", ".join(f"{_seat(q)} {counts[q]}" for q in range(n))
            + f"; own {_cards(own_discards)}"
        )
    return lines


def information_state_string(cfg, state, player: int) -> str:
    lines = [observation_string(cfg, state, player)]
    if state[S.first] >= 0:
        lines.append(f"first player of round 1 {_seat(int(state[S.first]))}")
        for rnd in range(int(state[S.round]) + 1):
            lines += _round_history(cfg, state, rnd, player)
    return "\n".join(lines)
