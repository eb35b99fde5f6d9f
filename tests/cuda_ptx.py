"""Compiles the GPU face's kernels of every game to PTX with NVVM, on a machine without a GPU.

numba-cuda compiles to PTX through libnvvm alone; only the device functions' compute
capability is asked of a driver, and it is answered here (sm_90, an H100 or H200).
NVVM checks what the CUDA simulator cannot: that the rules compile for the GPU.
Prints one line per game and kernel, and exits 1 if any failed; exits 3 when this
machine cannot compile (no numba-cuda, no libnvvm), saying why.

    python tests/cuda_ptx.py [GAME ...]
"""

from __future__ import annotations

import sys
import time
import types


def main(games: list[str]) -> int:
    try:
        import numba_cuda  # noqa: F401
        from cuda.pathfinder import load_nvidia_dynamic_lib
    except ImportError as error:
        print(f"cannot compile here: numba-cuda is not installed ({error})")
        return 3
    try:
        load_nvidia_dynamic_lib("nvvm")
        load_nvidia_dynamic_lib("nvrtc")
    except Exception as error:
        print(f"cannot compile here: no libnvvm or libnvrtc (pip install nvidia-nvvm nvidia-cuda-nvrtc): {error}")
        return 3
    import numba
    import numba.cuda.dispatcher
    import numpy as np
    from numba import cuda

    numba.cuda.dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=(9, 0))
    import elements_ai
    from elements_ai.core import vec_cuda

    failed = 0
    ints, flags = np.zeros(2, np.int64), np.zeros(2, np.bool_)
    try:  # the one kernel that calls no rules
        args = (ints, ints, np.zeros((2, 3), np.bool_), np.zeros((2, 3)), ints)
        cuda.compile_ptx(vec_cuda._first_illegal_kernel().py_func, tuple(numba.typeof(a) for a in args), cc=(9, 0))
        cuda.compile_ptx(vec_cuda._seed_kernel().py_func, (numba.int64, numba.uint64[::1]), cc=(9, 0))
        print("_first_illegal, _seed_streams: ok", flush=True)
    except Exception as error:
        failed += 1
        print(f"_first_illegal, _seed_streams: FAILED {type(error).__name__}: {str(error)[:1500]}", flush=True)
    for name in games or elements_ai.GAMES:
        kernel = elements_ai.get_kernel(name)
        config = kernel.configure(kernel.resolve_params({}))
        b = 2
        states = np.zeros((b, config.state_size), kernel.state_dtype)
        ints, flags, rng = np.zeros(b, np.int64), np.zeros(b, np.bool_), np.zeros(b, np.uint64)
        masks = np.zeros((b, config.num_actions), np.bool_)
        probs = np.zeros((b, max(1, config.max_chance_outcomes)))
        rets = np.zeros((b, config.num_players))
        jobs = {
            "_step": (config.cfg, states, ints, flags, rng, True, True, ints, masks, probs, flags, rets),
            "_sample": (config.cfg, states, masks, probs, ints, rng, ints),
            "_encode_observation": (config.cfg, states, ints, np.zeros((b, config.obs_size), np.float32)),
            "_encode_information_state": (config.cfg, states, ints, np.zeros((b, config.info_size), np.float32)),
            "_playouts": (config.cfg, states, masks, probs, rng, rets, ints),
        }
        for job, args in jobs.items():
            start = time.perf_counter()
            try:
                fn = getattr(vec_cuda, job)[kernel].py_func
                cuda.compile_ptx(fn, tuple(numba.typeof(a) for a in args), cc=(9, 0))
                print(f"{name} {job}: ok ({time.perf_counter() - start:.0f} s)", flush=True)
            except Exception as error:
                failed += 1
                print(f"{name} {job}: FAILED {type(error).__name__}: {str(error)[:1500]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
