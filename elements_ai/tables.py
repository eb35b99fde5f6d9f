"""Result tables: written whole or not at all, stamped with where they were measured,
and printed for a terminal."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import pandas as pd


def write_csv(table: pd.DataFrame, path: str | Path) -> Path:
    """Writes ``table`` to ``path`` atomically: a reader never sees a half-written file.

    >>> import tempfile, pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> write_csv(pd.DataFrame({"a": [1, 2]}), Path(folder) / "t.csv").read_text()
    'a\\n1\\n2\\n'
    """
    from .files import atomic_write

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path, "w", newline="") as handle:
        table.to_csv(handle, index=False, lineterminator="\n")
    return path


def provenance() -> dict[str, str]:
    """The code and the machine a result was measured with, as columns for its table.

    ``commit``: ``git rev-parse HEAD`` of the checkout the package runs from, with
    ``-dirty`` when tracked files differ from it; ``unknown`` for an installed package.
    ``machine``: CPU model, cores, memory and the Python, numpy and numba versions.

    >>> sorted(provenance())
    ['commit', 'machine']
    >>> ", numba " in provenance()["machine"]
    True
    """
    return {"commit": _commit(), "machine": _machine()}


def _commit() -> str:
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():  # a file in a worktree; absent when installed, even inside another repo
        return "unknown"
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=30, check=True).stdout.strip()
        # Untracked files left aside, as `git describe --dirty` does: fresh results are
        # untracked. So are the committed results under experiments/results/: a rerun
        # replaces them, and they are what it measures, not what it runs.
        changes = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                                  ".", ":(exclude)experiments/results"],
                                 capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("-dirty" if changes else "")


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo``'s where there is one).

    >>> cpu_model() != ""
    True
    """
    cpu = platform.processor() or platform.machine() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            cpu = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), cpu)
    except OSError:
        pass
    return cpu


def _machine() -> str:
    cpu = cpu_model()
    try:
        memory = f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 1e9:.1f} GB"
    except (AttributeError, ValueError, OSError):  # no sysconf on Windows
        memory = "memory unknown"
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in ("numpy", "numba"))
    return f"{cpu}, {os.cpu_count()} cores, {memory}, Python {platform.python_version()}, {versions}"
