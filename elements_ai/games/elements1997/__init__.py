"""Elements (1997) — three to five players, hidden hands and face-down bids.

>>> import elements_ai
>>> game = elements_ai.load_game("elements1997", players=4)
>>> game.num_players(), game.num_distinct_actions()
(4, 62)
>>> state = game.new_initial_state()
>>> state.chance_outcomes()
[(0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)]
"""

from ...core.kernel import Kernel

KERNEL = Kernel.from_rules(__name__)

# Playthroughs (elements_ai.playthroughs) that take more than a second or so to replay.
SLOW_PLAYTHROUGHS = ("default", "four_aside", "five")
