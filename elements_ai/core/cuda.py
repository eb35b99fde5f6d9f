"""The games' numba functions compiled for NVIDIA GPUs, through numba's CUDA target.

Nothing here is a second copy of a rule. ``device_function`` compiles a jitted
function again, from its own Python source, as a CUDA device function, and does the
same to every jitted function it calls (each call is rebound to the copy): the rules
kernel a GPU runs is the kernel the CPU runs. ``core.generic`` uses it for functions
declared ``@generic(target="cuda")`` (see there); ``core.vec_cuda`` is the vector
face that runs on it.

What a function must be to run on the GPU is what a hot kernel function already is
(``core/rules.py``): plain loops over arrays and scalars, no allocation, no objects;
besides, no ``np.round`` (NVVM has no ``llvm.rint``) and no exceptions.

numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) runs the kernels and the generic
functions in Python on the CPU, one thread per GPU thread, which is how the tests check
the GPU face on machines without one (``tests/test_cuda.py``). There the jitted
functions (the rules) run as compiled for the CPU: numba's integer semantics, which
Python on numpy's int16 scalars does not share (a shift past 16 bits overflows). That
the rules compile for a GPU is checked apart, by NVVM itself where it is installed
(``tests/test_cuda.py``), and on a GPU.

>>> available() in (True, False)
True
"""

from __future__ import annotations

import functools
import os
import types
from collections.abc import Callable
from typing import Any

from numba.core.registry import CPUDispatcher

from .params import ParameterError

# Threads per block of every kernel here: one game per thread, and each thread's
# state lives in global memory, so occupancy rather than shared memory decides.
THREADS = 128

_DEVICE: dict[CPUDispatcher, Any] = {}


def simulated() -> bool:
    """Whether numba's CUDA simulator stands for the GPU (``NUMBA_ENABLE_CUDASIM=1``)."""
    from numba.core import config

    return bool(config.ENABLE_CUDASIM)


@functools.cache
def _unavailable() -> str:
    """Why no CUDA GPU can be used ("" when one can)."""
    try:
        from numba import cuda
    except Exception as error:  # numba built without its CUDA target
        return f"numba.cuda cannot be imported ({type(error).__name__}: {error})"
    try:
        if cuda.is_available():
            return ""
    except Exception as error:
        return f"no CUDA driver ({type(error).__name__}: {error})"
    return "no CUDA GPU or driver was found (numba.cuda.is_available() is False)"


def available() -> bool:
    """Whether a CUDA GPU (or the simulator) can run the GPU face."""
    return not _unavailable()


def require() -> None:
    """Raises ``ParameterError`` in one line when no CUDA GPU can be used."""
    reason = _unavailable()
    if reason:
        raise ParameterError(f"device 'cuda': {reason}; install the 'gpu' extra on a machine with an NVIDIA GPU, "
                             f"or set NUMBA_ENABLE_CUDASIM=1 to simulate one")


def device_function(dispatcher: CPUDispatcher):
    """The CUDA device function compiled from the Python source of the jitted ``dispatcher``,
    its calls to other jitted functions rebound to their own device copies (once each)."""
    if dispatcher in _DEVICE:
        return _DEVICE[dispatcher]
    if simulated():
        return _DEVICE.setdefault(dispatcher, _on_host(dispatcher))
    from numba import cuda

    fn = dispatcher.py_func
    namespace = dict(fn.__globals__)
    copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = fn.__qualname__
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    # Compiled lazily, for the argument types of its calls: a function the CPU compiles
    # for explicit signatures only is one numba's CUDA target would refuse to retarget.
    device = cuda.jit(device=True)(copy)
    _DEVICE[dispatcher] = device  # before its callees: a recursive call finds it
    for name in fn.__code__.co_names:
        value = namespace.get(name)
        if isinstance(value, CPUDispatcher):
            namespace[name] = device_function(value)
    return device


def _on_host(dispatcher: CPUDispatcher) -> Callable:
    """``dispatcher`` called from the simulator's kernels, on the host arrays they wrap."""
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray, FakeWithinKernelCUDAArray

    def unwrap(value):
        if isinstance(value, FakeWithinKernelCUDAArray):
            value = value.__dict__["_item"]
        return value._ary if isinstance(value, FakeCUDAArray) else value

    def call(*args):
        return dispatcher(*[unwrap(arg) for arg in args])

    call.__name__ = call.__qualname__ = dispatcher.py_func.__name__
    return call


@functools.cache
def device_module(module: types.ModuleType) -> types.ModuleType:
    """A module of placeholder functions (``generic.functions``) with device copies of them."""
    copy = types.ModuleType(module.__name__ + "_device")
    for name, value in vars(module).items():
        if isinstance(value, CPUDispatcher):
            value = device_function(value)
        setattr(copy, name, value)
    return copy


def compile_for_device(fn: Callable, options: dict[str, Any], kernel: bool):
    """``fn`` (its globals already rebound) as a CUDA kernel, or as a device function."""
    from numba import cuda

    if kernel:
        # The simulator keeps no cache; a GPU keeps the kernel's code beside its source.
        return cuda.jit(cache=bool(options.get("cache")) and not simulated())(fn)
    return cuda.jit(device=True)(fn)


def cuda_kernel(fn: Callable) -> Callable[[], Any]:
    """A CUDA kernel that calls no game's rules, compiled on first use (``fn()`` gives it),
    its calls to jitted functions rebound to their device copies."""

    @functools.cache
    def compiled():
        namespace = dict(fn.__globals__)
        for name in fn.__code__.co_names:
            if isinstance(namespace.get(name), CPUDispatcher):
                namespace[name] = device_function(namespace[name])
        copy = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
        copy.__qualname__ = fn.__qualname__
        copy.__module__ = fn.__module__
        cache = os.path.isfile(fn.__code__.co_filename)
        return compile_for_device(copy, {"cache": cache}, kernel=True)

    return compiled


def blocks(n: int) -> int:
    """Blocks of ``THREADS`` threads that cover ``n`` items."""
    return max(1, (int(n) + THREADS - 1) // THREADS)
