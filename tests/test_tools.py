"""The user-facing tools run: the CLI, the newcomer's notebook and every benchmark."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyspiel
import pytest
from commands import ENV, PACKAGE

import elements_ai
from elements_ai import cli
from elements_ai.solvers import CFRSolver, build_tree, evaluate

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


def test_cli_lists_the_games_with_their_allowed_values(capsys):
    assert cli.main(["games"]) == 0
    out = capsys.readouterr().out
    for name in elements_ai.GAMES:
        assert f"{name}: " in out
    assert "hand_size = 6: cards dealt to each player; an integer from 1 to 100" in out
    assert "single_round = False: " in out and "; true or false" in out


def test_cli_lists_the_agents(capsys):
    assert cli.main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "ismcts: " in out and "sims=1000" in out


def test_the_package_runs_as_a_module_and_its_help_shows_examples():
    result = subprocess.run([*PACKAGE, "--help"], capture_output=True, text=True, env=ENV)
    assert result.returncode == 0, result.stderr
    assert "examples:" in result.stdout and 'elements-ai demo "elements(single_round=true)" --seed 3' in result.stdout


@pytest.mark.slow
def test_a_closed_output_pipe_ends_the_command_quietly():
    # As with `elements-ai demo elements | head`: the reader has gone before the
    # command writes (a pipe whose read end is closed), so every write fails.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        command = [*PACKAGE, "demo", "elements"]
        result = subprocess.run(command, stdout=write_end, stderr=subprocess.PIPE, text=True, env=ENV)
    finally:
        os.close(write_end)
    assert result.returncode == 0 and result.stderr == ""


@pytest.mark.slow
def test_quickstart_notebook_runs(tmp_path):
    import nbclient
    import nbformat

    notebook = nbformat.read(ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = "".join(
        output.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
    )
    assert "returns:" in outputs and "all 4096 rounds finished" in outputs


@pytest.mark.slow
@pytest.mark.parametrize("script", BENCHMARKS, ids=[path.stem for path in BENCHMARKS])
def test_benchmark_quick_mode(script, tmp_path):
    result = subprocess.run(
        [sys.executable, str(script), "--quick", "--out", str(tmp_path)], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr[-3000:]
    tables = list(tmp_path.glob("*.csv"))
    assert tables, f"{script.name} wrote no CSV"
    for table in tables:
        found = pd.read_csv(table)
        assert len(found) > 0 and found["commit"].notna().all() and found["machine"].str.contains("cores").all()
    if script.name == "cfr.py":
        # Bytes a node, measured on one game in both layouts: the compact tree and its solver take fewer.
        memory = pd.read_csv(tmp_path / "cfr_memory.csv").set_index("layout")
        assert set(memory.index) == {"flat", "compact"} and memory["game"].nunique() == 1
        assert memory.loc["compact", "total_bytes_per_node"] < memory.loc["flat", "total_bytes_per_node"]
        assert memory.loc["compact", "tree_bytes_per_node"] >= 5  # a shape byte and a 32-bit code a node at least
    if script.name == "throughput.py":
        # Every game, every figure, and the three targets of each.
        table = pd.read_csv(tmp_path / "throughput.csv")
        for name in elements_ai.GAMES:
            figures = set(table[table["game"] == name]["figure"])
            assert {"openspiel", "vector B=4096", "playout", "encode batch"} <= figures
        assert table["target"].notna().sum() == 3 * len(elements_ai.GAMES)


def test_a_full_benchmark_run_that_misses_a_target_fails(tmp_path, monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("bench_throughput", ROOT / "benchmarks" / "throughput.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    # Measured figures stood in for: the vector face only twice the OpenSpiel face's rate.
    slow = pd.DataFrame([
        {"game": "python_kuhn_poker", "figure": "openspiel", "batch": "", "rate_per_s": 1000.0},
        {"game": "elements", "figure": "openspiel", "batch": "", "rate_per_s": 1000.0},
        {"game": "elements", "figure": "vector B=4096", "batch": 4096, "rate_per_s": 2000.0},
    ])
    monkeypatch.setattr(bench, "run", lambda quick, games: slow)
    assert bench.main(["--games", "elements", "--out", str(tmp_path)]) == 1
    assert "elements vector B=4096: 2.0x openspiel (>= 100x: MISSED)" in capsys.readouterr().err
    assert bench.main(["--quick", "--games", "elements", "--out", str(tmp_path)]) == 0
    assert "(quick timings: not judged)" in capsys.readouterr().err
    assert {"commit", "machine"} <= set(pd.read_csv(tmp_path / "throughput.csv").columns)


def load_benchmark(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.parametrize("liteefg", ["as installed", "hidden"])
def test_cfr_benchmark_puts_liteefg_beside_openspiel_or_says_it_is_missing(liteefg, tmp_path, monkeypatch, capsys):
    bench = load_benchmark("cfr")
    if liteefg == "hidden":
        monkeypatch.setitem(sys.modules, "LiteEFG", None)  # `import LiteEFG` raises ImportError
    installed = bench.import_liteefg() is not None
    assert bench.main(["--quick", "--part", "speed", "--games", "leduc_poker", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    table = pd.read_csv(tmp_path / "cfr_speed.csv")
    rows = table[table["solver"].str.startswith("LiteEFG")]
    if not installed:
        assert out.count(bench.LITEEFG_MISSING) == 1 and "pip install .[bench]" in bench.LITEEFG_MISSING
        assert rows.empty and table["x_liteefg_cfr_plus"].isna().all()
        return
    assert bench.LITEEFG_MISSING not in out
    assert list(rows["solver"]) == ["LiteEFG cfr+", "LiteEFG cfr", "LiteEFG dcfr"]
    assert (rows["seconds_per_iteration"] > 0).all() and (rows["game"] == "leduc_poker()").all()
    assert table["x_liteefg_cfr_plus"].notna().all()
    assert "leduc_poker(): elements_ai cfr+ " in out and "x LiteEFG cfr+ per iteration" in out
    # The solvers compared are working ones: after 100 iterations LiteEFG's average
    # policies are as exploitable as ours (evaluated by our exact evaluation).
    game = pyspiel.load_game("leduc_poker")
    tree = build_tree(game)
    with bench.liteefg_folder() as home:
        for algorithm in ("cfr+", "cfr", "dcfr"):
            theirs = bench.LiteEFGSolver(bench.import_liteefg(), algorithm, game, home)
            theirs.run(100)
            ours = CFRSolver(tree, algorithm)
            ours.run(100)
            assert evaluate(tree, theirs.average_policy()).exploitability == pytest.approx(
                ours.exploitability(), rel=0.25
            )


