"""Environment steps per second during self-play training, against the vector face's own random play.

For every game, in one run, at the same batch size and on the same threads (the
trainer's: one torch and one numba thread by default):
  * ``random``        — ``env.step(env.sample_actions())``, the vector face alone;
  * ``ppo collect``   — PPO's self-play: information-state encoding, the policy
    network's forward pass and sampling, league opponents, the env step;
  * ``ppo train``     — whole PPO iterations: collection and the learner's update
    (checkpoints and evaluations apart);
  * ``az train``      — AlphaZero-style iterations (perfect-information variants
    only): batched PUCT search at every move, then learning.
Each figure is the median over timed iterations after a warm-up one, and its ratio
is to ``random`` measured in the same run. Prints a table and writes
``selfplay.csv`` (default folder ``benchmarks/results``).

    python benchmarks/selfplay.py            # full run (minutes)
    python benchmarks/selfplay.py --quick    # seconds; run by the test suite
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba
import pandas as pd
import torch

import elements_ai
from elements_ai.selfplay.az import AlphaZeroTrainer, AZConfig
from elements_ai.selfplay.ppo import PPOConfig, PPOTrainer
from elements_ai.tables import provenance, write_csv

AZ_GAMES = {"elementos": {"setup": "standard"}}


def random_rate(game, num_envs: int, repeats: int, steps: int) -> float:
    env = elements_ai.VecEnv(game.kernel, game.config, num_envs, seed=0, autoreset=True)
    env.step(env.sample_actions())
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            env.step(env.sample_actions())
        rates.append(steps * num_envs / (time.perf_counter() - start))
    return statistics.median(rates)


def ppo_rates(game, config: PPOConfig, repeats: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        trainer = PPOTrainer(game, out, config, seed=0, progress=False)
        per_iteration = config.num_envs * config.rollout_steps
        trainer.train(per_iteration)  # warm-up: compilation, first snapshot
        collect, whole = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            trainer.collector.collect_with(trainer.net.state_dict())
            collect.append(per_iteration / (time.perf_counter() - start))
            start = time.perf_counter()
            trainer.step()
            whole.append(per_iteration / (time.perf_counter() - start))
    return statistics.median(collect), statistics.median(whole)


def az_rate(game, config: AZConfig, repeats: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        trainer = AlphaZeroTrainer(game, out, config, seed=0, progress=False)
        per_iteration = config.num_games * config.moves_per_iteration
        trainer.train(per_iteration)
        rates = []
        for _ in range(repeats):
            start = time.perf_counter()
            trainer.step()
            rates.append(per_iteration / (time.perf_counter() - start))
    return statistics.median(rates)


def run(quick: bool, games: list[str]) -> pd.DataFrame:
    num_envs = 64 if quick else 256
    repeats = 2 if quick else 5
    ppo = PPOConfig(num_envs=num_envs, rollout_steps=8 if quick else 32, hidden=(64,) if quick else (128, 128),
                    eval_every=0, checkpoint_every=10**6, snapshot_every=1)
    az = AZConfig(num_games=16 if quick else 64, sims=8 if quick else 32, moves_per_iteration=2 if quick else 8,
                  hidden=(64,) if quick else (128, 128), batch_size=64 if quick else 256,
                  eval_every=0, checkpoint_every=10**6)
    torch.set_num_threads(ppo.threads)
    numba.set_num_threads(min(ppo.threads, numba.config.NUMBA_NUM_THREADS))
    rows = []

    def add(game, figure, batch, rate, reference):
        rows.append({"game": str(game), "figure": figure, "batch": batch, "steps_per_s": rate,
                     "x_random": rate / reference})
        print(f"  {str(game):<58} {figure:<12} {batch:>5} {rate:>14,.0f}", flush=True)

    for name in games:
        game = elements_ai.load_game(name)
        reference = random_rate(game, num_envs, repeats, 20 if quick else 200)
        add(game, "random", num_envs, reference, reference)
        collect, whole = ppo_rates(game, ppo, repeats)
        add(game, "ppo collect", num_envs, collect, reference)
        add(game, "ppo train", num_envs, whole, reference)
        if name in AZ_GAMES:
            az_game = elements_ai.load_game(name, **AZ_GAMES[name])
            az_reference = random_rate(az_game, az.num_games, repeats, 20 if quick else 200)
            add(az_game, "random", az.num_games, az_reference, az_reference)
            add(az_game, f"az train ({az.sims} sims)", az.num_games, az_rate(az_game, az, repeats), az_reference)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny runs, for the test suite")
    parser.add_argument("--games", nargs="*", default=list(elements_ai.GAMES), help="games to measure")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results",
                        help="folder for selfplay.csv")
    args = parser.parse_args(argv)
    for name in args.games:
        elements_ai.get_kernel(name)  # unknown game: a clear error before any timing
    table = run(args.quick, args.games)
    print()
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    write_csv(table.assign(**provenance()), args.out / "selfplay.csv")
    print(f"\nwrote {args.out / 'selfplay.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
