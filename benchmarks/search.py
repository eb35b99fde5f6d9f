"""Search agents: speed against OpenSpiel's Python MCTS / IS-MCTS, and strength.

    python benchmarks/search.py            # full run (minutes)
    python benchmarks/search.py --quick    # tiny numbers, well under a minute

Three tables, each printed and written as CSV to ``benchmarks/results/``:

* ``search_speed.csv``: simulations per second of our MCTS and IS-MCTS and of
  OpenSpiel's Python ``MCTSBot`` (``RandomRolloutEvaluator``, one rollout) and
  ``ISMCTSBot`` on the same game and position, median over repeats, and the ratio.
* ``search_strength.csv``: every agent against ``random``, ``rules`` and MCTS in
  every registered game, seats rotated, score (win 1, a best return shared by k
  players 1/k) with a 95% Wilson interval.
* ``search_scaling.csv``: score against the number of simulations, against one
  fixed opponent.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import math
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts as os_ismcts
from open_spiel.python.algorithms import mcts as os_mcts

import elements_ai
from elements_ai.agents import make_bot, play_game
from elements_ai.core.rng import seeds_from

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


# --- helpers ------------------------------------------------------------------------

def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``score / n``."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def seat_score(returns: list[float], seat: int) -> float:
    """1 for the sole best return, 1/k when k players share it, else 0."""
    best = max(returns)
    if returns[seat] < best:
        return 0.0
    return 1.0 / sum(1 for r in returns if r == best)


def first_decision(game, seed: int = 0):
    """The first state where a player is to move, chance drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(outcomes[rng.choice(len(outcomes), p=probs)]))
    return state


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


def write_csv(path: pathlib.Path, header: list[str], rows: list[list]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --- (a) speed ------------------------------------------------------------------------

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


# --- (b) strength ---------------------------------------------------------------------

def _can_build(spec: str, game) -> str | None:
    try:
        make_bot(spec, game, 0)
    except ValueError as error:
        return str(error)
    return None


def play_one(game_name: str, agent: str, opponent: str, g: int, seed: int) -> float:
    """Game ``g`` of a match: ``agent`` in seat ``g % players``, ``opponent`` elsewhere."""
    game = elements_ai.load_game(game_name)
    players = game.num_players()
    seat = g % players
    bots = [make_bot(agent if p == seat else opponent, game, p, seed=seed + 1000 * g + p) for p in range(players)]
    returns, _ = play_game(game, bots, seed=seed + g)
    return seat_score(returns, seat)


class Progress:
    """Prints ``label: done/total games`` to stderr at most every ``every`` seconds."""

    def __init__(self, label: str, total: int, every: float = 30.0):
        self.label, self.total, self.every = label, total, every
        self.done, self.start, self.last = 0, time.perf_counter(), time.perf_counter()

    def tick(self) -> None:
        self.done += 1
        now = time.perf_counter()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            elapsed = now - self.start
            print(f"  {self.label}: {self.done}/{self.total} games, {elapsed:.0f} s", file=sys.stderr, flush=True)


def play_matches(
    pairings: list[tuple[str, str, str]], num_games: int, seed: int, jobs: int, label: str = "games"
) -> list[float]:
    """Total score of each ``(game, agent, opponent)`` over ``num_games`` games."""
    tasks = [(pairing, g) for pairing in pairings for g in range(num_games)]
    progress = Progress(label, len(tasks))
    if jobs > 1 and len(tasks) > 1:
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            futures = [pool.submit(play_one, *pairing, g, seed) for pairing, g in tasks]
            for _ in concurrent.futures.as_completed(futures):
                progress.tick()
            scores = [f.result() for f in futures]
    else:
        scores = []
        for pairing, g in tasks:
            scores.append(play_one(*pairing, g, seed))
            progress.tick()
    totals = {pairing: 0.0 for pairing in pairings}
    for (pairing, _), score in zip(tasks, scores):
        totals[pairing] += score
    return [totals[pairing] for pairing in pairings]


def _score_columns(total: float, n: int) -> list:
    low, high = wilson(total, n)
    return [n, round(total / n, 3), round(low, 3), round(high, 3), ""]


def strength(games: list[str], agents: list[str], opponents: list[str], num_games: int, jobs: int = 1):
    header = ["game", "agent", "opponent", "games", "score", "low95", "high95", "note"]
    rows, pairings = [], []
    for name in games:
        game = elements_ai.load_game(name)
        for agent in agents:
            for opponent in opponents:
                problem = _can_build(agent, game) or _can_build(opponent, game)
                rows.append([name, agent, opponent] + ([0, "", "", "", f"n/a: {problem}"] if problem else [None]))
                if not problem:
                    pairings.append((name, agent, opponent))
    totals = dict(zip(pairings, play_matches(pairings, num_games, 0, jobs, "strength")))
    for row in rows:
        if row[3] is None:
            row[3:] = _score_columns(totals[tuple(row[:3])], num_games)
    return header, rows


# --- (c) scaling ----------------------------------------------------------------------

def scaling(games: list[str], kinds: list[str], sims_list: list[int], opponent: str, num_games: int, jobs: int = 1):
    header = ["game", "agent", "sims", "opponent", "games", "score", "low95", "high95", "note"]
    rows, pairings = [], []
    for name in games:
        game = elements_ai.load_game(name)
        against = opponent if _can_build(opponent, game) is None else "random"
        for kind in kinds:
            for sims in sims_list:
                agent = f"{kind}:sims={sims}"
                problem = _can_build(agent, game)
                rows.append([name, kind, sims, against] + ([0, "", "", "", f"n/a: {problem}"] if problem else [None]))
                if not problem:
                    pairings.append((name, agent, against))
    totals = dict(zip(pairings, play_matches(pairings, num_games, 77, jobs, "scaling")))
    for row in rows:
        if row[4] is None:
            row[4:] = _score_columns(totals[(row[0], f"{row[1]}:sims={row[2]}", row[3])], num_games)
    return header, rows


# --- main -----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> dict[str, list[list]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny numbers, for the test suite")
    parser.add_argument("--games", nargs="*", default=list(elements_ai.GAMES), help="games (default: all)")
    parser.add_argument(
        "--speed-games", nargs="*", default=None,
        help="games or game strings of the speed table (default: --games, and one round of elements)",
    )
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS, help="folder for the CSV files")
    parser.add_argument("--opponent", default="mcts:sims=100", help="fixed opponent of the scaling table")
    parser.add_argument(
        "--jobs", type=int, default=None,
        help="processes playing the strength and scaling games (default: 1 with --quick, else all cores)",
    )
    parser.add_argument("--only", choices=("speed", "strength", "scaling"), nargs="*", help="run only these parts")
    args = parser.parse_args(argv)
    parts = set(args.only or ("speed", "strength", "scaling"))
    jobs = args.jobs or (1 if args.quick else os.cpu_count() or 1)
    if args.quick:
        ours_sims, theirs_sims, repeats, theirs_repeats = 2000, 30, 3, 3
        strength_games, search_sims = 2, 20
        sims_list, scaling_games = [10, 40], 2
    else:
        ours_sims, theirs_sims, repeats, theirs_repeats = 5000, 5000, 5, 3
        strength_games, search_sims = 200, 1000
        sims_list, scaling_games = [100, 1000, 10000], 100
    speed_games = args.speed_games
    if speed_games is None:
        speed_games = list(args.games) + (["elements(single_round=true)"] if "elements" in args.games else [])
    tables = {}
    if "speed" in parts:
        header, rows = speed(speed_games, ours_sims, theirs_sims, repeats, theirs_repeats)
        print_table(
            f"(a) simulations per second at the first decision of each game, median of "
            f"{repeats} (ours) and {theirs_repeats} (OpenSpiel's Python MCTSBot / ISMCTSBot) searches",
            header, rows,
        )
        write_csv(args.out / "search_speed.csv", header, rows)
        tables["speed"] = rows
    if "strength" in parts:
        agents = ["random", "rules", f"mcts:sims={search_sims}", f"ismcts:sims={search_sims}"]
        opponents = ["random", "rules", f"mcts:sims={search_sims}"]
        header, rows = strength(args.games, agents, opponents, strength_games, jobs)
        print_table(f"(b) strength: score with 95% Wilson interval, {strength_games} games each", header, rows)
        write_csv(args.out / "search_strength.csv", header, rows)
        tables["strength"] = rows
    if "scaling" in parts:
        header, rows = scaling(args.games, ["mcts", "ismcts"], sims_list, args.opponent, scaling_games, jobs)
        print_table(f"(c) score against simulations, {scaling_games} games each", header, rows)
        write_csv(args.out / "search_scaling.csv", header, rows)
        tables["scaling"] = rows
    return tables


if __name__ == "__main__":
    main(sys.argv[1:])
