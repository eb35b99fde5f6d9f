"""The CFR family on the compact tree (``CompactCFRSolver``)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...core.spiel import KernelGame
from ..best_response import Evaluation
from ..cfr import ALGORITHMS, Settings, TabularSolver, _average, settings_for
from ..memory import (
    COMPACT_INFOSET_BYTES,
    COMPACT_NODE_BYTES,
    COMPACT_SEQUENCE_BYTES,
    compact_solve_bytes,
    memory_budget,
    too_large,
)
from ..policy import PolicyTable
from ..sweeps import check_threads, using_threads
from .build import build_compact
from .cfr import _run
from .tree import COUNT_MASK, CompactTree
from .values import _lanes, evaluate_compact

__all__ = ["CompactCFRSolver"]


class CompactCFRSolver(TabularSolver):
    """The CFR family (``cfr.ALGORITHMS``) on a ``CompactTree``: the iterates of
    ``CFRSolver`` (the same updates in the same order; sums in another order, so
    equal to rounding), in memory per sequence and none per node.

    ``game`` is one of this library's games (its compact tree is built) or a
    ``CompactTree``. ``accumulator`` ``"float32"`` keeps regrets, cumulative
    policy and predictions in float32 (4 bytes a sequence each instead of 8).
    ``threads``: cores to use (default every core numba has). ``lanes``: the
    per-sequence partial sums the subtrees are dealt to (default the machine's core
    count; 8 bytes a sequence each): the results depend on them, not on ``threads``,
    which share them out. ``task_nodes``: the size of the subtrees (see
    ``CompactTree.plan``).

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6", hand_size=2)
    >>> solver = CompactCFRSolver(game, "dcfr", threads=1)
    >>> solver.run(50)
    >>> solver.exploitability() < 0.01
    True
    """

    def __init__(
        self,
        game: KernelGame | CompactTree,
        algorithm: str = "cfr+",
        *,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        accumulator: str = "float64",
        max_memory: float | None = None,
        progress: bool = False,
        threads: int | None = None,
        task_nodes: int | None = None,
        lanes: int | None = None,
    ):
        self.settings: Settings = settings_for(algorithm, alpha=alpha, beta=beta, gamma=gamma)
        if accumulator not in ("float64", "float32"):
            raise ValueError(f"accumulator must be 'float64' or 'float32', got {accumulator!r}")
        self.threads = check_threads(threads)
        self.tree = game if isinstance(game, CompactTree) else build_compact(game, max_memory, progress)
        tree = self.tree
        self.task_nodes = task_nodes
        task_start, _ = tree.plan(task_nodes)
        self.lanes = lanes = _lanes(task_start, lanes)
        needed = compact_solve_bytes(
            tree.num_infosets, tree.num_sequences, lanes, np.dtype(accumulator).itemsize, self.settings.predictive
        )
        if needed > memory_budget(max_memory):
            size = f"{tree.num_infosets:,} information sets, {tree.num_sequences:,} sequences"
            raise too_large(tree.game, size, needed, max_memory)
        sequences = tree.num_sequences
        self.policy = np.empty(sequences)
        _average(tree.infoset_first, np.zeros(sequences), self.policy)  # uniform
        self.regret = np.zeros(sequences, accumulator)
        self.cumulative = np.zeros(sequences, accumulator)
        self.prediction = np.zeros(sequences if self.settings.predictive else 0, accumulator)
        self._instant = np.zeros((lanes, sequences))
        self._own_reach = np.zeros(tree.num_infosets)
        self.iteration = 0
        self.seconds = 0.0

    @property
    def algorithm(self) -> str:
        return self.settings.algorithm

    @property
    def game(self) -> KernelGame:
        return self.tree.game

    @property
    def nbytes(self) -> int:
        """Bytes of the solver's own arrays (the tree's not included)."""
        arrays = (self.policy, self.regret, self.cumulative, self.prediction, self._instant, self._own_reach)
        return sum(a.nbytes for a in arrays)

    def run(self, iterations: int) -> None:
        """Runs ``iterations`` more iterations."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        tree, s = self.tree, self.settings
        task_start, task_stop = tree.plan(self.task_nodes)
        started = time.perf_counter()
        lanes = self.lanes
        with using_threads(self.threads) as threads:
            _run(
                int(iterations), self.iteration, lanes, threads, task_start, task_stop, tree.node_shape, tree.node_code,
                tree.chance_first, tree.chance_prob, tree.infoset_player, tree.infoset_first, tree.infoset_parent,
                tree.infoset_parent_infoset, tree.player_first, tree.player_infosets, tree.utility, self.policy,
                self.regret, self.cumulative, self.prediction, self._instant[:lanes], self._own_reach, tree.depth,
                COUNT_MASK + 1, s.regret_floor, s.discount, s.alpha, s.beta, s.gamma,
            )
        self.seconds += time.perf_counter() - started
        self.iteration += int(iterations)

    def info(self) -> dict[str, Any]:
        return {
            "settings": self.settings.to_dict(),
            "iterations": self.iteration,
            "seconds": round(self.seconds, 3),
            "layout": "compact",
            "accumulator": str(self.regret.dtype),
            "lanes": self.lanes,
        }

    def average_policy(self) -> PolicyTable:
        """The average policy as a ``PolicyTable`` (to save, play or evaluate)."""
        t = self.tree
        return PolicyTable(t.game, t.keys, t.infoset_player, t.infoset_first, t.sequence_action,
                           self.average_probs(), self.info())

    def evaluate(self) -> Evaluation:
        """NashConv, exploitability and the values of the average policy."""
        return evaluate_compact(self.tree, self.average_probs(), self.threads, self._instant, self.task_nodes,
                                self.lanes)

    @classmethod
    def load(
        cls, path, game: KernelGame | CompactTree | None = None, *, threads: int | None = None,
        max_memory: float | None = None, progress: bool = False,
    ) -> CompactCFRSolver:
        """The solver saved at ``path`` by ``save``, ready to run more iterations:
        the same lanes and accumulators, so the same iterates as a run that never
        stopped. The compact tree is rebuilt (or ``game`` given as a
        ``CompactTree`` is used); its information sets must be those of the file.

        >>> import elements_ai, os, tempfile
        >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6", hand_size=2)
        >>> solver = CompactCFRSolver(game, "cfr+", threads=1)
        >>> solver.run(10)
        >>> path = os.path.join(tempfile.mkdtemp(), "small.npz")
        >>> solver.save(path)
        >>> again = CompactCFRSolver.load(path, threads=1)
        >>> again.run(10); solver.run(10)
        >>> bool((again.average_probs() == solver.average_probs()).all())
        True
        """
        table, state = PolicyTable.load_with_state(path, game.game if isinstance(game, CompactTree) else game)
        if state is None:
            raise ValueError(f"{path}: the file holds a policy but no solver state (saved without it)")
        info = table.info
        if info.get("layout") != "compact":
            raise ValueError(f"{path}: saved by the flat-tree solver (CFRSolver.load resumes it), not the compact one")
        settings = info.get("settings", {})
        if settings.get("algorithm") not in ALGORITHMS:
            raise ValueError(f"{path}: unknown algorithm {settings.get('algorithm')!r} in the file")
        tree = game if isinstance(game, CompactTree) else build_compact(table.game, max_memory, progress)
        if table.key_kind != "tensor" or not np.array_equal(table.keys, tree.keys) or not np.array_equal(
            table.infoset_first, tree.infoset_first
        ):
            raise ValueError(f"{path}: the file's information sets are not those of the compact tree of {tree.game}")
        solver = cls(tree, settings["algorithm"], accumulator=info.get("accumulator", "float64"),
                     max_memory=max_memory, threads=threads, lanes=int(info.get("lanes", 0)) or None)
        solver.settings = Settings(**settings)
        for name, array in (("regret", solver.regret), ("cumulative", solver.cumulative),
                            ("current", solver.policy), ("prediction", solver.prediction)):
            if state[name].shape != array.shape:
                raise ValueError(f"{path}: its {name} has shape {state[name].shape}, the tree needs {array.shape}")
            array[:] = state[name]
        solver.iteration = int(info.get("iterations", 0))
        solver.seconds = float(info.get("seconds", 0.0))
        return solver


# The figures memory.py's formulas use, checked against the arrays above.
assert COMPACT_NODE_BYTES == np.dtype(np.uint8).itemsize + np.dtype(np.uint32).itemsize
assert COMPACT_INFOSET_BYTES > 0 and COMPACT_SEQUENCE_BYTES > 0

