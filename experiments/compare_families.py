"""The three families of agents side by side: solver (CFR), self-play (PPO), search (IS-MCTS).

    python experiments/compare_families.py            # full run (about an hour on 2 cores)
    python experiments/compare_families.py --quick    # tiny agents, a few games (a minute or two)

1. ``families``: on the small ``elements`` variant, which CFR solves exactly, and on
   the full ``elements`` game, one round robin (``elements_ai.eval.tournament``)
   between CFR (small variant; ``elements_ai.solvers``), PPO trained for a few minutes,
   IS-MCTS, rules and random, with each agent's exact exploitability where the
   solvers can compute it (the small variant). On the full game the approximate
   figures of ``approx_exploitability.py`` stand in (a learned best response).
2. ``ppo_strength``: PPO from a short training run against ``random`` and ``rules``
   in ``elements``, ``elemental_duel`` and ``elementos`` (gauntlets, seats and deals
   paired).
3. ``search_options``: MCTS and IS-MCTS whose playouts are played by the ``rules``
   heuristic (``rollout=rules``) or cut after ``depth`` decisions, against ``rules``.

PPO runs are trained into ``--runs`` (resumed, not redone, when the folder already
holds them) unless ``--ckpt GAME=PATH`` names a trained one. Writes CSV, Markdown and
PNG files under ``experiments/results/compare_families/``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import folder_name, parser, results_folder, seed_of
from approx_exploitability import SMALL, exact_exploitability
from strength import markdown, plot, strength_rows

import elements_ai
from elements_ai.eval import pairwise, ratings, tournament
from elements_ai.selfplay.ppo import PPOConfig, PPOTrainer
from elements_ai.tables import write_csv

FULL = "elements"
STRENGTH_GAMES = ("elements", "elemental_duel", "elementos")

# The short PPO runs: env steps and league (fixed bots next to the snapshots).
# Elemental Duel and Elementos start from a copy of ``rules`` whose value head already
# predicts its games' outcomes, then learn at a lower rate without an entropy bonus:
# the first updates then refine the copy instead of washing it out. Elemental Duel
# stops early: longer runs exploit ``rules`` further (0.95) while their score against
# ``random`` drops back towards 0.65.
IMITATE_RULES = dict(imitate="rules", imitation_lr=3e-4, lr=1e-4, entropy_coef=0.0)
TRAINING = {
    SMALL: dict(steps=150_000, hidden=(64, 64), opponents=("random", "rules")),
    "elements": dict(steps=400_000, hidden=(128, 128), opponents=("rules",)),
    "elemental_duel": dict(steps=600_000, hidden=(256, 256), opponents=("random", "rules"), fixed_share=0.8,
                           self_play=0.2, imitation_steps=150_000, imitation_epochs=10, **IMITATE_RULES),
    "elementos": dict(steps=900_000, hidden=(128, 128), opponents=("rules",), fixed_share=0.7, self_play=0.2,
                      imitation_steps=60_000, imitation_epochs=6, **IMITATE_RULES),
}


def train_ppo(game: str, runs: Path, quick: bool, seed: int) -> Path:
    """A short PPO run for ``game`` (resumed if ``runs`` already holds it); returns its folder."""
    settings = dict(TRAINING[game])
    steps = settings.pop("steps")
    if quick:
        steps = 2048
        settings.update(hidden=(32,), imitation_steps=min(settings.get("imitation_steps", 0), 512))
    config = PPOConfig(eval_every=0, checkpoint_every=25, num_envs=64 if quick else 128,
                       rollout_steps=16 if quick else 32, **settings)
    out = runs / folder_name(game)
    start = time.perf_counter()
    PPOTrainer(game, out, config, seed=seed, progress=not quick).train(steps)
    print(f"ppo {game}: {steps} steps ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    return out


def solve_cfr(game: str, out: Path, iterations: int) -> tuple[str, float] | None:
    """A CFR policy file for ``game`` and its exploitability, or None without ``elements_ai.solvers``."""
    try:
        from elements_ai.solvers import CFRSolver
    except ImportError:
        return None
    solver = CFRSolver(elements_ai.load_game(game), "dcfr")
    solver.run(iterations)
    path = out / "cfr_small.npz"
    solver.save(path)
    return f"cfr:policy={path}", float(solver.exploitability())


def families(args, out: Path, runs: Path, ckpts: dict[str, str]) -> pd.DataFrame:
    sims = 20 if args.quick else 1000
    games_per_pair = 4 if args.quick else 200
    workers = args.workers or (1 if args.quick else None)
    rows = []
    for game in (SMALL, FULL):
        ppo = f"ppo:ckpt={ckpts.get(game) or train_ppo(game, runs, args.quick, seed_of(args))}"
        agents = [ppo, f"ismcts:sims={sims}", "rules", "random"]
        exploitability = {}
        if game == SMALL:
            solved = solve_cfr(game, out, 50 if args.quick else 2000)
            if solved is None:
                print("elements_ai.solvers is not installed: no CFR agent, no exact exploitability", file=sys.stderr)
            else:
                agents.insert(0, solved[0])
                exploitability[solved[0]] = solved[1]
        games = tournament(game, agents, games_per_pair, seed=seed_of(args), workers=workers,
                           out=out / "families" / folder_name(game), progress=not args.quick)
        rated = ratings(games, seed=seed_of(args)).set_index("agent")
        table = pairwise(games)
        for agent in agents:
            if game == SMALL and agent not in exploitability:
                exploitability[agent] = exact_exploitability(elements_ai.load_game(game), agent, seed=seed_of(args))
            mine = table[table["agent"] == agent]
            rows.append({
                "game": game, "agent": short(agent), "family": family(agent), "rating": rated.loc[agent, "rating"],
                "rating_low": rated.loc[agent, "ci_low"], "rating_high": rated.loc[agent, "ci_high"],
                "score": rated.loc[agent, "score"], "games": int(rated.loc[agent, "games"]),
                **{f"vs {short(o)}": s for o, s in zip(mine["opponent"], mine["score"])},
                "exploitability": exploitability.get(agent),
            })
    return pd.DataFrame(rows)


def short(agent: str) -> str:
    """An agent's name without a file path: ``ppo:ckpt=runs/x`` → ``ppo``."""
    return agent.split(":")[0] if agent.startswith(("ppo", "cfr", "mccfr", "az")) else agent


def family(agent: str) -> str:
    name = agent.split(":")[0]
    return {"cfr": "solver", "mccfr": "solver", "ppo": "self-play", "az": "self-play", "ismcts": "search",
            "mcts": "search"}.get(name, "baseline")


def ppo_strength(args, out: Path, runs: Path, ckpts: dict[str, str]) -> pd.DataFrame:
    games_per_pair = 4 if args.quick else 200
    workers = args.workers or (1 if args.quick else None)
    rows = []
    for game in STRENGTH_GAMES:
        ppo = f"ppo:ckpt={ckpts.get(game) or train_ppo(game, runs, args.quick, seed_of(args))}"
        for mode, spec in (("sampled", ppo), ("greedy", ppo + ",greedy=true")):
            games = tournament(game, [spec, "random", "rules"], games_per_pair, seed=seed_of(args), mode="gauntlet",
                               workers=workers, out=out / "ppo_strength" / f"{folder_name(game)}-{mode}",
                               progress=not args.quick)
            for row in strength_rows(game, games, ["random", "rules"]):
                if row["agent"] == spec:
                    rows.append({**row, "agent": f"ppo ({mode})"})
    return pd.DataFrame(rows)


# Games a pairing in the search-options table: rules-played playouts cost a quarter
# of a second a move in elementos at 1,000 simulations.
SEARCH_GAMES = {"elemental_duel": 100, "elementos": 40, "elements": 100}


def search_options(args, out: Path) -> pd.DataFrame:
    sims = 20 if args.quick else 1000
    workers = args.workers or (1 if args.quick else None)
    variants = [f"mcts:sims={sims}", f"mcts:sims={sims},rollout=rules", f"mcts:sims={sims},depth=20",
                f"mcts:sims={sims},rollout=rules,depth=20", f"ismcts:sims={sims}", f"ismcts:sims={sims},rollout=rules"]
    rows = []
    for game in ("elemental_duel", "elementos", "elements"):
        games_per_pair = 4 if args.quick else SEARCH_GAMES[game]
        games = tournament(game, ["rules", *variants], games_per_pair, seed=seed_of(args), mode="gauntlet",
                           workers=workers, out=out / "search_options" / folder_name(game), progress=not args.quick)
        rows += [row for row in strength_rows(game, games, ["rules"]) if row["agent"] != "rules"]
    return pd.DataFrame(rows)


def plot_families(table: pd.DataFrame, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10.0, 3.6), layout="constrained")
    colours = {"solver": "tab:purple", "self-play": "tab:green", "search": "tab:blue", "baseline": "tab:gray"}
    for panel, (game, rows) in enumerate(table.groupby("game", sort=False)):
        axes = figure.add_subplot(1, 2, panel + 1)
        x = np.arange(len(rows))
        axes.bar(x, rows["rating"], color=[colours[f] for f in rows["family"]],
                 yerr=[rows["rating"] - rows["rating_low"], rows["rating_high"] - rows["rating"]], capsize=3)
        labels = [a.split(":")[0] + ("" if pd.isna(e) else f"\nexpl. {e:.3f}")
                  for a, e in zip(rows["agent"], rows["exploitability"])]
        axes.set_xticks(x, labels, fontsize=8)
        axes.set_ylabel("Elo (95% bootstrap interval)")
        axes.set_title(game, fontsize=9)
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=100, metadata={"Software": None})


def main(argv: list[str] | None = None) -> None:
    args = parser("compare_families", __doc__.split("\n\n")[0])
    args.add_argument("--runs", type=Path, default=None,
                      help="folder of the PPO runs (default: runs/ under the results folder)")
    args.add_argument("--ckpt", action="append", default=[], metavar="GAME=PATH",
                      help="a trained PPO run to use for GAME instead of training one (repeatable)")
    args.add_argument("--parts", nargs="*", default=["families", "ppo_strength", "search_options"])
    args = args.parse_args(argv)
    out = results_folder("compare_families", args.out, args.quick)
    runs = args.runs or out / "runs"
    ckpts = dict(pair.split("=", 1) for pair in args.ckpt)
    if "families" in args.parts:
        table = families(args, out, runs, ckpts)
        write_csv(table, out / "families.csv")
        plot_families(table, out / "families.png")
        print(table.to_string(index=False))
    if "ppo_strength" in args.parts:
        table = ppo_strength(args, out, runs, ckpts)
        write_csv(table, out / "ppo_strength.csv")
        agents, opponents = ["ppo (sampled)", "ppo (greedy)"], ["random", "rules"]
        (out / "ppo_strength.md").write_text(markdown(table, agents, opponents))
        plot(table, agents, opponents, out / "ppo_strength.png", "PPO after a short training run")
        print(table.to_string(index=False))
    if "search_options" in args.parts:
        table = search_options(args, out)
        write_csv(table, out / "search_options.csv")
        agents = list(dict.fromkeys(table["agent"]))
        (out / "search_options.md").write_text(markdown(table, agents, ["rules"]))
        plot(table, agents, ["rules"], out / "search_options.png", "search with heuristic playouts against rules")
        print(table.to_string(index=False))
    print(f"results in {out}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main(sys.argv[1:])
