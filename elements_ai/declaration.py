"""What a game declares before its kernel loads (``games/<id>/game.toml``), and the
``pyspiel.GameType`` made from it.

pyspiel wants a game's type (its names, player counts, utility and parameters with
their defaults) when the game is registered. ``import elements_ai`` registers every
game from these declarations alone, as OpenSpiel's own Python games register on
import, while numba and the kernels load with the first game made. A kernel is checked
against its declaration when it loads (``check``), so the two cannot drift apart.

A declaration reads::

    long_name = "Elements (2016)"
    min_num_players = 2
    max_num_players = 2
    utility = "zero_sum"                # of the default game: zero_sum, constant_sum or general_sum
    public_private_observations = true  # the kernel declares PRIVACY
    [params]                            # every parameter with its default
    hand_size = 6

and, when true of every variant, ``perfect_information`` and ``deterministic``.

>>> from elements_ai.games import DECLARATIONS
>>> declared = DECLARATIONS["elements"]
>>> declared.long_name, declared.params["hand_size"]
('Elements (2016)', 6)
>>> declared.game_type().utility
<Utility.ZERO_SUM: 0>
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyspiel

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

if TYPE_CHECKING:
    from .core.kernel import Config, Kernel

__all__ = ["DECLARATION_FILE", "Declaration", "check", "declare"]

DECLARATION_FILE = "game.toml"

UTILITIES = {
    "zero_sum": pyspiel.GameType.Utility.ZERO_SUM,
    "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
    "general_sum": pyspiel.GameType.Utility.GENERAL_SUM,
}


@dataclasses.dataclass(frozen=True)
class Declaration:
    """A game's registered type, as its folder declares it or its kernel implies it (``declare``)."""

    short_name: str
    long_name: str
    min_num_players: int
    max_num_players: int
    params: Mapping[str, bool | int | float | str]
    utility: str = "zero_sum"
    public_private_observations: bool = False
    perfect_information: bool = False
    deterministic: bool = False

    @classmethod
    def read(cls, path: str | Path, short_name: str) -> Declaration:
        """The declaration in ``path`` (a ``game.toml``) of the game ``short_name``;
        ``ValueError`` naming the file and the problem."""
        path = Path(path)
        try:
            with path.open("rb") as handle:
                table = tomllib.load(handle)
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"{path}: {error}") from None
        fields = {field.name: field for field in dataclasses.fields(cls) if field.name != "short_name"}
        unknown = sorted(set(table) - set(fields))
        missing = [name for name, field in fields.items() if field.default is dataclasses.MISSING and name not in table]
        if unknown or missing:
            problem = f"unknown keys {', '.join(unknown)}" if unknown else f"missing keys {', '.join(missing)}"
            raise ValueError(f"{path}: {problem}")
        if table.get("utility", "zero_sum") not in UTILITIES:
            raise ValueError(f"{path}: utility is one of {', '.join(UTILITIES)}, got {table['utility']!r}")
        if not isinstance(table["params"], dict):
            raise ValueError(f"{path}: params is a table of the parameters' defaults")
        return cls(short_name=short_name, **table)

    def game_type(self) -> pyspiel.GameType:
        """The ``pyspiel.GameType`` the game registers (an instance reports its own)."""
        information = pyspiel.GameType.Information
        chance = pyspiel.GameType.ChanceMode
        return pyspiel.GameType(
            short_name=self.short_name,
            long_name=self.long_name,
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=chance.DETERMINISTIC if self.deterministic else chance.EXPLICIT_STOCHASTIC,
            information=(
                information.PERFECT_INFORMATION if self.perfect_information else information.IMPERFECT_INFORMATION
            ),
            utility=UTILITIES[self.utility],
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=self.max_num_players,
            min_num_players=self.min_num_players,
            provides_information_state_string=True,
            provides_information_state_tensor=True,
            provides_observation_string=True,
            provides_observation_tensor=True,
            # The public and private observation strings (core/observers.py).
            provides_factored_observation_string=self.public_private_observations,
            parameter_specification=dict(self.params),
        )

    def differences(self, other: Declaration) -> list[str]:
        """Where ``other`` differs from this one, in words (``[]``: nowhere)."""
        found = []
        for field in dataclasses.fields(self):
            mine, theirs = getattr(self, field.name), getattr(other, field.name)
            if field.name == "params":
                for name in dict.fromkeys([*mine, *theirs]):
                    if name not in mine or name not in theirs or _typed(mine[name]) != _typed(theirs[name]):
                        found.append(f"parameter {name}: {_shown(mine, name)} against {_shown(theirs, name)}")
            elif mine != theirs:
                found.append(f"{field.name}: {mine!r} against {theirs!r}")
        return found


def _typed(value: Any) -> tuple[type, Any]:
    # True == 1 in Python, but not to pyspiel: a bool declared for an int is a difference.
    return type(value), value


def _shown(params: Mapping[str, Any], name: str) -> str:
    return repr(params[name]) if name in params else "none"


def declare(kernel: Kernel, config: Config | None = None) -> Declaration:
    """The declaration ``kernel`` implies: the registered one (from its default game and
    the flags it sets for every variant) or, given an instance's ``config``, that instance's."""
    if config is None:
        config = kernel.configure(kernel.resolve_params({}))
        perfect_information, deterministic = kernel.perfect_information, kernel.deterministic
    else:
        perfect_information, deterministic = config.perfect_information, config.deterministic
    if config.num_players == 1 or config.utility_sum is None:
        utility = "general_sum"
    else:
        utility = "zero_sum" if config.utility_sum == 0 else "constant_sum"
    return Declaration(
        short_name=kernel.short_name,
        long_name=kernel.long_name,
        min_num_players=kernel.min_num_players,
        max_num_players=kernel.max_num_players,
        params={name: param.default for name, param in kernel.params.items()},
        utility=utility,
        public_private_observations=kernel.privacy is not None,
        perfect_information=perfect_information,
        deterministic=deterministic,
    )


def check(kernel: Kernel, declared: Declaration, path: str | Path) -> None:
    """``ValueError`` unless ``kernel`` registers as ``declared`` (read from ``path``) says."""
    found = declared.differences(declare(kernel))
    if found:
        raise ValueError(f"{path} does not declare what the game's kernel does (declared against the kernel's): "
                         f"{'; '.join(found)}")
