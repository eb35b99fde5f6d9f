"""Best response and on-policy values on the compact tree: exploitability of any policy."""

from __future__ import annotations

import numba as nb
import numpy as np

from ...core.kernel import CHANCE
from ..best_response import Evaluation
from ..policy import PolicyTable
from ..sweeps import EVERYONE, best_choices, using_threads
from .tree import CHANCE_KIND, COUNT_MASK, KIND_SHIFT, LANES, TERMINAL_KIND, CompactTree, _subtree_stop

__all__ = ["compact_probs", "evaluate_compact", "profile_values", "reach_pass", "seat_profile"]


@nb.njit(cache=True)
def _reach_walk(
    pos,
    reach,
    last,
    player,
    task_start,
    task_stop,
    task_reach,
    task_last,
    node_shape,
    node_code,
    chance_first,
    chance_prob,
    infoset_player,
    infoset_first,
    utility,
    policy,
    sequence_value,
    root_value,
    frame_next,
    frame_reach,
    frame_base,
    frame_who,
    frame_last,
):
    """Pushes reach down the subtree at ``pos`` and adds each terminal's returns,
    weighted by its reach, where they count:

    * ``player`` ``EVERYONE``: reach of every player and chance, every player's
      return into ``root_value[p]`` (the on-policy values);
    * else: reach of chance and the others, ``player``'s return into
      ``sequence_value`` at the last sequence ``player`` played (``root_value[0]``
      before any), the first step of best response in sequence form.

    Subtrees starting a task get their reach and last sequence written instead.
    """
    num_tasks = task_start.shape[0]
    next_task = 0
    while next_task < num_tasks and task_start[next_task] < pos:
        next_task += 1
    depth = -1
    r = reach
    own = last
    while True:
        shape = node_shape[pos]
        kind = shape >> KIND_SHIFT
        if next_task < num_tasks and pos == task_start[next_task]:
            task_reach[next_task] = r
            task_last[next_task] = own
            pos = task_stop[next_task]
            next_task += 1
        elif r == 0.0:
            pos = _subtree_stop(node_shape, pos)
            while next_task < num_tasks and task_start[next_task] < pos:
                task_reach[next_task] = 0.0
                next_task += 1
        elif kind == TERMINAL_KIND:
            row = node_code[pos]
            if player == EVERYONE:
                for p in range(utility.shape[1]):
                    root_value[p] += r * utility[row, p]
            elif own < 0:
                root_value[0] += r * utility[row, player]
            else:
                sequence_value[own] += r * utility[row, player]
            pos += 1
        else:
            depth += 1
            index = node_code[pos]
            k = (shape & COUNT_MASK) - 1
            frame_next[depth] = k
            frame_reach[depth] = r
            frame_last[depth] = own
            if kind == CHANCE_KIND:
                base = chance_first[index]
                frame_who[depth] = CHANCE
                r = r * chance_prob[base + k]
            else:
                base = infoset_first[index]
                who = infoset_player[index]
                frame_who[depth] = who
                if who == player:
                    own = base + k
                else:
                    r = r * policy[base + k]
            frame_base[depth] = base
            pos += 1
            continue
        while True:
            if depth < 0:
                return pos
            k = frame_next[depth] - 1
            if k >= 0:
                frame_next[depth] = k
                base = frame_base[depth]
                who = frame_who[depth]
                r = frame_reach[depth]
                own = frame_last[depth]
                if who == CHANCE:
                    r = r * chance_prob[base + k]
                elif who == player:
                    own = base + k
                else:
                    r = r * policy[base + k]
                break
            depth -= 1


@nb.njit(cache=True)
def _reach_tasks(
    lane, lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
    chance_prob, infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
):
    frames = _reach_frames(depth)
    none = task_start[:0]
    for t in range(lane, task_start.shape[0], lanes):
        if task_reach[t] != 0.0:
            _reach_walk(
                task_start[t], task_reach[t], task_last[t], player, none, none, task_reach[:0], task_last[:0],
                node_shape, node_code, chance_first, chance_prob, infoset_player, infoset_first, utility, policy,
                sequence_value[lane], root_value[lane], *frames,
            )


@nb.njit(cache=True, parallel=True)
def _reach_threads(
    lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first, chance_prob,
    infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
):
    for lane in nb.prange(lanes):
        _reach_tasks(
            np.int64(lane), lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code,
            chance_first, chance_prob, infoset_player, infoset_first, utility, policy, sequence_value, root_value,
            depth,
        )


@nb.njit(cache=True)
def _reach_frames(depth):
    return (
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1),
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1, np.int64),
        np.zeros(depth + 1, np.int64),
    )


@nb.njit(cache=True)
def reach_pass(
    player, lanes, task_start, task_stop, node_shape, node_code, chance_first, chance_prob, infoset_player,
    infoset_first, utility, policy, sequence_value, root_value, depth,
):
    """``_reach_walk`` over the whole tree: the top, then the tasks on ``lanes``
    threads, each thread into its row of ``sequence_value`` and ``root_value``."""
    task_reach = np.zeros(task_start.shape[0])
    task_last = np.full(task_start.shape[0], -1, np.int64)
    _reach_walk(
        0, 1.0, -1, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
        chance_prob, infoset_player, infoset_first, utility, policy, sequence_value[0], root_value[0],
        *_reach_frames(depth),
    )
    if lanes > 1:
        _reach_threads(
            lanes, player, task_start, task_stop, task_reach, task_last, node_shape, node_code, chance_first,
            chance_prob, infoset_player, infoset_first, utility, policy, sequence_value, root_value, depth,
        )
    elif task_start.shape[0] > 0:
        # int64 lane and lanes, as the threads pass them: literals would compile it again.
        _reach_tasks(
            np.int64(0), np.int64(1), player, task_start, task_stop, task_reach, task_last, node_shape,
            node_code, chance_first, chance_prob, infoset_player, infoset_first, utility, policy, sequence_value,
            root_value, depth,
        )


@nb.njit(cache=True)
def _sum_rows(rows):
    """Sums the rows of ``rows`` into the first, in order; clears the others."""
    for i in range(rows.shape[1]):
        total = rows[0, i]
        for lane in range(1, rows.shape[0]):
            total += rows[lane, i]
            rows[lane, i] = 0.0
        rows[0, i] = total


def _lanes(task_start: np.ndarray, lanes: int | None = None) -> int:
    """The lanes a pass deals its tasks to: ``lanes`` (default ``LANES``), at most one a task."""
    if lanes is not None and (not isinstance(lanes, (int, np.integer)) or isinstance(lanes, bool) or lanes < 1):
        raise ValueError(f"lanes must be an integer >= 1, got {lanes!r}")
    return max(1, min(LANES if lanes is None else int(lanes), task_start.shape[0]))


@nb.njit(cache=True)
def _match_table(tree_keys, table_keys, order, tree_first, tree_action, table_first, table_action, table_probs,
                 default_uniform, out):
    """``out`` at each information set of the tree: the table's row with the same key
    (``order`` sorts the table's keys), uniform where the table has none and
    ``default_uniform``. Returns -1, or the first information set that cannot be
    matched (times -1, minus 2, when the actions differ)."""
    n = order.shape[0]
    for infoset in range(tree_keys.shape[0]):
        hi, lo = tree_keys[infoset, 0], tree_keys[infoset, 1]
        a, b = 0, n
        while a < b:  # first table key >= (hi, lo)
            m = (a + b) // 2
            row = order[m]
            if table_keys[row, 0] < hi or (table_keys[row, 0] == hi and table_keys[row, 1] < lo):
                a = m + 1
            else:
                b = m
        first, stop = tree_first[infoset], tree_first[infoset + 1]
        if a < n and table_keys[order[a], 0] == hi and table_keys[order[a], 1] == lo:
            row = order[a]
            start = table_first[row]
            if table_first[row + 1] - start != stop - first:
                return -2 - infoset
            for k in range(stop - first):
                if table_action[start + k] != tree_action[first + k]:
                    return -2 - infoset
                out[first + k] = table_probs[start + k]
        elif default_uniform:
            for s in range(first, stop):
                out[s] = 1.0 / (stop - first)
        else:
            return infoset
    return -1


def compact_probs(tree: CompactTree, table: PolicyTable) -> np.ndarray:
    """A ``PolicyTable`` of ``tree``'s game as one probability per sequence of the
    compact tree (information sets matched by key, in bulk; missing ones uniform
    where the table allows it)."""
    if table.key_kind != "tensor":
        raise ValueError("the policy is keyed by information-state strings; the compact tree matches tensor keys")
    if np.array_equal(table.keys, tree.keys) and np.array_equal(table.infoset_first, tree.infoset_first):
        return np.ascontiguousarray(table.probs, np.float64)  # saved from this tree: same order
    keys = np.ascontiguousarray(table.keys)
    order = np.lexsort((keys[:, 1], keys[:, 0]))
    out = np.empty(tree.num_sequences)
    result = _match_table(np.ascontiguousarray(tree.keys), keys, order, tree.infoset_first, tree.sequence_action,
                          table.infoset_first, table.sequence_action, table.probs, table.default_uniform, out)
    if result <= -2:
        raise ValueError(f"the policy's legal actions differ from the game's at information set {-2 - result}")
    if result >= 0:
        raise KeyError(f"the policy holds no entry for information set {result} of the compact tree")
    return out


def seat_profile(tree: CompactTree, seat_probs: list[np.ndarray]) -> np.ndarray:
    """One policy array (a probability per sequence) where seat ``p`` plays
    ``seat_probs[p]``: its information sets taken from that seat's policy, so a
    pass over the tree plays the policies against each other.

    >>> import elements_ai
    >>> from elements_ai.solvers import build_compact, uniform_probs
    >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
    >>> tree = build_compact(game)
    >>> uniform = uniform_probs(tree)
    >>> bool((seat_profile(tree, [uniform, uniform]) == uniform).all())
    True
    """
    if len(seat_probs) != tree.num_players:
        raise ValueError(f"one policy a seat: {tree.num_players} seats, {len(seat_probs)} policies")
    owner = np.repeat(np.asarray(tree.infoset_player, np.int64), np.diff(tree.infoset_first))
    out = np.empty(tree.num_sequences)
    for player, probs in enumerate(seat_probs):
        if np.shape(probs) != (tree.num_sequences,):
            raise ValueError(f"a policy on this tree has {tree.num_sequences} probabilities, got shape "
                             f"{np.shape(probs)}")
        mine = owner == player
        out[mine] = np.asarray(probs)[mine]
    return out


def profile_values(
    tree: CompactTree, probs: np.ndarray, threads: int | None = None, task_nodes: int | None = None,
    lanes: int | None = None,
) -> tuple[float, ...]:
    """Each player's expected return when every seat plays ``probs`` (one probability
    per sequence; ``seat_profile`` puts different policies in different seats): one
    pass over the tree, a third of ``evaluate_compact``'s work.

    >>> import elements_ai
    >>> from elements_ai.solvers import build_compact, uniform_probs
    >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
    >>> tree = build_compact(game)
    >>> values = profile_values(tree, uniform_probs(tree))
    >>> values == evaluate_compact(tree, uniform_probs(tree)).policy_values
    True
    """
    probs = np.ascontiguousarray(probs, np.float64)
    if probs.shape != (tree.num_sequences,):
        raise ValueError(f"a policy on this tree has {tree.num_sequences} probabilities, got shape {probs.shape}")
    task_start, task_stop = tree.plan(task_nodes)
    lanes = _lanes(task_start, lanes)
    with using_threads(threads):
        root_rows = np.zeros((lanes, tree.num_players))
        no_rows = np.zeros((lanes, 0))
        reach_pass(EVERYONE, lanes, task_start, task_stop, tree.node_shape, tree.node_code, tree.chance_first,
                   tree.chance_prob, tree.infoset_player, tree.infoset_first, tree.utility, probs, no_rows,
                   root_rows, tree.depth)
    return tuple(float(v) for v in _column_sums(root_rows))


def evaluate_compact(
    tree: CompactTree,
    probs: np.ndarray,
    threads: int | None = None,
    rows: np.ndarray | None = None,
    task_nodes: int | None = None,
    lanes: int | None = None,
) -> Evaluation:
    """NashConv, exploitability and values of the policy ``probs`` (one probability
    per sequence) on a compact tree, on ``threads`` cores (default every core);
    ``lanes`` as ``CompactCFRSolver``'s, so any ``threads`` gives the same bits.

    ``rows``, a float64 array ``(lanes, num_sequences)`` of zeros, is used as
    scratch if given (a solver lends its regret rows; best response then needs no
    per-sequence array of its own) and left zero.

    >>> import elements_ai
    >>> from elements_ai.solvers import build_compact, build_tree, evaluate_probs, uniform_probs
    >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_6_6", hand_size=1)
    >>> compact, flat = build_compact(game), build_tree(game)
    >>> mine, theirs = evaluate_compact(compact, uniform_probs(compact)), evaluate_probs(flat, uniform_probs(flat))
    >>> abs(mine.nash_conv - theirs.nash_conv) < 1e-12
    True
    """
    probs = np.ascontiguousarray(probs, np.float64)
    if probs.shape != (tree.num_sequences,):
        raise ValueError(f"a policy on this tree has {tree.num_sequences} probabilities, got shape {probs.shape}")
    task_start, task_stop = tree.plan(task_nodes)
    args = (tree.node_shape, tree.node_code, tree.chance_first, tree.chance_prob, tree.infoset_player,
            tree.infoset_first, tree.utility, probs)
    lanes = _lanes(task_start, lanes)
    with using_threads(threads):
        if rows is None or rows.shape[0] < lanes:
            rows = np.zeros((lanes, tree.num_sequences))
        players = tree.num_players
        root_rows = np.zeros((lanes, players))
        reach_pass(EVERYONE, lanes, task_start, task_stop, *args, rows[:lanes], root_rows, tree.depth)
        values = [float(v) for v in _column_sums(root_rows)]
        best = []
        no_choices = np.zeros(0, np.int64)
        for player in range(players):
            root_rows[:] = 0.0
            reach_pass(player, lanes, task_start, task_stop, *args, rows[:lanes], root_rows, tree.depth)
            # The threads' rows summed into the first, which then holds the values of
            # the sequences (no other per-sequence array) and is cleared after.
            _sum_rows(rows[:lanes])
            root = float(_column_sums(root_rows)[0])
            infosets = tree.player_infosets[tree.player_first[player] : tree.player_first[player + 1]]
            best.append(float(best_choices(infosets, tree.infoset_first, tree.infoset_parent, rows[0], root,
                                            no_choices)))
            rows[0, :] = 0.0
    nash_conv = float(sum(b - v for b, v in zip(best, values)))
    return Evaluation(
        nash_conv=nash_conv,
        exploitability=nash_conv / players,
        best_response_values=tuple(best),
        policy_values=tuple(values),
    )


def _column_sums(rows: np.ndarray) -> np.ndarray:
    out = np.zeros(rows.shape[1])
    for lane in range(rows.shape[0]):
        out += rows[lane]
    return out


