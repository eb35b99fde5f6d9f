"""Magnetic mirror descent (MMD): self-play PPO that approaches a Nash equilibrium.

Sokota et al., "A Unified Approach to Reinforcement Learning, Quantal Response Equilibria,
and Two-Player Zero-Sum Games" (ICLR 2023; arXiv 2206.05825) show that one mirror-descent step with a magnet,

    pi_{t+1}(h) = argmax_pi  E_{a~pi}[q_t(h, a)] - alpha * KL(pi || magnet) - (1/eta) * KL(pi || pi_t),

taken at every information state ``h`` in self-play, converges in the last iterate to
the regularised (quantal response) equilibrium of a two-player zero-sum game, and with
``alpha`` and ``eta`` annealed to a Nash equilibrium. Its deep form (the paper's
appendix J) is PPO whose adaptive forward-KL penalty becomes a reverse KL to the
policy that played the batch, plus the magnet term: that is ``MMDTrainer``, a
``PPOTrainer`` (same collection, advantages, clipping, checkpoints, log and network
file) whose loss adds

    alpha_t * KL(pi || magnet) + kl_coef_t * KL(pi || pi_t)

over the legal actions of each state of the batch. The magnet is uniform over the legal
actions, so the first term is ``alpha_t`` times the negative entropy, up to a constant.
The paper anneals both with the steps ``t`` taken so far,
``alpha_t = eta_t = 0.05 * sqrt(10M / t)``: here ``alpha_t = alpha * sqrt(anneal_steps / t)``
and ``kl_coef_t = kl_coef * sqrt(t / anneal_steps)`` (``kl_coef`` = 1/eta at
``anneal_steps``; ``anneal_steps=0``: both constant). A run may end colder: the
batches collected from ``cool_steps`` on learn with the magnet's weight at
``cool_alpha`` and the learning rate at ``cool_lr``, so that the last iterate settles
nearer the equilibrium than the warmer regularised one. Self-play is pure: the learner
holds every seat (``self_play=1``, no fixed bots) and learns from both sides. Its last
policy is the agent, or, from ``average_from`` steps on, the running mean of its
weights after each update (Polyak averaging, as stochastic weight averaging does:
Izmailov et al., UAI 2018): a cooled learner wanders about a less exploitable policy,
and the mean of its weights lands nearer it than the iterates do. The learner goes on
from its own weights; only the network file (what the ``mmd`` bot plays) is the mean.
With ``alpha=0`` and ``kl_coef=0`` it is PPO, step for step.

With a fixed magnet the last iterate approaches the regularised equilibrium, not the
Nash equilibrium: the uniform magnet pulls every policy towards uniform play by
``alpha``. ``magnet_every`` moves the magnet instead: it starts uniform, and each time
the run passes a multiple of ``magnet_every`` env steps it becomes a frozen copy of
the learner's policy. That is R-NaD's regularisation (Perolat et al., "Mastering the
game of Stratego with model-free multiagent reinforcement learning", Science 2022):
each phase approaches the equilibrium regularised towards the previous phase's
policy, and the sequence of those fixed points approaches a Nash equilibrium (the
proximal-point iteration), with ``alpha`` kept where the hot learner is stable.

The defaults are the paper's schedule (``alpha=0.05``, ``kl_coef=20``, ``anneal_steps``
10M); the rest is PPO's defaults here rather than RLlib's (learning rate 3e-4, not
5e-5; advantages standardised per minibatch, as both do). On the small variant of
``elements`` the recipe ``mmd-elements-small`` anneals faster to a larger temperature
(``alpha=0.2`` at 2M steps), tuned on two seeds: its exact exploitability against steps,
beside PPO's, is ``experiments/mmd_curve.py``'s.

Its checkpoints are PPO's (``algorithm: mmd``), with the numpy network file beside
each, which the ``mmd`` bot plays without torch (``mmd:ckpt=FOLDER``).

>>> import tempfile, elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
>>> config = MMDConfig(num_envs=16, rollout_steps=8, hidden=(32,), eval_every=0)
>>> trainer = MMDTrainer(game, tempfile.mkdtemp(), config, seed=0, progress=False)
>>> row = trainer.train(steps=256)
>>> trainer.env_steps, row["alpha"] > config.alpha, 0 < row["kl_coef"] < config.kl_coef
(256, True, True)
"""

from __future__ import annotations

import copy
import dataclasses
import math

import torch

from ..agents.network import Network
from .net import PolicyValueNet, masked_log_probs
from .ppo import PPOConfig, PPOTrainer

__all__ = ["MMDConfig", "MMDTrainer", "averaged", "cooled", "learning_rate", "magnet_kl", "penalty", "schedule"]


@dataclasses.dataclass
class MMDConfig(PPOConfig):
    """Hyperparameters of an MMD run: PPO's, with the magnet and the mirror-descent step."""

    alpha: float = 0.05  # magnet temperature at ``anneal_steps`` (the paper: 0.05 at 10M steps)
    kl_coef: float = 20.0  # 1/eta, reverse KL to the policy that played the batch, at ``anneal_steps``
    anneal_steps: int = 10_000_000  # alpha and 1/eta scale by sqrt(anneal_steps / t), sqrt(t / anneal_steps)
    entropy_coef: float = 0.0  # the magnet is the entropy bonus
    self_play: float = 1.0  # the learner holds every seat
    lr: float = 3e-4
    cool_steps: int = 0  # batches collected from this many env steps on learn at cool_alpha, cool_lr (0: never)
    cool_alpha: float = 0.0
    cool_lr: float = 0.0
    average_from: int = 0  # batches collected from this many env steps on enter the agent's mean weights (0: never)
    magnet_every: int = 0  # env steps between moves of the magnet to the learner's policy (0: uniform, fixed)

    def __post_init__(self):
        super().__post_init__()
        for name in ("alpha", "kl_coef"):
            value = float(getattr(self, name))
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"MMDConfig.{name} must be a finite number >= 0, got {getattr(self, name)!r}")
        if int(self.anneal_steps) < 0:
            raise ValueError(f"MMDConfig.anneal_steps must be >= 0 (0: constant alpha and kl_coef), "
                             f"got {self.anneal_steps!r}")
        if int(self.average_from) < 0:
            raise ValueError(f"MMDConfig.average_from must be >= 0 (0: the agent is the last iterate), "
                             f"got {self.average_from!r}")
        if int(self.magnet_every) < 0:
            raise ValueError(f"MMDConfig.magnet_every must be >= 0 (0: the uniform magnet), got {self.magnet_every!r}")
        if int(self.cool_steps) < 0:
            raise ValueError(f"MMDConfig.cool_steps must be >= 0 (0: no cooling), got {self.cool_steps!r}")
        cool_alpha = float(self.cool_alpha)
        if not math.isfinite(cool_alpha) or cool_alpha < 0:
            raise ValueError(f"MMDConfig.cool_alpha must be a finite number >= 0, got {self.cool_alpha!r}")
        if self.cool_steps and not float(self.cool_lr) > 0:
            raise ValueError(f"MMDConfig.cool_lr must be positive when cool_steps is set, got {self.cool_lr!r}")


def cooled(config: MMDConfig, batch_start: int) -> bool:
    """Whether the update of a batch whose collection began after ``batch_start`` env steps is cooled.

    Counting from the batch's first step, a run cooled from ``cool_steps`` matches the
    uncooled run up to its checkpoint at ``cool_steps`` (or the last one before it), so
    a run can be cooled by resuming that checkpoint with the cooling set.
    """
    return bool(config.cool_steps) and int(batch_start) >= config.cool_steps


def averaged(config: MMDConfig, batch_start: int) -> bool:
    """Whether the weights after the update of a batch begun after ``batch_start`` env steps
    enter the agent's mean (counted as ``cooled`` counts, so a resumed run averages as a
    straight one).

    >>> averaged(MMDConfig(average_from=1_000), 999), averaged(MMDConfig(average_from=1_000), 1_000)
    (False, True)
    """
    return bool(config.average_from) and int(batch_start) >= config.average_from


def learning_rate(config: MMDConfig, batch_start: int) -> float:
    """The learning rate of the update of a batch begun after ``batch_start`` env steps: ``lr``, or ``cool_lr``.

    >>> learning_rate(MMDConfig(lr=3e-4, cool_steps=1_000, cool_alpha=0.05, cool_lr=3e-5), 1_000)
    3e-05
    """
    if cooled(config, batch_start):
        return float(config.cool_lr)
    return float(config.lr)


def schedule(config: MMDConfig, steps: int, batch_start: int | None = None) -> tuple[float, float]:
    """``(alpha_t, kl_coef_t)`` after ``steps`` env steps: the paper's 1/sqrt(t) annealing,
    with ``alpha_t = cool_alpha`` where the batch, begun after ``batch_start`` steps
    (default ``steps``), is cooled.

    >>> schedule(MMDConfig(alpha=0.05, kl_coef=20.0, anneal_steps=10_000), 2_500)
    (0.1, 10.0)
    """
    if not config.anneal_steps:
        alpha, kl_coef = float(config.alpha), float(config.kl_coef)
    else:
        ratio = math.sqrt(config.anneal_steps / max(int(steps), 1))
        alpha, kl_coef = float(config.alpha) * ratio, float(config.kl_coef) / ratio
    if cooled(config, steps if batch_start is None else batch_start):
        alpha = float(config.cool_alpha)
    return alpha, kl_coef


def magnet_kl(log_probs: torch.Tensor, magnet_log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``KL(pi || magnet)`` per row, over the legal actions (both log-policies masked).

    >>> import torch
    >>> mask = torch.tensor([[True, True, False]])
    >>> uniform = torch.log(torch.tensor([[0.5, 0.5, 0.0]]))
    >>> float(magnet_kl(uniform, uniform, mask)[0])
    0.0
    """
    # Zeroed before the product: an illegal action's 0 * -inf would make the gradient NaN.
    log_p = log_probs.masked_fill(~mask, 0.0)
    log_q = magnet_log_probs.masked_fill(~mask, 0.0)
    return (log_p.exp() * (log_p - log_q)).sum(-1)


class MMDTrainer(PPOTrainer):
    """One MMD run on one two-player zero-sum game, writing checkpoints and its log to ``out``.

    As ``PPOTrainer`` (resume, seeds, backends); each update's loss adds the magnet
    and mirror-descent penalties, and the log gains ``alpha``, ``kl_coef``,
    ``magnet_kl`` (mean KL to the magnet) and ``step_kl`` (to the batch's policy),
    ``magnet_moves`` with ``magnet_every``, and ``averaged`` (how many updates the
    agent's mean holds) once it averages. Its checkpoints hold the learner's weights,
    the mean and the moved magnet; the network
    file beside each is the mean once there is one. Scores logged during training
    (``eval_every``) are the learner's.
    """

    algorithm = "mmd"
    config_class = MMDConfig

    def __init__(self, game, out, config: MMDConfig | None = None, seed: int = 0, progress: bool = True,
                 backend: str = "local", actors: int = 1, device: str = "cpu"):
        if config is not None and not isinstance(config, MMDConfig):
            raise TypeError(f"MMDTrainer takes an MMDConfig, got {type(config).__name__}")
        self.mean_weights: dict[str, torch.Tensor] = {}  # the agent's, from average_from on
        self.averaged = 0  # updates in the mean
        self.magnet: PolicyValueNet | None = None  # None: the uniform magnet
        self.magnet_moves = 0  # times the magnet has moved to the learner's policy
        super().__init__(game, out, config, seed, progress, backend, actors, device)

    def _move_magnet(self) -> None:
        """The magnet becomes the learner's policy as it is now (weights copied, frozen)."""
        if self.magnet is None:
            self.magnet = copy.deepcopy(self.net).requires_grad_(False)
        else:
            self.magnet.load_state_dict(self.net.state_dict())
        self.magnet_moves += 1

    def step(self) -> dict[str, float]:
        every = int(self.config.magnet_every)
        # Counted from the batch's first step, as ``cooled`` counts, so a resumed run moves it as a straight one.
        if every and self.env_steps // every > self.magnet_moves:
            self._move_magnet()
        self._batch_start = self.env_steps
        row = super().step()
        if averaged(self.config, self._batch_start):
            self._add_to_mean()
            row["averaged"] = self.averaged
        if every:
            row["magnet_moves"] = self.magnet_moves
        return row

    def _add_to_mean(self) -> None:
        self.averaged += 1
        with torch.no_grad():
            for name, weights in self.net.state_dict().items():
                if name not in self.mean_weights:
                    self.mean_weights[name] = weights.detach().clone()
                else:  # a running mean: no sum of thousands of weight sets to hold or overflow precision
                    self.mean_weights[name] += (weights - self.mean_weights[name]) / self.averaged

    def network(self):
        """The agent: the mean of the learner's weights once it averages, else its last ones."""
        if not self.averaged:
            return super().network()
        meta = {**self.network_meta(), "averaged": self.averaged, "average_from": int(self.config.average_from)}
        return Network.from_state_dict(self.mean_weights, meta, hint=self.net.hint)

    def payload(self) -> dict:
        payload = super().payload()
        if self.averaged:
            payload["average"] = {"count": self.averaged,
                                  "weights": {name: tensor.cpu() for name, tensor in self.mean_weights.items()}}
        if self.magnet is not None:
            payload["magnet"] = {"moves": self.magnet_moves,
                                 "weights": {name: tensor.cpu() for name, tensor in self.magnet.state_dict().items()}}
        return payload

    def _restore(self, saved: dict) -> None:
        super()._restore(saved)
        average = saved.get("average")
        if average:
            self.averaged = int(average["count"])
            self.mean_weights = {name: tensor.to(self.torch_device) for name, tensor in average["weights"].items()}
        magnet = saved.get("magnet")
        if magnet:
            self.magnet = copy.deepcopy(self.net).requires_grad_(False)
            self.magnet.load_state_dict(magnet["weights"])
            self.magnet_moves = int(magnet["moves"])

    def _regulariser(self, info: torch.Tensor, mask: torch.Tensor, hint: torch.Tensor | None):
        batch_start = getattr(self, "_batch_start", self.env_steps)
        alpha, kl_coef = schedule(self.config, self.env_steps, batch_start)
        lr = learning_rate(self.config, batch_start)
        for group in self.optimizer.param_groups:  # set at every update, so a resumed run cools as one would
            group["lr"] = lr
        if alpha == 0 and kl_coef == 0:
            return None  # PPO exactly: no extra forward pass, no extra term
        with torch.no_grad():  # the policy that played the batch: the weights before this update
            played = masked_log_probs(self.net(info, hint)[0], mask)
            magnet = None if self.magnet is None else masked_log_probs(self.magnet(info, hint)[0], mask)

        def regulariser(log_probs: torch.Tensor, idx: torch.Tensor):
            loss, to_magnet, to_played = penalty(log_probs, played[idx], mask[idx], alpha, kl_coef,
                                                 None if magnet is None else magnet[idx])
            return loss, {"alpha": alpha, "kl_coef": kl_coef, "lr": lr, "magnet_kl": to_magnet, "step_kl": to_played}

        return regulariser


def penalty(log_probs: torch.Tensor, played_log_probs: torch.Tensor, mask: torch.Tensor, alpha: float,
            kl_coef: float, magnet_log_probs: torch.Tensor | None = None) -> tuple[torch.Tensor, float, float]:
    """MMD's addition to the policy loss of a batch of states: ``alpha * KL(pi || magnet)
    + kl_coef * KL(pi || played)``, means over the rows, with both KLs (floats) to log.
    The magnet is ``magnet_log_probs`` (masked, no gradient), or uniform when None.

    ``log_probs`` is the masked log-policy being learnt, ``played_log_probs`` the one that
    played the batch (no gradient), ``mask`` the legal actions. Added to ``-E_pi[q]``, its
    minimum over ``pi`` is the closed-form MMD step
    ``pi ∝ (played^kl_coef * exp(q))^(1 / (alpha + kl_coef))`` (uniform magnet).

    >>> import torch
    >>> mask = torch.tensor([[True, True, False]])
    >>> uniform = torch.log(torch.tensor([[0.5, 0.5, 0.0]]))
    >>> penalty(uniform, uniform, mask, alpha=0.1, kl_coef=1.0)[0].item()
    0.0
    """
    if magnet_log_probs is None:
        legal = mask.sum(-1, keepdim=True).clamp(min=1).to(log_probs.dtype)
        magnet_log_probs = (-torch.log(legal)).expand_as(log_probs)
    to_magnet = magnet_kl(log_probs, magnet_log_probs, mask).mean()
    to_played = magnet_kl(log_probs, played_log_probs, mask).mean()
    return alpha * to_magnet + kl_coef * to_played, float(to_magnet.detach()), float(to_played.detach())
