"""Agents: search bots (MCTS, IS-MCTS) in numba and baseline bots, by name.

>>> import elements_ai
>>> from elements_ai.agents import make_bot
>>> game = elements_ai.load_game("elements", single_round=True)
>>> bots = [make_bot("ismcts:sims=200", game, 0, seed=1), make_bot("random", game, 1, seed=2)]
>>> state = game.new_initial_state()
>>> rng = __import__("numpy").random.default_rng(0)
>>> while not state.is_terminal():
...     if state.is_chance_node():
...         actions, probs = zip(*state.chance_outcomes())
...         state.apply_action(int(rng.choice(actions, p=probs)))
...     else:
...         state.apply_action(bots[state.current_player()].step(state))
>>> len(state.returns())
2
"""

import importlib
from typing import Any

# Names load with their module when first used: the registry (``agents.registry``)
# answers ``elements-ai agents`` and checks specs without compiling a bot.
_NAMES = {
    "BOTS": "registry",
    "describe_bots": "registry",
    "list_bots": "registry",
    "make_bot": "registry",
    "parse_spec": "registry",
    "ISMCTSBot": "bots",
    "KernelBot": "bots",
    "MCTSBot": "bots",
    "RandomBot": "bots",
    "RulesBot": "bots",
    "play_game": "bots",
    "TreeSearch": "search",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_NAMES})
