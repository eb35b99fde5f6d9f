"""Policy-space response oracles (PSRO): a population of PPO best responses, mixed by a Nash meta-solver.

Lanctot et al., "A Unified Game-Theoretic Approach to Multiagent Reinforcement
Learning" (NeurIPS 2017; arXiv 1711.00832): the population starts with one policy
(``initial``, the uniform ``random`` bot). Each iteration

1. measures the meta-game: the expected return of every member against every other,
   averaged over the two seats (an antisymmetric matrix), exactly, on the game's tree;
2. solves it for its Nash equilibrium (a linear program: ``meta_nash``);
3. trains a best response to that mixture: a fresh ``PPOTrainer`` (in ``br_KK/``) whose
   every game is against a member drawn with the meta-Nash weights
   (``PPOConfig.opponent_weights``), for ``br_steps`` env steps, and adds its network
   (``member_KK.npz``) to the population.

The agent is the meta-Nash mixture of the population, played as one behavioural
policy (``solvers.mixture``): the ``psro`` bot plays a run folder with no torch
(``psro:ckpt=FOLDER``). ``psro.json`` holds the population, the meta-game, the
weights and the log after each iteration (a run resumes from it, and from a best
response's own checkpoints if it stopped halfway); ``log.csv`` holds one row an
iteration with the mixture's exact exploitability. The meta-game is exact, so the
game must be two-player zero-sum and small enough for ``build_tree``.

>>> import tempfile, elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
>>> config = PSROConfig(br_steps=256, num_envs=16, rollout_steps=8, hidden=(16,))
>>> trainer = PSROTrainer(game, tempfile.mkdtemp(), config, seed=0, progress=False)
>>> row = trainer.train(steps=512)
>>> trainer.env_steps, len(trainer.population), round(float(trainer.weights.sum()), 9), row["population"]
(512, 3, 1.0, 3)
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import load_game
from ..agents.netbots import PSRO_FILE, member_specs
from ..files import atomic_write
from ..solvers import TreeTooLarge, build_tree, evaluate_probs
from ..solvers.agents import bot_policy
from ..solvers.mixture import mixture_probs
from ..tables import write_csv
from .net import layer_sizes
from .ppo import PPOConfig, PPOTrainer

__all__ = ["META_SOLVERS", "PSROConfig", "PSROTrainer", "meta_nash"]

META_SOLVERS = ("nash",)
FORMAT = "elements_ai.psro/1"


@dataclasses.dataclass
class PSROConfig:
    """Hyperparameters of a PSRO run (stored in ``psro.json``); the PPO ones are each best response's."""

    br_steps: int = 200_000  # env steps of each best response
    meta_solver: str = "nash"  # the mixture each best response answers, and the agent
    initial: str = "random"  # the first member (a bot spec)
    hidden: tuple[int, ...] = (64, 64)
    num_envs: int = 64
    rollout_steps: int = 16
    lr: float = 2e-3  # a response to fixed opponents takes larger steps than self-play (tuned on the small variant)
    entropy_coef: float = 0.01
    epochs: int = 4
    minibatches: int = 4
    threads: int = 1  # torch, numba and tree-sweep threads

    def __post_init__(self):
        self.hidden = layer_sizes(self.hidden, type(self).__name__)
        if int(self.br_steps) < 1:
            raise ValueError(f"PSROConfig.br_steps must be at least 1, got {self.br_steps!r}")
        if self.meta_solver not in META_SOLVERS:
            raise ValueError(f"PSROConfig.meta_solver must be one of {META_SOLVERS}, got {self.meta_solver!r}")
        self.ppo_config()  # PPO's own checks, before anything runs

    def ppo_config(self, opponents: tuple[str, ...] = (), weights: tuple[float, ...] = ()) -> PPOConfig:
        """A best response's PPO settings: every game against ``opponents``, drawn by ``weights``."""
        return PPOConfig(num_envs=self.num_envs, rollout_steps=self.rollout_steps, lr=self.lr,
                         entropy_coef=self.entropy_coef, epochs=self.epochs, minibatches=self.minibatches,
                         hidden=self.hidden, threads=self.threads, self_play=0.0, fixed_share=1.0,
                         opponents=opponents, opponent_weights=weights, eval_every=0, keep_checkpoints=1)

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> PSROConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items() if k in names})


def meta_nash(payoffs) -> np.ndarray:
    """The row player's maximin mixture of the zero-sum matrix game ``payoffs`` (row's
    payoff; an antisymmetric meta-game's is both players'), by linear programming.

    >>> meta_nash([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]).round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """
    from scipy.optimize import linprog

    a = np.asarray(payoffs, np.float64)
    n, m = a.shape
    # Variables (x, v): maximise v subject to (x^T A)_j >= v for every column j, x a distribution.
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    upper = np.hstack([-a.T, np.ones((m, 1))])
    equal = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    found = linprog(cost, A_ub=upper, b_ub=np.zeros(m), A_eq=equal, b_eq=[1.0],
                    bounds=[(0, None)] * n + [(None, None)], method="highs")
    if not found.success:
        raise RuntimeError(f"the meta-game's linear program failed: {found.message}")
    x = np.clip(found.x[:n], 0.0, None)  # the solver's -1e-17s
    return x / x.sum()


class PSROTrainer:
    """One PSRO run on a small two-player zero-sum game, writing its members, ``psro.json``
    and ``log.csv`` to ``out``.

    A folder that already holds ``psro.json`` is resumed from it (its settings and seed win).
    ``train(steps)`` runs ``ceil(steps / br_steps)`` iterations in all.
    """

    algorithm = "psro"

    def __init__(self, game, out: str | Path, config: PSROConfig | None = None, seed: int = 0,
                 progress: bool = True):
        self.game = load_game(game) if isinstance(game, str) else game
        self.out = Path(out)
        self.progress = progress
        if self.game.num_players() != 2:
            raise ValueError(f"psro: {self.game} has {self.game.num_players()} players; PSRO's meta-game here is "
                             f"two-player zero-sum")
        import pyspiel

        if self.game.get_type().utility != pyspiel.GameType.Utility.ZERO_SUM:
            raise ValueError(f"psro: {self.game} is not zero-sum; PSRO's Nash meta-solver needs a zero-sum game")
        saved = self._read()
        if saved is not None:
            config, seed = PSROConfig.from_dict(saved["config"]), int(saved["seed"])
        self.config = config = config or PSROConfig()
        self.seed = int(seed)
        try:
            self.tree = build_tree(self.game)
        except TreeTooLarge as error:
            raise ValueError(f"psro: the meta-game is measured exactly, on the game's tree, and {error} "
                             f"(a sampled meta-game is not implemented)") from None
        if saved is not None:
            self.population = list(saved["population"])
            self.payoffs = np.asarray(saved["payoffs"], np.float64).reshape(len(self.population), -1)
            self.weights = np.asarray(saved["weights"], np.float64)
            self.iteration, self.env_steps, self.log = int(saved["iteration"]), int(saved["env_steps"]), saved["log"]
            self.member_probs = [self._probs(k) for k in range(len(self.population))]
        else:
            self.population, self.iteration, self.env_steps, self.log = [config.initial], 0, 0, []
            self.member_probs = [self._probs(0)]
            self.payoffs, self.weights = np.zeros((1, 1)), np.ones(1)
            self._record(time.perf_counter(), None)

    # --- the population ----------------------------------------------------------------

    @property
    def specs(self) -> list[str]:
        """The members as bot specs (the networks as ``ppo:ckpt=`` their files)."""
        return member_specs(self.out, self.population)

    def _probs(self, k: int) -> np.ndarray:
        return bot_policy(self.tree, self.specs[k], seed=self.seed)

    def mixture(self) -> np.ndarray:
        """The agent: the meta-Nash mixture of the population, one probability per sequence of ``tree``."""
        return mixture_probs(self.tree, self.member_probs, self.weights)

    def _value(self, i: int, j: int) -> float:
        """Member ``i``'s expected return against member ``j``, averaged over the two seats."""
        owner = np.repeat(np.asarray(self.tree.infoset_player), np.diff(self.tree.infoset_first))
        a, b = self.member_probs[i], self.member_probs[j]
        first = evaluate_probs(self.tree, np.where(owner == 0, a, b), threads=self.config.threads)
        second = evaluate_probs(self.tree, np.where(owner == 0, b, a), threads=self.config.threads)
        return 0.5 * (first.policy_values[0] + second.policy_values[1])

    def _grow_meta_game(self) -> None:
        """The payoffs of the newest member against every other (the rest are known)."""
        n = len(self.population)
        payoffs = np.zeros((n, n))
        payoffs[: n - 1, : n - 1] = self.payoffs
        for j in range(n - 1):
            payoffs[n - 1, j] = self._value(n - 1, j)
            payoffs[j, n - 1] = -payoffs[n - 1, j]  # zero-sum, seats averaged: antisymmetric
        self.payoffs = payoffs
        self.weights = meta_nash(payoffs)

    # --- training ------------------------------------------------------------------------

    def step(self) -> dict[str, float]:
        """One iteration: a PPO best response to the meta-Nash mixture joins the population."""
        start = time.perf_counter()
        k = len(self.population)
        ppo = self.config.ppo_config(tuple(self.specs), tuple(float(w) for w in self.weights))
        trainer = PPOTrainer(self.game, self.out / f"br_{k:02d}", ppo, seed=self.seed + 1009 * k,
                             progress=self.progress)
        trainer.train(self.config.br_steps)
        name = f"member_{k:02d}.npz"
        trainer.network().save(self.out / name)
        previous = self.weights
        self.population.append(name)
        self.member_probs.append(self._probs(k))
        self._grow_meta_game()
        self.iteration += 1
        self.env_steps += trainer.env_steps
        return self._record(start, float(self.payoffs[k, :k] @ previous))

    def train(self, steps: int) -> dict[str, float]:
        """Runs iterations until ``ceil(steps / br_steps)`` in all (a resumed run counts its
        earlier ones); returns the last log row."""
        iterations = math.ceil(int(steps) / self.config.br_steps)
        while self.iteration < iterations:
            self.step()
        return self.log[-1]

    def _record(self, start: float, br_value: float | None) -> dict[str, float]:
        row = {"iteration": self.iteration, "env_steps": self.env_steps, "population": len(self.population),
               "exploitability": evaluate_probs(self.tree, self.mixture(), threads=self.config.threads).exploitability,
               "br_value": br_value, "seconds": time.perf_counter() - start}
        self.log.append(row)
        self._write()
        return row

    # --- the run folder ------------------------------------------------------------------

    def _read(self) -> dict[str, Any] | None:
        path = self.out / PSRO_FILE
        if not path.is_file():
            return None
        saved = json.loads(path.read_text())
        if saved.get("format") != FORMAT:
            raise ValueError(f"{path} is not a PSRO run file (format {FORMAT!r})")
        if saved["game"] != str(self.game):
            raise ValueError(f"{path} is a PSRO run on {saved['game']}, not on {self.game}")
        return saved

    def _write(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        state = {"format": FORMAT, "game": str(self.game), "seed": self.seed, "config": self.config.to_dict(),
                 "iteration": self.iteration, "env_steps": self.env_steps, "population": self.population,
                 "payoffs": self.payoffs.tolist(), "weights": self.weights.tolist(), "log": self.log}
        with atomic_write(self.out / PSRO_FILE, "w") as handle:
            json.dump(state, handle, indent=1)
        write_csv(pd.DataFrame(self.log), self.out / "log.csv")
