"""Monte Carlo CFR in numba, driven by a game's rules kernel without building the tree.

Two samplers (Lanctot, Waugh, Zinkevich & Bowling 2009), alternating over the players
each iteration:

* ``external``: the traverser tries every one of its actions; chance and the other
  players are sampled (the others from their current policies, whose average gains
  their current policy at each visit: "simple" averaging). Low variance; the work
  per iteration grows with the traverser's branching over a whole game.
* ``outcome``: one trajectory per player, the traverser exploring with probability
  ``epsilon`` (0.6) and every update importance-weighted; the average is
  stochastically weighted, as in OpenSpiel's ``OutcomeSamplingSolver``. Work per
  iteration is one game, so it scales to long games.

Information sets live in a bounded table keyed by the 128-bit fingerprint of the
information-state tensor (as the kernel tree builder keys them). Its size is fixed
up front from a memory budget (default 2 GB) and stated by ``describe_table``; when
it is full, new information sets are played uniformly and not learned (counted in
``dropped``). ``save`` writes a checkpoint (the whole table, the random stream, the
iteration); ``MCCFRSolver.load`` resumes it exactly: the same numbers as a run that
never stopped. A checkpoint is also a policy file: ``load_policy`` reads its average
policy (uniform at information sets never sampled), and the ``mccfr`` bot plays it.

MCCFR works for any number of players; for two-player zero-sum games its average
policy converges to a Nash equilibrium (in expectation), otherwise see
``best_response`` for what NashConv means.

>>> import elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
>>> solver = MCCFRSolver(game, "external", seed=1, memory=1e7)
>>> solver.run(2000)
>>> solver.num_infosets, solver.evaluate().exploitability < 0.05
(100, True)
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numba as nb
import numpy as np
import pyspiel

from ..core.generic import generic, rules
from ..core.kernel import CHANCE, TERMINAL
from ..core.rng import sample_index, seeds_from, uniform
from ..core.spiel import KernelGame
from .best_response import Evaluation, evaluate_probs
from .estimate import LEGAL, MOVES, NODES, walk_samples
from .flat import Tree, fingerprint_into
from .memory import format_bytes, machine_memory
from .policy import CHECKPOINT_FORMAT, VERSION, PolicyTable, average_probs, read_checkpoint, write_npz
from .policy import load_mccfr_policy as load_mccfr_policy  # re-exported: its home before policy.py read checkpoints
from .tree import build_tree

__all__ = ["MCCFRSolver", "SAMPLERS", "load_mccfr_policy"]

SAMPLERS = ("external", "outcome")
DEFAULT_MEMORY = 2e9
# External sampling refuses games where one iteration would visit more nodes than this
# (an hour or more per iteration): the traverser enumerates its actions over a whole game.
MAX_EXTERNAL_NODES = 1e10
# Random walks that estimate the legal actions per decision and external sampling's cost.
PROBE_WALKS = 200
# Counters of the table (int64 array).
ENTRIES, SLOTS, DROPPED = range(3)
# Bytes per information set (key, player, first slot, hash index at half load) and per
# action slot (action, regret, average).
ENTRY_BYTES = 16 + 1 + 8 + 2 * 8
SLOT_BYTES = 4 + 8 + 8


# --- the table ------------------------------------------------------------------------


@generic
def _lookup(cfg, state, player, mask, count, tensor, fp, index, keys, players, first, actions, counters):
    """The table entry of ``player``'s information set at ``state`` (``mask``: its legal
    actions, ``count`` of them), added if new; -1 when the table is full."""
    rules.encode_information_state(cfg, state, player, tensor)
    fingerprint_into(tensor, player, fp)
    capacity = index.shape[0]
    slot = np.int64(fp[0] & np.uint64(capacity - 1))
    while True:
        entry = index[slot]
        if entry < 0:
            break
        if keys[entry, 0] == fp[0] and keys[entry, 1] == fp[1]:
            return entry
        slot = (slot + 1) & (capacity - 1)
    entry = counters[ENTRIES]
    start = counters[SLOTS]
    if entry >= keys.shape[0] or start + count > actions.shape[0]:
        counters[DROPPED] += 1
        return np.int64(-1)
    index[slot] = entry
    keys[entry, 0] = fp[0]
    keys[entry, 1] = fp[1]
    players[entry] = player
    k = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            actions[start + k] = a
            k += 1
    first[entry + 1] = start + count
    counters[ENTRIES] = entry + 1
    counters[SLOTS] = start + count
    return entry


@nb.njit(cache=True)
def _rebuild_index(keys, entries, index):
    capacity = index.shape[0]
    for entry in range(entries):
        slot = np.int64(keys[entry, 0] & np.uint64(capacity - 1))
        while index[slot] >= 0:
            slot = (slot + 1) & (capacity - 1)
        index[slot] = entry


@nb.njit(cache=True, inline="always")
def _match(regret, entry, first, count, sigma):
    """Regret matching into ``sigma[:count]``; uniform for a missing entry (-1)."""
    total = 0.0
    if entry >= 0:
        start = first[entry]
        for k in range(count):
            r = regret[start + k]
            if r > 0.0:
                total += r
    if total > 0.0:
        start = first[entry]
        for k in range(count):
            r = regret[start + k]
            sigma[k] = r / total if r > 0.0 else 0.0
    else:
        for k in range(count):
            sigma[k] = 1.0 / count


@nb.njit(cache=True, inline="always")
def _nth_legal(mask, k):
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@nb.njit(cache=True, inline="always")
def _count(mask):
    n = np.int64(0)  # not a literal 0: _lookup would compile once more for Literal[int](0)
    for a in range(mask.shape[0]):
        n += mask[a]
    return n


# --- external sampling -------------------------------------------------------------------


@generic
def _descend(cfg, state, traverser, rng, index, keys, players, first, actions, regret, average, counters,
             mask, probs, tensor, fp, sigma):
    """Plays chance and the other players (sampled) from ``state`` until the traverser
    is to move or the game ends; the others' averages gain their current policy."""
    who = rules.current_player(cfg, state)
    while who != TERMINAL and who != traverser:
        if who == CHANCE:
            action = rules.sample_outcome(cfg, state, probs, uniform(rng, 0))
        else:
            rules.legal_mask(cfg, state, mask)
            count = _count(mask)
            entry = _lookup(cfg, state, who, mask, count, tensor, fp, index, keys, players, first, actions, counters)
            _match(regret, entry, first, count, sigma)
            if entry >= 0:
                start = first[entry]
                for k in range(count):
                    average[start + k] += sigma[k]
            action = _nth_legal(mask, sample_index(sigma, count, uniform(rng, 0)))
        rules.apply(cfg, state, action)
        who = rules.current_player(cfg, state)
    return who


@generic
def _external_traverse(cfg, root, traverser, rng, index, keys, players, first, actions, regret, average, counters,
                       frame_state, frame_entry, frame_count, frame_next, frame_sigma, frame_value, frame_action,
                       state, mask, probs, tensor, fp, sigma, returns):
    """One external-sampling traversal for ``traverser``; returns its sampled value.

    Depth first with an explicit stack of the traverser's decisions (one frame each:
    the state, its policy, the values of the actions tried so far).
    """
    for i in range(root.shape[0]):
        state[i] = root[i]
    depth = 0
    value = 0.0
    descending = True
    while True:
        if descending:
            who = _descend(cfg, state, traverser, rng, index, keys, players, first, actions, regret, average,
                           counters, mask, probs, tensor, fp, sigma)
            if who == TERMINAL:
                rules.returns(cfg, state, returns)
                value = returns[traverser]
                descending = False
                continue
            if depth >= frame_entry.shape[0]:
                return np.nan  # deeper than the game's declared length
            rules.legal_mask(cfg, state, mask)
            count = _count(mask)
            entry = _lookup(cfg, state, who, mask, count, tensor, fp, index, keys, players, first, actions,
                            counters)
            for i in range(state.shape[0]):
                frame_state[depth, i] = state[i]
            _match(regret, entry, first, count, frame_sigma[depth])
            k = 0
            for a in range(mask.shape[0]):
                if mask[a]:
                    frame_action[depth, k] = a
                    k += 1
            frame_entry[depth] = entry
            frame_count[depth] = count
            frame_next[depth] = 1
            depth += 1
            rules.apply(cfg, state, frame_action[depth - 1, 0])
            continue
        if depth == 0:
            return value
        d = depth - 1
        frame_value[d, frame_next[d] - 1] = value
        if frame_next[d] < frame_count[d]:
            for i in range(state.shape[0]):
                state[i] = frame_state[d, i]
            rules.apply(cfg, state, frame_action[d, frame_next[d]])
            frame_next[d] += 1
            descending = True
            continue
        count = frame_count[d]
        value = 0.0
        for k in range(count):
            value += frame_sigma[d, k] * frame_value[d, k]
        entry = frame_entry[d]
        if entry >= 0:
            start = first[entry]
            for k in range(count):
                regret[start + k] += frame_value[d, k] - value
        depth -= 1


@generic
def _external_iterations(cfg, root, iterations, num_players, rng, index, keys, players, first, actions, regret,
                         average, counters, frame_state, frame_entry, frame_count, frame_next, frame_sigma,
                         frame_value, frame_action, state, mask, probs, tensor, fp, sigma, returns):
    for _ in range(iterations):
        for traverser in range(num_players):
            value = _external_traverse(
                cfg, root, traverser, rng, index, keys, players, first, actions, regret, average, counters,
                frame_state, frame_entry, frame_count, frame_next, frame_sigma, frame_value, frame_action,
                state, mask, probs, tensor, fp, sigma, returns,
            )
            if value != value:
                return False
    return True


# --- outcome sampling --------------------------------------------------------------------


@generic
def _outcome_episode(cfg, root, traverser, epsilon, rng, index, keys, players, first, actions, regret, average,
                     counters, frame_entry, frame_count, frame_sampled, frame_sigma, frame_reach, state, mask,
                     probs, tensor, fp, sigma, returns):
    """One outcome-sampling episode for ``traverser``; returns False if the game was
    longer than the frames allow."""
    for i in range(root.shape[0]):
        state[i] = root[i]
    depth = 0
    own = 1.0  # the traverser's reach
    others = 1.0  # chance's and the other players' reach
    sampled = 1.0  # the probability that this trajectory was sampled
    who = rules.current_player(cfg, state)
    while who != TERMINAL:
        if who == CHANCE:
            # The probabilities, not just a draw (rules.sample_outcome): the reaches need the outcome's.
            rules.chance_outcomes(cfg, state, probs)
            action = sample_index(probs, probs.shape[0], uniform(rng, 0))
            others *= probs[action]
            sampled *= probs[action]
        else:
            rules.legal_mask(cfg, state, mask)
            count = _count(mask)
            entry = _lookup(cfg, state, who, mask, count, tensor, fp, index, keys, players, first, actions, counters)
            if who == traverser:
                if depth >= frame_entry.shape[0]:
                    return False
                policy = frame_sigma[depth]
                _match(regret, entry, first, count, policy)
                for k in range(count):
                    sigma[k] = epsilon / count + (1.0 - epsilon) * policy[k]
                k = sample_index(sigma, count, uniform(rng, 0))
                frame_entry[depth] = entry
                frame_count[depth] = count
                frame_sampled[depth] = k
                frame_reach[depth, 0] = own
                frame_reach[depth, 1] = others
                frame_reach[depth, 2] = sampled
                frame_reach[depth, 3] = sigma[k]
                depth += 1
                own *= policy[k]
                sampled *= sigma[k]
            else:
                _match(regret, entry, first, count, sigma)
                k = sample_index(sigma, count, uniform(rng, 0))
                others *= sigma[k]
                sampled *= sigma[k]
            action = _nth_legal(mask, k)
        rules.apply(cfg, state, action)
        who = rules.current_player(cfg, state)
    rules.returns(cfg, state, returns)
    value = returns[traverser]
    for d in range(depth - 1, -1, -1):
        count = frame_count[d]
        k = frame_sampled[d]
        policy = frame_sigma[d]
        child = value / frame_reach[d, 3]  # the sampled action's value, importance-weighted
        value = policy[k] * child
        entry = frame_entry[d]
        if entry >= 0:
            start = first[entry]
            weight = frame_reach[d, 1] / frame_reach[d, 2]
            for j in range(count):
                action_value = child if j == k else 0.0
                regret[start + j] += (action_value - value) * weight
            weight = frame_reach[d, 0] / frame_reach[d, 2]
            for j in range(count):
                average[start + j] += weight * policy[j]
    return True


@generic
def _outcome_iterations(cfg, root, iterations, num_players, epsilon, rng, index, keys, players, first, actions,
                        regret, average, counters, frame_entry, frame_count, frame_sampled, frame_sigma,
                        frame_reach, state, mask, probs, tensor, fp, sigma, returns):
    for _ in range(iterations):
        for traverser in range(num_players):
            if not _outcome_episode(cfg, root, traverser, epsilon, rng, index, keys, players, first, actions,
                                    regret, average, counters, frame_entry, frame_count, frame_sampled,
                                    frame_sigma, frame_reach, state, mask, probs, tensor, fp, sigma, returns):
                return False
    return True


# --- the solver ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MCCFRSettings:
    sampler: str
    seed: int
    epsilon: float
    capacity: int  # information sets the table holds
    slots: int  # actions the table holds, over all information sets

    @property
    def nbytes(self) -> int:
        return self.capacity * ENTRY_BYTES + self.slots * SLOT_BYTES


class MCCFRSolver:
    """External- or outcome-sampling MCCFR on one of this library's games.

    ``memory`` (bytes) bounds the information-set table; ``seed`` fixes the sampling;
    ``epsilon`` is outcome sampling's exploration. See the module docstring.
    """

    def __init__(
        self,
        game: KernelGame,
        sampler: str = "external",
        *,
        seed: int = 0,
        memory: float = DEFAULT_MEMORY,
        epsilon: float = 0.6,
    ):
        if not isinstance(game, KernelGame):
            raise ValueError(
                f"{game}: MCCFR here drives a game's rules kernel (the games of elements_ai.GAMES); "
                "for other pyspiel games use open_spiel.python.algorithms.mccfr"
            )
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; the samplers are {', '.join(SAMPLERS)}")
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1], got {epsilon}")
        total, _ = machine_memory()
        if not 0 < memory <= total:
            raise ValueError(f"memory must be between 0 and this machine's {format_bytes(total)}, got {memory:g} bytes")
        # Random walks size the table and, for external sampling, its cost: a traversal
        # for one player is the tree in which that player's decisions alone branch.
        traversers = range(game.num_players()) if sampler == "external" else range(1)
        walks = [walk_samples(game, PROBE_WALKS, seed, brancher=player) for player in traversers]
        probe = sum(w[:, LEGAL].sum() for w in walks) / max(sum(w[:, MOVES].sum() for w in walks), 1.0)
        self.nodes_per_iteration = None
        if sampler == "external":
            self.nodes_per_iteration = float(sum(w[:, NODES].mean() for w in walks))
            if self.nodes_per_iteration > MAX_EXTERNAL_NODES:
                raise ValueError(
                    f"{game}: external sampling would visit about {self.nodes_per_iteration:.2g} nodes per iteration "
                    "(the traverser tries every action over a whole game); use outcome sampling (os-mccfr)"
                )
        # Room for 50% more actions per information set than random play meets.
        per_infoset = ENTRY_BYTES + 1.5 * probe * SLOT_BYTES
        capacity = max(16, int(memory / per_infoset))
        slots = max(64, int((memory - capacity * ENTRY_BYTES) / SLOT_BYTES))
        settings = MCCFRSettings(sampler, int(seed), float(epsilon), capacity, slots)
        self._setup(game, settings)
        self.rng = seeds_from(seed, 1)

    def _setup(self, game: KernelGame, settings: MCCFRSettings) -> None:
        self.game = game
        self.settings = settings
        config = game.config
        self.iteration = 0
        self.index = np.full(1 << max(4, (2 * settings.capacity - 1).bit_length()), -1, np.int64)
        self.keys = np.zeros((settings.capacity, 2), np.uint64)
        self.players = np.zeros(settings.capacity, np.int8)
        self.first = np.zeros(settings.capacity + 1, np.int64)
        self.actions = np.zeros(settings.slots, np.int32)
        self.regret = np.zeros(settings.slots)
        self.average = np.zeros(settings.slots)
        self.counters = np.zeros(3, np.int64)
        depth = config.max_game_length + 1
        width = config.num_actions
        self._root = game.new_initial_state().array.copy()
        self._state = self._root.copy()
        self._mask = np.zeros(width, np.bool_)
        self._probs = np.zeros(max(config.max_chance_outcomes, 1))
        self._tensor = np.zeros(config.info_size, np.float32)
        self._fp = np.zeros(2, np.uint64)
        self._sigma = np.zeros(width)
        self._returns = np.zeros(config.num_players)
        self._frame_entry = np.zeros(depth, np.int64)
        self._frame_count = np.zeros(depth, np.int64)
        self._frame_sigma = np.zeros((depth, width))
        if settings.sampler == "external":
            self._frame_state = np.zeros((depth, config.state_size), game.kernel.state_dtype)
            self._frame_next = np.zeros(depth, np.int64)
            self._frame_value = np.zeros((depth, width))
            self._frame_action = np.zeros((depth, width), np.int64)
        else:
            self._frame_sampled = np.zeros(depth, np.int64)
            self._frame_reach = np.zeros((depth, 4))

    @property
    def algorithm(self) -> str:
        """``es-mccfr`` or ``os-mccfr``, as ``elements-ai solve`` names them."""
        return f"{self.settings.sampler[0]}s-mccfr"

    @property
    def nbytes(self) -> int:
        """Bytes of the solver's own arrays: its information-set table and scratch."""
        return sum(value.nbytes for value in vars(self).values() if isinstance(value, np.ndarray))

    @property
    def num_infosets(self) -> int:
        return int(self.counters[ENTRIES])

    @property
    def dropped(self) -> int:
        """Lookups of new information sets that found the table full."""
        return int(self.counters[DROPPED])

    def describe_table(self) -> str:
        s = self.settings
        cost = "" if self.nodes_per_iteration is None else f"about {self.nodes_per_iteration:.3g} nodes per iteration; "
        return (
            f"{s.sampler}-sampling MCCFR; {cost}information-set table for up to {s.capacity:,} information sets "
            f"and {s.slots:,} actions ({format_bytes(s.nbytes)}); {self.num_infosets:,} used"
        )

    def run(self, iterations: int) -> None:
        """Runs ``iterations`` more iterations (one traversal per player each)."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        game = self.game
        table = (self.index, self.keys, self.players, self.first, self.actions, self.regret, self.average,
                 self.counters)
        scratch = (self._state, self._mask, self._probs, self._tensor, self._fp, self._sigma, self._returns)
        if self.settings.sampler == "external":
            ok = _external_iterations[game.kernel](
                game.cfg, self._root, int(iterations), game.num_players(), self.rng, *table,
                self._frame_state, self._frame_entry, self._frame_count, self._frame_next, self._frame_sigma,
                self._frame_value, self._frame_action, *scratch,
            )
        else:
            ok = _outcome_iterations[game.kernel](
                game.cfg, self._root, int(iterations), game.num_players(), self.settings.epsilon, self.rng, *table,
                self._frame_entry, self._frame_count, self._frame_sampled, self._frame_sigma, self._frame_reach,
                *scratch,
            )
        if not ok:
            raise RuntimeError(f"{game}: a game lasted longer than its declared max_game_length")
        self.iteration += int(iterations)

    def average_policy(self) -> PolicyTable:
        """The average policy of the information sets sampled so far (others: uniform)."""
        entries, slots = self.num_infosets, int(self.counters[SLOTS])
        probs = np.zeros(slots)
        average_probs(self.first, self.average, entries, probs)
        return PolicyTable(
            self.game, self.keys[:entries].copy(), self.players[:entries].copy(), self.first[: entries + 1].copy(),
            self.actions[:slots].copy(), probs, self.info(), default_uniform=True,
        )

    def info(self) -> dict[str, Any]:
        return {
            "settings": {"algorithm": f"{self.settings.sampler}-sampling mccfr", **dataclasses.asdict(self.settings)},
            "iterations": self.iteration,
            "infosets": self.num_infosets,
            "dropped": self.dropped,
        }

    def evaluate(self, tree: Tree | None = None, threads: int | None = None) -> Evaluation:
        """Exact NashConv and exploitability of the average policy (builds the tree
        unless given: small variants only), on ``threads`` cores (default every core)."""
        tree = tree if tree is not None else build_tree(self.game)
        return evaluate_probs(tree, self.average_policy().on_tree(tree), threads=threads)

    def nash_conv(self, tree: Tree | None = None) -> float:
        """NashConv of the average policy (see ``evaluate``)."""
        return self.evaluate(tree).nash_conv

    def exploitability(self, tree: Tree | None = None) -> float:
        """Exploitability of the average policy, NashConv / players (see ``evaluate``)."""
        return self.evaluate(tree).exploitability

    # --- checkpoints ---------------------------------------------------------------

    def save(self, path) -> None:
        """Writes a checkpoint (atomically); ``MCCFRSolver.load`` resumes it exactly."""
        entries, slots = self.num_infosets, int(self.counters[SLOTS])
        header = {
            "format": CHECKPOINT_FORMAT,
            "version": VERSION,
            "game": str(self.game),
            "settings": dataclasses.asdict(self.settings),
            "iteration": self.iteration,
            "dropped": self.dropped,
            "nodes_per_iteration": self.nodes_per_iteration,
        }
        write_npz(
            path,
            {
                "header": np.frombuffer(json.dumps(header).encode(), np.uint8),
                "keys": self.keys[:entries],
                "players": self.players[:entries],
                "first": self.first[: entries + 1],
                "actions": self.actions[:slots],
                "regret": self.regret[:slots],
                "average": self.average[:slots],
                "rng": self.rng,
            },
        )

    @classmethod
    def load(cls, path, game: pyspiel.Game | str | None = None) -> MCCFRSolver:
        """The solver checkpointed at ``path``, ready to continue."""
        header, arrays = read_checkpoint(path, game)
        loaded = pyspiel.load_game(header["game"])
        solver = cls.__new__(cls)
        solver.nodes_per_iteration = header.get("nodes_per_iteration")
        solver._setup(loaded, MCCFRSettings(**header["settings"]))
        entries, slots = arrays["keys"].shape[0], arrays["actions"].shape[0]
        if entries > solver.settings.capacity or slots > solver.settings.slots:
            raise ValueError(f"{path}: malformed checkpoint: more entries than its table holds")
        solver.keys[:entries] = arrays["keys"]
        solver.players[:entries] = arrays["players"]
        solver.first[: entries + 1] = arrays["first"]
        solver.actions[:slots] = arrays["actions"]
        solver.regret[:slots] = arrays["regret"]
        solver.average[:slots] = arrays["average"]
        solver.rng = arrays["rng"].copy()
        solver.counters[:] = (entries, slots, int(header["dropped"]))
        solver.iteration = int(header["iteration"])
        _rebuild_index(solver.keys, entries, solver.index)
        return solver
