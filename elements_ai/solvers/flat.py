"""Trees flattened into arrays: the ``Tree`` record, the keys of its information
sets, and the last step of every builder (``finish_tree``).

A ``Tree`` holds every history of a game as a node in a few flat arrays. Nodes are
numbered so that a parent comes before its children and the children of a node
are consecutive (``first[n] .. first[n] + count[n] - 1``): one forward sweep
pushes reach probabilities down the tree, one backward sweep pulls values up.
The builders number depth first, so the descendants of a node are consecutive
too (from its first child on): the sweeps share a tree among threads by these
subtrees (``sweeps.SweepPlan``; in a tree numbered otherwise, by those subtrees
that happen to be ranges, and on one thread where none is).

Node arrays (length ``num_nodes``)::

    node_player   int8   player to move, CHANCE (-1) or TERMINAL (-4)
    node_first    int32  first child
    node_count    int16  number of children (0 at a terminal)
    node_index    int32  decision node: its information set; chance node: where
                         its outcomes start in ``chance_prob``/``chance_action``;
                         terminal: its row of ``utility``

Information sets (length ``num_infosets``), numbered in the order the depth-first
walk first meets them, so an information set comes after every information set
that its player passed through before reaching it::

    infoset_player  int8
    infoset_first   int64  its sequences are infoset_first[i] .. infoset_first[i+1]-1
    infoset_parent  int64  the sequence its player last played before reaching it
                           (-1: none); the same from every history (perfect recall)
    infoset_node    int32  one node of the information set

Sequences (an information set and one of its legal actions, in increasing action
order; length ``num_sequences``): ``sequence_action`` int32. The children of a
decision node follow its information set's sequences in the same order, so a
policy is one float per sequence. Chance outcomes: ``chance_prob`` float64,
``chance_action`` int32. ``utility`` float64 ``(rows, players)`` holds each
distinct returns vector once (most games have a handful).

The builders (``tree.py`` for any ``pyspiel`` game, ``kernel_tree.py`` for this
library's games) and MCCFR's table all key information sets the same way, so this
module sits below all of them.
"""

from __future__ import annotations

import dataclasses

import numba as nb
import numpy as np
import pyspiel

from ..core.kernel import CHANCE, TERMINAL
from ..core.spiel import KernelGame, KernelState
from .memory import format_bytes, solve_bytes
from .sweeps import SweepPlan, plan_sweeps

__all__ = ["Tree", "check_game", "finish_tree", "fingerprint", "fingerprint_into", "is_kernel_game", "state_key"]


def is_kernel_game(game: pyspiel.Game) -> bool:
    """Is ``game`` one of this library's games (with a rules kernel)?"""
    return isinstance(game, KernelGame)


def check_game(game: pyspiel.Game) -> None:
    """Raises unless ``game`` is a sequential ``pyspiel`` game with information states."""
    if not isinstance(game, pyspiel.Game):
        raise TypeError(f"expected a pyspiel.Game (e.g. elements_ai.load_game(...)), got {type(game).__name__}")
    game_type = game.get_type()
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(
            f"{game}: the tabular solvers need a sequential game; wrap a simultaneous game with "
            "pyspiel.convert_to_turn_based first"
        )
    if not game_type.provides_information_state_string and not game_type.provides_information_state_tensor:
        raise ValueError(f"{game}: the game provides no information state, so its information sets are unknown")


@dataclasses.dataclass(eq=False)
class Tree:
    """A game's tree of histories flattened into arrays (see the module docstring)."""

    game: pyspiel.Game
    node_player: np.ndarray
    node_first: np.ndarray
    node_count: np.ndarray
    node_index: np.ndarray
    chance_prob: np.ndarray
    chance_action: np.ndarray
    utility: np.ndarray
    infoset_player: np.ndarray
    infoset_first: np.ndarray
    infoset_parent: np.ndarray
    infoset_node: np.ndarray
    sequence_action: np.ndarray
    # Keys of the information sets: their information-state strings (a list), or a
    # uint64 (num_infosets, 2) array of information-state tensor fingerprints.
    keys: list[str] | np.ndarray
    build_seconds: float = 0.0
    _lookup: dict | None = dataclasses.field(default=None, repr=False)
    _parents: np.ndarray | None = dataclasses.field(default=None, repr=False)
    _plan: SweepPlan | None = dataclasses.field(default=None, repr=False)

    def __post_init__(self):
        self.num_players = self.game.num_players()
        # Each player's information sets, in increasing order.
        order = np.argsort(self.infoset_player, kind="stable").astype(np.int32)
        counts = np.bincount(self.infoset_player, minlength=self.num_players)
        self.player_first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.player_infosets = order
        self.sequence_infoset = np.repeat(
            np.arange(self.num_infosets, dtype=np.int32), np.diff(self.infoset_first)
        ).astype(np.int32)

    @property
    def key_kind(self) -> str:
        """``"string"`` (information-state strings) or ``"tensor"`` (tensor fingerprints)."""
        return "string" if isinstance(self.keys, list) else "tensor"

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_sequences(self) -> int:
        return int(self.sequence_action.shape[0])

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.node_player == TERMINAL))

    @property
    def solve_nbytes(self) -> float:
        """Bytes a tabular solver and exact best response need on this tree."""
        return solve_bytes(self.num_nodes, self.num_infosets, self.num_sequences)

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's arrays."""
        return sum(
            value.nbytes for value in vars(self).values() if isinstance(value, np.ndarray)
        )

    def describe(self) -> str:
        return (
            f"{self.num_nodes:,} nodes ({self.num_terminals:,} terminal), {self.num_infosets:,} information sets, "
            f"{self.num_sequences:,} sequences; {format_bytes(self.nbytes)}, built in {self.build_seconds:.2f} s"
        )

    def sweep_plan(self, task_nodes: int | None = None) -> SweepPlan:
        """How the sweeps share this tree among threads (``sweeps.plan_sweeps``),
        made on first use and kept. ``task_nodes`` cuts the tree again into tasks of
        at most that many nodes (the results do not change, only who computes them).

        >>> import pyspiel
        >>> from elements_ai.solvers import build_tree
        >>> tree = build_tree(pyspiel.load_game("kuhn_poker"))
        >>> tree.sweep_plan().num_tasks, tree.sweep_plan(task_nodes=8).num_tasks
        (1, 6)
        """
        if self._plan is None or task_nodes is not None:
            self._plan = plan_sweeps(
                self.node_player, self.node_first, self.node_count, self.node_index, self.num_infosets, task_nodes
            )
        return self._plan

    def legal_actions(self, infoset: int) -> np.ndarray:
        """The legal actions of an information set, in sequence order."""
        return self.sequence_action[self.infoset_first[infoset] : self.infoset_first[infoset + 1]]

    def infoset_key(self, infoset: int) -> str | tuple[int, int]:
        """The key of an information set: its string, or its tensor fingerprint."""
        if isinstance(self.keys, list):
            return self.keys[infoset]
        return (int(self.keys[infoset, 0]), int(self.keys[infoset, 1]))

    def find_infoset(self, key) -> int:
        """The information set with this key (``infoset_key``), or -1."""
        if self._lookup is None:
            self._lookup = {self.infoset_key(i): i for i in range(self.num_infosets)}
        return self._lookup.get(key, -1)

    def history(self, node: int) -> list[int]:
        """The actions (chance outcomes included) from the root to ``node``."""
        if self._parents is None:
            self._parents = _node_parents(self.node_player, self.node_first, self.node_count)
        actions = []
        while node > 0:
            parent = int(self._parents[node])
            k = node - int(self.node_first[parent])
            if self.node_player[parent] == CHANCE:
                actions.append(int(self.chance_action[self.node_index[parent] + k]))
            else:
                actions.append(int(self.sequence_action[self.infoset_first[self.node_index[parent]] + k]))
            node = parent
        return actions[::-1]

    def state(self, infoset: int) -> pyspiel.State:
        """A state of the information set (the first history the walk met)."""
        state = self.game.new_initial_state()
        for action in self.history(int(self.infoset_node[infoset])):
            state.apply_action(action)
        return state

    def key_of_state(self, state: pyspiel.State) -> str | tuple[int, int]:
        """The key this tree gives the information set of ``state``'s player to move."""
        return state_key(state, self.key_kind)


def state_key(state: pyspiel.State, kind: str) -> str | tuple[int, int]:
    """The key of the information set of the player to move, as a tree of ``kind`` keys it."""
    player = state.current_player()
    if kind == "string":
        return state.information_state_string(player)
    if isinstance(state, KernelState):
        game = state.get_game()
        tensor = np.zeros(game.config.info_size, np.float32)
        game.kernel.encode_information_state(game.cfg, state.array, player, tensor)
    else:
        tensor = np.asarray(state.information_state_tensor(player), np.float32)
    h = fingerprint(tensor, player)
    return (int(h[0]), int(h[1]))


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SEED_A = np.uint64(0x9E3779B97F4A7C15)
_SEED_B = np.uint64(0xD1B54A32D192ED03)


@nb.njit(cache=True, inline="always")
def _mix(x):
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True)
def fingerprint_into(tensor, player, out):
    """Writes a 128-bit fingerprint of ``(player, tensor)`` into ``out[0:2]`` (uint64).

    Two independent 64-bit hashes of the float32 bit patterns: two different
    information states share a fingerprint with probability about 2^-128 per pair.
    Entries that are zero are skipped (their positions still enter through the
    others), so sparse tensors hash quickly.
    """
    bits = tensor.view(np.uint32)
    a = _SEED_A ^ np.uint64(player + 1)
    b = _SEED_B ^ np.uint64(player + 1)
    for i in range(bits.shape[0]):
        word = bits[i]
        if word != 0:
            x = (np.uint64(i) << np.uint64(32)) | np.uint64(word)
            a = _mix(a ^ x) + _SEED_B
            b = _mix(b + x * _MIX1) ^ _SEED_A
    out[0] = _mix(a ^ np.uint64(bits.shape[0]))
    out[1] = _mix(b + np.uint64(bits.shape[0]))


def fingerprint(tensor: np.ndarray, player: int) -> np.ndarray:
    """The 128-bit fingerprint (two uint64) of an information-state tensor."""
    out = np.empty(2, np.uint64)
    fingerprint_into(np.ascontiguousarray(tensor, np.float32), int(player), out)
    return out


# --- numba passes over the node arrays -----------------------------------------------


@nb.njit(cache=True)
def _node_parents(node_player, node_first, node_count):
    parents = np.full(node_player.shape[0], -1, np.int32)
    for n in range(node_player.shape[0]):
        first = node_first[n]
        for k in range(node_count[n]):
            parents[first + k] = n
    return parents


@nb.njit(cache=True)
def _infoset_parents(node_player, node_first, node_count, node_index, infoset_first, infoset_player, player, out):
    """Writes ``out[i]``, the last sequence of ``player`` before information set ``i``
    (-1 for none), for every information set of ``player``. Returns -1, or an
    information set reached after different own sequences (no perfect recall)."""
    last = np.empty(node_player.shape[0], np.int64)
    last[0] = -1
    seen = np.zeros(infoset_player.shape[0], np.bool_)
    for n in range(node_player.shape[0]):
        who = node_player[n]
        if who == TERMINAL:
            continue
        first = node_first[n]
        if who == player:
            infoset = node_index[n]
            if not seen[infoset]:
                seen[infoset] = True
                out[infoset] = last[n]
            elif out[infoset] != last[n]:
                return infoset
            base = infoset_first[infoset]
            for k in range(node_count[n]):
                last[first + k] = base + k
        else:
            for k in range(node_count[n]):
                last[first + k] = last[n]
    return -1


def finish_tree(game, arrays: dict, keys, build_seconds: float) -> Tree:
    """A ``Tree`` from a builder's arrays, with the parent sequences filled in and
    perfect recall checked."""
    num_infosets = arrays["infoset_player"].shape[0]
    parent = np.full(num_infosets, -1, np.int64)
    for player in range(game.num_players()):
        bad = _infoset_parents(
            arrays["node_player"], arrays["node_first"], arrays["node_count"], arrays["node_index"],
            arrays["infoset_first"], arrays["infoset_player"], player, parent,
        )
        if bad >= 0:
            key = keys[bad] if isinstance(keys, list) else tuple(int(k) for k in keys[bad])
            raise ValueError(
                f"{game}: information set {key!r} of player {player} is reached after different own "
                "actions (the game's information state forgets some of the player's earlier moves); tabular CFR "
                "and exact best response need perfect recall. MCCFR runs without it."
            )
    return Tree(game=game, infoset_parent=parent, keys=keys, build_seconds=build_seconds, **arrays)
