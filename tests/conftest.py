"""The suite's set-up: numba's cache is filled once, in parallel parts, before the workers start."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent
WARMUP = pytest.StashKey[str]()


def _cuda_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


# Without a CUDA driver numba's CUDA simulator stands for the GPU (tests/test_cuda.py):
# numba reads the setting when it is first imported, so it is made before any test
# module (or doctest) imports numba.cuda.
if "NUMBA_ENABLE_CUDASIM" not in os.environ and not _cuda_driver():
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    if "numba.core.config" in sys.modules:
        sys.modules["numba.core.config"].reload_config()


def _whole_suite(config: pytest.Config) -> bool:
    """A run of the test paths themselves (not of chosen files or tests), on several workers."""
    workers = getattr(config.option, "numprocesses", None) or 0
    asked = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    return workers >= 2 and all(path == HERE for path in asked)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not _whole_suite(config):
        return
    # The parts import the package the workers will (installed, or this checkout's):
    # numba's cache lies beside its files.
    from commands import ENV
    from warmup import PARTS

    start = time.perf_counter()
    parts = [subprocess.Popen([sys.executable, str(HERE / "warmup.py"), str(k)], cwd=HERE.parent,
                              env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k in range(len(PARTS))]
    failed, said = [], []
    for k, part in enumerate(parts):
        out, err = part.communicate()
        said += out.strip().splitlines()[-1:]  # "warm-up part k: N s"
        if part.returncode:
            failed.append(f"part {k} exited {part.returncode}:\n{err[-2000:]}")
    took = time.perf_counter() - start
    config.stash[WARMUP] = f"numba warm-up: {len(parts)} parts in {took:.0f} s ({'; '.join(said)})"
    if failed:
        # The tests that meet the same code report the fault itself.
        config.stash[WARMUP] += "; it failed (the workers compile what they meet):\n" + "\n".join(failed)


def pytest_report_header(config: pytest.Config) -> str | None:
    return config.stash.get(WARMUP, None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The long tests go out first, so that the workers end together rather than one
    # waiting for the other's last long test.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_runtest_setup(item: pytest.Item) -> None:
    # pytest-xdist's loadgroup sends a group to one worker by a suffix it writes into each
    # grouped test's node id as the worker collects. Where that write is lost (pytest 9.2
    # with pytest-xdist 3.8: pytest-dev/pytest-xdist#1386) the groups are dealt out like any
    # test: Ray tests share the two CPUs and per-game compiles run once in each worker.
    config = item.config
    if (hasattr(config, "workerinput") and config.getvalue("loadgroup")
            and item.get_closest_marker("xdist_group") and "@" not in item.nodeid):
        pytest.fail(f"--dist loadgroup is not grouping with pytest {pytest.__version__} "
                    "(pytest-dev/pytest-xdist#1386): install the test extra's pytest, pip install -e '.[test]'",
                    pytrace=False)
