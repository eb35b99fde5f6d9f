"""The policy-value network shared by PPO and AlphaZero-style training.

Input: the information-state tensor of the player to move (it holds only what that
player may see). Outputs: logits over the game's actions, masked so that an illegal
action has probability exactly 0, and the returns of every player predicted from the
mover's point of view: ``value[k]`` is the return of player ``(mover + k) % players``
divided by the game's utility bound, so one head serves games of 1 to 5 players.

A network may learn a correction to a bot instead of a policy from nothing
(residual policy learning): with ``hint="rules"`` its logits get ``hint_weight``
(learnt, 3 at the start) added at the action the game's rule-based heuristic would
play, so that it starts as that heuristic and learns where to leave it. Whoever
plays it passes that action, ``hint``, with the information states.

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

from ..agents.network import HINTS, Network, value_bound

HINT_WEIGHT = 3.0  # the first bonus: with up to 20 legal actions, the hinted one is likelier than the rest together

__all__ = ["HINTS", "PolicyValueNet", "layer_sizes", "masked_entropy", "masked_log_probs", "masked_logits",
           "masked_probs", "value_bound"]


def layer_sizes(hidden, owner: str) -> tuple[int, ...]:
    """The hidden layers' widths of a config (``owner`` names it in the error): whole numbers >= 1.

    >>> layer_sizes([64, "64"], "PPOConfig")
    (64, 64)
    >>> layer_sizes([0], "PPOConfig")
    Traceback (most recent call last):
    ...
    ValueError: PPOConfig.hidden must be layer widths of at least 1, got [0]
    """
    sizes = tuple(int(h) for h in hidden)
    if any(h < 1 for h in sizes):
        raise ValueError(f"{owner}.hidden must be layer widths of at least 1, got {hidden!r}")
    return sizes


class PolicyValueNet(nn.Module):
    """A multilayer perceptron with a policy head and a per-player value head."""

    def __init__(self, info_size: int, num_actions: int, num_players: int, hidden: tuple[int, ...] = (256, 256),
                 hint: str = ""):
        super().__init__()
        self.info_size = int(info_size)
        self.num_actions = int(num_actions)
        self.num_players = int(num_players)
        self.hidden = tuple(int(h) for h in hidden)
        if hint not in HINTS:
            raise ValueError(f"hint must be one of {HINTS}, got {hint!r}")
        self.hint = hint
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
        if hint:
            self.hint_weight = nn.Parameter(torch.tensor(HINT_WEIGHT))

    def forward(self, info: torch.Tensor, hint: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, A), values (B, players))`` for information-state tensors (B, F).

        A network with a hint needs ``hint`` (B,), the hinting bot's actions, for its
        policy; without them its logits lack the hint (its values do not use it).
        """
        features = self.trunk(info)
        logits = self.policy(features)
        if self.hint and hint is not None:
            logits = logits + self.hint_weight * nn.functional.one_hot(hint, self.num_actions)
        return logits, self.value(features)

    def to_network(self, meta: dict | None = None) -> Network:
        """These weights as a numpy ``Network`` (what the ``ppo`` and ``az`` bots play)."""
        return Network.from_state_dict(self.state_dict(), meta, hint=self.hint)

    @classmethod
    def from_network(cls, network: Network) -> PolicyValueNet:
        """A torch copy of a numpy ``Network`` (to play it in batches during training)."""
        net = cls(network.info_size, network.num_actions, network.num_players, network.hidden, network.hint)
        state = {f"trunk.{2 * k}.{part}": torch.from_numpy(array.T.copy() if part == "weight" else array.copy())
                 for k, layer in enumerate(network.layers) for part, array in zip(("weight", "bias"), layer)}
        for head in ("policy", "value"):
            weight, bias = getattr(network, head)
            state[f"{head}.weight"], state[f"{head}.bias"] = torch.from_numpy(weight.T.copy()), torch.from_numpy(bias)
        if network.hint:
            state["hint_weight"] = torch.tensor(network.hint_weight)
        net.load_state_dict(state)
        net.eval()
        return net

    def architecture(self) -> dict:
        """What rebuilds this network (stored in checkpoints)."""
        return {
            "info_size": self.info_size,
            "num_actions": self.num_actions,
            "num_players": self.num_players,
            "hidden": list(self.hidden),
            "hint": self.hint,
        }


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal entries at -inf: their probability is exactly 0."""
    return logits.masked_fill(~mask, float("-inf"))


def masked_probs(logits: torch.Tensor, mask: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """The masked policy of ``logits / temperature`` (divided once the best logit is 0, as
    ``agents.network.masked_softmax`` does, so that a tiny temperature gives no NaN)."""
    z = masked_logits(logits, mask)
    if temperature != 1.0:
        z = (z - z.amax(-1, keepdim=True)) / temperature
    return torch.softmax(z, dim=-1)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions (illegal ones add 0, not ``0 * -inf``)."""
    # Zeroed before the product: 0 * -inf would make the gradient NaN.
    logp = masked_log_probs(logits, mask).masked_fill(~mask, 0.0)
    return -(logp.exp() * logp).sum(-1)
