"""Leduc hold'em as a rules kernel (``experiments/leduc_rules.py``): it plays OpenSpiel's
``leduc_poker`` move for move, passes the conformance checks, its faces agree, and a
network's exact exploitability on its tree is OpenSpiel's on ``leduc_poker``."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyspiel
import pytest

from elements_ai.testing import check_conformance, check_faces_agree

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="module")
def leduc():
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        rules = importlib.import_module("leduc_rules")
        script = importlib.import_module("leduc")
    finally:
        sys.path.remove(str(EXPERIMENTS))
    return rules, script, rules.load(), pyspiel.load_game("leduc_poker")


def test_the_kernel_plays_openspiels_leduc_poker_move_for_move(leduc):
    """Both whole trees walked side by side: the same player, legal actions, chance
    outcomes and returns at every node, and information-state tensors that split the
    decisions exactly as OpenSpiel's information-state strings do."""
    _, _, game, reference = leduc
    nodes, strings_of = 0, {}
    stack = [(game.new_initial_state(), reference.new_initial_state())]
    while stack:
        ours, theirs = stack.pop()
        nodes += 1
        assert ours.current_player() == theirs.current_player(), theirs.history_str()
        if theirs.is_terminal():
            assert ours.is_terminal() and ours.returns() == theirs.returns(), theirs.history_str()
            continue
        if theirs.is_chance_node():
            assert sorted(ours.chance_outcomes()) == sorted(theirs.chance_outcomes())
            actions = [outcome for outcome, _ in theirs.chance_outcomes()]
        else:
            assert ours.legal_actions() == theirs.legal_actions(), theirs.history_str()
            player = theirs.current_player()
            strings_of.setdefault(tuple(ours.information_state_tensor(player)), set()).add(
                theirs.information_state_string(player))
            actions = theirs.legal_actions()
        stack.extend((ours.child(a), theirs.child(a)) for a in actions)
    assert nodes == 9457
    assert len(strings_of) == 936 and all(len(strings) == 1 for strings in strings_of.values())
    assert len(set().union(*strings_of.values())) == 936


def test_a_showdown_and_a_fold_pay_as_in_leduc(leduc):
    _, _, game, _ = leduc
    state = game.new_initial_state()
    for action in (4, 1, 1, 1, 0, 2, 2, 1):  # K vs J; check, check; public J pairs J; raise, raise, call
        state.apply_action(action)
    assert state.returns() == [-9.0, 9.0]  # the pair beats the king: ante 1 + 4 + 4
    state = game.new_initial_state()
    for action in (4, 2, 2, 0):  # K vs Q; raise; the queen folds
        state.apply_action(action)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    state = game.new_initial_state()
    for action in (4, 5, 1, 1, 0):  # both kings, public J: the pot is split
        state.apply_action(action)
    state.apply_action(1)
    state.apply_action(1)
    assert state.returns() == [0.0, 0.0]


def test_conformance_and_faces(leduc):
    _, _, game, _ = leduc
    check_conformance(game, num_sims=20)
    assert check_faces_agree("leduc_kernel", num_games=500, seed=3) == 500


def test_a_networks_exact_exploitability_is_openspiels(leduc):
    """A random network's policy, measured by the library's exact evaluator on the
    kernel's tree and by OpenSpiel on ``leduc_poker``; uniform play as a fixed point."""
    _, script, game, reference = leduc
    from elements_ai.selfplay.exact import ExactEvaluator
    from elements_ai.selfplay.net import PolicyValueNet
    from elements_ai.solvers import evaluate_probs, uniform_probs

    evaluator = ExactEvaluator(game)
    uniform = evaluate_probs(evaluator.tree, uniform_probs(evaluator.tree)).exploitability
    assert uniform == pytest.approx(script.uniform_exploitability(reference), abs=1e-12)
    assert uniform == pytest.approx(2.3736111, abs=1e-6)
    import torch

    torch.manual_seed(0)
    net = PolicyValueNet(game.information_state_tensor_shape()[0], game.num_distinct_actions(), 2, (16,))
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_()  # far from uniform, so that a mismatched information set shows
    network = net.to_network()
    ours = evaluator.evaluate(network).exploitability
    assert abs(ours - uniform) > 0.1
    assert ours == pytest.approx(script.openspiel_exploitability(network, game, reference), abs=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["nfsp", "mmd", "openspiel-nfsp"])
def test_leduc_quick(algorithm, tmp_path):
    # OpenSpiel's NFSP steps one game at a time in Python: a shorter run.
    steps = 1024 if algorithm == "openspiel-nfsp" else 4096
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "leduc.py"), "--quick", "--algorithm", algorithm,
                           "--steps", str(steps), "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    table = pd.read_csv(tmp_path / f"{algorithm}-leduc.csv")
    assert list(table["env_steps"])[0] == 0 and table["env_steps"].iloc[-1] >= steps and len(table) == 3
    assert np.allclose(table["exploitability"], table["openspiel_exploitability"], atol=1e-6)
    assert table["exploitability"].between(0, 13).all()
    run = json.loads((tmp_path / f"{algorithm}-leduc.run.json").read_text())
    assert run["command"].startswith("python experiments/leduc.py --quick") and run["seed"] == 7_000_000
    assert (tmp_path / "learners-leduc.png").stat().st_size > 1000
    assert (tmp_path / f"{algorithm}-leduc.png").stat().st_size > 1000
    assert f"| {algorithm} |" in (tmp_path / "README.md").read_text()


def test_a_bad_label_or_setting_is_a_one_line_error(leduc, tmp_path, capsys):
    script = leduc[1]
    for args, message in ((["--label", "a b"], "--label: letters, digits"),
                          (["--set", "no_such=1"], "unknown hyperparameter 'no_such'"),
                          (["--set", "hidden=0"], "NFSPConfig.hidden must be layer widths of at least 1"),
                          (["--algorithm", "openspiel-nfsp", "--set", "rl_lr=1"], "runs with its example's settings")):
        with pytest.raises(SystemExit) as stopped:
            script.main([*args, "--out", str(tmp_path)])
        said = capsys.readouterr().err
        assert stopped.value.code == 2 and message in said, said
    assert not any(tmp_path.iterdir())
