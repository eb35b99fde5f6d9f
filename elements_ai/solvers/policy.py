"""Policies per information set: what the solvers return, what files hold, what bots play.

A ``PolicyTable`` maps each information set (by its key: the information-state
string, or the fingerprint of the information-state tensor) to its legal actions
and their probabilities. It is an OpenSpiel ``Policy``, so every OpenSpiel tool
takes it, and converts to and from OpenSpiel's ``TabularPolicy``.

A policy file is one ``.npz`` holding a JSON header (format, game string, solver
settings, iterations) and the arrays; it is written to a temporary file and renamed,
so an interrupted save leaves the old file (or none), never half a file. Loading a
file for another game is an error.

>>> import os, tempfile, pyspiel
>>> from elements_ai.solvers import CFRSolver
>>> solver = CFRSolver(pyspiel.load_game("kuhn_poker"), "cfr+")
>>> solver.run(100)
>>> path = os.path.join(tempfile.mkdtemp(), "kuhn.npz")
>>> solver.average_policy().save(path)
>>> table = load_policy(path, pyspiel.load_game("kuhn_poker"))
>>> table.info["iterations"], round(sum(table.action_probabilities(pyspiel.load_game("kuhn_poker")
...     .new_initial_state().child(0).child(1)).values()), 9)
(100, 1.0)
>>> try:
...     load_policy(path, pyspiel.load_game("leduc_poker"))
... except PolicyMismatch as error:
...     print(str(error).split(" holds ")[1])
a policy for kuhn_poker(), not for leduc_poker()
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import numba as nb
import numpy as np
import pyspiel
from open_spiel.python import policy as openspiel_policy

from .. import games  # noqa: F401  (registers this library's games, so that game strings in files load)
from ..core.params import ParameterError
from .best_response import Evaluation, evaluate_probs
from .flat import Tree, state_key
from .tree import build_tree

__all__ = ["PolicyMismatch", "PolicyTable", "evaluate", "load_mccfr_policy", "load_policy", "policy_probs"]

FORMAT = "elements_ai.policy"
CHECKPOINT_FORMAT = "elements_ai.mccfr"  # an MCCFR solver's checkpoint, which holds a policy too
VERSION = 1
# A policy's probabilities at an information set must sum to 1 within this.
SUM_TOLERANCE = 1e-6


class PolicyMismatch(ParameterError):
    """A policy (or policy file) used with a game it was not made for (a user's mistake:
    a ``ParameterError``, and so a ``ValueError``)."""


def _game_string(game: pyspiel.Game | str) -> str:
    return str(pyspiel.load_game(game) if isinstance(game, str) else game)


class PolicyTable(openspiel_policy.Policy):
    """A policy given per information set (see the module docstring).

    ``keys`` are information-state strings (a list) or tensor fingerprints (a uint64
    ``(n, 2)`` array); ``infoset_first``/``sequence_action``/``probs`` give each
    information set's legal actions and their probabilities, as in a ``Tree``.
    ``info`` records how the policy was made (solver settings, iterations...). With
    ``default_uniform`` an information set the table does not hold is played
    uniformly at random (MCCFR's unsampled ones); without, it is an error.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        keys: list[str] | np.ndarray,
        infoset_player: np.ndarray,
        infoset_first: np.ndarray,
        sequence_action: np.ndarray,
        probs: np.ndarray,
        info: Mapping[str, Any] | None = None,
        default_uniform: bool = False,
    ):
        super().__init__(game, list(range(game.num_players())))
        self.default_uniform = bool(default_uniform)
        self.keys = keys
        self.infoset_player = np.asarray(infoset_player, np.int8)
        self.infoset_first = np.asarray(infoset_first, np.int64)
        self.sequence_action = np.asarray(sequence_action, np.int32)
        self.probs = np.asarray(probs, np.float64)
        self.info = dict(info or {})
        self._lookup: dict | None = None

    @classmethod
    def from_tree(cls, tree: Tree, probs: np.ndarray, info: Mapping[str, Any] | None = None) -> PolicyTable:
        """The policy ``probs`` (one probability per sequence of ``tree``)."""
        if probs.shape != (tree.num_sequences,):
            raise ValueError(f"a policy on this tree has {tree.num_sequences} probabilities, got shape {probs.shape}")
        return cls(
            tree.game, tree.keys, tree.infoset_player, tree.infoset_first, tree.sequence_action, probs, info
        )

    @classmethod
    def from_openspiel(cls, policy, game_or_tree, info: Mapping[str, Any] | None = None) -> PolicyTable:
        """Any OpenSpiel policy (``TabularPolicy`` included) as a ``PolicyTable`` on the
        game's tree (built unless a ``Tree`` is given), e.g. to save it or play it.

        >>> import pyspiel
        >>> from open_spiel.python.policy import TabularPolicy
        >>> table = PolicyTable.from_openspiel(TabularPolicy(pyspiel.load_game("kuhn_poker")),
        ...                                    pyspiel.load_game("kuhn_poker"))
        >>> table.num_infosets, table.action_probabilities(pyspiel.load_game("kuhn_poker")
        ...     .new_initial_state().child(0).child(1))
        (12, {0: 0.5, 1: 0.5})
        """
        tree = game_or_tree if isinstance(game_or_tree, Tree) else build_tree(game_or_tree)
        return cls.from_tree(tree, policy_probs(tree, policy), info)

    # --- lookups ------------------------------------------------------------------

    @property
    def key_kind(self) -> str:
        return "string" if isinstance(self.keys, list) else "tensor"

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def num_sequences(self) -> int:
        return int(self.sequence_action.shape[0])

    def _key(self, row: int):
        if isinstance(self.keys, list):
            return self.keys[row]
        return (int(self.keys[row, 0]), int(self.keys[row, 1]))

    def find(self, key) -> int:
        """The row of the information set with this key, or -1."""
        if self._lookup is None:
            self._lookup = {self._key(row): row for row in range(self.num_infosets)}
        return self._lookup.get(key, -1)

    def row_of_state(self, state: pyspiel.State) -> int:
        """The row of the information set of the player to move in ``state``, or -1."""
        return self.find(state_key(state, self.key_kind))

    def actions_and_probs(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        first, stop = self.infoset_first[row], self.infoset_first[row + 1]
        return self.sequence_action[first:stop], self.probs[first:stop]

    def action_probabilities(self, state, player_id=None) -> dict[int, float]:
        """``{action: probability}`` at ``state`` (OpenSpiel's ``Policy`` interface).

        Raises ``KeyError`` for an information set the policy does not hold (unless
        ``default_uniform``).
        """
        row = self.row_of_state(state)
        if row < 0 and self.default_uniform:
            legal = state.legal_actions()
            return {a: 1.0 / len(legal) for a in legal}
        if row < 0:
            raise KeyError(
                f"{self.game}: the policy holds no information set for player {state.current_player()} here:\n{state}"
            )
        actions, probs = self.actions_and_probs(row)
        return dict(zip(actions.tolist(), probs.tolist()))

    def rows_for_tree(self, tree: Tree) -> np.ndarray:
        """For each information set of ``tree``, this policy's row (-1: not held)."""
        if tree.key_kind == self.key_kind:
            return np.array([self.find(tree.infoset_key(i)) for i in range(tree.num_infosets)], np.int64)
        return np.array([self.row_of_state(tree.state(i)) for i in range(tree.num_infosets)], np.int64)

    # --- evaluation and conversion ------------------------------------------------

    def on_tree(self, tree: Tree) -> np.ndarray:
        """This policy as one probability per sequence of ``tree``."""
        return policy_probs(tree, self)

    def evaluate(self, tree: Tree | None = None, threads: int | None = None) -> Evaluation:
        """NashConv and exploitability (builds the game's tree unless given), on
        ``threads`` cores (default every core)."""
        return evaluate(tree if tree is not None else self.game, self, threads=threads)

    def to_tabular(self, tree: Tree | None = None) -> openspiel_policy.TabularPolicy:
        """This policy as OpenSpiel's ``TabularPolicy`` (keyed by information-state string)."""
        tree = tree if tree is not None else build_tree(self.game)
        return to_tabular(tree, self.on_tree(tree))

    # --- files --------------------------------------------------------------------

    def save(self, path, solver_state: Mapping[str, np.ndarray] | None = None) -> None:
        """Writes the policy (and a solver's state, to resume from) to ``path``."""
        header = {
            "format": FORMAT,
            "version": VERSION,
            "game": str(self.game),
            "num_players": self.game.num_players(),
            "key_kind": self.key_kind,
            "default_uniform": self.default_uniform,
            "info": self.info,
            "solver_state": sorted(solver_state) if solver_state else [],
        }
        arrays = {
            "header": np.frombuffer(json.dumps(header).encode(), np.uint8),
            "infoset_player": self.infoset_player,
            "infoset_first": self.infoset_first,
            "sequence_action": self.sequence_action,
            "probs": self.probs,
        }
        if isinstance(self.keys, list):
            encoded = [key.encode() for key in self.keys]
            arrays["key_bytes"] = np.frombuffer(b"".join(encoded), np.uint8)
            arrays["key_ends"] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        else:
            arrays["key_fingerprints"] = np.asarray(self.keys, np.uint64)
        for name, value in (solver_state or {}).items():
            arrays[f"state_{name}"] = np.asarray(value)
        write_npz(path, arrays, compressed=not solver_state)

    @classmethod
    def load(cls, path, game: pyspiel.Game | str | None = None) -> PolicyTable:
        """The policy in the file ``path``; with ``game``, checks it is that game's."""
        return cls.load_with_state(path, game)[0]

    @classmethod
    def load_with_state(
        cls, path, game: pyspiel.Game | str | None = None
    ) -> tuple[PolicyTable, dict[str, np.ndarray] | None]:
        header, arrays = read_npz(path, FORMAT)
        saved_game = header["game"]
        if game is not None and _game_string(game) != _game_string(saved_game):
            raise PolicyMismatch(f"{path} holds a policy for {saved_game}, not for {_game_string(game)}")
        try:
            infoset_player = arrays["infoset_player"]
            infoset_first = arrays["infoset_first"]
            sequence_action = arrays["sequence_action"]
            probs = arrays["probs"]
            if header["key_kind"] == "string":
                blob = arrays["key_bytes"].tobytes()
                ends = arrays["key_ends"]
                starts = np.concatenate([[0], ends[:-1]])
                keys: list[str] | np.ndarray = [blob[a:b].decode() for a, b in zip(starts, ends)]
            else:
                keys = arrays["key_fingerprints"]
            state = {name: arrays[f"state_{name}"] for name in header["solver_state"]} or None
        except KeyError as error:
            raise ValueError(f"{path}: malformed policy file, array {error.args[0]!r} is missing") from None
        _check_table(path, keys, infoset_player, infoset_first, sequence_action, probs)

        loaded = pyspiel.load_game(saved_game) if not isinstance(game, pyspiel.Game) else game
        table = cls(
            loaded, keys, infoset_player, infoset_first, sequence_action, probs, header["info"],
            default_uniform=header.get("default_uniform", False),
        )
        return table, state


def _check_table(path, keys, infoset_player, infoset_first, sequence_action, probs) -> None:
    n = infoset_player.shape[0]
    problem = None
    if len(keys) != n or infoset_first.shape != (n + 1,) or infoset_first[0] != 0:
        problem = "the information sets' arrays disagree in length"
    elif (np.diff(infoset_first) <= 0).any() or infoset_first[-1] != sequence_action.shape[0]:
        problem = "the sequences of the information sets are out of order"
    elif probs.shape != sequence_action.shape:
        problem = "there is not one probability per sequence"
    elif not np.isfinite(probs).all() or (probs < 0).any():
        problem = "a probability is negative or not finite"
    else:
        sums = np.add.reduceat(probs, infoset_first[:-1]) if n else np.zeros(0)
        if (np.abs(sums - 1.0) > SUM_TOLERANCE).any():
            problem = "the probabilities of an information set do not sum to 1"
    if problem:
        raise ValueError(f"{path}: malformed policy file: {problem}")


# --- npz files with a JSON header, written atomically ---------------------------------


def write_npz(path, arrays: Mapping[str, np.ndarray], compressed: bool = False) -> None:
    """Writes ``arrays`` to ``path`` through a temporary file in the same folder and
    a rename: readers see the old file or the whole new one, never a partial one.
    ``compressed`` deflates them: worth it for a policy that ships (its keys and
    probabilities shrink to a third or less), not for a checkpoint rewritten every few
    minutes."""
    from ..files import atomic_write

    with atomic_write(os.path.abspath(path)) as out:
        (np.savez_compressed if compressed else np.savez)(out, **arrays)


def read_header(path, expected_format: str | tuple[str, ...]) -> dict[str, Any]:
    """The JSON header of a file written by ``write_npz``, without reading its arrays."""
    expected = (expected_format,) if isinstance(expected_format, str) else expected_format
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path}")
    try:
        data = np.load(path, allow_pickle=False)
    except Exception as error:
        reason = "not an .npz archive" if "pickle" in str(error) else error  # as read_npz says it
        raise ValueError(f"{path}: not a file of elements_ai ({' or '.join(expected)}): {reason}") from None
    try:
        with data:
            header = json.loads(data["header"].tobytes().decode())
    except Exception:
        raise ValueError(f"{path}: not a file of elements_ai ({' or '.join(expected)}): no readable header") from None
    if header.get("format") not in expected:
        raise ValueError(f"{path}: holds {header.get('format')!r}, expected a {' or '.join(expected)} file")
    return header


def read_npz(path, expected_format: str | tuple[str, ...]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The JSON header and the arrays of a file written by ``write_npz``, whose
    header names one of the formats ``expected_format``."""
    expected = (expected_format,) if isinstance(expected_format, str) else expected_format
    expected_format = " or ".join(expected)
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except Exception as error:
        # numpy answers a file that is no zip archive with advice on unpickling it, which
        # does not apply: these files never hold pickled data.
        reason = "not an .npz archive" if "pickle" in str(error) else error
        raise ValueError(f"{path}: not a file of elements_ai ({expected_format}): {reason}") from None
    try:
        header = json.loads(arrays.pop("header").tobytes().decode())
    except Exception:
        raise ValueError(f"{path}: not a file of elements_ai ({expected_format}): no readable header") from None
    if header.get("format") not in expected:
        raise ValueError(f"{path}: holds {header.get('format')!r}, expected a {expected_format} file")
    if header.get("version") != VERSION:
        raise ValueError(f"{path}: format version {header.get('version')} is not supported (this is {VERSION})")
    return header, arrays


def load_policy(path, game: pyspiel.Game | str | None = None) -> PolicyTable:
    """The policy saved at ``path`` (by ``PolicyTable.save`` or ``elements-ai solve``).

    With ``game``, raises ``PolicyMismatch`` if the file was solved for another game.
    Policies saved by MCCFR load too (``MCCFRSolver.load`` resumes them).
    """
    header, _ = read_npz(path, (FORMAT, CHECKPOINT_FORMAT))
    if header["format"] == CHECKPOINT_FORMAT:
        return load_mccfr_policy(path, game)
    return PolicyTable.load(path, game)


# --- MCCFR checkpoints, which hold a policy too ----------------------------------------
# Read here rather than in mccfr.py so that loading any policy file needs no solver
# (mccfr.py writes them, and resumes from them through ``read_checkpoint``).

CHECKPOINT_ARRAYS = ("keys", "players", "first", "actions", "regret", "average", "rng")


def read_checkpoint(path, game: pyspiel.Game | str | None = None) -> tuple[dict, dict]:
    """The header and arrays of the MCCFR checkpoint at ``path``, checked (and with
    ``game``, checked to be that game's)."""
    header, arrays = read_npz(path, CHECKPOINT_FORMAT)
    if game is not None and _game_string(game) != _game_string(header["game"]):
        raise PolicyMismatch(f"{path} holds a policy for {header['game']}, not for {_game_string(game)}")
    missing = [n for n in CHECKPOINT_ARRAYS if n not in arrays]
    if missing:
        raise ValueError(f"{path}: malformed checkpoint, array {missing[0]!r} is missing")
    first = arrays["first"]
    if first.shape != (arrays["keys"].shape[0] + 1,) or first[-1] != arrays["actions"].shape[0]:
        raise ValueError(f"{path}: malformed checkpoint: the entries' arrays disagree")
    return header, arrays


@nb.njit(cache=True)
def average_probs(first, average, entries, out):
    """MCCFR's average policy: each entry's cumulative ``average`` normalised into
    ``out`` (uniform where nothing was accumulated)."""
    for entry in range(entries):
        start, stop = first[entry], first[entry + 1]
        total = 0.0
        for s in range(start, stop):
            total += average[s]
        for s in range(start, stop):
            out[s] = average[s] / total if total > 0.0 else 1.0 / (stop - start)


def load_mccfr_policy(path, game: pyspiel.Game | str | None = None) -> PolicyTable:
    """The average policy held in an MCCFR checkpoint (uniform where never sampled)."""
    header, arrays = read_checkpoint(path, game)
    loaded = game if isinstance(game, pyspiel.Game) else pyspiel.load_game(header["game"])
    entries = arrays["keys"].shape[0]
    probs = np.zeros(arrays["actions"].shape[0])
    average_probs(arrays["first"], arrays["average"], entries, probs)
    info = {"settings": header["settings"], "iterations": header["iteration"], "infosets": entries}
    return PolicyTable(
        loaded, arrays["keys"], arrays["players"], arrays["first"], arrays["actions"], probs, info, default_uniform=True
    )


# --- conversions ----------------------------------------------------------------------


def _row_probs(tree: Tree, infoset: int, given: Mapping[int, float]) -> np.ndarray:
    """The probabilities of the legal actions of ``infoset`` from ``{action: prob}``,
    checked: non-negative, summing to 1, none on an illegal action."""
    legal = tree.legal_actions(infoset)
    row = np.array([float(given.get(int(a), 0.0)) for a in legal])
    extra = [a for a, p in given.items() if p > 0 and int(a) not in set(legal.tolist())]
    where = f"information set {tree.infoset_key(infoset)!r} (player {int(tree.infoset_player[infoset])})"
    if extra:
        raise ValueError(f"the policy gives illegal action {extra[0]} a positive probability at {where}")
    if not np.isfinite(row).all() or (row < 0).any() or abs(row.sum() - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"the policy's probabilities at {where} are not a distribution: {row.tolist()}")
    return row


def policy_probs(tree: Tree, policy) -> np.ndarray:
    """Any policy as one probability per sequence of ``tree``.

    ``policy`` is a ``PolicyTable``, an OpenSpiel ``Policy`` (``TabularPolicy``
    included; queried at one state of each information set) or a ``pyspiel.Policy``
    such as a C++ solver's average policy.
    """
    out = np.empty(tree.num_sequences)
    if isinstance(policy, PolicyTable):
        rows = policy.rows_for_tree(tree)
        missing = np.flatnonzero(rows < 0)
        if missing.size and not policy.default_uniform:
            raise KeyError(
                f"the policy holds no entry for information set {tree.infoset_key(int(missing[0]))!r} "
                f"({missing.size} of {tree.num_infosets} missing)"
            )
        for infoset in range(tree.num_infosets):
            first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
            if rows[infoset] < 0:
                out[first:stop] = 1.0 / (stop - first)
                continue
            actions, probs = policy.actions_and_probs(int(rows[infoset]))
            if not np.array_equal(actions, tree.sequence_action[first:stop]):
                raise ValueError(f"the policy's legal actions differ from the game's at {tree.infoset_key(infoset)!r}")
            out[first:stop] = probs
        return out
    lookup = None
    if isinstance(policy, openspiel_policy.TabularPolicy) and tree.key_kind == "string":
        lookup = policy.state_lookup
    for infoset in range(tree.num_infosets):
        first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
        if lookup is not None:
            row = lookup.get(tree.keys[infoset])
            if row is None:
                raise KeyError(f"the TabularPolicy has no entry for information set {tree.keys[infoset]!r}")
            given = policy.action_probability_array[row]
            out[first:stop] = given[tree.sequence_action[first:stop]]
            if abs(given.sum() - out[first:stop].sum()) > SUM_TOLERANCE:
                raise ValueError(f"the policy gives an illegal action a positive probability at {tree.keys[infoset]!r}")
            continue
        state = tree.state(infoset)
        if isinstance(policy, openspiel_policy.Policy):
            given = policy.action_probabilities(state, int(tree.infoset_player[infoset]))
        elif isinstance(policy, pyspiel.Policy):
            given = dict(policy.get_state_policy(state))
        else:
            raise TypeError(f"expected an OpenSpiel policy, got {type(policy).__name__}")
        out[first:stop] = _row_probs(tree, infoset, given)
    sums = np.add.reduceat(out, tree.infoset_first[:-1]) if tree.num_infosets else np.zeros(0)
    bad = np.flatnonzero(~np.isfinite(sums) | (np.abs(sums - 1.0) > SUM_TOLERANCE))
    if bad.size or (out < 0).any():
        infoset = int(bad[0]) if bad.size else int(tree.sequence_infoset[np.flatnonzero(out < 0)[0]])
        first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
        raise ValueError(
            f"the policy's probabilities at information set {tree.infoset_key(infoset)!r} are not a distribution: "
            f"{out[first:stop].tolist()}"
        )
    return out


def to_tabular(tree: Tree, probs: np.ndarray) -> openspiel_policy.TabularPolicy:
    """The policy ``probs`` (per sequence of ``tree``) as OpenSpiel's ``TabularPolicy``."""
    states = {f"{i:012d}": tree.state(i) for i in range(tree.num_infosets)}
    table = openspiel_policy.TabularPolicy(tree.game, states=states)
    for infoset, state in enumerate(states.values()):
        player = int(tree.infoset_player[infoset])
        row = table.state_lookup[state.information_state_string(player)]
        first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
        table.action_probability_array[row] = 0.0
        table.action_probability_array[row, tree.sequence_action[first:stop]] = probs[first:stop]
    return table


def evaluate(game: pyspiel.Game | Tree, policy, threads: int | None = None) -> Evaluation:
    """NashConv and exploitability of any policy (see ``policy_probs``) in ``game``,
    the best responses on ``threads`` cores (default every core; the same result on
    any number).

    >>> import pyspiel
    >>> from open_spiel.python import policy
    >>> game = pyspiel.load_game("kuhn_poker")
    >>> round(evaluate(game, policy.UniformRandomPolicy(game), threads=1).nash_conv, 9)
    0.916666667
    """
    tree = game if isinstance(game, Tree) else build_tree(game)
    return evaluate_probs(tree, policy_probs(tree, policy), threads=threads)
