"""Layouts: a game names the pieces of its flat arrays once, and finds each piece by name.

Two kinds, both declared at module level in a game's ``rules.py``:

* ``state_layout`` — the state array (and the configuration array ``cfg``): each
  piece has a size and a description. A piece whose offset is the same for every
  parameter set is a compile-time constant, so numba reads ``state[S.score + p]``
  exactly as fast as a hand-counted offset. A piece sized by the parameters makes
  every later piece's offset vary; those offsets live in ``cfg`` (``state[cfg[S.log]]``).
  ``_table`` writes the layout table of the rules module's docstring.
* ``tensor_layout`` — the observation and information-state tensors: every piece's
  offset lives in ``cfg``, so the tests can move one piece and see that an encoder
  writes only inside it.

State:

>>> import numpy as np
>>> C = state_layout(hand=(1, "cards dealt to each player (H)"), deck=(6, "copies of each value in the deck"))
>>> S = state_layout(
...     player=(1, "next to act"),
...     hand=((2, 6), "copies of value v + 1 in player p's hand"),
...     display=(lambda p: 2 * p["hand_size"], "display cards, bottom first"),
...     history=(lambda p: 4 * p["hand_size"] + 1, "player actions of this round"),
...     slots=C._size,
... )
>>> C.deck, S.hand, S.display, C._size   # constant offsets
(1, 1, 13, 7)
>>> S.history, S._end                    # history's offset lives in cfg[7]
(7, 8)
>>> cfg = np.zeros(S._end, np.int64)
>>> pieces = S._place(cfg, {"hand_size": 3})
>>> [(p.name, p.shape, p.offset) for p in pieces], int(cfg[S.history])
([('player', (1,), 0), ('hand', (2, 6), 1), ('display', (6,), 13), ('history', (13,), 19)], 19)
>>> state = np.arange(pieces[-1].stop)
>>> views(pieces, state).hand[1].tolist()
[7, 8, 9, 10, 11, 12]
>>> print(S._table())
    player   1       0               next to act
    hand     2x6     1               copies of value v + 1 in player p's hand
    display  varies  13              display cards, bottom first
    history  varies  cfg[S.history]  player actions of this round

Tensors:

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
import types
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

Shape = int | tuple[int, ...]
ShapeSpec = Shape | Callable[[Mapping[str, Any]], Shape]


class Piece(NamedTuple):
    """One named part of a flat tensor: ``tensor[offset : offset + size]`` reshaped to ``shape``."""

    name: str
    shape: tuple[int, ...]
    offset: int
    slot: int | None  # where cfg holds ``offset``; None for a state piece at a constant offset

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def stop(self) -> int:
        return self.offset + self.size


def _as_shape(name: str, shape: Any, kind: str = "tensor") -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not shape or any(not isinstance(n, int) or n < 0 for n in shape):
        raise ValueError(f"{kind} piece {name!r}: shape must be non-negative integers, got {shape!r}")
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
    _check_names(specs, "tensor")
    base = collections.namedtuple("TensorLayout", list(specs))
    cls = type("TensorLayout", (_LayoutMethods, base), {"__slots__": (), "_specs": specs})
    return cls(*range(first_slot, first_slot + len(specs)))


def tensor_layout(first_slot: int, **pieces: ShapeSpec):
    """A layout of ``pieces`` (in tensor order) whose offsets live in ``cfg[first_slot:]``.

    See the module docstring for an example.
    """
    return _make(int(first_slot), _fresh({}, pieces))


def _check_names(specs: Mapping[str, Any], kind: str) -> None:
    # A tuple's own attributes would hide a piece of the same name.
    bad = [name for name in specs if name.startswith("_") or name in ("count", "index")]
    if bad:
        raise ValueError(f"{kind} piece names must not start with '_' nor be 'count' or 'index', got {bad[0]!r}")


# --- state layouts ----------------------------------------------------------------


def views(pieces: tuple[Piece, ...], array) -> types.SimpleNamespace:
    """Each piece of ``array`` by name, as a view of ``piece.shape`` (writes go through).

    ``Config.state_pieces`` are a game's state pieces: tests read a state by name
    with ``views(game.config.state_pieces, state.array).score[1]``.
    """
    return types.SimpleNamespace(**{p.name: array[p.offset : p.stop].reshape(p.shape) for p in pieces})


class _StateMethods:
    """Methods shared by every state layout class (names start with ``_`` as in ``namedtuple``)."""

    _specs: dict[str, tuple[ShapeSpec, str]]
    _constant: frozenset[str]  # pieces at a constant offset
    _first_slot: int

    @property
    def _end(self) -> int:
        """The first cfg slot after the slots of this layout's varying offsets."""
        return self._first_slot + len(self._specs) - len(self._constant)

    @property
    def _size(self) -> int:
        """The array's size, for a layout whose pieces all have fixed sizes."""
        if any(callable(spec) for spec, _ in self._specs.values()):
            raise ValueError("this layout's size depends on the parameters: use _place")
        name, (spec, _) = list(self._specs.items())[-1]
        return getattr(self, name) + math.prod(_as_shape(name, spec, "state"))

    def _place(self, cfg, params: Mapping[str, Any]) -> tuple[Piece, ...]:
        """Writes the varying offsets into ``cfg``; returns every piece, in order."""
        if len(cfg) < self._end:
            raise ValueError(f"cfg has {len(cfg)} entries; this layout needs {self._end}")
        pieces, offset = [], 0
        for name, (spec, _) in self._specs.items():
            shape = _as_shape(name, spec(params) if callable(spec) else spec, "state")
            slot = None
            if name not in self._constant:
                slot = getattr(self, name)
                cfg[slot] = offset
            pieces.append(Piece(name, shape, offset, slot))
            offset = pieces[-1].stop
        return tuple(pieces)

    def _table(self, prefix: str = "S") -> str:
        """The layout as a table: name, size, offset (or the cfg entry holding it), description."""
        rows = []
        for name, (spec, doc) in self._specs.items():
            size = "varies" if callable(spec) else "x".join(map(str, _as_shape(name, spec, "state")))
            where = str(getattr(self, name)) if name in self._constant else f"cfg[{prefix}.{name}]"
            rows.append((name, size, where, doc))
        widths = [max(len(row[k]) for row in rows) for k in range(3)]
        return "\n".join(
            f"    {name:<{widths[0]}}  {size:<{widths[1]}}  {where:<{widths[2]}}  {doc}".rstrip()
            for name, size, where, doc in rows
        )


def state_layout(*, slots: int = 0, **pieces: tuple[ShapeSpec, str]):
    """The layout of an integer array (the state, or the configuration ``cfg``) from
    its pieces, in order: ``name=(shape, description)``, the shape an int, a tuple or
    a function of the game's parameters.

    The layout is a named tuple: ``S.name`` is the piece's offset while every piece
    before it has a fixed size (a constant to numba); after a piece sized by the
    parameters, ``S.name`` is the cfg slot holding the offset (``slots``, ``slots + 1``,
    ...; ``_place`` writes them). See the module docstring for an example.
    """
    if not pieces:
        raise ValueError("a state layout needs at least one piece")
    _check_names(pieces, "state")
    specs, values, constant = {}, [], set()
    offset, slot = 0, int(slots)
    for name, piece in pieces.items():
        if not (isinstance(piece, tuple) and len(piece) == 2 and isinstance(piece[1], str)):
            raise ValueError(f"state piece {name!r} must be (shape, description), got {piece!r}")
        spec, doc = piece
        specs[name] = (spec, doc)
        if offset is not None:
            values.append(offset)
            constant.add(name)
            offset = None if callable(spec) else offset + math.prod(_as_shape(name, spec, "state"))
        else:
            values.append(slot)
            slot += 1
    base = collections.namedtuple("StateLayout", list(specs))
    attrs = {"__slots__": (), "_specs": specs, "_constant": frozenset(constant), "_first_slot": int(slots)}
    cls = type("StateLayout", (_StateMethods, base), attrs)
    return cls(*values)
