"""elements_ai: five small games about the elements, for game-AI research.

Each game is one numba rules kernel with three faces: an OpenSpiel game
(``load_game``), a vectorised environment (``make_vec``) and batch tensor encoders.
Importing the package registers every game with ``pyspiel``.

>>> import elements_ai
>>> "elements" in elements_ai.GAMES
True
>>> game = elements_ai.load_game("elements", single_round=True)
>>> state = game.new_initial_state()
>>> state.chance_outcomes()
[(0, 0.5), (1, 0.5)]
"""

from __future__ import annotations

import os
from typing import Any

# The vector env runs one short parallel region per call. With GNU OpenMP (numba's
# usual threading layer) left at its defaults, its workers fell asleep between two
# calls and waking them cost more than the step: on 2 cores the vector env ran no
# faster than on one. An explicit spin count (libgomp's documented default, read
# when numba first starts its threads) keeps them ready; a user's own setting wins.
os.environ.setdefault("GOMP_SPINCOUNT", "300000")

import pyspiel  # noqa: E402

from .core import CHANCE, TERMINAL, Kernel, VecEnv, register  # noqa: E402
from .core.params import ParameterError  # noqa: E402
from .games import KERNELS  # noqa: E402

__version__ = "0.1.0"

GAMES: tuple[str, ...] = tuple(KERNELS)

for _kernel in KERNELS.values():
    register(_kernel)


def get_kernel(name: str) -> Kernel:
    """The rules kernel of a game, by short name; ``ParameterError`` for an unknown one."""
    try:
        return KERNELS[name]
    except KeyError:
        raise ParameterError(f"unknown game {name!r}; the games are {', '.join(GAMES)}") from None


def load_game(name: str, **params: Any) -> pyspiel.Game:
    """The OpenSpiel game ``name`` with ``params``.

    ``name`` may also be a full game string such as ``"elements(single_round=true)"``.
    A bad name or parameter raises ``ParameterError``, which is both a
    ``pyspiel.SpielError`` (as from ``pyspiel.load_game``) and a ``ValueError``.

    >>> load_game("elements", hand_size=2, deck="1_2_3_6_6_6", single_round=True)
    elements(deck=1_2_3_6_6_6,hand_size=2,single_round=True,target_score=6)
    """
    if "(" in name:
        if params:
            raise ParameterError("give parameters either in the game string or as keywords, not both")
        get_kernel(name[: name.index("(")])
        return pyspiel.load_game(name)
    kernel = get_kernel(name)
    return pyspiel.load_game(name, kernel.resolve_params(params))


def make_vec(
    name: str,
    num_envs: int,
    seed: int = 0,
    auto_chance: bool = True,
    autoreset: bool = False,
    **params: Any,
) -> VecEnv:
    """A vector env of ``num_envs`` games ``name`` (see ``VecEnv``).

    >>> env = make_vec("elements", num_envs=8, seed=1, single_round=True)
    >>> env.current_player.shape, env.legal_mask.shape
    ((8,), (8, 10))
    """
    kernel = get_kernel(name)
    config = kernel.configure(kernel.resolve_params(params))
    return VecEnv(kernel, config, num_envs, seed=seed, auto_chance=auto_chance, autoreset=autoreset)


__all__ = ["CHANCE", "GAMES", "TERMINAL", "ParameterError", "VecEnv", "get_kernel", "load_game", "make_vec"]
