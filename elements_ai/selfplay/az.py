"""AlphaZero-style training for perfect-information games (e.g. ``elementos(setup=standard)``).

``num_games`` games are played at once on the vector face; at every move each game runs
a PUCT search guided by the network, and the searches advance together so that their
leaves go through the network in one batch (``batched.BatchedSearch``). The first
``temperature_moves`` moves of a game are drawn in proportion to the root visits, the
later ones are the most visited; Dirichlet noise is mixed into the root priors. Every
position is stored with its visit distribution and, when its game ends, the returns of
every player; the network learns both (cross-entropy and squared error) from a replay
buffer.

>>> import tempfile, elements_ai
>>> game = elements_ai.load_game("elementos", setup="standard", max_moves=12)
>>> config = AZConfig(num_games=4, sims=4, moves_per_iteration=4, hidden=(16,), batch_size=8, eval_every=0)
>>> trainer = AlphaZeroTrainer(game, tempfile.mkdtemp(), config, progress=False)
>>> row = trainer.train(steps=32)
>>> trainer.env_steps, row["iteration"]
(32, 2)
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
import torch

from .. import load_game
from ..agents.batched import BatchedSearch, evaluator
from ..core.vec import VecEnv, batch_encode_information_state
from ..progress import progress_bar
from . import checkpoint, imitation
from .net import PolicyValueNet, layer_sizes, masked_entropy, masked_log_probs, value_bound
from .ppo import evaluate, write_log


@dataclasses.dataclass
class AZConfig:
    """Hyperparameters of an AlphaZero-style run (stored in its checkpoints)."""

    num_games: int = 64  # games played (and searches run) at once
    sims: int = 32  # simulations per move
    c: float = 1.5  # PUCT constant, values scaled to [0, 1]
    noise: float = 0.25  # weight of the Dirichlet noise in the root prior
    alpha: float = 0.3  # its concentration
    temperature_moves: int = 10  # moves of a game drawn in proportion to the visits
    moves_per_iteration: int = 8  # vector moves between two training phases
    buffer_size: int = 20000  # positions kept for training
    batch_size: int = 256
    updates_per_iteration: int = 8
    lr: float = 1e-3
    weight_decay: float = 1e-4
    hidden: tuple[int, ...] = (256, 256)
    imitate: str = ""  # a bot spec whose moves (and game returns) the network first learns ("" : none)
    imitation_steps: int = 0  # moves of the bot's own games to copy (not counted in ``steps``)
    imitation_epochs: int = 4
    imitation_batch: int = 256
    imitation_lr: float = 0.0  # the imitation's learning rate (0: ``lr``)
    eval_opponents: tuple[str, ...] = ("random", "rules")  # played by the network's policy alone
    eval_games: int = 100
    eval_every: int = 10
    checkpoint_every: int = 10
    keep_checkpoints: int = 2
    threads: int = 1

    def __post_init__(self):
        self.hidden = layer_sizes(self.hidden, type(self).__name__)
        self.eval_opponents = tuple(self.eval_opponents)
        for name in ("num_games", "sims", "moves_per_iteration", "buffer_size", "batch_size", "threads",
                     "keep_checkpoints", "imitation_batch"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"AZConfig.{name} must be at least 1, got {getattr(self, name)!r}")
        if self.imitate and self.imitation_steps < 1:
            raise ValueError(f"AZConfig.imitate={self.imitate!r} needs imitation_steps >= 1")
        if self.imitation_lr < 0:
            raise ValueError(f"AZConfig.imitation_lr must not be negative, got {self.imitation_lr!r}")

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> AZConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items() if k in names})


class AlphaZeroTrainer:
    """One AlphaZero-style run on a perfect-information game, writing to ``out`` (resumed if it has checkpoints)."""

    algorithm = "az"

    def __init__(self, game, out: str | Path, config: AZConfig | None = None, seed: int = 0, progress: bool = True):
        self.game = load_game(game) if isinstance(game, str) else game
        if not self.game.config.perfect_information:
            raise ValueError(
                f"az: {self.game} has hidden information; AlphaZero-style search needs perfect information "
                "(e.g. elementos(setup=standard)); train it with --algorithm ppo"
            )
        self.out = Path(out)
        self.progress = progress
        existing = checkpoint.checkpoints(self.out)
        saved = checkpoint.load(existing[-1], game=self.game, algorithm=self.algorithm) if existing else None
        if saved is not None:
            config, seed = AZConfig.from_dict(saved["config"]), int(saved["seed"])
        self.config = config = config or AZConfig()
        self.seed = int(seed)
        torch.set_num_threads(config.threads)
        numba.set_num_threads(min(config.threads, numba.config.NUMBA_NUM_THREADS))
        torch.manual_seed(self.seed)
        gc = self.game.config
        self.num_players, self.num_actions = gc.num_players, gc.num_actions
        self.bound = value_bound(gc)
        self.env = VecEnv(self.game.kernel, gc, config.num_games, seed=self.seed)
        if config.imitate and saved is None:  # a bad teacher fails here, before the run writes anything
            imitation.teacher_players(self.game, self.env, config.imitate)
        self.net = PolicyValueNet(gc.info_size, gc.num_actions, gc.num_players, config.hidden)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.generator = torch.Generator().manual_seed(self.seed)
        self.search = BatchedSearch(self.game, config.num_games, config.sims, c=config.c, seed=self.seed,
                                    noise=config.noise, alpha=config.alpha)
        cap = config.buffer_size
        self.buffer = {
            "state": np.zeros((cap, gc.state_size), self.game.kernel.state_dtype),
            "player": np.zeros(cap, np.int64),
            "mask": np.zeros((cap, gc.num_actions), np.bool_),
            "policy": np.zeros((cap, gc.num_actions), np.float32),
            "value": np.zeros((cap, gc.num_players), np.float32),  # from the mover's point of view
            "ready": np.zeros(cap, np.bool_),
            "serial": np.full(cap, -1, np.int64),
        }
        self.written = 0  # positions ever written (slot = serial % cap)
        self.pending: list[list[int]] = [[] for _ in range(config.num_games)]
        self.moves = np.zeros(config.num_games, np.int64)
        self.iteration = 0
        self.env_steps = 0
        self.log: list[dict[str, float]] = []
        if saved is not None:
            self._restore(saved)
            checkpoint.export_network(existing[-1], self.network())

    # --- self-play -------------------------------------------------------------------

    def _play(self) -> int:
        """Plays ``moves_per_iteration`` searched moves in every game; returns the games finished."""
        env, cfg = self.env, self.config
        evaluate_leaves = evaluator(self.game, self._forward)
        finished_games = 0
        for _ in range(cfg.moves_per_iteration):
            counts = self.search.run(env.states, cfg.sims, evaluate_leaves)
            policy = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
            sampled = torch.multinomial(torch.from_numpy(np.maximum(policy, 0) + 1e-12 * env.legal_mask), 1,
                                        generator=self.generator).squeeze(1).numpy()
            actions = np.where(self.moves < cfg.temperature_moves, sampled, counts.argmax(axis=1))
            for b in range(cfg.num_games):
                self.pending[b].append(self._store(env.states[b], env.current_player[b], env.legal_mask[b], policy[b]))
            env.step(actions)
            self.moves += 1
            self.env_steps += cfg.num_games
            done = np.flatnonzero(env.terminated)
            for b in done:
                self._settle(b, env.returns[b] / self.bound)
            if len(done):
                finished_games += len(done)
                self.moves[done] = 0
                env.reset(env.terminated)
        return finished_games

    def _store(self, state, player, mask, policy) -> int:
        buf, serial = self.buffer, self.written
        slot = serial % self.config.buffer_size
        buf["state"][slot], buf["player"][slot], buf["mask"][slot] = state, player, mask
        buf["policy"][slot], buf["ready"][slot], buf["serial"][slot] = policy, False, serial
        self.written += 1
        return serial

    def _settle(self, b: int, returns: np.ndarray) -> None:
        buf, cap, players = self.buffer, self.config.buffer_size, self.num_players
        for serial in self.pending[b]:
            slot = serial % cap
            if buf["serial"][slot] != serial:
                continue  # overwritten while its game went on
            mover = buf["player"][slot]
            buf["value"][slot] = returns[(mover + np.arange(players)) % players]
            buf["ready"][slot] = True
        self.pending[b] = []

    # --- learning --------------------------------------------------------------------

    def _learn(self) -> dict[str, float]:
        buf, cfg = self.buffer, self.config
        ready = np.flatnonzero(buf["ready"])
        if len(ready) == 0:
            return {}
        stats = {"policy_loss": [], "value_loss": [], "entropy": []}
        encode = batch_encode_information_state[self.game.kernel]
        for _ in range(cfg.updates_per_iteration):
            pick = torch.randint(len(ready), (min(cfg.batch_size, len(ready)),), generator=self.generator).numpy()
            idx = ready[pick]
            info = np.empty((len(idx), self.game.config.info_size), np.float32)
            encode(self.game.config.cfg, buf["state"][idx], buf["player"][idx], info)
            mask = torch.from_numpy(buf["mask"][idx])
            logits, value = self.net(torch.from_numpy(info))
            log_probs = masked_log_probs(logits, mask).masked_fill(~mask, 0.0)
            policy_loss = -(torch.from_numpy(buf["policy"][idx]) * log_probs).sum(-1).mean()
            value_loss = ((value - torch.from_numpy(buf["value"][idx])) ** 2).mean()
            loss = policy_loss + value_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            stats["policy_loss"].append(float(policy_loss.detach()))
            stats["value_loss"].append(float(value_loss.detach()))
            stats["entropy"].append(float(masked_entropy(logits.detach(), mask).mean()))
        return {key: float(np.mean(v)) for key, v in stats.items()}

    def _imitate(self) -> dict[str, float]:
        """Behaviour cloning of ``imitate`` before self-play (``imitation``): the searches
        start from a prior that plays like the bot and a value that measures its games."""
        cfg = self.config
        games = imitation.collect(self.game, cfg.imitate, cfg.num_games, cfg.imitation_steps, self.seed + 3)
        # value_coef 2: the same weight as the self-play loss's squared error (clone halves it).
        loss, value_loss = imitation.clone(self.net, self.optimizer, games, cfg.imitation_epochs, cfg.imitation_batch,
                                           cfg.imitation_lr or cfg.lr, self.generator, value_coef=2.0)
        row = {"iteration": 0, "env_steps": 0, "imitation_steps": len(games.action), "imitation_loss": loss,
               "imitation_value_loss": value_loss}
        if cfg.eval_every:
            row.update(self.evaluate())
        return row

    def evaluate(self) -> dict[str, float]:
        row = {}
        self.net.eval()
        for k, spec in enumerate(self.config.eval_opponents):
            if spec == "rules" and self.game.kernel.heuristic is None:
                continue
            score, low, high = evaluate(self.net, self.game, spec, self.config.eval_games, self.seed + 100 + k)
            row[f"score_{spec}"], row[f"score_{spec}_low"], row[f"score_{spec}_high"] = score, low, high
        self.net.train()
        return row

    def step(self) -> dict[str, float]:
        """One iteration: searched self-play moves, then learning; returns its log row."""
        start = time.perf_counter()
        games = self._play()
        self.net.train()
        stats = self._learn()
        self.iteration += 1
        row = {"iteration": self.iteration, "env_steps": self.env_steps, "games": games,
               "positions": int(self.buffer["ready"].sum()), "seconds": time.perf_counter() - start, **stats}
        if self.config.eval_every and self.iteration % self.config.eval_every == 0:
            row.update(self.evaluate())
        self.log.append(row)
        return row

    def train(self, steps: int) -> dict[str, float]:
        """Trains until ``steps`` env steps (moves) in all; returns the last log row."""
        cfg, steps = self.config, int(steps)
        per_iteration = cfg.num_games * cfg.moves_per_iteration
        bar = progress_bar(total=steps, initial=min(self.env_steps, steps), unit="step", disable=not self.progress,
                           desc=f"az {self.game.kernel.short_name}")
        row: dict[str, float] = self.log[-1] if self.log else {}
        saved_at = self.iteration
        if cfg.imitate and self.iteration == 0 and not self.log:
            self.log.append(self._imitate())
        while self.env_steps < steps:
            row = self.step()
            bar.update(per_iteration)
            if self.iteration % cfg.checkpoint_every == 0:
                self.save()
                saved_at = self.iteration
        bar.close()
        if saved_at != self.iteration or not checkpoint.checkpoints(self.out):
            self.save()
        return row

    # --- checkpoints -----------------------------------------------------------------

    def payload(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "game": str(self.game),
            "architecture": self.net.architecture(),
            "model": self.net.state_dict(),
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "trainer": {
                "optimizer": self.optimizer.state_dict(),
                "generator": self.generator.get_state(),
                "search_rng": torch.from_numpy(self.search.rng.view(np.int64).copy()),
                "noise_rng": json.dumps(self.search.noise_rng.bit_generator.state),
                "buffer": {k: torch.from_numpy(v.copy()) for k, v in self.buffer.items()},
                "written": self.written,
                "pending": [list(p) for p in self.pending],
                "moves": torch.from_numpy(self.moves.copy()),
                "env": {name: torch.from_numpy(array) for name, array in self.env.state_dict().items()},
                "log": self.log,
            },
        }

    @torch.no_grad()
    def _forward(self, info: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = self.net(torch.from_numpy(info))
        return logits.numpy(), values.numpy()

    def network(self):
        """The network as it is now, as the numpy network file the ``az`` bot plays."""
        return self.net.to_network({"game": str(self.game), "algorithm": self.algorithm,
                                    "iteration": self.iteration, "env_steps": self.env_steps})

    def save(self) -> Path:
        path = checkpoint.save_keeping(self.payload(), self.out, self.config.keep_checkpoints, self.network())
        write_log(self.log, self.out)
        return path

    def _restore(self, saved: dict[str, Any]) -> None:
        try:
            state = saved["trainer"]
            self.net.load_state_dict(saved["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.generator.set_state(state["generator"])
            self.search.rng[:] = state["search_rng"].numpy().view(np.uint64)
            self.search.noise_rng.bit_generator.state = json.loads(state["noise_rng"])
            for key, value in state["buffer"].items():
                self.buffer[key][:] = value.numpy()
            self.written = int(state["written"])
            self.pending = [list(p) for p in state["pending"]]
            self.moves[:] = state["moves"].numpy()
            self.env.load_state_dict({name: tensor.numpy() for name, tensor in state["env"].items()})
            self.iteration, self.env_steps = int(saved["iteration"]), int(saved["env_steps"])
            self.log = list(state["log"])
        except (KeyError, RuntimeError, ValueError, TypeError) as error:
            raise checkpoint.CheckpointError(
                f"{saved['path']} cannot resume this run ({type(error).__name__}: {error})"
            ) from None
