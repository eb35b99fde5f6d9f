"""The games. Each lives in ``games/<name>/``: ``game.toml`` (what pyspiel registers,
see ``elements_ai.declaration``), ``rules.py`` (the state layout and the rules) with
``resample.py``, ``heuristic.py``, ``encode.py`` and ``strings.py`` beside it (or one
module for everything, see ``core/kernel.py``), ``RULES.md`` (the rulings) and
``__init__.py`` exposing the kernel as ``KERNEL``.

Every subpackage here with a ``game.toml`` is a game: adding a game means adding its
folder; registration and all three faces follow. This package registers every game
with pyspiel from the declarations alone (``import elements_ai`` imports it); a
game's kernel, and numba with it, loads when ``KERNELS`` is first asked for it.

>>> list(DECLARATIONS)
['elemental_duel', 'elementos', 'elements', 'elements1997', 'elementum']
>>> KERNELS["elements"].long_name
'Elements (2016)'
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

import pyspiel

from ..declaration import DECLARATION_FILE, Declaration, check

if TYPE_CHECKING:
    from ..core.kernel import Kernel
    from ..core.spiel import KernelGame

__all__ = ["DECLARATIONS", "KERNELS"]


def _declarations() -> dict[str, Declaration]:
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        path = Path(info.module_finder.path) / info.name / DECLARATION_FILE
        if info.ispkg and path.is_file():
            found[info.name] = Declaration.read(path, info.name)
    return found


DECLARATIONS: dict[str, Declaration] = _declarations()


class _Kernels(MutableMapping):
    """The games' kernels by short name, each imported (and checked against its
    declaration) when first asked for; a kernel set here (a test's toy game) is kept as given."""

    def __init__(self, names):
        self._kernels: dict[str, Kernel | None] = dict.fromkeys(names)

    def __getitem__(self, name: str) -> Kernel:
        kernel = self._kernels[name]
        if kernel is None:
            kernel = importlib.import_module(f"{__name__}.{name}").KERNEL
            check(kernel, DECLARATIONS[name], Path(__path__[0]) / name / DECLARATION_FILE)
            self._kernels[name] = kernel
        return kernel

    def __setitem__(self, name: str, kernel: Kernel) -> None:
        self._kernels[name] = kernel

    def __delitem__(self, name: str) -> None:
        del self._kernels[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kernels)

    def __len__(self) -> int:
        return len(self._kernels)

    def __contains__(self, name: object) -> bool:
        return name in self._kernels

    def __repr__(self) -> str:
        return f"KERNELS({', '.join(self._kernels)})"


KERNELS: MutableMapping[str, Kernel] = _Kernels(DECLARATIONS)


class _Registered:
    """What pyspiel calls to make a game: the game of the kernel ``short_name`` (its
    kernel loads the first time). A class rather than a function: pyspiel keeps what
    it registers until the process ends, and a closure freed then would crash it."""

    short_name: str

    def __new__(cls, params=None) -> KernelGame:
        from ..core.spiel import game_class

        return game_class(KERNELS[cls.short_name])(params)


for _name, _declared in DECLARATIONS.items():
    pyspiel.register_game(_declared.game_type(), type(f"Registered_{_name}", (_Registered,), {"short_name": _name}))
