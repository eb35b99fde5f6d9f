"""The kernel protocol: what one game provides so that every face can run it.

A game's rules are numba-jitted functions over a flat integer state array. Every
function takes the instance's configuration array ``cfg`` first, so one compiled
kernel serves every parameter set of the game (no recompilation per variant). A
game is a folder under ``games/``, one module per concern::

    game.toml     what pyspiel registers before the kernel loads: names, player counts,
                  utility, the parameters' defaults (``elements_ai.declaration``)
    rules.py      PARAMS, VARIANTS, configure, the state layout (``core.layout``) and
                  the rules: init, current_player, legal_mask, chance_outcomes, apply,
                  returns (and sample_legal, sample_chance)
    resample.py   resample
    heuristic.py  heuristic (the ``rules`` bot)
    endgame.py    Endgame (optional: exact play near the end, the ``endgame=`` of ``ppo``)
    encode.py     encode_observation, encode_information_state
    strings.py    action_to_string, state_to_string, observation_string,
                  information_state_string

and its ``__init__.py`` builds the ``Kernel`` with ``Kernel.from_rules(__name__)``.
A game may as well start as one module that defines everything (then not registered
on import: ``core.spiel.register`` registers its kernel).

Jitted functions, whose contracts ``core/rules.py`` states one by one::

    init(cfg, state)                                   # hot
    current_player(cfg, state) -> int                  # hot: player, CHANCE or TERMINAL
    legal_mask(cfg, state, mask)                       # hot
    chance_outcomes(cfg, state, probs)                 # hot
    apply(cfg, state, action)                          # hot
    returns(cfg, state, out)                           # hot
    encode_observation(cfg, state, player, out)        # the pieces of Config.obs_pieces
    encode_information_state(cfg, state, player, out)  # the pieces of Config.info_pieces
    sample_legal(cfg, state, u) -> action              # optional, hot: large action spaces
    sample_chance(cfg, state, u) -> outcome            # optional, hot: many chance outcomes
    resample(cfg, state, player, rng, out)             # optional: information-set search
    heuristic(cfg, state, player, rng) -> action       # optional: the "rules" bot

The hot ones run inside rollouts and the vector env: a game jits them (and what they
call) with ``_nrt=False``, without numba's runtime (see ``core/rules.py``); they must
not allocate arrays.

Plain Python functions (strings are for people, not for speed)::

    action_to_string(cfg, state, player, action) -> str
    state_to_string(cfg, state) -> str
    observation_string(cfg, state, player) -> str
    information_state_string(cfg, state, player) -> str

And a declaration, ``PRIVACY`` in encode.py (a ``core.observers.Privacy``): which
tensor pieces hold what only the observer knows, from which every other
observation type (public, private, all players') is cut.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..declaration import DECLARATION_FILE, Declaration
from .layout import Piece
from .observers import Privacy
from .params import Param, ParameterError, ParamValue, int_range, one_of, resolve
from .rules import KERNEL_FUNCTIONS, OPTIONAL_FUNCTIONS

__all__ = ["CHANCE", "TERMINAL", "Config", "Kernel", "Param", "ParameterError", "int_range", "one_of"]

# OpenSpiel's player ids for the nodes that are not a player's decision.
CHANCE = -1
TERMINAL = -4


@dataclasses.dataclass(frozen=True)
class Config:
    """One configured instance of a game: the sizes every face needs, and ``cfg``.

    ``obs_pieces`` / ``info_pieces`` are the consecutive parts of the flat
    observation / information-state tensors, as placed by a ``core.layout``
    (their offsets are in ``cfg``); the OpenSpiel observer exposes them as
    ``observer.dict[name]``. ``state_pieces`` are the state array's, as placed by
    a state layout (``core.layout.views`` reads a state by them).
    """

    cfg: np.ndarray
    num_players: int
    num_actions: int
    max_chance_outcomes: int
    state_size: int
    obs_pieces: tuple[Piece, ...]
    info_pieces: tuple[Piece, ...]
    min_utility: float
    max_utility: float
    max_game_length: int
    max_chance_nodes: int
    utility_sum: float | None = 0.0
    perfect_information: bool = False
    deterministic: bool = False
    state_pieces: tuple[Piece, ...] = ()

    def __post_init__(self):
        for kind, pieces in (("observation", self.obs_pieces), ("information-state", self.info_pieces)):
            offset = 0
            for piece in pieces:
                if not isinstance(piece, Piece) or piece.offset != offset or self.cfg[piece.slot] != offset:
                    raise ValueError(f"{kind} piece {piece!r} is not placed in cfg by a tensor layout")
                offset = piece.stop
        offset = 0
        for piece in self.state_pieces:
            if piece.offset != offset or (piece.slot is not None and self.cfg[piece.slot] != offset):
                raise ValueError(f"state piece {piece!r} is not placed by a state layout")
            offset = piece.stop
        if self.state_pieces and offset != self.state_size:
            raise ValueError(f"the state pieces end at {offset}, but state_size is {self.state_size}")

    @property
    def obs_size(self) -> int:
        return sum(piece.size for piece in self.obs_pieces)

    @property
    def info_size(self) -> int:
        return sum(piece.size for piece in self.info_pieces)


@dataclasses.dataclass(frozen=True, eq=False)
class Kernel:
    """Everything one game provides; see the module docstring for the signatures."""

    short_name: str
    long_name: str
    min_num_players: int
    max_num_players: int
    params: Mapping[str, Param]
    configure: Callable[[dict[str, ParamValue]], Config]
    init: Callable
    current_player: Callable
    legal_mask: Callable
    chance_outcomes: Callable
    apply: Callable
    returns: Callable
    encode_observation: Callable
    encode_information_state: Callable
    action_to_string: Callable[..., str]
    state_to_string: Callable[..., str]
    observation_string: Callable[..., str]
    information_state_string: Callable[..., str]
    sample_legal: Callable | None = None
    sample_chance: Callable | None = None
    resample: Callable | None = None
    heuristic: Callable | None = None
    # ``Endgame(cfg, depth)``, whose ``policy(state)`` is the exact play of the mover
    # once at most ``depth`` rounds of the game remain (None before).
    endgame: type | None = None
    # What only the observer knows in the tensors (``PRIVACY`` in encode.py): the
    # public and private observers (``core.observers``) are cut by it.
    privacy: Privacy | None = None
    # Named parameter sets (``VARIANTS`` in the rules module), "default" first: the
    # generic tests run every check on each, so a game states its small variants once.
    variants: Mapping[str, Mapping[str, ParamValue]] = dataclasses.field(default_factory=lambda: {"default": {}})
    state_dtype: type = np.int16
    # Marks the games whose every variant is deterministic and perfect-information
    # in the registered pyspiel.GameType (instances report their own in Config).
    perfect_information: bool = False
    deterministic: bool = False

    @classmethod
    def from_rules(cls, game: str | types.ModuleType, **info: Any) -> Kernel:
        """The kernel of a game package (its modules, see the module docstring), or of
        one module that defines everything; a name is imported. ``PARAMS`` and
        ``configure`` come with the functions, ``VARIANTS`` when defined.

        ``info`` gives the rest: ``long_name``, ``min_num_players``,
        ``max_num_players`` and any optional field; a package's ``game.toml``
        (``elements_ai.declaration``) gives those it declares. ``short_name`` defaults
        to the game's folder name (or module name); the optional functions
        (``sample_legal``, ``sample_chance``, ``resample``, ``heuristic``) are taken
        when defined.

        >>> from elements_ai.games import elements
        >>> kernel = Kernel.from_rules(elements)
        >>> kernel.long_name, kernel.heuristic is elements.heuristic.heuristic, kernel.variants["small"]["hand_size"]
        ('Elements (2016)', True, 2)
        """
        if isinstance(game, str):
            game = importlib.import_module(game)
        modules = _game_modules(game)
        declared = _declared(game)
        if declared is not None:
            for name in ("long_name", "min_num_players", "max_num_players", "perfect_information", "deterministic"):
                info.setdefault(name, getattr(declared, name))

        def find(name: str, required: bool = True):
            for module in modules:
                if hasattr(module, name):
                    return getattr(module, name)
            if required:
                raise AttributeError(f"{game.__name__}: no module of the game defines {name!r}")
            return None

        functions = {name: find(name) for name in _RULES_FUNCTIONS}
        for name in OPTIONAL_FUNCTIONS:
            if find(name, required=False) is not None:
                functions[name] = find(name)
        parts = game.__name__.split(".")
        info.setdefault("short_name", parts[-2] if parts[-1] == "rules" and len(parts) > 1 else parts[-1])
        variants = dict(find("VARIANTS", required=False) or {"default": {}})
        info.setdefault("privacy", find("PRIVACY", required=False))
        info.setdefault("endgame", find("Endgame", required=False))
        if variants.get("default", None) != {} or next(iter(variants)) != "default":
            raise ValueError(f"{info['short_name']}: VARIANTS must start with 'default': {{}}")
        return cls(params=find("PARAMS"), configure=find("configure"), variants=variants, **functions, **info)

    def resolve_params(self, params: Mapping[str, Any] | None = None) -> dict[str, ParamValue]:
        """Full parameter dict (defaults filled in) after checking names, types and ranges.

        Raises ``ParameterError`` (a ``pyspiel.SpielError`` and a ``ValueError``).

        >>> from elements_ai.games.elements import KERNEL
        >>> KERNEL.resolve_params({"single_round": "true"})["single_round"]
        True
        """
        return resolve(dict(self.params), dict(params or {}), self.short_name)


_RULES_FUNCTIONS = KERNEL_FUNCTIONS + (
    "action_to_string",
    "state_to_string",
    "observation_string",
    "information_state_string",
)


# A game package's modules, by concern; each kernel function is looked up in them in this order.
GAME_MODULES = ("rules", "resample", "heuristic", "endgame", "encode", "strings")


def _declared(game: types.ModuleType) -> Declaration | None:
    """A game package's declaration (``game.toml``), if it has one."""
    for folder in getattr(game, "__path__", ()):
        path = Path(folder) / DECLARATION_FILE
        if path.is_file():
            return Declaration.read(path, Path(folder).name)
    return None


def _game_modules(game: types.ModuleType) -> list[types.ModuleType]:
    if not hasattr(game, "__path__"):  # one module holds the whole game
        return [game]
    return [
        importlib.import_module(f"{game.__name__}.{name}")
        for name in GAME_MODULES
        if importlib.util.find_spec(f"{game.__name__}.{name}") is not None
    ]
