"""The package's architecture, as contracts (pyproject.toml, [tool.importlinter]):
each package imports only the layers below it (``agents/`` plays, ``selfplay/`` trains),
nothing that plays imports torch, and no modules of a package import each other in a
circle. import-linter checks them on the import graph, lazy imports included."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold(monkeypatch, capsys):
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)
    status = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    printed = capsys.readouterr().out
    assert status == 0, printed
    assert printed.count(" KEPT") == 3


def test_the_contracts_catch_an_upward_import(tmp_path, monkeypatch, capsys):
    """A copy of the package in which ``agents`` imports ``selfplay`` breaks the layers contract."""
    import shutil

    from importlinter.cli import lint_imports

    copy = tmp_path / "elements_ai"
    shutil.copytree(ROOT / "elements_ai", copy, ignore=shutil.ignore_patterns("__pycache__", "shipped", "static"))
    bad = copy / "agents" / "upward.py"
    bad.write_text("from ..selfplay import ppo  # noqa: F401\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in __import__("sys").modules if m == "elements_ai" or m.startswith("elements_ai.")]:
        monkeypatch.delitem(__import__("sys").modules, name)
    status = lint_imports(config_filename=str(tmp_path / "pyproject.toml"), no_cache=True, no_logo=True)
    printed = capsys.readouterr().out
    assert status == 1
    assert "elements_ai.agents.upward -> elements_ai.selfplay" in printed
