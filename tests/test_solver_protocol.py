"""The three solvers are driven the same way (``solvers.Solver``): run, average policy,
exact exploitability, and a checkpoint that resumes where it stopped."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import elements_ai
from elements_ai.solvers import CFRSolver, CompactCFRSolver, Solver, build_tree, evaluate_probs, uniform_probs
from elements_ai.solvers.mccfr import MCCFRSolver

GAME = "elements(single_round=true,deck=1_2_6_6,hand_size=1)"


def _make(kind: str):
    game = elements_ai.load_game(GAME)
    if kind == "flat":
        return CFRSolver(game, "pcfr+")
    if kind == "compact":
        return CompactCFRSolver(game, "pcfr+")
    return MCCFRSolver(game, "external", seed=3, memory=1e7)


@pytest.mark.parametrize("kind", ["flat", "compact", "mccfr"])
def test_every_solver_keeps_the_protocol(kind, tmp_path):
    solver = _make(kind)
    assert isinstance(solver, Solver)
    for name in ("run", "average_policy", "info", "evaluate", "nash_conv", "exploitability", "save"):
        assert callable(getattr(solver, name)), name
    assert "path" in inspect.signature(type(solver).load).parameters
    tree = build_tree(elements_ai.load_game(GAME))
    uniform = evaluate_probs(tree, uniform_probs(tree)).exploitability
    iterations = 2000 if kind == "mccfr" else 40  # a sampled iteration walks one line of play
    solver.run(iterations)
    assert solver.iteration == iterations
    assert solver.algorithm in {"pcfr+", "es-mccfr"}
    assert solver.nbytes > 0
    measured = solver.evaluate()
    assert measured.exploitability == pytest.approx(solver.exploitability())
    assert measured.nash_conv == pytest.approx(solver.nash_conv())
    assert measured.exploitability < uniform / 4
    path = tmp_path / "solver.npz"
    solver.save(path)
    again = type(solver).load(path, elements_ai.load_game(GAME))
    assert again.iteration == iterations
    solver.run(10)
    again.run(10)
    assert again.iteration == iterations + 10
    np.testing.assert_array_equal(again.average_policy().probs, solver.average_policy().probs)
    assert str(solver.average_policy().game) == str(elements_ai.load_game(GAME))


def test_something_else_is_not_a_solver():
    assert not isinstance(object(), Solver)
