"""Pictures a player reads at a glance: no two words drawn over each other and nothing
past the picture's edge, for every game and player count, over many random states
(the end included), every seat's view and the god view, on a wide page and on a
phone's width; no word smaller than 12 px; no engine line in the player's view.

A text's box is estimated from its font size and length (the pictures are drawn in
a monospace font, whose glyphs are 0.6 em wide)."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import elements_ai
from elements_ai.render import svg
from elements_ai.testing import random_action, random_states

NS = "{http://www.w3.org/2000/svg}"
WIDTHS = (900, 360)
CONFIGS = [
    "elements", "elements(single_round=true)", "elements1997(players=3)", "elements1997(players=4)",
    "elements1997(players=5)", "elementum(players=1)", "elementum(players=2)", "elementum(players=3)",
    "elementum(players=4)", "elemental_duel", "elementos", "elementos(setup=random)",
]
STATES = 8


def text_boxes(document: str) -> list[tuple[str, float, float, float, float]]:
    """(text, left, top, right, bottom) of every word drawn in ``document``."""
    boxes = []
    for node in ET.fromstring(document).iter(f"{NS}text"):
        text = node.text or ""
        size = float(node.get("font-size"))
        x, y = float(node.get("x")), float(node.get("y"))
        width = svg.text_width(text, size)
        left = x - {"start": 0.0, "middle": 0.5, "end": 1.0}[node.get("text-anchor", "start")] * width
        boxes.append((text, left, y - 0.8 * size, left + width, y + 0.2 * size))
    return boxes


def overlaps(document: str) -> list[tuple[str, str]]:
    """Pairs of words whose boxes overlap (by more than half a pixel each way)."""
    found = []
    for a, b in itertools.combinations(text_boxes(document), 2):
        if min(a[3], b[3]) - max(a[1], b[1]) > 0.5 and min(a[4], b[4]) - max(a[2], b[2]) > 0.5:
            found.append((a[0], b[0]))
    return found


def outside(document: str) -> list[str]:
    width = float(ET.fromstring(document).get("width"))
    return [text for text, left, _, right, _ in text_boxes(document) if left < 0 or right > width + 0.5]


def test_the_checks_find_an_overlap_and_a_word_past_the_edge():
    document = ('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">'
                + svg.text(10, 20, "hello") + svg.text(30, 22, "world") + svg.text(60, 45, "far away") + "</svg>")
    assert overlaps(document) == [("hello", "world")]
    assert outside(document) == ["far away"]


def _states(game, seed):
    states = random_states(game, STATES, seed=seed)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(random_action(state, rng))
    return [*states, state]


def _last_moves(state):
    """A move for each seat as long as a move gets, so that the marked lines are drawn too."""
    return {p: "pick 17 (the longest move a game writes, or near it)" for p in range(state.get_game().num_players())}


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS)
def test_no_word_overlaps_another_or_leaves_the_picture(config):
    game = elements_ai.load_game(config)
    checked = 0
    for k, state in enumerate(_states(game, seed=len(config))):
        for player in [None, *range(game.num_players())]:
            for width in WIDTHS:
                last = _last_moves(state) if k % 2 else None
                document = elements_ai.render(state, player, width=width, last=last, regions=True)
                where = f"{config}, state {k}, player {player}, width {width}"
                assert not overlaps(document), (where, overlaps(document)[:5])
                assert not outside(document), (where, outside(document)[:5])
                sizes = [float(s) for s in re.findall(r'font-size="([\d.]+)"', document)]
                assert min(sizes) >= 12, (where, min(sizes))
                checked += 1
    assert checked >= STATES * 2 * (game.num_players() + 1)


@pytest.mark.parametrize("config", ["elements", "elements1997(players=3)", "elementum", "elemental_duel",
                                    "elementos"])
def test_engine_lines_are_for_the_debug_view_only(config):
    game = elements_ai.load_game(config)
    for state in random_states(game, 4, seed=1):
        player = state.current_player()
        said = svg.words(elements_ai.render(state, player))
        assert "observer" not in said and "to move p" not in said and not re.search(r"\bstep \w", said), said
        assert f"observer p{player}" in svg.words(elements_ai.render(state, player, debug=True))
        assert said.startswith(f"{game.get_type().long_name} you are Player {player} Your turn: ")


def test_elementum_cards_say_their_effect_and_hold_the_full_text():
    from elements_ai.games.elementum.picture import effect

    state = random_states(elements_ai.load_game("elementum"), 1, seed=2)[0]
    document = elements_ai.render(state, state.current_player())
    hand = re.search(r"hand \[([^\]]*)\]", state.observation_string(state.current_player())).group(1)
    for label in hand.split(", "):
        short, full = effect(int(label.split()[0]))
        assert short in svg.words(document) and f"<title>{svg.esc(full)}</title>" in document, label


def test_the_picture_takes_the_width_it_is_given():
    state = random_states(elements_ai.load_game("elementum(players=3)"), 1, seed=3)[0]
    for width in WIDTHS:
        document = elements_ai.render(state, 0, width=width)
        assert float(ET.fromstring(document).get("width")) == width
        right = max(box[3] for box in text_boxes(document))
        assert right > 0.6 * width  # the seats side by side on a wide page, the columns across a narrow one
    with pytest.raises(elements_ai.ParameterError, match="width must be a number from 320"):
        elements_ai.render(state, 0, width=100)
