"""Tabular counterfactual regret minimisation over a flattened tree, in numba.

Five algorithms share one loop; they differ in how regrets accumulate and how the
average policy weighs iterations:

=========  =====================================================  ==================
algorithm  accumulated regrets after each player's pass           average weight
=========  =====================================================  ==================
``cfr``    ``R + r`` (Zinkevich et al. 2007)                      1
``cfr+``   ``max(R + r, 0)`` (Tammelin 2014)                      ``t``
``lcfr``   ``(R + r) * t / (t + 1)`` (Brown & Sandholm 2019)      ``t``
``dcfr``   ``R + r``, then positive ones ``* t^α / (t^α + 1)``,   ``t^γ``
           negative ones ``* t^β / (t^β + 1)``; α=1.5, β=0, γ=2
``pcfr+``  ``max(R + r, 0)``, policy from ``max(R + r_last, 0)``  ``t^γ``, γ=2
           (predictive CFR+, Farina, Kroer & Sandholm 2021)
=========  =====================================================  ==================

``r`` is the instantaneous counterfactual regret of the pass, ``t`` the iteration
(from 1). Every algorithm updates the players in turn (alternating updates), each
pass seeing the policies the previous passes produced, exactly as OpenSpiel's
``CFRSolver``/``CFRPlusSolver`` and its Python ``LCFRSolver``/``DCFRSolver`` do:
after the same number of iterations their average policies agree to rounding.

>>> import pyspiel
>>> solver = CFRSolver(pyspiel.load_game("kuhn_poker"), "cfr+")
>>> solver.run(300)
>>> solver.iteration, solver.nash_conv() < 1e-3
(300, True)
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numba as nb
import numpy as np
import pyspiel

from .best_response import Evaluation, evaluate_probs
from .flat import Tree
from .memory import TREE_NODE_BYTES, memory_budget, too_large
from .policy import PolicyTable
from .sweeps import (
    add_to_average,
    check_threads,
    chunk,
    iteration_factors,
    new_counter,
    reach_down,
    regret_matching,
    regrets_up,
    updated_regret,
    using_threads,
)
from .tree import build_tree

__all__ = ["ALGORITHMS", "CFRSolver", "Settings"]


@dataclasses.dataclass(frozen=True)
class Settings:
    """How an algorithm accumulates regrets and averages (see the module docstring)."""

    algorithm: str
    regret_floor: bool = False  # clamp accumulated regrets at 0 (regret matching+)
    discount: bool = False  # discount accumulated regrets with alpha and beta
    predictive: bool = False  # add the last instantaneous regret before matching
    alpha: float = 1.0
    beta: float = 1.0
    gamma: float = 0.0  # the average weighs iteration t by t**gamma

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


ALGORITHMS: dict[str, Settings] = {
    "cfr": Settings("cfr"),
    "cfr+": Settings("cfr+", regret_floor=True, gamma=1.0),
    "lcfr": Settings("lcfr", discount=True, alpha=1.0, beta=1.0, gamma=1.0),
    "dcfr": Settings("dcfr", discount=True, alpha=1.5, beta=0.0, gamma=2.0),
    "pcfr+": Settings("pcfr+", regret_floor=True, predictive=True, gamma=2.0),
}
_TUNABLE = {"cfr": (), "cfr+": (), "lcfr": (), "dcfr": ("alpha", "beta", "gamma"), "pcfr+": ("gamma",)}


def settings_for(algorithm: str, **overrides: float | None) -> Settings:
    """The settings of ``algorithm`` with ``alpha``/``beta``/``gamma`` overridden
    where the algorithm has them (``None`` keeps the default)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; the tabular algorithms are {', '.join(ALGORITHMS)}")
    given = {name: float(value) for name, value in overrides.items() if value is not None}
    fixed = [name for name in given if name not in _TUNABLE[algorithm]]
    if fixed:
        tunable = ", ".join(_TUNABLE[algorithm]) or "none"
        raise ValueError(f"{algorithm}: {fixed[0]} cannot be set (parameters: {tunable})")
    for name, value in given.items():
        if not math.isfinite(value):
            raise ValueError(f"{algorithm}: {name} must be a finite number, got {value}")
    return dataclasses.replace(ALGORITHMS[algorithm], **given)


@nb.njit(cache=True)
def _update_chunks(
    taken,
    first_infoset,
    stop_infoset,
    player_infosets,
    infoset_first,
    infoset_members,
    member_child,
    work,
    instant,
    direct,
    policy,
    regret,
    cumulative,
    prediction,
    own_reach,
    average_weight,
    regret_floor,
    positive_factor,
    negative_factor,
):
    # ``direct``: ``regrets_up`` added the regrets into ``instant`` (one thread), read
    # and cleared here; else each sequence sums its nodes' slots of ``work``.
    predictive = prediction.shape[0] > 0
    while True:
        first_j, stop_j = chunk(taken, first_infoset, stop_infoset)
        if first_j == stop_j:
            return
        for j in range(first_j, stop_j):
            infoset = player_infosets[j]
            first = infoset_first[infoset]
            stop = infoset_first[infoset + 1]
            add_to_average(cumulative, policy, first, stop, own_reach[infoset], average_weight)
            last = infoset_members[infoset + 1] - 1
            for s in range(first, stop):
                if direct:
                    total = instant[s]
                    instant[s] = 0.0
                else:
                    total = 0.0  # summed as sweeps.gather sums
                    for d in range(last + 1 - infoset_members[infoset]):
                        total += work[np.uint64(member_child[np.uint64(last - d)] + s - first)]
                regret[s] = updated_regret(regret[s], total, positive_factor, negative_factor, regret_floor)
                if predictive:
                    prediction[s] = total
            regret_matching(regret, prediction, first, stop, policy)


@nb.njit(cache=True, parallel=True)
def _update_threads(
    lanes,
    first_infoset,
    stop_infoset,
    player_infosets,
    infoset_first,
    infoset_members,
    member_child,
    work,
    policy,
    regret,
    cumulative,
    prediction,
    own_reach,
    average_weight,
    regret_floor,
    positive_factor,
    negative_factor,
):
    taken = new_counter()
    for _ in nb.prange(lanes):
        _update_chunks(
            taken, first_infoset, stop_infoset, player_infosets, infoset_first, infoset_members, member_child, work,
            work[:0], False, policy, regret, cumulative, prediction, own_reach, average_weight, regret_floor,
            positive_factor, negative_factor,
        )


@nb.njit(cache=True)
def _update_player(
    first_infoset,
    stop_infoset,
    player_infosets,
    infoset_first,
    infoset_parent,
    sequence_infoset,
    lanes,
    infoset_members,
    member_child,
    work,
    instant,
    policy,
    regret,
    cumulative,
    prediction,
    own_reach,
    average_weight,
    regret_floor,
    positive_factor,
    negative_factor,
):
    """After a player's pass (``regrets_up`` has left each node's instantaneous
    regrets in ``work``, or on one thread their sums per sequence in ``instant``):
    adds the pass to the average policy, sums and accumulates the regrets and
    matches them into the player's next policy, information sets in parallel on
    ``lanes`` threads."""
    # The average needs the player's own reach of each information set, with the
    # policy of this pass: parents come first, so one forward loop gives it, before
    # any information set changes its policy.
    for j in range(first_infoset, stop_infoset):
        infoset = player_infosets[j]
        parent = infoset_parent[infoset]
        own_reach[infoset] = 1.0 if parent < 0 else own_reach[sequence_infoset[parent]] * policy[parent]
    if lanes > 1:
        _update_threads(
            lanes, first_infoset, stop_infoset, player_infosets, infoset_first, infoset_members, member_child, work,
            policy, regret, cumulative, prediction, own_reach, average_weight, regret_floor, positive_factor,
            negative_factor,
        )
    else:
        _update_chunks(
            new_counter(), first_infoset, stop_infoset, player_infosets, infoset_first, infoset_members,
            member_child, work, instant, True, policy, regret, cumulative, prediction, own_reach, average_weight,
            regret_floor, positive_factor, negative_factor,
        )


@nb.njit(cache=True)
def _run(
    iterations,
    start,
    node_player,
    node_first,
    node_count,
    node_index,
    chance_prob,
    utility,
    infoset_first,
    infoset_parent,
    sequence_infoset,
    player_first,
    player_infosets,
    tasks,
    top,
    lanes,
    infoset_members,
    member_child,
    policy,
    regret,
    cumulative,
    prediction,
    instant,
    own_reach,
    work,
    regret_floor,
    discount,
    alpha,
    beta,
    gamma,
):
    num_players = player_first.shape[0] - 1
    for i in range(iterations):
        t = float(start + i + 1)
        average_weight, positive_factor, negative_factor = iteration_factors(t, discount, alpha, beta, gamma)
        for player in range(num_players):
            reach_down(
                player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, tasks, top,
                lanes, policy, work,
            )
            regrets_up(
                player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility, tasks,
                top, lanes, policy, work, instant,
            )
            _update_player(
                player_first[player], player_first[player + 1], player_infosets, infoset_first, infoset_parent,
                sequence_infoset, lanes, infoset_members, member_child, work, instant, policy, regret, cumulative,
                prediction, own_reach, average_weight, regret_floor, positive_factor, negative_factor,
            )


@nb.njit(cache=True)
def _average(infoset_first, cumulative, out):
    """The average policy: cumulative policy normalised per information set, uniform
    where it is all zero (an information set its player never reached)."""
    for infoset in range(infoset_first.shape[0] - 1):
        first = infoset_first[infoset]
        stop = infoset_first[infoset + 1]
        total = 0.0
        for s in range(first, stop):
            total += cumulative[s]
        for s in range(first, stop):
            out[s] = cumulative[s] / total if total > 0.0 else 1.0 / (stop - first)


class TabularSolver:
    """What the CFR family's solvers on a whole tree share (``CFRSolver`` on the flat
    tree, ``CompactCFRSolver`` on the compact one): the average policy from the
    cumulative policy, its exploitability, and a file that plays and resumes.

    A subclass holds ``tree``, ``policy``, ``regret``, ``cumulative`` and
    ``prediction`` (per sequence), and gives ``evaluate`` and ``average_policy``.
    """

    tree: Any
    policy: np.ndarray
    regret: np.ndarray
    cumulative: np.ndarray
    prediction: np.ndarray

    def evaluate(self) -> Evaluation:
        raise NotImplementedError

    def average_policy(self) -> PolicyTable:
        raise NotImplementedError

    def average_probs(self) -> np.ndarray:
        """The average policy, one probability per sequence of the tree."""
        out = np.empty(self.tree.num_sequences)
        _average(self.tree.infoset_first, self.cumulative, out)
        return out

    def nash_conv(self) -> float:
        """NashConv of the average policy: the sum over players of what a best
        response gains against the others' average policies."""
        return self.evaluate().nash_conv

    def exploitability(self) -> float:
        """Exploitability of the average policy, NashConv / players (constant-sum games)."""
        return self.evaluate().exploitability

    def save(self, path) -> None:
        """Writes the average policy and the solver's state to ``path`` (a ``.npz``
        that ``cfr:policy=`` plays); the class's ``load`` resumes from it."""
        state = {"regret": self.regret, "cumulative": self.cumulative, "current": self.policy,
                 "prediction": self.prediction}
        self.average_policy().save(path, solver_state=state)


class CFRSolver(TabularSolver):
    """A tabular CFR-family solver on a game's flattened tree.

    ``game`` is a ``pyspiel.Game`` (its tree is built with ``build_tree``) or a
    ``Tree``. ``algorithm`` is one of ``ALGORITHMS``; ``alpha``, ``beta`` and
    ``gamma`` override DCFR's discounting and the averaging power of DCFR and
    PCFR+.

    ``threads`` is how many cores the sweeps use (default: every core numba has,
    ``numba.config.NUMBA_NUM_THREADS``); the results are the same bit for bit on
    any number, and trees under ``sweeps.PARALLEL_NODES`` nodes run on one.

    >>> import pyspiel
    >>> one = CFRSolver(pyspiel.load_game("leduc_poker"), "dcfr", threads=1)
    >>> every = CFRSolver(one.tree, "dcfr")
    >>> one.run(20); every.run(20)
    >>> bool((one.average_probs() == every.average_probs()).all())
    True

    Exact solving is for two-player zero-sum games: there the average policy
    converges to a Nash equilibrium and ``exploitability`` is its distance. With
    more players or general-sum returns the loop runs the same and ``nash_conv``
    measures how much each player could gain by deviating alone, but no
    convergence to an equilibrium is guaranteed.
    """

    def __init__(
        self,
        game: pyspiel.Game | Tree,
        algorithm: str = "cfr+",
        *,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        builder: str = "auto",
        max_memory: float | None = None,
        progress: bool = False,
        threads: int | None = None,
    ):
        self.settings = settings_for(algorithm, alpha=alpha, beta=beta, gamma=gamma)
        self.threads = threads
        check_threads(threads)
        self.tree = game if isinstance(game, Tree) else build_tree(game, builder, max_memory, progress=progress)
        tree = self.tree
        needed = tree.solve_nbytes - tree.num_nodes * TREE_NODE_BYTES  # the tree itself is allocated already
        if needed > memory_budget(max_memory):
            size = f"{tree.num_nodes:,} nodes, {tree.num_infosets:,} information sets, {tree.num_sequences:,} sequences"
            raise too_large(tree.game, size, needed, max_memory)
        sequences = tree.num_sequences
        self.policy = np.empty(sequences)
        _average(tree.infoset_first, np.zeros(sequences), self.policy)  # uniform
        self.regret = np.zeros(sequences)
        self.cumulative = np.zeros(sequences)
        self.prediction = np.zeros(sequences if self.settings.predictive else 0)
        self._instant = np.zeros(sequences)  # the regrets of a pass on one thread (regrets_up)
        self._own_reach = np.zeros(tree.num_infosets)
        self._work = np.zeros(tree.num_nodes)
        self.iteration = 0
        self.seconds = 0.0

    @property
    def nbytes(self) -> int:
        """Bytes of the solver's own arrays (the tree's not included)."""
        return sum(value.nbytes for value in vars(self).values() if isinstance(value, np.ndarray))

    @property
    def algorithm(self) -> str:
        return self.settings.algorithm

    @property
    def game(self) -> pyspiel.Game:
        return self.tree.game

    def run(self, iterations: int) -> None:
        """Runs ``iterations`` more iterations."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        tree, s = self.tree, self.settings
        plan = tree.sweep_plan()
        started = time.perf_counter()
        with using_threads(self.threads):
            _run(
                int(iterations), self.iteration, tree.node_player, tree.node_first, tree.node_count, tree.node_index,
                tree.chance_prob, tree.utility, tree.infoset_first, tree.infoset_parent, tree.sequence_infoset,
                tree.player_first, tree.player_infosets, plan.tasks, plan.top, plan.lanes(), plan.infoset_members,
                plan.member_child, self.policy, self.regret, self.cumulative, self.prediction, self._instant,
                self._own_reach, self._work, s.regret_floor, s.discount, s.alpha, s.beta, s.gamma,
            )
        self.seconds += time.perf_counter() - started
        self.iteration += int(iterations)

    def info(self) -> dict[str, Any]:
        """What a policy file records about how it was made."""
        return {"settings": self.settings.to_dict(), "iterations": self.iteration, "seconds": round(self.seconds, 3)}

    def average_policy(self) -> PolicyTable:
        """The average policy (the one that converges), as a ``PolicyTable``."""
        return PolicyTable.from_tree(self.tree, self.average_probs(), self.info())

    def current_policy(self) -> PolicyTable:
        """The policy of the last iteration."""
        return PolicyTable.from_tree(self.tree, self.policy.copy(), {**self.info(), "policy": "current"})

    def evaluate(self) -> Evaluation:
        """NashConv, exploitability and the values of the average policy (``Evaluation``)."""
        return evaluate_probs(self.tree, self.average_probs(), self._work, threads=self.threads)

    @classmethod
    def load(
        cls, path, game: pyspiel.Game | Tree | None = None, builder: str = "auto", threads: int | None = None
    ) -> CFRSolver:
        """The solver saved at ``path``, ready to run more iterations (on ``threads``
        cores, see ``CFRSolver``).

        The tree is rebuilt (or ``game`` given as a ``Tree`` is used); its
        information sets must be those of the file.
        """
        check_threads(threads)
        table, state = PolicyTable.load_with_state(path, game if not isinstance(game, Tree) else game.game)
        if state is None:
            raise ValueError(f"{path}: the file holds a policy but no solver state (saved without it)")
        if table.info.get("layout") == "compact":
            raise ValueError(f"{path}: saved by the compact-tree solver (CompactCFRSolver.load resumes it)")
        settings = table.info.get("settings", {})
        solver = cls.__new__(cls)
        name = settings.get("algorithm")
        if name not in ALGORITHMS:
            raise ValueError(f"{path}: unknown algorithm {name!r} in the file")
        solver.settings = Settings(**settings)
        solver.threads = threads
        solver.tree = game if isinstance(game, Tree) else build_tree(table.game, builder)
        tree = solver.tree
        order = table.rows_for_tree(tree)
        if (order != np.arange(tree.num_infosets)).any() or table.num_sequences != tree.num_sequences:
            raise ValueError(f"{path}: the file's information sets are not those of the tree built for {table.game}")
        solver.regret = state["regret"].copy()
        solver.cumulative = state["cumulative"].copy()
        solver.policy = state["current"].copy()
        solver.prediction = state["prediction"].copy()
        solver._instant = np.zeros(tree.num_sequences)
        solver._own_reach = np.zeros(tree.num_infosets)
        solver._work = np.zeros(tree.num_nodes)
        solver.iteration = int(table.info.get("iterations", 0))
        solver.seconds = float(table.info.get("seconds", 0.0))
        return solver
