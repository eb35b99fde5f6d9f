"""The recorded playthroughs (tests/playthroughs/) still come out the same, line by line.

A difference means a change to some game's strings, tensors, legal actions, chance
outcomes or returns. If the change is intended, rewrite the files with
``python -m elements_ai.playthroughs --refresh`` and review their diff.
"""

import subprocess
import sys
from pathlib import Path

import pytest
from commands import ENV

import elements_ai
from elements_ai.playthroughs import PLAYTHROUGHS, differences, replay

# The files sit beside this test, whether the package is installed or run in place.
DIRECTORY = Path(__file__).resolve().parent / "playthroughs"

CASES = [
    pytest.param(name, id=name, marks=[pytest.mark.slow] if entry.slow else [])
    for name, entry in PLAYTHROUGHS.items()
]


@pytest.mark.parametrize("name", CASES)
def test_the_playthrough_replays_line_for_line(name):
    path = DIRECTORY / name
    assert path.exists(), f"{path} is missing: python -m elements_ai.playthroughs --refresh writes it"
    recorded, regenerated = replay(path)
    assert recorded.splitlines()[0] == f"game: {PLAYTHROUGHS[name].game}", f"{name} records another game"
    assert recorded == regenerated, (
        f"{name} differs from the recorded playthrough; if the change is intended, run "
        f"`python -m elements_ai.playthroughs --refresh` and review the diff:\n{differences(recorded, regenerated)}"
    )


def test_every_game_has_a_playthrough_and_every_file_an_entry():
    recorded = {entry.game.split("(")[0] for entry in PLAYTHROUGHS.values()}
    assert recorded == set(elements_ai.GAMES)
    assert sorted(path.name for path in DIRECTORY.glob("*.txt")) == sorted(PLAYTHROUGHS)


def test_every_declared_variant_has_a_playthrough():
    """Each variant a game declares is recorded; only elementos's move cap may be
    shorter, as its history tensors grow with it."""

    def params(game_string):
        found = elements_ai.load_game(game_string).get_parameters()
        found.pop("max_moves", None)
        return found

    recorded = [params(entry.game) for entry in PLAYTHROUGHS.values()]
    for name in elements_ai.GAMES:
        for variant, settings in elements_ai.get_kernel(name).variants.items():
            wanted = elements_ai.load_game(name, **settings).get_parameters()
            wanted.pop("max_moves", None)
            assert wanted in recorded, f"{name} variant {variant!r} has no playthrough in PLAYTHROUGHS"


@pytest.mark.slow
def test_the_documented_command_checks_the_files_in_a_fresh_interpreter():
    """``python -m elements_ai.playthroughs`` registers the games itself (a fresh
    process has not imported them) and reports the files up to date."""
    done = subprocess.run([sys.executable, "-m", "elements_ai.playthroughs", "--dir", str(DIRECTORY),
                           "elements-small.txt", "elemental_duel-one_duel.txt"],
                          capture_output=True, text=True, timeout=300, env=ENV)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "every playthrough is up to date"


def test_a_changed_line_shows_as_a_difference(tmp_path):
    name = "elements-small.txt"
    text = (DIRECTORY / name).read_text(encoding="utf-8")
    changed = text.replace("Returns() = [0, 0]", "Returns() = [0, 1]", 1)
    assert changed != text
    (tmp_path / name).write_text(changed, encoding="utf-8")
    recorded, regenerated = replay(tmp_path / name)
    assert "-Returns() = [0, 1]" in differences(recorded, regenerated)
