"""A counter-free random generator that lives in one uint64 per stream.

The vector env and the jitted playouts keep one stream per environment so that
results do not depend on how ``prange`` spreads the work over threads.
"""

import numba as nb
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TWO_POW_M53 = 1.0 / 9007199254740992.0


@nb.njit(cache=True, inline="always")
def next_u64(rng, i):
    """splitmix64 step of stream ``rng[i]``: returns 64 random bits."""
    x = rng[i] + _GOLDEN
    rng[i] = x
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True, inline="always")
def uniform(rng, i):
    """A float in [0, 1) from stream ``rng[i]``."""
    return float(next_u64(rng, i) >> np.uint64(11)) * _TWO_POW_M53


@nb.njit(cache=True, inline="always")
def nth_stream(seed, i):
    """Stream ``i`` of ``seed``: the ``i + 1``-th output of a splitmix64 stream started at
    ``seed`` (so each is computed alone, on a GPU thread as well)."""
    x = np.uint64(seed & 0x7FFFFFFFFFFFFFFF) + np.uint64(i + 1) * _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True)
def seed_streams(seed, rng):
    """Fills ``rng`` with independent streams derived from one integer seed."""
    for i in range(rng.shape[0]):
        rng[i] = nth_stream(seed, i)


@nb.njit(cache=True, inline="always")
def sample_index(weights, n, u):
    """Index drawn with probability proportional to ``weights[:n]`` (u uniform in [0, 1))."""
    total = 0.0
    for k in range(n):
        total += weights[k]
    target = u * total
    last = -1
    for k in range(n):
        if weights[k] > 0:
            last = k
            target -= weights[k]
            if target < 0:
                return k
    return last  # rounding left a sliver: the last possible index


SAMPLE_BLOCK = 32


@nb.njit(cache=True, inline="always")
def sample_true_index(mask, u):
    """The ``int(u * n)``-th True entry of the bool array ``mask`` (``n`` True entries),
    so a uniform ``u`` draws a uniformly random one; -1 when there is none.

    Counts and skips whole blocks first: the branch-free block sums vectorise, so
    large action spaces (hundreds of entries, few legal) cost a few dozen ns.
    """
    n = mask.shape[0]
    count = 0
    for a in range(n):
        count += mask[a]
    k = int(u * count)
    start = 0
    while start + SAMPLE_BLOCK <= n:
        block = 0
        for a in range(start, start + SAMPLE_BLOCK):
            block += mask[a]
        if k < block:
            break
        k -= block
        start += SAMPLE_BLOCK
    for a in range(start, n):
        k -= mask[a]
        if k < 0:
            return a
    return -1


def seeds_from(seed: int, count: int) -> np.ndarray:
    """``count`` independent uint64 streams derived from ``seed``."""
    rng = np.empty(count, np.uint64)
    seed_streams(int(seed), rng)
    return rng
