"""elements_ai: five small games about the elements, for game-AI research.

Each game is one numba rules kernel with three faces: an OpenSpiel game
(``load_game``, which takes a name or a game string), a vectorised environment
(``make_vec``) and batch tensor encoders. Importing the package registers every game
with ``pyspiel``, as OpenSpiel's own Python games register:

>>> import pyspiel, elements_ai
>>> pyspiel.load_game("elements(single_round=true)").num_players()
2
>>> "elements" in elements_ai.GAMES
True
>>> game = elements_ai.load_game("elements", single_round=True)
>>> state = game.new_initial_state()
>>> state.chance_outcomes()
[(0, 0.5), (1, 0.5)]
"""

from __future__ import annotations

import os
import sys


def _quiet_interrupt(kind, value, traceback, _previous=sys.excepthook) -> None:
    # An interrupt may also reach the importer as an ImportError (pybind11's modules turn it into one).
    cause = value
    while cause is not None and not isinstance(cause, KeyboardInterrupt):
        cause = cause.__cause__ or cause.__context__
    if cause is not None:
        sys.stderr.flush()
        os._exit(130)
    _previous(kind, value, traceback)


# Registering the games below imports pyspiel, which takes a moment: a Ctrl-C then (a
# command starting, a script importing the package) ends the program as the command's
# Ctrl-C does, with status 130 and no traceback of the import. The hook is left in
# place only if the import fails.
_excepthook, sys.excepthook = sys.excepthook, _quiet_interrupt

from typing import Any  # noqa: E402

# The vector env runs one short parallel region per call. With GNU OpenMP (numba's
# usual threading layer) left at its defaults, its workers fell asleep between two
# calls and waking them cost more than the step: on 2 cores the vector env ran no
# faster than on one. An explicit spin count (libgomp's documented default, read
# when numba first starts its threads) keeps them ready; a user's own setting wins.
os.environ.setdefault("GOMP_SPINCOUNT", "300000")

import importlib  # noqa: E402

from . import games  # noqa: E402, F401  (registers every game with pyspiel)

sys.excepthook = _excepthook

__version__ = "0.1.0"

# The games register from their declarations (games/<id>/game.toml) and the package
# imports nothing heavier than pyspiel, so that ``elements-ai --help`` answers at once:
# numba and the kernels load with the first game made.
_LAZY = {
    "CHANCE": "core",
    "TERMINAL": "core",
    "VecEnv": "core",
    "ParameterError": "core.params",
    "GAMES": "loader",
    "get_kernel": "loader",
    "load_game": "loader",
    "make_vec": "loader",
    "render": "render",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = ["CHANCE", "GAMES", "TERMINAL", "ParameterError", "VecEnv", "get_kernel", "load_game", "make_vec", "render"]
