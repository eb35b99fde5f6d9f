"""The equilibrium learners on Leduc hold'em, measured exactly: a check of their implementation.

    python experiments/leduc.py --algorithm nfsp           # OpenSpiel's NFSP settings, 2M steps
    python experiments/leduc.py --algorithm mmd            # MMD, the small elements variant's settings
    python experiments/leduc.py --algorithm nfsp --set rl_lr=0.1 --label nfsp-rl_lr-0.1 --steps 4000000
    python experiments/leduc.py --algorithm openspiel-nfsp --steps 600000 --points 6   # OpenSpiel's own NFSP
    python experiments/leduc.py --quick                    # a few thousand steps, into a temporary folder

Leduc hold'em is where the field reports its learners' exact exploitability. The
learners here run on the library's vector face, so the game is written as a rules
kernel (``leduc_rules.py``, OpenSpiel's ``leduc_poker`` move for move) and they train on
it as on the library's own games. At ``--points`` evenly spaced steps the network
(NFSP's average policy, MMD's policy) is measured twice: by the library's exact
evaluator on the kernel's tree (``ExactEvaluator``), and by OpenSpiel's own
``exploitability`` on ``leduc_poker``, the network's policy copied into a
``TabularPolicy`` information set by information set. The two must agree to 1e-6
(the script stops if they do not), which checks the kernel, the network's reading of
it and the exact evaluator against OpenSpiel at once.

Exploitability is OpenSpiel's: the mean of the two best responses' gains, in chips
(uniform random play: 2.374). The training seed is the evaluation seed
(``_common.EVAL_SEED``); the one setting checked on Leduc, NFSP's ``rl_lr=0.1``, was
checked on seed 0. Writes ``<label>-leduc.csv`` (steps, both measures, wall time; the
label is the algorithm's name unless ``--label`` gives one), ``<label>-leduc.run.json``,
``<label>-leduc.png``, ``learners-leduc.png`` (every curve in the folder) and ``README.md`` under
``experiments/results/leduc/``.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
import tempfile
from pathlib import Path

import numpy as np
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

from elements_ai.files import atomic_write
from elements_ai.tables import provenance, write_csv

NAME = "leduc"
DEFAULT_STEPS = 2_000_000
DEFAULT_POINTS = 20
AGREEMENT = 1e-6  # the network computes in float32

# name: (module, trainer, config, the curve's settings). NFSP keeps OpenSpiel's Leduc
# example's settings, which are NFSPConfig's defaults (one hidden layer of 128, SGD at
# 0.01, an update every 64 moves, epsilon 0.06 to 0.001, anticipatory 0.1). MMD keeps
# the settings of its curve on the small elements variant (experiments/equilibrium.py).
OPENSPIEL_NFSP = "openspiel-nfsp"
ALGORITHMS: dict[str, tuple[str, str, str, dict]] = {
    "nfsp": ("elements_ai.selfplay.nfsp", "NFSPTrainer", "NFSPConfig", dict(eval_every=0, checkpoint_every=10**6)),
    "mmd": ("elements_ai.selfplay.mmd", "MMDTrainer", "MMDConfig",
            dict(num_envs=128, rollout_steps=32, hidden=(64, 64), self_play=1.0, eval_every=0, alpha=0.2,
                 kl_coef=20.0, anneal_steps=2_000_000, checkpoint_every=10**6)),
}


def openspiel_exploitability(network, game, reference) -> float:
    """OpenSpiel's exploitability on ``leduc_poker`` (``reference``) of the policy
    ``network`` samples from, read at one state of each information set replayed on
    the kernel's ``game``."""
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    table = policy_lib.TabularPolicy(reference)
    size, actions = game.information_state_tensor_shape()[0], game.num_distinct_actions()
    info = np.zeros((len(table.states), size), np.float32)
    mask = np.zeros((len(table.states), actions), np.bool_)
    for row, theirs in enumerate(table.states):
        ours = game.new_initial_state()
        for action in theirs.history():
            ours.apply_action(action)
        info[row] = ours.information_state_tensor()
        mask[row, ours.legal_actions()] = True
    table.action_probability_array[:] = network.probabilities(info, mask)
    return float(exploitability.exploitability(reference, table))


def uniform_exploitability(reference) -> float:
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    return float(exploitability.exploitability(reference, policy_lib.UniformRandomPolicy(reference)))


class OpenSpielNFSP:
    """OpenSpiel's own NFSP (``open_spiel.python.pytorch.nfsp``) with its Leduc example's
    settings (``examples/nfsp_leduc_pytorch.py``), trained by that example's loop, one
    agent a seat: the field's implementation, measured at the same steps as the others."""

    def __init__(self, reference, seed: int, hidden: tuple[int, ...] = (128,), **changes):
        from open_spiel.python import rl_environment
        from open_spiel.python.pytorch import nfsp

        nfsp.set_seed(seed)
        self.env = rl_environment.Environment(reference, seed=seed)
        size = self.env.observation_spec()["info_state"][0]
        settings = dict(replay_buffer_capacity=200_000, reservoir_buffer_capacity=2_000_000,
                        min_buffer_size_to_learn=1000, anticipatory_param=0.1, batch_size=128, learn_every=64,
                        rl_learning_rate=0.01, sl_learning_rate=0.01, optimizer_str="sgd", loss_str="mse",
                        update_target_network_every=19_200, discount_factor=1.0, epsilon_decay_duration=20_000_000,
                        epsilon_start=0.06, epsilon_end=0.001)
        settings.update(changes)
        self.agents = [nfsp.NFSP(p, size, 3, list(hidden), seed=seed + p, **settings) for p in range(2)]
        self.mode = nfsp.MODE.AVERAGE_POLICY
        self.settings = {"hidden": tuple(hidden), **settings}
        self.env_steps = 0

    def train(self, steps: int) -> None:
        while self.env_steps < steps:
            time_step = self.env.reset()
            while not time_step.last():
                player = time_step.observations["current_player"]
                time_step = self.env.step([self.agents[player].step(time_step).action])
                self.env_steps += 1
            for agent in self.agents:
                agent.step(time_step)

    def probabilities(self, info: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The average policies' probabilities, each row by the seat its tensor names."""
        from open_spiel.python import rl_environment

        out = np.zeros(mask.shape)
        for row in range(len(info)):
            agent = self.agents[int(np.argmax(info[row, :2]))]
            observations = {"info_state": [list(info[row])] * 2,
                            "legal_actions": [list(np.flatnonzero(mask[row]))] * 2, "current_player": agent.player_id}
            step = rl_environment.TimeStep(observations=observations, rewards=None, discounts=None, step_type=None)
            with agent.temp_mode_as(self.mode):
                out[row] = agent.step(step, is_evaluation=True).probs
        return out

    def network(self):
        return self


def curve(algorithm: str, steps: int, points: int, seed: int, changes: dict, runs: Path) -> tuple[pd.DataFrame, dict]:
    """Trains ``algorithm`` for ``steps`` steps; both exact measures at ``points`` steps."""
    import pyspiel
    from leduc_rules import load

    from elements_ai.selfplay.exact import ExactEvaluator

    game, reference = load(), pyspiel.load_game("leduc_poker")
    if algorithm == OPENSPIEL_NFSP:
        trainer = OpenSpielNFSP(reference, seed, **changes)
        config = trainer.settings
    else:
        module, trainer_name, config_name, settings = ALGORITHMS[algorithm]
        module = importlib.import_module(module)
        config = getattr(module, config_name)(**{**settings, **changes})
        trainer = getattr(module, trainer_name)(game, runs, config, seed=seed, progress=False)
        config = dataclasses.asdict(config)
    evaluator = ExactEvaluator(game)

    def measure() -> dict:
        network = trainer.network()
        theirs = openspiel_exploitability(network, game, reference)
        if algorithm == OPENSPIEL_NFSP:  # no network of the library's to read on its tree
            return {"exploitability": theirs, "openspiel_exploitability": theirs}
        ours = evaluator.evaluate(network)
        if abs(ours.exploitability - theirs) > AGREEMENT:
            raise SystemExit(f"leduc: the exact evaluator gives {ours.exploitability!r}, OpenSpiel {theirs!r}")
        return {"exploitability": ours.exploitability, "openspiel_exploitability": theirs}

    rows = learning_curve(trainer, algorithm, steps, points, measure)
    if hasattr(trainer, "close"):  # the PPO family's collectors
        trainer.close()
    return pd.DataFrame(rows), config


def plot(tables: dict[str, pd.DataFrame], uniform: float, path: Path) -> None:
    plot_curves(tables, {"uniform random": uniform}, path, "Leduc hold'em: exact exploitability while training",
                ylabel="exact exploitability (chips)", log=True)


def readme(out: Path, uniform: float) -> str:
    """README.md: every curve in ``out``, regenerated from its files."""
    lines = ["# The equilibrium learners on Leduc hold'em, measured exactly", "",
             "Written by `experiments/leduc.py` from the CSV files beside this one. Each learner trains on "
             "`experiments/leduc_rules.py`, a rules kernel that plays OpenSpiel's `leduc_poker` move for move, "
             "through the library's vector face. Its network is measured exactly twice at each point: by the "
             "library's evaluator on the kernel's tree and by OpenSpiel's `exploitability` on `leduc_poker` "
             "(columns `exploitability` and `openspiel_exploitability`, equal to 1e-6: the network computes in "
             "float32). Exploitability is OpenSpiel's, in chips: the mean of the two best responses' gains. "
             f"Uniform random play: {uniform:.3f}.",
             "", *curves_summary(out, "leduc")]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--algorithm", choices=[*sorted(ALGORITHMS), OPENSPIEL_NFSP], default="nfsp")
    args.add_argument("--steps", type=at_least_one, default=None, help=f"default {DEFAULT_STEPS:,}")
    args.add_argument("--points", type=at_least_one, default=None,
                      help=f"exact measures along the run (default {DEFAULT_POINTS})")
    args.add_argument("--seed", type=int, default=None, help=f"the training seed (default {EVAL_SEED:,})")
    args.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                      help="a setting of the trainer's config (repeatable; lists joined by _)")
    args.add_argument("--label", default=None,
                      help="the curve's name in the results (default: the algorithm's); another name keeps both")
    args.add_argument("--quick", action="store_true", help="a few thousand steps, into a temporary folder")
    args.add_argument("--out", type=Path, default=None,
                      help=f"results folder (default experiments/results/{NAME}; with --quick a temporary folder)")
    parsed = args.parse_args(argv)
    label = parsed.label or parsed.algorithm
    if not label.replace("-", "").replace("_", "").replace(".", "").isalnum():
        args.error(f"--label: letters, digits, '-', '_' and '.' only, got {label!r}")
    import pyspiel

    from elements_ai.commands.train import hyperparameters
    from elements_ai.core.params import ParameterError

    measured_with = provenance()
    if parsed.algorithm == OPENSPIEL_NFSP:
        if parsed.set:
            args.error(f"--set: {OPENSPIEL_NFSP} runs with its example's settings")
        settings, changes = {}, ({"hidden": (32,), "min_buffer_size_to_learn": 64} if parsed.quick else {})
    else:
        module, _, config, settings = ALGORITHMS[parsed.algorithm]
        try:
            changes = hyperparameters(getattr(importlib.import_module(module), config), parsed.set)
        except ParameterError as error:
            args.error(str(error))
        if parsed.quick:
            changes = {"num_envs": 16, "hidden": (32,), **({"min_buffer": 64} if parsed.algorithm == "nfsp" else {}),
                       **changes}
    steps = parsed.steps or (4096 if parsed.quick else DEFAULT_STEPS)
    points = parsed.points or (2 if parsed.quick else DEFAULT_POINTS)
    seed = EVAL_SEED if parsed.seed is None else parsed.seed
    out = results_folder(NAME, parsed.out, parsed.quick)
    with tempfile.TemporaryDirectory(prefix=f"{parsed.algorithm}-leduc-run-") as runs:
        try:
            table, config = curve(parsed.algorithm, steps, points, seed, changes, Path(runs))
        except ValueError as error:  # a config value out of range
            args.error(str(error))
        except KeyboardInterrupt:
            print("leduc: stopped; nothing written", file=sys.stderr)
            return 130
    out.mkdir(parents=True, exist_ok=True)
    table.insert(0, "algorithm", label)
    stem = f"{label}-leduc"
    write_csv(table, out / f"{stem}.csv")
    shown = {k: v for k, v in config.items() if k in settings or k in changes or parsed.algorithm == OPENSPIEL_NFSP}
    write_run(out / f"{stem}.run.json", run_record("leduc.py", argv, measured_with, game="leduc_poker", seed=seed,
                                                     steps=steps, points=points, settings=shown, config=config))
    uniform = uniform_exploitability(pyspiel.load_game("leduc_poker"))
    plot({label: table}, uniform, out / f"{stem}.png")
    plot(curves(out, "leduc"), uniform, out / "learners-leduc.png")
    with atomic_write(out / "README.md", "w") as handle:
        handle.write(readme(out, uniform))
    print(f"results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
