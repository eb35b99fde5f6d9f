"""Elementos — two players, double-sided pieces with hidden back faces, a wand to bring home.

>>> import elements_ai
>>> game = elements_ai.load_game("elementos")
>>> game.num_distinct_actions()
297
"""

from ...core.kernel import Kernel

KERNEL = Kernel.from_rules(__name__)

# The recorded playthroughs (elements_ai.playthroughs), one a variant, stop at 40 moves:
# at the default 200 the history tensors make a file of several megabytes, and 40
# moves show the same pieces.
PLAYTHROUGH_PARAMS = {"max_moves": 40}
