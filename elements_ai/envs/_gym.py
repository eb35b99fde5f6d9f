"""One seat of a game against fixed bots, as a Gymnasium environment
(``elements_ai.envs.make_gymnasium``).

The learner sees its seat's observation and mask; between two of its moves the
environment plays the bots (``registry.make_bot``) and draws chance from its own
generator, and the reward of a step is the learner's part of ``state.rewards()``
over all of it (the return, at the end). A deal that ends before the learner's first
move is dealt again, and ``reset``'s info counts it (``skipped_deals``).

>>> env = ElementsGym("elements(single_round=true)", ["rules"], seat=1)
>>> observation, info = env.reset(seed=2)
>>> total, over = 0.0, False
>>> while not over:
...     action = int(env.np_random.choice(env.action_masks().nonzero()[0]))
...     observation, reward, over, truncated, info = env.step(action)
...     total += reward
>>> total == env.returns()[1] == info["returns"][1]
True
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding

from ..agents.bots import draw_chance
from ..core.params import ParameterError
from ._common import RENDER_MODES, Face, GameView, load

ILLEGAL = ("raise", "lose")
# A seat that had no move in this many deals in a row never gets one: reset says so.
MAX_SKIPPED_DEALS = 1000


class ElementsGym(GameView, gymnasium.Env):
    """Seat ``seat`` of a game against bots; see ``make_gymnasium``.

    ``bots`` maps each other seat to its bot and ``bot_specs`` to its spec;
    ``game_state`` is the OpenSpiel state (read it, do not apply actions to it).

    ``illegal="lose"`` (the default) ends the episode at an illegal action, the
    reward the game's minimum utility, with a warning that names the action:
    Gymnasium's ``check_env`` steps unmasked random actions (one of them sampled
    before a reset and stepped after it). ``"raise"`` refuses it (the game is left
    as it was).

    Seeding: ``seed`` (or ``reset(seed=...)``) seeds the generator that draws
    chance and the bots' seeds; a seeded reset makes the bots afresh, so the same
    seed and the same actions replay the same game. Unseeded resets go on with the
    generator and the bots as they are.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, game: Any, bots: Any = ("random",), *, seat: int = 0, seed: int | None = None,
                 observation: str = "observation", illegal: str = "lose", render_mode: str | None = None,
                 **params: Any):
        self.game = load(game, params)
        self._face = face = Face(self.game, observation, render_mode)
        self.render_mode = render_mode
        players = face.num_players
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral) or not 0 <= seat < players:
            raise ParameterError(f"{face.name}: seat must be a player 0..{players - 1}, got {seat!r}")
        if illegal not in ILLEGAL:
            raise ParameterError(f"illegal must be one of {', '.join(ILLEGAL)}, got {illegal!r}")
        self.seat = int(seat)
        self.illegal = illegal
        if isinstance(bots, str):
            specs = [bots]
        elif isinstance(bots, (list, tuple)):
            specs = list(bots)
        else:
            raise ParameterError(f"bots: a bot spec or a list of them (elements-ai agents lists them), got {bots!r}")
        others = [p for p in range(players) if p != self.seat]
        if len(specs) == 1 or not others:
            specs = specs[:1] * len(others)
        elif len(specs) != len(others):
            raise ParameterError(f"{face.name} has {players} players: give one bot spec for all "
                                 f"{len(others)} other seats or one per seat, got {len(specs)}")
        self.bot_specs: dict[int, str] = dict(zip(others, specs))
        self.observation_space = face.observation_space
        self.action_space = face.action_space
        self._np_random, self._np_random_seed = seeding.np_random(seed)
        self.bots: dict[int, Any] = {}
        self._make_bots()
        self.game_state = None
        self._over = True

    def _make_bots(self) -> None:
        from ..agents.registry import make_bot

        seeds = self.np_random.integers(0, 2**31 - 1, size=len(self.bot_specs)).tolist()
        self.bots = {seat: make_bot(spec, self.game, seat, seed)
                     for (seat, spec), seed in zip(self.bot_specs.items(), seeds)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """The learner's first observation, and ``info["skipped_deals"]``: the deals
        that ended before the learner had a move (the bots ended the game, or chance
        did) and were dealt again, as an episode without a move is not one to learn from."""
        super().reset(seed=seed)
        if seed is not None:
            self._make_bots()
        for skipped in range(MAX_SKIPPED_DEALS + 1):
            self.game_state = state = self.game.new_initial_state()
            for bot in self.bots.values():
                bot.restart_at(state)
            self._over = False
            self._play_others()
            if not state.is_terminal():
                return self._observe(), {"skipped_deals": skipped}
        raise RuntimeError(f"{self._face.name}: {MAX_SKIPPED_DEALS + 1} deals in a row ended before seat {self.seat} "
                           f"had a move")

    def step(self, action: Any):
        if self.game_state is None:
            raise RuntimeError(f"{self._face.name}: call reset() before step()")
        if self._over:
            raise RuntimeError(f"{self._face.name}: the episode is over; call reset()")
        state = self.game_state
        who = f"seat {self.seat}"
        action = self._face.as_action(action, who)
        message = self._face.illegal_message(state, action, who)
        if message is not None:
            if self.illegal == "raise":
                raise ValueError(message)
            warnings.warn(f"{message}; the episode ends, seat {self.seat} losing", stacklevel=2)
            self._over = True
            return self._observe(), float(self.game.min_utility()), True, False, {"illegal_action": action}
        for bot in self.bots.values():
            bot.inform_action(state, self.seat, action)
        state.apply_action(action)
        reward = state.rewards()[self.seat] + self._play_others()
        self._over = state.is_terminal()
        info = {"returns": state.returns()} if self._over else {}
        return self._observe(), float(reward), self._over, False, info

    def _play_others(self) -> float:
        """Chance and the bots until the learner is to move or the game ends; the learner's rewards meanwhile."""
        state = self.game_state
        reward = 0.0
        while not state.is_terminal() and state.current_player() != self.seat:
            if state.is_chance_node():
                action = draw_chance(state, self.np_random)
            else:
                player = state.current_player()
                action = int(self.bots[player].step(state))
                for seat, bot in self.bots.items():
                    if seat != player:
                        bot.inform_action(state, player, action)
            state.apply_action(action)
            reward += state.rewards()[self.seat]
        return reward

    def _observe(self) -> dict[str, np.ndarray]:
        observation = self._face.observe(self.game_state, self.seat)
        if self._over:
            observation["action_mask"][:] = 0
        return observation

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner as booleans (sb3-contrib's MaskablePPO reads this)."""
        if self.game_state is None or self._over:
            return np.zeros(self._face.num_actions, bool)
        return self._face.mask(self.game_state, self.seat).astype(bool)

