"""Array fills and copies for the hot loops.

numba compiles a slice assignment (``a[:] = 0``, ``a[:] = b``) through a general
broadcasting path that costs 20-60 ns even for a few hundred bytes; these plain
loops compile to a memset or memcpy of a few ns. States are copied and buffers
cleared on every move of a rollout, so it matters there.

>>> import numpy as np
>>> a = np.arange(4)
>>> fill(a, 7); a
array([7, 7, 7, 7])
>>> b = np.zeros(4, np.int64); copy(b, a); b
array([7, 7, 7, 7])
"""

from __future__ import annotations

import numba as nb


@nb.njit(cache=True, inline="always")
def fill(out, value):
    """Sets every entry of the 1-D array ``out`` to ``value``."""
    for i in range(out.shape[0]):
        out[i] = value


@nb.njit(cache=True, inline="always")
def copy(out, source):
    """Copies the 1-D array ``source`` into ``out`` (same length)."""
    for i in range(source.shape[0]):
        out[i] = source[i]
