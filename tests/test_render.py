"""Pictures of states (``elements_ai.render``): well-formed SVG for every game and
variant, player views that show nothing the player cannot see, Jupyter's
``_repr_svg_``, ``demo --svg``, and the regions a page clicks to choose moves."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import elements_ai
from elements_ai import cli
from elements_ai.render import clicks
from elements_ai.testing import random_states

SVG = "{http://www.w3.org/2000/svg}svg"


def _variants():
    for name in elements_ai.GAMES:
        for variant, params in elements_ai.get_kernel(name).variants.items():
            yield pytest.param(name, params, id=f"{name}-{variant}")


def _step(state, rng):
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(actions, p=np.asarray(probs) / sum(probs))))
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


def _check(state):
    for player in [None, *range(state.get_game().num_players())]:
        picture = elements_ai.render(state, player)
        root = ET.fromstring(picture)
        assert root.tag == SVG
        assert root.findall(".//{http://www.w3.org/2000/svg}text"), "a picture without a word"


@pytest.mark.parametrize("name, params", list(_variants()))
def test_every_variant_draws_well_formed_svg_from_start_to_end(name, params):
    game = elements_ai.load_game(name, **params)
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    _check(state)
    states = []
    while not state.is_terminal():
        _step(state, rng)
        states.append(state.clone())
    _check(states[len(states) // 2])
    _check(state)
    from elements_ai.render.svg import words
    from elements_ai.render.words import result_words

    assert f"Game over: {result_words(state)}" in words(elements_ai.render(state))


LEAK_GAMES = [(name, {}) for name in elements_ai.GAMES] + [
    ("elementos", {"setup": "random"}),
    pytest.param("elements1997", {"players": 4, "empty_slots": "aside", "rounds": 2}, marks=pytest.mark.slow),
    pytest.param("elementum", {"players": 3}, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("name, params", LEAK_GAMES, ids=lambda x: x if isinstance(x, str) else str(x))
def test_a_players_picture_shows_nothing_they_cannot_see(name, params):
    game = elements_ai.load_game(name, **params)
    sampler = np.random.RandomState(0).rand
    god_differs = other_differs = 0
    for state in random_states(game, 25, seed=4):
        for player in range(game.num_players()):
            for _ in range(2):
                sampled = state.resample_from_infostate(player, sampler)
                assert elements_ai.render(sampled, player) == elements_ai.render(state, player)
                # The resampled state has no history: compare the god view without it,
                # so that a difference is one of hidden cards or pieces.
                god = [line for line in str(state).splitlines() if not line.startswith("history")]
                if god != [line for line in str(sampled).splitlines() if not line.startswith("history")]:
                    god_differs += elements_ai.render(sampled) != elements_ai.render(state)
                others = [p for p in range(game.num_players()) if p != player]
                other_differs += any(
                    elements_ai.render(sampled, p) != elements_ai.render(state, p) for p in others
                )
    # The check has teeth: what a player cannot see is drawn for those who can.
    assert god_differs > 0
    if game.num_players() > 1:
        assert other_differs > 0


def test_render_is_what_jupyter_shows_and_rejects_a_bad_seat():
    state = random_states(elements_ai.load_game("elementos"), 1, seed=5)[0]
    assert state._repr_svg_() == elements_ai.render(state)
    with pytest.raises(ValueError, match="player 2 is out of range"):
        elements_ai.render(state, 2)


def test_hidden_pieces_and_cards_are_drawn_as_backs():
    state = random_states(elements_ai.load_game("elementos", setup="random"), 1, seed=6)[0]
    assert ">?</text>" in elements_ai.render(state, 0)
    assert ">?</text>" not in elements_ai.render(state)
    state = random_states(elements_ai.load_game("elements"), 1, seed=6)[0]
    assert elements_ai.render(state, 0).count("#5b6b8c") > 0  # card backs
    assert elements_ai.render(state).count("#5b6b8c") == 0


def test_text_is_escaped():
    from elements_ai.render import svg

    assert svg.text(0, 0, "a<b & \"c\"").count("&lt;") == 1
    ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{svg.card(0, 0, "<&>")}</svg>')


def test_demo_svg_writes_one_picture_per_move(tmp_path, capsys):
    out = tmp_path / "pictures"
    assert cli.main(["demo", "elements(single_round=true)", "--seed", "2", "--svg", str(out)]) == 0
    moves = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ") and ": " in line]
    files = sorted(out.iterdir())
    assert [f.name for f in files] == [f"move_{i:04d}.svg" for i in range(len(moves) + 1)]
    for file in files:
        ET.parse(file)
    assert "Game over:" in files[-1].read_text()


def test_demo_svg_rejects_a_file_before_playing(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("x")
    assert cli.main(["demo", "elements", "--svg", str(path)]) != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [f"elements-ai: error: --svg {path}: not a directory"]


REGION = re.compile(r'<g class="region" data-region="([^"]*)">')
HIT = re.compile(r"<rect [^>]*pointer-events=\"all\"/>")


@pytest.mark.parametrize("name, params", list(_variants()))
def test_regions_mark_a_place_for_moves_and_change_nothing_else(name, params):
    game = elements_ai.load_game(name, **params)
    decisions = 0
    for state in random_states(game, 30, seed=3):
        if state.is_terminal() or state.is_chance_node():
            continue
        decisions += 1
        player = state.current_player()
        picture = elements_ai.render(state, player, regions=True)
        ET.fromstring(picture)
        # Without the groups the picture is the one every other caller gets.
        plain = HIT.sub("", REGION.sub("", picture)).replace("</g>", "")
        assert plain == elements_ai.render(state, player)
        drawn = set(REGION.findall(picture))
        for action in state.legal_actions():
            path = clicks(state, player, action)
            assert set(path) <= drawn, (state.action_to_string(player, action), path, sorted(drawn))
            if not path:
                assert state.action_to_string(player, action) in BUTTONS_ONLY[name], action
    assert decisions > 0


# The moves the pictures have no place for: the web page shows them as buttons only.
BUTTONS_ONLY = {
    "elements": {"knock", "yield"},
    "elementos": set(),
    "elemental_duel": set(),
    "elements1997": {"keep", "pass"},
    "elementum": {"no swap", "no crystal", "keep overload", *(f"overload to {p}" for p in range(4))},
}
