"""Exact exploitability of the library's agents on small variants of the games.

Each agent is asked for its move at one state of every information set of the game's
tree (``elements_ai.solvers.agents.bot_policy``); the policy it plays there is then
evaluated exactly (best response against it in each seat). ``random`` and the
solver bots state their action distribution, read exactly; ``rules`` and the search
bots are asked ``--samples`` times per information set and measured by their action
frequencies, so their figures carry some sampling noise.

Writes ``results/agents_exploitability.csv`` beside this file and prints the table.

    python experiments/solvers/agents.py                  # about 10 minutes on 2 cores
    python experiments/solvers/agents.py --samples 8 --games elements
    python experiments/solvers/agents.py --quick          # a tiny elements round (seconds), into a temporary folder
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

import elements_ai
from elements_ai.solvers import CFRSolver, build_tree, evaluate_probs
from elements_ai.solvers.agents import bot_policy, is_exact_bot
from elements_ai.solvers.mccfr import MCCFRSolver

HERE = Path(__file__).resolve().parent
VARIANTS = {
    "elements": {"single_round": True, "deck": "1_2_3_6_6_6", "hand_size": 2},
    "elemental_duel": {"num_territories": 1},
}
AGENTS = ["random", "rules", "ismcts:sims=100", "ismcts:sims=1000", "cfr", "mccfr"]
CFR_ITERATIONS = 2000
MCCFR_ITERATIONS = 100_000
QUICK_VARIANTS = {"elements": {"single_round": True, "deck": "1_2_6_6", "hand_size": 1}}  # 317 nodes
QUICK_AGENTS = ["random", "rules", "ismcts:sims=10", "cfr", "mccfr"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny variant, weak agents and few iterations (seconds), into a temporary folder")
    parser.add_argument("--samples", type=int, default=None, help="moves asked per information set (default 32)")
    parser.add_argument("--games", nargs="*", choices=list(VARIANTS),
                        help="games (default: both; with --quick, elements)")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for the CSV (default results/ beside this file; with --quick a temporary folder)")
    args = parser.parse_args(argv)
    variants = {**VARIANTS, **QUICK_VARIANTS} if args.quick else VARIANTS
    games = args.games or list(QUICK_VARIANTS if args.quick else VARIANTS)
    agents = QUICK_AGENTS if args.quick else AGENTS
    samples = args.samples or (2 if args.quick else 32)
    cfr_iterations, mccfr_iterations = (100, 1000) if args.quick else (CFR_ITERATIONS, MCCFR_ITERATIONS)
    out = args.out or (Path(tempfile.mkdtemp(prefix="agents-quick-")) if args.quick else HERE / "results")
    rows = []
    folder = Path(tempfile.mkdtemp())
    for name in games:
        game = elements_ai.load_game(name, **variants[name])
        tree = build_tree(game)
        print(f"{game}: {tree.describe()}", flush=True)
        for agent in agents:
            started = time.perf_counter()
            spec = agent
            if agent == "cfr":
                solver = CFRSolver(tree, "cfr+")
                solver.run(cfr_iterations)
                solver.save(folder / f"{name}-cfr.npz")
                spec = f"cfr:policy={folder / f'{name}-cfr.npz'}"
                label = f"cfr (CFR+, {cfr_iterations} iterations)"
            elif agent == "mccfr":
                solver = MCCFRSolver(game, "external", seed=0, memory=2e8)
                solver.run(mccfr_iterations)
                solver.save(folder / f"{name}-mccfr.npz")
                spec = f"mccfr:policy={folder / f'{name}-mccfr.npz'}"
                label = f"mccfr (external sampling, {mccfr_iterations:,} iterations)"
            else:
                label = agent
            exact = is_exact_bot(spec)
            probs = bot_policy(tree, spec, samples=samples, seed=1, progress=not args.quick)
            result = evaluate_probs(tree, probs)
            rows.append(
                {
                    "game": str(game),
                    "agent": label,
                    "policy_read": "exact" if exact else f"frequencies over {samples} samples",
                    "nash_conv": result.nash_conv,
                    "exploitability": result.exploitability,
                    "value_seat0": result.policy_values[0],
                    "best_response_seat0": result.best_response_values[0],
                    "best_response_seat1": result.best_response_values[1],
                    "seconds": time.perf_counter() - started,
                }
            )
            print(f"  {label:<45} exploitability {result.exploitability:.6f}", flush=True)
    table = pd.DataFrame(rows)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "agents_exploitability.csv", index=False)
    print()
    print(table[["game", "agent", "policy_read", "exploitability", "nash_conv"]].to_string(index=False))
    print(f"\nwrote {out / 'agents_exploitability.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
