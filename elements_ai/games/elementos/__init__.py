"""Elementos — two players, double-sided pieces with hidden back faces, a wand to bring home.

>>> import elements_ai
>>> game = elements_ai.load_game("elementos")
>>> game.num_distinct_actions()
297
"""

from ...core.kernel import Kernel
from . import rules

KERNEL = Kernel(
    short_name="elementos",
    long_name="Elementos",
    min_num_players=2,
    max_num_players=2,
    params=rules.PARAMS,
    configure=rules.configure,
    init=rules.init,
    current_player=rules.current_player,
    legal_mask=rules.legal_mask,
    chance_outcomes=rules.chance_outcomes,
    apply=rules.apply,
    returns=rules.returns,
    encode_observation=rules.encode_observation,
    encode_information_state=rules.encode_information_state,
    action_to_string=rules.action_to_string,
    state_to_string=rules.state_to_string,
    observation_string=rules.observation_string,
    information_state_string=rules.information_state_string,
    resample=rules.resample,
    heuristic=rules.heuristic,
)
