"""Trained policy-value networks played in numpy: no torch at play time.

Self-play training (``elements_ai.selfplay``, torch) writes a network's weights to a
``.npz`` file; ``Network.load`` reads it back and ``forward`` computes, in float32 as
torch does, the same logits and values: the multilayer perceptron of
``selfplay.net.PolicyValueNet`` (ReLU trunk, a policy head over the game's actions,
a value head over its players, and a hint's learnt weight where it has one). The
file also carries its metadata as JSON (the game string it was trained for, the
recipe, the commit), read without unpickling anything.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> layers = [(rng.normal(size=(4, 6)), np.zeros(4))]
>>> net = Network(layers, policy=(rng.normal(size=(3, 4)), np.zeros(3)),
...               value=(rng.normal(size=(2, 4)), np.zeros(2)), meta={"game": "g()"})
>>> probs = net.probabilities(np.ones((1, 6), np.float32), np.array([[True, False, True]]))
>>> float(probs[0, 1]), round(float(probs.sum()), 12)
(0.0, 1.0)
"""

from __future__ import annotations

import contextlib
import json
import re
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numba
import numpy as np
from threadpoolctl import ThreadpoolController

from ..core.params import ParameterError
from ..files import atomic_write

FORMAT = "elements_ai.network/2"
FORMATS = ("elements_ai.network/1", FORMAT)  # /1 stored the weight matrices as plain arrays
HINTS = ("", "rules")  # the bots whose action a network may take as a hint (selfplay.net)

_THREADPOOLS: ThreadpoolController | None = None


@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    """numba and BLAS on one thread inside the block (restored after).

    A bot's move multiplies one row at a time: no thread pool can speed that up, and
    waking one costs more than the work. Worse, BLAS threads spin after each call and
    take the cores from numba's: on a busy 2-core machine an ``az`` move took two
    hundred times longer with both pools than with neither.

    >>> with single_threaded():
    ...     numba.get_num_threads()
    1
    """
    global _THREADPOOLS
    if _THREADPOOLS is None:
        _THREADPOOLS = ThreadpoolController()
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with _THREADPOOLS.limit(limits=1, user_api="blas"):
            yield
    finally:
        numba.set_num_threads(threads)

Layer = tuple[np.ndarray, np.ndarray]  # (weight (out, in), bias (out,)), torch's nn.Linear layout


class NetworkError(ParameterError):
    """A missing, unreadable or mismatched network file."""


# A training folder keeps, for each checkpoint, the trainer's own file (``ckpt_NNNNNN.pt``,
# torch, to resume from) and the network saved beside it (``ckpt_NNNNNN.npz``, which
# plays with numpy alone).
CHECKPOINT_NAME = re.compile(r"ckpt_(\d+)\.(pt|npz)$")


def checkpoint_name(iteration: int, suffix: str) -> str:
    """``ckpt_000010.npz`` for iteration 10 and suffix ``.npz``."""
    return f"ckpt_{int(iteration):06d}{suffix}"


def network_file(ckpt: str | Path) -> Path:
    """The network file that ``ckpt=`` names: a ``.npz`` network file itself; a training
    folder's latest network; for a trainer's checkpoint ``ckpt_NNNNNN.pt``, the network
    saved beside it. ``NetworkError`` says what is missing.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name in ("ckpt_000002.pt", "ckpt_000002.npz", "ckpt_000010.pt", "ckpt_000010.npz"):
    ...     _ = (folder / name).write_bytes(b"")
    >>> network_file(folder).name, network_file(folder / "ckpt_000002.pt").name
    ('ckpt_000010.npz', 'ckpt_000002.npz')
    """
    path = Path(ckpt)
    if path.is_dir():
        found = sorted((int(m.group(1)), m.group(2), p) for p in path.iterdir() if (m := CHECKPOINT_NAME.match(p.name)))
        networks = [p for _, suffix, p in found if suffix == "npz"]
        if networks:
            return networks[-1]
        if found:
            raise NetworkError(f"{path} holds training checkpoints but no network file (ckpt_NNNNNN.npz): it was "
                               f"trained by an older version; `elements-ai train GAME --out {path}` with the steps "
                               f"it was trained for writes it without training further")
        raise NetworkError(f"{path} holds no network (ckpt_NNNNNN.npz) and no checkpoint")
    if not path.exists():
        raise NetworkError(f"no network file or checkpoint at {path}")
    match = CHECKPOINT_NAME.match(path.name)
    if match and match.group(2) == "pt":
        beside = path.with_suffix(".npz")
        if not beside.is_file():
            raise NetworkError(f"{path} has no network file beside it ({beside.name}): it was trained by an older "
                               f"version; resuming its run writes it")
        return beside
    return path


class Network:
    """A policy-value MLP held as float32 numpy arrays.

    ``layers`` are the trunk's linear layers (each followed by a ReLU), ``policy`` and
    ``value`` the two heads; each is ``(weight, bias)`` with torch's ``(out, in)``
    weight layout, so a state dict converts without transposing by hand.
    """

    def __init__(self, layers: Sequence[Layer], policy: Layer, value: Layer, meta: dict[str, Any] | None = None,
                 hint: str = "", hint_weight: float = 0.0):
        def f32(layer: Layer) -> Layer:
            weight, bias = layer
            # Stored transposed: forward is then one (B, in) @ (in, out) product a layer.
            return np.ascontiguousarray(np.asarray(weight, np.float32).T), np.asarray(bias, np.float32)

        self.layers = [f32(layer) for layer in layers]
        self.policy = f32(policy)
        self.value = f32(value)
        self.meta = dict(meta or {})
        if hint not in HINTS:
            raise NetworkError(f"a network's hint must be one of {HINTS}, got {hint!r}")
        self.hint = hint
        self.hint_weight = float(np.float32(hint_weight))
        width = self.policy[0].shape[0]
        for k, (weight, bias) in enumerate([*self.layers, self.policy, self.value]):
            if weight.ndim != 2 or bias.shape != (weight.shape[1],):
                raise NetworkError(f"layer {k}: weight {weight.shape} and bias {bias.shape} do not fit")
        inputs = [w.shape[0] for w, _ in self.layers[1:]] + [width]
        for k, ((weight, _), expected) in enumerate(zip(self.layers, inputs)):
            if weight.shape[1] != expected:
                raise NetworkError(f"layer {k} gives {weight.shape[1]} features, the next layer takes {expected}")
        if self.value[0].shape[0] != width:
            raise NetworkError("the policy and value heads read trunks of different widths")

    @property
    def info_size(self) -> int:
        return (self.layers[0][0] if self.layers else self.policy[0]).shape[0]

    @property
    def num_actions(self) -> int:
        return self.policy[0].shape[1]

    @property
    def num_players(self) -> int:
        return self.value[0].shape[1]

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(w.shape[1] for w, _ in self.layers)

    @property
    def size_bytes(self) -> int:
        return sum(w.nbytes + b.nbytes for w, b in [*self.layers, self.policy, self.value])

    def forward(self, info: np.ndarray, hint: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(logits (B, A), values (B, players))`` in float32 for information-state tensors (B, F).

        A network with a ``hint`` adds its weight to the logit of the hinting bot's
        action in each row (``hint`` (B,)); without them its logits lack the hint.
        """
        x = np.asarray(info, np.float32)
        for weight, bias in self.layers:
            x = x @ weight
            x += bias
            np.maximum(x, 0.0, out=x)
        logits = x @ self.policy[0] + self.policy[1]
        if self.hint and hint is not None:
            logits[np.arange(len(logits)), np.asarray(hint, np.int64)] += np.float32(self.hint_weight)
        return logits, x @ self.value[0] + self.value[1]

    def probabilities(self, info: np.ndarray, mask: np.ndarray, hint: np.ndarray | None = None,
                      temperature: float = 1.0) -> np.ndarray:
        """The masked policy (B, A) in float64: illegal actions exactly 0, each row summing to 1
        (the softmax of the logits divided by ``temperature``)."""
        logits, _ = self.forward(info, hint)
        return masked_softmax(logits, mask, temperature)

    def check_game(self, game) -> None:
        """Raises ``NetworkError`` unless this network was trained for ``game`` (its exact string)."""
        config = game.config
        trained_for = self.meta.get("game")
        where = self.meta.get("path", "the network")
        if trained_for is not None and trained_for != str(game):
            raise NetworkError(f"{where} was trained for {trained_for}, not for {game}")
        for name, value in (("info_size", config.info_size), ("num_actions", config.num_actions),
                            ("num_players", config.num_players)):
            if getattr(self, name) != value:
                raise NetworkError(f"{where}: its network has {name}={getattr(self, name)}, the game {game} needs "
                                   f"{value}")
        if self.hint == "rules" and game.kernel.heuristic is None:
            raise NetworkError(f"{where} plays with the rule-based heuristic's hints; {game} has no heuristic")

    # --- files ------------------------------------------------------------------------------

    def save(self, path: str | Path, weights: str = "float32") -> Path:
        """Writes the weights and metadata to ``path`` (``.npz``), whole or not at all.
        ``weights="float16"`` stores the weight matrices rounded to half precision (half
        the file; ``load`` reads them back as float32).

        Each weight matrix is stored as its byte planes (every value's first byte, then
        every value's second, ...): the planes of exponents and high mantissa bits
        deflate well where the interleaved floats do not, which makes the file about a
        tenth smaller and changes no weight."""
        if weights not in ("float32", "float16"):
            raise ValueError(f"weights must be 'float32' or 'float16', got {weights!r}")
        path = Path(path)
        arrays: dict[str, np.ndarray] = {"format": np.array(FORMAT), "meta": np.array(json.dumps(self.meta))}
        for k, (weight, bias) in enumerate(self.layers):
            arrays[f"trunk.{k}.weight"], arrays[f"trunk.{k}.bias"] = _byte_planes(weight.T.astype(weights)), bias
        arrays["policy.weight"], arrays["policy.bias"] = _byte_planes(self.policy[0].T.astype(weights)), self.policy[1]
        arrays["value.weight"], arrays["value.bias"] = _byte_planes(self.value[0].T.astype(weights)), self.value[1]
        if self.hint:
            arrays["hint"], arrays["hint.weight"] = np.array(self.hint), np.array(self.hint_weight, np.float32)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as handle:
            np.savez_compressed(handle, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """The network in ``path``; ``NetworkError`` names a missing, damaged or foreign file."""
        path = Path(path)
        if not path.is_file():
            raise NetworkError(f"no network file at {path}")
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
            raise NetworkError(f"{path} is not a readable network file ({type(error).__name__})") from None
        version = str(arrays.get("format", ""))
        if version not in FORMATS:
            raise NetworkError(f"{path} is not an elements_ai network file (format {FORMAT!r})")
        try:
            if version != FORMATS[0]:
                for key in [key for key in arrays if key.endswith(".weight") and key != "hint.weight"]:
                    arrays[key] = _from_byte_planes(arrays[key])
            meta = json.loads(str(arrays["meta"]))
            depth = sum(1 for key in arrays if key.startswith("trunk.") and key.endswith(".weight"))
            layers = [(arrays[f"trunk.{k}.weight"], arrays[f"trunk.{k}.bias"]) for k in range(depth)]
            policy = (arrays["policy.weight"], arrays["policy.bias"])
            value = (arrays["value.weight"], arrays["value.bias"])
            hint = str(arrays.get("hint", ""))
            hint_weight = float(arrays["hint.weight"]) if hint else 0.0
        except (KeyError, json.JSONDecodeError) as error:
            raise NetworkError(f"{path} is damaged: {error}") from None
        meta["path"] = str(path)
        return cls(layers, policy, value, meta, hint, hint_weight)

    @classmethod
    def from_state_dict(cls, state: dict[str, Any], meta: dict[str, Any] | None = None, hint: str = "") -> Network:
        """From a ``PolicyValueNet`` state dict (torch tensors or numpy arrays); ``hint``: the net's."""

        def array(value) -> np.ndarray:
            return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)

        trunk = sorted({int(key.split(".")[1]) for key in state if key.startswith("trunk.")})
        layers = [(array(state[f"trunk.{k}.weight"]), array(state[f"trunk.{k}.bias"])) for k in trunk]
        return cls(layers, (array(state["policy.weight"]), array(state["policy.bias"])),
                   (array(state["value.weight"]), array(state["value.bias"])), meta,
                   hint, float(array(state["hint_weight"])) if hint else 0.0)


def _byte_planes(matrix: np.ndarray) -> np.ndarray:
    """(itemsize, *shape) uint8: byte k of every little-endian value of ``matrix``, plane by plane."""
    matrix = np.ascontiguousarray(matrix, matrix.dtype.newbyteorder("<"))
    return np.moveaxis(matrix.view(np.uint8).reshape(*matrix.shape, matrix.itemsize), -1, 0).copy()


def _from_byte_planes(planes: np.ndarray) -> np.ndarray:
    if planes.dtype != np.uint8 or planes.ndim < 2 or planes.shape[0] not in (2, 4):
        raise KeyError(f"a weight stored as {planes.dtype} {planes.shape}, not as byte planes")
    values = np.ascontiguousarray(np.moveaxis(planes, 0, -1))
    return values.view(f"<f{planes.shape[0]}")[..., 0]


def value_bound(config) -> float:
    """The utility bound the value head's outputs are divided by (a game ``Config``)."""
    return max(abs(config.min_utility), abs(config.max_utility), 1e-9)


def masked_softmax(logits: np.ndarray, mask: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Softmax over the legal entries of each row of ``logits / temperature``, in float64;
    illegal entries are exactly 0."""
    z = np.where(mask, np.asarray(logits, np.float64), -np.inf)
    z -= z.max(axis=-1, keepdims=True)
    if temperature != 1.0:
        # Divided once the best logit is 0: a tiny temperature sends the others to -inf
        # (probability 0), never the best to +inf (NaN).
        z /= temperature
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return z
