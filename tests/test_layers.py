"""The package's architecture, as contracts (pyproject.toml, [tool.importlinter]):
each package imports only the layers below it (``agents/`` plays, ``selfplay/`` trains),
nothing that plays imports torch, and no modules of a package import each other in a
circle. import-linter checks them on the import graph, lazy imports included.

Each check runs in a fresh interpreter: import-linter prints through a console that
must not meet the streams other tests have captured or replaced."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint(folder: Path) -> subprocess.CompletedProcess:
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")
    env = {**os.environ, "PYTHONPATH": str(folder), "PYTHONSAFEPATH": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_import_contracts_hold():
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(" KEPT") == 3


def test_the_contracts_catch_an_upward_import(tmp_path):
    """A copy of the package in which ``agents`` imports ``selfplay`` breaks the layers contract."""
    copy = tmp_path / "elements_ai"
    shutil.copytree(ROOT / "elements_ai", copy, ignore=shutil.ignore_patterns("__pycache__", "shipped", "static"))
    (copy / "agents" / "upward.py").write_text("from ..selfplay import ppo  # noqa: F401\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    done = _lint(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "elements_ai.agents.upward -> elements_ai.selfplay" in done.stdout
