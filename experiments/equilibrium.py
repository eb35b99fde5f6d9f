"""How close equilibrium-seeking learners come to a Nash equilibrium, measured exactly.

    python experiments/equilibrium.py                      # NFSP, 2M steps (about 12 minutes on 2 cores)
    python experiments/equilibrium.py --algorithm mmd --steps 4000000
    python experiments/equilibrium.py --algorithm ppo --steps 4000000   # the same self-play, PPO's loss
    python experiments/equilibrium.py --algorithm psro --steps 4000000 --points 20   # a best response a point
    python experiments/equilibrium.py --quick              # a few thousand steps, into a temporary folder

On the small ``elements`` variant (``elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)``:
9,842 information sets), which the solvers flatten whole, a learner trains for
``--steps`` environment steps; at ``--points`` evenly spaced steps its network (for
NFSP the average policy) is measured by its exact exploitability: the exact best
response of each seat against the policy it samples from
(``elements_ai.selfplay.exact.ExactEvaluator``; PSRO's agent is the meta-Nash mixture
of its population, measured the same way on its own tree after each best response,
so its points fall where a best response ends). Nothing is sampled in the measure,
so the curve's only randomness is the training run's: its seed is the evaluation
seed (``_common.EVAL_SEED``), which no tuning run used (they used seeds below 100).

Each algorithm is one line of ``ALGORITHMS``: its trainer, its config and the
settings of its curve (those not given are the trainer's defaults; ``--set NAME=VALUE``
changes one). Writes ``<algorithm>-small.csv`` (steps, exploitability, wall time),
``<algorithm>-small.png``, ``<algorithm>-small.run.json`` (the command, seed, settings,
commit and machine) and ``README.md`` (every algorithm's curve in the folder, with
uniform random play and the shipped ``ppo`` network for scale) under
``experiments/results/equilibrium/``.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
import tempfile
from pathlib import Path

import pandas as pd
from _common import (
    EVAL_SEED,
    at_least_one,
    curves,
    curves_summary,
    learning_curve,
    plot_curves,
    results_folder,
    run_record,
    write_run,
)

import elements_ai
from elements_ai.files import atomic_write
from elements_ai.tables import provenance, write_csv

SMALL = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
NAME = "equilibrium"
DEFAULT_STEPS = 2_000_000
DEFAULT_POINTS = 20

# name: (module, trainer, config, the curve's settings). The NFSP curve keeps the
# paper's and OpenSpiel's settings (anticipatory 0.1, buffers of 200,000 and 2M, batch
# 128, one hidden layer of 128, epsilon 0.06 to 0.001) but for three, tuned on seed 0,
# 1M steps: OpenSpiel's SGD at 0.01, one update every 64 moves, stayed at uniform
# play's exploitability (1.36 after 100,000 steps, where uniform is 1.28); Adam at
# 1e-3 every 16 moves reached 0.79 there and 0.41 after 1M; refreshing the target
# network every 2,000 best-response moves instead of 19,200, 0.74 and 0.31. Updating
# every 8 moves took twice the time for no gain (0.56 against 0.62 at 300,000).
ALGORITHMS: dict[str, tuple[str, str, str, dict]] = {
    "nfsp": ("elements_ai.selfplay.nfsp", "NFSPTrainer", "NFSPConfig",
             dict(optimizer="adam", rl_lr=1e-3, sl_lr=1e-3, learn_every=16, target_update_every=2000, eval_every=0,
                  checkpoint_every=10**6)),
    # MMD (magnetic mirror descent) is PPO in pure self-play with the entropy bonus replaced
    # by a uniform magnet, alpha = 0.2 * sqrt(2M / t), and a mirror-descent step, a reverse
    # KL to the policy that played the batch, 20 * sqrt(t / 2M); chosen on seeds 0 and 1
    # among alpha 0.05-0.5, kl_coef up to 100 and lr 1e-4 (the paper's schedule, 0.05 and
    # 20 at 10M steps, was too cold this short). PPO's line is the same self-play with
    # PPO's own loss, for comparison.
    "mmd": ("elements_ai.selfplay.mmd", "MMDTrainer", "MMDConfig",
            dict(num_envs=128, rollout_steps=32, hidden=(64, 64), self_play=1.0, eval_every=0, alpha=0.2,
                 kl_coef=20.0, anneal_steps=2_000_000)),
    "ppo": ("elements_ai.selfplay.ppo", "PPOTrainer", "PPOConfig",
            dict(num_envs=128, rollout_steps=32, hidden=(64, 64), self_play=1.0, eval_every=0)),
    # PSRO (Lanctot et al., 2017): PPO best responses of 200,000 steps to the exact
    # meta-game's Nash mixture; PSROConfig's defaults (a best response's learning rate,
    # 2e-3, chosen on seed 0 against 3e-4 and 1e-3 with 40,000-step responses).
    "psro": ("elements_ai.selfplay.psro", "PSROTrainer", "PSROConfig", dict(br_steps=200_000)),
}


def measure(trainer, evaluator) -> float:
    """The learner's exact exploitability now (PSRO's: its mixture's, from its own log)."""
    if hasattr(trainer, "mixture"):
        return float(trainer.log[-1]["exploitability"])
    return evaluator.evaluate(trainer.network()).exploitability


def trainer_for(algorithm: str, out: Path, seed: int, changes: dict):
    """A fresh trainer of ``algorithm`` writing to ``out``, with the curve's settings and ``changes``."""
    module, trainer, config, settings = ALGORITHMS[algorithm]
    module = importlib.import_module(module)
    config_class = getattr(module, config)
    config = config_class(**{**settings, **changes})
    return getattr(module, trainer)(elements_ai.load_game(SMALL), out, config, seed=seed, progress=False), config


def curve(algorithm: str, steps: int, points: int, seed: int, changes: dict, runs: Path) -> tuple[pd.DataFrame, dict]:
    """Trains ``algorithm`` for ``steps`` steps; its exact exploitability at ``points`` steps."""
    from elements_ai.selfplay.exact import ExactEvaluator

    evaluator = ExactEvaluator(elements_ai.load_game(SMALL))
    trainer, config = trainer_for(algorithm, runs, seed, changes)
    rows = learning_curve(trainer, algorithm, steps, points,
                          lambda: {"exploitability": measure(trainer, evaluator)})
    return pd.DataFrame(rows), dataclasses.asdict(config)


def references() -> dict[str, float]:
    """Exact exploitability of uniform random play and of the shipped ``ppo`` network's policy."""
    from elements_ai.agents.netbots import load_network
    from elements_ai.selfplay.exact import ExactEvaluator
    from elements_ai.solvers import evaluate_probs, uniform_probs

    game = elements_ai.load_game(SMALL)
    evaluator = ExactEvaluator(game)
    out = {"random": evaluate_probs(evaluator.tree, uniform_probs(evaluator.tree)).exploitability}
    out["ppo (shipped)"] = evaluator.evaluate(load_network("", game)[0]).exploitability
    return out


def plot(tables: dict[str, pd.DataFrame], marks: dict[str, float], path: Path) -> None:
    plot_curves(tables, marks, path, "small elements variant: exact exploitability while training")


def readme(out: Path, marks: dict[str, float]) -> str:
    """README.md: every algorithm's curve found in ``out``, regenerated from its files."""
    lines = ["# Equilibrium-seeking learners, measured exactly", "",
             f"On `{SMALL}` (9,842 information sets) each learner's network is measured while it trains by its "
             "**exact** exploitability (the exact best response of each seat against the policy the network "
             "samples from; 0 is a Nash equilibrium, returns span ±2). Written by `experiments/equilibrium.py` "
             "from the CSV files beside this one; the training seed is the evaluation seed, which no tuning run "
             "used.", "",
             "For scale: " + ", ".join(f"{name} {value:.3f}" for name, value in marks.items()) + ".", "",
             *curves_summary(out, "small")]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--algorithm", choices=sorted(ALGORITHMS), default="nfsp")
    args.add_argument("--steps", type=at_least_one, default=None, help=f"default {DEFAULT_STEPS:,}")
    args.add_argument("--points", type=at_least_one, default=None,
                      help=f"exact measures along the run (default {DEFAULT_POINTS})")
    args.add_argument("--seed", type=int, default=None, help=f"the training seed (default {EVAL_SEED:,})")
    args.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                      help="a setting of the trainer's config (repeatable; lists joined by _)")
    args.add_argument("--quick", action="store_true", help="a few thousand steps, into a temporary folder")
    args.add_argument("--out", type=Path, default=None,
                      help=f"results folder (default experiments/results/{NAME}; with --quick a temporary folder)")
    parsed = args.parse_args(argv)
    from elements_ai.commands.train import hyperparameters

    measured_with = provenance()
    module, _, config, settings = ALGORITHMS[parsed.algorithm]
    changes = hyperparameters(getattr(importlib.import_module(module), config), parsed.set)
    if parsed.quick:
        changes = {"num_envs": 16, "hidden": (32,), **({"min_buffer": 64} if parsed.algorithm == "nfsp" else {}),
                   **({"br_steps": 1024, "rollout_steps": 8} if parsed.algorithm == "psro" else {}), **changes}
    steps = parsed.steps or (2048 if parsed.quick else DEFAULT_STEPS)
    points = parsed.points or (2 if parsed.quick else DEFAULT_POINTS)
    seed = EVAL_SEED if parsed.seed is None else parsed.seed
    out = results_folder(NAME, parsed.out, parsed.quick)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{parsed.algorithm}-run-") as runs:
        table, config = curve(parsed.algorithm, steps, points, seed, changes, Path(runs))
    table.insert(0, "algorithm", parsed.algorithm)
    stem = f"{parsed.algorithm}-small"
    write_csv(table, out / f"{stem}.csv")
    shown = {k: v for k, v in config.items() if k in settings or k in changes}
    write_run(out / f"{stem}.run.json", run_record("equilibrium.py", argv, measured_with, game=SMALL, seed=seed,
                                                     steps=steps, points=points, settings=shown, config=config))
    marks = references()
    plot({parsed.algorithm: table}, marks, out / f"{stem}.png")
    plot(curves(out, "small"), marks, out / "learners-small.png")
    with atomic_write(out / "README.md", "w") as handle:
        handle.write(readme(out, marks))
    print(f"results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
