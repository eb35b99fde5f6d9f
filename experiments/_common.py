"""What the experiment scripts share: the command line, the results folder, tables."""

from __future__ import annotations

import argparse
import pathlib
import tempfile

import elements_ai

HERE = pathlib.Path(__file__).resolve().parent


def parser(name: str, description: str) -> argparse.ArgumentParser:
    args = argparse.ArgumentParser(description=description)
    args.add_argument("--quick", action="store_true", help="a few tiny games (seconds), into a temporary folder")
    args.add_argument("--games", nargs="*", default=None, help="games or game strings (default: every game)")
    args.add_argument(
        "--out", type=pathlib.Path, default=None,
        help=f"results folder (default experiments/results/{name}; with --quick a temporary folder)",
    )
    args.add_argument("--workers", type=int, default=None, help="processes (default: one per core)")
    args.add_argument("--seed", type=int, default=0, help="tournament seed")
    return args


def two_player_games() -> list[str]:
    """The games whose default is a two-player game (``multiplayer.py`` covers the others)."""
    return [name for name in elements_ai.GAMES if elements_ai.load_game(name).num_players() == 2]


def results_folder(name: str, out: pathlib.Path | None, quick: bool) -> pathlib.Path:
    if out is not None:
        return out
    if quick:
        return pathlib.Path(tempfile.mkdtemp(prefix=f"{name}-quick-"))
    return HERE / "results" / name


def folder_name(game: str) -> str:
    """A folder name for a game string: ``elements(single_round=true)`` → ``elements-single_round=true``."""
    return game.replace("(", "-").replace(")", "").replace(",", "-")
