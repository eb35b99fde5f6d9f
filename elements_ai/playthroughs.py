"""Playthroughs: one recorded random game per game and declared variant, as OpenSpiel keeps them.

Each file in ``tests/playthroughs/`` is the text of OpenSpiel's
``generate_playthrough`` for one game string: the game's type and sizes, then every
state of one game played at random (legal actions and chance outcomes alike) with
its strings, tensors, legal actions and returns, and the action taken. The test
suite regenerates each file from its game string and actions and compares it line
by line, so a change to any of those shows up as a diff in review. After an
intended change, rewrite them::

    python -m elements_ai.playthroughs --refresh     # rewrite every file
    python -m elements_ai.playthroughs               # only report which differ

A refreshed file replays the actions recorded in it; a new entry in
``PLAYTHROUGHS`` is played from its seed.

>>> PLAYTHROUGHS["elements-small.txt"].game
'elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)'
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from pathlib import Path
from typing import NamedTuple


def _default_directory() -> Path:
    """The checkout's ``tests/playthroughs``: beside the package when it runs from a
    checkout, else under the working directory (an installed package has no tests)."""
    beside = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"
    return beside if beside.is_dir() else Path.cwd() / "tests" / "playthroughs"


DIRECTORY = _default_directory()


class Playthrough(NamedTuple):
    game: str  # the game string, as ``pyspiel.load_game`` reads it
    seed: int  # draws the actions when the file is first written
    slow: bool = False  # regenerating it takes more than a second or so


def _game_string(name: str, params: dict) -> str:
    given = ",".join(f"{key}={str(value).lower() if isinstance(value, bool) else value}"
                     for key, value in params.items())
    return f"{name}({given})" if given else name


def _declared() -> dict[str, Playthrough]:
    """One playthrough for each variant each game folder declares (``VARIANTS``), named
    ``<game>.txt`` for the default and ``<game>-<variant>.txt`` for the others; a game's
    package may add ``PLAYTHROUGH_PARAMS`` (set on each) and ``SLOW_PLAYTHROUGHS``."""
    from . import games

    found = {}
    for name in games.DECLARATIONS:
        package = importlib.import_module(f"{games.__name__}.{name}")
        extra = dict(getattr(package, "PLAYTHROUGH_PARAMS", {}))
        slow = set(getattr(package, "SLOW_PLAYTHROUGHS", ()))
        for variant, params in games.KERNELS[name].variants.items():
            file = f"{name}.txt" if variant == "default" else f"{name}-{variant}.txt"
            found[file] = Playthrough(_game_string(name, {**params, **extra}), 1, variant in slow)
    return found


PLAYTHROUGHS: dict[str, Playthrough] = _declared()


def _openspiel():
    """OpenSpiel's generate_playthrough, ready to read files outside an absl program."""
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    import elements_ai.games  # noqa: F401 (registers the games with pyspiel)

    # Reading a file consults an absl flag (action ids or names); its default is
    # what these files use.
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    return generate_playthrough


def generate(name: str) -> str:
    """The text of playthrough ``name`` played from its seed."""
    entry = PLAYTHROUGHS[name]
    return _openspiel().playthrough(entry.game, None, seed=entry.seed)


def replay(path: Path) -> tuple[str, str]:
    """``(recorded, regenerated)`` text of the playthrough file ``path``: the game string
    and actions recorded in it played again."""
    return _openspiel().replay(str(path))


def differences(recorded: str, regenerated: str, limit: int = 40) -> str:
    """The first ``limit`` lines of a unified diff, recorded -> regenerated ("" when equal)."""
    lines = list(difflib.unified_diff(recorded.splitlines(), regenerated.splitlines(), "recorded", "regenerated",
                                      lineterm="", n=2))
    return "\n".join(lines[:limit] + ([f"... ({len(lines) - limit} more diff lines)"] if len(lines) > limit else []))


def refresh(directory: Path = DIRECTORY, names: list[str] | None = None, write: bool = True) -> list[str]:
    """Regenerates the playthroughs (all, or ``names``) in ``directory``; with ``write``
    rewrites those that differ or are missing. Returns the names that differed."""
    changed = []
    for name in names or list(PLAYTHROUGHS):
        path = directory / name
        if path.exists():
            recorded, regenerated = replay(path)
        else:
            recorded, regenerated = "", generate(name)
        if recorded != regenerated:
            changed.append(name)
            if write:
                directory.mkdir(parents=True, exist_ok=True)
                path.write_text(regenerated, encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m elements_ai.playthroughs",
        description="Check (default) or rewrite the recorded playthroughs in tests/playthroughs/.",
    )
    parser.add_argument("--refresh", action="store_true",
                        help="rewrite the files that differ (after an intended change)")
    parser.add_argument("--dir", type=Path, default=DIRECTORY, help=f"where the files are (default {DIRECTORY})")
    parser.add_argument("names", nargs="*", help=f"files to check or rewrite (default all): {', '.join(PLAYTHROUGHS)}")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in PLAYTHROUGHS]
    if unknown:
        parser.error(f"unknown playthrough {unknown[0]!r}; they are {', '.join(PLAYTHROUGHS)}")
    changed = refresh(args.dir, args.names, write=args.refresh)
    for name in changed:
        print(f"{'rewrote' if args.refresh else 'differs:'} {args.dir / name}")
    if not changed:
        print("every playthrough is up to date")
    return 1 if changed and not args.refresh else 0


if __name__ == "__main__":
    sys.exit(main())
