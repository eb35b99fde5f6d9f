"""The scaling table: score against the number of simulations.

    python experiments/scaling.py            # full run, 100 games a pairing (elementos 50)
    python experiments/scaling.py --quick    # tiny searches, a few games (seconds)

In every game, MCTS and IS-MCTS at 100, 1,000 and 10,000 simulations play a
gauntlet against one fixed opponent, ``mcts:sims=100`` (``elements_ai.eval.tournament``
with ``mode="gauntlet"``: seats rotated, each deal in both seatings). The opponent
against itself is not played: its score is 1/2 by symmetry. ``elementos`` plays 50
games a pairing instead of 100: its games run to 200 moves, and at 10,000
simulations a move they alone would take most of an hour on two cores. The games
start from the evaluation seeds (``_common.EVAL_SEED``) unless ``--seed`` says
otherwise. Writes under ``experiments/results/scaling/``: ``<game>/`` (each
tournament's folder), ``scaling.csv`` (score and 95% Wilson interval per game, search
and simulations), ``scaling.md``, ``scaling.png`` and ``run.json`` (the command, the
seed, the commit and the machine).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
from _common import folder_name, parser, results_folder, run_record, seed_of, two_player_games, write_run
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from elements_ai.eval import pairwise, tournament
from elements_ai.tables import provenance, write_csv

KINDS = ("mcts", "ismcts")
# Games a pairing in the full run, where not 100 (see the module docstring).
FULL_RUN_GAMES = {"elementos": 50}


def markdown(table: pd.DataFrame, sims: list[int]) -> str:
    at = " / ".join(f"{s:,}" for s in sims)
    names = [f"{kind.upper().replace('IS', 'IS-')} at {at}" for kind in KINDS]
    lines = ["| game | games a point | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(KINDS)]
    for game, rows in table.groupby("game", sort=False):
        cells = []
        for kind in KINDS:
            values = []
            for s in sims:
                hit = rows[(rows["search"] == kind) & (rows["sims"] == s)]
                values.append("—" if hit.empty else f"{hit.score.iloc[0]:.2f}")
            cells.append(" / ".join(values))
        lines.append(f"| `{game}` | {int(rows['games'].max())} | " + " | ".join(cells) + " |")
    lines.append(f"\n— : the opponent, `{table['opponent'].iloc[0]}`, itself (1/2 by symmetry, not played).")
    return "\n".join(lines) + "\n"


def plot(table: pd.DataFrame, path, title: str) -> None:
    games = list(dict.fromkeys(table["game"]))
    figure = Figure(figsize=(4.0 * len(games), 3.6), layout="constrained")
    for panel, game in enumerate(games):
        axes = figure.add_subplot(1, len(games), panel + 1)
        for kind in KINDS:
            rows = table[(table["game"] == game) & (table["search"] == kind)].sort_values("sims")
            axes.errorbar(
                rows["sims"], rows["score"],
                yerr=[rows["score"] - rows["score_low"], rows["score_high"] - rows["score"]],
                marker="o", capsize=3, label=kind,
            )
        axes.axhline(0.5, color="gray", lw=0.8, ls="--")
        axes.set_xscale("log")
        axes.set_ylim(0, 1.05)
        axes.set_xlabel("simulations per move")
        axes.set_ylabel("score")
        axes.set_title(f"{game} ({int(table.loc[table['game'] == game, 'games'].max())} games a point)", fontsize=10)
        axes.legend(fontsize=8, loc="lower right")
    figure.suptitle(title, fontsize=11)
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=100, metadata={"Software": None})


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args = parser("scaling", __doc__.split("\n\n")[0]).parse_args(argv)
    measured_with = provenance()  # at the start: the commit may move while the run goes on
    seed = seed_of(args)
    args_games = args.games or two_player_games()
    sims = [5, 20] if args.quick else [100, 1000, 10000]
    opponent = f"mcts:sims={sims[0]}"
    field = [f"{kind}:sims={s}" for kind in KINDS for s in sims if f"{kind}:sims={s}" != opponent]
    workers = args.workers or (1 if args.quick else None)  # quick: no process start-up
    out = results_folder("scaling", args.out, args.quick)
    rows, played = [], {}
    for game in args_games:
        games_per_pair = 4 if args.quick else FULL_RUN_GAMES.get(game, 100)
        played[game] = games_per_pair
        start = time.perf_counter()
        games = tournament(
            game, [opponent, *field], games_per_pair, seed=seed, mode="gauntlet", workers=workers,
            out=out / folder_name(game), progress=not args.quick,
        )
        print(f"{game}: {len(games)} games in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        scores = pairwise(games)
        scores = scores[scores["opponent"] == opponent]
        for row in scores.itertuples():
            kind, _, count = row.agent.partition(":sims=")
            rows.append({
                "game": game, "search": kind, "sims": int(count), "opponent": opponent, "games": row.games,
                "score": row.score, "score_low": row.score_low, "score_high": row.score_high,
            })
    table = pd.DataFrame(rows).sort_values(["game", "search", "sims"], kind="stable").reset_index(drop=True)
    table["game"] = pd.Categorical(table["game"], args_games)
    table = table.sort_values(["game", "search", "sims"], kind="stable").reset_index(drop=True)
    table["game"] = table["game"].astype(str)
    write_csv(table, out / "scaling.csv")
    (out / "scaling.md").write_text(markdown(table, sims))
    plot(table, out / "scaling.png", f"score against {opponent}, 95% Wilson intervals")
    write_run(out / "run.json", run_record("scaling.py", argv, measured_with, seed=seed, games_a_pairing=played))
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(table.to_string(index=False))
    print(f"results in {out}")
    return table


if __name__ == "__main__":
    np.seterr(all="ignore")
    main(sys.argv[1:])
