"""The ``elements-ai`` command: games, demo, agents, tournaments, solvers and self-play training."""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
from typing import TextIO

from . import GAMES, get_kernel, load_game
from .core.params import ParameterError, parse_pairs

EXAMPLES = """examples:
  elements-ai tournament                              rate random, rules, MCTS and IS-MCTS on elements
  elements-ai games                                   the games, their parameters and allowed values
  elements-ai demo elements                           a game between two random players
  elements-ai demo elements --seed 3 -p single_round=true
  elements-ai agents                                  the agents, their parameters and the shipped ones
  elements-ai zoo list                                the shipped agents' recipes
"""

# Modules that add commands of their own: each defines ``register(commands)``, which
# adds a sub-parser to ``commands`` and sets its ``run`` default to a function of the
# parsed arguments returning the exit status.
COMMAND_MODULES: tuple[str, ...] = (
    "elements_ai.eval.commands",
    "elements_ai.solvers.commands",
    "elements_ai.selfplay.commands",
    "elements_ai.zoo.commands",
)


def parse_params(name: str, pairs: list[str]) -> dict:
    """``["hand_size=2", "single_round=true"]`` → checked, typed parameters of game ``name``."""
    kernel = get_kernel(name)
    given = parse_pairs(pairs, name)
    return {key: value for key, value in kernel.resolve_params(given).items() if key in given}


def demo(name: str, seed: int, params: dict, out: TextIO | None = None) -> list[float]:
    """Plays and prints one game between uniformly random players."""
    out = out or sys.stdout
    game = load_game(name, **params)
    rnd = random.Random(seed)
    state = game.new_initial_state()
    print(f"{game}  (seed {seed})", file=out)
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            action = rnd.choices(actions, probs)[0]
            who = "chance"
        else:
            action = rnd.choice(state.legal_actions())
            who = f"player {player}"
        print(f"  {who:>8}: {state.action_to_string(player, action)}", file=out)
        state.apply_action(action)
    print("\nFinal state:", file=out)
    print(str(state), file=out)
    returns = state.returns()
    print("\nReturns: " + ", ".join(f"player {p} {r:+g}" for p, r in enumerate(returns)), file=out)
    return returns


def list_games(out: TextIO | None = None) -> None:
    """Each game with its players, parameters, defaults and allowed values."""
    out = out or sys.stdout
    for name in GAMES:
        kernel = get_kernel(name)
        players = (
            f"{kernel.min_num_players} players"
            if kernel.min_num_players == kernel.max_num_players
            else f"{kernel.min_num_players}-{kernel.max_num_players} players"
        )
        print(f"{name}: {kernel.long_name} ({players})", file=out)
        for key, param in kernel.params.items():
            print(f"    {key} = {param.default!r}: {param.help}; {param.allowed}", file=out)


def list_agents(out: TextIO | None = None) -> None:
    """The bot specs with their parameters, then the trained agents that ship with the library."""
    from . import zoo
    from .agents import describe_bots

    out = out or sys.stdout
    print(describe_bots(), file=out)
    print("\nShipped agents (ppo, az and cfr without ckpt=/policy= play these; elements-ai zoo list):", file=out)
    print(zoo.describe(), file=out)


def _run_games(args) -> int:
    list_games()
    return 0


def _run_demo(args) -> int:
    demo(args.game, args.seed, parse_params(args.game, args.param))
    return 0


def _run_agents(args) -> int:
    list_agents()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="elements-ai",
        description=__doc__.split("\n")[0].split(": ", 1)[1],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    games = commands.add_parser("games", help="list the games, their parameters and allowed values")
    games.set_defaults(run=_run_games)
    demo_parser = commands.add_parser(
        "demo",
        help="print a game between random players",
        epilog="example:\n  elements-ai demo elements --seed 3 -p single_round=true",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo_parser.add_argument("game", help="one of: " + ", ".join(GAMES))
    demo_parser.add_argument("--seed", type=int, default=0, help="seed of the players and of chance (default 0)")
    demo_parser.add_argument(
        "-p", "--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter (repeatable)"
    )
    demo_parser.set_defaults(run=_run_demo)
    agents = commands.add_parser("agents", help="list the agents (bot specs), their parameters and defaults")
    agents.set_defaults(run=_run_agents)
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ParameterError as error:
        print(f"elements-ai: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly. Python would report the
        # failed flush of stdout at exit, so point it at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
