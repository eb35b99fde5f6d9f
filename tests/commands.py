"""How the tests start the package in another process: on the copy they import themselves.

A checkout installed with ``pip install .`` holds two copies of the package, and numba
keeps its cache beside each. A child started in the checkout would import the
checkout's copy (Python puts the working directory or the script's folder first) and
compile every kernel the warm-up already compiled for the other copy. ``ENV`` points
children at the tests' copy and leaves the working directory off their path.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import elements_ai

HOME = str(Path(elements_ai.__file__).resolve().parents[1])
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(p for p in (HOME, os.environ.get("PYTHONPATH", "")) if p),
    "PYTHONSAFEPATH": "1",
}
PACKAGE = [sys.executable, "-m", "elements_ai"]
