"""PNG export (``elements_ai.render.to_png``, ``elements-ai demo --png``): real PNGs of
the SVG's size times the scale, files written whole, one-line errors.

These tests need the ``png`` extra (cairosvg); CI installs it, and without it they
fail (not skip).
"""

import sys

import pytest

try:
    import cairosvg  # noqa: F401
except (ImportError, OSError) as error:
    pytest.fail(f"tests/test_png.py needs the png extra (pip install -e '.[png]') and the cairo library: {error}",
                pytrace=False)

import elements_ai
from elements_ai import cli
from elements_ai.core.params import ParameterError
from elements_ai.render.png import PNG_SIGNATURE, png_size, svg_size, to_png, to_rgb_array
from elements_ai.testing import random_states


def _one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text, text
    return text


@pytest.mark.parametrize("name", elements_ai.GAMES)
@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0])
def test_a_png_is_the_svg_times_the_scale(name, scale):
    state = random_states(elements_ai.load_game(name), 1, seed=3)[0]
    data = elements_ai.render.to_png(state, scale=scale)
    assert data[:8] == PNG_SIGNATURE
    width, height = svg_size(elements_ai.render(state))
    got = png_size(data)
    assert abs(got[0] - width * scale) <= 1 and abs(got[1] - height * scale) <= 1, (got, width, height)


def test_the_file_is_written_whole_and_matches_the_bytes(tmp_path):
    state = elements_ai.load_game("elementos").new_initial_state()
    path = tmp_path / "start.png"
    data = to_png(state, path, scale=1.0)
    assert path.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["start.png"], "a temporary file was left"
    assert to_png(elements_ai.render(state), scale=1.0) == data
    with pytest.raises(FileNotFoundError):
        to_png(state, tmp_path / "missing" / "x.png")


def test_a_player_view_is_that_players_picture():
    state = random_states(elements_ai.load_game("elements"), 1, seed=1)[0]
    assert to_png(state, player=1, scale=0.5) == to_png(elements_ai.render(state, 1), scale=0.5)
    assert to_png(state, player=1, scale=0.5) != to_png(state, player=0, scale=0.5)


def test_an_rgb_array_has_the_pictures_size():
    state = elements_ai.load_game("elemental_duel").new_initial_state()
    array = to_rgb_array(state)
    width, height = svg_size(elements_ai.render(state))
    assert array.shape == (height, width, 3) and array.dtype.name == "uint8"
    assert array.min() < 100 < 200 < array.max(), "a blank picture"


@pytest.mark.parametrize("call, message", [
    (lambda s: to_png(s, scale=0), "to_png: scale must be a positive number, got 0"),
    (lambda s: to_png(s, scale=float("nan")), "scale must be a positive number"),
    (lambda s: to_png("hello"), "to_png: a string must be an SVG document (starting with <svg), got 'hello'"),
    (lambda s: to_png(elements_ai.render(s), player=0), "player= chooses the view of a state"),
    (lambda s: to_png(s, player=2), "render: player 2 is out of range 0..1"),
])
def test_bad_arguments_are_one_line_errors(call, message):
    state = elements_ai.load_game("elements").new_initial_state()
    with pytest.raises(ValueError) as error:
        call(state)
    assert message in _one_line(error)


def test_without_cairosvg_the_error_names_the_extra(monkeypatch):
    # None in sys.modules makes an import fail as if the package were not installed.
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    state = elements_ai.load_game("elements").new_initial_state()
    with pytest.raises(ParameterError) as error:
        to_png(state)
    assert _one_line(error) == 'PNG export needs cairosvg: pip install "elements-ai[png]"'


def test_demo_png_without_cairosvg_stops_before_playing(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    out = tmp_path / "pictures"
    assert cli.main(["demo", "elements", "--png", str(out)]) == cli.USAGE_ERROR
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists(), "the game was played or the folder made before the check"
    assert captured.err.strip().splitlines() == [
        'elements-ai: error: PNG export needs cairosvg: pip install "elements-ai[png]"']


@pytest.mark.slow
def test_demo_png_writes_one_picture_per_move(tmp_path, capsys):
    svg, png = tmp_path / "svg", tmp_path / "png"
    assert cli.main(["demo", "elements(single_round=true)", "--seed", "2", "--svg", str(svg), "--png", str(png)]) == 0
    moves = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ") and ": " in line]
    files = sorted(png.iterdir())
    assert [f.name for f in files] == [f"move_{i:04d}.png" for i in range(len(moves) + 1)]
    for file in files:
        data = file.read_bytes()
        assert data[:8] == PNG_SIGNATURE
        picture = (svg / file.name).with_suffix(".svg").read_text()
        assert all(abs(got - 2 * side) <= 1 for got, side in zip(png_size(data), svg_size(picture)))


def test_demo_png_rejects_a_file_before_playing(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("x")
    assert cli.main(["demo", "elements", "--png", str(path)]) == cli.USAGE_ERROR
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [f"elements-ai: error: --png {path}: not a directory"]
