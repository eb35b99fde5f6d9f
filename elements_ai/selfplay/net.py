"""The policy-value network shared by PPO and AlphaZero-style training.

Input: the information-state tensor of the player to move (it holds only what that
player may see). Outputs: logits over the game's actions, masked so that an illegal
action has probability exactly 0, and the returns of every player predicted from the
mover's point of view: ``value[k]`` is the return of player ``(mover + k) % players``
divided by the game's utility bound, so one head serves games of 1 to 5 players.

>>> import torch
>>> net = PolicyValueNet(info_size=6, num_actions=3, num_players=2, hidden=(16,))
>>> mask = torch.tensor([[True, False, True]])
>>> with torch.no_grad():
...     probs = masked_probs(net(torch.zeros(1, 6))[0], mask)
>>> float(probs[0, 1]), round(float(probs.sum()), 6)
(0.0, 1.0)
"""

from __future__ import annotations

import torch
from torch import nn


def value_bound(config) -> float:
    """The utility bound the value head's outputs are divided by (a game ``Config``)."""
    return max(abs(config.min_utility), abs(config.max_utility), 1e-9)


class PolicyValueNet(nn.Module):
    """A multilayer perceptron with a policy head and a per-player value head."""

    def __init__(self, info_size: int, num_actions: int, num_players: int, hidden: tuple[int, ...] = (256, 256)):
        super().__init__()
        self.info_size = int(info_size)
        self.num_actions = int(num_actions)
        self.num_players = int(num_players)
        self.hidden = tuple(int(h) for h in hidden)
        layers: list[nn.Module] = []
        width = self.info_size
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, self.num_actions)
        self.value = nn.Linear(width, self.num_players)
        # Small initial logits: the first policy is close to uniform over the legal
        # actions, as PPO implementations do (orthogonal init, gain 0.01).
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)
        nn.init.orthogonal_(self.value.weight, gain=1.0)
        nn.init.zeros_(self.value.bias)

    def forward(self, info: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, A), values (B, players))`` for information-state tensors (B, F)."""
        features = self.trunk(info)
        return self.policy(features), self.value(features)

    def architecture(self) -> dict:
        """What rebuilds this network (stored in checkpoints)."""
        return {
            "info_size": self.info_size,
            "num_actions": self.num_actions,
            "num_players": self.num_players,
            "hidden": list(self.hidden),
        }


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal entries at -inf: their probability is exactly 0."""
    return logits.masked_fill(~mask, float("-inf"))


def masked_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.softmax(masked_logits(logits, mask), dim=-1)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions (illegal ones add 0, not ``0 * -inf``)."""
    # Zeroed before the product: 0 * -inf would make the gradient NaN.
    logp = masked_log_probs(logits, mask).masked_fill(~mask, 0.0)
    return -(logp.exp() * logp).sum(-1)
