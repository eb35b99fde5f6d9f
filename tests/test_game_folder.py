"""A game is one folder: a copy of one under a new name is a new game that passes the
generic tests, its picture and its playthroughs included, with nothing else touched.

The copy is made in a copy of the package and the tests, in a temporary folder, and the
generic tests run there in a fresh interpreter on the new game alone (its kernels
compile there, so the test is slow)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE, COPY = "elemental_duel", "sixth"
GENERIC = ["test_games.py", "test_render.py", "test_png.py", "test_playthroughs.py", "test_agents.py"]


@pytest.mark.slow
def test_a_copied_game_folder_passes_every_generic_test(tmp_path):
    # The other games keep their numba cache (it lies in __pycache__, keyed by the sources'
    # contents), as they would in a newcomer's checkout; the new game compiles from nothing.
    shutil.copytree(ROOT / "elements_ai", tmp_path / "elements_ai", ignore=shutil.ignore_patterns("shipped"))
    shutil.copytree(ROOT / "tests", tmp_path / "tests")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    games = tmp_path / "elements_ai" / "games"
    shutil.copytree(games / SOURCE, games / COPY, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "shipped"))
    declaration = games / COPY / "game.toml"
    declaration.write_text(declaration.read_text().replace('long_name = "Elemental Duel"', 'long_name = "Sixth"'))
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONSAFEPATH": "1"}
    env.pop("NUMBA_CACHE_DIR", None)

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=1800)

    # The new game's playthroughs are written as a newcomer writes them, then replayed by the tests.
    listed = run("-c", f"import elements_ai; from elements_ai.playthroughs import PLAYTHROUGHS; "
                       f"print(' '.join(n for n in PLAYTHROUGHS if n.startswith('{COPY}')))")
    assert listed.returncode == 0, listed.stderr
    names = listed.stdout.split()
    assert names and all(name.startswith(f"{COPY}") for name in names)
    written = run("-m", "elements_ai.playthroughs", "--refresh", *names)
    assert written.returncode == 0, written.stdout + written.stderr
    done = run("-m", "pytest", *(f"tests/{name}" for name in GENERIC), "-q", "-p", "no:cacheprovider",
               "-o", "addopts=-ra", "-k", f"{COPY} or every_game or every_declared_variant")
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
