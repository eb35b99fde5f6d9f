"""PPO's self-play on the GPU (``PPOTrainer(..., device="cuda")``, ``elements-ai train --device cuda``).

The games run on the GPU face (``core.vec_cuda``) and the networks on the same GPU:
information states, masks and returns reach torch in place, actions go back the same
way, and the learner's transitions and advantages stay there. Nothing is copied to
the host during an iteration but a few counts.

It plays as ``ppo.Collector`` does, the learner in every seat with probability
``self_play``, else in one seat against a frozen past policy of the league, with two
differences: the league is all there is (no fixed bots, no hint), and the draws come
from torch's CUDA generator, so a GPU run is its own (reproducible on one GPU, not
the CPU run's games).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .. import load_game
from ..core import cuda as gpu
from ..core.vec_cuda import CudaVecEnv
from .net import PolicyValueNet, masked_log_probs, value_bound
from .players import choose

LEARNER = -1


def torch_device() -> str:
    """Where torch works beside the GPU face: the GPU, or the CPU under numba's CUDA
    simulator (whose device arrays live on the host; the tests run it so)."""
    return "cpu" if gpu.simulated() else "cuda"


def tensor(array) -> torch.Tensor:
    """A GPU face's device array as a torch tensor, without a copy on a GPU."""
    if gpu.simulated():
        return torch.from_numpy(array.copy_to_host())
    return torch.as_tensor(array, device="cuda")


def unsupported(config) -> str:
    """What of ``config`` (a ``PPOConfig``) the GPU collector does not play ("" : nothing)."""
    if config.opponents:
        return f"opponents={'_'.join(config.opponents)} (fixed bots move on the CPU)"
    if config.hint:
        return f"hint={config.hint} (the heuristic runs on the CPU)"
    if config.imitate:
        return f"imitate={config.imitate}"
    return ""


class CudaCollector:
    """``ppo.Collector``'s interface, its games and networks on the GPU."""

    def __init__(self, game_string: str, config, seed: int, num_envs: int):
        # ``config``: the run's ``PPOConfig`` (this module sits below ppo.py, which makes it).
        self.game = load_game(game_string)
        self.config = cfg = config
        gc = self.game.config
        self.seed = int(seed)
        self.num_envs = int(num_envs)
        self.num_players = gc.num_players
        self.scale = value_bound(gc)
        self.device = torch_device()
        self.env = CudaVecEnv(self.game.kernel, gc, self.num_envs, seed=self.seed)
        self.net = PolicyValueNet(gc.info_size, gc.num_actions, gc.num_players, cfg.hidden).to(self.device).eval()
        self.generator = torch.Generator(device=self.device).manual_seed(self.seed)
        self.league: list[PolicyValueNet] = []
        self.league_iterations: list[int] = []
        self.owners = torch.full((self.num_envs, self.num_players), LEARNER, dtype=torch.int64, device=self.device)

    def start(self, weights: dict[str, torch.Tensor]) -> None:
        self.set_weights(weights)
        self.snapshot(0)
        self._draw_owners(torch.ones(self.num_envs, dtype=torch.bool, device=self.device))

    def set_weights(self, weights: dict[str, torch.Tensor]) -> None:
        self.net.load_state_dict(weights)

    def snapshot(self, iteration: int) -> None:
        frozen = PolicyValueNet(**self.net.architecture()).to(self.device).eval()
        frozen.load_state_dict(self.net.state_dict())
        self.league.append(frozen)
        self.league_iterations.append(int(iteration))
        if len(self.league) > self.config.league_size:
            self.league.pop(0)
            self.league_iterations.pop(0)

    def _draw_owners(self, rows: torch.Tensor) -> None:
        """New seat owners where ``rows`` (B,) bool is set: drawn for every env, kept where it is."""
        n, players = self.num_envs, self.num_players
        if players == 1:
            return
        draws = torch.rand(n, 2, generator=self.generator, device=self.device)
        seats = torch.randint(players, (n,), generator=self.generator, device=self.device)
        league = len(self.league)
        opponent = (draws[:, 1] * league).long().clamp(max=league - 1)
        owners = opponent[:, None].expand(n, players).clone()
        owners[torch.arange(n, device=self.device), seats] = LEARNER
        owners[draws[:, 0] < self.config.self_play] = LEARNER
        self.owners = torch.where(rows[:, None], owners, self.owners)

    @torch.no_grad()
    def collect(self) -> dict[str, Any]:
        env, cfg, net = self.env, self.config, self.net
        steps, n, players = cfg.rollout_steps, self.num_envs, self.num_players
        gc = self.game.config
        every = torch.arange(n, device=self.device)
        infos = torch.empty((steps, n, gc.info_size), device=self.device)
        masks = torch.empty((steps, n, gc.num_actions), dtype=torch.bool, device=self.device)
        actions_taken = torch.empty((steps, n), dtype=torch.int64, device=self.device)
        log_probs = torch.empty((steps, n), device=self.device)
        values = torch.empty((steps, n), device=self.device)
        learner = torch.empty((steps, n), dtype=torch.bool, device=self.device)
        movers = torch.empty((steps, n), dtype=torch.int64, device=self.device)
        done = torch.empty((steps, n), dtype=torch.bool, device=self.device)
        final = torch.empty((steps, n, players), device=self.device)
        for t in range(steps):
            mover = tensor(env.current_player).clamp(min=0)  # every env has a player to move
            owner = self.owners[every, mover]
            info = tensor(env.information_state())
            mask = tensor(env.legal_mask)
            logits, value = net(info)
            actions = choose(logits, mask, False, self.generator)
            log_probs[t] = masked_log_probs(logits, mask).gather(1, actions[:, None]).squeeze(1)
            for k, member in enumerate(self.league):
                theirs = choose(member(info)[0], mask, False, self.generator)
                actions = torch.where(owner == k, theirs, actions)
            infos[t], masks[t], actions_taken[t], values[t] = info, mask, actions, value[:, 0]
            learner[t], movers[t] = owner == LEARNER, mover
            env.step(actions)
            finished = tensor(env.terminated)
            done[t] = finished
            final[t] = tensor(env.returns).float() / self.scale
            env.reset(finished.clone())
            self._draw_owners(done[t])

        # Each learner seat still in a game is valued from its own information state.
        next_value = torch.zeros((n, players), device=self.device)
        for p in range(players):
            _, value = net(tensor(env.information_state(p)))
            next_value[:, p] = torch.where(self.owners[:, p] == LEARNER, value[:, 0], 0.0)
        next_adv = torch.zeros((n, players), device=self.device)
        pending = torch.zeros((n, players), device=self.device)
        advantages = torch.zeros((steps, n), device=self.device)
        for t in range(steps - 1, -1, -1):
            # A game that ended after step t pays its returns to each seat's last decision in it.
            ended = done[t][:, None]
            pending = torch.where(ended, final[t], pending)
            next_value = torch.where(ended, 0.0, next_value)
            next_adv = torch.where(ended, 0.0, next_adv)
            who = movers[t][:, None]
            adv = (pending.gather(1, who)[:, 0] + cfg.gamma * next_value.gather(1, who)[:, 0] - values[t]
                   + cfg.gamma * cfg.gae_lambda * next_adv.gather(1, who)[:, 0])
            advantages[t] = adv
            seat = torch.nn.functional.one_hot(movers[t], players).bool() & learner[t][:, None]
            next_value = torch.where(seat, values[t][:, None], next_value)
            next_adv = torch.where(seat, adv[:, None], next_adv)
            pending = torch.where(seat, 0.0, pending)
        keep = learner.reshape(-1)
        return {
            "info": infos.reshape(steps * n, -1)[keep],
            "mask": masks.reshape(steps * n, -1)[keep],
            "hint": torch.zeros(int(keep.sum()), dtype=torch.int64, device=self.device),
            "action": actions_taken.reshape(-1)[keep],
            "log_prob": log_probs.reshape(-1)[keep],
            "value": values.reshape(-1)[keep],
            "advantage": advantages.reshape(-1)[keep],
            "games": int(done.sum()),
            "env_steps": steps * n,
        }

    def collect_with(self, weights: dict[str, torch.Tensor]) -> dict[str, Any]:
        self.set_weights(weights)
        return self.collect()

    def snapshot_with(self, weights: dict[str, torch.Tensor], iteration: int) -> None:
        self.set_weights(weights)
        self.snapshot(iteration)

    def state(self) -> dict[str, Any]:
        return {
            "generator": self.generator.get_state(),
            "league": [{k: v.cpu() for k, v in member.state_dict().items()} for member in self.league],
            "league_iterations": list(self.league_iterations),
            "owners": self.owners.cpu(),
            "env": {name: torch.from_numpy(array) for name, array in self.env.state_dict().items()},
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.generator.set_state(state["generator"])
        self.league, self.league_iterations = [], []
        for weights, iteration in zip(state["league"], state["league_iterations"]):
            frozen = PolicyValueNet(**self.net.architecture()).to(self.device).eval()
            frozen.load_state_dict(weights)
            self.league.append(frozen)
            self.league_iterations.append(int(iteration))
        self.owners = state["owners"].to(self.device)
        self.env.load_state_dict({name: np.asarray(tensor_) for name, tensor_ in state["env"].items()})
