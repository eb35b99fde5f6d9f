"""Checkpoints of trained networks: one file per save, written whole or not at all.

A checkpoint is a ``torch.save`` of plain data (tensors, numbers, strings, lists and
dicts), read back with ``weights_only=True``, so loading one runs no code. It names
the game it was trained for (the full game string, parameters included) and the
network's shape; loading it for another game, or a file that is not a checkpoint,
raises ``CheckpointError`` saying which.

A training folder holds ``ckpt_000010.pt``, ``ckpt_000020.pt``, …: ``resolve`` takes a
file or a folder (its latest checkpoint). Beside each, ``save`` writes the network as a
numpy network file (``ckpt_000010.npz``), what the bots play without torch.

>>> import tempfile, torch
>>> folder = tempfile.mkdtemp()
>>> path = save({"algorithm": "ppo", "game": "g()", "iteration": 3, "x": torch.ones(2)}, folder)
>>> path.name, load(folder)["iteration"]
('ckpt_000003.pt', 3)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from ..agents.network import CHECKPOINT_NAME, Network, checkpoint_name
from ..core.params import ParameterError
from ..files import atomic_write

FORMAT = "elements_ai.selfplay/1"


class CheckpointError(ParameterError):
    """A missing, unreadable or mismatched checkpoint (a user's mistake: one line from the CLI)."""


def checkpoint_path(folder: str | Path, iteration: int) -> Path:
    return Path(folder) / checkpoint_name(iteration, ".pt")


def checkpoints(folder: str | Path) -> list[Path]:
    """The checkpoints in a training folder, oldest first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in folder.iterdir()
             if (m := CHECKPOINT_NAME.match(p.name)) and m.group(2) == "pt"]
    return [p for _, p in sorted(found)]


def resolve(path: str | Path) -> Path:
    """A checkpoint file, or the latest checkpoint of a training folder."""
    path = Path(path)
    if path.is_dir():
        found = checkpoints(path)
        if not found:
            raise CheckpointError(f"{path} holds no checkpoint (ckpt_NNNNNN.pt)")
        return found[-1]
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {path}")
    return path


def save(payload: dict[str, Any], folder: str | Path, network: Network | None = None) -> Path:
    """Writes ``payload`` (with ``iteration``) as the folder's checkpoint of that iteration,
    atomically, and ``network`` beside it as a network file (first: a checkpoint always
    has its network)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = checkpoint_path(folder, payload["iteration"])
    if network is not None:
        network.save(path.with_suffix(".npz"))
    with atomic_write(path) as handle:
        torch.save({"format": FORMAT, **payload}, handle)
    return path


def save_keeping(payload: dict[str, Any], folder: str | Path, keep: int, network: Network | None = None) -> Path:
    """``save``, then deletes all but the folder's latest ``keep`` checkpoints (and their networks)."""
    path = save(payload, folder, network)
    for old in checkpoints(folder)[:-keep]:
        old.with_suffix(".npz").unlink(missing_ok=True)
        old.unlink()
    return path


def export_network(path: Path, network: Network) -> None:
    """Writes the network file of checkpoint ``path`` if it has none (a run trained before
    trainers wrote them, resumed now)."""
    beside = Path(path).with_suffix(".npz")
    if not beside.is_file():
        network.save(beside)


def load(path: str | Path, *, game=None, algorithm: str | None = None) -> dict[str, Any]:
    """The checkpoint at ``path`` (a file or a training folder).

    With ``game`` (a game object or string) and ``algorithm``, checks that the
    checkpoint was made for them; ``CheckpointError`` names any mismatch.
    """
    path = resolve(path)
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a damaged or foreign file
        raise CheckpointError(f"{path} is not a readable checkpoint ({type(error).__name__}: {error})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not an elements_ai self-play checkpoint (format {FORMAT!r})")
    for key in ("algorithm", "game", "iteration"):
        if key not in payload:
            raise CheckpointError(f"{path} is damaged: it has no {key!r}")
    if algorithm is not None and payload["algorithm"] != algorithm:
        raise CheckpointError(f"{path} was trained by {payload['algorithm']!r}, not {algorithm!r}")
    if game is not None and payload["game"] != str(game):
        raise CheckpointError(f"{path} was trained for {payload['game']}, not for {game}")
    payload["path"] = str(path)
    return payload
