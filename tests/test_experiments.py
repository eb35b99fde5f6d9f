"""The experiment scripts run in quick mode on the public API and write their tables
and plots; the checked-in full results are complete."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import elements_ai
from elements_ai.eval import tables
from elements_ai.eval.schedule import derive_seed

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / "experiments"
TWO_PLAYER = [name for name in elements_ai.GAMES if elements_ai.load_game(name).num_players() == 2]


def _run(script: str, out: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, str(EXPERIMENTS / script), "--quick", "--out", str(out)],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _shipped(kind: str, game: str):
    from elements_ai import zoo

    entry = zoo.find(kind, elements_ai.load_game(game))
    return entry if entry is not None and entry in zoo.shipped(kind) else None


def _check_run(path: Path, script: str, agents: set[str] | None = None) -> dict:
    """A results folder's run record: the exact command, the evaluation seed, the commit, the machine."""
    run = json.loads(path.read_text())
    assert run["command"].startswith(f"python experiments/{script} ") and "--quick" in run["command"]
    assert run["seed"] == 7_000_000 and run["commit"] and ", numba " in run["machine"]
    if agents is not None:
        assert set(run["agents"]) == agents
    return run


def _check_intervals(table: pd.DataFrame) -> None:
    assert ((table["score_low"] <= table["score"]) & (table["score"] <= table["score_high"])).all()
    assert table["score"].between(0, 1).all()


@pytest.mark.slow
def test_strength_quick(tmp_path):
    result = _run("strength.py", tmp_path)
    table = pd.read_csv(tmp_path / "strength.csv")
    assert set(table["game"]) == set(TWO_PLAYER)
    assert set(table["opponent"]) == {"random", "rules", "mcts:sims=10"}
    # The shipped network plays in every game that has one (all the two-player games do).
    shipped = {game: _shipped("ppo", game) for game in TWO_PLAYER}
    assert all(shipped.values())
    assert set(table["agent"]) == {"random", "rules", "mcts:sims=10", "ismcts:sims=10", "ppo"}
    assert (table.groupby("game")["agent"].nunique() == 5).all()
    assert (table["agent"] != table["opponent"]).all() and (table["games"] == 4).all()
    _check_intervals(table)
    rated = pd.read_csv(tmp_path / "ratings.csv")
    assert (rated.groupby("game").size() == 5).all()
    text = (tmp_path / "strength.md").read_text()
    assert "| `elements` | `rules` |" in text and "| `elements` | `ppo` |" in text
    _check_run(tmp_path / "run.json", "strength.py", {r.name for r in shipped.values()})
    assert json.loads((tmp_path / "elements" / "tournament.json").read_text())["seed"] == 7_000_000
    assert (tmp_path / "strength.png").stat().st_size > 0
    for game in TWO_PLAYER:
        assert (tmp_path / game / "games.csv").exists() and (tmp_path / game / "pairwise.png").exists()
    assert f"results in {tmp_path}" in result.stdout


@pytest.mark.slow
def test_scaling_quick(tmp_path):
    _run("scaling.py", tmp_path)
    table = pd.read_csv(tmp_path / "scaling.csv")
    assert set(table["game"]) == set(TWO_PLAYER)
    assert set(zip(table["search"], table["sims"])) == {("mcts", 20), ("ismcts", 5), ("ismcts", 20)}
    assert (table["opponent"] == "mcts:sims=5").all() and (table["games"] == 4).all()
    _check_intervals(table)
    assert (tmp_path / "scaling.png").stat().st_size > 0 and (tmp_path / "scaling.md").exists()
    run = _check_run(tmp_path / "run.json", "scaling.py")
    assert run["games_a_pairing"] == {game: 4 for game in TWO_PLAYER}
    assert json.loads((tmp_path / "elements" / "tournament.json").read_text())["seed"] == run["seed"]


@pytest.mark.slow
def test_multiplayer_quick(tmp_path):
    result = _run("multiplayer.py", tmp_path)
    table = pd.read_csv(tmp_path / "multiplayer.csv")
    assert set(zip(table["game"], table["players"])) == {
        ("elements1997(players=3)", 3), ("elements1997(players=5)", 5),
        ("elementum(players=2)", 2), ("elementum(players=4)", 4),
    }
    # The shipped network plays where one ships for the game and player count: at every one of these.
    agents = table.groupby("game")["agent"].agg(set).to_dict()
    searches = {"random", "rules", "ismcts:sims=10"}
    assert agents == {game: searches | {"ppo"} for game in ("elements1997(players=3)", "elements1997(players=5)",
                                                         "elementum(players=2)", "elementum(players=4)")}
    assert (table["games"] == 4).all()
    assert ((table["win_low"] <= table["win_rate"]) & (table["win_rate"] <= table["win_high"])).all()
    assert ((table["return_low"] <= table["mean_return"]) & (table["mean_return"] <= table["return_high"])).all()
    assert (table["chance_win_rate"] == 1 / table["players"]).all()
    games = pd.read_csv(tmp_path / "games.csv")
    # Every agent met the same deals: one chance seed per deal, shared by the agents.
    assert (games.groupby(["game", "deal"])["seed"].nunique() == 1).all()
    solo = pd.read_csv(tmp_path / "solo.csv")
    ranks = ["Novice", "Apprentice", "Journeyman", "Adept", "Master", "Archmage"]
    assert set(solo["agent"]) == searches | {"ppo"}
    assert solo[ranks].sum(axis=1).round(9).eq(1).all()
    assert "| `elementum(players=4)` | `ppo` |" in (tmp_path / "multiplayer.md").read_text()
    assert (tmp_path / "multiplayer.png").stat().st_size > 0 and f"results in {tmp_path}" in result.stdout
    shipped = {_shipped("ppo", f"elementum(players={n})").name for n in (1, 2, 4)}
    shipped |= {_shipped("ppo", f"elements1997(players={n})").name for n in (3, 5)}
    run = _check_run(tmp_path / "run.json", "multiplayer.py", shipped)
    # The deals are drawn from the evaluation seeds: the first deal's chance seed derives from the run's seed.
    first = games[(games["game"] == "elementum(players=4)") & (games["deal"] == 0)]["seed"].iloc[0]
    assert first == derive_seed(run["seed"], 0, 0)


@pytest.mark.slow
def test_solver_sizes_quick(tmp_path):
    _run("solvers/sizes.py", tmp_path)
    table = pd.read_csv(tmp_path / "sizes.csv")
    assert set(table["basis"]) == {"counted", "estimated"}
    assert set(table["infosets_basis"]) == {"built", "extrapolated from the largest built variant"}
    assert table.set_index("game").loc["elemental_duel(num_territories=1)", "infosets"] == 2196
    assert table["memory_gb"].gt(0).all() and table["solvable_24gb"].any() and not table["solvable_24gb"].all()


@pytest.mark.slow
def test_solver_agents_quick(tmp_path):
    _run("solvers/agents.py", tmp_path)
    table = pd.read_csv(tmp_path / "agents_exploitability.csv").set_index("agent")
    assert len(table) == 5 and table["exploitability"].between(0, 2).all()
    # A few CFR+ iterations on 100 information sets come near equilibrium; random play does not.
    assert table.loc["cfr (CFR+, 100 iterations)", "exploitability"] < 1e-3 < table.loc["random", "exploitability"]


@pytest.mark.parametrize("name, table", [("strength", "strength.csv"), ("scaling", "scaling.csv")])
def test_full_results_are_checked_in(name, table):
    folder = EXPERIMENTS / "results" / name
    found = pd.read_csv(folder / table)
    assert (folder / f"{name}.png").exists() and (folder / f"{name}.md").exists()
    assert set(found["game"]) >= {"elements", "elemental_duel", "elementos"}
    assert found["games"].min() >= 50
    _check_intervals(found)
    for game in ("elements", "elemental_duel", "elementos"):
        # Each tournament ran to its end: every scheduled game is there, once.
        config = json.loads((folder / game / "tournament.json").read_text())
        played = pd.read_csv(folder / game / "games.csv")
        expected = len(tables(2, len(config["agents"]), config["mode"])) * config["games"]
        assert played["index"].tolist() == list(range(expected))
        assert (folder / game / "ratings.csv").exists()


def test_multiplayer_results_are_checked_in():
    folder = EXPERIMENTS / "results" / "multiplayer"
    table = pd.read_csv(folder / "multiplayer.csv")
    searches = {"random", "rules", "ismcts:sims=1000"}
    for game, agents in table.groupby("game")["agent"].agg(set).items():
        assert searches <= agents <= searches | {"ppo"}, game
    assert table["game"].nunique() == 4 and (table["games"] >= 100).all()
    assert set(table["players"]) == {2, 3, 4, 5}
    solo = pd.read_csv(folder / "solo.csv")
    assert searches <= set(solo["agent"]) <= searches | {"ppo"} and (solo["games"] >= 100).all()
    games = pd.read_csv(folder / "games.csv")
    assert len(games) == table["games"].sum() + solo["games"].sum()
    assert (folder / "multiplayer.png").exists() and (folder / "multiplayer.md").exists()


@pytest.mark.slow
def test_baselines_quick(tmp_path):
    _run("baselines.py", tmp_path)
    learned = _shipped_learned()
    assert learned, "no learned agent ships"
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["seed"] == 7_000_000 and run["commit"] and "baselines.py --quick" in run["command"]
    assert json.loads((tmp_path / "two_player.run.json").read_text()) == run
    assert set(run["agents"]) == {r.name for r in learned}
    two = pd.read_csv(tmp_path / "two_player.csv")
    multi = pd.read_csv(tmp_path / "multiplayer.csv") if (tmp_path / "multiplayer.csv").exists() else None
    judged = set(two["recipe"]) | (set(multi["recipe"]) if multi is not None else set())
    assert judged == {r.name for r in learned}
    assert (two["vs_rules_low"] <= two["vs_rules"]).all() and (two["vs_random"] <= two["vs_random_high"]).all()
    assert (two["elo_agent_low"] <= two["elo_agent"]).all() and (two["elo_agent"] <= two["elo_agent_high"]).all()
    assert "| bar |" in (tmp_path / "two_player.md").read_text()


@pytest.mark.slow
def test_head_to_head_quick(tmp_path):
    _run("head_to_head.py", tmp_path)
    table = pd.read_csv(tmp_path / "head_to_head.csv")
    mmd = {r.name for r in _shipped_learned() if r.kind == "mmd"}
    assert mmd and set(table["recipe"]) == mmd
    assert set(table["opponent"]) == {"ppo", "ismcts:sims=10"} and (table["games"] == 4).all()
    assert (table["score_low"] <= table["score"]).all() and (table["score"] <= table["score_high"]).all()
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["seed"] == 7_000_000 and set(run["agents"]) == mmd and "--quick" in run["command"]


@pytest.mark.slow
def test_seat_gains_of_a_multiplayer_agent(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    from approx_exploitability import seat_gains

    game = elements_ai.load_game("elements1997(players=3)")
    gains = seat_gains(game, "random", 512, tmp_path / "run", seed=1, eval_games=6)
    assert [g["seat"] for g in gains] == [0, 1, 2]
    for gain in gains:
        assert gain["low"] <= gain["gain"] <= gain["high"] and gain["games"] == 6


def test_a_games_run_replaces_only_its_agents_rows(tmp_path, monkeypatch):
    # `--shipped --games G` re-measures G's agent: the others keep their rows and their run's record.
    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    from _common import merged

    def rows(recipe, seats, bound):
        return [{"recipe": recipe, "seat": seat, "bound": bound} for seat in seats]

    old = pd.DataFrame(rows("a", ["both"], 0.1) + rows("b", ["0", "1", "2", "sum"], 0.2) + rows("c", ["both"], 0.3))
    old.to_csv(tmp_path / "exploitability.csv", index=False)
    full = {"command": "python experiments/approx_exploitability.py --shipped", "commit": "c1",
            "agents": {"a": "t1", "b": "t1", "c": "t1"}}
    (tmp_path / "exploitability.run.json").write_text(json.dumps(full))
    new = pd.DataFrame(rows("b", ["0", "1", "2", "sum"], 0.5) + rows("d", ["0", "1", "sum"], 0.6))
    update = {"command": "python experiments/approx_exploitability.py --shipped --games b d", "commit": "c2",
              "agents": {"b": "t2", "d": "t2"}}
    table, run = merged(tmp_path, "exploitability", new, update, ["a", "b", "d", "c"])
    assert list(table["recipe"]) == ["a"] + ["b"] * 4 + ["d"] * 3 + ["c"]
    assert list(table["bound"]) == [0.1] + [0.5] * 4 + [0.6] * 3 + [0.3]
    assert list(table[table["recipe"] == "b"]["seat"]) == ["0", "1", "2", "sum"]
    assert run["command"] == full["command"] and run["agents"] == {"a": "t1", "c": "t1"}
    assert run["updates"] == [update]
    # A second update of d alone keeps the first one's record for b only.
    (tmp_path / "exploitability.run.json").write_text(json.dumps(run))
    table.to_csv(tmp_path / "exploitability.csv", index=False)
    again = {**update, "commit": "c3", "agents": {"d": "t3"}}
    table, run = merged(tmp_path, "exploitability", pd.DataFrame(rows("d", ["0", "1", "sum"], 0.7)), again,
                        ["a", "b", "d", "c"])
    assert list(table["bound"]) == [0.1] + [0.5] * 4 + [0.7] * 3 + [0.3]
    assert run["updates"] == [{**update, "agents": {"b": "t2"}}, again]


@pytest.mark.slow
def test_approx_exploitability_of_the_shipped_agents_quick(tmp_path):
    # Two processes: the responders are shared among them (their results do not depend on how many).
    result = subprocess.run([sys.executable, str(EXPERIMENTS / "approx_exploitability.py"), "--shipped", "--quick",
                             "--workers", "2", "--out", str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    table = pd.read_csv(tmp_path / "exploitability.csv")
    small = "elements(deck=1_2_3_6_6_6,hand_size=2,single_round=true)"
    # Quick: the small variant's agent (exact figure known) and the shipped agent with the fewest players above two.
    multi = min((r for r in _shipped_learned() if elements_ai.load_game(r.game).num_players() > 2),
                key=lambda r: elements_ai.load_game(r.game).num_players())
    expected = {_shipped("ppo", small).name, multi.name}
    assert set(table["recipe"]) == expected
    assert ((table["low"] <= table["bound"]) & (table["bound"] <= table["high"])).all()
    two = table[table["seat"] == "both"]
    assert len(two) == 1 and two["games"].eq(100).all()
    # A learned response is a lower bound: its interval starts below the exact exploitability.
    assert (two["low"] <= two["exact"]).all() and two["exact"].between(0.1, 2).all()
    seats = table[table["recipe"] == multi.name].set_index("seat")
    players = elements_ai.load_game(multi.game).num_players()
    assert list(seats.index) == [str(s) for s in range(players)] + ["sum (NashConv)"]
    assert seats.loc["sum (NashConv)", "bound"] == pytest.approx(seats["bound"].iloc[:players].sum())
    assert (seats["games"] == 50).all()  # each seat's gain: half as many deals
    # Two responders (from nothing, from a copy of the agent): each row keeps the larger.
    learned = table[table["seat"] != "sum (NashConv)"]
    assert set(learned["start"]) <= {"nothing", "copy"}
    assert (learned["bound"] >= learned["other_start_bound"]).all()
    run = _check_run(tmp_path / "exploitability.run.json", "approx_exploitability.py", expected)
    assert "--shipped --quick" in run["command"] and run["eval_games"] == 100
    assert "| `elements(deck=1_2_3_6_6_6,hand_size=2,single_round=True)` | `ppo` | both |" in (
        tmp_path / "exploitability.md").read_text()


def _shipped_learned():
    """Every shipped network but the round's ``mmd``, which is measured exactly instead."""
    from elements_ai import zoo

    return [r for r in zoo.recipes().values() if r.kind in ("ppo", "az", "mmd") and r in zoo.shipped(r.kind)
            and r.name != "mmd-elements-round"]


@pytest.mark.slow
def test_full_deck_solve_quick(tmp_path):
    policy = tmp_path / "policy.npz"
    result = subprocess.run([sys.executable, str(EXPERIMENTS / "solvers" / "full_deck.py"), "--quick", "--policy",
                             str(policy), "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    curve = pd.read_csv(tmp_path / "curve.csv")
    run = json.loads((tmp_path / "run.json").read_text())
    # Measured at iterations 1, 2, 4, ... until below the target.
    assert list(curve["iterations"]) == [2**k for k in range(len(curve))]
    assert run["reached"] and curve["exploitability"].iloc[-1] < run["target"] <= curve["exploitability"].iloc[-2]
    assert run["iterations"] == curve["iterations"].iloc[-1] and run["nodes"] * 5 <= run["tree_bytes"]
    # The saved policy, evaluated on the flat tree, is as exploitable as the compact solver measured.
    from elements_ai.solvers import build_tree, load_policy

    game = elements_ai.load_game(run["game"])
    assert load_policy(policy, game).evaluate(build_tree(game)).exploitability == pytest.approx(
        curve["exploitability"].iloc[-1], rel=1e-9)


@pytest.mark.slow
def test_reproduce_quick(tmp_path):
    # Short runs: their bits are not the shipped files', and a short network lies outside its band.
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "reproduce.py"), "ppo-elements-small",
                           "cfr-elements-small", "--quick", "--runs", str(tmp_path / "runs")],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert out.startswith("this machine: ") and "torch kernels" in out
    assert "ppo-elements-small: 4,096 steps" in out and "cfr-elements-small: 20 iterations" in out
    assert "arrays differ" in out and "against rules" in out and "band: versus_rules" in out
    assert (tmp_path / "runs" / "ppo-elements-small" / "ppo-elements-small.npz").is_file()
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "reproduce.py"), "ppo-elements-small", "--quick",
                           "--seeds", "2", "3", "4", "--workers", "2", "--out", str(tmp_path / "draws"),
                           "--runs", str(tmp_path / "draw-runs")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    table = pd.read_csv(tmp_path / "draws" / "draws.csv")
    assert list(table["run"]) == ["shipped", "draw", "draw", "draw"] and list(table["seed"]) == [1, 2, 3, 4]
    assert table["greedy_agreement"].between(0, 1).all() and table["max_difference"].between(0, 1).all()
    run = json.loads((tmp_path / "draws" / "draws.run.json").read_text())
    assert run["seeds"] == [2, 3, 4] and run["steps"] == 4096 and "--quick" in run["command"]
    assert "band of ppo-elements-small (3 draws)" in done.stdout
    refused = subprocess.run([sys.executable, str(EXPERIMENTS / "reproduce.py"), "ppo-elements-small", "--seeds", "1"],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "other than its own" in refused.stderr


@pytest.mark.slow
def test_network_exploitability_quick(tmp_path):
    tree = tmp_path / "small.tree"
    runs = []
    for _ in range(2):  # the tree built and saved, then loaded
        result = subprocess.run([sys.executable, str(EXPERIMENTS / "solvers" / "network_exploitability.py"), "--quick",
                                 "--tree", str(tree), "--out", str(tmp_path)], capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        runs.append(json.loads((tmp_path / "run.json").read_text()))
    phases = pd.read_csv(tmp_path / "network_exploitability.csv")
    assert list(phases["phase"]) == ["load the tree", "read the network's policy", "best responses"]
    assert runs[0]["exploitability"] == runs[1]["exploitability"] and 0 < runs[0]["exploitability"] <= 2
    assert runs[0]["tree_file_bytes"] >= runs[0]["nodes"] * 5 and phases["peak_resident_bytes"].gt(0).all()
    assert "random, the ppo-elements recipe's shape" in (tmp_path / "network_exploitability.md").read_text()
    assert (tmp_path / "network_exploitability.png").stat().st_size > 0


@pytest.mark.slow
def test_families_exact_quick(tmp_path):
    """The families on a small deck: every agent measured, the learners and MCCFR
    trained, CFR solved, the search played; rerun into another folder on the same
    runs, nothing retrains and the exact figures repeat; rerun into the same folder,
    nothing is measured again; --only measures one agent and writes no table."""
    def run(out, *extra):
        result = subprocess.run([sys.executable, str(EXPERIMENTS / "families_exact.py"), "--quick", "--out", str(out),
                                 "--runs", str(tmp_path / "runs"), *extra], capture_output=True, text=True,
                                timeout=900)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    first = run(tmp_path / "a", "--only", "rules")
    assert "rules: exploitability" in first and not (tmp_path / "a" / "families.csv").exists()
    assert not (tmp_path / "runs" / "ppo").exists()  # --only trains nothing else
    tables = []
    for out in ("a", "b"):
        second = run(tmp_path / out)
        tables.append(pd.read_csv(tmp_path / out / "families.csv"))
    assert "rules: exploitability" not in run(tmp_path / "b", "--only", "rules")  # kept in measures.json
    # the second run reused the runs: nothing trained, sampled or solved
    assert not any(text in second for text in ("training ppo", " iterations in ", "iteration 1:"))
    tmp_path = tmp_path / "b"
    table = tables[0].set_index("agent")
    assert list(table.index) == ["random", "rules", "mccfr", "cfr", "ppo", "ppo (greedy)", "mmd", "nfsp",
                                 "ismcts:sims=20"]
    exact = table[table["measure"] == "exact"]
    assert exact["exploitability"].between(0, 2).all() and np.isnan(table.loc["ismcts:sims=20", "exploitability"])
    # Zero-sum: a policy scores 0 against itself, and scores are antisymmetric.
    assert abs(table.loc["random", "vs_random"]) < 1e-12 and abs(table.loc["cfr", "vs_cfr"]) < 1e-12
    assert table.loc["rules", "vs_random"] == pytest.approx(-table.loc["random", "vs_rules"], abs=1e-12)
    # CFR after 64 PCFR+ iterations is near equilibrium: nothing beats it by much.
    assert table.loc["cfr", "exploitability"] < 0.01 and (exact["vs_cfr"] <= table.loc["cfr", "exploitability"]).all()
    exact_columns = ["exploitability", "vs_rules", "vs_random", "vs_cfr"]
    pd.testing.assert_frame_equal(tables[0].loc[tables[0]["measure"] == "exact", exact_columns],
                                  tables[1].loc[tables[1]["measure"] == "exact", exact_columns])
    curves = pd.read_csv(tmp_path / "curves.csv")
    assert set(curves["agent"]) == {"mccfr", "cfr", "ppo", "mmd", "nfsp"}
    assert (curves[curves["agent"] == "cfr"]["steps"].tolist() == [1, 2, 4, 8, 16, 32, 64])
    written = json.loads((tmp_path / "run.json").read_text())  # the full run's record
    assert "--quick" in written["command"] and written["seed"] == 7_000_000
    assert "--algorithm" in written["learners"]["mmd"]
    # The search's exploitability is bounded from below by a learned response, calibrated
    # on a shipped network whose exact figure the same run measures (the small deck's ppo).
    search = table.loc["ismcts:sims=20"]
    assert -2 <= search["exploitability_bound"] <= 2 and search["exploitability_bound_half_width"] >= 0
    assert "(learned response)" in (tmp_path / "families.md").read_text()
    response = written["response"]
    assert response["agent"] == "ismcts:sims=20" and response["bound"] == search["exploitability_bound"]
    from elements_ai.agents.netbots import load_network
    from elements_ai.selfplay.exact import ExactEvaluator

    small = elements_ai.load_game("elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)")
    shipped_ppo = ExactEvaluator(small).evaluate(load_network("", small)[0]).exploitability
    assert response["check"]["agent"] == "ppo (shipped)"
    assert response["check"]["exact"] == pytest.approx(shipped_ppo, abs=1e-6)
    assert response["check"]["bound"] <= response["check"]["exact"] + response["check"]["half_width"]
    assert (tmp_path.parent / "runs" / "response" / "ismcts").is_dir()
    assert (tmp_path / "curves.png").stat().st_size > 0 and "| `cfr` |" in (tmp_path / "families.md").read_text()
    search_line = (tmp_path / "families.csv").read_text().splitlines()[-1]
    assert search_line.startswith("ismcts") and not search_line.endswith(".0"), search_line  # counts stay counts
    # --update puts one agent's rows and curve in place of its own; the rest and their order stay.
    before = pd.read_csv(tmp_path / "families.csv")
    run(tmp_path, "--only", "ppo", "--update")
    after = pd.read_csv(tmp_path / "families.csv")
    assert list(after["agent"]) == list(before["agent"])
    pd.testing.assert_frame_equal(after[exact_columns], before[exact_columns])
    assert set(pd.read_csv(tmp_path / "curves.csv")["agent"]) == {"mccfr", "cfr", "ppo", "mmd", "nfsp"}
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["command"] == written["command"] and [u["agents"] for u in record["updates"]] == [["ppo"]]
    assert "--update" in record["updates"][0]["command"]


@pytest.mark.slow
def test_mixture_exact_quick(tmp_path):
    """A tiny run's checkpoints, each and mixed, measured exactly, and a choice of fewer
    than two checkpoints refused. Exploitability is convex in each seat's mixed strategy:
    the mixture is at most its members' mean."""
    result = subprocess.run([sys.executable, str(EXPERIMENTS / "mixture_exact.py"), "--quick", "--out",
                             str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    table = pd.read_csv(tmp_path / "mixture.csv")
    members, mixture = table.iloc[:-1], table.iloc[-1]
    assert len(members) == 4 and mixture["policy"] == "mixture of the 4"
    assert list(members["steps"]) == [1024, 2048, 3072, 4096] and table["exploitability"].between(0, 2).all()
    assert mixture["exploitability"] <= members["exploitability"].mean() + 1e-9
    run = json.loads((tmp_path / "run.json").read_text())
    assert "--quick" in run["command"] and run["after"] == 0 and run["algorithm"] == "mmd"
    assert "| mixture of the 4 |" in (tmp_path / "mixture.md").read_text()
    refused = subprocess.run([sys.executable, str(EXPERIMENTS / "mixture_exact.py"), "--run", str(tmp_path / "run"),
                              "--after", "3072", "--out", str(tmp_path / "no")], capture_output=True, text=True,
                             timeout=300)
    assert refused.returncode == 2 and "a mixture needs two" in refused.stderr and not (tmp_path / "no").exists()
    for extra, message in ((["--game", "elements(hand_size=99)"], "hand_size"), ([], "was trained for")):
        wrong = subprocess.run([sys.executable, str(EXPERIMENTS / "mixture_exact.py"), "--run", str(tmp_path / "run"),
                                "--out", str(tmp_path / "no"), *extra], capture_output=True, text=True, timeout=300)
        assert wrong.returncode == 2 and message in wrong.stderr and "Traceback" not in wrong.stderr, wrong.stderr
    assert not (tmp_path / "no").exists()  # the full deck's run refused before its tree is built


def test_families_exact_update_is_refused_without_agents_or_tables(tmp_path, capsys, monkeypatch):
    # In this process: the refusals come before any import the run needs would matter.
    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    import families_exact

    def run(*extra):
        with pytest.raises(SystemExit) as stopped:
            families_exact.main(["--quick", "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs"), *extra])
        return stopped.value.code

    assert run("--update") == 2 and "--update needs --only" in capsys.readouterr().err
    refused = run("--only", "rules", "--update")  # no full run's tables to update
    assert "families_exact.py: --update needs a full run's tables first" in str(refused)
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()  # refused before any work


@pytest.mark.slow
def test_full_deck_solve_stops_at_its_iterations_and_loads_a_saved_tree(tmp_path):
    from elements_ai.solvers.compact.file import save_compact

    game = elements_ai.load_game("elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)")
    from elements_ai.solvers import build_compact

    save_compact(build_compact(game), tmp_path / "small.tree")
    result = subprocess.run([sys.executable, str(EXPERIMENTS / "solvers" / "full_deck.py"), "--game", str(game),
                             "--tree", str(tmp_path / "small.tree"), "--iterations", "6", "--target", "1e-12",
                             "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert list(pd.read_csv(tmp_path / "curve.csv")["iterations"]) == [1, 2, 4, 6]
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["iterations"] == 6 and run["tree_file"].endswith("small.tree") and "load_seconds" in run
    refused = subprocess.run([sys.executable, str(EXPERIMENTS / "solvers" / "full_deck.py"), "--tree",
                              str(tmp_path / "small.tree"), "--out", str(tmp_path / "no")], capture_output=True,
                             text=True, timeout=300)
    assert refused.returncode == 1 and "full_deck.py:" in refused.stderr and not (tmp_path / "no").exists()


@pytest.mark.slow
def test_distill_exact_quick(tmp_path):
    """CFR's policy distilled into a network comes out far less exploitable than a uniform
    policy on the small deck, and the files say how it was made."""
    result = subprocess.run([sys.executable, str(EXPERIMENTS / "distill_exact.py"), "--quick", "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["teacher_exploitability"] < 0.05 and run["rows"] > 5_000
    first, last = run["results"][0], run["results"][-1]
    assert last["held_out_kl"] < first["held_out_kl"]
    # a uniform policy on this deck: 1.2785
    assert last["exploitability"] == run["student_exploitability"] < 0.6
    assert (tmp_path / "student.npz").is_file() and (tmp_path / "distill.csv").is_file()
    assert "--quick" in run["command"] and "| 20 |" in (tmp_path / "distill.md").read_text()


@pytest.mark.slow
def test_network_inputs_quick(tmp_path, monkeypatch):
    """The hashed count of distinct network inputs is the exact count (every row held),
    on the quick deck, and it counts the merges of an encoding that drops half the tensor."""
    result = subprocess.run([sys.executable, str(EXPERIMENTS / "network_inputs.py"), "--quick", "--out",
                             str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    row = pd.read_csv(tmp_path / "inputs.csv").iloc[0]
    assert row["decisions"] == row["distinct"] > 10_000 and row["merged"] == 0
    assert "| 0 |" in (tmp_path / "inputs.md").read_text() and "--quick" in json.loads(
        (tmp_path / "run.json").read_text())["command"]
    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    import network_inputs

    from elements_ai.solvers import build_compact

    game = elements_ai.load_game(network_inputs.QUICK)
    tree = build_compact(game)
    encode = network_inputs.encode_states

    def half_the_tensor(*args):
        players, tensors, masks, hints = encode(*args)
        return players, np.ascontiguousarray(tensors[:, : tensors.shape[1] // 2]), masks, hints

    monkeypatch.setattr(network_inputs, "encode_states", half_the_tensor)
    decisions, distinct = network_inputs.count_inputs(game, tree)
    rows = []
    for _, states in network_inputs.infoset_states(tree, 4096):
        players, tensors, masks, _ = network_inputs.encode_states(game, states)
        rows.append(np.concatenate([players[:, None], tensors, masks], axis=1, dtype=np.float32))
    assert decisions == row["decisions"] and distinct == len(np.unique(np.concatenate(rows), axis=0)) < decisions
