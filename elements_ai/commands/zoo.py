"""``elements-ai zoo``: the shipped baselines, listed and retrained from their recipes."""

from __future__ import annotations

import argparse
import sys

EXAMPLES = """examples:
  elements-ai zoo list                                   the recipes, and which agents ship
  elements-ai zoo train cfr-elements-small --out zoo --steps 50
                                                         one baseline, cut short (a test; not shipped)
  elements-ai zoo train ppo-elements-small --out zoo --steps 2048
                                                         a self-play baseline, cut short

--game G trains the baselines of one game; without names or --game every baseline is
retrained (hours). Without --steps each runs in full, and --install then ships it into
the package (from a checkout).
Self-play recipes need torch (pip install ".[selfplay]"); CFR recipes do not.
A self-play run resumes from its checkpoints in --out when run again.
"""


def register(commands) -> None:
    parser = commands.add_parser(
        "zoo",
        help="the shipped baseline agents: list their recipes, retrain them",
        description="The baselines that ship with the library, each trained by one recipe (zoo/recipes.toml).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="zoo_command", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the recipes and the shipped agents")
    listing.set_defaults(run=run_list)
    train = actions.add_parser("train", help="train baselines from their recipes",
                               epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    train.add_argument("names", nargs="*", metavar="NAME", help="recipes to train (default: all, or --game's)")
    train.add_argument("--game", help="only the recipes of this game (a name: every variant and player count)")
    train.add_argument("--out", required=True, help="folder for the runs and the trained files")
    train.add_argument("--steps", type=int, help="stop after this many steps or iterations (a test; not shipped)")
    train.add_argument("--install", action="store_true",
                       help="copy the trained files into the package as the shipped agents")
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.set_defaults(run=run_train)


def run_list(args) -> int:
    from ..zoo import describe, manifest, recipes

    listed = manifest()
    for entry in recipes().values():
        mark = "shipped" if entry.name in listed else "not shipped"
        print(f"{entry.name:<24} {entry.kind:<4} {entry.game}  ({mark})")
        print(f"{'':<24} {entry.algorithm}, {entry.steps:,} {'iterations' if entry.kind == 'cfr' else 'steps'}, "
              f"seed {entry.seed}: {entry.description}")
    print("\nshipped:\n" + describe())
    return 0


def selected(names: list[str], game: str | None) -> list[str]:
    """The recipe names to train: those named, else those of ``game``, else all."""
    from ..core.params import ParameterError
    from ..zoo import recipe, recipes

    if names:
        return [recipe(name).name for name in names]
    chosen = [r.name for r in recipes().values() if game is None or r.game.split("(")[0] == game.split("(")[0]]
    if not chosen:
        raise ParameterError(f"--game {game}: no recipe; the recipes' games are "
                             f"{', '.join(sorted({r.game.split('(')[0] for r in recipes().values()}))}")
    return chosen


def run_train(args) -> int:
    from ..core.params import ParameterError
    from ..files import check_output_folder, folder_lock
    from ..selfplay.recipes import install, train
    from ..zoo import recipe

    names = selected(args.names, args.game)
    if args.steps is not None and args.steps < 1:
        raise ParameterError(f"--steps must be a positive integer, got {args.steps}")
    if args.install and args.steps is not None:
        raise ParameterError("--install ships full-length runs only: leave out --steps")
    out = check_output_folder(args.out)
    for name in names:
        entry = recipe(name)
        if entry.kind != "cfr":
            try:
                import torch  # noqa: F401
            except ImportError:
                raise ParameterError(f"{name} trains by self-play, which needs PyTorch: pip install torch (a CPU "
                                     f"build) or 'elements-ai[selfplay]'") from None
    with folder_lock(out):  # one run at a time on the folder
        for name in names:
            record = train(recipe(name), out, steps=args.steps, progress=not args.quiet)
            extra = f", exploitability {record['exploitability']:.2e}" if "exploitability" in record else ""
            print(f"{name}: {record['steps']:,} steps in {record['train_seconds']:.0f} s{extra}; "
                  f"wrote {out / recipe(name).file}", file=sys.stderr)
        if args.install:
            for path in install(out, names):
                print(f"installed {path}", file=sys.stderr)
    return 0
