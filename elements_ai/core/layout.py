"""Tensor layouts: a game names the pieces of its observation and information-state
tensors once, and its encoders find each piece's offset by name.

A layout is declared at module level in a game's ``rules.py``. Each piece has a shape
(an int, a tuple, or a function of the game's parameters for sizes that vary), and a
*slot*: the index in the configuration array ``cfg`` where ``configure`` writes the
piece's offset in the flat tensor. The layout object is a named tuple of those slots,
so numba reads ``OBS.hand`` as a constant and an encoder writes
``out[cfg[OBS.hand] + v]`` without counting offsets by hand.

>>> import numpy as np
>>> OBS = tensor_layout(2, observer=2, hand=6, display=lambda p: (2 * p["hand_size"], 6))
>>> INFO = OBS._extend(history=lambda p: (p["hand_size"], 10))
>>> OBS.hand, INFO.history, INFO._end              # slots in cfg
(3, 5, 6)
>>> cfg = np.zeros(INFO._end, np.int64)
>>> pieces = INFO._place(cfg, {"hand_size": 3})
>>> [(p.name, p.shape, p.offset) for p in pieces]
[('observer', (2,), 0), ('hand', (6,), 2), ('display', (6, 6), 8), ('history', (3, 10), 44)]
>>> int(cfg[OBS.display]), sum(p.size for p in pieces)
(8, 74)
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

Shape = int | tuple[int, ...]
ShapeSpec = Shape | Callable[[Mapping[str, Any]], Shape]


class Piece(NamedTuple):
    """One named part of a flat tensor: ``tensor[offset : offset + size]`` reshaped to ``shape``."""

    name: str
    shape: tuple[int, ...]
    offset: int
    slot: int  # where cfg holds ``offset``

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def stop(self) -> int:
        return self.offset + self.size


def _as_shape(name: str, shape: Any) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not shape or any(not isinstance(n, int) or n < 0 for n in shape):
        raise ValueError(f"tensor piece {name!r}: shape must be non-negative integers, got {shape!r}")
    return shape


class _LayoutMethods:
    """Methods shared by every layout class (names start with ``_`` as in ``namedtuple``)."""

    _specs: dict[str, ShapeSpec]

    @property
    def _end(self) -> int:
        """The first cfg slot after this layout's slots."""
        return self[-1] + 1

    def _extend(self, **pieces: ShapeSpec):
        """A layout of these pieces followed by ``pieces`` (their slots come next)."""
        return _make(self[0], {**self._specs, **_fresh(self._specs, pieces)})

    def _shapes(self, params: Mapping[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
        """Each piece's name and shape for the parameters ``params``."""
        return [(name, _as_shape(name, spec(params) if callable(spec) else spec)) for name, spec in self._specs.items()]

    def _place(self, cfg, params: Mapping[str, Any]) -> tuple[Piece, ...]:
        """Writes each piece's offset into ``cfg[slot]``; returns the pieces in order."""
        if len(cfg) < self._end:
            raise ValueError(f"cfg has {len(cfg)} entries; this layout needs {self._end}")
        pieces, offset = [], 0
        for (name, shape), slot in zip(self._shapes(params), self):
            cfg[slot] = offset
            piece = Piece(name, shape, offset, slot)
            pieces.append(piece)
            offset = piece.stop
        return tuple(pieces)


def _fresh(existing: Mapping[str, Any], pieces: Mapping[str, Any]) -> dict[str, Any]:
    clash = sorted(set(existing) & set(pieces))
    if clash:
        raise ValueError(f"tensor piece {clash[0]!r} is declared twice")
    return dict(pieces)


def _make(first_slot: int, specs: dict[str, ShapeSpec]):
    if not specs:
        raise ValueError("a tensor layout needs at least one piece")
    bad = [name for name in specs if name.startswith("_")]
    if bad:
        raise ValueError(f"tensor piece names must not start with '_', got {bad[0]!r}")
    base = collections.namedtuple("TensorLayout", list(specs))
    cls = type("TensorLayout", (_LayoutMethods, base), {"__slots__": (), "_specs": specs})
    return cls(*range(first_slot, first_slot + len(specs)))


def tensor_layout(first_slot: int, **pieces: ShapeSpec):
    """A layout of ``pieces`` (in tensor order) whose offsets live in ``cfg[first_slot:]``.

    See the module docstring for an example.
    """
    return _make(int(first_slot), _fresh({}, pieces))
