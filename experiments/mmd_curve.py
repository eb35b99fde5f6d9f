"""MMD's exact exploitability against training steps, on the small variant, beside PPO's.

    python experiments/mmd_curve.py            # full run: 4M steps each (about 10 minutes on 2 cores)
    python experiments/mmd_curve.py --quick    # a tiny run (seconds), into a temporary folder

Magnetic mirror descent (``elements_ai.selfplay.mmd``) and PPO train by pure self-play
(the learner holds both seats) on ``elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)``
with the same batch (128 games x 32 steps an iteration), network ([64, 64]) and learning
rate; PPO keeps its entropy bonus (0.01), MMD replaces it with its magnet (uniform,
``alpha = 0.2 * sqrt(2M / t)``) and adds its mirror-descent step (reverse KL to the
policy that played the batch, ``20 * sqrt(t / 2M)``). Every ``--every`` env steps the
policy each network plays (its masked softmax, sampled, as ``mmd:ckpt=`` and
``ppo:ckpt=`` play it) is read at every information set of the exact tree and its exact
exploitability measured (``solvers.evaluate_probs``). Both runs train from the
evaluation seed (``_common.EVAL_SEED``; ``--seed``), which no tuning run used: MMD's
settings were chosen on seeds 0 and 1.

Writes under ``experiments/results/equilibrium/``: ``mmd-small.csv`` (algorithm, env
steps, exploitability, NashConv, the schedule, entropy, training seconds),
``mmd-small.png``, ``README-mmd.md`` (the figure, the command and the last points) and
``mmd-small.run.json`` (the command, the seed, the commit and the machine).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import at_least_one, parser, results_folder, run_record, seed_of, write_run
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import elements_ai
from elements_ai.progress import progress_bar
from elements_ai.selfplay.mmd import MMDConfig, MMDTrainer
from elements_ai.selfplay.ppo import PPOConfig, PPOTrainer
from elements_ai.solvers import build_tree, evaluate_probs
from elements_ai.solvers.agents import bot_policy
from elements_ai.tables import provenance, write_csv

GAME = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
SHARED = dict(num_envs=128, rollout_steps=32, hidden=(64, 64), self_play=1.0, eval_every=0)
MMD = dict(alpha=0.2, kl_coef=20.0, anneal_steps=2_000_000)
QUICK = dict(num_envs=16, rollout_steps=16, hidden=(16,))


class TreePolicy:
    """Reads a network's policy at every information set of the exact tree, in one batch."""

    def __init__(self, game, tree):
        self.tree = tree
        self.choices = np.flatnonzero(np.diff(tree.infoset_first) > 1)
        states = [tree.state(int(infoset)) for infoset in self.choices]
        self.info = np.stack([np.asarray(state.information_state_tensor(int(tree.infoset_player[infoset])),
                                         np.float32) for state, infoset in zip(states, self.choices)])
        self.mask = np.zeros((len(states), game.num_distinct_actions()), np.bool_)
        for row, state in enumerate(states):
            self.mask[row, state.legal_actions()] = True

    def probs(self, network) -> np.ndarray:
        """The network's sampled policy, one probability per sequence of the tree."""
        tree, policy = self.tree, network.probabilities(self.info, self.mask)
        out = np.ones(tree.num_sequences)
        for row, infoset in enumerate(self.choices):
            first, stop = int(tree.infoset_first[infoset]), int(tree.infoset_first[infoset + 1])
            out[first:stop] = policy[row, tree.sequence_action[first:stop]]
        return out


def curve(name: str, trainer, reader: TreePolicy, steps: int, every: int, quiet: bool) -> list[dict]:
    """Trains ``trainer`` to ``steps`` env steps, measuring its exploitability every ``every``."""
    rows, trained, next_at = [], 0.0, 0
    bar = progress_bar(total=steps, unit="step", desc=name, disable=quiet)
    row: dict = {}
    while True:
        if trainer.env_steps >= next_at or trainer.env_steps >= steps:
            measured = evaluate_probs(reader.tree, reader.probs(trainer.network()))
            rows.append({"algorithm": name, "env_steps": trainer.env_steps, "iteration": trainer.iteration,
                         "exploitability": measured.exploitability, "nash_conv": measured.nash_conv,
                         "alpha": row.get("alpha", np.nan), "kl_coef": row.get("kl_coef", np.nan),
                         "entropy": row.get("entropy", np.nan), "seconds": trained})
            bar.set_postfix(exploitability=f"{measured.exploitability:.3f}")
            next_at += every
        if trainer.env_steps >= steps:
            break
        start = time.perf_counter()
        row = trainer.step()
        trained += time.perf_counter() - start
        bar.update(trainer.config.num_envs * trainer.config.rollout_steps)
    bar.close()
    return rows


def plot(table: pd.DataFrame, uniform: float, path) -> None:
    figure = Figure(figsize=(6.4, 4.0), layout="constrained")
    axes = figure.add_subplot(1, 1, 1)
    for name, rows in table.groupby("algorithm", sort=False):
        axes.plot(rows["env_steps"], rows["exploitability"], marker=".", label=name)
    axes.axhline(uniform, color="gray", lw=0.8, ls="--", label="uniform random")
    axes.set_yscale("log")
    axes.set_xlabel("env steps (both seats of self-play)")
    axes.set_ylabel("exact exploitability")
    axes.set_title(f"{GAME}\nseed {int(table['seed'].iloc[0]):,}", fontsize=9)
    axes.legend(fontsize=8)
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=100, metadata={"Software": None})


def readme(table: pd.DataFrame, uniform: float, command: str) -> str:
    lines = [
        "# MMD on the small variant: exact exploitability against steps",
        "",
        f"`{GAME}`: 9,842 information sets, solved exactly",
        "(`elements_ai.solvers`). Exploitability is the mean gain of a best response over the game's value,",
        "in points of a round (returns span ±2).",
        "",
        "![MMD and PPO, exact exploitability against env steps](mmd-small.png)",
        "",
        "Regenerate (also writes `mmd-small.csv` and `mmd-small.run.json`):",
        "",
        f"    {command}",
        "",
        "Both learners train by pure self-play from the same seed, with the same batch, network and learning",
        "rate (`experiments/mmd_curve.py` lists the settings); the policy measured is the one the network",
        "plays when sampled (`mmd:ckpt=…`, `ppo:ckpt=…`), read at every information set. Magnetic mirror",
        "descent (Sokota et al., ICLR 2023) is PPO with a reverse KL to a uniform magnet and to the policy",
        "that played the batch, both annealed as 1/√t as in the paper's deep experiments; its last policy,",
        "not an average, is the agent. Its settings were tuned on seeds 0 and 1; this run's seed is fresh.",
        "They are the recipe `mmd-elements-small` (seed 1): `elements-ai train GAME --algorithm mmd --out DIR`",
        "trains it, and `mmd:ckpt=DIR` plays it.",
        "",
        f"Uniform random play: {uniform:.3f}.",
        "",
        "| algorithm | env steps | exploitability | best | training seconds |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, rows in table.groupby("algorithm", sort=False):
        last = rows.iloc[-1]
        lines.append(f"| {name} | {int(last.env_steps):,} | {last.exploitability:.3f} | "
                     f"{rows['exploitability'].min():.3f} | {last.seconds:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args = parser("equilibrium", __doc__.split("\n\n")[0])
    args.add_argument("--steps", type=at_least_one, default=None, help="env steps each (default 4,000,000)")
    args.add_argument("--every", type=at_least_one, default=None, help="env steps between measures (default 200,000)")
    args = args.parse_args(argv)
    measured_with = provenance()  # at the start: the commit may move while the run goes on
    seed = seed_of(args)
    steps = args.steps or (2048 if args.quick else 4_000_000)
    every = args.every or (512 if args.quick else 200_000)
    shared = {**SHARED, **(QUICK if args.quick else {})}
    out = results_folder("equilibrium", args.out, args.quick)
    out.mkdir(parents=True, exist_ok=True)
    game = elements_ai.load_game(GAME)
    tree = build_tree(game)
    reader = TreePolicy(game, tree)
    uniform = evaluate_probs(tree, bot_policy(tree, "random")).exploitability
    rows = []
    with tempfile.TemporaryDirectory(prefix="mmd-curve-") as scratch:  # checkpoints: not results
        runs = {
            "mmd": MMDTrainer(game, Path(scratch) / "mmd", MMDConfig(**shared, **MMD), seed=seed, progress=False),
            "ppo": PPOTrainer(game, Path(scratch) / "ppo", PPOConfig(**shared), seed=seed, progress=False),
        }
        for name, trainer in runs.items():
            rows += curve(name, trainer, reader, steps, every, args.quick)
    table = pd.DataFrame(rows)
    table.insert(0, "seed", seed)
    write_csv(table, out / "mmd-small.csv")
    plot(table, uniform, out / "mmd-small.png")
    record = run_record("mmd_curve.py", argv, measured_with, seed=seed, game=GAME, steps=steps, every=every,
                        settings={"shared": {k: list(v) if isinstance(v, tuple) else v for k, v in shared.items()},
                                  "mmd": MMD}, uniform_exploitability=uniform)
    (out / "README-mmd.md").write_text(readme(table, uniform, record["command"]))
    write_run(out / "mmd-small.run.json", record)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(table.to_string(index=False))
    print(f"results in {out}")
    return table


if __name__ == "__main__":
    np.seterr(all="ignore")
    main(sys.argv[1:])
