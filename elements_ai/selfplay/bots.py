"""Self-play checkpoints read with torch: the networks that ``ppo:ckpt=PATH`` and
``az:ckpt=PATH`` play (``agents.netbots``, in numpy), and the torch evaluator that
AlphaZero-style training searches with.

``PATH`` is a checkpoint file or a training folder (its latest checkpoint). The
checkpoint must have been trained for exactly this game (the same parameters); any
other, or a file that is not a checkpoint, is a ``CheckpointError`` (a ``ValueError``)
saying which.

>>> import tempfile, elements_ai
>>> from elements_ai.agents import make_bot
>>> from elements_ai.selfplay import PPOConfig, PPOTrainer
>>> game = elements_ai.load_game("elements(deck=1_2_3_6_6_6,hand_size=2,single_round=true)")
>>> out = tempfile.mkdtemp()
>>> _ = PPOTrainer(game, out, PPOConfig(num_envs=8, rollout_steps=4, hidden=(16,), eval_every=0),
...                progress=False).train(32)
>>> bot = make_bot(f"ppo:ckpt={out}", game, player=0, seed=1)
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(state.chance_outcomes()[0][0])
>>> bot.step(state) in state.legal_actions()
True
"""

from __future__ import annotations

import functools
import os

import torch

from ..agents.netbots import AZBot, PPOBot, evaluator
from . import checkpoint
from .net import PolicyValueNet

__all__ = ["AZBot", "NetworkPolicy", "PPOBot", "load_network", "network_evaluator", "network_from"]


def network_from(payload: dict, game) -> PolicyValueNet:
    """The network stored in a checkpoint, checked against ``game``'s sizes."""
    config = game.config
    expected = {"info_size": config.info_size, "num_actions": config.num_actions, "num_players": config.num_players}
    arch = payload.get("architecture")
    if not isinstance(arch, dict) or "model" not in payload:
        raise checkpoint.CheckpointError(f"{payload['path']} is damaged: it holds no network")
    for key, value in expected.items():
        if arch.get(key) != value:
            raise checkpoint.CheckpointError(
                f"{payload['path']}: its network has {key}={arch.get(key)}, the game {game} needs {value}"
            )
    try:
        net = PolicyValueNet(**arch)
        net.load_state_dict(payload["model"])
    except (RuntimeError, TypeError, ValueError) as error:
        raise checkpoint.CheckpointError(f"{payload['path']}: its weights do not fit its network ({error})") from None
    net.eval()
    return net


@functools.lru_cache(maxsize=32)
def _cached(path: str, stamp: tuple, game_string: str, algorithm: str | None):
    payload = checkpoint.load(path, algorithm=algorithm)
    if payload["game"] != game_string:
        raise checkpoint.CheckpointError(f"{path} was trained for {payload['game']}, not for {game_string}")
    return payload


def load_network(ckpt: str, game, algorithm: str | None = None) -> tuple[PolicyValueNet, dict]:
    """The network of checkpoint ``ckpt`` (file or training folder) for ``game``.

    Loaded once per file version, however many bots use it (a tournament makes many).
    """
    if not ckpt:
        raise checkpoint.CheckpointError("ckpt: give a checkpoint file or a training folder (ckpt=PATH)")
    path = checkpoint.resolve(ckpt)
    stat = os.stat(path)
    payload = _cached(str(path), (stat.st_mtime_ns, stat.st_size), str(game), algorithm)
    return network_from(payload, game), payload


def network_evaluator(net: PolicyValueNet, game):
    """A ``BatchedSearch`` evaluator for a torch network (AlphaZero-style training searches with it)."""

    def forward(info):
        with torch.no_grad():
            logits, values = net(torch.from_numpy(info))
        return logits.numpy(), values.numpy()

    return evaluator(game, forward)


class NetworkPolicy:
    """A trained network's policy as an OpenSpiel ``Policy`` (for exact exploitability).

    ``action_probabilities(state)`` is what ``PPOBot`` plays at the state's information
    set: the masked policy it samples from, or its most likely action when it plays
    greedily (``ckpt=""``: the shipped network, greedy as it ships).
    """

    def __new__(cls, game, ckpt: str):
        from open_spiel.python import policy as openspiel_policy

        class _NetworkPolicy(openspiel_policy.Policy):
            def __init__(self):
                super().__init__(game, list(range(game.num_players())))
                self.bots = [PPOBot(game, p, ckpt=ckpt) for p in range(game.num_players())]

            def action_probabilities(self, state, player_id=None):
                player = state.current_player() if player_id is None else player_id
                return self.bots[player].played_policy(state)

        return _NetworkPolicy()
