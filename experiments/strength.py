"""The strength table: every agent against random, rules and MCTS in every two-player game.

    python experiments/strength.py            # full run, 200 games a pairing
    python experiments/strength.py --quick    # tiny agents and a few games (seconds)

Each game is a round robin (``elements_ai.eval.tournament``) between ``random``,
``rules``, ``mcts`` and ``ismcts`` at 1,000 simulations, and the ``ppo`` network
shipped for the game where one is (``elements_ai.zoo``): seats rotated, each deal
played in both seatings, so the luck of the deal cancels. An agent a game cannot
host (e.g. ``rules`` without a heuristic) is left out with a note. The games start
from the evaluation seeds (``_common.EVAL_SEED``) unless ``--seed`` says otherwise.
Writes under ``experiments/results/strength/``:

* ``<game>/``: the game's tournament folder (games.csv, ratings.csv, pairwise.csv,
  plots); rerunning the script resumes an interrupted run and replays nothing;
* ``strength.csv``: each agent's score against each opponent, with its 95% Wilson
  interval; ``strength.md`` the same as a Markdown table;
* ``ratings.csv``: each game's Elo ratings with 95% bootstrap intervals;
* ``strength.png``: the scores, one panel per game;
* ``run.json``: the command, the seed, the commit, the machine and the shipped
  agents (recipe and the commit each was trained at).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
from _common import (
    folder_name,
    parser,
    results_folder,
    run_record,
    seed_of,
    shipped,
    trained_at,
    two_player_games,
    write_run,
)
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import elements_ai
from elements_ai.agents import make_bot
from elements_ai.eval import pairwise, ratings, tournament
from elements_ai.tables import provenance, write_csv


def hosted(game: str, specs: list[str]) -> tuple[list[str], list[str]]:
    """The specs every seat of ``game`` can host, and notes on the others."""
    loaded = elements_ai.load_game(game)
    kept, notes = [], []
    for spec in specs:
        try:
            for seat in range(loaded.num_players()):
                make_bot(spec, loaded, seat)
            kept.append(spec)
        except ValueError as error:
            notes.append(f"{game}: {spec} left out ({error})")
    return kept, notes


def strength_rows(game: str, games: pd.DataFrame, opponents: list[str]) -> list[dict]:
    """The score of every agent against each of ``opponents`` (one-player games: mean return)."""
    if len(games["agents"].iloc[0].split("|")) == 1:
        table = ratings(games)
        return [
            {"game": game, "agent": row.agent, "opponent": "", "games": row.games, "score": row.rating,
             "score_low": row.ci_low, "score_high": row.ci_high}
            for row in table.itertuples()
        ]
    table = pairwise(games)
    table = table[table["opponent"].isin(opponents)]
    return [
        {"game": game, "agent": row.agent, "opponent": row.opponent, "games": row.games, "score": row.score,
         "score_low": row.score_low, "score_high": row.score_high}
        for row in table.itertuples()
    ]


def markdown(table: pd.DataFrame, agents: list[str], opponents: list[str]) -> str:
    lines = ["| game | agent | " + " | ".join(f"vs `{o}`" for o in opponents) + " |",
             "|---|---|" + "---|" * len(opponents)]
    for game, rows in table.groupby("game", sort=False):
        for agent in agents:
            cells = []
            for opponent in opponents:
                hit = rows[(rows["agent"] == agent) & (rows["opponent"] == opponent)]
                cells.append(
                    "—" if hit.empty else
                    f"{hit.score.iloc[0]:.2f} [{hit.score_low.iloc[0]:.2f}, {hit.score_high.iloc[0]:.2f}]"
                )
            if any(c != "—" for c in cells):
                lines.append(f"| `{game}` | `{agent}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(table: pd.DataFrame, agents: list[str], opponents: list[str], path, title: str) -> None:
    games = list(dict.fromkeys(table["game"]))
    figure = Figure(figsize=(9.0, 2.8 * len(games)), layout="constrained")
    for panel, game in enumerate(games):
        axes = figure.add_subplot(len(games), 1, panel + 1)
        rows = table[table["game"] == game]
        width = 0.8 / len(opponents)
        for k, opponent in enumerate(opponents):
            x, y, low, high = [], [], [], []
            for i, agent in enumerate(agents):
                hit = rows[(rows["agent"] == agent) & (rows["opponent"] == opponent)]
                if not hit.empty:
                    x.append(i + (k - (len(opponents) - 1) / 2) * width)
                    y.append(hit.score.iloc[0])
                    low.append(hit.score.iloc[0] - hit.score_low.iloc[0])
                    high.append(hit.score_high.iloc[0] - hit.score.iloc[0])
            axes.bar(x, y, width, yerr=[low, high], capsize=3, label=f"vs {opponent}")
        axes.axhline(0.5, color="gray", lw=0.8, ls="--")
        axes.set_xticks(range(len(agents)), agents)
        axes.set_ylim(0, 1.05)
        axes.set_ylabel("score")
        axes.set_title(game, fontsize=10)
    handles, labels = figure.axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=len(opponents), fontsize=9)
    figure.suptitle(title, fontsize=11)
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=100, metadata={"Software": None})


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args = parser("strength", __doc__.split("\n\n")[0]).parse_args(argv)
    measured_with = provenance()  # at the start: the commit may move while the run goes on
    seed = seed_of(args)
    sims = 10 if args.quick else 1000
    games_per_pair = 4 if args.quick else 200
    searches = ["random", "rules", f"mcts:sims={sims}", f"ismcts:sims={sims}"]
    opponents = ["random", "rules", f"mcts:sims={sims}"]
    workers = args.workers or (1 if args.quick else None)  # quick: no process start-up
    out = results_folder("strength", args.out, args.quick)
    rows, rated, notes, entries = [], [], [], []
    for game in args.games or two_player_games():
        ppo = shipped("ppo", game)
        entries += [ppo] if ppo is not None else []
        kept, dropped = hosted(game, searches + (["ppo"] if ppo is not None else []))
        notes += dropped
        start = time.perf_counter()
        games = tournament(
            game, kept, games_per_pair, seed=seed, workers=workers, out=out / folder_name(game),
            progress=not args.quick,
        )
        print(f"{game}: {len(games)} games in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        rows += strength_rows(game, games, opponents)
        rated.append(ratings(games, seed=seed).assign(game=game))
    agents = searches + (["ppo"] if entries else [])
    table = pd.DataFrame(rows)
    write_csv(table, out / "strength.csv")
    all_ratings = pd.concat(rated, ignore_index=True)
    write_csv(all_ratings[["game"] + [c for c in all_ratings.columns if c != "game"]], out / "ratings.csv")
    title = f"score with 95% Wilson interval, {games_per_pair} games a pairing, search at {sims} simulations"
    (out / "strength.md").write_text(markdown(table, agents, opponents))
    plot(table, agents, opponents, out / "strength.png", title)
    write_run(out / "run.json", run_record("strength.py", argv, measured_with, seed=seed,
                                           games_a_pairing=games_per_pair, agents=trained_at(entries)))
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(table.to_string(index=False))
    for note in notes:
        print(note)
    print(f"results in {out}")
    return table


if __name__ == "__main__":
    np.seterr(all="ignore")
    main(sys.argv[1:])
