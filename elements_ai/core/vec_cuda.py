"""The vector face on an NVIDIA GPU: ``make_vec(game, n, device="cuda")``.

One CUDA thread per env runs the step of the CPU face (``core.vec.step_env``), the
game's own rules compiled for the GPU (``core.cuda``), chance drawn inside from the
env's own stream: the same seed plays the same games as the CPU face, bit for bit.
Every array stays on the GPU. Each one is a numba device array, which torch reads
without a copy (``torch.as_tensor(env.legal_mask, device="cuda")``, through
``__cuda_array_interface__``), and ``step`` takes actions the same way, a torch CUDA
tensor as well as a numpy array.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from .cuda import THREADS, blocks, cuda_kernel, require
from .generic import generic, rules
from .kernel import TERMINAL, Config, Kernel
from .playouts import play_out
from .rng import nth_stream
from .vec import _SAVED, _illegal, illegal_message, sample_env, step_env

# --- kernels, one env (or game) per thread --------------------------------------------


@generic(target="cuda")
def _step(cfg, states, actions, restart, rng, auto_chance, autoreset, players, masks, chance_probs, terminated, rets):
    i = cuda.grid(1)
    if i < states.shape[0]:
        step_env(cfg, states, actions, restart, rng, auto_chance, autoreset, players, masks, chance_probs, terminated,
                 rets, i)


@generic(target="cuda")
def _sample(cfg, states, masks, chance_probs, players, rng, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        sample_env(cfg, states, masks, chance_probs, players, rng, out, i)


@generic(target="cuda")
def _encode_observation(cfg, states, players, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        row = out[i]
        for k in range(row.shape[0]):
            row[k] = 0.0
        if players[i] >= 0:
            rules.encode_observation(cfg, states[i], players[i], row)


@generic(target="cuda")
def _encode_information_state(cfg, states, players, out):
    i = cuda.grid(1)
    if i < states.shape[0]:
        row = out[i]
        for k in range(row.shape[0]):
            row[k] = 0.0
        if players[i] >= 0:
            rules.encode_information_state(cfg, states[i], players[i], row)


@generic(target="cuda")
def _playouts(cfg, states, masks, probs, rng, rets, lengths):
    # The CPU's random_playouts, game g on thread g with stream g: the same games.
    g = cuda.grid(1)
    if g < states.shape[0]:
        state = states[g]
        rules.init(cfg, state)
        lengths[g] = play_out(cfg, state, masks[g], probs[g], rng, g, rets[g])


def _first_illegal(actions, players, masks, chance_probs, first):
    i = cuda.grid(1)
    if i < actions.shape[0] and _illegal(actions, players, masks, chance_probs, i):
        cuda.atomic.min(first, 0, i)


_first_illegal_kernel = cuda_kernel(_first_illegal)


def _seed_streams(seed, rng):
    i = cuda.grid(1)
    if i < rng.shape[0]:
        rng[i] = nth_stream(seed, i)


_seed_kernel = cuda_kernel(_seed_streams)


def seeds_on_device(seed: int, count: int):
    """``core.rng.seeds_from(seed, count)``, computed on the GPU."""
    rng = cuda.device_array(int(count), np.uint64)
    _seed_kernel()[blocks(count), THREADS](int(seed), rng)
    return rng


# --- arrays -----------------------------------------------------------------------------


def as_device(values: Any, dtype, shape: tuple[int, ...], name: str):
    """``values`` as a device array of ``dtype`` and ``shape``: a device array or torch
    CUDA tensor of that type is used in place; anything else is copied to the GPU."""
    if hasattr(values, "__cuda_array_interface__"):
        array = cuda.as_cuda_array(values)
        if array.dtype == np.dtype(dtype) and array.shape == shape and array.is_c_contiguous():
            return array
        host = array.copy_to_host()
    else:
        host = np.asarray(values)
    if host.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {host.shape}")
    return cuda.to_device(np.ascontiguousarray(host, dtype))


def random_playouts_cuda(kernel: Kernel, config: Config, num_games: int, seed: int = 0):
    """``core.playouts.random_playouts`` on the GPU, one game per thread: the same games
    for the same seed. Returns ``(returns (G, players), lengths (G,))`` on the host."""
    rets, lengths = random_playouts_on_device(kernel, config, num_games, seed)
    return rets.copy_to_host(), lengths.copy_to_host()


def random_playouts_on_device(kernel: Kernel, config: Config, num_games: int, seed: int = 0):
    """``random_playouts_cuda`` leaving its results on the GPU (device arrays)."""
    require()
    g = int(num_games)
    if g < 1:
        raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
    states = cuda.device_array((g, config.state_size), kernel.state_dtype)
    masks = cuda.device_array((g, config.num_actions), np.bool_)
    probs = cuda.device_array((g, max(config.max_chance_outcomes, 1)), np.float64)
    rets = cuda.device_array((g, config.num_players), np.float64)
    lengths = cuda.device_array(g, np.int64)
    rng = seeds_on_device(seed, g)
    _playouts[kernel][blocks(g), THREADS](cuda.to_device(config.cfg), states, masks, probs, rng, rets, lengths)
    return rets, lengths


# --- the environment ----------------------------------------------------------------------


class CudaVecEnv:
    """``num_envs`` games of one configured kernel on the GPU, with ``VecEnv``'s API.

    What differs from ``VecEnv``: ``states``, ``current_player``, ``legal_mask``,
    ``chance_probs``, ``terminated`` and ``returns`` are numba device arrays (read them
    with ``copy_to_host()``, or give them to torch as they are), and so are what
    ``observation``, ``information_state`` and ``sample_actions`` return. ``state_dict``
    and ``random_playouts`` answer on the host, like the CPU face. The other observation
    types (``observe``, ``public_observation``) are the CPU face's alone.

    >>> import elements_ai
    >>> from elements_ai.core import cuda as gpu
    >>> env = elements_ai.make_vec("elements", num_envs=2, seed=0, device="cuda") if gpu.available() else None
    >>> env is None or env.legal_mask.copy_to_host().shape == (2, 10)
    True
    """

    device = "cuda"

    def __init__(
        self,
        kernel: Kernel,
        config: Config,
        num_envs: int,
        seed: int = 0,
        auto_chance: bool = True,
        autoreset: bool = False,
    ):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        require()
        self.kernel = kernel
        self.config = config
        self.num_envs = b = int(num_envs)
        self.auto_chance = bool(auto_chance)
        self.autoreset = bool(autoreset)
        self._cfg = cuda.to_device(config.cfg)
        self._step = _step[kernel]
        self._sample = _sample[kernel]
        self.states = cuda.to_device(np.zeros((b, config.state_size), kernel.state_dtype))
        self.current_player = cuda.to_device(np.full(b, TERMINAL, np.int64))
        self.legal_mask = cuda.to_device(np.zeros((b, config.num_actions), np.bool_))
        self.chance_probs = cuda.to_device(np.zeros((b, max(config.max_chance_outcomes, 1)), np.float64))
        self.terminated = cuda.to_device(np.ones(b, np.bool_))
        self.returns = cuda.to_device(np.zeros((b, config.num_players), np.float64))
        self._no_actions = cuda.to_device(np.full(b, -1, np.int64))
        self._no_restart = cuda.to_device(np.zeros(b, np.bool_))
        self._all = cuda.to_device(np.ones(b, np.bool_))
        self._first = cuda.to_device(np.zeros(1, np.int64))
        self.seed(seed)
        self.reset()

    @property
    def num_actions(self) -> int:
        return self.config.num_actions

    @property
    def num_players(self) -> int:
        return self.config.num_players

    def seed(self, seed: int) -> None:
        """Re-seeds the env's random streams (chance and ``sample_actions``)."""
        self._rng = seeds_on_device(seed, self.num_envs)

    def _launch(self, restart, actions, autoreset: bool) -> None:
        self._step[blocks(self.num_envs), THREADS](
            self._cfg, self.states, actions, restart, self._rng, self.auto_chance, autoreset, self.current_player,
            self.legal_mask, self.chance_probs, self.terminated, self.returns,
        )

    def reset(self, mask: Any = None) -> None:
        """Starts new games in every env, or only where ``mask`` (B,) is True."""
        which = self._all if mask is None else as_device(mask, np.bool_, (self.num_envs,), "mask")
        self._launch(which, self._no_actions, False)

    def step(self, actions: Any) -> None:
        """Applies ``actions`` (B,) to every unfinished env; finished envs ignore theirs
        (and start anew with ``autoreset``).

        Raises ``ValueError`` naming the first env whose action is illegal; then no
        env has changed. The check reads one integer back from the GPU.
        """
        actions = as_device(actions, np.int64, (self.num_envs,), "actions")
        self._first.copy_to_device(np.array([self.num_envs], np.int64))
        _first_illegal_kernel()[blocks(self.num_envs), THREADS](
            actions, self.current_player, self.legal_mask, self.chance_probs, self._first
        )
        bad = int(self._first.copy_to_host()[0])
        if bad < self.num_envs:
            raise ValueError(self._illegal_message(bad, int(actions[bad:bad + 1].copy_to_host()[0])))
        self._launch(self._no_restart, actions, self.autoreset)

    def sample_actions(self):
        """A uniformly random legal action per env (a sampled outcome at chance nodes), on the GPU."""
        out = cuda.device_array(self.num_envs, np.int64)
        self._sample[blocks(self.num_envs), THREADS](
            self._cfg, self.states, self.legal_mask, self.chance_probs, self.current_player, self._rng, out
        )
        return out

    def observation(self, player: int | None = None):
        """Observation tensors (B, F) float32 on the GPU, as ``VecEnv.observation``."""
        out = cuda.device_array((self.num_envs, self.config.obs_size), np.float32)
        _encode_observation[self.kernel][blocks(self.num_envs), THREADS](
            self._cfg, self.states, self._players(player), out
        )
        return out

    def information_state(self, player: int | None = None):
        """Information-state tensors (B, F') float32 on the GPU, as ``VecEnv.information_state``."""
        out = cuda.device_array((self.num_envs, self.config.info_size), np.float32)
        _encode_information_state[self.kernel][blocks(self.num_envs), THREADS](
            self._cfg, self.states, self._players(player), out
        )
        return out

    def state_dict(self) -> dict[str, np.ndarray]:
        """Host copies of the games, the arrays derived from them and the streams, as
        ``VecEnv.state_dict`` (either face loads the other's)."""
        out = {name: getattr(self, name).copy_to_host() for name in _SAVED}
        out["rng"] = self._rng.copy_to_host().view(np.int64)
        return out

    def load_state_dict(self, saved: dict[str, np.ndarray]) -> None:
        """Puts back what ``state_dict`` saved (of an env of this game and size)."""
        missing = [name for name in (*_SAVED, "rng") if name not in saved]
        if missing:
            raise ValueError(f"CudaVecEnv.load_state_dict: no {', '.join(missing)} in what it was given; it takes "
                             f"what state_dict() returned")
        for name in (*_SAVED, "rng"):
            mine = self._rng if name == "rng" else getattr(self, name)
            if np.shape(saved[name]) != mine.shape:
                raise ValueError(f"CudaVecEnv.load_state_dict: {name} has shape {np.shape(saved[name])}, this env's "
                                 f"{mine.shape}: saved from another game or number of envs")
        for name in _SAVED:
            getattr(self, name).copy_to_device(np.ascontiguousarray(saved[name], getattr(self, name).dtype))
        self._rng.copy_to_device(np.ascontiguousarray(saved["rng"]).view(np.uint64))

    def random_playouts(self, num_games: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Whole random games on the GPU, as ``VecEnv.random_playouts`` (the same games for a seed)."""
        return random_playouts_cuda(self.kernel, self.config, num_games, seed)

    def _players(self, player: int | None):
        if player is None:
            return self.current_player
        if not 0 <= int(player) < self.config.num_players:
            raise ValueError(f"player {player} is out of range 0..{self.config.num_players - 1}")
        return cuda.to_device(np.full(self.num_envs, int(player), np.int64))

    def _illegal_message(self, env: int, action: int) -> str:
        rows = [getattr(self, name)[env:env + 1].copy_to_host()[0]
                for name in ("states", "current_player", "legal_mask", "chance_probs")]
        return illegal_message(self.kernel, self.config.cfg, rows[0], int(rows[1]), rows[2], rows[3], env, action)
