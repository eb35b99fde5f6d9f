"""Every game as a PettingZoo AEC environment (``elements_ai.envs.make_pettingzoo``).

The agent to move is the OpenSpiel state's current player; chance nodes never
reach an agent, they are drawn from the environment's generator. Rewards are
``state.rewards()`` of each transition (all of the return arrives with the last
action), so an agent's rewards over a game sum to its return.

>>> env = ElementsAEC("elemental_duel")
>>> env.reset(seed=3)
>>> for agent in env.agent_iter():
...     observation, reward, termination, truncation, info = env.last()
...     if termination:
...         action = None
...     else:
...         action = env.action_space(agent).sample(observation["action_mask"])
...     env.step(action)
>>> sorted(env.returns()) == [-1.0, 1.0]
True
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from ._common import RENDER_MODES, Face, GameView, load


class ElementsAEC(GameView, AECEnv):
    """A game as a PettingZoo AEC environment; see ``make_pettingzoo``.

    ``game_state`` is the OpenSpiel state (read it, do not apply actions to it);
    ``returns()`` its returns.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "elements_ai_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, game: Any, *, observation: str = "observation", render_mode: str | None = None,
                 seed: int | None = None, **params: Any):
        super().__init__()
        self.game = load(game, params)
        self._face = Face(self.game, observation, render_mode)
        self.render_mode = render_mode
        # Per instance: PettingZoo's tests name the environment after it.
        self.metadata = {**self.metadata, "name": f"{self._face.name}_v0"}
        self.possible_agents = [f"player_{p}" for p in range(self._face.num_players)]
        self.observation_spaces = {agent: self._face.observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: self._face.action_space for agent in self.possible_agents}
        # Copies, not one shared object: seeding one agent's space leaves the others'.
        for agent in self.possible_agents[1:]:
            self.observation_spaces[agent] = copy.deepcopy(self._face.observation_space)
            self.action_spaces[agent] = copy.deepcopy(self._face.action_space)
        self.np_random, _ = seeding.np_random(seed)
        self.game_state = None
        self.agents = []

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self.game_state = self.game.new_initial_state()
        self._face.chance(self.game_state, self.np_random)
        self._select()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._face.observe(self.game_state, self.possible_agents.index(agent))

    def step(self, action: Any) -> None:
        if self.game_state is None:
            raise RuntimeError(f"{self._face.name}: call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        action = self._face.as_action(action, agent)
        message = self._face.illegal_message(state, action, agent)
        if message is not None:
            raise ValueError(message)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        state.apply_action(action)
        self._add(state.rewards())
        self._add(self._face.chance(state, self.np_random))
        self._select()
        self._accumulate_rewards()

    def _add(self, rewards: list[float]) -> None:
        for agent, reward in zip(self.possible_agents, rewards):
            if agent in self.rewards:
                self.rewards[agent] += float(reward)

    def _select(self) -> None:
        state = self.game_state
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            # Every agent now takes its last ``last()`` and ``step(None)``, from seat 0 on.
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[state.current_player()]


    def close(self) -> None:
        pass

