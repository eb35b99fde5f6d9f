"""Agents that move inside the vector env loop: networks, random, rules and any bot.

A player chooses actions for some rows of a ``VecEnv`` (those where it is to move):
``act(env, rows) -> actions``. The training loop and the evaluations give each seat of
each env to one player; a network plays all its rows in one batch, the random and rules
players in one numba call, and any other bot (``ismcts:sims=1000``, …) row by row
through the OpenSpiel face, so every agent of the registry can be an opponent.

Every player is seeded and its random state can be saved and restored (``state`` /
``load_state``), so that a training run resumes exactly.

>>> import elements_ai, numpy as np
>>> env = elements_ai.make_vec("elements", num_envs=4, seed=0)
>>> rows = np.arange(4)
>>> actions = RulesPlayer(env, seed=0).act(env, rows)
>>> bool(env.legal_mask[rows, actions].all())
True
"""

from __future__ import annotations

import numpy as np
import torch

from ..core.generic import generic, rules
from ..core.rng import seeds_from, uniform
from ..core.vec import batch_encode_information_state
from .net import PolicyValueNet, masked_probs


@generic
def _heuristic_rows(cfg, states, players, rows, rng, out):
    for k in range(rows.shape[0]):
        b = rows[k]
        out[k] = rules.heuristic(cfg, states[b], players[b], rng[b : b + 1])


@generic
def _random_rows(cfg, states, masks, rows, rng, out):
    for k in range(rows.shape[0]):
        b = rows[k]
        out[k] = rules.sample_action_masked(cfg, states[b], masks[b], uniform(rng, b))


def encode_rows(env, rows: np.ndarray, players: np.ndarray | None = None) -> np.ndarray:
    """Information-state tensors (len(rows), F) of ``players`` (default: the player to move)."""
    states = env.states[rows]
    who = env.current_player[rows] if players is None else np.asarray(players, np.int64)
    out = np.empty((len(rows), env.config.info_size), np.float32)
    batch_encode_information_state[env.kernel](env.config.cfg, states, np.ascontiguousarray(who), out)
    return out


class Player:
    """An agent for the env loop; subclasses define ``act``."""

    name = "player"

    def act(self, env, rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def state(self) -> dict:
        return {}

    def load_state(self, state: dict) -> None:
        pass


class _Streams(Player):
    """A player drawing from one uint64 stream per env (so results ignore the row order)."""

    def __init__(self, env, seed: int):
        self._rng = seeds_from(seed, env.num_envs)

    def state(self) -> dict:
        return {"rng": torch.from_numpy(self._rng.view(np.int64).copy())}

    def load_state(self, state: dict) -> None:
        self._rng[:] = state["rng"].numpy().view(np.uint64)


class RandomPlayer(_Streams):
    """A uniformly random legal action."""

    name = "random"

    def act(self, env, rows):
        out = np.zeros(len(rows), np.int64)
        _random_rows[env.kernel](env.config.cfg, env.states, env.legal_mask, rows, self._rng, out)
        return out


class RulesPlayer(_Streams):
    """The game's rule-based heuristic (the ``rules`` bot)."""

    name = "rules"

    def __init__(self, env, seed: int):
        if env.kernel.heuristic is None:
            raise ValueError(f"rules: the game {env.kernel.short_name!r} has no rule-based heuristic")
        super().__init__(env, seed)

    def act(self, env, rows):
        out = np.zeros(len(rows), np.int64)
        _heuristic_rows[env.kernel](env.config.cfg, env.states, env.current_player, rows, self._rng, out)
        return out


class BotPlayer(Player):
    """Any registry bot (``make_bot`` spec), one per seat, asked row by row."""

    def __init__(self, spec: str, game, seed: int):
        from ..agents import make_bot

        self.name = spec
        self.game = game
        self.bots = [make_bot(spec, game, p, seed=seed + p) for p in range(game.num_players())]

    def act(self, env, rows):
        return self.act_with_policy(env, rows)[0]

    def act_with_policy(self, env, rows) -> tuple[np.ndarray, np.ndarray]:
        """``act``'s moves (the same ones, from the same random streams) and, for each
        row, the bot's policy over the game's actions (a search's visit shares)."""
        out = np.zeros(len(rows), np.int64)
        policies = np.zeros((len(rows), env.config.num_actions), np.float32)
        for k, b in enumerate(rows):
            state = self.game.state_from_array(env.states[b])
            policy, out[k] = self.bots[state.current_player()].step_with_policy(state)
            for action, p in policy:
                policies[k, action] = p
        return out, policies

    def state(self) -> dict:
        return {"rng": [torch.from_numpy(bot._rng.view(np.int64).copy()) for bot in self.bots]}

    def load_state(self, state: dict) -> None:
        for bot, rng in zip(self.bots, state["rng"]):
            bot._rng[:] = rng.numpy().view(np.uint64)


class Hints:
    """The actions a network's hinting bot (``PolicyValueNet.hint``) would play, for rows of one env.

    It keeps its bot's random streams (the heuristic breaks ties at random), one per
    env, so hints, like moves, ignore the row order and resume exactly.
    """

    def __init__(self, hint: str, env, seed: int):
        self.player = RulesPlayer(env, seed) if hint == "rules" else None
        self.env = env

    def __call__(self, env, rows: np.ndarray) -> torch.Tensor | None:
        if self.player is None:
            return None
        if env is not self.env:
            raise ValueError("these hints were made for another env")
        return torch.from_numpy(self.player.act(env, rows))

    def state(self) -> dict:
        return self.player.state() if self.player is not None else {}

    def load_state(self, state: dict) -> None:
        if self.player is not None:
            self.player.load_state(state)


class NetPlayer(Player):
    """A policy network: samples from its masked policy, its logits divided by ``temperature``
    (or plays its most likely action).

    A network with a hint takes its hinting bot's actions from a ``Hints`` for the env
    it plays in (``env``, or the first it is asked to play in), seeded from ``seed``.
    """

    def __init__(self, net: PolicyValueNet, seed: int = 0, greedy: bool = False, name: str = "net", env=None,
                 temperature: float = 1.0):
        self.net = net
        self.greedy = bool(greedy)
        self.temperature = float(temperature)
        self.name = name
        self.seed = int(seed)
        self.generator = torch.Generator().manual_seed(self.seed)
        self.hints: Hints | None = None
        self._saved_hints: dict | None = None
        if env is not None:
            self._hints(env)

    def _hints(self, env) -> Hints:
        if self.hints is None or self.hints.env is not env:
            self.hints = Hints(self.net.hint, env, self.seed + 1)
            if self._saved_hints is not None:
                self.hints.load_state(self._saved_hints)
                self._saved_hints = None
        return self.hints

    @torch.no_grad()
    def act(self, env, rows):
        info = torch.from_numpy(encode_rows(env, rows))
        mask = torch.from_numpy(env.legal_mask[rows])
        logits, _ = self.net(info, self._hints(env)(env, rows))
        return choose(logits, mask, self.greedy, self.generator, self.temperature).numpy()

    def state(self) -> dict:
        state = {"generator": self.generator.get_state()}
        if self.hints is not None:
            state["hints"] = self.hints.state()
        return state

    def load_state(self, state: dict) -> None:
        self.generator.set_state(state["generator"])
        if "hints" in state:
            if self.hints is not None:
                self.hints.load_state(state["hints"])
            else:
                self._saved_hints = state["hints"]


def choose(logits: torch.Tensor, mask: torch.Tensor, greedy: bool, generator: torch.Generator,
           temperature: float = 1.0) -> torch.Tensor:
    """Actions (B,) drawn from the masked policy at ``temperature`` (illegal ones have
    probability 0), or its argmax."""
    if greedy:
        return logits.masked_fill(~mask, float("-inf")).argmax(-1)
    return torch.multinomial(masked_probs(logits, mask, temperature), 1, generator=generator).squeeze(1)


def make_player(spec: str, env, game, seed: int) -> Player:
    """A fixed opponent from a bot spec: ``random`` and ``rules`` run in numba, a ``ppo``,
    ``mmd`` or ``nfsp`` network in batches (row by row when it plays an exact endgame), any
    other bot row by row."""
    if spec == "random":
        return RandomPlayer(env, seed)
    if spec == "rules":
        return RulesPlayer(env, seed)
    if spec.strip().startswith(("ppo", "mmd", "nfsp")):
        from ..agents.netbots import load_network, play_setting
        from ..agents.registry import parse_spec

        entry, params = parse_spec(spec)
        network, play = load_network(params.get("ckpt", ""), game, entry.name)
        if int(play_setting("endgame", params, play)):
            return BotPlayer(spec, game, seed)  # the exact endgame solves position by position
        return NetPlayer(PolicyValueNet.from_network(network), seed=seed, greedy=play_setting("greedy", params, play),
                         name=spec, env=env, temperature=play_setting("temperature", params, play))
    return BotPlayer(spec, game, seed)
