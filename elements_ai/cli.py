"""The ``elements-ai`` command.

    elements-ai games                      # the games and their parameters
    elements-ai demo elements              # a game between two random players
    elements-ai demo elements --seed 3 -p single_round=true
"""

from __future__ import annotations

import argparse
import random
import sys

from . import GAMES, get_kernel, load_game


def parse_params(name: str, pairs: list[str]) -> dict:
    """``["hand_size=2", "single_round=true"]`` → typed parameters of game ``name``."""
    kernel = get_kernel(name)
    params = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep:
            raise ValueError(f"parameter {pair!r} must look like name=value")
        if key not in kernel.params:
            raise ValueError(f"{name}: unknown parameter {key!r}; parameters are {', '.join(sorted(kernel.params))}")
        kind = type(kernel.params[key].default)
        if kind is bool:
            if text.lower() not in ("true", "false"):
                raise ValueError(f"{name}: parameter {key} must be true or false, got {text!r}")
            params[key] = text.lower() == "true"
        elif kind is int:
            try:
                params[key] = int(text)
            except ValueError:
                raise ValueError(f"{name}: parameter {key} must be an integer, got {text!r}") from None
        else:
            params[key] = text
    return params


def demo(name: str, seed: int, params: dict, out=None) -> list[float]:
    """Plays and prints one game between two uniformly random players."""
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


def list_games(out=None) -> None:
    out = out or sys.stdout
    for name in GAMES:
        kernel = get_kernel(name)
        print(f"{name}: {kernel.long_name}", file=out)
        for key, spec in kernel.params.items():
            print(f"    {key} = {spec.default!r}  ({spec.help})", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elements-ai", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("games", help="list the games and their parameters")
    demo_parser = commands.add_parser("demo", help="print a game between two random players")
    demo_parser.add_argument("game", help="one of: " + ", ".join(GAMES))
    demo_parser.add_argument("--seed", type=int, default=0)
    demo_parser.add_argument(
        "-p", "--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter (repeatable)"
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "games":
            list_games()
        else:
            demo(args.game, args.seed, parse_params(args.game, args.param))
    except (ValueError, TypeError) as error:
        print(f"elements-ai: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
