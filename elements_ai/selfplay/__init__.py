"""Self-play agents: neural policies trained on the vector face (the ``selfplay`` extra: PyTorch).

``PPOTrainer`` trains a policy by PPO against a league of its frozen past selves;
``MMDTrainer`` by magnetic mirror descent in pure self-play, towards an equilibrium;
``AlphaZeroTrainer`` trains a policy-value network with batched PUCT search for
perfect-information games; ``NFSPTrainer`` learns an average policy that approaches a
Nash equilibrium by neural fictitious self-play; ``PSROTrainer`` grows a population of
PPO best responses to its meta-Nash mixture (policy-space response oracles, on a game
small enough to flatten), and ``ExactEvaluator`` measures a
network's exact exploitability on a game small enough to flatten. This package only
trains: beside each checkpoint a trainer writes the numpy network file that
``elements_ai.agents`` plays (``ppo:ckpt=PATH``, ``mmd:ckpt=PATH``, ``nfsp:ckpt=PATH``, ``psro:ckpt=PATH``,
``az:ckpt=PATH,sims=N``), with no torch. ``elements-ai train`` runs them from the command
line. Torch is imported when one of these names is first used, so the command line
costs nothing without it.

>>> from elements_ai.selfplay import PPOConfig
>>> PPOConfig(num_envs=8).rollout_steps
32
"""

import importlib

_NAMES = {
    "AZConfig": "az",
    "AlphaZeroTrainer": "az",
    "CheckpointError": "checkpoint",
    "ExactEvaluator": "exact",
    "MMDConfig": "mmd",
    "MMDTrainer": "mmd",
    "NFSPConfig": "nfsp",
    "NFSPTrainer": "nfsp",
    "PolicyValueNet": "net",
    "PPOConfig": "ppo",
    "PPOTrainer": "ppo",
    "PSROConfig": "psro",
    "PSROTrainer": "psro",
}

__all__ = sorted(_NAMES)


def __getattr__(name):
    if name in _NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
