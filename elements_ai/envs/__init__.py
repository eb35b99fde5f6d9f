"""Ecosystem adapters: every game as a PettingZoo AEC environment and, one seat
against fixed bots, as a Gymnasium environment.

Both sit on the OpenSpiel face: observations are the game's observation tensor
(or, with ``observation="information_state"``, its information-state tensor) as
the kernel's encoders write it, action masks are the legal actions, chance is
drawn from the environment's seeded generator, and rewards are OpenSpiel's
``rewards()`` (the returns, all at the end). No rule is written twice.

They need the ``rl`` extra (``pip install "elements-ai[rl]"``): importing this
package does not, calling ``make_pettingzoo`` or ``make_gymnasium`` without it
raises a one-line ``ParameterError`` saying so.

>>> from elements_ai.envs import make_gymnasium, make_pettingzoo
>>> env = make_pettingzoo("elements(single_round=true)")
>>> env.reset(seed=1)
>>> env.agent_selection, sorted(env.observe("player_0"))
('player_1', ['action_mask', 'observation'])
>>> learner = make_gymnasium("elements", bots=["rules"], seat=1)
>>> observation, info = learner.reset(seed=1)
>>> observation["observation"].shape, type(learner.bots[0]).__name__
((102,), 'RulesBot')
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["INSTALL", "make_gymnasium", "make_pettingzoo"]

INSTALL = 'pip install "elements-ai[rl]"'


def _require(what: str, *modules: str) -> None:
    from ..core.params import ParameterError

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise ParameterError(f"{what} needs {module}: {INSTALL}") from None


def make_pettingzoo(game: Any, *, observation: str = "observation", render_mode: str | None = None,
                    seed: int | None = None, **params: Any):
    """A PettingZoo AEC environment of ``game`` (a name or a game string, with ``params``).

    Agents are ``player_0`` .. ``player_{n-1}``. Each observes a dict: ``observation``
    (the game's observation tensor for that seat, float32; ``observation=
    "information_state"`` gives the information-state tensor) and ``action_mask``
    (int8 over the ``num_distinct_actions`` action ids; zeros but for the agent to
    move). Chance is drawn inside, from a generator seeded by ``seed`` or by
    ``reset(seed=...)``. ``render_mode``: ``"ansi"`` (the state's text), ``"svg"``
    or ``"rgb_array"`` (the ``png`` extra). See ``elements_ai.envs._aec.ElementsAEC``.

    >>> env = make_pettingzoo("elementum", players=3)
    >>> env.possible_agents
    ['player_0', 'player_1', 'player_2']
    """
    _require("make_pettingzoo", "gymnasium", "pettingzoo")
    from ._aec import ElementsAEC

    return ElementsAEC(game, observation=observation, render_mode=render_mode, seed=seed, **params)


def make_gymnasium(game: Any, bots: Any = ("random",), *, seat: int = 0, seed: int | None = None,
                   observation: str = "observation", illegal: str = "lose", render_mode: str | None = None,
                   **params: Any):
    """A Gymnasium environment: seat ``seat`` of ``game`` against bots on the other seats.

    ``bots``: bot specs (``elements_ai.agents.make_bot``), one per other seat in
    seat order, or a single spec for all of them. The environment plays the bots
    and chance until the learner is to move. Observations are dicts as in
    ``make_pettingzoo``; ``action_masks()`` gives the mask as booleans (the
    convention of sb3-contrib's MaskablePPO). An illegal action ends the episode
    with the game's minimum utility as the reward and a warning naming it
    (``illegal="lose"``, PettingZoo's ``TerminateIllegalWrapper`` convention, and
    what Gymnasium's ``check_env``, which steps unmasked random actions, needs);
    ``illegal="raise"`` raises ``ValueError`` naming it and the legal ones instead,
    leaving the game as it was. See ``elements_ai.envs._gym.ElementsGym``.

    >>> env = make_gymnasium("elements1997", bots=["rules"], players=4)
    >>> sorted(env.bot_specs.items())
    [(1, 'rules'), (2, 'rules'), (3, 'rules')]
    """
    _require("make_gymnasium", "gymnasium")
    from ._gym import ElementsGym

    return ElementsGym(game, bots, seat=seat, seed=seed, observation=observation, illegal=illegal,
                       render_mode=render_mode, **params)
