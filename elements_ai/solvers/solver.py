"""What every solver offers: one protocol for the tabular CFR family on the flat tree
(``CFRSolver``), on the compact tree (``CompactCFRSolver``) and sampling MCCFR
(``MCCFRSolver``), so that the commands, the recipes and a user's script drive any of
them the same way.

>>> import elements_ai
>>> from elements_ai.solvers import CFRSolver, Solver
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> solver = CFRSolver(game, "pcfr+")
>>> isinstance(solver, Solver)
True
>>> solver.run(50)
>>> solver.iteration, solver.exploitability() < 0.05
(50, True)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pyspiel

from .best_response import Evaluation
from .policy import PolicyTable

__all__ = ["Solver"]


@runtime_checkable
class Solver(Protocol):
    """A solver that runs iterations, gives its average policy and its exact
    exploitability, and checkpoints itself.

    ``iteration`` counts the iterations run so far, across a ``save`` and a ``load``;
    ``info()`` is what a policy file records about how it was made; ``evaluate()``
    measures the average policy exactly (an ``Evaluation``: NashConv, exploitability,
    values); ``save(path)`` writes a file that the class's ``load(path)`` resumes from.
    """

    iteration: int

    @property
    def game(self) -> pyspiel.Game: ...

    @property
    def algorithm(self) -> str: ...

    @property
    def nbytes(self) -> int: ...

    def run(self, iterations: int) -> None: ...

    def average_policy(self) -> PolicyTable: ...

    def info(self) -> dict[str, Any]: ...

    def evaluate(self) -> Evaluation: ...

    def nash_conv(self) -> float: ...

    def exploitability(self) -> float: ...

    def save(self, path: str | Path) -> None: ...

    @classmethod
    def load(cls, path: str | Path, game: pyspiel.Game | None = None) -> Solver: ...
