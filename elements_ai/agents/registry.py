"""Bots by name: ``make_bot("mcts:sims=1000,c=1.4", game, player, seed)``.

A spec is a bot name, optionally followed by ``:`` and ``name=value`` parameters
joined by commas. ``list_bots()`` gives every name with its parameters and their
defaults.

>>> import elements_ai
>>> from elements_ai.agents import list_bots, make_bot
>>> sorted(list_bots())
['az', 'cfr', 'ismcts', 'mccfr', 'mcts', 'ppo', 'random', 'rules']
>>> list_bots()["ismcts"]
{'sims': 1000, 'seconds': 0.0, 'c': 1.4, 'rollouts': 1, 'rollout': 'random', 'depth': 0, 'select': 'uct'}
>>> game = elements_ai.load_game("elements")
>>> make_bot("mcts:sims=200,c=2", game, player=0, seed=7).search.c
2.0
>>> try:
...     make_bot("mcts:simz=10", game, 0)
... except ValueError as error:
...     print(error)
bot spec 'mcts:simz=10' (mcts): unknown parameter 'simz'; parameters are c, depth, rollout, rollouts, \
seconds, select, sims, worlds
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from ..core.params import Param, ParameterError, at_least, int_range, one_of, parse_pairs, resolve
from .bots import KernelBot


@dataclasses.dataclass(frozen=True)
class BotSpec:
    """A bot name: its class, a one-line description and its parameters.

    ``cls`` is the bot class or its ``"module:Class"`` path, imported when a bot is
    made (so that bots needing optional packages cost nothing until used). The class
    is called as ``cls(game, player, seed, **params)``.
    """

    name: str
    cls: type[KernelBot] | str
    help: str
    params: dict[str, Param]

    def load(self) -> type[KernelBot]:
        if not isinstance(self.cls, str):
            return self.cls
        module, _, name = self.cls.partition(":")
        return getattr(importlib.import_module(module), name)


_SEARCH = {
    "sims": Param(1000, "simulations per move (unlimited when only seconds is given)", int_range(1)),
    "seconds": Param(0.0, "time limit per move in seconds (0: no time limit)", at_least(0.0)),
    "c": Param(1.4, "exploration constant (values are scaled to [0, 1])", at_least(0.0)),
    "rollouts": Param(1, "playouts averaged at each new leaf", int_range(1)),
    "rollout": Param("random", "who plays the playouts: uniformly random moves, or the game's rules heuristic",
                     one_of("random", "rules")),
    "depth": Param(0, "decisions after which a playout stops and scores a draw (0: to the end)", int_range(0)),
}
_SELECT = {
    "select": Param("uct", "child selection: UCB1 ('uct') or prior-weighted ('puct')", one_of("uct", "puct")),
}

_CKPT = {
    "ckpt": Param("", "a network file (.npz), a checkpoint or a training folder (none: the shipped network)"),
}

BOTS: dict[str, BotSpec] = {
    spec.name: spec
    for spec in (
        BotSpec("random", "elements_ai.agents.bots:RandomBot", "a uniformly random legal action", {}),
        BotSpec(
            "rules",
            "elements_ai.agents.bots:RulesBot",
            "the game's rule-based beginner strategy (kernel heuristic)",
            {},
        ),
        BotSpec(
            "mcts",
            "elements_ai.agents.bots:MCTSBot",
            "UCT with random rollouts; determinized with the kernel's resample under hidden information",
            {
                **_SEARCH,
                "worlds": Param(
                    1, "determinizations per move under hidden information (0: a new one per simulation)", int_range(0)
                ),
                **_SELECT,
            },
        ),
        BotSpec(
            "ismcts",
            "elements_ai.agents.bots:ISMCTSBot",
            "single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012)",
            {**_SEARCH, **_SELECT},
        ),
        BotSpec(
            "cfr",
            "elements_ai.solvers.agents:PolicyBot",
            "plays a policy solved by tabular CFR (a file written by elements-ai solve; none: the shipped policy)",
            {"policy": Param("", "the policy file (.npz) written by elements-ai solve (none: the shipped one)")},
        ),
        BotSpec(
            "mccfr",
            "elements_ai.solvers.agents:MCCFRPolicyBot",
            "plays an MCCFR policy (elements-ai solve --algorithm es-mccfr); unsampled information sets uniformly",
            {"policy": Param("", "the policy or checkpoint file (.npz) written by elements-ai solve")},
        ),
        BotSpec(
            "ppo",
            "elements_ai.agents.netbots:PPOBot",
            "a policy network trained by self-play PPO (the shipped one, or elements-ai train's)",
            {**_CKPT, "greedy": Param(False, "play the most likely action instead of sampling the policy "
                                             "(the shipped networks: as they were evaluated)")},
        ),
        BotSpec(
            "az",
            "elements_ai.agents.netbots:AZBot",
            "PUCT search guided by a network trained AlphaZero-style (perfect information; shipped or your own)",
            {
                **_CKPT,
                "sims": Param(100, "simulations per move", int_range(1)),
                "c": Param(1.5, "PUCT exploration constant (values are scaled to [0, 1])", at_least(0.0)),
            },
        ),
    )
}


def list_bots() -> dict[str, dict[str, int | float | str]]:
    """Every bot name with its parameters and their defaults.

    >>> list_bots()["random"]
    {}
    """
    return {name: {p: param.default for p, param in spec.params.items()} for name, spec in BOTS.items()}


def describe_bots() -> str:
    """A readable list of the bots, their parameters, defaults and meanings."""
    lines = []
    for spec in BOTS.values():
        lines.append(f"{spec.name}: {spec.help}")
        for name, param in spec.params.items():
            lines.append(f"    {name}={param.default!r}: {param.help}")
    return "\n".join(lines)


def parse_spec(spec: str, **overrides: Any) -> tuple[BotSpec, dict[str, Any]]:
    """The bot named in ``spec`` and its checked parameters (only those given).

    ``overrides`` are parameters given as Python values; they win over the spec's.

    >>> parse_spec("mcts:sims=50,rollouts=2")[1]
    {'sims': 50, 'rollouts': 2}
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(f"bot spec {spec!r} is empty; bots are {', '.join(BOTS)}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in BOTS:
        raise ParameterError(f"bot spec {spec!r}: unknown bot {name!r}; bots are {', '.join(BOTS)}")
    bot = BOTS[name]
    items = [item for item in rest.split(",") if item.strip()] if rest.strip() else []
    given: dict[str, Any] = {**parse_pairs(items, f"bot spec {spec!r}"), **overrides}
    return bot, resolve(bot.params, given, f"bot spec {spec!r} ({name})", fill=False)


def make_bot(spec: str, game, player: int, seed: int = 0, **params: Any) -> KernelBot:
    """A bot for seat ``player`` of ``game`` from a spec such as ``"ismcts:sims=1000,c=1.4"``.

    Keyword ``params`` are added to (and override) those in the spec. Raises
    ``ParameterError`` (a ``ValueError``) naming the problem for an unknown bot or parameter, a value of
    the wrong type or out of range, and a bot the game cannot support.

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements")
    >>> make_bot("random", game, player=1, seed=3).player
    1
    """
    bot, kwargs = parse_spec(spec, **params)
    return bot.load()(game, player, seed, **kwargs)
