"""Generic numba code specialised per game by closing over its kernel functions.

``specialize(kernel)`` compiles (once per process, cached on disk) the helpers
every face shares: checked single-state steps for the OpenSpiel face, batched
steps and encoders for the vector face, and whole random playouts.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import types

import numba as nb
import numpy as np
from numba.core.registry import CPUDispatcher as Dispatcher

from .arrays import fill
from .kernel import CHANCE, TERMINAL, Kernel
from .rng import sample_index, seed_streams, uniform

ILLEGAL = -100  # returned by checked_apply when the action is not allowed

# numba options for a hot loop that never allocates. Without its runtime numba emits
# no reference counting, whose atomic operations cost more than a move in a rollout
# (elements' random rollouts ran 60% faster). Every function such a loop calls is
# compiled the same way: the kernel functions it reaches must not allocate.
NO_RUNTIME = {"_nrt": False}
SAMPLE_BLOCK = 32


@nb.njit(cache=True, inline="always")
def sample_index_bool(mask, u):
    """A uniformly random index among the True entries of ``mask``.

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


def _file_digest(module) -> str:
    path = getattr(module, "__file__", None)
    if not path:
        return "nofile"
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()[:16]


def stamp(dispatcher, tag: str) -> None:
    """Gives a jitted function a stable identity so that numba's disk cache works.

    numba keys the cache of a closure by pickling the objects it closes over, and a
    dispatcher pickles with a random per-process uuid (and with the dispatchers its
    globals name): without stable ones every process would recompile every
    specialised helper. The tag hashes the source, so editing the rules invalidates
    the cache.
    """
    if getattr(dispatcher, "_MemoMixin__uuid", None) is not None:
        return
    func = dispatcher.py_func
    try:
        dispatcher._set_uuid(f"{func.__module__}.{func.__qualname__}.{tag}")
    except Exception:  # a numba without this hook: still correct, only slower to start
        pass


def stamp_modules(functions) -> str:
    """Stamps every jitted function in the modules reachable from ``functions``.

    Returns a tag that changes whenever one of those modules' source changes.
    """
    pending = [sys.modules[fn.py_func.__module__] for fn in functions]
    seen: dict[str, str] = {}
    while pending:
        module = pending.pop()
        if module.__name__ in seen:
            continue
        seen[module.__name__] = digest = _file_digest(module)
        for value in vars(module).values():
            if isinstance(value, Dispatcher):
                stamp(value, digest)
                pending.append(sys.modules[value.py_func.__module__])
    return hashlib.sha256(repr(sorted(seen.items())).encode()).hexdigest()[:16]


def owned_by(owner: str):
    """A decorator (put it under ``nb.njit``) that names a closure after its owner.

    Specialised closures share their source, so numba would give the helpers of two
    games the same symbol names; when both are loaded from the disk cache into one
    process, a call could then link to the other game's helper. A qualified name
    that carries the owner (the game, and any hooks) keeps every symbol distinct.
    """
    safe = re.sub(r"\W", "_", owner)

    def rename(fn):
        fn.__qualname__ = fn.__qualname__.replace("<locals>", f"<locals>.{safe}")
        return fn

    return rename


def kernel_functions(kernel: Kernel) -> tuple:
    """Every jitted function of a kernel (the optional ones where it has them)."""
    optional = tuple(fn for fn in (kernel.sample_legal, kernel.resample, kernel.heuristic) if fn is not None)
    return (
        kernel.init,
        kernel.current_player,
        kernel.legal_mask,
        kernel.chance_outcomes,
        kernel.apply,
        kernel.returns,
        kernel.encode_observation,
        kernel.encode_information_state,
    ) + optional


@functools.cache
def legal_samplers(kernel: Kernel) -> types.SimpleNamespace:
    """Uniformly random legal actions, through the kernel's ``sample_legal`` if it has one.

    ``sample_fresh(cfg, state, mask, u)`` draws for the player to move in ``state``
    (``mask`` is scratch); ``sample_cached(cfg, state, mask, u)`` may instead read
    ``mask``, which must hold the legal mask of ``state``. Without the kernel hook
    both take the ``int(u * n)``-th True entry of the mask.
    """
    own = owned_by(kernel.short_name)
    tag = kernel.short_name + ".sample." + stamp_modules(kernel_functions(kernel) + (sample_index_bool,))
    legal_mask = kernel.legal_mask
    sample_legal = kernel.sample_legal

    if sample_legal is not None:

        @nb.njit(cache=True, inline="always")
        @own
        def sample_fresh(cfg, state, mask, u):
            return sample_legal(cfg, state, u)

        sample_cached = sample_fresh

    else:

        @nb.njit(cache=True, inline="always")
        @own
        def sample_fresh(cfg, state, mask, u):
            legal_mask(cfg, state, mask)
            return sample_index_bool(mask, u)

        @nb.njit(cache=True, inline="always")
        @own
        def sample_cached(cfg, state, mask, u):
            return sample_index_bool(mask, u)

    for fn in (sample_fresh, sample_cached):
        stamp(fn, tag)
    return types.SimpleNamespace(sample_fresh=sample_fresh, sample_cached=sample_cached)


@functools.cache
def specialize(kernel: Kernel) -> types.SimpleNamespace:
    """The compiled shared helpers for one game (see the module docstring)."""
    own = owned_by(kernel.short_name)
    tag = kernel.short_name + "." + stamp_modules(kernel_functions(kernel) + (sample_index_bool,))
    samplers = legal_samplers(kernel)
    sample_fresh = samplers.sample_fresh
    sample_cached = samplers.sample_cached

    init = kernel.init
    current_player = kernel.current_player
    legal_mask = kernel.legal_mask
    chance_outcomes = kernel.chance_outcomes
    apply = kernel.apply
    returns = kernel.returns
    encode_observation = kernel.encode_observation
    encode_information_state = kernel.encode_information_state

    @nb.njit(cache=True)
    @own
    def is_allowed(cfg, state, action, mask, probs):
        """Is ``action`` a legal action (or a possible chance outcome) here?"""
        player = current_player(cfg, state)
        if player == TERMINAL or action < 0:
            return False
        if player == CHANCE:
            if action >= probs.shape[0]:
                return False
            chance_outcomes(cfg, state, probs)
            return probs[action] > 0.0
        if action >= mask.shape[0]:
            return False
        legal_mask(cfg, state, mask)
        return mask[action]

    @nb.njit(cache=True)
    @own
    def checked_apply(cfg, state, action, mask, probs):
        """Applies a legal action and returns the next player; ILLEGAL leaves state as is."""
        if not is_allowed(cfg, state, action, mask, probs):
            return ILLEGAL
        apply(cfg, state, action)
        return current_player(cfg, state)

    @nb.njit(cache=True)
    @own
    def legal_actions(cfg, state, mask):
        """Sorted legal action ids of the player to move (empty at chance/terminal)."""
        player = current_player(cfg, state)
        if player < 0:
            return np.empty(0, np.int64)
        legal_mask(cfg, state, mask)
        return np.flatnonzero(mask).astype(np.int64)

    @nb.njit(cache=True)
    @own
    def chance_support(cfg, state, probs):
        """The possible chance outcomes here and their probabilities, as two arrays."""
        chance_outcomes(cfg, state, probs)
        outcomes = np.flatnonzero(probs > 0.0)
        return outcomes, probs[outcomes]

    @nb.njit(cache=True, inline="always")
    @own
    def _settle(cfg, state, rng, i, probs):
        """Samples chance outcomes until a player is to move or the game is over."""
        player = current_player(cfg, state)
        while player == CHANCE:
            chance_outcomes(cfg, state, probs)
            apply(cfg, state, sample_index(probs, probs.shape[0], uniform(rng, i)))
            player = current_player(cfg, state)
        return player

    @nb.njit(cache=True, inline="always")
    @own
    def _refresh(cfg, state, i, player, players, masks, chance_probs, terminated, rets):
        """Writes env ``i``'s cached views after its state changed."""
        players[i] = player
        terminated[i] = player == TERMINAL
        if player >= 0:
            legal_mask(cfg, state, masks[i])
        else:
            fill(masks[i], False)
        if player == CHANCE:
            chance_outcomes(cfg, state, chance_probs[i])
        else:
            fill(chance_probs[i], 0.0)
        returns(cfg, state, rets[i])

    @nb.njit(cache=True, parallel=True, **NO_RUNTIME)
    @own
    def batch_reset(cfg, states, which, rng, auto_chance, players, masks, chance_probs, terminated, rets):
        for i in nb.prange(states.shape[0]):
            if not which[i]:
                continue
            state = states[i]
            init(cfg, state)
            player = current_player(cfg, state)
            if auto_chance and player == CHANCE:
                player = _settle(cfg, state, rng, i, chance_probs[i])  # the row is rewritten after
            _refresh(cfg, state, i, player, players, masks, chance_probs, terminated, rets)

    @nb.njit(cache=True, inline="always")
    @own
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
    @own
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
    @own
    def first_illegal(actions, players, masks, chance_probs):
        """``batch_first_illegal`` on one thread, for batches too small to share."""
        for i in range(actions.shape[0]):
            if _illegal(actions, players, masks, chance_probs, i):
                return i
        return -1

    @nb.njit(cache=True, parallel=True, **NO_RUNTIME)
    @own
    def batch_step(cfg, states, actions, rng, auto_chance, autoreset, players, masks, chance_probs, terminated, rets):
        """Applies ``actions[i]`` to every unfinished env (already validated).

        A finished env ignores its action; with ``autoreset`` it starts a new game.
        """
        for i in nb.prange(states.shape[0]):
            state = states[i]
            if players[i] == TERMINAL:
                if not autoreset:
                    continue
                init(cfg, state)
            else:
                apply(cfg, state, actions[i])
            player = current_player(cfg, state)
            if auto_chance and player == CHANCE:
                player = _settle(cfg, state, rng, i, chance_probs[i])  # the row is rewritten after
            _refresh(cfg, state, i, player, players, masks, chance_probs, terminated, rets)

    @nb.njit(cache=True, parallel=True, **NO_RUNTIME)
    @own
    def batch_sample_actions(cfg, states, masks, chance_probs, players, rng, out):
        """A uniformly random legal action per env (a chance outcome at chance nodes)."""
        for i in nb.prange(masks.shape[0]):
            player = players[i]
            if player >= 0:
                out[i] = sample_cached(cfg, states[i], masks[i], uniform(rng, i))
            elif player == CHANCE:
                out[i] = sample_index(chance_probs[i], chance_probs.shape[1], uniform(rng, i))
            else:
                out[i] = 0

    @nb.njit(cache=True, parallel=True)
    @own
    def batch_encode_observation(cfg, states, players, out):
        for i in nb.prange(states.shape[0]):
            fill(out[i], 0.0)
            if players[i] >= 0:
                encode_observation(cfg, states[i], players[i], out[i])

    @nb.njit(cache=True, parallel=True)
    @own
    def batch_encode_information_state(cfg, states, players, out):
        for i in nb.prange(states.shape[0]):
            fill(out[i], 0.0)
            if players[i] >= 0:
                encode_information_state(cfg, states[i], players[i], out[i])

    @nb.njit(cache=True, **NO_RUNTIME)
    @own
    def play_out(cfg, state, mask, probs, rng, g, ret):
        """Plays random actions (and chance, drawn from stream ``g`` of ``rng``) from
        ``state`` to the end; returns the number of decisions and writes the returns
        into ``ret``. ``mask`` and ``probs`` are scratch."""
        steps = 0
        player = current_player(cfg, state)
        while player != TERMINAL:
            if player == CHANCE:
                chance_outcomes(cfg, state, probs)
                action = sample_index(probs, probs.shape[0], uniform(rng, g))
            else:
                action = sample_fresh(cfg, state, mask, uniform(rng, g))
                steps += 1
            apply(cfg, state, action)
            player = current_player(cfg, state)
        returns(cfg, state, ret)
        return steps

    @nb.njit(cache=True, parallel=True)
    @own
    def random_playouts(cfg, template, num_actions, num_chance, seed, rets, lengths):
        """Plays ``rets.shape[0]`` uniformly random games from the initial state."""
        games = rets.shape[0]
        rng = np.empty(games, np.uint64)
        seed_streams(seed, rng)
        for g in nb.prange(games):
            state = template.copy()
            mask = np.empty(num_actions, np.bool_)
            probs = np.empty(num_chance, np.float64)
            init(cfg, state)
            lengths[g] = play_out(cfg, state, mask, probs, rng, g, rets[g])

    helpers = dict(
        is_allowed=is_allowed,
        checked_apply=checked_apply,
        legal_actions=legal_actions,
        chance_support=chance_support,
        batch_reset=batch_reset,
        batch_first_illegal=batch_first_illegal,
        first_illegal=first_illegal,
        batch_step=batch_step,
        batch_sample_actions=batch_sample_actions,
        batch_encode_observation=batch_encode_observation,
        batch_encode_information_state=batch_encode_information_state,
        random_playouts=random_playouts,
        play_out=play_out,
    )
    for fn in (_settle, _refresh, _illegal, *helpers.values()):
        stamp(fn, tag)
    return types.SimpleNamespace(**helpers)


