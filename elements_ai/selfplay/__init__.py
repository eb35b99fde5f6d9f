"""Self-play agents: neural policies trained on the vector face (needs the ``selfplay`` extra, PyTorch).

``PPOTrainer`` trains a policy by PPO against a league of its frozen past selves;
``AlphaZeroTrainer`` trains a policy-value network with batched PUCT search for
perfect-information games. Their checkpoints play as bots: ``ppo:ckpt=PATH`` and
``az:ckpt=PATH,sims=N`` (``elements_ai.agents.make_bot``). ``elements-ai train`` runs
both from the command line.
"""

from .checkpoint import CheckpointError
from .net import PolicyValueNet
from .ppo import PPOConfig, PPOTrainer

__all__ = ["CheckpointError", "PPOConfig", "PPOTrainer", "PolicyValueNet"]
