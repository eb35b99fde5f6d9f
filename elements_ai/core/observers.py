"""Every ``pyspiel.IIGObservationType`` of a game, cut from its two encoders.

A game encodes two tensors for one player: the observation and the information
state (``Config.obs_pieces`` / ``info_pieces``, which extend the observation). Its
encode.py declares in ``PRIVACY`` which of their pieces hold what only the observer
knows; the other views are assembled from those two encoders, so no game writes an
encoder per observation type:

* **public** (``private_info=NONE``): every piece that is not private, as seat 0's
  encoder writes it. Pieces a game orders (observer, next, ...) are then in absolute
  seat order (seat 0, 1, ...), and the view is the same whoever asks; a piece that
  told more to seat 0 than to the others would leak, which the generic tests catch
  (two states seat 1 cannot tell apart must give the same public view). The
  ``observer`` one-hot (whose view it is) is dropped, as are pieces that add private
  and public content together. A *shared* piece (public content in which the
  observer also sees some of its own hidden things, indexed by square or card
  rather than by seat) keeps what every seat sees; a *split* piece loses the
  columns only the observer knows.
* **private** of seat p (``public_info=False``): p's private pieces; of a shared
  piece, what p sees beyond every seat (named ``private_<piece>``); of a split
  piece, its private columns (``private_<piece>``). It holds nothing public.
* ``private_info=ALL_PLAYERS``: every seat's private view, stacked on a leading
  axis of seats in seat order (each seat's pieces as that seat's encoder wrote them).
* ``public_info=True, private_info=SINGLE_PLAYER`` is the game's own observation
  or information state, unchanged.

``perfect_recall=True`` cuts the views from the information state, else from the
observation.

>>> import elements_ai, pyspiel
>>> from elements_ai.testing import first_decision
>>> game = elements_ai.load_game("elements", single_round=True)
>>> public = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
...                                     private_info=pyspiel.PrivateInfoType.NONE)
>>> observer = game.make_py_observer(public)
>>> list(observer.dict)
['to_move', 'hand_sizes', 'front', 'discarded', 'display', 'limit', 'scores']
>>> state = first_decision(game, seed=0)
>>> print(observer.string_from(state, 1))
to_move: 1
hand_sizes: 0=6 1=6
front: -
discarded: -
display: -
limit: 0
scores: -

Strings of the views other than the game's own list each piece as ``name: `` and
its non-zero entries, ``index=value`` (``index`` alone for 1, ``-`` for none); a
one-entry piece shows its value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pyspiel

from .layout import Piece

# ``private_info`` of a view, as OpenSpiel names it.
NONE = pyspiel.PrivateInfoType.NONE
SINGLE_PLAYER = pyspiel.PrivateInfoType.SINGLE_PLAYER
ALL_PLAYERS = pyspiel.PrivateInfoType.ALL_PLAYERS

OBSERVER = "observer"  # the piece saying whose view it is: neither public nor private content


@dataclasses.dataclass(frozen=True)
class Privacy:
    """What only the observer knows in a game's observation and information state.

    ``private``: pieces whose whole content is the observer's own (its hand).
    ``dropped``: pieces that add private and public content together (elements'
    sum: the hand plus the cards in front); neither view has them, as neither has
    the ``observer`` one-hot, and each view keeps the parts they are made of.
    ``shared``: pieces of public content in which the observer also sees its own
    hidden things (the backs of its own pieces); indexed by square or card, never
    by seat relative to the observer, with entries that only grow with what a seat
    sees (one-hots), so that what every seat sees is their minimum over the seats.
    ``private_columns``: piece name -> (start,
    stop) of the last axis's columns only the observer knows, the rest public.
    Every other piece but ``observer`` is public.

    >>> Privacy(private=("hand",), private_columns={"history": (3, 5)}).private_columns["history"]
    (3, 5)
    """

    private: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    shared: tuple[str, ...] = ()
    private_columns: Mapping[str, tuple[int, int]] = dataclasses.field(default_factory=dict)

    def check(self, game: str, pieces: Sequence[Piece]) -> None:
        """Raises ``ValueError`` naming a declared piece that ``pieces`` lack or that is declared twice."""
        names = {piece.name: piece for piece in pieces}
        declared = [*self.private, *self.dropped, *self.shared, *self.private_columns]
        for name in declared:
            if name not in names:
                raise ValueError(f"{game}: PRIVACY names the piece {name!r}, which the tensors do not have")
            if declared.count(name) > 1:
                raise ValueError(f"{game}: PRIVACY declares the piece {name!r} twice")
        if OBSERVER in declared:
            raise ValueError(f"{game}: PRIVACY must not declare {OBSERVER!r}; it is dropped from these views")
        for name, (start, stop) in self.private_columns.items():
            if not 0 <= start < stop <= names[name].shape[-1]:
                raise ValueError(
                    f"{game}: PRIVACY's private columns {start}..{stop} of {name!r} are outside its "
                    f"{names[name].shape[-1]} columns"
                )


# How a view's piece is cut from the encoders' pieces.
_PUBLIC, _SHARED_PUBLIC, _SPLIT_PUBLIC, _PRIVATE, _SHARED_PRIVATE, _SPLIT_PRIVATE = range(6)


@dataclasses.dataclass(frozen=True)
class _Part:
    piece: Piece  # the piece in the view's tensor
    source: Piece  # the piece of the encoder's tensor it is cut from
    how: int
    columns: tuple[int, int] = (0, 0)
    per_seat: bool = False  # stacked over seats (ALL_PLAYERS)


class View:
    """The layout of one observation type's tensor, and how to cut it from encodings.

    ``pieces`` are the view's pieces in tensor order (``Piece.slot`` is None).
    ``assemble`` works on one tensor or on a batch (any leading axes).
    """

    def __init__(self, pieces: Sequence[Piece], privacy: Privacy, num_players: int, public_info: bool, private_info):
        self.num_players = num_players
        self.private_info = private_info
        self.public_info = public_info
        public_parts, private_parts = [], []
        for source in pieces:
            name = source.name
            if name == OBSERVER or name in privacy.dropped:
                continue
            if name in privacy.private:
                private_parts.append((name, source.shape, source, _PRIVATE, (0, 0)))
            elif name in privacy.shared:
                public_parts.append((name, source.shape, source, _SHARED_PUBLIC, (0, 0)))
                private_parts.append((f"private_{name}", source.shape, source, _SHARED_PRIVATE, (0, 0)))
            elif name in privacy.private_columns:
                start, stop = privacy.private_columns[name]
                public_shape = source.shape[:-1] + (source.shape[-1] - (stop - start),)
                public_parts.append((name, public_shape, source, _SPLIT_PUBLIC, (start, stop)))
                private_parts.append((f"private_{name}", source.shape[:-1] + (stop - start,), source, _SPLIT_PRIVATE,
                                      (start, stop)))
            else:
                public_parts.append((name, source.shape, source, _PUBLIC, (0, 0)))
        chosen = list(public_parts) if public_info else []
        if private_info == ALL_PLAYERS:
            chosen += [(name, (num_players, *shape), *rest) for name, shape, *rest in private_parts]
        elif private_info == SINGLE_PLAYER:
            chosen += private_parts
        parts, offset = [], 0
        for name, shape, source, how, columns in chosen:
            piece = Piece(name, tuple(shape), offset, None)
            per_seat = private_info == ALL_PLAYERS and how >= _PRIVATE
            parts.append(_Part(piece, source, how, columns, per_seat))
            offset = piece.stop
        self._parts = tuple(parts)
        self.pieces = tuple(part.piece for part in parts)
        self.size = offset
        # Which encodings assemble needs: every seat's for a shared piece (what all
        # see) and for ALL_PLAYERS, else seat 0's (public) and the observer's (private).
        self.needs_every_seat = private_info == ALL_PLAYERS or any(
            part.how in (_SHARED_PUBLIC, _SHARED_PRIVATE) for part in parts
        )
        self.needs_seat_zero = any(part.how in (_PUBLIC, _SPLIT_PUBLIC) for part in parts)
        self.needs_observer = private_info == SINGLE_PLAYER and any(part.how >= _PRIVATE for part in parts)

    def seats(self) -> list[int]:
        """The seats whose encodings ``assemble`` reads (besides the observer's)."""
        if self.needs_every_seat:
            return list(range(self.num_players))
        return [0] if self.needs_seat_zero else []

    def assemble(self, seats: Mapping[int, np.ndarray], own: np.ndarray | None, out: np.ndarray) -> None:
        """Writes the view into ``out`` (..., size) from encodings (..., F): ``seats[s]``
        for each of ``self.seats()``, ``own`` the observer's (SINGLE_PLAYER)."""
        lead = out.shape[:-1]
        common: dict[str, np.ndarray] = {}

        def cut(encoding: np.ndarray, source: Piece) -> np.ndarray:
            return encoding[..., source.offset : source.stop].reshape(lead + source.shape)

        def seen_by_all(source: Piece) -> np.ndarray:
            if source.name not in common:
                common[source.name] = np.minimum.reduce([cut(seats[s], source) for s in range(self.num_players)])
            return common[source.name]

        def value(part: _Part, encoding: np.ndarray) -> np.ndarray:
            block = cut(encoding, part.source)
            if part.how in (_PUBLIC, _PRIVATE):
                return block
            if part.how == _SHARED_PUBLIC:
                return seen_by_all(part.source)
            if part.how == _SHARED_PRIVATE:
                return block - seen_by_all(part.source)
            start, stop = part.columns
            if part.how == _SPLIT_PRIVATE:
                return block[..., start:stop]
            return np.concatenate([block[..., :start], block[..., stop:]], axis=-1)

        for part in self._parts:
            target = out[..., part.piece.offset : part.piece.stop].reshape(lead + part.piece.shape)
            if part.per_seat:
                for seat in range(self.num_players):
                    target[(Ellipsis, seat) + (slice(None),) * (len(part.piece.shape) - 1)] = value(part, seats[seat])
            elif part.how >= _PRIVATE:
                target[...] = value(part, own)
            else:
                target[...] = value(part, seats[0])

    def string(self, tensor: np.ndarray) -> str:
        """The view of one tensor as text: a line per piece (see the module docstring)."""
        return "\n".join(f"{piece.name}: {_entries(tensor[piece.offset : piece.stop].reshape(piece.shape))}"
                         for piece in self.pieces)


def _number(x) -> str:
    return format(float(x), "g")


def _entries(values: np.ndarray) -> str:
    if values.size == 1:
        return _number(values.ravel()[0])
    found = []
    for index in np.argwhere(values):
        where = ",".join(str(int(i)) for i in index)
        x = values[tuple(index)]
        found.append(where if x == 1 else f"{where}={_number(x)}")
    return " ".join(found) or "-"


def view_of(game_name: str, privacy: Privacy | None, num_players: int, obs_pieces, info_pieces,
            iig_obs_type) -> View | None:
    """The view of ``iig_obs_type``, or None for the game's own observation or information state."""
    if iig_obs_type.public_info and iig_obs_type.private_info == SINGLE_PLAYER:
        return None
    if privacy is None:
        raise ValueError(
            f"{game_name}: the game declares no PRIVACY in its encode.py, so only its own observation "
            "and information state (public_info=True, private_info=SINGLE_PLAYER) are provided"
        )
    privacy.check(game_name, info_pieces)
    pieces = info_pieces if iig_obs_type.perfect_recall else obs_pieces
    return View(pieces, privacy, num_players, bool(iig_obs_type.public_info), iig_obs_type.private_info)

