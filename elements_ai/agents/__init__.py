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

from .bots import ISMCTSBot, KernelBot, MCTSBot, RandomBot, RulesBot, play_game
from .registry import BOTS, describe_bots, list_bots, make_bot, parse_spec
from .search import TreeSearch

__all__ = [
    "BOTS",
    "ISMCTSBot",
    "KernelBot",
    "MCTSBot",
    "RandomBot",
    "RulesBot",
    "TreeSearch",
    "describe_bots",
    "list_bots",
    "make_bot",
    "parse_spec",
    "play_game",
]
