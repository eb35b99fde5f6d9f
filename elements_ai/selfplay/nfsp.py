"""Neural Fictitious Self-Play (Heinrich & Silver 2016) on the vector face.

NFSP learns two networks by self-play. A best response: DQN on a circular replay
buffer of the players' transitions, acting epsilon-greedily, with a target network.
An average policy: a classifier on a reservoir buffer of the best response's own
moves, whose targets are the distributions the best response drew them from (its
greedy action, or uniform over the legal actions when it explored). In every game
each seat plays its best response with probability ``anticipatory`` (0.1) and the
average policy otherwise; the average policy is what approaches a Nash equilibrium
in two-player zero-sum games, and what the checkpoints' network files hold: the
``nfsp`` bot plays it (``nfsp:ckpt=FOLDER``), with numpy alone.

The defaults are OpenSpiel's (``open_spiel/python/algorithms/nfsp.py`` and its Kuhn
and Leduc examples): one hidden layer of 128, replay buffer 200,000, reservoir
2,000,000, batch 128, plain SGD at 0.01 for both networks, one update of each every
64 decisions once a buffer holds 1,000 entries, squared TD error, no discount,
epsilon from 0.06 to 0.001 over 20M best-response moves, and the target network
refreshed every 19,200 of them. Here one network of each kind plays every seat (the
information-state tensor says whose it is), so ``learn_every`` counts the decisions
of all seats. Returns, the only rewards, are divided by the game's utility bound, so
plain SGD's steps on the squared TD error shrink with it: on Leduc hold'em (13 chips)
``rl_lr=0.1`` learns as OpenSpiel's NFSP does at 0.01 (``experiments/leduc.py``).

The buffers hold the information-state tensors in half precision: they are small
integers, exact there (a game whose tensors are not is refused). A checkpoint holds
the whole run (networks, optimizers, buffers, the envs, their seats' modes and the
random streams), so a resumed run continues as if never stopped, and one seed gives
the same run bit for bit on one machine. Every ``eval_every`` iterations the average
policy plays ``eval_games`` games against each of ``eval_opponents``; the log
(``log.csv``, ``log.png``) holds the losses, epsilon and those scores.

>>> import tempfile, elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
>>> config = NFSPConfig(num_envs=16, rollout_steps=8, hidden=(32,), min_buffer=64, eval_games=20)
>>> trainer = NFSPTrainer(game, tempfile.mkdtemp(), config, seed=0, progress=False)
>>> row = trainer.train(steps=1024)
>>> trainer.env_steps, trainer.iteration, row["rl_loss"] >= 0
(1024, 8, True)
"""

from __future__ import annotations

import copy
import dataclasses
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd
import torch

from .. import load_game
from ..agents.network import Network
from ..core.vec import VecEnv
from ..progress import progress_bar
from . import checkpoint
from .net import PolicyValueNet, layer_sizes, masked_log_probs, masked_probs, value_bound
from .players import encode_rows
from .ppo import evaluate, plot_scores, save_figure, write_log

OPTIMIZERS = ("sgd", "adam")


@dataclasses.dataclass
class NFSPConfig:
    """Hyperparameters of an NFSP run (stored in its checkpoints); the defaults are OpenSpiel's."""

    num_envs: int = 64  # games played at once
    rollout_steps: int = 16  # vector steps per iteration (num_envs * rollout_steps env steps)
    hidden: tuple[int, ...] = (128,)
    anticipatory: float = 0.1  # probability that a seat plays its best response in a game
    rl_lr: float = 0.01
    sl_lr: float = 0.01
    optimizer: str = "sgd"  # of both networks: "sgd" or "adam"
    batch_size: int = 128
    learn_every: int = 64  # decisions (all seats) between updates of each network
    min_buffer: int = 1000  # entries a buffer holds before its network learns
    replay_capacity: int = 200_000  # best response's transitions (circular)
    reservoir_capacity: int = 2_000_000  # best response's moves (reservoir sampling)
    target_update_every: int = 19_200  # best-response moves between target-network refreshes
    epsilon_start: float = 0.06
    epsilon_end: float = 0.001
    epsilon_decay_steps: int = 20_000_000  # best-response moves over which epsilon decays linearly
    eval_opponents: tuple[str, ...] = ("random", "rules")
    eval_games: int = 200
    eval_every: int = 50  # iterations between evaluations (0: never)
    checkpoint_every: int = 100  # iterations between checkpoints (one is always written at the end)
    keep_checkpoints: int = 2  # the most recent ones kept on disk
    threads: int = 1  # torch and numba threads

    def __post_init__(self):
        self.hidden = layer_sizes(self.hidden, type(self).__name__)
        self.eval_opponents = tuple(self.eval_opponents)
        for name in ("num_envs", "rollout_steps", "batch_size", "learn_every", "replay_capacity",
                     "reservoir_capacity", "target_update_every", "epsilon_decay_steps", "keep_checkpoints",
                     "threads", "checkpoint_every"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"NFSPConfig.{name} must be at least 1, got {getattr(self, name)!r}")
        for name in ("min_buffer", "eval_games", "eval_every"):
            if int(getattr(self, name)) < 0:
                raise ValueError(f"NFSPConfig.{name} must not be negative, got {getattr(self, name)!r}")
        for name in ("anticipatory", "epsilon_start", "epsilon_end"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise ValueError(f"NFSPConfig.{name} must be in [0, 1], got {getattr(self, name)!r}")
        if self.rl_lr <= 0 or self.sl_lr <= 0:
            raise ValueError(f"NFSPConfig.rl_lr and sl_lr must be positive, got {self.rl_lr!r}, {self.sl_lr!r}")
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"NFSPConfig.optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = list(value)
        return out

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> NFSPConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items() if k in names})


def _half(info: np.ndarray) -> np.ndarray:
    """``info`` in float16, refused where that would change a value."""
    half = info.astype(np.float16)
    if not np.array_equal(half, info):
        raise ValueError("nfsp stores information-state tensors in half precision; this game's are not exact there")
    return half


class _Buffer:
    """Columns of entries grown on demand up to ``capacity`` rows (a checkpoint holds the filled rows)."""

    def __init__(self, capacity: int, columns: dict[str, tuple[tuple[int, ...], Any]]):
        self.capacity = int(capacity)
        self.columns = columns
        self.data = {name: np.zeros((0, *shape), dtype) for name, (shape, dtype) in columns.items()}
        self.size = 0

    def _grow(self, needed: int) -> None:
        rows = len(next(iter(self.data.values())))
        if needed <= rows:
            return
        rows = min(self.capacity, max(needed, 2 * rows, 1024))
        for name, old in self.data.items():
            new = np.zeros((rows, *old.shape[1:]), old.dtype)
            new[: len(old)] = old
            self.data[name] = new

    def write(self, at: np.ndarray, values: dict[str, np.ndarray]) -> None:
        self._grow(int(at.max()) + 1)
        for name, value in values.items():
            self.data[name][at] = value

    def sample(self, count: int, generator: torch.Generator) -> dict[str, torch.Tensor]:
        rows = torch.randint(self.size, (count,), generator=generator).numpy()
        return {name: torch.from_numpy(column[rows]) for name, column in self.data.items()}

    def state(self) -> dict[str, Any]:
        return {"size": self.size, **{name: torch.from_numpy(column[: self.size].copy())
                                      for name, column in self.data.items()}}

    def load_state(self, state: dict[str, Any]) -> None:
        self.size = int(state["size"])
        self.data = {name: np.zeros((0, *shape), dtype) for name, (shape, dtype) in self.columns.items()}
        if self.size:
            self.write(np.arange(self.size), {name: state[name].numpy() for name in self.columns})


class ReplayBuffer(_Buffer):
    """The best response's transitions, the oldest overwritten first once full."""

    def __init__(self, capacity: int, info_size: int, num_actions: int):
        super().__init__(capacity, {
            "info": ((info_size,), np.float16), "action": ((), np.int64), "reward": ((), np.float32),
            "next_info": ((info_size,), np.float16), "next_mask": ((num_actions,), np.bool_),
            "done": ((), np.bool_),
        })
        self.added = 0

    def add(self, values: dict[str, np.ndarray]) -> None:
        count = len(values["action"])
        if count:
            self.write((self.added + np.arange(count)) % self.capacity, values)
            self.added += count
            self.size = min(self.added, self.capacity)

    def state(self) -> dict[str, Any]:
        return {**super().state(), "added": self.added}

    def load_state(self, state: dict[str, Any]) -> None:
        super().load_state(state)
        self.added = int(state["added"])


class ReservoirBuffer(_Buffer):
    """A uniform sample of every move offered (reservoir sampling, Vitter's algorithm R)."""

    def __init__(self, capacity: int, info_size: int, num_actions: int):
        super().__init__(capacity, {
            "info": ((info_size,), np.float16), "action": ((), np.int64), "explored": ((), np.bool_),
            "mask": ((num_actions,), np.bool_),
        })
        self.seen = 0

    def add(self, values: dict[str, np.ndarray], generator: torch.Generator) -> None:
        count = len(values["action"])
        if not count:
            return
        seen = self.seen + 1 + np.arange(count)
        # The k-th entry ever offered replaces a uniform slot of all k with probability capacity / k.
        slot = np.floor(torch.rand(count, dtype=torch.float64, generator=generator).numpy() * seen).astype(np.int64)
        slot = np.where(seen <= self.capacity, seen - 1, slot)
        keep = np.flatnonzero(slot < self.capacity)
        if len(np.unique(slot[keep])) == len(keep):
            if len(keep):
                self.write(slot[keep], {name: value[keep] for name, value in values.items()})
        else:
            for k in keep:  # in order: a later entry drawn to the same slot replaces an earlier one
                self.write(slot[k : k + 1], {name: value[k : k + 1] for name, value in values.items()})
        self.seen += count
        self.size = min(self.seen, self.capacity)

    def state(self) -> dict[str, Any]:
        return {**super().state(), "seen": self.seen}

    def load_state(self, state: dict[str, Any]) -> None:
        super().load_state(state)
        self.seen = int(state["seen"])


class NFSPTrainer:
    """One NFSP run on one game, writing checkpoints and its log to ``out``.

    A folder that already holds checkpoints is resumed from its latest one (its
    hyperparameters and seed win; a game other than the checkpoint's is an error).
    The network files beside the checkpoints hold the average policy.
    """

    algorithm = "nfsp"

    def __init__(self, game, out: str | Path, config: NFSPConfig | None = None, seed: int = 0,
                 progress: bool = True):
        self.game = load_game(game) if isinstance(game, str) else game
        self.out = Path(out)
        self.progress = progress
        existing = checkpoint.checkpoints(self.out)
        saved = checkpoint.load(existing[-1], game=self.game, algorithm=self.algorithm) if existing else None
        if saved is not None:
            config = NFSPConfig.from_dict(saved["config"])
            seed = int(saved["seed"])
        self.config = cfg = config or NFSPConfig()
        self.seed = int(seed)
        gc = self.game.config
        if gc.num_players < 2:
            raise ValueError(f"nfsp learns by self-play: {self.game} has one player")
        torch.set_num_threads(cfg.threads)
        numba.set_num_threads(min(cfg.threads, numba.config.NUMBA_NUM_THREADS))
        torch.manual_seed(self.seed)
        self.num_players = gc.num_players
        self.scale = value_bound(gc)
        architecture = (gc.info_size, gc.num_actions, gc.num_players, cfg.hidden)
        # The best response's action values are the policy head of a PolicyValueNet (its value head is unused).
        self.q_net = PolicyValueNet(*architecture)
        self.target_net = copy.deepcopy(self.q_net)
        self.avg_net = PolicyValueNet(*architecture)
        for net in (self.q_net, self.target_net, self.avg_net):
            net.eval()
        self.q_optimizer = self._optimizer(self.q_net, cfg.rl_lr)
        self.avg_optimizer = self._optimizer(self.avg_net, cfg.sl_lr)
        self.generator = torch.Generator().manual_seed(self.seed)
        self.env = VecEnv(self.game.kernel, gc, cfg.num_envs, seed=self.seed)
        self.replay = ReplayBuffer(cfg.replay_capacity, gc.info_size, gc.num_actions)
        self.reservoir = ReservoirBuffer(cfg.reservoir_capacity, gc.info_size, gc.num_actions)
        shape = (cfg.num_envs, self.num_players)
        self.best_response = np.zeros(shape, np.bool_)  # each seat's mode in its current game
        self.last_info = np.zeros((*shape, gc.info_size), np.float16)  # each seat's last decision, whose
        self.last_action = np.zeros(shape, np.int64)  # transition ends at its next decision or the game's end
        self.has_last = np.zeros(shape, np.bool_)
        self.iteration = 0
        self.env_steps = 0
        self.br_steps = 0  # best-response moves: epsilon and the target network follow them
        self.unlearnt = 0  # decisions since the last update
        self.updates = 0
        self.log: list[dict[str, float]] = []
        if saved is not None:
            self._restore(saved)
            checkpoint.export_network(existing[-1], self.network())
        else:
            self._draw_modes(np.arange(cfg.num_envs))

    def _optimizer(self, net: PolicyValueNet, lr: float) -> torch.optim.Optimizer:
        params = [p for name, p in net.named_parameters() if not name.startswith("value.")]
        if self.config.optimizer == "adam":
            return torch.optim.Adam(params, lr=lr)
        return torch.optim.SGD(params, lr=lr)

    def _draw_modes(self, rows: np.ndarray) -> None:
        draws = torch.rand(len(rows), self.num_players, generator=self.generator).numpy()
        self.best_response[rows] = draws < self.config.anticipatory

    @property
    def epsilon(self) -> float:
        cfg = self.config
        done = min(self.br_steps, cfg.epsilon_decay_steps) / cfg.epsilon_decay_steps
        return cfg.epsilon_end + (cfg.epsilon_start - cfg.epsilon_end) * (1.0 - done)

    # --- playing -----------------------------------------------------------------------

    @torch.no_grad()
    def _vector_step(self) -> int:
        """One move in every env; the transitions and moves go to the buffers. Returns the games ended."""
        env, num_envs = self.env, self.config.num_envs
        every = np.arange(num_envs)
        mover = env.current_player.copy()
        info = encode_rows(env, every)
        half = _half(info)
        mask = env.legal_mask.copy()
        # The seat's previous decision gets its successor: no reward until the game ends.
        rows = np.flatnonzero(self.has_last[every, mover])
        self.replay.add({
            "info": self.last_info[rows, mover[rows]], "action": self.last_action[rows, mover[rows]],
            "reward": np.zeros(len(rows), np.float32), "next_info": half[rows], "next_mask": mask[rows],
            "done": np.zeros(len(rows), np.bool_),
        })
        actions = np.zeros(num_envs, np.int64)
        best = self.best_response[every, mover]
        rows = np.flatnonzero(best)
        if len(rows):
            mask_t = torch.from_numpy(mask[rows])
            q_values = self.q_net(torch.from_numpy(info[rows]))[0]
            greedy = q_values.masked_fill(~mask_t, float("-inf")).argmax(-1)
            explore = torch.rand(len(rows), generator=self.generator) < self.epsilon
            uniform = torch.multinomial(mask_t.float(), 1, generator=self.generator).squeeze(1)
            chosen = torch.where(explore, uniform, greedy).numpy()
            actions[rows] = chosen
            self.reservoir.add({"info": half[rows], "action": chosen, "explored": explore.numpy(),
                                "mask": mask[rows]}, self.generator)
            self.br_steps += len(rows)
        rows = np.flatnonzero(~best)
        if len(rows):
            logits = self.avg_net(torch.from_numpy(info[rows]))[0]
            probs = masked_probs(logits, torch.from_numpy(mask[rows]))
            actions[rows] = torch.multinomial(probs, 1, generator=self.generator).squeeze(1).numpy()
        self.last_info[every, mover] = half
        self.last_action[every, mover] = actions
        self.has_last[every, mover] = True
        env.step(actions)
        finished = np.flatnonzero(env.terminated)
        if len(finished):
            returns = env.returns[finished] / self.scale
            ended, seats = np.nonzero(self.has_last[finished])
            self.replay.add({
                "info": self.last_info[finished[ended], seats], "action": self.last_action[finished[ended], seats],
                "reward": returns[ended, seats].astype(np.float32),
                "next_info": np.zeros((len(ended), info.shape[1]), np.float16),
                "next_mask": np.zeros((len(ended), mask.shape[1]), np.bool_), "done": np.ones(len(ended), np.bool_),
            })
            self.has_last[finished] = False
            env.reset(env.terminated)
            self._draw_modes(finished)
        self.env_steps += num_envs
        self.unlearnt += num_envs
        return len(finished)

    # --- learning ----------------------------------------------------------------------

    def _learn_best_response(self) -> float | None:
        cfg = self.config
        if self.replay.size < max(cfg.min_buffer, 1):
            return None
        batch = self.replay.sample(cfg.batch_size, self.generator)
        self.q_net.train()
        q_values = self.q_net(batch["info"].float())[0].gather(1, batch["action"][:, None]).squeeze(1)
        with torch.no_grad():
            following = self.target_net(batch["next_info"].float())[0]
            following = following.masked_fill(~batch["next_mask"], float("-inf")).max(-1).values
            target = batch["reward"] + torch.where(batch["done"], torch.zeros_like(following), following)
        loss = ((q_values - target) ** 2).mean()
        self.q_optimizer.zero_grad()
        loss.backward()
        self.q_optimizer.step()
        self.q_net.eval()
        return float(loss.detach())

    def _learn_average(self) -> float | None:
        cfg = self.config
        if self.reservoir.size < max(cfg.min_buffer, 1):
            return None
        batch = self.reservoir.sample(cfg.batch_size, self.generator)
        mask = batch["mask"]
        # The distribution the best response drew its move from: its greedy action, or uniform when exploring.
        greedy = torch.nn.functional.one_hot(batch["action"], mask.shape[1]).float()
        uniform = mask.float() / mask.sum(-1, keepdim=True)
        target = torch.where(batch["explored"][:, None], uniform, greedy)
        self.avg_net.train()
        log_probs = masked_log_probs(self.avg_net(batch["info"].float())[0], mask).masked_fill(~mask, 0.0)
        loss = -(target * log_probs).sum(-1).mean()
        self.avg_optimizer.zero_grad()
        loss.backward()
        self.avg_optimizer.step()
        self.avg_net.eval()
        return float(loss.detach())

    def step(self) -> dict[str, float]:
        """One iteration: ``rollout_steps`` moves in every env, the updates they are due; returns its log row."""
        cfg = self.config
        start = time.perf_counter()
        games = 0
        losses: dict[str, list[float]] = {"rl_loss": [], "sl_loss": []}
        for _ in range(cfg.rollout_steps):
            before = self.br_steps
            games += self._vector_step()
            if self.br_steps // cfg.target_update_every > before // cfg.target_update_every:
                self.target_net.load_state_dict(self.q_net.state_dict())
            while self.unlearnt >= cfg.learn_every:
                self.unlearnt -= cfg.learn_every
                for key, loss in (("rl_loss", self._learn_best_response()), ("sl_loss", self._learn_average())):
                    if loss is not None:
                        losses[key].append(loss)
                self.updates += 1
        self.iteration += 1
        row = {"iteration": self.iteration, "env_steps": self.env_steps, "games": games,
               "seconds": time.perf_counter() - start, "epsilon": self.epsilon, "replay": self.replay.size,
               "reservoir": self.reservoir.size,
               **{key: float(np.mean(values)) for key, values in losses.items() if values}}
        if cfg.eval_every and self.iteration % cfg.eval_every == 0:
            row.update(self.evaluate())
        self.log.append(row)
        return row

    def evaluate(self) -> dict[str, float]:
        """Scores of the average policy against ``eval_opponents`` (fixed seeds: comparable over time)."""
        row = {}
        if not self.config.eval_games:
            return row
        for k, spec in enumerate(self.config.eval_opponents):
            if spec == "rules" and self.game.kernel.heuristic is None:
                continue
            score, low, high = evaluate(self.avg_net, self.game, spec, self.config.eval_games, self.seed + 100 + k)
            row[f"score_{spec}"], row[f"score_{spec}_low"], row[f"score_{spec}_high"] = score, low, high
        return row

    def train(self, steps: int) -> dict[str, float]:
        """Trains until ``steps`` env steps in all (a resumed run counts its earlier ones);
        returns the last log row."""
        steps = int(steps)
        cfg = self.config
        per_iteration = cfg.num_envs * cfg.rollout_steps
        bar = progress_bar(total=steps, initial=min(self.env_steps, steps), unit="step", disable=not self.progress,
                           desc=f"nfsp {self.game.kernel.short_name}")
        row: dict[str, float] = self.log[-1] if self.log else {}
        saved_at = self.iteration
        while self.env_steps < steps:
            row = self.step()
            bar.update(per_iteration)
            scores = {k[6:]: f"{v:.2f}" for k, v in row.items() if k.startswith("score_") and k.count("_") == 1}
            bar.set_postfix(sl=f"{row.get('sl_loss', 0):.3f}", **scores)
            if self.iteration % cfg.checkpoint_every == 0:
                self.save()
                saved_at = self.iteration
        bar.close()
        if saved_at != self.iteration or not checkpoint.checkpoints(self.out):
            self.save()
        return row

    # --- checkpoints -------------------------------------------------------------------

    def payload(self) -> dict[str, Any]:
        def weights(net: PolicyValueNet) -> dict[str, torch.Tensor]:
            return {name: tensor.clone() for name, tensor in net.state_dict().items()}

        return {
            "algorithm": self.algorithm,
            "game": str(self.game),
            "architecture": self.avg_net.architecture(),
            "model": weights(self.avg_net),
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "trainer": {
                "q_net": weights(self.q_net),
                "target_net": weights(self.target_net),
                "q_optimizer": self.q_optimizer.state_dict(),
                "avg_optimizer": self.avg_optimizer.state_dict(),
                "generator": self.generator.get_state(),
                "replay": self.replay.state(),
                "reservoir": self.reservoir.state(),
                "env": {name: torch.from_numpy(array.copy()) for name, array in self.env.state_dict().items()},
                "best_response": torch.from_numpy(self.best_response.copy()),
                "last_info": torch.from_numpy(self.last_info.copy()),
                "last_action": torch.from_numpy(self.last_action.copy()),
                "has_last": torch.from_numpy(self.has_last.copy()),
                "br_steps": self.br_steps,
                "unlearnt": self.unlearnt,
                "updates": self.updates,
                "log": self.log,
            },
        }

    def network(self):
        """The average policy as it is now, as the numpy network file the ``nfsp`` bot plays
        (its value head is zeros: NFSP learns no values)."""
        state = {name: tensor.detach().clone() for name, tensor in self.avg_net.state_dict().items()}
        state["value.weight"].zero_()
        state["value.bias"].zero_()
        meta = {"game": str(self.game), "algorithm": self.algorithm, "iteration": self.iteration,
                "env_steps": self.env_steps}
        return Network.from_state_dict(state, meta)

    def save(self) -> Path:
        """Writes a checkpoint of the whole run (and the log) with its network file beside it;
        keeps the latest ``keep_checkpoints``."""
        path = checkpoint.save_keeping(self.payload(), self.out, self.config.keep_checkpoints, self.network())
        write_log(self.log, self.out, plot_log)
        return path

    def _restore(self, saved: dict[str, Any]) -> None:
        try:
            state = saved["trainer"]
            self.avg_net.load_state_dict(saved["model"])
            self.q_net.load_state_dict(state["q_net"])
            self.target_net.load_state_dict(state["target_net"])
            self.q_optimizer.load_state_dict(state["q_optimizer"])
            self.avg_optimizer.load_state_dict(state["avg_optimizer"])
            self.generator.set_state(state["generator"])
            self.replay.load_state(state["replay"])
            self.reservoir.load_state(state["reservoir"])
            self.env.load_state_dict({name: tensor.numpy() for name, tensor in state["env"].items()})
            self.best_response[:] = state["best_response"].numpy()
            self.last_info[:] = state["last_info"].numpy()
            self.last_action[:] = state["last_action"].numpy()
            self.has_last[:] = state["has_last"].numpy()
            self.br_steps = int(state["br_steps"])
            self.unlearnt = int(state["unlearnt"])
            self.updates = int(state["updates"])
            self.iteration = int(saved["iteration"])
            self.env_steps = int(saved["env_steps"])
            self.log = list(state["log"])
        except (KeyError, RuntimeError, ValueError, TypeError) as error:
            raise checkpoint.CheckpointError(
                f"{saved['path']} cannot resume this run ({type(error).__name__}: {error})"
            ) from None


def plot_log(table: pd.DataFrame, path: Path) -> None:
    """``log.png``: the two losses and the average policy's scores against the reference bots."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    x = table["env_steps"]
    for ax, key, title in ((axes[0], "rl_loss", "best response: TD loss"),
                           (axes[1], "sl_loss", "average policy: cross-entropy")):
        if key in table:
            rows = table[key].notna()
            ax.plot(x[rows], table.loc[rows, key])
        ax.set_title(title)
    plot_scores(axes[2], table, "average policy's score (95% Wilson interval)")
    save_figure(fig, axes, path)
