"""Trees built straight from a game's rules kernel, in numba (see ``tree.py``)."""

from __future__ import annotations

import numpy as np
import pyspiel

from ..core.spiel import KernelGame


def is_kernel_game(game: pyspiel.Game) -> bool:
    """Is ``game`` one of this library's games (with a rules kernel)?"""
    return isinstance(game, KernelGame)


def estimate_kernel_tree(game: KernelGame, walks: int, seed: int) -> np.ndarray:
    from .tree import _walk_samples_pyspiel

    return _walk_samples_pyspiel(game, walks, seed)


def tree_from_kernel(game: KernelGame, max_nodes: int, max_memory: float, progress: bool = False):
    from .tree import tree_from_pyspiel

    return tree_from_pyspiel(game, max_nodes=max_nodes)
