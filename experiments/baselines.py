"""The shipped baselines' strength, on evaluation seeds that no training or tuning run used.

    python experiments/baselines.py            # full run (every shipped learned agent)
    python experiments/baselines.py --quick    # a few games (seconds), into a temporary folder

The bar a learned agent ships with (``elements_ai.zoo``):

* a two-player game: a round robin of the agent, ``rules`` and ``random`` (every deal
  played in both seatings). The agent is rated above both, and scores at least 0.75
  against ``rules`` and 0.90 against ``random``;
* three to five players: the agent in one seat and ``rules`` in all the others, the
  seat rotating with the deal; it beats ``rules``: its win rate is above what a
  ``rules`` seat wins at the same tables (``1 / players``), and so is its return;
* solo Elementum: its mean score is above ``rules``' on the same deals.

Seeds: the tournaments and tables start from ``_common.EVAL_SEED`` (7,000,000), far
from the recipes' training seeds (single digits) and from the seeds used while tuning
them (below 10⁶). ``run.json`` records the commit, the command, the seeds and the
machine of a full run, and ``<table>.run.json`` those of the runs whose rows each
table shows (a ``--games`` run replaces only its agents' rows, and is added to the
record's ``updates``).

Writes under ``experiments/results/baselines/``: ``<game>/`` (each two-player
tournament; ``<game>-mmd/`` for an ``mmd`` agent), ``two_player.csv`` / ``.md``, ``multiplayer.csv`` / ``.md``,
``games.csv`` (the multiplayer games), ``run.json``.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd
from _common import (
    folder_name,
    merged,
    parser,
    results_folder,
    run_record,
    seed_of,
    shipped_learned,
    trained_at,
    write_run,
)
from multiplayer import agent_result, schedule, summary

import elements_ai
from elements_ai import zoo
from elements_ai.eval import pairwise, ratings, tournament
from elements_ai.eval.report import short_game
from elements_ai.eval.runner import run_local
from elements_ai.tables import provenance, write_csv

BARS = {"rules": 0.75, "random": 0.90}
MULTIPLAYER = ("elements1997", "elementum")  # judged seat against rules, at every player count


def tournament_folder(entry: zoo.Recipe) -> str:
    """The folder of an agent's round robin: the game's (``elements``), and the kind after it
    for an ``mmd`` that shares its game with a ``ppo`` (``elements-mmd``)."""
    name = folder_name(short_game(entry.game))
    return name if entry.kind in ("ppo", "az") else f"{name}-{entry.kind}"


def two_player(entry: zoo.Recipe, games: int, seed: int, workers, out, quick: bool) -> tuple[dict, pd.DataFrame]:
    agents = [entry.kind if not quick or entry.kind != "az" else "az:sims=4", "rules", "random"]
    played = tournament(entry.game, agents, games, seed=seed, workers=workers,
                        out=out / tournament_folder(entry), progress=not quick)
    rated = ratings(played, seed=seed).set_index("agent")
    pairs = pairwise(played)
    row = {"recipe": entry.name, "game": entry.game, "agent": agents[0], "games_a_pairing": games, "seed": seed}
    for _, rate in rated.iterrows():
        # The shipped agent's columns are "elo_agent" whatever its kind, so ppo and az rows share one table.
        column = "elo_agent" if rate.name == agents[0] else f"elo_{rate.name}"
        row[column], row[f"{column}_low"], row[f"{column}_high"] = rate.rating, rate.ci_low, rate.ci_high
    me = agents[0]
    for opponent in ("rules", "random"):
        hit = pairs[(pairs["agent"] == me) & (pairs["opponent"] == opponent)].iloc[0]
        row[f"vs_{opponent}"], row[f"vs_{opponent}_low"], row[f"vs_{opponent}_high"] = (
            hit.score, hit.score_low, hit.score_high)
    top = rated["rating"].idxmax()
    row["rated_first"] = bool(top == me)
    row["meets_bar"] = bool(row["rated_first"] and all(row[f"vs_{o}"] >= bar for o, bar in BARS.items()))
    return row, rated.reset_index().assign(game=entry.game)


def multiplayer(entry: zoo.Recipe, deals: int, seed: int, workers) -> tuple[list[dict], pd.DataFrame]:
    """The agent, then ``rules`` itself, in one seat with ``rules`` in every other."""
    agents = [entry.kind, "rules"]
    tasks = schedule(entry.game, agents, deals, seed, filler="rules")
    rows = []
    for row in run_local(tasks, workers or os.cpu_count() or 1):
        row["return"], row["win"] = agent_result(row)
        row["agent"] = agents[row["table"]]
        row["players"] = len(row["seats"].split())
        rows.append(row)
    games = pd.DataFrame(rows).sort_values("index", kind="stable").assign(recipe=entry.name)
    out = []
    for agent, table in games.groupby("agent", sort=False):
        result = summary(entry.game, agent, table)
        result.update(recipe=entry.name, seed=seed, deals=deals)
        out.append(result)
    mine, rules = out
    if mine["players"] == 1:
        mine["meets_bar"] = bool(mine["mean_return"] > rules["mean_return"])
    else:
        mine["meets_bar"] = bool(mine["win_rate"] > mine["chance_win_rate"] and mine["mean_return"] > 0)
    rules["meets_bar"] = None
    return out, games


def shipped_markdown() -> str:
    """The shipped agents: recipe, algorithm, length, training time and commit (from the manifest)."""
    listed = zoo.manifest()
    lines = ["| bot | game | recipe | algorithm | steps | training | trained at |", "|---|---|---|---|---|---|---|"]
    for entry in zoo.recipes().values():
        record = listed.get(entry.name)
        if record is None:
            continue
        exploit = f", exploitability {record['exploitability']:.1e}" if "exploitability" in record else ""
        lines.append(f"| `{entry.kind}` | `{short_game(entry.game)}` | `{entry.name}` | {entry.algorithm} | "
                     f"{entry.steps:,} | {record['train_seconds'] / 60:.1f} min{exploit} | "
                     f"`{record['commit'][:10]}{'-dirty' if record['commit'].endswith('-dirty') else ''}` |")
    return "\n".join(lines) + "\n"


def two_player_markdown(table: pd.DataFrame) -> str:
    lines = ["| game | agent | Elo [95%] | `rules` Elo | `random` Elo | vs `rules` [95%] | vs `random` [95%] | bar |",
             "|---|---|---|---|---|---|---|---|"]
    for r in table.to_dict("records"):
        lines.append(
            f"| `{short_game(r['game'])}` | `{r['agent']}` | {r['elo_agent']:.0f} [{r['elo_agent_low']:.0f}, "
            f"{r['elo_agent_high']:.0f}] | {r['elo_rules']:.0f} | {r['elo_random']:.0f} | "
            f"{r['vs_rules']:.2f} [{r['vs_rules_low']:.2f}, {r['vs_rules_high']:.2f}] | "
            f"{r['vs_random']:.2f} [{r['vs_random_low']:.2f}, {r['vs_random_high']:.2f}] | "
            f"{'met' if r['meets_bar'] else 'not met'} |")
    return "\n".join(lines) + "\n"


def multiplayer_markdown(table: pd.DataFrame) -> str:
    lines = ["| game | agent (one seat, `rules` in the others) | games | mean return [95%] | win rate [95%] | bar |",
             "|---|---|---|---|---|---|"]
    for r in table.to_dict("records"):
        bar = "" if r["meets_bar"] is None or r["meets_bar"] != r["meets_bar"] else (
            "met" if r["meets_bar"] else "not met")
        win = "" if r["players"] == 1 else (f"{r['win_rate']:.2f} [{r['win_low']:.2f}, {r['win_high']:.2f}] "
                                            f"(a `rules` seat: {r['chance_win_rate']:.2f})")
        lines.append(f"| `{short_game(r['game'])}` | `{r['agent']}` | {r['games']} | {r['mean_return']:+.2f} "
                     f"[{r['return_low']:+.2f}, {r['return_high']:+.2f}] | {win} | {bar} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    args = parser("baselines", __doc__.split("\n\n")[0]).parse_args(argv)
    measured_with = provenance()  # at the start: the commit may move while the run goes on
    seed = seed_of(args)
    games_a_pairing, deals = (4, 4) if args.quick else (1000, 400)
    workers = args.workers or (1 if args.quick else None)
    out = results_folder("baselines", args.out, args.quick)
    out.mkdir(parents=True, exist_ok=True)
    entries = [e for e in shipped_learned() if not args.games or e.game in {str(elements_ai.load_game(g))
                                                                            for g in args.games}]
    two, rated, multi, multi_games = [], [], [], []
    for entry in entries:
        start = time.perf_counter()
        if entry.game.split("(")[0] not in MULTIPLAYER:
            row, table = two_player(entry, games_a_pairing, seed, workers, out, args.quick)
            two.append(row)
            rated.append(table)
        else:
            rows, games = multiplayer(entry, deals, seed, workers)
            multi += rows
            multi_games.append(games)
        print(f"{entry.name}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    two_table, multi_table = pd.DataFrame(two), pd.DataFrame(multi)
    multi_games = pd.concat(multi_games, ignore_index=True).drop(columns=["index"]) if multi else None
    run = run_record("baselines.py", argv, measured_with, seed=seed, games_a_pairing=games_a_pairing, deals=deals,
                     agents=trained_at(entries))
    # A run limited by --games replaces its agents' rows in the tables it touches; the
    # other rows stay, and each table's record lists every run whose rows it shows.
    order = [e.name for e in shipped_learned()]
    records = {}
    for stem, wrote in (("two_player", two), ("multiplayer", multi)):
        if wrote:
            table = two_table if stem == "two_player" else multi_table
            if args.games:
                mine = {**run, "agents": {row["recipe"]: run["agents"][row["recipe"]] for row in wrote}}
                records[stem] = merged(out, stem, table, mine, order)
            else:
                records[stem] = (table, run)
    if "two_player" in records:
        two_table = records["two_player"][0]
        write_csv(two_table, out / "two_player.csv")
        (out / "two_player.md").write_text(two_player_markdown(two_table))
    if "multiplayer" in records:
        multi_table = records["multiplayer"][0]
        if args.games and (out / "games.csv").exists():
            kept = pd.read_csv(out / "games.csv")
            kept = kept[~kept["recipe"].isin(set(multi_games["recipe"])) & kept["recipe"].isin(set(order))]
            multi_games = pd.concat([kept, multi_games], ignore_index=True)
        write_csv(multi_table, out / "multiplayer.csv")
        write_csv(multi_games, out / "games.csv")
        (out / "multiplayer.md").write_text(multiplayer_markdown(multi_table))
    (out / "shipped.md").write_text(shipped_markdown())
    for stem, (_, record) in records.items():
        write_run(out / f"{stem}.run.json", record)
    if not args.games:
        write_run(out / "run.json", run)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        if two:
            print(two_player_markdown(two_table))
        if multi:
            print(multiplayer_markdown(multi_table))
    print(f"results in {out}")
    return two_table, multi_table


if __name__ == "__main__":
    np.seterr(all="ignore")
    main(sys.argv[1:])
