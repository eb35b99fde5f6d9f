"""The solve and exploitability commands, run as a user runs them."""

import re
import subprocess

import pyspiel
import pytest
from commands import ENV, PACKAGE

import elements_ai
from elements_ai import cli
from elements_ai.solvers import build_tree, evaluate_probs, load_policy
from elements_ai.solvers.agents import bot_policy

TINY = "elements(single_round=true,deck=1_2_6_6,hand_size=1)"


def figures(out: str) -> dict[str, str]:
    return dict(re.findall(r"^(NashConv|exploitability): (\S+)$", out, re.M))


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "es-mccfr", "os-mccfr"])
def test_solve_then_exploitability(algorithm, tmp_path, capsys):
    game, iterations = ("kuhn_poker", "300") if "mccfr" not in algorithm else (TINY, "5000")
    path = tmp_path / "policy.npz"
    assert cli.main(["solve", game, "--algorithm", algorithm, "--iterations", iterations, "--out", str(path)]) == 0
    err = capsys.readouterr().err
    assert "exploitability" in err and f"wrote {path}" in err
    assert cli.main(["exploitability", game, str(path)]) == 0
    printed = figures(capsys.readouterr().out)
    # Full precision: the printed figure is the float itself.
    exact = load_policy(path).evaluate()
    assert float(printed["NashConv"]) == exact.nash_conv and float(printed["exploitability"]) == exact.exploitability
    assert len(printed["NashConv"].replace("0.", "").lstrip("0")) >= 9
    assert exact.exploitability < (0.01 if "mccfr" not in algorithm else 0.3)


def test_resume_continues_the_iterations(tmp_path, capsys):
    path = tmp_path / "kuhn.npz"
    assert cli.main(["solve", "kuhn_poker", "--iterations", "100", "--out", str(path)]) == 0
    assert cli.main(["solve", "kuhn_poker", "--iterations", "50", "--out", str(path), "--resume"]) == 0
    assert "iterations 150" in capsys.readouterr().err
    assert load_policy(path).info["iterations"] == 150


def test_the_compact_tree_solves_resumes_and_plays(tmp_path, capsys):
    """``--layout compact`` (what ``auto`` picks for large trees): its file resumes on the
    compact tree, to the iterates of one run that never stopped, and ``cfr:policy=``
    plays it; a flat solver's file is not resumed on it."""
    from elements_ai.agents import make_bot
    from elements_ai.solvers import CompactCFRSolver

    small = "elements(single_round=true,deck=1_2_3_6,hand_size=2)"
    path, flat = tmp_path / "compact.npz", tmp_path / "flat.npz"
    solve = ["solve", small, "--algorithm", "pcfr+", "--threads", "1", "--out"]
    assert cli.main([*solve, str(path), "--layout", "compact", "--iterations", "30"]) == 0
    assert cli.main(["solve", "--resume", "--out", str(path), "--iterations", "20", "--threads", "1"]) == 0
    resumed = load_policy(path)
    assert resumed.info["layout"] == "compact" and resumed.info["iterations"] == 50
    straight = CompactCFRSolver(elements_ai.load_game(small), "pcfr+", threads=1, lanes=resumed.info["lanes"])
    straight.run(50)
    assert (resumed.probs == straight.average_probs()).all()
    assert abs(resumed.evaluate().exploitability - straight.exploitability()) < 1e-12
    bot = make_bot(f"cfr:policy={path}", elements_ai.load_game(small), 0)
    assert bot.table.info["layout"] == "compact"
    capsys.readouterr()
    # Evaluated on either tree: the same figures to rounding.
    printed = {}
    for layout in ("compact", "flat"):
        assert cli.main(["exploitability", small, str(path), "--layout", layout]) == 0
        printed[layout] = float(figures(capsys.readouterr().out)["exploitability"])
    assert abs(printed["compact"] - printed["flat"]) < 1e-12
    assert abs(printed["compact"] - straight.exploitability()) < 1e-12
    # A bot too, on either tree.
    for layout in ("compact", "flat"):
        assert cli.main(["exploitability", small, "--bot", "random", "--layout", layout]) == 0
        printed[layout] = float(figures(capsys.readouterr().out)["exploitability"])
    assert abs(printed["compact"] - printed["flat"]) < 1e-12
    assert cli.main([*solve, str(flat), "--iterations", "5"]) == 0
    assert "layout" not in load_policy(flat).info
    assert cli.main(["solve", "--resume", "--out", str(flat), "--layout", "compact", "--iterations", "5"]) == 2
    assert "was solved on the flat tree" in capsys.readouterr().err


def test_the_bots_of_a_tournament_share_one_read_of_a_policy_until_the_file_changes(tmp_path, capsys):
    """A bot is made for every seat of every game: a large policy is read once a process,
    and a file written again is read again."""
    import time

    from elements_ai.agents import make_bot

    game = pyspiel.load_game("kuhn_poker")
    path = tmp_path / "kuhn.npz"
    assert cli.main(["solve", "kuhn_poker", "--iterations", "10", "--out", str(path)]) == 0
    first, second = (make_bot(f"cfr:policy={path}", game, player) for player in (0, 1))
    assert first.table is second.table
    time.sleep(0.01)
    assert cli.main(["solve", "kuhn_poker", "--iterations", "300", "--out", str(path)]) == 0
    again = make_bot(f"cfr:policy={path}", game, 0)
    assert again.table is not first.table and again.table.info["iterations"] == 300


def test_exploitability_of_a_bot(capsys):
    assert cli.main(["exploitability", TINY, "--bot", "random"]) == 0
    printed = figures(capsys.readouterr().out)
    tree = build_tree(elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1))
    assert float(printed["NashConv"]) == evaluate_probs(tree, bot_policy(tree, "random")).nash_conv
    assert cli.main(["exploitability", TINY, "--bot", "rules", "--samples", "4"]) == 0
    assert "action frequencies over 4 samples" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "nonsense_game", "--out", "x.npz"], "unknown game 'nonsense_game'"),
        (["solve", "elements(hand_size=0)", "--out", "x.npz"], "hand_size=0 is out of range"),
        (["solve", "elements", "--out", "x.npz"], "this machine has"),
        (["solve", "kuhn_poker", "--algorithm", "es-mccfr", "--out", "x.npz"], "rules kernel"),
        (["solve", "kuhn_poker", "--iterations", "-1", "--out", "x.npz"], "--iterations must be >= 0"),
        (["solve", "kuhn_poker", "--alpha", "2", "--out", "x.npz"], "alpha cannot be set"),
        (["solve", "kuhn_poker", "--resume", "--out", "missing.npz"], "missing.npz does not exist"),
        (["exploitability", "kuhn_poker", "missing.npz"], "no such file"),
        (["exploitability", "kuhn_poker"], "give a policy FILE or --bot"),
        (["exploitability", "kuhn_poker", "--bot", "random"], "elements_ai games"),
        (["solve", "kuhn_poker", "--layout", "compact", "--out", "x.npz"], "use --layout flat"),
        (["solve", TINY, "--algorithm", "es-mccfr", "--layout", "flat", "--out", "x.npz"], "without a tree"),
    ],
)
def test_errors_name_the_problem(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


def test_a_policy_for_another_game_is_refused(tmp_path, capsys):
    path = tmp_path / "kuhn.npz"
    assert cli.main(["solve", "kuhn_poker", "--iterations", "10", "--out", str(path)]) == 0
    assert cli.main(["exploitability", "leduc_poker", str(path)]) == 2
    assert "holds a policy for kuhn_poker(), not for leduc_poker()" in capsys.readouterr().err


@pytest.mark.slow
def test_the_installed_command_runs(tmp_path):
    path = tmp_path / "kuhn.npz"
    solve = [*PACKAGE, "solve", "kuhn_poker", "--iterations", "50", "--out", str(path)]
    assert subprocess.run(solve, capture_output=True, text=True, timeout=300, env=ENV).returncode == 0
    result = subprocess.run(
        [*PACKAGE, "exploitability", "kuhn_poker", str(path)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0 and "NashConv: " in result.stdout


@pytest.mark.slow
def test_solve_notebook_runs(tmp_path):
    """About a minute: it solves the small variant with five algorithms and asks two bots."""
    import nbclient
    import nbformat

    root = __import__("pathlib").Path(__file__).resolve().parents[1]
    notebook = nbformat.read(root / "notebooks" / "solve.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = "".join(
        output.get("text", "") for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
    )
    assert "pcfr+  1000 iterations" in outputs and "P(knock)" in outputs
    assert "solved policy against the rules bot" in outputs
    knocks = re.search(r"margin 0\) the solver knocks (\d+)%", outputs)
    assert knocks and int(knocks.group(1)) > 90


def test_an_output_folder_nobody_can_write_is_refused_before_the_work(capfd):
    # Even root writes nothing in /sys; its permission bits say otherwise.
    code = cli.main(["solve", "kuhn_poker", "--iterations", "100000000", "--out", "/sys/s.npz"])
    err = capfd.readouterr().err
    assert code == 2, err
    assert err.strip().startswith("elements-ai: error: --out /sys/s.npz: cannot write in folder /sys"), err
    assert "Traceback" not in err and "kuhn_poker()" not in err  # refused before the game was even described


def test_a_result_that_cannot_be_written_after_the_work_is_kept_and_named(tmp_path, monkeypatch, capfd):
    import shutil
    from pathlib import Path

    from elements_ai.solvers.cfr import CFRSolver

    out = tmp_path / "kuhn.npz"
    save = CFRSolver.save

    def fails_at_out(self, path):
        if Path(path) == out:  # the folder went away meanwhile, say
            raise PermissionError(13, "Permission denied", str(path))
        save(self, path)

    monkeypatch.setattr(CFRSolver, "save", fails_at_out)
    code = cli.main(["solve", "kuhn_poker", "--iterations", "20", "--no-eval", "--out", str(out)])
    lines = capfd.readouterr().err.strip().splitlines()
    assert code == 2 and lines[-1].startswith(f"elements-ai: error: --out {out}: cannot write it (Permission denied); "
                                              "the result is saved in "), lines
    rescue = Path(lines[-1].rsplit(" ", 1)[1])
    try:
        assert load_policy(rescue).info["iterations"] == 20 and not out.exists()
    finally:
        shutil.rmtree(rescue.parent)
