"""Numba functions written once for every game: ``@generic`` and the ``rules`` placeholder.

A generic function is plain numba over arrays, written at module level, that calls the
game's rules through the placeholder module ``rules``. Indexing it with a game's kernel
gives that function compiled for the game (once per process, cached on disk):

>>> import numpy as np
>>> from elements_ai.core.generic import generic, rules
>>> @generic
... def count_legal(cfg, state, mask):
...     rules.legal_mask(cfg, state, mask)
...     n = 0
...     for a in range(mask.shape[0]):
...         n += mask[a]
...     return n
>>> import elements_ai
>>> from elements_ai.testing import first_decision
>>> game = elements_ai.load_game("elements", single_round=True)
>>> state = first_decision(game, seed=0)
>>> count_legal[game.kernel](game.cfg, state.array, np.zeros(game.num_distinct_actions(), np.bool_))
5

What ``rules`` offers is documented in ``elements_ai.core.rules`` (the kernel protocol
of ``elements_ai.core.kernel``, with defaults for the optional functions). A generic
function may call plain numba functions and other generic functions by their global
names; those are compiled for the same game. Options are numba's, plus
``no_runtime=True`` for hot loops that never allocate (see ``NO_RUNTIME``):
``@generic(parallel=True, no_runtime=True)``.

More placeholder modules can be bound, for hooks a caller chooses (the search's prior
and leaf value): a generic function that calls ``hooks.prior(...)`` is compiled with
``fn.specialize(kernel, hooks=functions(prior=..., leaf_value=...))``.

The same functions run on an NVIDIA GPU through numba's CUDA target (``core.cuda``).
A generic function declared ``@generic(target="cuda")`` is a CUDA kernel (one thread
per game, say); indexed with a kernel it is compiled for that game's rules, and every
function it reaches, generic or jitted, is compiled again from its Python source as a
CUDA device function: the game's rules are the same code on both targets, and
``device_function`` documents what that asks of them.

Why this shape: numba resolves a global module's attributes at compile time, so
replacing the placeholder by a module of one game's functions makes every call direct
(and inlinable) with no function pointers. Each compiled copy is named after its game
and a digest of the sources it reaches (the game's rules, the helpers' modules): two
games' copies never share a symbol when both are loaded from the disk cache into one
process, and editing a rules file compiles anew instead of loading stale code.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any, Generic, ParamSpec, TypeVar

import numba as nb
from numba.core.registry import CPUDispatcher

from . import rules
from .kernel import Kernel
from .rng import sample_index, sample_true_index

P = ParamSpec("P")
R = TypeVar("R")

# numba options for a hot loop that never allocates. Without its runtime numba emits
# no reference counting, whose atomic operations cost more than a move in a rollout
# (elements' random rollouts ran 60% faster). The kernel functions such a loop calls
# are jitted the same way by their game (core/rules.py): they must not allocate.
NO_RUNTIME = {"_nrt": False}

# The placeholder modules a generic function may name, besides ``rules``.
_PLACEHOLDERS = ("rules", "hooks")
hooks = types.ModuleType("hooks", "Placeholder for caller-chosen functions bound with ``specialize(..., hooks=...)``.")


class GenericFunction(Generic[P, R]):
    """A numba function over any game's kernel; ``fn[kernel]`` is its compiled copy for one game.

    Copies are cached on disk beside the module that defines the function (a function
    defined in a notebook compiles in every session).
    """

    def __init__(self, py_func: Callable[P, R], options: Mapping[str, Any], target: str = "cpu"):
        if target not in ("cpu", "cuda"):
            raise ValueError(f"{py_func.__name__}: target must be 'cpu' or 'cuda', got {target!r}")
        self.py_func = py_func
        self.options = {"cache": True, **options}
        self.target = target
        functools.update_wrapper(self, py_func)

    def __repr__(self) -> str:
        return f"<generic function {self.py_func.__module__}.{self.py_func.__qualname__}>"

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        name = self.py_func.__name__
        raise TypeError(f"{name} is generic over the games: call {name}[kernel](...) with a game's kernel")

    def __getitem__(self, kernel: Kernel) -> Callable[P, R]:
        """The function compiled for ``kernel`` (the same object on every call)."""
        return self.specialize(kernel)

    def specialize(self, kernel: Kernel, **bound: types.ModuleType) -> Callable[P, R]:
        """The function compiled for ``kernel``, with other placeholders bound (``hooks=...``)."""
        return _specialize(self, kernel, tuple(sorted(bound.items())), self.target == "cuda")


def generic(py_func: Callable[P, R] | None = None, *, target: str = "cpu", **options: Any):
    """Declares a generic function (see the module docstring): ``@generic`` or ``@generic(**options)``.

    ``options`` are numba's ``njit`` options (``cache=True`` is implied), and
    ``no_runtime=True`` for ``NO_RUNTIME``. ``target="cuda"`` declares a CUDA kernel
    (its options are ``cuda.jit``'s).
    """
    if options.pop("no_runtime", False):
        options.update(NO_RUNTIME)

    def wrap(fn: Callable[P, R]) -> GenericFunction[P, R]:
        return GenericFunction(fn, options, target)

    return wrap(py_func) if py_func is not None else wrap


@functools.cache
def functions(**fns: Callable) -> types.ModuleType:
    """A module holding jitted functions by name, to bind to a placeholder such as ``hooks``."""
    module = types.ModuleType("bound_" + "_".join(sorted(fns)))
    for name, fn in fns.items():
        setattr(module, name, fn)
    return module


# --- the rules of one game -----------------------------------------------------------

@nb.njit(cache=True, inline="always")
def _copy_resample(cfg, state, player, rng, out):
    # The identity: every player sees the whole state.
    for i in range(state.shape[0]):
        out[i] = state[i]


@nb.njit(cache=True, inline="always")
def _no_heuristic(cfg, state, player, rng):
    return -1


@generic(inline="always")
def _sample_by_hook(cfg, state, mask, u):
    return rules.sample_legal(cfg, state, u)


@generic(inline="always")
def _sample_by_mask(cfg, state, mask, u):
    rules.legal_mask(cfg, state, mask)
    return sample_true_index(mask, u)


@generic(inline="always")
def _sample_from_mask(cfg, state, mask, u):
    return sample_true_index(mask, u)


@generic(inline="always")
def _outcome_by_hook(cfg, state, probs, u):
    return rules.sample_chance(cfg, state, u)


@generic(inline="always")
def _outcome_from_probs(cfg, state, probs, u):
    rules.chance_outcomes(cfg, state, probs)
    return sample_index(probs, probs.shape[0], u)


_RULES: dict[Kernel, types.ModuleType] = {}
_DEVICE_RULES: dict[Kernel, types.ModuleType] = {}


def rules_of(kernel: Kernel, device: bool = False) -> types.ModuleType:
    """The module that stands for ``rules`` in functions compiled for ``kernel`` (on the
    GPU with ``device=True``: the same functions compiled as CUDA device functions)."""
    if device:
        return _device_rules(kernel)
    if kernel in _RULES:
        return _RULES[kernel]
    module = types.ModuleType(f"{kernel.short_name}_rules", f"The rules kernel of {kernel.short_name}.")
    for name in rules.KERNEL_FUNCTIONS:
        setattr(module, name, getattr(kernel, name))
    module.HAS_RESAMPLE = kernel.resample is not None
    module.HAS_HEURISTIC = kernel.heuristic is not None
    module.resample = kernel.resample if kernel.resample is not None else _copy_resample
    module.heuristic = kernel.heuristic if kernel.heuristic is not None else _no_heuristic
    _RULES[kernel] = module  # before the samplers, which are compiled for this module
    if kernel.sample_legal is not None:
        module.sample_legal = kernel.sample_legal
        module.sample_action = module.sample_action_masked = _sample_by_hook[kernel]
    else:
        module.sample_action = _sample_by_mask[kernel]
        module.sample_action_masked = _sample_from_mask[kernel]
    if kernel.sample_chance is not None:
        module.sample_chance = kernel.sample_chance
        module.sample_outcome = _outcome_by_hook[kernel]
    else:
        module.sample_outcome = _outcome_from_probs[kernel]
    return module


def _device_rules(kernel: Kernel) -> types.ModuleType:
    if kernel in _DEVICE_RULES:
        return _DEVICE_RULES[kernel]
    from .cuda import device_function

    host = rules_of(kernel)
    module = types.ModuleType(f"{kernel.short_name}_device_rules", f"{kernel.short_name}'s rules kernel on the GPU.")
    module.HAS_RESAMPLE = host.HAS_RESAMPLE
    module.HAS_HEURISTIC = host.HAS_HEURISTIC
    for name in (*rules.KERNEL_FUNCTIONS, "resample", "heuristic", "sample_legal", "sample_chance"):
        if hasattr(host, name):
            setattr(module, name, device_function(getattr(host, name)))
    _DEVICE_RULES[kernel] = module  # before the samplers, which are compiled for this module
    if kernel.sample_legal is not None:
        module.sample_action = module.sample_action_masked = _specialize(_sample_by_hook, kernel, (), True)
    else:
        module.sample_action = _specialize(_sample_by_mask, kernel, (), True)
        module.sample_action_masked = _specialize(_sample_from_mask, kernel, (), True)
    if kernel.sample_chance is not None:
        module.sample_outcome = _specialize(_outcome_by_hook, kernel, (), True)
    else:
        module.sample_outcome = _specialize(_outcome_from_probs, kernel, (), True)
    return module


# --- compilation ---------------------------------------------------------------------

def _module_file_digest(module: types.ModuleType) -> str:
    path = getattr(module, "__file__", None)
    if not path:
        return "builtin"
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def _source_digest(roots: list[Any]) -> str:
    """A digest of the source files of every module reachable from ``roots`` through
    the jitted and generic functions their modules hold."""
    # A function defined by exec'd code may name a module that was never imported;
    # it has no file to digest (and is compiled without a disk cache).
    pending = [sys.modules.get(_module_name(root)) for root in roots]
    seen: dict[str, str] = {}
    while pending:
        module = pending.pop()
        if module is None or module.__name__ in seen:
            continue
        seen[module.__name__] = _module_file_digest(module)
        for value in vars(module).values():
            if isinstance(value, (CPUDispatcher, GenericFunction)):
                pending.append(sys.modules.get(_module_name(value)))
    return hashlib.sha256(repr(sorted(seen.items())).encode()).hexdigest()[:12]


def _module_name(fn: Any) -> str:
    return fn.py_func.__module__ if isinstance(fn, (CPUDispatcher, GenericFunction)) else fn.__module__


def _bound_functions(module: types.ModuleType) -> list[Any]:
    return [value for value in vars(module).values() if isinstance(value, (CPUDispatcher, GenericFunction))]


@functools.cache
def _specialize(template: GenericFunction, kernel: Kernel, bound: tuple[tuple[str, types.ModuleType], ...],
                device: bool = False):
    """``template`` compiled for ``kernel``; with ``device``, for the GPU: a CUDA kernel
    if it is declared one, else a device function, calling device copies of all it reaches."""
    if template.target == "cuda" and not device:
        raise TypeError(f"{template.__name__} is a CUDA kernel: it runs on the GPU only")
    placeholders = {"rules": rules_of(kernel, device), **dict(bound)}
    unknown = sorted(set(placeholders) - set(_PLACEHOLDERS))
    if unknown:
        raise TypeError(f"{template.__name__}: unknown placeholder {unknown[0]!r}; placeholders are {_PLACEHOLDERS}")
    if device:
        from .cuda import device_function, device_module

        for name, module in bound:
            placeholders[name] = device_module(module)
    fn = template.py_func
    namespace = dict(fn.__globals__)
    for name, module in placeholders.items():
        namespace[name] = module
    for name in fn.__code__.co_names:
        value = namespace.get(name)
        if isinstance(value, GenericFunction):
            if value.target == "cuda":
                raise TypeError(f"{template.__name__} calls the CUDA kernel {name}: a kernel is launched, not called")
            namespace[name] = _specialize(value, kernel, bound, device)
        elif device and isinstance(value, CPUDispatcher):
            namespace[name] = device_function(value)
    roots: list[Any] = [fn]
    for module in (rules_of(kernel), *dict(bound).values()):  # the host modules: their sources
        roots.extend(_bound_functions(module))
    digest = _source_digest(roots)
    if bound:
        hook_names = ",".join(f"{name}:{fn_name}" for name, module in bound for fn_name in sorted(vars(module)))
        digest = hashlib.sha256((digest + hook_names).encode()).hexdigest()[:12]
    compiled = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    compiled.__qualname__ = f"{fn.__qualname__}[{kernel.short_name}-{digest}]"
    compiled.__module__ = fn.__module__
    compiled.__doc__ = fn.__doc__
    options = dict(template.options)
    if not os.path.isfile(fn.__code__.co_filename):
        options["cache"] = False  # defined in a notebook or a doctest: no file to cache beside
    if device:
        from .cuda import compile_for_device

        return compile_for_device(compiled, options, kernel=template.target == "cuda")
    return nb.njit(**options)(compiled)
