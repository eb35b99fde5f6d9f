"""The OpenSpiel face: one generic ``pyspiel.Game``/``State``/observer over a kernel.

Every game is registered with ``pyspiel.register_game`` under its short name (when
``elements_ai`` is imported, from its declaration: ``games/__init__.py``), so all of
OpenSpiel's algorithms (CFR, best response, MCTS, evaluate_bots) run on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..declaration import declare
from .generic import generic, rules
from .kernel import CHANCE, TERMINAL, Config, Kernel
from .observers import view_of

ILLEGAL = -100  # returned by checked_apply when the action is not allowed


# --- numba for one state ------------------------------------------------------------------

@generic
def is_allowed(cfg, state, action, mask, probs):
    """Is ``action`` a legal action (or a possible chance outcome) here?"""
    player = rules.current_player(cfg, state)
    if player == TERMINAL or action < 0:
        return False
    if player == CHANCE:
        if action >= probs.shape[0]:
            return False
        rules.chance_outcomes(cfg, state, probs)
        return probs[action] > 0.0
    if action >= mask.shape[0]:
        return False
    rules.legal_mask(cfg, state, mask)
    return mask[action]


@generic
def checked_apply(cfg, state, action, mask, probs):
    """Applies a legal action and returns the next player; ILLEGAL leaves the state as is."""
    if not is_allowed(cfg, state, action, mask, probs):
        return ILLEGAL
    rules.apply(cfg, state, action)
    return rules.current_player(cfg, state)


@generic
def legal_actions(cfg, state, mask):
    """Sorted legal action ids of the player to move (empty at chance or terminal nodes)."""
    player = rules.current_player(cfg, state)
    if player < 0:
        return np.empty(0, np.int64)
    rules.legal_mask(cfg, state, mask)
    return np.flatnonzero(mask).astype(np.int64)


@generic
def chance_support(cfg, state, probs):
    """The possible chance outcomes here and their probabilities, as two arrays."""
    rules.chance_outcomes(cfg, state, probs)
    outcomes = np.flatnonzero(probs > 0.0)
    return outcomes, probs[outcomes]


# --- the game ---------------------------------------------------------------------------------

class KernelGame(pyspiel.Game):
    """A pyspiel game over a rules kernel; subclassed once per game by ``register``."""

    kernel: Kernel

    def __init__(self, params: dict[str, Any] | None = None):
        kernel = self.kernel
        self.params = kernel.resolve_params(params)
        self.config: Config = kernel.configure(self.params)
        config = self.config
        game_type = declare(kernel, config).game_type()
        game_info = pyspiel.GameInfo(
            num_distinct_actions=config.num_actions,
            max_chance_outcomes=config.max_chance_outcomes,
            num_players=config.num_players,
            min_utility=config.min_utility,
            max_utility=config.max_utility,
            utility_sum=config.utility_sum,
            max_game_length=config.max_game_length,
        )
        super().__init__(game_type, game_info, self.params)
        self.cfg = config.cfg
        # The one-state functions compiled for this game, looked up once.
        self._apply_fn = checked_apply[kernel]
        self._legal_fn = legal_actions[kernel]
        self._chance_fn = chance_support[kernel]
        # Scratch buffers shared by this game's states (OpenSpiel states are used
        # from one thread at a time; the buffers never carry data between calls).
        self._mask = np.zeros(config.num_actions, np.bool_)
        self._probs = np.zeros(max(config.max_chance_outcomes, 1), np.float64)
        self._returns = np.zeros(config.num_players, np.float64)

    def new_initial_state(self) -> KernelState:
        return KernelState(self)

    def __reduce__(self):
        return (_load, (str(self),))

    def __deepcopy__(self, memo) -> KernelGame:
        # Games are immutable; pyspiel's State.clone deep-copies state attributes.
        return self

    def make_py_observer(self, iig_obs_type=None, params=None) -> KernelObserver:
        return KernelObserver(self, iig_obs_type, params)

    def max_chance_nodes_in_history(self) -> int:
        return self.config.max_chance_nodes

    def state_from_array(self, data: np.ndarray) -> KernelState:
        """A state holding a copy of a kernel state array (e.g. a vector env's row)."""
        if data.shape != (self.config.state_size,):
            raise ValueError(
                f"{self.kernel.short_name}: a state array has shape ({self.config.state_size},), "
                f"got {data.shape}"
            )
        return KernelState(self, np.asarray(data, self.kernel.state_dtype).copy())


class KernelState(pyspiel.State):
    """A pyspiel state holding one kernel state array (``state.array``)."""

    def __init__(self, game: KernelGame, data: np.ndarray | None = None):
        super().__init__(game)
        # Only these three attributes: pyspiel's clone deep-copies each of them.
        self._kgame = game
        if data is None:
            data = np.zeros(game.config.state_size, game.kernel.state_dtype)
            game.kernel.init(game.cfg, data)
        self._data = data
        self._player = int(game.kernel.current_player(game.cfg, data))

    def __reduce__(self):
        # The state array is the truth, not the history: a state built from an array
        # (``resample_from_infostate``, ``state_from_array``) records no history, so
        # replaying it would silently give the initial state. OpenSpiel's serialization
        # carries the array together with whatever history the state does record.
        return (_deserialize, (str(self._kgame), self.serialize()))

    def __deepcopy__(self, memo) -> KernelState:
        # clone copies the array and history directly; the default would go through
        # __reduce__ and a serialized string.
        return self.clone()

    @property
    def array(self) -> np.ndarray:
        """The kernel state array (read it, do not write it)."""
        return self._data

    def current_player(self) -> int:
        return self._player

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def is_chance_node(self) -> bool:
        return self._player == CHANCE

    def _legal_actions(self, player: int) -> list[int]:
        if player != self._player:
            return []
        game = self._kgame
        return game._legal_fn(game.cfg, self._data, game._mask).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._player != CHANCE:
            return []
        game = self._kgame
        outcomes, probs = game._chance_fn(game.cfg, self._data, game._probs)
        return list(zip(outcomes.tolist(), probs.tolist()))

    def apply_action(self, action: int) -> None:
        # OpenSpiel's C++ refuses -1 (kInvalidAction) itself, with an untyped error it
        # also prints to stderr; every other id reaches _apply_action and its message.
        if action == -1:
            raise ValueError(self._illegal_message(action))
        super().apply_action(action)

    def _apply_action(self, action: int) -> None:
        game = self._kgame
        player = game._apply_fn(game.cfg, self._data, int(action), game._mask, game._probs)
        if player == ILLEGAL:
            raise ValueError(self._illegal_message(action))
        self._player = int(player)

    def _illegal_message(self, action: int) -> str:
        name = self._kgame.kernel.short_name
        if self._player == TERMINAL:
            return f"{name}: action {action} applied to a terminal state:\n{self}"
        what = "chance outcome" if self._player == CHANCE else f"action for player {self._player}"
        legal = (
            [a for a, _ in self.chance_outcomes()] if self._player == CHANCE else self._legal_actions(self._player)
        )
        return f"{name}: illegal {what} {action}{self._named(action)}; legal: {self._names(legal)}; state:\n{self}"

    def _named(self, action: int) -> str:
        """`` (its string)`` for an action that has one here, else nothing."""
        try:
            return f" ({self._action_to_string(self._player, action)})"
        except Exception:  # an id out of range has no string; the message names the id
            return ""

    def _names(self, actions: list[int]) -> str:
        return ", ".join(f"{a}{self._named(a)}" for a in actions)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._kgame.kernel.action_to_string(self._kgame.cfg, self._data, player, int(action))

    def resample_from_infostate(self, player_id: int, probability_sampler) -> KernelState:
        """A state ``player_id`` cannot tell from this one, hidden parts redrawn.

        Uses the kernel's ``resample``; ``probability_sampler()`` returns floats in
        [0, 1) (OpenSpiel's convention) and seeds the draw. The returned state has no
        recorded history and move number 0: only its state array is meaningful (and
        pickle, clone and serialization carry it).
        """
        # The kernel redraws the hidden parts of the array, not the actions that led
        # there. This state's history would replay to the true world, revealing what
        # ``player_id`` cannot see, so the sampled world records none.
        game = self._kgame
        if game.kernel.resample is None:
            raise NotImplementedError(f"{game.kernel.short_name}: the kernel provides no resample")
        if not 0 <= player_id < game.config.num_players:
            raise ValueError(f"{game.kernel.short_name}: player {player_id} is out of range")
        rng = np.array([int(probability_sampler() * 2.0**63)], np.uint64)
        out = np.empty_like(self._data)
        game.kernel.resample(game.cfg, self._data, player_id, rng, out)
        return KernelState(game, out)

    def returns(self) -> list[float]:
        out = self._kgame._returns
        self._kgame.kernel.returns(self._kgame.cfg, self._data, out)
        return out.tolist()

    def rewards(self) -> list[float]:
        # Terminal reward model: all of the return arrives with the last action.
        if self._player == TERMINAL:
            return self.returns()
        return [0.0] * self._kgame.config.num_players

    def __str__(self) -> str:
        return self._kgame.kernel.state_to_string(self._kgame.cfg, self._data)

    def _repr_svg_(self) -> str:
        """Jupyter draws a state as its picture: ``elements_ai.render.render(self)``."""
        from ..render import render

        return render(self)


def _load(game_string: str) -> KernelGame:
    """The game ``game_string`` (used by pickle; importing this module registered the games)."""
    return pyspiel.load_game(game_string)


def _deserialize(game_string: str, data: str) -> KernelState:
    """The state ``data`` (from ``state.serialize()``) of the game ``game_string`` (used by pickle)."""
    return _load(game_string).deserialize_state(data)


class KernelObserver:
    """OpenSpiel's PyObserver over the kernel encoders, for every ``IIGObservationType``.

    ``public_info=True, private_info=SINGLE_PLAYER`` (the default) is the game's own
    view: ``perfect_recall=False`` the observation, ``True`` the information state.
    Every other type is cut from those by the game's ``PRIVACY`` (``core.observers``):
    the public view, one seat's or every seat's private view, or both.

    >>> import elements_ai, pyspiel
    >>> game = elements_ai.load_game("elements", single_round=True)
    >>> mine = pyspiel.IIGObservationType(perfect_recall=True, public_info=False)
    >>> list(game.make_py_observer(mine).dict)
    ['hand', 'deal']
    """

    def __init__(self, game: KernelGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{game.kernel.short_name}: observer parameters are not supported, got {params}")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        self._game = game
        self._cfg = game.config.cfg
        self._perfect_recall = bool(obs_type.perfect_recall)
        kernel, config = game.kernel, game.config
        if self._perfect_recall:
            pieces = config.info_pieces
            self._encode = kernel.encode_information_state
            self._string = kernel.information_state_string
        else:
            pieces = config.obs_pieces
            self._encode = kernel.encode_observation
            self._string = kernel.observation_string
        self._view = view_of(
            kernel.short_name, kernel.privacy, config.num_players, config.obs_pieces, config.info_pieces, obs_type
        )
        if self._view is not None:
            pieces = self._view.pieces
            # The game's own encodings the view is cut from: one per seat it reads,
            # and the observer's.
            size = config.info_size if self._perfect_recall else config.obs_size
            self._scratch = np.zeros((config.num_players + 1, size), np.float32)
            self._text = np.zeros(self._view.size, np.float32)
        self.tensor = np.zeros(sum(piece.size for piece in pieces), np.float32)
        self.dict = {piece.name: self.tensor[piece.offset : piece.stop].reshape(piece.shape) for piece in pieces}

    def _check_player(self, player: int) -> None:
        if not 0 <= player < self._game.config.num_players:
            raise ValueError(
                f"{self._game.kernel.short_name}: player {player} is out of range "
                f"0..{self._game.config.num_players - 1}"
            )

    def set_from(self, state: KernelState, player: int) -> None:
        self._check_player(player)
        if self._view is None:
            self._encode(self._cfg, state._data, player, self.tensor)
        else:
            self._cut(state, player, self.tensor)

    def _cut(self, state: KernelState, player: int, out: np.ndarray) -> None:
        view = self._view
        seats = {}
        for seat in view.seats():
            seats[seat] = self._scratch[seat]
            self._encode(self._cfg, state._data, seat, seats[seat])
        own = None
        if view.needs_observer:
            own = seats.get(player)
            if own is None:
                own = self._scratch[-1]
                self._encode(self._cfg, state._data, player, own)
        view.assemble(seats, own, out)

    def string_from(self, state: KernelState, player: int) -> str:
        self._check_player(player)
        if self._view is None:
            return self._string(self._cfg, state._data, player)
        # Its own buffer: a string leaves ``tensor`` as the last set_from wrote it.
        self._cut(state, player, self._text)
        return self._view.string(self._text)


# Each kernel's Game class, made once (games/__init__.py registers factories that make them).
_CLASSES: dict[Kernel, type[KernelGame]] = {}


def game_class(kernel: Kernel) -> type[KernelGame]:
    """The ``KernelGame`` subclass of ``kernel``'s game."""
    cls = _CLASSES.get(kernel)
    if cls is None:
        cls = type(
            "".join(part.title() for part in kernel.short_name.split("_")) + "Game",
            (KernelGame,),
            {"kernel": kernel, "__doc__": f"{kernel.long_name} as a pyspiel game.", "__module__": __name__},
        )
        # pickle finds classes by module and name: publish the class here.
        globals()[cls.__name__] = cls
        _CLASSES[kernel] = cls
    return cls


def register(kernel: Kernel) -> type[KernelGame]:
    """Registers ``kernel`` with pyspiel under its short name; returns the Game class.

    The games under ``games/`` register on import; this is for a kernel made elsewhere.
    """
    cls = game_class(kernel)
    pyspiel.register_game(declare(kernel).game_type(), cls)
    return cls
