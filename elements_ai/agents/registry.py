"""Bots by name: ``make_bot("mcts:sims=1000,c=1.4", game, player, seed)``.

A spec is a bot name, optionally followed by ``:`` and ``name=value`` parameters
joined by commas. ``list_bots()`` gives every name with its parameters and their
defaults.

>>> import elements_ai
>>> from elements_ai.agents import list_bots, make_bot
>>> sorted(list_bots())
['ismcts', 'mcts', 'random', 'rules']
>>> list_bots()["ismcts"]
{'sims': 1000, 'seconds': 0.0, 'c': 1.4, 'rollouts': 1, 'select': 'uct'}
>>> game = elements_ai.load_game("elements")
>>> make_bot("mcts:sims=200,c=2", game, player=0, seed=7).search.c
2.0
>>> try:
...     make_bot("mcts:simz=10", game, 0)
... except ValueError as error:
...     print(error)
bot spec 'mcts:simz=10': unknown parameter 'simz' for mcts; its parameters are sims, seconds, c, rollouts, \
worlds, select
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .bots import ISMCTSBot, KernelBot, MCTSBot, RandomBot, RulesBot


@dataclasses.dataclass(frozen=True)
class BotParam:
    """One bot parameter: its default, a description, and a range check.

    ``check(value)`` returns ``None`` when the value is allowed and otherwise the
    allowed values as a phrase.
    """

    default: int | float | str
    help: str
    check: Callable[[Any], str | None] = lambda value: None


@dataclasses.dataclass(frozen=True)
class BotSpec:
    """A bot name: its class, a one-line description and its parameters."""

    name: str
    cls: type[KernelBot]
    help: str
    params: dict[str, BotParam]


def _at_least(low):
    kind = "an integer" if isinstance(low, int) else "a number"
    return lambda value: None if value >= low else f"{kind} >= {low}"


def _one_of(*choices):
    return lambda value: None if value in choices else "one of " + ", ".join(choices)


_SEARCH = {
    "sims": BotParam(1000, "simulations per move (unlimited when only seconds is given)", _at_least(1)),
    "seconds": BotParam(0.0, "time limit per move in seconds (0: no time limit)", _at_least(0.0)),
    "c": BotParam(1.4, "exploration constant (values are scaled to [0, 1])", _at_least(0.0)),
    "rollouts": BotParam(1, "random playouts averaged at each new leaf", _at_least(1)),
}
_SELECT = {
    "select": BotParam("uct", "child selection: UCB1 ('uct') or prior-weighted ('puct')", _one_of("uct", "puct")),
}

BOTS: dict[str, BotSpec] = {
    spec.name: spec
    for spec in (
        BotSpec("random", RandomBot, "a uniformly random legal action", {}),
        BotSpec("rules", RulesBot, "the game's rule-based beginner strategy (kernel heuristic)", {}),
        BotSpec(
            "mcts",
            MCTSBot,
            "UCT with random rollouts; determinized with the kernel's resample under hidden information",
            {
                **_SEARCH,
                "worlds": BotParam(
                    1,
                    "determinizations per move under hidden information (0: a new one per simulation)",
                    _at_least(0),
                ),
                **_SELECT,
            },
        ),
        BotSpec(
            "ismcts",
            ISMCTSBot,
            "single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012)",
            {**_SEARCH, **_SELECT},
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


def _convert(spec: str, bot: str, name: str, value: Any, default: Any) -> Any:
    kind = type(default)
    try:
        if kind is int:
            if isinstance(value, bool) or (not isinstance(value, (int, str))):
                raise ValueError
            return int(value)
        if kind is float:
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        return str(value)
    except ValueError:
        noun = {int: "an integer", float: "a number"}.get(kind, "a string")
        raise ValueError(f"bot spec {spec!r}: parameter {name} of {bot} must be {noun}, got {value!r}") from None


def parse_spec(spec: str, **overrides: Any) -> tuple[BotSpec, dict[str, Any]]:
    """The bot named in ``spec`` and its checked parameters (only those given).

    ``overrides`` are parameters given as Python values; they win over the spec's.

    >>> parse_spec("mcts:sims=50,rollouts=2")[1]
    {'sims': 50, 'rollouts': 2}
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"bot spec {spec!r} is empty; bots are {', '.join(BOTS)}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in BOTS:
        raise ValueError(f"bot spec {spec!r}: unknown bot {name!r}; bots are {', '.join(BOTS)}")
    bot = BOTS[name]
    given: dict[str, Any] = {}
    items = [item.strip() for item in rest.split(",")] if rest.strip() else []
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"bot spec {spec!r}: {item!r} is not of the form name=value")
        if key in given:
            raise ValueError(f"bot spec {spec!r}: parameter {key!r} is given twice")
        given[key] = value.strip()
    given.update(overrides)
    params: dict[str, Any] = {}
    for key, value in given.items():
        if key not in bot.params:
            known = ", ".join(bot.params) if bot.params else "none"
            raise ValueError(
                f"bot spec {spec!r}: unknown parameter {key!r} for {name}; its parameters are {known}"
            )
        param = bot.params[key]
        value = _convert(spec, name, key, value, param.default)
        problem = param.check(value)
        if problem is not None:
            raise ValueError(
                f"bot spec {spec!r}: parameter {key}={value!r} of {name} is out of range; it must be {problem}"
            )
        params[key] = value
    return bot, params


def make_bot(spec: str, game, player: int, seed: int = 0, **params: Any) -> KernelBot:
    """A bot for seat ``player`` of ``game`` from a spec such as ``"ismcts:sims=1000,c=1.4"``.

    Keyword ``params`` are added to (and override) those in the spec. Raises
    ``ValueError`` naming the problem for an unknown bot or parameter, a value of
    the wrong type or out of range, and a bot the game cannot support.

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements")
    >>> make_bot("random", game, player=1, seed=3).player
    1
    """
    bot, kwargs = parse_spec(spec, **params)
    return bot.cls(game, player, seed, **kwargs)
