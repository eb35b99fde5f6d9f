"""The games. Each lives in ``games/<name>/``: ``rules.py`` (the state layout and the
rules) with ``resample.py``, ``heuristic.py``, ``encode.py`` and ``strings.py`` beside it
(or one module for everything, see ``core/kernel.py``), ``RULES.md`` (the rulings) and
``__init__.py`` exposing the kernel as ``KERNEL``.

Every subpackage here that exposes ``KERNEL`` is a game: adding a game means adding
its folder; registration (when this package is imported) and all three faces follow.
"""

import importlib
import pkgutil

from ..core.kernel import Kernel


def _discover() -> dict[str, Kernel]:
    kernels = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.ispkg:
            module = importlib.import_module(f"{__name__}.{info.name}")
            kernel = getattr(module, "KERNEL", None)
            if isinstance(kernel, Kernel):
                kernels[kernel.short_name] = kernel
    return kernels


KERNELS: dict[str, Kernel] = _discover()


def _register_all() -> None:
    # Here rather than in the package's __init__: whoever holds the kernels can load
    # their games with pyspiel.load_game, and ``import elements_ai`` stays light.
    from ..core.spiel import register

    for kernel in KERNELS.values():
        register(kernel)


_register_all()
