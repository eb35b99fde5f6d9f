"""The ``elements-ai solve`` and ``elements-ai exploitability`` commands (their parsers;
the work is in ``elements_ai.solvers.commands``)."""

from __future__ import annotations

import argparse

from . import seed_value

# Those of ``solvers.cfr.ALGORITHMS`` and ``solvers.commands.MCCFR_ALGORITHMS``, named
# here so that the parser does not import the solvers (a test checks they agree).
ALGORITHMS: tuple[str, ...] = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "es-mccfr", "os-mccfr")

SOLVE_EXAMPLES = """examples:
  elements-ai solve kuhn_poker --algorithm cfr+ --iterations 1000 --out kuhn.npz
  elements-ai solve "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --iterations 200 --out small.npz
  elements-ai solve --resume --out small.npz --iterations 100     (continue where the file stopped)
  elements-ai solve "elements(single_round=true,deck=1_2_3_4_6_6,hand_size=2)" --threads 2 --out mid.npz
  elements-ai solve "elements(single_round=true,deck=1_2_3_4_5_5,hand_size=3)" --algorithm pcfr+ \\
      --iterations 10 --out large.npz           (1.5e7 nodes: the compact tree, by itself)
  elements-ai solve "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --algorithm es-mccfr \\
      --iterations 10000 --out mccfr.npz
"""

EXPLOIT_EXAMPLES = """examples:
  elements-ai exploitability kuhn_poker kuhn.npz
  elements-ai exploitability "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" small.npz
  elements-ai exploitability "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --bot ismcts:sims=100 \\
      --samples 8             (coarser and quicker: 8 moves asked per information set, not 32)
  elements-ai exploitability "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --bot ppo \\
      --tree small.tree       (the compact tree: built and saved to small.tree once, loaded after)
"""


def _run_solve(args) -> int:
    from ..solvers.commands import run_solve

    return run_solve(args)


def _run_exploitability(args) -> int:
    from ..solvers.commands import run_exploitability

    return run_exploitability(args)


def register(commands) -> None:
    """Adds ``solve`` and ``exploitability`` to the ``elements-ai`` command."""
    solve_parser = commands.add_parser(
        "solve",
        help="solve a game with CFR or MCCFR and save the policy",
        epilog=SOLVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    solve_parser.add_argument(
        "game", nargs="?",
        help='any pyspiel game string, e.g. kuhn_poker or "elements(single_round=true)" (with --resume: the file\'s)',
    )
    solve_parser.add_argument("--algorithm", default="cfr+", choices=ALGORITHMS, help="default cfr+")
    solve_parser.add_argument("--iterations", type=int, default=1000, help="default 1000")
    solve_parser.add_argument("--out", required=True, help="policy file to write (.npz)")
    solve_parser.add_argument("--resume", action="store_true", help="continue the solver saved in --out")
    solve_parser.add_argument("--alpha", type=float, help="dcfr: positive regret discount (default 1.5)")
    solve_parser.add_argument("--beta", type=float, help="dcfr: negative regret discount (default 0)")
    solve_parser.add_argument("--gamma", type=float, help="dcfr, pcfr+: averaging power (default 2)")
    solve_parser.add_argument("--seed", type=seed_value, default=0, help="MCCFR: seed of the sampling (default 0)")
    solve_parser.add_argument("--memory", type=float, help="MCCFR: GB for the information-set table (default 2)")
    solve_parser.add_argument("--no-eval", action="store_true", help="do not measure exploitability while solving")
    solve_parser.add_argument("--quiet", action="store_true", help="no progress bars")
    solve_parser.add_argument(
        "--threads", type=int, help="cores for the tabular solvers and exact exploitability (default: every core)"
    )
    solve_parser.add_argument(
        "--layout", default="auto", choices=("auto", "flat", "compact"),
        help="the tabular solvers' tree: flat (any game), compact (this library's games, 5 bytes a node); "
             "default auto: compact for this library's games from 10 million nodes (with --resume: the file's)",
    )
    solve_parser.set_defaults(run=_run_solve)

    exploit_parser = commands.add_parser(
        "exploitability",
        help="exact NashConv and exploitability of a policy file or a bot",
        epilog=EXPLOIT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    exploit_parser.add_argument("game", help="any pyspiel game string")
    exploit_parser.add_argument("file", nargs="?", help="a policy file written by elements-ai solve")
    exploit_parser.add_argument("--bot", help="a bot spec instead of a file, e.g. rules or ismcts:sims=100")
    exploit_parser.add_argument("--quiet", action="store_true", help="no progress bars")
    exploit_parser.add_argument(
        "--samples", type=int, default=32, help="moves asked of a stochastic bot per information set (default 32)"
    )
    exploit_parser.add_argument("--threads", type=int, help="cores for the best responses (default: every core)")
    exploit_parser.add_argument(
        "--layout", default="auto", choices=("auto", "flat", "compact"),
        help="the tree a policy file or a bot is evaluated on (default auto: as solve chooses)",
    )
    exploit_parser.add_argument(
        "--tree", metavar="FILE",
        help="evaluate on the compact tree saved in FILE; when FILE does not exist, build the tree and save it "
             "there (a file for another game is refused)",
    )
    exploit_parser.set_defaults(run=_run_exploitability)
