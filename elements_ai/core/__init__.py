"""What every game shares: the kernel protocol, the OpenSpiel face, the vector face."""

from .kernel import CHANCE, TERMINAL, Config, Kernel, Param
from .spiel import KernelGame, KernelObserver, KernelState, register
from .vec import VecEnv, random_playouts

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Config",
    "Kernel",
    "KernelGame",
    "KernelObserver",
    "KernelState",
    "Param",
    "VecEnv",
    "random_playouts",
    "register",
]
