"""Elementum: 1 to 4 players draft spell cards into layouts of four element columns.

Rules, rulings and the interface: ``RULES.md`` beside this file; the cards:
``cards.py``; the kernel: ``rules.py`` and the modules beside it. ``score`` scores layouts by hand with the
game's own scoring, ``solo_rank`` names a solo score.

>>> import elements_ai
>>> game = elements_ai.load_game("elementum", players=3)
>>> game.num_players(), game.num_distinct_actions()
(3, 445)
>>> from elements_ai.testing import play_by_strings
>>> state = play_by_strings(game.new_initial_state(), "source water", "source air")
>>> [state.action_to_string(-1, a) for a, _ in state.chance_outcomes()]
['source fire', 'source earth']
>>> score([[[], [31], [], []]], sources=("air", "water", "fire", "earth")).totals
[0]
>>> solo_rank(50)
'Journeyman'
"""

from ...core.kernel import Kernel
from .scorecard import ScoreCard, score, score_state
from .strings import solo_rank

KERNEL = Kernel.from_rules(__name__)

# Playthroughs (elements_ai.playthroughs) that take more than a second or so to replay.
SLOW_PLAYTHROUGHS = ("default", "three", "four", "overload")

__all__ = ["KERNEL", "ScoreCard", "score", "score_state", "solo_rank"]
