"""The shipped equilibrium agents head to head with the shipped ``ppo`` and with IS-MCTS.

    python experiments/head_to_head.py            # full run, 200 games a pairing
    python experiments/head_to_head.py --quick    # a few games, IS-MCTS at 10 simulations (seconds)

In every full game with a shipped ``mmd`` (``elements_ai.zoo``; the round's ``mmd`` is
measured exactly instead, ``families_exact.py``), a gauntlet: ``mmd`` against the
game's shipped ``ppo`` and against ``ismcts:sims=1000``, seats rotated, each deal played
in both seatings. The games start from the evaluation seeds (``_common.EVAL_SEED``)
unless ``--seed`` says otherwise. Writes under ``experiments/results/head_to_head/``:
``<game>/`` (each gauntlet's folder), ``head_to_head.csv`` and ``.md`` (the score of
``mmd`` against each opponent: win 1, draw 1/2, with its 95% Wilson interval, and its
mean return with a 95% t interval) and ``run.json``.
"""

from __future__ import annotations

import sys

import pandas as pd
from _common import MEASURED_EXACTLY, folder_name, parser, results_folder, run_record, seed_of, trained_at, write_run

import elements_ai
from elements_ai import zoo
from elements_ai.core.params import ParameterError
from elements_ai.eval import pairwise, tournament
from elements_ai.eval.report import short_game
from elements_ai.tables import provenance, write_csv


def agents_of(args) -> list[zoo.Recipe]:
    """The shipped ``mmd`` recipes of full games (``--games`` picks among them)."""
    every = [r for r in zoo.shipped("mmd") if r.name not in MEASURED_EXACTLY]
    if not args.games:
        return every
    try:
        wanted = {str(elements_ai.load_game(g)) for g in args.games}
    except ParameterError as error:
        raise SystemExit(f"--games: {error}") from None
    picked = [r for r in every if r.game in wanted]
    if not picked:
        raise SystemExit(f"--games: no shipped mmd for {', '.join(args.games)}; shipped for: "
                         f"{', '.join(short_game(r.game) for r in every)}")
    return picked


def markdown(table: pd.DataFrame) -> str:
    lines = ["| game | agent | opponent | games | score [95%] | mean return [95%] |", "|---|---|---|---|---|---|"]
    for row in table.itertuples():
        lines.append(f"| `{short_game(row.game)}` | `{row.agent}` | `{row.opponent}` | {row.games} | "
                     f"{row.score:.2f} [{row.score_low:.2f}, {row.score_high:.2f}] | "
                     f"{row.mean_return:+.3f} [{row.return_low:+.3f}, {row.return_high:+.3f}] |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args = parser("head_to_head", __doc__.split("\n\n")[0]).parse_args(argv)
    measured_with = provenance()  # at the start: the commit may move while the run goes on
    seed = seed_of(args)
    sims = 10 if args.quick else 1000
    games_per_pair = 4 if args.quick else 200
    workers = args.workers or (1 if args.quick else None)
    out = results_folder("head_to_head", args.out, args.quick)
    entries = agents_of(args)
    rows = []
    for entry in entries:
        game = short_game(entry.game)
        opponents = ["ppo", f"ismcts:sims={sims}"]
        played = tournament(entry.game, ["mmd", *opponents], games_per_pair, seed=seed, mode="gauntlet",
                            workers=workers, out=out / folder_name(game), progress=not args.quick)
        pairs = pairwise(played)
        for opponent in opponents:
            hit = pairs[(pairs["agent"] == "mmd") & (pairs["opponent"] == opponent)].iloc[0]
            rows.append({"recipe": entry.name, "game": entry.game, "agent": "mmd", "opponent": opponent,
                         "games": int(hit.games), "score": hit.score, "score_low": hit.score_low,
                         "score_high": hit.score_high, "mean_return": hit.mean_return,
                         "return_low": hit.return_low, "return_high": hit.return_high})
            print(f"{game}: mmd against {opponent}: {hit.score:.2f} [{hit.score_low:.2f}, {hit.score_high:.2f}]",
                  flush=True)
    table = pd.DataFrame(rows)
    write_csv(table, out / "head_to_head.csv")
    (out / "head_to_head.md").write_text(markdown(table))
    write_run(out / "run.json", run_record("head_to_head.py", argv, measured_with, seed=seed, sims=sims,
                                           games_per_pair=games_per_pair, agents=trained_at(entries)))
    print(f"results in {out}")
    return table


if __name__ == "__main__":
    main(sys.argv[1:])
