"""Search agents: speed against OpenSpiel's Python MCTS / IS-MCTS.

    python benchmarks/search.py            # full run (minutes)
    python benchmarks/search.py --quick    # tiny numbers, seconds

Prints and writes ``benchmarks/results/search_speed.csv``: simulations per second
of our MCTS and IS-MCTS and of OpenSpiel's Python ``MCTSBot``
(``RandomRolloutEvaluator``, one rollout) and ``ISMCTSBot`` on the same game and
position, median over repeats, and the ratio. Playing strength is measured by the
tournament runner (``elements_ai.eval``): ``experiments/strength.py`` and
``experiments/scaling.py``.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np
import pandas as pd
import pyspiel
from open_spiel.python.algorithms import ismcts as os_ismcts
from open_spiel.python.algorithms import mcts as os_mcts

import elements_ai
from elements_ai.agents import make_bot
from elements_ai.core.rng import seeds_from
from elements_ai.tables import provenance, write_csv
from elements_ai.testing import first_decision

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


# --- helpers ------------------------------------------------------------------------

def _clip(text: str, width: int = 72) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def print_table(title: str, header: list[str], rows: list[list]) -> None:
    cells = [[f"{c:.3g}" if isinstance(c, float) else _clip(str(c)) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)]
    print(f"\n{title}", flush=True)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)), flush=True)


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --- speed ----------------------------------------------------------------------------

def _openspiel_mcts(game, sims: int, seed: int):
    evaluator = os_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return os_mcts.MCTSBot(
        game, uct_c=1.4, max_simulations=sims, evaluator=evaluator, solve=False,
        random_state=np.random.RandomState(seed),
    )


def _openspiel_ismcts(game, sims: int, seed: int):
    evaluator = os_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = os_ismcts.ISMCTSBot(
        game, evaluator, uct_c=1.4, max_simulations=sims, random_state=np.random.RandomState(seed),
    )
    rng = seeds_from(seed, 1)
    out = np.zeros(game.config.state_size, game.kernel.state_dtype)
    kernel, cfg = game.kernel, game.cfg

    def resampler(state, player):
        kernel.resample(cfg, state.array, player, rng, out)
        return game.state_from_array(out)

    bot.set_resampler(resampler)
    return bot


def speed(games: list[str], ours_sims: int, theirs_sims: int, repeats: int, theirs_repeats: int):
    header = ["game", "search", "ours_sims", "ours_sims_per_s", "openspiel_sims", "openspiel_sims_per_s", "ratio"]
    rows = []
    for name in games:
        game = elements_ai.load_game(name)
        state = first_decision(game)
        player = state.current_player()
        for kind in ("mcts", "ismcts"):
            try:
                ours = make_bot(f"{kind}:sims={ours_sims}", game, player, seed=1)
            except ValueError as error:
                rows.append([name, kind, ours_sims, f"n/a ({error})", theirs_sims, "", ""])
                continue
            ours.step(state)  # compiles (or loads the cache)
            ours_rate = ours_sims / _median_time(lambda bot=ours, s=state: bot.step(s), repeats)
            try:
                if kind == "mcts":
                    theirs = _openspiel_mcts(game, theirs_sims, 1)
                else:
                    if game.kernel.resample is None:
                        raise ValueError("no resample function")
                    theirs = _openspiel_ismcts(game, theirs_sims, 1)
                theirs_rate = theirs_sims / _median_time(lambda bot=theirs, s=state: bot.step(s), theirs_repeats)
                rows.append([
                    name, kind, ours_sims, round(ours_rate), theirs_sims, round(theirs_rate),
                    round(ours_rate / theirs_rate, 1),
                ])
            except (pyspiel.SpielError, ValueError, AssertionError) as error:
                rows.append([
                    name, kind, ours_sims, round(ours_rate), theirs_sims,
                    f"n/a ({type(error).__name__}: {error})", "",
                ])
    return header, rows


# --- main -----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> dict[str, list[list]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny numbers, for the test suite")
    parser.add_argument(
        "--games", nargs="*", default=None,
        help="games or game strings (default: every game, and one round of elements)",
    )
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS, help="folder for the CSV file")
    args = parser.parse_args(argv)
    if args.quick:
        ours_sims, theirs_sims, repeats, theirs_repeats = 2000, 30, 3, 3
    else:
        ours_sims, theirs_sims, repeats, theirs_repeats = 5000, 5000, 5, 3
    games = args.games
    if games is None:
        games = list(elements_ai.GAMES) + ["elements(single_round=true)"]
    header, rows = speed(games, ours_sims, theirs_sims, repeats, theirs_repeats)
    print_table(
        f"simulations per second at the first decision of each game, median of "
        f"{repeats} (ours) and {theirs_repeats} (OpenSpiel's Python MCTSBot / ISMCTSBot) searches",
        header, rows,
    )
    write_csv(pd.DataFrame(rows, columns=header).assign(**provenance()), args.out / "search_speed.csv")
    return {"speed": rows}


if __name__ == "__main__":
    main(sys.argv[1:])
