"""Elemental Duel — two players, 13 element cards each, 12 territories won by duels.

>>> import elements_ai
>>> game = elements_ai.load_game("elemental_duel")
>>> game.num_distinct_actions(), game.max_chance_outcomes()
(15, 6)
"""

from ...core.kernel import Kernel

KERNEL = Kernel.from_rules(__name__)
