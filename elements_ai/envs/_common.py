"""What the PettingZoo and Gymnasium environments share: the game, its spaces, one
seat's observation and mask, chance drawn from a generator, checked actions and
pictures. Everything is read from the OpenSpiel face."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pyspiel
from gymnasium import spaces

from ..agents.bots import draw_chance
from ..core.params import ParameterError

OBSERVATIONS = ("observation", "information_state")
RENDER_MODES = ("ansi", "svg", "rgb_array")


def load(game: Any, params: dict[str, Any]):
    """The game: a name or a game string with ``params``, or an elements_ai game already loaded."""
    from ..core.spiel import KernelGame
    from ..loader import load_game

    if isinstance(game, KernelGame):
        if params:
            raise ParameterError(f"{game}: give the parameters in the game, not as keywords")
        return game
    if isinstance(game, pyspiel.Game):
        raise ParameterError(f"{game}: the environments play elements_ai games (load_game), not other OpenSpiel games")
    return load_game(game, **params)


class Face:
    """One game's spaces and the per-seat reads of a state: tensor, mask, reward sums."""

    def __init__(self, game, observation: str, render_mode: str | None):
        if observation not in OBSERVATIONS:
            raise ParameterError(f"observation must be one of {', '.join(OBSERVATIONS)}, got {observation!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ParameterError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}, got {render_mode!r}")
        if render_mode == "rgb_array":
            from ..render.png import require_cairosvg

            require_cairosvg()
        self.game = game
        self.name = game.get_type().short_name
        self.num_players = game.num_players()
        self.num_actions = game.num_distinct_actions()
        self.render_mode = render_mode
        self.observation = observation
        recall = observation == "information_state"
        # The game's own view (public and private parts for the seat), the same
        # tensor as state.observation_tensor(seat) without the list in between.
        self._observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall))
        shape = (
            game.information_state_tensor_shape() if recall else game.observation_tensor_shape()
        )
        # Entries are flags and counts, never negative; counts have no common bound.
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, tuple(shape), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        self.action_space = spaces.Discrete(self.num_actions)

    def tensor(self, state, seat: int) -> np.ndarray:
        self._observer.set_from(state, seat)
        return self._observer.tensor.copy()

    def mask(self, state, seat: int) -> np.ndarray:
        mask = np.zeros(self.num_actions, np.int8)
        if state.current_player() == seat:
            mask[state.legal_actions()] = 1
        return mask

    def observe(self, state, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self.tensor(state, seat), "action_mask": self.mask(state, seat)}

    def as_action(self, action: Any, who: str) -> int:
        """``action`` as an int, or a one-line ``ValueError`` for what is not an integer id."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise ValueError(f"{self.name}: an action is an integer id, got {action!r} for {who}")
        return int(action)

    def illegal_message(self, state, action: int, who: str) -> str | None:
        """A one-line message if ``action`` is not legal for the player to move, else ``None``."""
        legal = state.legal_actions()
        if action in legal:
            return None
        player = state.current_player()
        names = ", ".join(f"{a} ({state.action_to_string(player, a)})" for a in legal)
        return f"{self.name}: action {action} is not legal for {who} here; legal: {names}"

    def chance(self, state, rng: np.random.Generator) -> list[float]:
        """Draws chance outcomes until a player is to move or the game ends; the rewards they gave."""
        total = [0.0] * self.num_players
        while state.is_chance_node():
            state.apply_action(draw_chance(state, rng))
            total = [t + r for t, r in zip(total, state.rewards())]
        return total

    def render(self, state):
        """The state drawn for ``render_mode`` (everything shown: the pictures are for people)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return str(state)
        if self.render_mode == "svg":
            from ..render import render

            return render(state)
        from ..render.png import to_rgb_array

        return to_rgb_array(state)


class GameView:
    """What both environments read off the OpenSpiel state they hold (``game_state``,
    drawn by their ``_face``)."""

    def returns(self) -> list[float]:
        """The game's returns so far (OpenSpiel's ``state.returns()``)."""
        return self.game_state.returns()

    def render(self):
        if self.game_state is None:
            raise RuntimeError(f"{self._face.name}: call reset() before render()")
        return self._face.render(self.game_state)
