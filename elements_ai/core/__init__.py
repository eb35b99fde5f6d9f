"""What every game shares: the kernel protocol, the OpenSpiel face, the vector face,
and ``@generic`` numba functions compiled for any game."""

from .generic import generic, rules
from .kernel import CHANCE, TERMINAL, Config, Kernel, Param
from .layout import tensor_layout
from .params import ParameterError
from .playouts import random_playouts
from .spiel import KernelGame, KernelObserver, KernelState, register
from .vec import VecEnv

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Config",
    "Kernel",
    "KernelGame",
    "KernelObserver",
    "KernelState",
    "Param",
    "ParameterError",
    "VecEnv",
    "generic",
    "random_playouts",
    "register",
    "rules",
    "tensor_layout",
]
