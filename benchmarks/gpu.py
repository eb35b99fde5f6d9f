"""The games on an NVIDIA GPU against the CPU faces on every core of the same machine.

For every game, in one run on one machine:
  * ``gpu playout``  — whole random games on the GPU, one game per thread
    (``CudaVecEnv.random_playouts``), at batches of 2^14 to 2^20 games;
  * ``gpu step``     — the GPU vector face, ``env.step(env.sample_actions())`` with
    ``autoreset``, at batches of 2^16 and 2^20 envs (env steps a second: the step
    that restarts a finished env counts);
  * ``cpu playout``  — whole random games inside numba on every core (``random_playouts``);
  * ``cpu step``     — the CPU vector face on every core at a batch of 4096 envs;
and for ``elements``, ``ppo train``: PPO's env steps a second end to end with the
games and the network on the GPU (``PPOTrainer(..., device="cuda")``, collection and
learning, evaluations and checkpoints apart).

Rates count the players' decisions (chance outcomes are applied but not counted),
except the env steps of ``step`` and ``ppo``. Each figure is the best of a few timed
repeats after a first call that compiles (its seconds are in ``first_call_s``).
Targets, judged on a full run: ``elements`` at least 1e9 decisions a second; every
game's best GPU playout rate at least 10x its CPU playout rate; PPO at least 1e6 env
steps a second. A full run that misses one exits with status 1. Prints a table and
writes CSV (``gpu.csv``) with the commit, the machine and the GPU.

Without a GPU, ``--quick`` runs numba's CUDA simulator on one small batch of
``elements`` (rows marked ``simulated``: the code runs, its rates mean nothing) and
says that the rest needs a GPU; a full run there exits with status 2.

    python benchmarks/gpu.py            # full run (minutes, on a GPU)
    python benchmarks/gpu.py --quick    # seconds; run by the test suite
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import tempfile
import time
from pathlib import Path


def _has_cuda_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


# Decided before numba.cuda is imported: without a driver the simulator stands in.
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" or not _has_cuda_driver()
if SIMULATED:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numba  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from numba import cuda  # noqa: E402

import elements_ai  # noqa: E402
from elements_ai.core import cuda as gpu  # noqa: E402
from elements_ai.core.playouts import random_playouts  # noqa: E402
from elements_ai.core.vec_cuda import random_playouts_on_device  # noqa: E402
from elements_ai.tables import provenance, write_csv  # noqa: E402

TARGET_ELEMENTS = 1e9  # decisions a second, elements' random playouts
TARGET_RATIO = 10.0  # best GPU playout rate over the CPU's, every game
TARGET_PPO = 1e6  # env steps a second, PPO on elements end to end


def gpu_name() -> str:
    if SIMULATED:
        return "none (numba's CUDA simulator)"
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    major, minor = device.compute_capability
    try:
        import numba_cuda

        target = f"numba-cuda {numba_cuda.__version__}"
    except ImportError:
        target = f"numba {numba.__version__} (built-in CUDA)"
    return f"{name} (cc {major}.{minor}), {target}"


def timed(call, repeats: int) -> tuple[float, float]:
    """``(seconds of the first call, best seconds of ``repeats`` more)``, the GPU synchronised."""
    start = time.perf_counter()
    call()
    cuda.synchronize()
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return first, best


def gpu_playouts(game, games: int, repeats: int) -> tuple[float, float]:
    kernel, config = game.kernel, game.config
    decisions = []

    def call():
        _, lengths = random_playouts_on_device(kernel, config, games, seed=len(decisions))
        decisions.append(lengths)

    first, best = timed(call, repeats)
    return first, int(decisions[-1].copy_to_host().sum()) / best


def gpu_steps(name: str, batch: int, steps: int, repeats: int) -> tuple[float, float]:
    env = elements_ai.make_vec(name, batch, seed=0, autoreset=True, device="cuda")

    def call():
        for _ in range(steps):
            env.step(env.sample_actions())

    first, best = timed(call, repeats)
    return first, batch * steps / best


def cpu_playouts(game, games: int, repeats: int) -> float:
    random_playouts(game.kernel, game.config, 64, seed=0)  # compile / load outside the clock
    best = 0.0
    for k in range(repeats):
        start = time.perf_counter()
        _, lengths = random_playouts(game.kernel, game.config, games, seed=k + 1)
        best = max(best, int(lengths.sum()) / (time.perf_counter() - start))
    return best


def cpu_steps(name: str, batch: int, steps: int, repeats: int) -> float:
    env = elements_ai.make_vec(name, batch, seed=0, autoreset=True)
    env.step(env.sample_actions())
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            env.step(env.sample_actions())
        best = max(best, batch * steps / (time.perf_counter() - start))
    return best


def ppo_rate(num_envs: int, rollout_steps: int, hidden: tuple[int, ...], iterations: int) -> tuple[float, float]:
    from elements_ai.selfplay.ppo import PPOConfig, PPOTrainer

    config = PPOConfig(num_envs=num_envs, rollout_steps=rollout_steps, hidden=hidden, eval_every=0,
                       checkpoint_every=10**6, minibatches=4, epochs=2)
    per_iteration = num_envs * rollout_steps
    with tempfile.TemporaryDirectory() as out:
        trainer = PPOTrainer(elements_ai.load_game("elements"), out, config, seed=0, progress=False, device="cuda")
        start = time.perf_counter()
        trainer.step()  # compilation, the first snapshot
        first = time.perf_counter() - start
        best = float("inf")
        for _ in range(iterations):
            start = time.perf_counter()
            trainer.step()
            best = min(best, time.perf_counter() - start)
    return first, per_iteration / best


def run(quick: bool, games: list[str], save=lambda table: None) -> pd.DataFrame:
    """The figures; ``save(table)`` is called after each game (a run cut short keeps them)."""
    rows = []

    def add(game, figure, batch, rate, unit="decisions", first=float("nan")):
        rows.append({"game": game, "figure": figure, "batch": batch, "rate_per_s": rate, "unit": unit,
                     "first_call_s": first, "simulated": SIMULATED})
        print(f"  {game:<16} {figure:<14} {batch:>8} {rate:>16,.0f} {unit:<10} first call {first:6.1f} s", flush=True)

    print(f"GPU: {gpu_name()}; CPU: {numba.config.NUMBA_NUM_THREADS} numba threads", flush=True)
    if SIMULATED:
        games = ["elements"] if "elements" in games else games[:1]
        print("no CUDA driver here: one small simulated batch of the first game; the figures need a GPU")
    repeats = 1 if SIMULATED else 2 if quick else 3
    playout_batches = [2] if SIMULATED else [1 << 10] if quick else [1 << 14, 1 << 16, 1 << 18, 1 << 20]
    step_batches = [2] if SIMULATED else [1 << 10] if quick else [1 << 16, 1 << 20]
    for name in games:
        game = elements_ai.load_game(name)
        for batch in playout_batches:
            first, rate = gpu_playouts(game, batch, repeats)
            add(name, "gpu playout", batch, rate, first=first)
        for batch in step_batches:
            first, rate = gpu_steps(name, batch, 2 if SIMULATED else 10, repeats)
            add(name, "gpu step", batch, rate, "env steps", first)
        add(name, "cpu playout", "", cpu_playouts(game, 256 if quick else 1 << 17, repeats))
        add(name, "cpu step", 4096, cpu_steps(name, 4096, 5 if quick else 50, repeats), "env steps")
        save(pd.DataFrame(rows))
    if SIMULATED:
        print("  ppo train: not measured, no GPU (torch trains on the GPU's arrays in place)")
    elif "elements" in games:
        num_envs, steps, hidden = (1 << 12, 4, (64,)) if quick else (1 << 16, 16, (256, 256))
        first, rate = ppo_rate(num_envs, steps, hidden, 1 if quick else 3)
        add("elements", "ppo train", num_envs, rate, "env steps", first)
    return pd.DataFrame(rows)


def with_targets(table: pd.DataFrame) -> pd.DataFrame:
    table = table.copy()
    table["x_cpu_playout"] = np.nan
    table["target"] = ""
    if SIMULATED:
        return table
    for game, rows in table.groupby("game"):
        cpu_rate = rows.loc[rows["figure"] == "cpu playout", "rate_per_s"]
        gpu_rows = rows[rows["figure"] == "gpu playout"]
        if cpu_rate.empty or gpu_rows.empty:
            continue
        table.loc[gpu_rows.index, "x_cpu_playout"] = gpu_rows["rate_per_s"] / cpu_rate.iloc[0]
        best = gpu_rows["rate_per_s"].idxmax()
        ratio = table.loc[best, "x_cpu_playout"]
        verdict = f"{ratio:,.1f}x cpu playout (>= {TARGET_RATIO:g}x: {'met' if ratio >= TARGET_RATIO else 'MISSED'})"
        if game == "elements":
            rate = table.loc[best, "rate_per_s"]
            verdict += f"; {rate:.3g}/s (>= {TARGET_ELEMENTS:.0e}: {'met' if rate >= TARGET_ELEMENTS else 'MISSED'})"
        table.loc[best, "target"] = verdict
    for index in table.index[table["figure"] == "ppo train"]:
        rate = table.loc[index, "rate_per_s"]
        table.loc[index, "target"] = f"{rate:.3g}/s (>= {TARGET_PPO:.0e}: {'met' if rate >= TARGET_PPO else 'MISSED'})"
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small batches, for the test suite")
    parser.add_argument("--games", nargs="*", default=list(elements_ai.GAMES), help="games to measure")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results",
                        help="folder for gpu.csv")
    args = parser.parse_args(argv)
    for name in args.games:
        elements_ai.get_kernel(name)  # unknown game: a clear error before any timing
    if SIMULATED and not args.quick:
        print("benchmarks/gpu.py: no CUDA driver on this machine; a full run needs an NVIDIA GPU "
              "(--quick runs the simulator)", file=sys.stderr)
        return 2
    if not gpu.available():
        print(f"benchmarks/gpu.py: {gpu._unavailable()}", file=sys.stderr)
        return 2
    machine = {"gpu": gpu_name(), **provenance()}

    def save(table: pd.DataFrame) -> None:
        write_csv(with_targets(table).assign(**machine), args.out / "gpu.csv")

    table = with_targets(run(args.quick, args.games, save))
    print()
    with pd.option_context("display.width", 220, "display.max_columns", 20, "display.max_colwidth", 80):
        print(table.to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    save(table)
    print(f"\nwrote {args.out / 'gpu.csv'}")
    missed = [f"{row.game} {row.figure}: {row.target}" for row in table.itertuples() if "MISSED" in row.target]
    if missed:
        note = " (quick timings: not judged)" if args.quick else ""
        print(f"missed{note}:\n  " + "\n  ".join(missed), file=sys.stderr)
    return 1 if missed and not args.quick else 0


if __name__ == "__main__":
    sys.exit(main())
