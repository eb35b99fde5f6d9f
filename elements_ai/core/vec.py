"""The vector face: ``B`` games stepped at once in numba, in the style of pgx.

The env keeps the kernel state arrays ``states`` (B, S) and, after every change,
the views a learner reads: ``current_player``, ``legal_mask``, ``terminated``,
``returns`` (and ``chance_probs`` when chance is driven from outside). Tensors are
encoded on demand: ``observation``, ``information_state``, and any OpenSpiel
observation type with ``observe`` (``public_observation``, ``private_observation``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
import pyspiel

from .arrays import fill
from .generic import generic, rules
from .kernel import CHANCE, TERMINAL, Config, Kernel
from .observers import View, view_of
from .playouts import random_playouts
from .rng import sample_index, seeds_from, uniform

# From this batch size on, actions are checked in parallel, on the threads that
# wrote each env's mask; below it, starting the threads costs more than the check.
PARALLEL_CHECK = 512


class Views(NamedTuple):
    """What a learner reads of every env, rewritten after every change (see ``VecEnv``)."""

    current_player: np.ndarray  # int64 (B,)
    legal_mask: np.ndarray  # bool (B, A)
    chance_probs: np.ndarray  # float64 (B, max_chance_outcomes)
    terminated: np.ndarray  # bool (B,)
    returns: np.ndarray  # float64 (B, players)


# --- numba over the batch ---------------------------------------------------------------

@generic(inline="always")
def _refresh(cfg, state, i, player, players, masks, chance_probs, terminated, rets):
    """Writes env ``i``'s views after its state changed."""
    players[i] = player
    terminated[i] = player == TERMINAL
    if player >= 0:
        rules.legal_mask(cfg, state, masks[i])
    else:
        fill(masks[i], False)
    if player == CHANCE:
        rules.chance_outcomes(cfg, state, chance_probs[i])
    else:
        fill(chance_probs[i], 0.0)
    rules.returns(cfg, state, rets[i])


@nb.njit(cache=True, inline="always")
def _illegal(actions, players, masks, chance_probs, i):
    """Is env ``i``'s action not allowed (read from the cached mask or chance row)?"""
    player = players[i]
    action = actions[i]
    if player == CHANCE:
        bad = action < 0 or action >= chance_probs.shape[1] or not chance_probs[i, action] > 0.0
    else:
        bad = player != TERMINAL and (action < 0 or action >= masks.shape[1] or not masks[i, action])
    return bad


@nb.njit(cache=True, parallel=True)
def batch_first_illegal(actions, players, masks, chance_probs):
    """Index of the first unfinished env whose action is not allowed, or -1.

    Reads the cached masks and chance probabilities, which every reset and step
    keep up to date, so validation costs no kernel call. It runs on the threads
    that wrote them (the same split of the envs): read from another core, the
    masks cost a cache miss per env, more than the step itself.
    """
    n = actions.shape[0]
    first = n
    for i in nb.prange(n):
        if _illegal(actions, players, masks, chance_probs, i):
            first = min(first, i)
    return first if first < n else -1


@nb.njit(cache=True)
def first_illegal(actions, players, masks, chance_probs):
    """``batch_first_illegal`` on one thread, for batches too small to share."""
    for i in range(actions.shape[0]):
        if _illegal(actions, players, masks, chance_probs, i):
            return i
    return -1


@generic(inline="always")
def step_env(cfg, states, actions, restart, rng, auto_chance, autoreset, players, masks, chance_probs, terminated,
             rets, i):
    """Advances env ``i``: a new game where ``restart[i]`` (or, with ``autoreset``, where
    the game is over), else the (validated) action where it is not negative and the
    game goes on; then, with ``auto_chance``, chance outcomes until a player is to move.
    The body of ``batch_step`` and of the GPU face's step (``core.vec_cuda``).
    """
    state = states[i]
    action = actions[i]
    moves = True
    if restart[i] or (autoreset and players[i] == TERMINAL):
        rules.init(cfg, state)
        action = -1
    elif action < 0 or players[i] == TERMINAL:
        moves = False
    if moves:
        # One call of apply, for the action and the chance outcomes after it: the
        # kernel's apply is inlined, and each copy costs compile time.
        probs = chance_probs[i]  # its row is rewritten after
        while True:
            if action >= 0:
                rules.apply(cfg, state, action)
            player = rules.current_player(cfg, state)
            if not (auto_chance and player == CHANCE):
                break
            action = rules.sample_outcome(cfg, state, probs, uniform(rng, i))
        _refresh(cfg, state, i, player, players, masks, chance_probs, terminated, rets)


@generic(parallel=True, no_runtime=True)
def batch_step(cfg, states, actions, restart, rng, auto_chance, autoreset, views):
    """``step_env`` for every env."""
    # Unpacked before the parallel loop: read inside it, a record's arrays were not
    # always written through (numba 0.68's parallel lowering).
    players, masks, chance_probs, terminated, rets = views
    for i in nb.prange(states.shape[0]):
        step_env(cfg, states, actions, restart, rng, auto_chance, autoreset, players, masks, chance_probs, terminated,
                 rets, i)


@generic(inline="always")
def sample_env(cfg, states, masks, chance_probs, players, rng, out, i):
    """A uniformly random legal action of env ``i`` (a chance outcome at a chance node) into ``out[i]``."""
    player = players[i]
    if player >= 0:
        out[i] = rules.sample_action_masked(cfg, states[i], masks[i], uniform(rng, i))
    elif player == CHANCE:
        out[i] = sample_index(chance_probs[i], chance_probs.shape[1], uniform(rng, i))
    else:
        out[i] = 0


@generic(parallel=True, no_runtime=True)
def batch_sample_actions(cfg, states, masks, chance_probs, players, rng, out):
    """A uniformly random legal action per env (a chance outcome at chance nodes)."""
    for i in nb.prange(masks.shape[0]):
        sample_env(cfg, states, masks, chance_probs, players, rng, out, i)


@generic(parallel=True)
def batch_encode_observation(cfg, states, players, out):
    for i in nb.prange(states.shape[0]):
        fill(out[i], 0.0)
        if players[i] >= 0:
            rules.encode_observation(cfg, states[i], players[i], out[i])


@generic(parallel=True)
def batch_encode_information_state(cfg, states, players, out):
    for i in nb.prange(states.shape[0]):
        fill(out[i], 0.0)
        if players[i] >= 0:
            rules.encode_information_state(cfg, states[i], players[i], out[i])


# --- the environment ------------------------------------------------------------------------

# What a checkpoint of a VecEnv holds besides its streams: the games and the arrays
# derived from them.
_SAVED = ("states", "current_player", "legal_mask", "chance_probs", "terminated", "returns")


class VecEnv:
    """A batch of ``num_envs`` games of one configured kernel.

    With ``auto_chance=True`` (default) chance nodes are sampled inside with the
    env's own seeded streams (one per env, so results do not depend on threads).
    With ``auto_chance=False`` envs stop at chance nodes (``current_player == -1``)
    and ``step`` takes the chance outcome as the action, so a recorded game
    replays exactly. A finished env stays finished until ``reset``; with
    ``autoreset=True`` the step after an env finished starts it anew instead (its
    action is ignored), so the final state can still be read for one step.

    >>> import elements_ai
    >>> env = elements_ai.make_vec("elements", num_envs=4, seed=0)
    >>> env.legal_mask.shape
    (4, 10)
    >>> env.step(env.sample_actions())
    >>> env.observation().shape
    (4, 102)
    """

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
        self.kernel = kernel
        self.config = config
        self.num_envs = int(num_envs)
        self.auto_chance = bool(auto_chance)
        self.autoreset = bool(autoreset)
        self._cfg = config.cfg
        # The batch functions compiled for this game, looked up once.
        self._step = batch_step[kernel]
        self._sample = batch_sample_actions[kernel]
        self._encode_observation = batch_encode_observation[kernel]
        self._encode_information_state = batch_encode_information_state[kernel]
        b = self.num_envs
        self.states = np.zeros((b, config.state_size), kernel.state_dtype)
        self.current_player = np.full(b, TERMINAL, np.int64)
        self.legal_mask = np.zeros((b, config.num_actions), np.bool_)
        self.chance_probs = np.zeros((b, max(config.max_chance_outcomes, 1)), np.float64)
        self.terminated = np.ones(b, np.bool_)
        self.returns = np.zeros((b, config.num_players), np.float64)
        # The arrays above are written in place and never replaced.
        self._views = Views(self.current_player, self.legal_mask, self.chance_probs, self.terminated, self.returns)
        self._no_actions = np.full(b, -1, np.int64)
        self._no_restart = np.zeros(b, np.bool_)
        self._views_by_type: dict[tuple[bool, bool, int], View | None] = {}
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
        self._rng = seeds_from(seed, self.num_envs)

    def state_dict(self) -> dict[str, np.ndarray]:
        """Copies of the games, the arrays derived from them and the random streams (as
        int64), for a checkpoint; ``load_state_dict`` puts them back, so that play goes on
        exactly as it would have.

        >>> import elements_ai
        >>> env = elements_ai.make_vec("elements", num_envs=2, seed=0)
        >>> saved = env.state_dict()
        >>> env.step(env.sample_actions()); first = env.states.copy()
        >>> env.load_state_dict(saved); env.step(env.sample_actions())
        >>> bool((env.states == first).all())
        True
        """
        out = {name: getattr(self, name).copy() for name in _SAVED}
        out["rng"] = self._rng.view(np.int64).copy()
        return out

    def load_state_dict(self, saved: dict[str, np.ndarray]) -> None:
        """Puts back what ``state_dict`` saved (of an env of this game and size)."""
        missing = [name for name in (*_SAVED, "rng") if name not in saved]
        if missing:
            raise ValueError(f"VecEnv.load_state_dict: no {', '.join(missing)} in what it was given; it takes "
                             f"what state_dict() returned")
        for name in (*_SAVED, "rng"):
            mine = self._rng if name == "rng" else getattr(self, name)
            if np.shape(saved[name]) != mine.shape:
                raise ValueError(f"VecEnv.load_state_dict: {name} has shape {np.shape(saved[name])}, this env's "
                                 f"{mine.shape}: saved from another game or number of envs")
        # In place, once all is checked: the views and the kernels hold these arrays.
        for name in _SAVED:
            getattr(self, name)[:] = np.asarray(saved[name])
        self._rng[:] = np.asarray(saved["rng"]).view(np.uint64)

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Starts new games in every env, or only where ``mask`` (B,) is True."""
        which = np.ones(self.num_envs, np.bool_) if mask is None else self._batch(mask, np.bool_, "mask")
        self._step(self._cfg, self.states, self._no_actions, which, self._rng, self.auto_chance, False, self._views)

    def step(self, actions: np.ndarray) -> None:
        """Applies ``actions`` (B,) to every unfinished env; finished envs ignore theirs
        (and start anew with ``autoreset``).

        Raises ``ValueError`` naming the first env whose action is illegal; then no
        env has changed.
        """
        actions = self._batch(actions, np.int64, "actions")
        check = batch_first_illegal if self.num_envs >= PARALLEL_CHECK else first_illegal
        bad = check(actions, self.current_player, self.legal_mask, self.chance_probs)
        if bad >= 0:
            raise ValueError(self._illegal_message(int(bad), int(actions[bad])))
        self._step(
            self._cfg, self.states, actions, self._no_restart, self._rng, self.auto_chance, self.autoreset, self._views
        )

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action per env (a sampled outcome at chance nodes)."""
        out = np.zeros(self.num_envs, np.int64)
        self._sample(
            self._cfg, self.states, self.legal_mask, self.chance_probs, self.current_player, self._rng, out
        )
        return out

    def observation(self, player: int | None = None) -> np.ndarray:
        """Observation tensors (B, F) of each env's player to move, or of ``player``.

        Rows of envs with no player to move (finished, or at a chance node) are zero
        unless ``player`` is given.
        """
        out = np.empty((self.num_envs, self.config.obs_size), np.float32)
        self._encode_observation(self._cfg, self.states, self._players(player), out)
        return out

    def information_state(self, player: int | None = None) -> np.ndarray:
        """Information-state tensors (B, F'), like ``observation``."""
        out = np.empty((self.num_envs, self.config.info_size), np.float32)
        self._encode_information_state(self._cfg, self.states, self._players(player), out)
        return out

    def observe(self, iig_obs_type, player: int | None = None) -> np.ndarray:
        """Tensors (B, F) of any ``pyspiel.IIGObservationType``, as the OpenSpiel observer
        of that type gives them (``core.observers``; ``view(iig_obs_type).pieces`` names
        their pieces). The public view reads no player; a private view is ``player``'s,
        or each env's player to move (zero rows where none is, as in ``observation``).

        >>> import elements_ai, pyspiel
        >>> env = elements_ai.make_vec("elements", num_envs=4, seed=0)
        >>> public = pyspiel.IIGObservationType(perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE)
        >>> env.observe(public).shape, [piece.name for piece in env.view(public).pieces][-2:]
        ((4, 345), ['round_start', 'history'])
        """
        view = self.view(iig_obs_type)
        recall = bool(iig_obs_type.perfect_recall)
        if view is None:
            return self.information_state(player) if recall else self.observation(player)
        encode = self._encode_information_state if recall else self._encode_observation
        size = self.config.info_size if recall else self.config.obs_size
        seats = {}
        for seat in view.seats():
            seats[seat] = np.empty((self.num_envs, size), np.float32)
            encode(self._cfg, self.states, np.full(self.num_envs, seat, np.int64), seats[seat])
        own = None
        if view.needs_observer:
            players = self._players(player)
            own = np.empty((self.num_envs, size), np.float32)
            encode(self._cfg, self.states, players, own)
        out = np.empty((self.num_envs, view.size), np.float32)
        view.assemble(seats, own, out)
        if view.needs_observer:
            out[players < 0] = 0.0
        return out

    def public_observation(self, perfect_recall: bool = False) -> np.ndarray:
        """The public view (B, F) of every env, the same for every player (see ``observe``)."""
        return self.observe(
            pyspiel.IIGObservationType(perfect_recall=perfect_recall, private_info=pyspiel.PrivateInfoType.NONE)
        )

    def private_observation(self, player: int | None = None, perfect_recall: bool = False) -> np.ndarray:
        """What only ``player`` (default: each env's player to move) knows, (B, F) (see ``observe``)."""
        return self.observe(pyspiel.IIGObservationType(perfect_recall=perfect_recall, public_info=False), player)

    def view(self, iig_obs_type) -> View | None:
        """The layout of ``observe``'s tensors for ``iig_obs_type`` (None: the game's own observation
        or information state, whose pieces are ``config.obs_pieces`` / ``info_pieces``)."""
        key = (bool(iig_obs_type.perfect_recall), bool(iig_obs_type.public_info), int(iig_obs_type.private_info))
        if key not in self._views_by_type:
            self._views_by_type[key] = view_of(
                self.kernel.short_name, self.kernel.privacy, self.config.num_players,
                self.config.obs_pieces, self.config.info_pieces, iig_obs_type,
            )
        return self._views_by_type[key]

    def random_playouts(self, num_games: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Plays ``num_games`` uniformly random games from the start, all in numba.

        Returns ``(returns (G, players), lengths (G,))`` where a length counts the
        players' decisions (chance outcomes are not counted). The env's own games
        are untouched.
        """
        return random_playouts(self.kernel, self.config, num_games, seed)

    def _players(self, player: int | None) -> np.ndarray:
        if player is None:
            return self.current_player
        if not 0 <= int(player) < self.config.num_players:
            raise ValueError(f"player {player} is out of range 0..{self.config.num_players - 1}")
        return np.full(self.num_envs, int(player), np.int64)

    def _batch(self, values, dtype, name: str) -> np.ndarray:
        array = np.asarray(values)
        if array.shape != (self.num_envs,):
            raise ValueError(f"{name} must have shape ({self.num_envs},), got {array.shape}")
        return np.ascontiguousarray(array, dtype)

    def _illegal_message(self, env: int, action: int) -> str:
        return illegal_message(self.kernel, self._cfg, self.states[env], int(self.current_player[env]),
                               self.legal_mask[env], self.chance_probs[env], env, action)


def illegal_message(kernel: Kernel, cfg: np.ndarray, state: np.ndarray, player: int, mask: np.ndarray,
                    probs: np.ndarray, env: int, action: int) -> str:
    """What ``step`` says of env ``env``'s illegal ``action``, from that env's rows."""
    if player == CHANCE:
        allowed = np.flatnonzero(probs).tolist()
        what = "chance outcome"
    else:
        allowed = np.flatnonzero(mask).tolist()
        what = f"action for player {player}"

    def named(a: int) -> str:
        try:
            return f"{a} ({kernel.action_to_string(cfg, state, player, a)})"
        except Exception:  # an id out of range has no string
            return str(a)

    return (
        f"{kernel.short_name}: env {env}: illegal {what} {named(action)}; "
        f"legal: {', '.join(named(a) for a in allowed)}; state:\n{kernel.state_to_string(cfg, state)}"
    )
