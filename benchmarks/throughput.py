"""Random-play throughput of every game through each face, against OpenSpiel references.

For every registered game, in one run on one machine:
  * ``openspiel``  — the OpenSpiel face driven by a Python loop (the loop any
    pyspiel user writes: is_terminal / chance_outcomes / legal_actions / apply_action);
  * ``vector``     — the vector face, ``env.step(env.sample_actions())`` at batch
    sizes 1, 64 and 4096 with ``autoreset``;
  * ``playout``    — whole random games inside numba (``VecEnv.random_playouts``);
  * ``encode``     — observation tensors per second: ``env.observation()`` on a batch
    of 4096 states against per-state ``state.observation_tensor(player)`` calls.
References through the very same Python loop: OpenSpiel's C++ ``kuhn_poker`` and its
pure-Python ``python_kuhn_poker``.

Rates count the players' decisions (chance outcomes are applied in every face but
not counted). Each figure is the median of several timed repeats; ratios are taken
between figures of this run. Prints a table and writes CSV (``benchmarks/results/throughput.csv``)
with the commit and the machine. A full run that misses a target exits with status 1;
a quick one only prints the verdicts, its timings being too short to judge.

    python benchmarks/throughput.py            # full run
    python benchmarks/throughput.py --quick    # seconds; run by the test suite
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import pandas as pd
import pyspiel
from open_spiel.python import games as _python_games  # noqa: F401  (registers python_kuhn_poker)

import elements_ai
from elements_ai.tables import provenance, write_csv
from elements_ai.testing import random_states

TARGETS = {  # figure -> (reference figure, minimum ratio)
    "vector B=4096": ("openspiel", 100.0),
    "openspiel": ("python_kuhn_poker", 0.5),
    "encode batch": ("encode per-state", 50.0),
}
# The richer games do more work per decision in numba, which the OpenSpiel face's
# fixed per-call cost hides less: their targets are lower.
GAME_TARGETS = {
    "elements1997": {"vector B=4096": 30.0, "encode batch": 30.0},
    "elementum": {"vector B=4096": 30.0, "encode batch": 30.0},
}


def median_rate(measure, repeats: int) -> float:
    """Median over ``repeats`` of ``count / seconds`` from ``measure() -> (count, seconds)``."""
    rates = []
    for _ in range(repeats):
        count, seconds = measure()
        rates.append(count / seconds)
    return statistics.median(rates)


def openspiel_loop(game: pyspiel.Game, seconds: float, seed: int = 0):
    """Random play through the pyspiel API; returns (decisions, elapsed)."""
    rnd = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = rnd.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                action = rnd.choice(state.legal_actions())
                decisions += 1
            state.apply_action(action)
    return decisions, time.perf_counter() - start


def vector_loop(name: str, batch: int, seconds: float, seed: int = 0):
    env = elements_ai.make_vec(name, batch, seed=seed, autoreset=True)
    env.step(env.sample_actions())  # compile / load outside the clock
    env.reset()
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        decisions += batch - int(env.terminated.sum())  # finished envs restart instead
        env.step(env.sample_actions())
    return decisions, time.perf_counter() - start


def playout_loop(name: str, games: int, seed: int = 0):
    env = elements_ai.make_vec(name, 1)
    env.random_playouts(2, seed=seed)  # compile / load outside the clock
    start = time.perf_counter()
    _, lengths = env.random_playouts(games, seed=seed)
    return int(lengths.sum()), time.perf_counter() - start


def encode_rates(name: str, repeats: int, per_state: int, batch: int = 4096):
    states = random_states(elements_ai.load_game(name), per_state, seed=0)
    for state in states[:2]:
        state.observation_tensor(state.current_player())

    def one_by_one():
        start = time.perf_counter()
        for state in states:
            state.observation_tensor(state.current_player())
        return len(states), time.perf_counter() - start

    env = elements_ai.make_vec(name, batch, seed=1)
    for _ in range(5):  # move away from the start so the tensors are not trivial
        env.step(env.sample_actions())
    env.observation()

    def batched():
        start = time.perf_counter()
        env.observation()
        return batch, time.perf_counter() - start

    return median_rate(one_by_one, repeats), median_rate(batched, max(repeats, 5))


def run(quick: bool, games: list[str]) -> pd.DataFrame:
    seconds = 0.05 if quick else 1.0
    repeats = 3 if quick else 7
    rows = []

    def add(game, figure, rate, batch=""):
        rows.append({"game": game, "figure": figure, "batch": batch, "rate_per_s": rate})
        print(f"  {game:<16} {figure:<18} {str(batch):>5} {rate:>16,.0f}", flush=True)

    print(f"{'game':<18} {'figure':<18} {'batch':>5} {'decisions/s':>16}")
    for ref in ("python_kuhn_poker", "kuhn_poker"):
        add(ref, "openspiel", median_rate(lambda r=ref: openspiel_loop(pyspiel.load_game(r), seconds), repeats))
    for name in games:
        game = elements_ai.load_game(name)
        openspiel_loop(game, 0.01)  # load the compiled kernel outside the clock
        add(name, "openspiel", median_rate(lambda g=game: openspiel_loop(g, seconds), repeats))
        for batch in (1, 64, 4096):
            rate = median_rate(lambda n=name, b=batch: vector_loop(n, b, seconds), repeats)
            add(name, f"vector B={batch}", rate, batch)
        playouts = 200 if quick else 20_000
        add(name, "playout", median_rate(lambda n=name, g=playouts: playout_loop(n, g), repeats))
        per_state, batched = encode_rates(name, repeats, per_state=200 if quick else 2000)
        add(name, "encode per-state", per_state, 1)
        add(name, "encode batch", batched, 4096)
    return pd.DataFrame(rows)


def with_ratios(table: pd.DataFrame) -> pd.DataFrame:
    table = table.copy()
    kuhn = table.query("game == 'python_kuhn_poker'")["rate_per_s"].iloc[0]
    openspiel = table.query("figure == 'openspiel'").set_index("game")["rate_per_s"]
    table["x_openspiel_face"] = table["rate_per_s"] / table["game"].map(openspiel)
    table["x_python_kuhn"] = table["rate_per_s"] / kuhn
    table["target"] = ""
    for index, row in table.iterrows():
        if row["figure"] in TARGETS and row["game"] in elements_ai.GAMES:
            reference, minimum = TARGETS[row["figure"]]
            minimum = GAME_TARGETS.get(row["game"], {}).get(row["figure"], minimum)
            ref_rate = (
                kuhn
                if reference == "python_kuhn_poker"
                else table.query("game == @row.game and figure == @reference")["rate_per_s"].iloc[0]
            )
            ratio = row["rate_per_s"] / ref_rate
            verdict = "met" if ratio >= minimum else "MISSED"
            table.loc[index, "target"] = f"{ratio:,.1f}x {reference} (>= {minimum:g}x: {verdict})"
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny timings, for the test suite")
    parser.add_argument("--games", nargs="*", default=list(elements_ai.GAMES), help="games to measure")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "results", help="folder for throughput.csv"
    )
    args = parser.parse_args(argv)
    for name in args.games:
        elements_ai.get_kernel(name)  # unknown game: a clear error before any timing
    table = with_ratios(run(args.quick, args.games))
    print()
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 60):
        print(table.to_string(index=False, float_format=lambda x: f"{x:,.2f}"))
    write_csv(table.assign(**provenance()), args.out / "throughput.csv")
    print(f"\nwrote {args.out / 'throughput.csv'}")
    missed = [f"{row.game} {row.figure}: {row.target}" for row in table.itertuples() if "MISSED" in row.target]
    if missed:
        note = " (quick timings: not judged)" if args.quick else ""
        print(f"missed{note}:\n  " + "\n  ".join(missed), file=sys.stderr)
    return 1 if missed and not args.quick else 0


if __name__ == "__main__":
    sys.exit(main())
