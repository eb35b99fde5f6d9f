"""The user-facing tools run: the CLI, the newcomer's notebook and every benchmark."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import elements_ai
from elements_ai import cli

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))


def test_demo_prints_a_whole_game(capsys):
    returns = cli.demo("elements", seed=3, params={"single_round": True})
    out = capsys.readouterr().out
    assert "chance: start player" in out and "Final state:" in out
    assert f"Returns: player 0 {returns[0]:+g}, player 1 {returns[1]:+g}" in out
    assert sorted(returns) in ([-2.0, 2.0], [-1.0, 1.0])


def test_demo_is_reproducible(capsys):
    cli.demo("elements", seed=5, params={})
    first = capsys.readouterr().out
    cli.demo("elements", seed=5, params={})
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "elementz"], "unknown game 'elementz'"),
        (["demo", "elements", "-p", "hand_size=x"], "hand_size must be an integer"),
        (["demo", "elements", "-p", "colour=red"], "unknown parameter 'colour'"),
        (["demo", "elements", "-p", "single_round"], "must look like name=value"),
        (["demo", "elements", "-p", "hand_size=0"], "hand_size=0 is out of range"),
    ],
)
def test_cli_errors_name_the_problem(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_lists_the_games(capsys):
    assert cli.main(["games"]) == 0
    out = capsys.readouterr().out
    for name in elements_ai.GAMES:
        assert f"{name}: " in out


def test_quickstart_notebook_runs():
    nbformat = pytest.importorskip("nbformat", reason="part of the test extra")
    nbclient = pytest.importorskip("nbclient", reason="part of the test extra")
    notebook = nbformat.read(ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3").execute()
    outputs = "".join(
        output.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
    )
    assert "returns:" in outputs and "all 4096 rounds finished" in outputs


@pytest.mark.parametrize("script", BENCHMARKS, ids=[path.stem for path in BENCHMARKS])
def test_benchmark_quick_mode(script, tmp_path):
    result = subprocess.run(
        [sys.executable, str(script), "--quick", "--out", str(tmp_path)], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr[-3000:]
    tables = list(tmp_path.glob("*.csv"))
    assert tables, f"{script.name} wrote no CSV"
    for table in tables:
        assert len(pd.read_csv(table)) > 0


def test_throughput_benchmark_covers_every_game(tmp_path):
    script = ROOT / "benchmarks" / "throughput.py"
    result = subprocess.run(
        [sys.executable, str(script), "--quick", "--out", str(tmp_path)], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr[-3000:]
    table = pd.read_csv(tmp_path / "throughput.csv")
    for name in elements_ai.GAMES:
        figures = set(table[table["game"] == name]["figure"])
        assert {"openspiel", "vector B=4096", "playout", "encode batch"} <= figures
    assert table["target"].notna().sum() == 3 * len(elements_ai.GAMES)
