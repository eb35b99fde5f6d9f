"""The ``elements-ai tournament`` command."""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

from . import seed_value

# The tournaments run with no --game and --agents: the three families (search, a
# shipped self-play network, a shipped CFR policy) beside the rule-based bot and
# random play. ``default`` is the full game of Elements, where no exact solution is
# within reach; ``small`` is a variant that CFR solves exactly.
SMALL_GAME = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
PRESETS = {
    "default": ("elements", ("random", "rules", "ppo", "mcts:sims=1000", "ismcts:sims=1000")),
    "small": (SMALL_GAME, ("random", "rules", "cfr", "ppo", "ismcts:sims=1000")),
}
DEFAULT_GAME, DEFAULT_AGENTS = PRESETS["default"]
DEFAULT_GAMES = 200
DEFAULT_SEED = 0

EXAMPLES = f"""Without options: the default, {' '.join(DEFAULT_AGENTS)} on {DEFAULT_GAME},
{DEFAULT_GAMES} games a pair (a while on a laptop).

examples:
  elements-ai tournament --preset small --games 20
      the shipped CFR policy against the other families where it is exact: {' '.join(PRESETS["small"][1])}
  elements-ai tournament --game elemental_duel --agents ppo rules random --games 20
  elements-ai tournament --game "elements(single_round=true)" --agents random rules "mcts:sims=100,c=1.4" --games 20
  elements-ai tournament --game "elements(single_round=true)" --agents rules random --games 200 --sprt 0 100
  elements-ai tournament --gauntlet --agents "mcts:sims=100" random rules --games 10 --out results/gauntlet
  elements-ai tournament --backend ray --workers 2 --agents random rules --games 10
      the same on Ray: a local one here, or a running cluster's with --address auto

Rerun the same command to resume an interrupted tournament: the games already in
the results folder are kept, the others played.
"""


def register(commands) -> None:
    parser = commands.add_parser(
        "tournament",
        help="play a tournament between agents and rate them",
        description=(
            "Plays a seeded round robin (or gauntlet) between agents, seats rotated and each deal played in "
            "every seating; records each game as it ends (an interrupted tournament resumes); prints Elo "
            "ratings with bootstrap 95% intervals and writes games.csv, ratings.csv, pairwise.csv and plots."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--preset", choices=tuple(PRESETS), default="default",
                        help="the game and agents when --game / --agents are not given (default: default)")
    parser.add_argument("--game", default=None, help=f"a game or game string (default {DEFAULT_GAME})")
    parser.add_argument(
        "--agents", nargs="+", default=None, metavar="SPEC",
        help="bot specs as make_bot takes them, e.g. random rules \"mcts:sims=500,c=1.4\" (see elements-ai agents)",
    )
    parser.add_argument(
        "--games", type=int, default=DEFAULT_GAMES, metavar="N",
        help=f"games per pairing (table of agents), seatings included (default {DEFAULT_GAMES})",
    )
    parser.add_argument("--gauntlet", action="store_true", help="the first agent plays each other one (no round robin)")
    parser.add_argument("--workers", type=int, default=None, metavar="K", help="processes (default: one per core)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local", help="local processes or Ray")
    parser.add_argument("--address", default=None, help="Ray cluster address (default: start a local Ray)")
    parser.add_argument(
        "--seed", type=seed_value, default=DEFAULT_SEED, help=f"seed of chance and bots (default {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--out", type=pathlib.Path, default=None, metavar="DIR",
        help="results folder (default tournaments/<game>-<hash of the settings>); rerun to resume",
    )
    parser.add_argument(
        "--sprt", nargs=2, type=float, default=None, metavar=("ELO0", "ELO1"),
        help="two agents: stop as soon as an SPRT of elo0 against elo1 (first agent's Elo advantage) decides",
    )
    parser.add_argument(
        "--sprt-alpha", type=float, default=0.05, metavar="A", help="SPRT false positive rate (default 0.05)"
    )
    parser.add_argument(
        "--sprt-beta", type=float, default=0.05, metavar="B", help="SPRT false negative rate (default 0.05)"
    )
    parser.add_argument(
        "--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for the intervals (default 1000)"
    )
    parser.add_argument("--alpharank", action="store_true", help="add alpha-Rank (OpenSpiel) to the ratings")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..core.params import ParameterError
    from ..eval.report import format_ratings, short_game, write_report
    from ..eval.runner import default_folder, make_config, play_tournament
    from ..eval.sprt import SPRT
    from ..files import check_output_folder

    try:
        sprt = SPRT(args.sprt[0], args.sprt[1], args.sprt_alpha, args.sprt_beta) if args.sprt else None
    except ValueError as error:
        raise ParameterError(str(error)) from None
    if args.bootstrap < 0:
        raise ParameterError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    preset_game, preset_agents = PRESETS[args.preset]
    game = preset_game if args.game is None else args.game
    agents = list(preset_agents) if args.agents is None else args.agents
    mode = "gauntlet" if args.gauntlet else "round-robin"
    config = make_config(game, agents, args.games, args.seed, mode, sprt)
    out = check_output_folder(args.out if args.out is not None else default_folder(config))
    start = time.perf_counter()
    try:
        games = play_tournament(config, workers=args.workers, backend=args.backend, address=args.address, out=out,
                                progress=not args.quiet, report=False)
        report = write_report(games, out, seed=config.seed, sprt=sprt, bootstrap=args.bootstrap,
                              alpharank=args.alpharank)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the finished games are in {out}; run the same command to resume", file=sys.stderr)
        raise
    seconds = time.perf_counter() - start
    print(f"{short_game(config.game)}: {len(games)} games, {mode}, seed {config.seed} ({seconds:.0f} s)")
    print(format_ratings(report.ratings))
    if report.sprt is not None:
        print(report.sprt)
    tables = ", ".join(p.name for p in report.paths.values() if p.suffix in (".csv", ".txt"))
    plots = ", ".join(p.name for p in report.paths.values() if p.suffix == ".png")
    print(f"results in {out}/: games.csv, {tables}; plots: {plots}")
    return 0
