"""The ``elements-ai`` command: games, demo, agents, tournaments, solvers, self-play training and play."""

from __future__ import annotations

import os
import sys


def _quiet_interrupt(kind, value, traceback, _previous=sys.excepthook) -> None:
    # The console script imports this module before ``main`` catches anything: a
    # Ctrl-C in that instant ends the command as one inside ``main`` does.
    if issubclass(kind, KeyboardInterrupt):
        sys.stderr.flush()
        os._exit(130)
    _previous(kind, value, traceback)


sys.excepthook = _quiet_interrupt

import argparse  # noqa: E402
import importlib  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
from typing import TextIO  # noqa: E402

from .commands import MODULES, seed_value  # noqa: E402

PROG = "elements-ai"

EXAMPLES = """examples:
  elements-ai games                                   the games, their parameters and allowed values
  elements-ai demo elements                           a game between two random players
  elements-ai demo "elements(single_round=true)" --seed 3
  elements-ai agents                                  the agents, their parameters and the shipped ones
  elements-ai tournament --preset small --games 20    rate the agent families where CFR is exact
  elements-ai zoo list                                the shipped agents' recipes
  elements-ai play elements                           you against the rule-based bot, in the terminal
  elements-ai serve                                   play the games against the bots in a web page

`elements-ai tournament` alone rates random, rules, PPO, MCTS and IS-MCTS on elements.
"""

# Exit statuses: a user's mistake, and an interrupt (128 + SIGINT, as a shell reports it).
USAGE_ERROR = 2
INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are the command's one-line errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.removeprefix(PROG).strip()
        raise UsageError(f"{command + ': ' if command else ''}{message} (see {self.prog} --help)")


class UsageError(Exception):
    """A mistake in the command line itself (an unknown option, a missing argument)."""


def svg_directory(path: str, option: str = "--svg") -> str:
    """``path`` made ready for pictures (created if missing), or a ParameterError saying why not."""
    import os

    from .core.params import ParameterError

    if os.path.exists(path) and not os.path.isdir(path):
        raise ParameterError(f"{option} {path}: not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as error:
        raise ParameterError(f"{option} {path}: cannot create it ({error.strerror or error})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ParameterError(f"{option} {path}: not writable")
    return path


def demo(name: str, seed: int, params: dict, out: TextIO | None = None, svg: str | None = None,
         png: str | None = None) -> list[float]:
    """Plays and prints one game between uniformly random players (``name``: a name or a game string).

    ``svg``: a directory that gets the pictures of the game, ``move_0000.svg`` the
    start and ``move_NNNN.svg`` the state after move N (chance moves count).
    ``png``: the same pictures as PNG (``move_NNNN.png``; the ``png`` extra).
    """
    from .loader import load_game

    out = out or sys.stdout
    game = load_game(name, **params)
    if png is not None:
        from .render.png import require_cairosvg

        # Before the first move: a missing extra is said at once, not after the game.
        require_cairosvg()
        svg_directory(png, "--png")
    if svg is not None:
        svg_directory(svg)

    def picture(number: int) -> None:
        if svg is None and png is None:
            return
        from .render import render, to_png

        drawn = render(state)
        if svg is not None:
            with open(os.path.join(svg, f"move_{number:04d}.svg"), "w", encoding="utf-8") as file:
                file.write(drawn)
        if png is not None:
            to_png(drawn, os.path.join(png, f"move_{number:04d}.png"))
    rnd = random.Random(seed)
    state = game.new_initial_state()
    print(f"{game}  (seed {seed})", file=out)
    moves = 0
    picture(moves)
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
        moves += 1
        picture(moves)
    print("\nFinal state:", file=out)
    print(str(state), file=out)
    returns = state.returns()
    print("\nReturns: " + ", ".join(f"player {p} {r:+g}" for p, r in enumerate(returns)), file=out)
    return returns


def list_games(out: TextIO | None = None) -> None:
    """Each game with its players, parameters, defaults and allowed values."""
    from .loader import GAMES, get_kernel

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
    from .agents.registry import describe_bots

    out = out or sys.stdout
    print(describe_bots(), file=out)
    print("\nShipped agents (ppo, az and cfr without ckpt=/policy= play these; elements-ai zoo list):", file=out)
    print(zoo.describe(), file=out)


def _run_games(args) -> int:
    list_games()
    return 0


def _run_demo(args) -> int:
    from .loader import parse_params

    demo(args.game, args.seed, parse_params(args.game, args.param), svg=args.svg, png=args.png)
    return 0


def _run_agents(args) -> int:
    list_agents()
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command's parser; building it imports no command's implementation."""
    parser = _Parser(
        prog=PROG,
        description=__doc__.split("\n")[0].split(": ", 1)[1],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    games = commands.add_parser("games", help="list the games, their parameters and allowed values")
    games.set_defaults(run=_run_games)
    demo_parser = commands.add_parser(
        "demo",
        help="print a game between random players",
        epilog="examples:\n  elements-ai demo elements --seed 3 -p single_round=true\n"
               "  elements-ai demo \"elements(single_round=true)\" --seed 3\n"
               "  elements-ai demo \"elements(single_round=true)\" --seed 1 --png pictures   (needs elements-ai[png])",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo_parser.add_argument("game", help="a game name or game string (elements-ai games lists them)")
    demo_parser.add_argument("--seed", type=seed_value, default=0, help="seed of the players and of chance (default 0)")
    demo_parser.add_argument(
        "-p", "--param", action="append", default=[], metavar="NAME=VALUE", help="a game parameter (repeatable)"
    )
    demo_parser.add_argument(
        "--svg", metavar="DIR", help="write a picture of every state to DIR (move_0000.svg, move_0001.svg, ...)"
    )
    demo_parser.add_argument(
        "--png", metavar="DIR",
        help="write a PNG picture of every state to DIR (move_0000.png, ...; needs elements-ai[png])",
    )
    demo_parser.set_defaults(run=_run_demo)
    agents = commands.add_parser("agents", help="list the agents (bot specs), their parameters and defaults")
    agents.set_defaults(run=_run_agents)
    for module in MODULES:
        importlib.import_module(module).register(commands)
    return parser


def user_error(error: BaseException) -> str | None:
    """The one-line message for an error that is the user's mistake, else ``None`` (a bug)."""
    if isinstance(error, UsageError):
        return str(error)
    params = sys.modules.get("elements_ai.core.params")
    # A ParameterError exists only once its module is loaded; before that none was raised.
    if params is not None and isinstance(error, params.ParameterError):
        return " ".join(str(error).split("\n")[0].split()) or type(error).__name__
    return None


def _interrupt(signum, frame) -> None:
    # Raised inside an import, a KeyboardInterrupt can be swallowed (by a callback of
    # importlib's module locks: the command then runs on) or turn into an ImportError
    # (in an extension's initialisation, pyspiel's): there Ctrl-C ends the command at once.
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            sys.stderr.flush()
            os._exit(INTERRUPTED)
        frame = frame.f_back
    raise KeyboardInterrupt


def _handle_interrupts() -> object:
    """Installs ``_interrupt`` for SIGINT; returns the handler it replaced (``None``: left
    as it was, off the main thread or where SIGINT is ignored, as by ``nohup``)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        return None
    signal.signal(signal.SIGINT, _interrupt)
    return previous


def main(argv: list[str] | None = None) -> int:
    """Runs the command; returns its exit status (2: a mistake, named in one line on stderr; 130: Ctrl-C)."""
    restore = _handle_interrupts()
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "quiet", False):
            # Every bar the command makes, its solvers' and trees' included.
            from .progress import silenced

            with silenced():
                return args.run(args)
        return args.run(args)
    except KeyboardInterrupt:
        # A second Ctrl-C during the clean-up that follows ends the process at once.
        restore = signal.SIG_DFL
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly. Python would report the
        # failed flush of stdout at exit, so point it at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:
        message = user_error(error)
        if message is None:
            raise
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return USAGE_ERROR
    finally:
        if restore is not None:
            signal.signal(signal.SIGINT, restore)


if __name__ == "__main__":
    sys.exit(main())
