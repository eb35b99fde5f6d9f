"""Strength in the games for more than two players, and the solo game's scores.

    python experiments/multiplayer.py            # full run (about half an hour on 2 cores)
    python experiments/multiplayer.py --quick    # tiny agents and a few games (seconds)

A round robin says little when most seats hold the same weak agent, so here each
agent plays one seat against ``random`` in all the others: ``rules``, ``ismcts`` at
1,000 simulations, the ``ppo`` network shipped for the game and player count where
one is (``elements_ai.zoo``), and ``random`` itself, the baseline; in
``elements1997`` with 3 and 5 players and ``elementum`` with 2 and 4. The agent's
seat rotates with the deal, and every agent meets the same deals (chance seeds), so
the agents' figures compare on equal luck. For each: the mean return (points above the table's
mean) with a 95% t-interval, and the win rate (a shared first place counts as a
fraction) with a 95% Wilson interval; a random seat wins ``1 / players`` of the
time. The solo ``elementum`` game (one player against the imitation) reports each
agent's score distribution and its rank (Novice … Archmage).

The games start from the evaluation seeds (``_common.EVAL_SEED``) unless ``--seed``
says otherwise. Writes under ``experiments/results/multiplayer/``: ``games.csv`` (one
row per game), ``multiplayer.csv`` / ``.md``, ``solo.csv`` / ``.md``,
``multiplayer.png`` and ``run.json`` (the command, the seed, the commit, the machine
and the shipped agents).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd
import scipy.stats
from _common import parser, results_folder, run_record, seed_of, shipped, trained_at, write_run
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import elements_ai
from elements_ai.eval.ratings import wilson
from elements_ai.eval.runner import run_local
from elements_ai.eval.schedule import ScheduledGame, derive_seed
from elements_ai.games.elementum import solo_rank
from elements_ai.progress import progress_bar
from elements_ai.tables import provenance, write_csv

GAMES = ("elements1997(players=3)", "elements1997(players=5)", "elementum(players=2)", "elementum(players=4)",
         "elementum(players=1)")
RANKS = ("Novice", "Apprentice", "Journeyman", "Adept", "Master", "Archmage")


def schedule(game: str, agents: list[str], deals: int, seed: int, filler: str = "random") -> list[tuple]:
    """Every agent on deal ``d`` in seat ``d % players``, ``filler`` in the other seats."""
    players = elements_ai.load_game(game).num_players()
    specs = tuple(agents) + (filler,)
    tasks = []
    for a in range(len(agents)):
        for deal in range(deals):
            seat = deal % players
            seats = tuple(a if s == seat else len(agents) for s in range(players))
            bot_seeds = tuple(derive_seed(seed, 1, a, deal, s) for s in range(players))
            item = ScheduledGame(len(tasks), a, deal, seat, seats, derive_seed(seed, 0, deal), bot_seeds)
            tasks.append((game, specs, item))
    return tasks


def agent_result(row: dict) -> tuple[float, float]:
    """The agent's return and its share of first place in one games.csv row."""
    returns = np.array([float(x) for x in row["returns"].split()])
    seat = int(row["seating"])
    best = returns.max()
    win = 1.0 / np.count_nonzero(returns == best) if returns[seat] == best else 0.0
    return float(returns[seat]), win


def summary(game: str, agent: str, rows: pd.DataFrame) -> dict:
    values, wins = rows["return"].to_numpy(), rows["win"].to_numpy()
    n = len(values)
    half = scipy.stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n) if n > 1 else np.inf
    low, high = wilson(wins.sum(), n)
    return {"game": game, "agent": agent, "players": rows["players"].iloc[0], "games": n,
            "mean_return": values.mean(), "return_low": values.mean() - half, "return_high": values.mean() + half,
            "win_rate": wins.mean(), "win_low": low, "win_high": high, "chance_win_rate": 1 / rows["players"].iloc[0]}


def solo_summary(agent: str, rows: pd.DataFrame) -> dict:
    points = rows["return"].to_numpy()
    ranks = [solo_rank(int(p)) for p in points]
    row = {"agent": agent, "games": len(points), "mean": points.mean(), "sd": points.std(ddof=1),
           "min": points.min(), "median": float(np.median(points)), "max": points.max(),
           "rank_of_median": solo_rank(int(np.median(points)))}
    row.update({rank: ranks.count(rank) / len(ranks) for rank in RANKS})
    return row


def markdown(table: pd.DataFrame) -> str:
    lines = ["| game | agent (one seat, `random` in the others) | games | mean return [95%] | win rate [95%] |",
             "|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| `{r.game}` | `{r.agent}` | {r.games} | {r.mean_return:+.1f} [{r.return_low:+.1f}, "
                     f"{r.return_high:+.1f}] | {r.win_rate:.2f} [{r.win_low:.2f}, {r.win_high:.2f}] "
                     f"(chance {r.chance_win_rate:.2f}) |")
    return "\n".join(lines) + "\n"


def solo_markdown(table: pd.DataFrame) -> str:
    lines = ["| agent | games | mean ± sd | median (rank) | min–max | " + " | ".join(RANKS) + " |",
             "|---|---|---|---|---|" + "---|" * len(RANKS)]
    for r in table.to_dict("records"):
        lines.append(f"| `{r['agent']}` | {r['games']} | {r['mean']:.1f} ± {r['sd']:.1f} | {r['median']:.0f} "
                     f"({r['rank_of_median']}) | {r['min']:.0f}–{r['max']:.0f} | "
                     + " | ".join(f"{r[rank]:.0%}" for rank in RANKS) + " |")
    return "\n".join(lines) + "\n"


def plot(table: pd.DataFrame, games: pd.DataFrame, path) -> None:
    multi = list(dict.fromkeys(table["game"]))
    solo = games[games["players"] == 1]
    panels = len(multi) + (not solo.empty)
    figure = Figure(figsize=(9.0, 2.4 * panels), layout="constrained")
    for k, game in enumerate(multi):
        axes = figure.add_subplot(panels, 1, k + 1)
        rows = table[table["game"] == game]
        x = np.arange(len(rows))
        errors = [rows["win_rate"] - rows["win_low"], rows["win_high"] - rows["win_rate"]]
        axes.bar(x, rows["win_rate"], 0.6, yerr=errors, capsize=3)
        axes.axhline(rows["chance_win_rate"].iloc[0], color="gray", lw=0.8, ls="--")
        axes.set_xticks(x, rows["agent"])
        axes.set_ylim(0, 1.05)
        axes.set_ylabel("win rate")
        axes.set_title(f"{game}: one seat against random", fontsize=10)
    if not solo.empty:
        axes = figure.add_subplot(panels, 1, panels)
        for agent, rows in solo.groupby("agent", sort=False):
            axes.hist(rows["return"], bins=np.arange(rows["return"].min() - 0.5, rows["return"].max() + 1.5, 2),
                      alpha=0.5, label=agent)
        axes.set_xlabel("solo points")
        axes.set_title("elementum solo: score distribution", fontsize=10)
        axes.legend(fontsize=8)
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=100, metadata={"Software": None})


def main(argv: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    args = parser("multiplayer", __doc__.split("\n\n")[0]).parse_args(argv)
    measured_with = provenance()  # at the start: the commit may move while the run goes on
    seed = seed_of(args)
    sims = 10 if args.quick else 1000
    deals = 4 if args.quick else 200
    workers = args.workers or (1 if args.quick else None)
    out = results_folder("multiplayer", args.out, args.quick)
    rows, entries = [], []
    for game in args.games or GAMES:
        agents = ["random", "rules", f"ismcts:sims={sims}"]
        if (ppo := shipped("ppo", game)) is not None:
            agents.append("ppo")
            entries.append(ppo)
        tasks = schedule(game, agents, deals, seed)
        start = time.perf_counter()
        done = run_local(tasks, workers or os.cpu_count() or 1)
        for row in progress_bar(done, total=len(tasks), desc=game, disable=args.quick):
            row["return"], row["win"] = agent_result(row)
            row["agent"] = agents[row["table"]]
            row["players"] = len(row["seats"].split())
            rows.append(row)
        print(f"{game}: {len(tasks)} games in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    games = pd.DataFrame(rows).sort_values(["game", "index"], kind="stable")
    multi = games[games["players"] > 1]
    table = pd.DataFrame([summary(g, a, r) for (g, a), r in multi.groupby(["game", "agent"], sort=False)])
    solo = pd.DataFrame([solo_summary(a, r) for a, r in games[games["players"] == 1].groupby("agent", sort=False)])
    write_csv(games.drop(columns=["index"]), out / "games.csv")
    write_csv(table, out / "multiplayer.csv")
    (out / "multiplayer.md").write_text(markdown(table))
    if not solo.empty:
        write_csv(solo, out / "solo.csv")
        (out / "solo.md").write_text(solo_markdown(solo))
    plot(table, games, out / "multiplayer.png")
    write_run(out / "run.json", run_record("multiplayer.py", argv, measured_with, seed=seed, deals=deals,
                                           agents=trained_at(entries)))
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        print(solo.to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    print(f"results in {out}")
    return table, solo


if __name__ == "__main__":
    np.seterr(all="ignore")
    main(sys.argv[1:])
