"""PPO by self-play against a league of frozen past policies, on the vector face.

Every env of a ``VecEnv`` gives each of its seats to a player, drawn anew when its
game starts: with probability ``self_play`` every seat is the learner (all its moves
are training data); otherwise the learner takes one seat at random and the others go
to one opponent drawn from the league (frozen snapshots of the learner, taken every
``snapshot_every`` iterations, as in fictitious self-play) or from the fixed bots named
in ``opponents`` (e.g. ``rules``), with probability ``fixed_share``. Opponents move
inside the env loop, batched per opponent.

The network reads the information-state tensor of the player to move and its policy
is masked: an illegal action has probability exactly 0. Returns come at the end of a
game; advantages are GAE over each (env, seat) chain of the learner's own decisions.
Every ``eval_every`` iterations the policy (sampling its actions) plays ``eval_games``
games against each of ``eval_opponents`` (``random``, ``rules``), seats alternated;
the log (``log.csv``, ``log.png`` in the output folder) holds losses, entropy and
those scores with 95% Wilson intervals.

Same seed, same run: the env, the league draws and the network share one seed, and a
checkpoint holds everything the run needs (env states and streams, optimizer, league,
opponents' random state), so a resumed run continues as if never stopped.

With ``device="cuda"`` the games, the networks and the learning run on an NVIDIA GPU
(``selfplay.cuda``: the league alone, no fixed bots or hint); evaluations still play
on the CPU.

>>> import tempfile, elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
>>> config = PPOConfig(num_envs=16, rollout_steps=8, hidden=(32,), eval_games=20, eval_every=1)
>>> trainer = PPOTrainer(game, tempfile.mkdtemp(), config, seed=0, progress=False)
>>> row = trainer.train(steps=256)
>>> trainer.env_steps, sorted(k for k in row if k.startswith("score_"))[:2]
(256, ['score_random', 'score_random_high'])
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd
import torch

from .. import load_game
from ..core.vec import VecEnv
from ..files import atomic_write
from ..progress import progress_bar
from ..tables import write_csv
from . import checkpoint, imitation
from .match import mean_score, play, rotation, seat_scores
from .net import HINTS, PolicyValueNet, layer_sizes, masked_entropy, masked_log_probs, value_bound
from .players import Hints, NetPlayer, Player, choose, encode_rows, make_player

LEARNER = -1


@dataclasses.dataclass
class PPOConfig:
    """Hyperparameters of a PPO run (stored in its checkpoints)."""

    num_envs: int = 128  # games played at once
    rollout_steps: int = 32  # vector steps per iteration (num_envs * rollout_steps env steps)
    lr: float = 3e-4
    gamma: float = 1.0  # rewards come at the end of the game: no discount
    gae_lambda: float = 0.95
    clip: float = 0.2
    epochs: int = 4
    minibatches: int = 4
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (256, 256)
    self_play: float = 0.5  # share of games where the learner plays every seat
    league_size: int = 8  # frozen snapshots kept (oldest dropped first)
    snapshot_every: int = 10  # iterations between snapshots
    opponents: tuple[str, ...] = ()  # fixed bots in the league (bot specs)
    opponent_weights: tuple[float, ...] = ()  # how often each of ``opponents`` is drawn (): uniformly)
    fixed_share: float = 0.5  # of the league games, the share against a fixed bot
    imitate: str = ""  # a bot spec whose moves the policy first learns to copy ("" : none)
    imitation_steps: int = 0  # env steps of its self-play games to copy (not counted in ``steps``)
    imitation_epochs: int = 4
    imitation_batch: int = 256  # decisions per gradient step of the imitation
    imitation_lr: float = 0.0  # the imitation's learning rate (0: ``lr``)
    imitation_opponent: str = ""  # a bot spec in the other seats of the imitated games ("": the bot itself)
    imitation_workers: int = 1  # processes that play the imitated games
    imitation_visits: bool = False  # learn a search bot's visit shares rather than its moves
    hint: str = ""  # "rules": learn a correction to the rule-based heuristic (selfplay.net); "": a policy
    init: str = ""  # a new run starts from this network (``initial_network``); "": fresh weights
    eval_opponents: tuple[str, ...] = ("random", "rules")
    eval_games: int = 200
    eval_every: int = 10  # iterations between evaluations (0: never)
    checkpoint_every: int = 10  # iterations between checkpoints (one is always written at the end)
    keep_checkpoints: int = 2  # the most recent ones kept on disk
    threads: int = 1  # torch and numba threads

    def __post_init__(self):
        self.hidden = layer_sizes(self.hidden, type(self).__name__)
        self.opponents = tuple(self.opponents)
        self.opponent_weights = tuple(float(w) for w in self.opponent_weights)
        self.eval_opponents = tuple(self.eval_opponents)
        for name in ("num_envs", "rollout_steps", "epochs", "minibatches", "league_size", "snapshot_every",
                     "threads", "keep_checkpoints", "imitation_batch", "imitation_workers"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"PPOConfig.{name} must be at least 1, got {getattr(self, name)!r}")
        if self.imitate and self.imitation_steps < 1:
            raise ValueError(f"PPOConfig.imitate={self.imitate!r} needs imitation_steps >= 1")
        if self.lr <= 0 or self.imitation_lr < 0:
            raise ValueError(f"PPOConfig.lr must be positive and imitation_lr not negative, got {self.lr!r}, "
                             f"{self.imitation_lr!r}")
        if self.opponent_weights:
            weights = np.asarray(self.opponent_weights)
            if len(weights) != len(self.opponents):
                raise ValueError(f"PPOConfig.opponent_weights needs one weight per opponent: {len(self.opponents)} "
                                 f"opponents, {len(weights)} weights")
            if not np.isfinite(weights).all() or (weights < 0).any() or weights.sum() <= 0:
                raise ValueError(f"PPOConfig.opponent_weights must be finite, >= 0 and not all 0, got "
                                 f"{self.opponent_weights!r}")
        if self.hint not in HINTS:
            raise ValueError(f"PPOConfig.hint must be one of {HINTS}, got {self.hint!r}")
        if not isinstance(self.init, str):
            raise ValueError(f"PPOConfig.init must be a string (a shipped agent or a network's path), "
                             f"got {self.init!r}")
        for name in ("self_play", "fixed_share", "gae_lambda", "gamma"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise ValueError(f"PPOConfig.{name} must be in [0, 1], got {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = list(value)
        return out

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> PPOConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items() if k in names})


def initial_network(game, config: PPOConfig):
    """The network that ``config.init`` names, for a run of ``config`` on ``game`` to
    start from: a shipped agent's name (``ppo``, ``mmd``: the network shipped for
    ``game``), or what a network bot's ``ckpt=`` takes (a network file, a training folder
    or one of its checkpoints). Its layers and hint must be the run's; else a
    ``ValueError`` that says which setting differs.

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements(single_round=true,hand_size=3)")
    >>> initial_network(game, PPOConfig(init="mmd", hidden=(128, 128))).hidden
    (128, 128)
    """
    from ..agents.netbots import load_network
    from ..agents.network import NetworkError
    from ..zoo import ShippedError

    shipped = config.init in ("ppo", "mmd")
    try:
        network, _ = load_network("" if shipped else config.init, game, config.init if shipped else "ppo")
    except (NetworkError, ShippedError, OSError) as error:
        raise ValueError(f"init={config.init!r}: {error} (init takes a shipped agent, ppo or mmd, or a network "
                         f"file, a training folder or one of its checkpoints)") from None
    if network.hidden != tuple(config.hidden):
        sizes = "_".join(str(size) for size in network.hidden)
        raise ValueError(f"init={config.init!r}: its hidden layers are {network.hidden}, the run's "
                         f"{tuple(config.hidden)}: --set hidden={sizes} to start from it")
    if network.hint != config.hint:
        raise ValueError(f"init={config.init!r}: its hint is {network.hint!r}, the run's {config.hint!r}: "
                         f"--set hint={network.hint} to start from it")
    return network


def evaluate(net: PolicyValueNet, game, opponent: str, games: int, seed: int, greedy: bool = False):
    """Mean score (and 95% interval) of ``net`` against ``opponent`` over ``games`` games, seats alternated."""
    env = VecEnv(game.kernel, game.config, games, seed=seed)
    players = [NetPlayer(net, seed=seed, greedy=greedy, env=env), make_player(opponent, env, game, seed + 1)]
    owners = rotation(games, game.num_players())
    returns = play(env, owners, players)
    return mean_score(seat_scores(returns, owners == 0, game.config))


class Collector:
    """A self-play actor: ``num_envs`` games, the league, the fixed bots, and the seat draws.

    It plays with a copy of the learner's weights (``set_weights``) and returns the
    learner's transitions with their advantages (``collect``). The learner holds one
    (local backend) or several, one per Ray actor (``--backend ray``); each keeps its
    own seeded streams, so a run is reproducible for a given number of actors.
    """

    def __init__(self, game_string: str, config: dict[str, Any], seed: int, num_envs: int):
        self.game = load_game(game_string)
        self.config = cfg = PPOConfig.from_dict(config)
        torch.set_num_threads(cfg.threads)
        numba.set_num_threads(min(cfg.threads, numba.config.NUMBA_NUM_THREADS))
        gc = self.game.config
        self.seed = int(seed)
        self.num_envs = int(num_envs)
        self.num_players = gc.num_players
        self.scale = value_bound(gc)
        self.env = VecEnv(self.game.kernel, gc, self.num_envs, seed=self.seed)
        self.net = PolicyValueNet(gc.info_size, gc.num_actions, gc.num_players, cfg.hidden, cfg.hint)
        self.net.eval()
        self.hints = Hints(cfg.hint, self.env, self.seed + 2000)
        self.generator = torch.Generator().manual_seed(self.seed)
        self.fixed: list[Player] = [
            make_player(spec, self.env, self.game, self.seed + 1000 + k) for k, spec in enumerate(cfg.opponents)
        ]
        self.league: list[NetPlayer] = []
        self.league_iterations: list[int] = []
        self.owners = np.full((self.num_envs, self.num_players), LEARNER, np.int64)
        # The fixed bots' cumulative draw probabilities (None: uniform, drawn as before weights existed).
        weights = np.asarray(cfg.opponent_weights, np.float64)
        self.fixed_cumulative = None
        if len(weights):
            self.fixed_cumulative = np.cumsum(weights / weights.sum())
            # Exactly 1 from the last drawable bot on: rounding never lands a draw on a trailing 0 weight.
            self.fixed_cumulative[np.flatnonzero(weights > 0)[-1]:] = 1.0

    def start(self, weights: dict[str, torch.Tensor]) -> None:
        """The first league member (the initial policy) and the first seat draws."""
        self.set_weights(weights)
        self.snapshot(0)
        self._draw_owners(np.arange(self.num_envs))

    def set_weights(self, weights: dict[str, torch.Tensor]) -> None:
        self.net.load_state_dict(weights)

    def snapshot(self, iteration: int) -> None:
        """Freezes the current weights into the league (the oldest leaves past ``league_size``)."""
        frozen = PolicyValueNet(**self.net.architecture())
        frozen.load_state_dict(self.net.state_dict())
        frozen.eval()
        self.league.append(NetPlayer(frozen, seed=self.seed + 7919 * (iteration + 1), name=f"it{iteration}",
                                     env=self.env))
        self.league_iterations.append(int(iteration))
        if len(self.league) > self.config.league_size:
            self.league.pop(0)
            self.league_iterations.pop(0)

    @property
    def opponents(self) -> list[Player]:
        """Owner ``k >= 0`` of a seat is ``opponents[k]``: the fixed bots, then the league."""
        return self.fixed + self.league

    def _draw_owners(self, rows: np.ndarray) -> None:
        """New seat owners for the games starting in ``rows``."""
        n, players = len(rows), self.num_players
        self.owners[rows] = LEARNER
        if players == 1 or n == 0:
            return
        draws = torch.rand(n, 3, generator=self.generator).numpy()
        seats = torch.randint(players, (n,), generator=self.generator).numpy()
        fixed, league = len(self.fixed), len(self.league)
        for k, row in enumerate(rows):
            if draws[k, 0] < self.config.self_play:
                continue
            if fixed and (draws[k, 1] < self.config.fixed_share or league == 0):
                if self.fixed_cumulative is None:
                    opponent = min(int(draws[k, 2] * fixed), fixed - 1)
                else:  # the same uniform number, read through the weights (a 0 weight is never drawn)
                    opponent = min(int(np.searchsorted(self.fixed_cumulative, draws[k, 2], side="right")), fixed - 1)
            else:
                opponent = fixed + min(int(draws[k, 2] * league), league - 1)
            self.owners[row] = opponent
            self.owners[row, seats[k]] = LEARNER

    def collect(self) -> dict[str, Any]:
        """Plays ``rollout_steps`` vector steps; returns the learner's transitions and advantages."""
        env, cfg, net = self.env, self.config, self.net
        steps, num_envs, players = cfg.rollout_steps, self.num_envs, self.num_players
        every = np.arange(num_envs)
        learner_rows, values = [], np.zeros((steps, num_envs), np.float32)
        infos, masks, hints, actions_taken, log_probs = [], [], [], [], []
        done = np.zeros((steps, num_envs), np.bool_)
        final = np.zeros((steps, num_envs, players), np.float32)
        games = 0
        for t in range(steps):
            mover = env.current_player.copy()
            owner = self.owners[every, mover]
            actions = np.zeros(num_envs, np.int64)
            rows = np.flatnonzero(owner == LEARNER)
            if len(rows):
                info = encode_rows(env, rows)
                mask = env.legal_mask[rows].copy()
                hint = self.hints(env, rows)
                with torch.no_grad():
                    logits, value = net(torch.from_numpy(info), hint)
                    mask_t = torch.from_numpy(mask)
                    chosen = choose(logits, mask_t, False, self.generator)
                    logp = masked_log_probs(logits, mask_t).gather(1, chosen[:, None]).squeeze(1)
                actions[rows] = chosen.numpy()
                values[t, rows] = value[:, 0].numpy()
                learner_rows.append((t, rows, mover[rows]))
                infos.append(info)
                masks.append(mask)
                hints.append(np.zeros(len(rows), np.int64) if hint is None else hint.numpy())
                actions_taken.append(chosen.numpy())
                log_probs.append(logp.numpy())
            for k, opponent in enumerate(self.opponents):
                rows_k = np.flatnonzero(owner == k)
                if len(rows_k):
                    actions[rows_k] = opponent.act(env, rows_k)
            env.step(actions)
            finished = np.flatnonzero(env.terminated)
            if len(finished):
                done[t, finished] = True
                final[t, finished] = env.returns[finished] / self.scale
                games += len(finished)
                env.reset(env.terminated)
                self._draw_owners(finished)

        # Each learner seat still in a game is valued from its own information state.
        next_value = np.zeros((num_envs, players), np.float32)
        for p in range(players):
            rows = np.flatnonzero(self.owners[:, p] == LEARNER)
            if len(rows):
                with torch.no_grad():
                    _, value = net(torch.from_numpy(encode_rows(env, rows, np.full(len(rows), p))))
                next_value[rows, p] = value[:, 0].numpy()
        next_adv = np.zeros((num_envs, players), np.float32)
        pending = np.zeros((num_envs, players), np.float32)
        advantages = [None] * len(learner_rows)
        at_step = {t: k for k, (t, _, _) in enumerate(learner_rows)}
        for t in range(steps - 1, -1, -1):
            # A game that ended after step t pays its returns to each seat's last decision in it.
            ended = done[t]
            pending[ended] = final[t, ended]
            next_value[ended] = 0.0
            next_adv[ended] = 0.0
            if t not in at_step:
                continue
            k = at_step[t]
            _, rows, who = learner_rows[k]
            adv = pending[rows, who] + cfg.gamma * next_value[rows, who] - values[t, rows]
            adv += cfg.gamma * cfg.gae_lambda * next_adv[rows, who]
            advantages[k] = adv
            next_value[rows, who] = values[t, rows]
            next_adv[rows, who] = adv
            pending[rows, who] = 0.0
        empty = not learner_rows
        gc = self.game.config
        return {
            "info": np.zeros((0, gc.info_size), np.float32) if empty else np.concatenate(infos),
            "mask": np.zeros((0, gc.num_actions), np.bool_) if empty else np.concatenate(masks),
            "hint": np.zeros(0, np.int64) if empty else np.concatenate(hints),
            "action": np.zeros(0, np.int64) if empty else np.concatenate(actions_taken),
            "log_prob": np.zeros(0, np.float32) if empty else np.concatenate(log_probs),
            "value": np.zeros(0, np.float32) if empty else np.concatenate([values[t, r] for t, r, _ in learner_rows]),
            "advantage": np.zeros(0, np.float32) if empty else np.concatenate(advantages).astype(np.float32),
            "games": games,
            "env_steps": steps * num_envs,
        }

    def collect_with(self, weights: dict[str, torch.Tensor]) -> dict[str, Any]:
        """``collect`` with the learner's current weights (one round trip per iteration)."""
        self.set_weights(weights)
        return self.collect()

    def snapshot_with(self, weights: dict[str, torch.Tensor], iteration: int) -> None:
        self.set_weights(weights)
        self.snapshot(iteration)

    def state(self) -> dict[str, Any]:
        return {
            "generator": self.generator.get_state(),
            "league": [member.net.state_dict() for member in self.league],
            "league_players": [member.state() for member in self.league],
            "league_iterations": list(self.league_iterations),
            "fixed_players": [player.state() for player in self.fixed],
            "hints": self.hints.state(),
            "owners": torch.from_numpy(self.owners.copy()),
            "env": {name: torch.from_numpy(array) for name, array in self.env.state_dict().items()},
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.generator.set_state(state["generator"])
        self.league, self.league_iterations = [], []
        for weights, player_state, iteration in zip(state["league"], state["league_players"],
                                                    state["league_iterations"]):
            frozen = PolicyValueNet(**self.net.architecture())
            frozen.load_state_dict(weights)
            frozen.eval()
            member = NetPlayer(frozen, name=f"it{iteration}", env=self.env)
            member.load_state(player_state)
            self.league.append(member)
            self.league_iterations.append(int(iteration))
        for player, player_state in zip(self.fixed, state["fixed_players"]):
            player.load_state(player_state)
        self.hints.load_state(state.get("hints", {}))
        self.owners[:] = state["owners"].numpy()
        self.env.load_state_dict({name: tensor.numpy() for name, tensor in state["env"].items()})


class _LocalActors:
    """Collectors in this process (the default backend)."""

    def __init__(self, collectors: list[Collector]):
        self.collectors = collectors

    def call(self, method: str, *args) -> list[Any]:
        return [getattr(c, method)(*args) for c in self.collectors]

    def call_one(self, k: int, method: str, *args) -> Any:
        return getattr(self.collectors[k], method)(*args)

    def close(self) -> None:
        pass


class PPOTrainer:
    """One PPO run on one game, writing checkpoints and its log to ``out``.

    A folder that already holds checkpoints is resumed from its latest one (its
    hyperparameters, seed and number of actors win; a game other than the
    checkpoint's is an error). ``backend="ray"`` runs ``actors`` collectors as Ray
    actors (self-play spread over a cluster) and learns here; ``close()`` (or a
    ``with`` block) ends them.
    """

    algorithm = "ppo"
    config_class = PPOConfig  # what its checkpoints' hyperparameters are read back as

    def __init__(self, game, out: str | Path, config: PPOConfig | None = None, seed: int = 0,
                 progress: bool = True, backend: str = "local", actors: int = 1, device: str = "cpu"):
        self.game = load_game(game) if isinstance(game, str) else game
        self.out = Path(out)
        self.progress = progress
        existing = checkpoint.checkpoints(self.out)
        saved = checkpoint.load(existing[-1], game=self.game, algorithm=self.algorithm) if existing else None
        if saved is not None:
            config = self.config_class.from_dict(saved["config"])
            seed = int(saved["seed"])
            actors = len(saved["trainer"]["collectors"])
        self.config = config = config or self.config_class()
        self.seed = int(seed)
        actors = int(actors)
        if actors < 1 or config.num_envs % actors:
            raise ValueError(f"actors must divide num_envs={config.num_envs}, got {actors}")
        self.device = _check_device(device, config, backend, actors)
        self.torch_device = "cpu"
        if self.device == "cuda":
            from .cuda import torch_device

            self.torch_device = torch_device()
        torch.set_num_threads(config.threads)
        # On a shared machine a parallel region waits for its slowest thread: one numba
        # thread stepped small batches 5x faster than two on 2 busy cores.
        numba.set_num_threads(min(config.threads, numba.config.NUMBA_NUM_THREADS))
        torch.manual_seed(self.seed)
        gc = self.game.config
        self.num_players = gc.num_players
        if config.hint == "rules" and self.game.kernel.heuristic is None:
            raise ValueError(f"PPOConfig.hint='rules': the game {self.game.kernel.short_name!r} has no rule-based "
                             f"heuristic")
        if config.imitate and saved is None:  # a bad teacher fails here, before the run writes anything
            imitation.teacher_players(self.game, VecEnv(self.game.kernel, gc, 1), config.imitate,
                                      config.imitation_opponent, config.imitation_visits)
        self.net = PolicyValueNet(gc.info_size, gc.num_actions, self.num_players, config.hidden,
                                  config.hint).to(self.torch_device)
        if config.init and saved is None:  # a resumed run holds its own weights
            start = PolicyValueNet.from_network(initial_network(self.game, config))
            self.net.load_state_dict(start.state_dict())
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr, eps=1e-5)
        self.generator = torch.Generator().manual_seed(self.seed)
        self.iteration = 0
        self.env_steps = 0
        self.log: list[dict[str, float]] = []
        # One actor's seed is the run's seed, so the local backend plays as documented.
        seeds = [self.seed if k == 0 else self.seed + 104729 * k for k in range(actors)]
        args = [(str(self.game), config.to_dict(), s, config.num_envs // actors) for s in seeds]
        if self.device == "cuda":
            from .cuda import CudaCollector

            self.actors = _LocalActors([CudaCollector(game, config, seed, envs) for game, _, seed, envs in args])
        elif backend == "ray":
            from .distributed import RayActors

            self.actors = RayActors(Collector, args)
        elif backend == "local":
            self.actors = _LocalActors([Collector(*a) for a in args])
        else:
            raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
        if saved is not None:
            self._restore(saved)
            checkpoint.export_network(existing[-1], self.network())
        else:
            self.actors.call("start", self.net.state_dict())

    def close(self) -> None:
        """Ends the Ray actors of ``backend="ray"`` (nothing to do for the local backend)."""
        self.actors.close()

    def __enter__(self) -> PPOTrainer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def collector(self) -> Collector:
        """The (first) local collector: its env, league and players."""
        return self.actors.collectors[0]

    def _update(self, batch) -> dict[str, float]:
        cfg, net = self.config, self.net
        n = len(batch["action"])
        if n == 0:
            return {}
        # The collectors' arrays, or tensors already on the device (selfplay.cuda): no copy.
        info = torch.as_tensor(batch["info"])
        mask = torch.as_tensor(batch["mask"])
        hint = torch.as_tensor(batch["hint"]) if net.hint else None
        action = torch.as_tensor(batch["action"])
        old_log_prob = torch.as_tensor(batch["log_prob"])
        advantage = torch.as_tensor(batch["advantage"])
        target = advantage + torch.as_tensor(batch["value"])
        size = max(1, n // cfg.minibatches)
        stats = {"policy_loss": [], "value_loss": [], "entropy": [], "approx_kl": [], "clip_fraction": []}
        regulariser = self._regulariser(info, mask, hint)
        for _ in range(cfg.epochs):
            order = torch.randperm(n, generator=self.generator).to(info.device)
            for start in range(0, n, size):
                idx = order[start : start + size]
                logits, value = net(info[idx], None if hint is None else hint[idx])
                log_probs = masked_log_probs(logits, mask[idx])
                new_log_prob = log_probs.gather(1, action[idx, None]).squeeze(1)
                ratio = torch.exp(new_log_prob - old_log_prob[idx])
                adv = advantage[idx]
                if len(idx) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * adv).mean()
                value_loss = 0.5 * ((value[:, 0] - target[idx]) ** 2).mean()
                entropy = masked_entropy(logits, mask[idx]).mean()
                loss = policy_loss + cfg.value_coef * value_loss - cfg.entropy_coef * entropy
                if regulariser is not None:
                    penalty, terms = regulariser(log_probs, idx)
                    loss = loss + penalty
                    for key, term in terms.items():
                        stats.setdefault(key, []).append(term)
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    log_ratio = new_log_prob - old_log_prob[idx]
                    stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                    stats["clip_fraction"].append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
                stats["policy_loss"].append(float(policy_loss.detach()))
                stats["value_loss"].append(float(value_loss.detach()))
                stats["entropy"].append(float(entropy.detach()))
        return {key: float(np.mean(values)) for key, values in stats.items()}

    def _regulariser(self, info: torch.Tensor, mask: torch.Tensor, hint: torch.Tensor | None):
        """A penalty added to the loss of every minibatch of this update (PPO: none).

        A learner built on PPO (``selfplay.mmd``) returns ``penalty(log_probs, idx)``,
        called with the masked log-policy of the minibatch's rows ``idx`` of the batch;
        it gives the penalty (a scalar tensor) and the floats to log, by name. It is
        set up once per update, before the first gradient step, so it may hold what the
        policy that played the batch gives at its states.
        """
        return None

    def step(self) -> dict[str, float]:
        """One iteration: self-play, learning, a league snapshot and an evaluation when due; returns its log row."""
        cfg = self.config
        start = time.perf_counter()
        batches = self.actors.call("collect_with", self.net.state_dict())
        join = torch.cat if self.device == "cuda" else np.concatenate
        batch = {key: join([b[key] for b in batches]) for key in batches[0] if key not in ("games", "env_steps")}
        self.env_steps += sum(b["env_steps"] for b in batches)
        self.net.train()
        stats = self._update(batch)
        self.iteration += 1
        if self.iteration % cfg.snapshot_every == 0:
            self.actors.call("snapshot_with", self.net.state_dict(), self.iteration)
        row = {"iteration": self.iteration, "env_steps": self.env_steps,
               "games": sum(b["games"] for b in batches), "transitions": len(batch["action"]),
               "seconds": time.perf_counter() - start, **stats}
        if cfg.eval_every and self.iteration % cfg.eval_every == 0:
            row.update(self.evaluate())
        self.log.append(row)
        return row

    def _imitate(self) -> dict[str, float]:
        """Behaviour cloning of ``imitate`` before PPO (``imitation``), so that the first
        PPO advantages measure the imitated policy rather than a random value head's noise."""
        cfg = self.config
        games = imitation.collect(self.game, cfg.imitate, cfg.num_envs, cfg.imitation_steps, self.seed + 3, cfg.hint,
                                  cfg.imitation_opponent, cfg.imitation_workers, cfg.imitation_visits)
        loss, value_loss = imitation.clone(self.net, self.optimizer, games, cfg.imitation_epochs, cfg.imitation_batch,
                                           cfg.imitation_lr or cfg.lr, self.generator, cfg.value_coef,
                                           cfg.max_grad_norm)
        self.actors.call("snapshot_with", self.net.state_dict(), 0)
        row = {"iteration": 0, "env_steps": 0, "imitation_steps": len(games.action), "imitation_loss": loss,
               "imitation_value_loss": value_loss}
        if cfg.eval_every:
            row.update(self.evaluate())
        return row

    def evaluate(self) -> dict[str, float]:
        """Scores of the current policy against ``eval_opponents`` (fixed seeds: comparable over time)."""
        row = {}
        self.net.eval()
        net = self.net if self.device == "cpu" else copy.deepcopy(self.net).cpu()  # games are played on the CPU
        for k, spec in enumerate(self.config.eval_opponents):
            if spec == "rules" and self.game.kernel.heuristic is None:
                continue
            score, low, high = evaluate(net, self.game, spec, self.config.eval_games, self.seed + 100 + k)
            row[f"score_{spec}"], row[f"score_{spec}_low"], row[f"score_{spec}_high"] = score, low, high
        self.net.train()
        return row

    def train(self, steps: int) -> dict[str, float]:
        """Trains until ``steps`` env steps in all (a resumed run counts its earlier ones);
        returns the last log row."""
        steps = int(steps)
        cfg = self.config
        per_iteration = cfg.num_envs * cfg.rollout_steps
        bar = progress_bar(total=steps, initial=min(self.env_steps, steps), unit="step", disable=not self.progress,
                           desc=f"{self.algorithm} {self.game.kernel.short_name}")
        row: dict[str, float] = self.log[-1] if self.log else {}
        saved_at = self.iteration
        if cfg.imitate and self.iteration == 0 and not self.log:
            self.log.append(self._imitate())
        while self.env_steps < steps:
            row = self.step()
            bar.update(per_iteration)
            scores = {k[6:]: f"{v:.2f}" for k, v in row.items() if k.startswith("score_") and k.count("_") == 1}
            bar.set_postfix(entropy=f"{row.get('entropy', 0):.2f}", **scores)
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
            "model": {name: tensor.cpu() for name, tensor in self.net.state_dict().items()},
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "trainer": {
                "optimizer": self.optimizer.state_dict(),
                "generator": self.generator.get_state(),
                "collectors": self.actors.call("state"),
                "log": self.log,
            },
        }

    def network_meta(self) -> dict[str, Any]:
        """What the network file says of the run that wrote it."""
        return {"game": str(self.game), "algorithm": self.algorithm,
                "iteration": self.iteration, "env_steps": self.env_steps}

    def network(self):
        """The policy as it is now, as the numpy network file the ``ppo`` bot plays."""
        return self.net.to_network(self.network_meta())

    def save(self) -> Path:
        """Writes a checkpoint of the whole run (and the log) with its network file beside it;
        keeps the latest ``keep_checkpoints``."""
        path = checkpoint.save_keeping(self.payload(), self.out, self.config.keep_checkpoints, self.network())
        write_log(self.log, self.out)
        return path

    def _restore(self, saved: dict[str, Any]) -> None:
        try:
            state = saved["trainer"]
            self.net.load_state_dict(saved["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.generator.set_state(state["generator"])
            self.iteration = int(saved["iteration"])
            self.env_steps = int(saved["env_steps"])
            for k, collector_state in enumerate(state["collectors"]):
                self.actors.call_one(k, "load_state", collector_state)
            self.log = list(state["log"])
        except (KeyError, RuntimeError, ValueError, TypeError) as error:
            raise checkpoint.CheckpointError(
                f"{saved['path']} cannot resume this run ({type(error).__name__}: {error})"
            ) from None


DEVICES = ("cpu", "cuda")


def _check_device(device: str, config: PPOConfig, backend: str, actors: int) -> str:
    """``device``, once it is known to run ``config`` (``ValueError`` in one line when not)."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "cuda":
        from ..core import cuda
        from .cuda import unsupported

        if backend != "local" or actors != 1:
            raise ValueError("device 'cuda' runs one local collector: no --backend ray")
        if unsupported(config):
            raise ValueError(f"device 'cuda' plays against the league alone: {unsupported(config)} needs device 'cpu'")
        cuda.require()
        if not cuda.simulated() and not torch.cuda.is_available():
            raise ValueError("device 'cuda': this torch has no CUDA (torch.cuda.is_available() is False)")
    return device


def write_log(log: list[dict[str, float]], out: Path, plot: Callable[[pd.DataFrame, Path], None] | None = None) -> None:
    """``log.csv`` and ``log.png`` (drawn by ``plot``, default ``plot_log``): losses,
    entropy and scores against the reference bots."""
    if not log:
        return
    table = pd.DataFrame(log)
    write_csv(table, out / "log.csv")
    (plot or plot_log)(table, out / "log.png")


def plot_scores(ax, table: pd.DataFrame, title: str = "score (95% Wilson interval)") -> None:
    """The logged scores against the reference bots (``score_NAME`` with its interval) on ``ax``."""
    x = table["env_steps"]
    for key in table.columns:
        if key.startswith("score_") and key.count("_") == 1:
            rows = table[key].notna()
            ax.plot(x[rows], table.loc[rows, key], marker="o", label=f"vs {key[6:]}")
            ax.fill_between(x[rows], table.loc[rows, f"{key}_low"], table.loc[rows, f"{key}_high"], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()


def save_figure(fig, axes, path: Path) -> None:
    """Labels the step axes, then writes ``fig`` to ``path`` whole and closes it."""
    import matplotlib.pyplot as plt

    for ax in axes:
        ax.set_xlabel("env steps")
    fig.tight_layout()
    with atomic_write(path) as handle:
        fig.savefig(handle, format="png", dpi=90)
    plt.close(fig)


def plot_log(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    x = table["env_steps"]
    for key in ("policy_loss", "value_loss"):
        if key in table:
            axes[0].plot(x, table[key], label=key)
    axes[0].set_title("losses")
    if axes[0].get_legend_handles_labels()[0]:
        axes[0].legend()
    if "entropy" in table:
        axes[1].plot(x, table["entropy"])
    axes[1].set_title("policy entropy (legal actions)")
    plot_scores(axes[2], table)
    save_figure(fig, axes, path)
