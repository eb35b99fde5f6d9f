"""Elements (Team SAIEN / Pegasus, 2016) — two players, hidden hands, card sums.

>>> import elements_ai
>>> game = elements_ai.load_game("elements", single_round=True)
>>> game.num_distinct_actions()
10
"""

from ...core.kernel import Kernel

KERNEL = Kernel.from_rules(__name__)
