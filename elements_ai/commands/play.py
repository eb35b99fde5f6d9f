"""The ``elements-ai play`` and ``elements-ai replay`` commands (their parsers; the work
is in ``elements_ai.play``)."""

from __future__ import annotations

import argparse

from . import seed_value

PLAY_EXAMPLES = """Each turn shows what your seat sees, the others' moves since your last one (hidden
cards and choices as "(hidden)") and your moves, numbered: enter a number or the move
as written. ? shows the help, quit (or Ctrl-D) stops; --save keeps the game so far.

examples:
  elements-ai play elements                          against the rule-based bot, you in seat 0
  elements-ai play "elements(single_round=true)" --bot ismcts:sims=200 --seat 1 --save game.json
  elements-ai play "elementum(players=3)" --bot rules --bot ismcts:sims=200
  elements-ai play "elementum(players=1)"            solo: no bot, a score card at the end
"""

REPLAY_EXAMPLES = """examples:
  elements-ai replay game.json                       Enter: next state, b: back, q: quit
  elements-ai replay game.json --player 1 --all      every state as seat 1 saw it, without waiting
"""


def _run_play(args) -> int:
    from ..loader import parse_params
    from ..play import play

    play(args.game, args.bot, args.seat, args.seed, params=parse_params(args.game, args.param), save=args.save)
    return 0


def _run_replay(args) -> int:
    from ..play import replay

    replay(args.file, args.player, step=not args.all)
    return 0


def register(commands) -> None:
    """Adds ``play`` and ``replay`` to the ``elements-ai`` command."""
    play_parser = commands.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description="Plays one game in the terminal: you in one seat, bots in the others.",
        epilog=PLAY_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play_parser.add_argument("game", help="a game name or game string (elements-ai games lists them)")
    play_parser.add_argument(
        "--bot", action="append", default=None, metavar="SPEC",
        help="the opponent, a bot spec (elements-ai agents); one plays every other seat, or give one per other "
             "seat in seat order (default: rules; none in a one-player game)",
    )
    play_parser.add_argument("--seat", type=int, default=0, metavar="N", help="your seat, from 0 (default 0)")
    play_parser.add_argument(
        "--seed", type=seed_value, default=None,
        help="seed of chance and the bots (default: a fresh one, printed at the start so the game can be replayed)")
    play_parser.add_argument(
        "-p", "--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter (repeatable)"
    )
    play_parser.add_argument(
        "--save", metavar="FILE", help="write the game record (JSON) to FILE at the end, or when you stop"
    )
    play_parser.set_defaults(run=_run_play)

    replay_parser = commands.add_parser(
        "replay",
        help="step through a game record (elements-ai play --save)",
        description="Shows a recorded game state by state; every move is checked against the rules first.",
        epilog=REPLAY_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay_parser.add_argument("file", help="a game record written by elements-ai play --save")
    replay_parser.add_argument(
        "--player", type=int, default=None, metavar="N",
        help="show only what seat N saw (default: the whole state)",
    )
    replay_parser.add_argument("--all", action="store_true", help="print every state without waiting")
    replay_parser.set_defaults(run=_run_replay)
