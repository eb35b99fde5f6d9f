"""Elementos — two players, double-sided pieces with hidden back faces, a wand to bring home.

>>> import elements_ai
>>> game = elements_ai.load_game("elementos")
>>> game.num_distinct_actions()
297
"""

from ...core.kernel import Kernel

KERNEL = Kernel.from_rules(__name__)
