"""Bots by name: ``make_bot("mcts:sims=1000,c=1.4", game, player, seed)``.

A spec is a bot name, optionally followed by ``:`` and ``name=value`` parameters
joined by commas. The registry knows each bot's name, one-line description and
where its class lives (``"module:Class"``, in this package or in ``solvers``), and
imports the class only when the bot is used: a name, not an import, so that the
packages holding bots may import the registry and a bot costs nothing until made. Each class declares its
parameters once, in its ``params`` (names, defaults, descriptions, allowed values);
the registry checks a spec against them and ``list_bots`` / ``describe_bots`` show them.

>>> import elements_ai
>>> from elements_ai.agents.registry import list_bots, make_bot
>>> sorted(list_bots())
['az', 'cfr', 'ismcts', 'mccfr', 'mcts', 'mmd', 'nfsp', 'ppo', 'psro', 'random', 'rules']
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
import unicodedata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.params import Param
    from .bots import SeatBot

__all__ = ["BOTS", "BotEntry", "describe_bots", "list_bots", "make_bot", "parse_spec"]


@dataclasses.dataclass(frozen=True)
class BotEntry:
    """A bot name: a one-line description and where its class lives (``"module:Class"``).

    The class is called as ``cls(game, player, seed, **params)`` and declares its
    parameters in ``cls.params``.
    """

    name: str
    where: str
    help: str

    def load(self) -> type[SeatBot]:
        module, _, name = self.where.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def params(self) -> dict[str, Param]:
        """The bot's parameters, as its class declares them."""
        return self.load().params


BOTS: dict[str, BotEntry] = {
    entry.name: entry
    for entry in (
        BotEntry("random", "elements_ai.agents.bots:RandomBot", "a uniformly random legal action"),
        BotEntry("rules", "elements_ai.agents.bots:RulesBot",
                 "the game's rule-based beginner strategy (kernel heuristic)"),
        BotEntry("mcts", "elements_ai.agents.bots:MCTSBot",
                 "UCT with random rollouts; determinized with the kernel's resample under hidden information"),
        BotEntry("ismcts", "elements_ai.agents.bots:ISMCTSBot",
                 "single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012)"),
        BotEntry("cfr", "elements_ai.solvers.agents:PolicyBot",
                 "plays a policy solved by tabular CFR (a file written by elements-ai solve; none: the shipped "
                 "policy)"),
        BotEntry("mccfr", "elements_ai.solvers.agents:MCCFRPolicyBot",
                 "plays an MCCFR policy (elements-ai solve --algorithm es-mccfr); unsampled information sets "
                 "uniformly"),
        BotEntry("ppo", "elements_ai.agents.netbots:PPOBot",
                 "a policy network trained by self-play PPO (the shipped one, or elements-ai train's)"),
        BotEntry("mmd", "elements_ai.agents.netbots:MMDBot",
                 "a policy network trained by self-play magnetic mirror descent (elements-ai train --algorithm "
                 "mmd), near equilibrium"),
        BotEntry("psro", "elements_ai.agents.netbots:PSROBot",
                 "the meta-Nash mixture of a PSRO run's PPO best responses (elements-ai train --algorithm psro)"),
        BotEntry("nfsp", "elements_ai.agents.netbots:NFSPBot",
                 "the average policy of neural fictitious self-play (elements-ai train --algorithm nfsp)"),
        BotEntry("az", "elements_ai.agents.netbots:AZBot",
                 "PUCT search guided by a network trained AlphaZero-style (perfect information; shipped or your "
                 "own)"),
    )
}


def list_bots() -> dict[str, dict[str, int | float | str]]:
    """Every bot name with its parameters and their defaults.

    >>> list_bots()["random"]
    {}
    """
    return {name: {p: param.default for p, param in entry.params.items()} for name, entry in BOTS.items()}


def describe_bots() -> str:
    """A readable list of the bots, their parameters, defaults, meanings and allowed values."""
    lines = []
    for entry in BOTS.values():
        lines.append(f"{entry.name}: {entry.help}")
        for name, param in entry.params.items():
            lines.append(f"    {name}={param.default!r}: {param.help}; {param.allowed}")
    return "\n".join(lines)


def parse_spec(spec: str, **overrides: Any) -> tuple[BotEntry, dict[str, Any]]:
    """The bot named in ``spec`` and its checked parameters (only those given).

    ``overrides`` are parameters given as Python values; they win over the spec's.

    >>> parse_spec("mcts:sims=50,rollouts=2")[1]
    {'sims': 50, 'rollouts': 2}
    """
    from ..core.params import ParameterError, parse_pairs, resolve

    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(f"bot spec {spec!r} is empty; bots are {', '.join(BOTS)}")
    spec = unicodedata.normalize("NFKC", spec)  # full-width letters and digits read as ASCII ones
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in BOTS:
        raise ParameterError(f"bot spec {spec!r}: unknown bot {name!r}; bots are {', '.join(BOTS)}")
    entry = BOTS[name]
    items = [item for item in rest.split(",") if item.strip()] if rest.strip() else []
    given: dict[str, Any] = {**parse_pairs(items, f"bot spec {spec!r}"), **overrides}
    return entry, resolve(entry.params, given, f"bot spec {spec!r} ({name})", fill=False)


def make_bot(spec: str, game, player: int, seed: int = 0, **params: Any) -> SeatBot:
    """A bot for seat ``player`` of ``game`` from a spec such as ``"ismcts:sims=1000,c=1.4"``.

    Keyword ``params`` are added to (and override) those in the spec. Raises
    ``ParameterError`` (a ``ValueError``) naming the problem for an unknown bot or
    parameter, a value of the wrong type or out of range, a missing, damaged or
    foreign file, and a bot the game cannot support.

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements")
    >>> make_bot("random", game, player=1, seed=3).player
    1
    """
    from ..core.params import ParameterError
    from ..core.spiel import KernelGame
    from .bots import KernelBot

    entry, given = parse_spec(spec, **params)
    cls = entry.load()
    if issubclass(cls, KernelBot) and not isinstance(game, KernelGame):
        raise ParameterError(f"bot spec {spec!r}: {entry.name} plays elements_ai games (elements-ai games), "
                             f"not {game}")
    try:
        return cls(game, player, seed, **given)
    except ParameterError as error:
        # The bot names the file or the game it cannot use; the spec says which agent.
        if f"{spec!r}" not in str(error):
            error.args = (f"bot spec {spec!r}: {error}", *error.args[1:])
        raise
