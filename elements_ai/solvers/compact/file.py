"""A built compact tree saved to disk once and loaded again (``--tree FILE`` of
``elements-ai exploitability``).

The full-deck three-card round's compact tree takes a quarter of an hour to build
and about 11 GB. Its file holds the tree's arrays raw, each at an aligned offset
after a JSON header (the format, the game string, and each array's dtype, shape and
offset), so loading reads no more than the arrays' bytes and parses nothing else;
with ``mmap`` the arrays are mapped from the file copy-on-write, and the pages come
in as the first pass over the tree reads them. A file is written whole or not at
all (``files.atomic_write``), and is loaded only for the game it was built for.

>>> import os, tempfile, elements_ai
>>> from elements_ai.solvers import build_compact
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> path = os.path.join(tempfile.mkdtemp(), "tree.bin")
>>> save_compact(build_compact(game), path)
>>> tree = load_compact(path, game)
>>> tree.num_nodes, tree.num_infosets
(317, 100)
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

from ...core.params import ParameterError
from ...files import atomic_write
from .tree import CompactTree

__all__ = ["FORMAT", "load_compact", "save_compact"]

FORMAT = "elements_ai.compact_tree/1"
MAGIC = b"ELEMENTS_AI COMPACT TREE\n"
ALIGN = 64
ARRAYS = ("node_shape", "node_code", "chance_first", "chance_prob", "utility", "infoset_player", "infoset_first",
          "infoset_parent", "sequence_action", "keys")


def _aligned(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN


def save_compact(tree: CompactTree, path: str | os.PathLike) -> None:
    """Writes ``tree`` to ``path`` (whole or not at all): see the module docstring."""
    arrays = {name: np.ascontiguousarray(getattr(tree, name)) for name in ARRAYS}
    entries = []
    offset = 0
    for name, array in arrays.items():
        entries.append({"name": name, "dtype": array.dtype.str, "shape": list(array.shape), "offset": offset})
        offset = _aligned(offset + array.nbytes)
    header = json.dumps({"format": FORMAT, "game": str(tree.game), "depth": int(tree.depth),
                         "build_seconds": float(tree.build_seconds), "arrays": entries}).encode()
    start = _aligned(len(MAGIC) + 8 + len(header))
    with atomic_write(path) as handle:
        handle.write(MAGIC + struct.pack("<Q", len(header)) + header)
        handle.write(b"\0" * (start - handle.tell()))
        for entry, array in zip(entries, arrays.values()):
            handle.write(b"\0" * (start + entry["offset"] - handle.tell()))
            # Written in slices: one call would build a second copy of an 8 GB array.
            flat = array.reshape(-1).view(np.uint8)
            for first in range(0, flat.shape[0], 1 << 26):
                handle.write(memoryview(flat[first : first + (1 << 26)]))


def read_header(path: str | os.PathLike) -> tuple[dict, int]:
    """The JSON header of a tree file and where its arrays start; ``ParameterError``
    for a file that is not one."""
    with open(path, "rb") as handle:
        magic = handle.read(len(MAGIC))
        size = handle.read(8)
        if magic != MAGIC or len(size) != 8:
            raise ParameterError(f"{path} is not a compact tree file (written by --tree)")
        (length,) = struct.unpack("<Q", size)
        try:
            header = json.loads(handle.read(length))
        except (ValueError, UnicodeDecodeError):
            raise ParameterError(f"{path}: its header is damaged") from None
    if header.get("format") != FORMAT:
        raise ParameterError(f"{path}: format {header.get('format')!r}, this version reads {FORMAT!r}")
    return header, _aligned(len(MAGIC) + 8 + length)


def load_compact(path: str | os.PathLike, game=None, mmap: bool = True) -> CompactTree:
    """The tree saved at ``path`` by ``save_compact``; ``game`` (a game or its string;
    default the file's) must be the game it was built for, else ``ParameterError``.
    ``mmap``: map the arrays from the file (copy-on-write) instead of reading them."""
    from ...loader import load_game

    header, start = read_header(path)
    if game is not None and str(game) != header["game"]:
        raise ParameterError(f"{path} holds the compact tree of {header['game']}, not of {game}")
    if game is None or isinstance(game, str):
        game = load_game(header["game"], openspiel=True)
    size = os.path.getsize(path)
    arrays = {}
    for entry in header["arrays"]:
        dtype, shape = np.dtype(entry["dtype"]), tuple(entry["shape"])
        offset = start + entry["offset"]
        count = int(np.prod(shape, dtype=np.int64))
        if offset + count * dtype.itemsize > size:
            raise ParameterError(f"{path} is cut short: its {entry['name']} ends past the end of the file")
        if mmap and count:
            array = np.asarray(np.memmap(path, dtype, "c", offset, shape))
        else:
            array = np.fromfile(path, dtype, count, offset=offset).reshape(shape)
        arrays[entry["name"]] = array
    missing = [name for name in ARRAYS if name not in arrays]
    if missing:
        raise ParameterError(f"{path}: no {missing[0]} array in the file")
    return CompactTree(game=game, depth=int(header["depth"]), build_seconds=float(header["build_seconds"]),
                       **{name: arrays[name] for name in ARRAYS})
