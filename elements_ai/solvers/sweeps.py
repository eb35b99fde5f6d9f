"""The numba sweeps over a flattened tree that CFR and best response share, on every core.

Every function takes the tree's arrays (see ``flat.py``), a ``SweepPlan`` of it and
a policy given as one probability per sequence. Nodes are visited in index order
(parents first) to push reach probabilities down and in reverse order to pull
values up; one float64 array per node serves both directions in place.

How the work is shared among threads (``SweepPlan``):

* The tree is cut into *tasks*: ranges of consecutive node indices that each hold
  the descendants of one node or of a few neighbouring ones (the builders number
  depth first, so a node's descendants, from its first child on, are a range). A
  task's nodes have their parents inside the task or outside every task, so tasks
  run independently; the few nodes outside every task (the top of the tree, e.g.
  the deal) are swept by one thread, before the tasks going down and after them
  going up. Threads take the next task as they finish one (``take_next``, an
  atomic counter), so uneven tasks and a thread that the machine holds back even
  out.
* What a node adds to its information set is left in the node's own slots, never
  added to a shared total: at a decision node of the player being updated, once
  its value is known, its children's slots (read by nobody else) are overwritten
  with its regret contributions (CFR) or hold the values of its sequences (best
  response). Each information set then sums its nodes' slots in one fixed order
  (``gather``), from a list of its nodes' first children (``member_child``,
  grouped by ``infoset_members``), information sets in parallel.

No sum depends on which thread did what, so every result is bit for bit the same
on any number of threads, and CFR's are those of one sweep over the whole tree.

On one thread (``SweepPlan.lanes() == 1``) CFR's backward sweep runs over the whole
tree in one loop and adds each regret straight into a per-sequence total, in the
order ``gather`` sums them (so the same bits). That total stays in cache, where
``gather`` reads one scattered slot per decision node: on a tree far larger than
the cache, summing the slots afterwards made a one-thread iteration about 30%
slower. Best response always gathers: on one thread it measured within a few
percent of the single forward sweep it replaced.

The extra memory is that list, 4 bytes a decision node and 8 an information set,
and CFR's per-sequence total, 8 bytes a sequence (best response no longer keeps a
4-byte last sequence per node, so a solve needs no more per node than before).

Trees below ``PARALLEL_NODES`` nodes are one task: waking threads costs more than
sweeping them (on a busy machine a parallel loop's start costs as much as
sweeping tens of thousands of nodes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
from collections.abc import Iterator

import numba as nb
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..core.kernel import CHANCE, TERMINAL

__all__ = ["EVERYONE", "PARALLEL_NODES", "SweepPlan", "check_threads", "plan_sweeps", "using_threads"]

EVERYONE = -2  # as ``player`` of reach_down: count every player's actions
# Smallest tree split among threads, and the number of tasks a large tree is cut
# into (many more than threads, so that uneven tasks even out).
PARALLEL_NODES = 1 << 17
TASKS = 256
# Information sets a thread takes at a time when they are summed and updated.
INFOSET_CHUNK = 512


# --- threads ----------------------------------------------------------------------


def check_threads(threads: int | None) -> int:
    """The threads to use: ``None`` is every core numba has
    (``numba.config.NUMBA_NUM_THREADS``); more than that is capped at it.

    >>> check_threads(1)
    1
    """
    if threads is None:
        return int(nb.config.NUMBA_NUM_THREADS)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads must be an integer or None, got {threads!r}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    return int(min(threads, nb.config.NUMBA_NUM_THREADS))


@contextlib.contextmanager
def using_threads(threads: int | None) -> Iterator[int]:
    """numba's parallel loops on ``threads`` threads inside the block (``check_threads``;
    the previous count is restored after).

    >>> with using_threads(1) as count:
    ...     count, nb.get_num_threads()
    (1, 1)
    """
    count = check_threads(threads)
    before = nb.get_num_threads()
    nb.set_num_threads(count)
    try:
        yield count
    finally:
        nb.set_num_threads(before)


# --- the plan ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, eq=False)
class SweepPlan:
    """How the sweeps split a tree among threads (see the module docstring).

    ``tasks`` and ``top`` are int64 ``(rows, 2)`` arrays of node ranges
    ``[first, stop)``, in increasing order: the tasks, and the nodes outside every
    task. ``infoset_members[i] .. infoset_members[i + 1] - 1`` index
    ``member_child``, the first child of each node of information set ``i`` in
    increasing node order.
    """

    tasks: np.ndarray
    top: np.ndarray
    infoset_members: np.ndarray
    member_child: np.ndarray

    @property
    def num_tasks(self) -> int:
        return int(self.tasks.shape[0])

    def lanes(self) -> int:
        """Threads a sweep uses now: numba's count (``using_threads``), at most one a
        task. The kernels take it as an argument (numba cannot cache a function
        that asks for it)."""
        return min(nb.get_num_threads(), self.num_tasks)

    @property
    def nbytes(self) -> int:
        return self.tasks.nbytes + self.top.nbytes + self.infoset_members.nbytes + self.member_child.nbytes


@nb.njit(cache=True)
def _descendants_stop(node, node_first, node_count):
    """Where the descendants of ``node`` end (they start at its first child): at the
    end of its last child that has children, depth first."""
    while True:
        first = node_first[node]
        last = -1
        for k in range(node_count[node] - 1, -1, -1):
            if node_count[first + k] > 0:
                last = first + k
                break
        if last < 0:
            return np.int64(first + node_count[node])
        node = last


@nb.njit(cache=True)
def _is_subtree(root, first, stop, node_first, node_count):
    """Whether ``first .. stop - 1`` holds exactly the descendants of ``root``: every
    child of the root and of the range's nodes lies in the range, and they number
    as many as the range (each node has one parent)."""
    if node_first[root] != first:
        return False
    children = np.int64(node_count[root])
    for n in range(first, stop):
        count = node_count[n]
        if count > 0:
            if node_first[n] < first or node_first[n] + count > stop:
                return False
            children += count
    return children == stop - first


@nb.njit(cache=True)
def _members(node_player, node_first, node_index, num_infosets):
    counts = np.zeros(num_infosets + 1, np.int64)
    for n in range(node_player.shape[0]):
        if node_player[n] >= 0:
            counts[node_index[n] + 1] += 1
    for i in range(num_infosets):
        counts[i + 1] += counts[i]
    member_child = np.empty(counts[num_infosets], np.int32)
    filled = counts[:-1].copy()
    for n in range(node_player.shape[0]):
        if node_player[n] >= 0:
            infoset = node_index[n]
            member_child[filled[infoset]] = node_first[n]
            filled[infoset] += 1
    return counts, member_child


def plan_sweeps(
    node_player: np.ndarray,
    node_first: np.ndarray,
    node_count: np.ndarray,
    node_index: np.ndarray,
    num_infosets: int,
    task_nodes: int | None = None,
) -> SweepPlan:
    """The ``SweepPlan`` of a tree: subtrees of at most ``task_nodes`` nodes (by
    default ``num_nodes / TASKS``; one task below ``PARALLEL_NODES`` nodes), cut
    by splitting the largest subtree into its children until none is too large.

    Each task is checked to hold exactly a node's descendants; in a tree numbered
    otherwise than depth first, only the subtrees that happen to be ranges become
    tasks (perhaps none), and the rest is swept by one thread, with the same results.
    """
    nodes = node_player.shape[0]
    if task_nodes is None:
        task_nodes = nodes if nodes < PARALLEL_NODES else -(-nodes // TASKS)
    if task_nodes < 1:
        raise ValueError(f"task_nodes must be >= 1, got {task_nodes}")

    def entry(node: int) -> tuple[int, int, int, int]:
        first = int(node_first[node])
        stop = int(_descendants_stop(node, node_first, node_count))
        return (first - stop, first, stop, node)  # the largest first

    heap = [entry(0)] if nodes > 1 and node_count[0] > 0 else []
    subtrees = []
    while heap:
        item = heapq.heappop(heap)
        _, first, stop, root = item
        if stop - first <= task_nodes and _is_subtree(root, first, stop, node_first, node_count):
            subtrees.append((first, stop))
            continue
        # Too large, or not a range of its own (numbered otherwise than depth first):
        # its children's subtrees are tried instead, and the node joins the top.
        for child in range(int(node_first[root]), int(node_first[root]) + int(node_count[root])):
            if node_count[child] > 0:
                heapq.heappush(heap, entry(child))
    # Neighbouring subtrees (siblings, mostly) join up to the size, so that the
    # threads hand out fewer, fuller ranges: a task need not be one subtree, only
    # hold every descendant of its nodes.
    merged: list[list[int]] = []
    for first, stop in sorted(subtrees):
        if merged and merged[-1][1] == first and stop - merged[-1][0] <= task_nodes:
            merged[-1][1] = stop
        else:
            merged.append([first, stop])
    tasks = np.array(merged, np.int64).reshape(-1, 2)
    top, start = [], 0
    for first, stop in tasks:
        if first > start:
            top.append((start, first))
        start = stop
    if nodes > start:
        top.append((start, nodes))
    infoset_members, member_child = _members(node_player, node_first, node_index, num_infosets)
    return SweepPlan(tasks, np.array(top, np.int64).reshape(-1, 2), infoset_members, member_child)


# --- handing out work -------------------------------------------------------------
#
# Each sweep is one loop over the node ranges a thread takes, in one call for each
# thread: a call for every node or range would cost numba's argument passing and
# reference counts on each array every time (15 times slower at every node). The
# ``_threads`` functions start the threads; on one thread the sweeps call the loop
# directly, as a function compiled for parallel loops is slower even when it runs
# none.
#
# Inside, a node's index is unsigned (``np.uint64``): numba then indexes without
# first checking for a negative index, which had made a sweep a quarter slower than
# one loop from 0 over the whole tree (known to be non-negative). A range's bounds
# are read into locals first: the compiler cannot tell that writes to the node
# arrays leave ``ranges`` alone, and would read them again at every node.


@intrinsic
def take_next(typingctx, counter):
    """``counter[0]`` (an int64 array), incremented atomically: the next item of a
    list that threads take from as they go."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [zero])
        return builder.atomic_rmw("add", pointer, context.get_constant(types.int64, 1), "monotonic")

    return types.int64(counter), codegen


@nb.njit(cache=True)
def new_counter():
    """A counter for ``take_next``, at 0."""
    counter = np.empty(1, np.int64)
    counter[0] = 0
    return counter


# --- reach probabilities down ------------------------------------------------------


@nb.njit(cache=True)
def _reach_ranges(
    ranges, taken, player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, policy, reach,
):
    # The ranges in the order taken: in increasing order on one thread.
    while True:
        i = take_next(taken)
        if i >= ranges.shape[0]:
            return
        first_node = ranges[i, 0]
        for d in range(ranges[i, 1] - first_node):
            n = np.uint64(first_node + d)
            who = node_player[n]
            if who == TERMINAL:
                continue
            r = reach[n]
            first = node_first[n]
            count = node_count[n]
            if r == 0.0:
                for k in range(count):
                    reach[first + k] = 0.0
            elif who == CHANCE:
                base = node_index[n]
                for k in range(count):
                    reach[first + k] = r * chance_prob[base + k]
            elif who == player:
                for k in range(count):
                    reach[first + k] = r
            else:
                base = infoset_first[node_index[n]]
                for k in range(count):
                    reach[first + k] = r * policy[base + k]


@nb.njit(cache=True, parallel=True)
def _reach_threads(
    lanes, tasks, player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, policy, reach,
):
    taken = new_counter()
    for _ in nb.prange(lanes):
        _reach_ranges(tasks, taken, player, node_player, node_first, node_count, node_index, chance_prob,
                      infoset_first, policy, reach)


@nb.njit(cache=True)
def reach_down(
    player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, tasks, top, lanes, policy,
    reach,
):
    """Writes ``reach[n]``: the probability that chance and every player but
    ``player`` take the actions leading to ``n`` (``player``'s own count as 1;
    ``EVERYONE``: all players' actions count). The top first, then the tasks on
    ``lanes`` threads (``SweepPlan.lanes``)."""
    reach[0] = 1.0
    _reach_ranges(top, new_counter(), player, node_player, node_first, node_count, node_index, chance_prob,
                  infoset_first, policy, reach)
    if lanes > 1:
        _reach_threads(lanes, tasks, player, node_player, node_first, node_count, node_index, chance_prob,
                       infoset_first, policy, reach)
    else:
        _reach_ranges(tasks, new_counter(), player, node_player, node_first, node_count, node_index, chance_prob,
                      infoset_first, policy, reach)


# --- CFR: values up, regrets left in the children's slots ---------------------------


@nb.njit(cache=True)
def _value_ranges(
    ranges, taken, player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility,
    policy, work,
):
    # Last range first, last node first. A node nobody else reaches (reach 0) adds
    # no regret and its value reaches its parent with weight 0, so it is skipped (its
    # value is left 0); a terminal's too, so that a decision node nobody reaches has
    # 0 in every child's slot for ``gather`` (a select, cheaper than clearing the
    # slots at such nodes).
    while True:
        i = ranges.shape[0] - 1 - take_next(taken)
        if i < 0:
            return
        last_node = ranges[i, 1] - 1
        for d in range(last_node + 1 - ranges[i, 0]):
            n = np.uint64(last_node - d)
            who = node_player[n]
            r = work[n]
            if who == TERMINAL:
                work[n] = utility[node_index[n], player] if r != 0.0 else 0.0
                continue
            if r == 0.0:
                continue
            first = node_first[n]
            count = node_count[n]
            value = 0.0
            if who == CHANCE:
                base = node_index[n]
                for k in range(count):
                    value += chance_prob[base + k] * work[first + k]
            else:
                base = infoset_first[node_index[n]]
                for k in range(count):
                    value += policy[base + k] * work[first + k]
                if who == player:
                    for k in range(count):
                        work[first + k] = r * (work[first + k] - value)
            work[n] = value


@nb.njit(cache=True, parallel=True)
def _value_threads(
    lanes, tasks, player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility, policy,
    work,
):
    taken = new_counter()
    for _ in nb.prange(lanes):
        _value_ranges(tasks, taken, player, node_player, node_first, node_count, node_index, chance_prob,
                      infoset_first, utility, policy, work)


@nb.njit(cache=True)
def _regrets_one_thread(
    player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility, policy, work, instant,
):
    # One thread: ``_value_ranges`` over the whole tree in one loop, adding each
    # regret into ``instant`` (per sequence) instead of leaving it in the children's
    # slots: a per-sequence total that stays in cache is ~30% faster than summing the
    # children's slots afterwards (``gather``: one scattered read per decision node).
    # Last node first, the order ``gather`` sums in, so the same bits: a sum from
    # +0.0 never becomes -0.0, so neither the +0.0 ``gather`` adds for a node nobody
    # reaches (skipped here) nor a terminal nobody reaches (its return times 0 here,
    # 0 there) changes a bit. A plain signed loop: it measured faster here than the
    # unsigned range loop.
    for n in range(node_player.shape[0] - 1, -1, -1):
        who = node_player[n]
        if who == TERMINAL:
            work[n] = utility[node_index[n], player]
            continue
        r = work[n]
        if r == 0.0:
            continue
        first = node_first[n]
        count = node_count[n]
        value = 0.0
        if who == CHANCE:
            base = node_index[n]
            for k in range(count):
                value += chance_prob[base + k] * work[first + k]
        else:
            base = infoset_first[node_index[n]]
            for k in range(count):
                value += policy[base + k] * work[first + k]
            if who == player:
                for k in range(count):
                    instant[base + k] += r * (work[first + k] - value)
        work[n] = value


@nb.njit(cache=True)
def regrets_up(
    player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility, tasks, top, lanes,
    policy, work, instant,
):
    """CFR's backward sweep for ``player``: ``work`` holds the counterfactual reach
    written by ``reach_down`` and is overwritten with ``player``'s values. On
    several threads (``lanes`` > 1: the tasks, then the top), each decision node of
    ``player`` overwrites its children's slots with ``reach * (child value -
    value)``, the node's instantaneous regret of each sequence (``gather`` sums
    them). On one, the whole tree is swept in one loop, last node first, and those
    regrets are added straight into ``instant`` (per sequence, zero before): the
    order ``gather`` sums in, so the same bits. Returns the root value."""
    if lanes > 1:
        _value_threads(lanes, tasks, player, node_player, node_first, node_count, node_index, chance_prob,
                       infoset_first, utility, policy, work)
        _value_ranges(top, new_counter(), player, node_player, node_first, node_count, node_index, chance_prob,
                      infoset_first, utility, policy, work)
    else:
        _regrets_one_thread(player, node_player, node_first, node_count, node_index, chance_prob, infoset_first,
                            utility, policy, work, instant)
    return work[0]


@nb.njit(cache=True)
def gather(first_j, stop_j, player_infosets, infoset_first, infoset_members, member_child, work, out):
    """For each information set ``player_infosets[first_j:stop_j]``, writes into
    ``out`` at each of its sequences the sum over its nodes of the matching child's
    slot (what ``regrets_up`` and ``best_response`` leave there).

    Last node first: the order in which one backward sweep over the whole tree would
    add them, so the sums are those of a single-thread sweep to the last bit.
    """
    for j in range(first_j, stop_j):
        infoset = player_infosets[j]
        base = infoset_first[infoset]
        last = infoset_members[infoset + 1] - 1
        for k in range(infoset_first[infoset + 1] - base):
            total = 0.0
            for d in range(last + 1 - infoset_members[infoset]):
                total += work[np.uint64(member_child[np.uint64(last - d)] + k)]
            out[base + k] = total


@nb.njit(cache=True)
def chunk(taken, first, stop):
    """The next ``INFOSET_CHUNK`` items of ``first .. stop`` to take (empty at the end)."""
    start = first + take_next(taken) * INFOSET_CHUNK
    return min(start, stop), min(start + INFOSET_CHUNK, stop)


# --- on-policy values ----------------------------------------------------------------


@nb.njit(cache=True)
def _terminal_sums(ranges, taken, node_player, node_index, utility, reach, out):
    """Adds to ``out[i]`` the reach-weighted returns of the terminals of range ``i``."""
    while True:
        i = take_next(taken)
        if i >= ranges.shape[0]:
            return
        first_node = ranges[i, 0]
        for d in range(ranges[i, 1] - first_node):
            n = np.uint64(first_node + d)
            if node_player[n] == TERMINAL:
                r = reach[n]
                if r != 0.0:
                    for p in range(utility.shape[1]):
                        out[i, p] += r * utility[node_index[n], p]


@nb.njit(cache=True, parallel=True)
def _terminal_threads(lanes, tasks, node_player, node_index, utility, reach, out):
    taken = new_counter()
    for _ in nb.prange(lanes):
        _terminal_sums(tasks, taken, node_player, node_index, utility, reach, out)


@nb.njit(cache=True)
def on_policy_values(
    node_player, node_first, node_count, node_index, chance_prob, infoset_first, utility, tasks, top, lanes, policy,
    reach,
):
    """Every player's expected return when all play ``policy`` (``reach`` is scratch):
    each range's terminals summed apart, then the ranges in order."""
    # An int64, as callers from Python pass a player: a literal would compile reach_down again.
    reach_down(
        np.int64(EVERYONE), node_player, node_first, node_count, node_index, chance_prob, infoset_first, tasks, top,
        lanes, policy, reach,
    )
    players = utility.shape[1]
    top_values = np.zeros((top.shape[0], players))
    task_values = np.zeros((tasks.shape[0], players))
    values = np.zeros(players)
    _terminal_sums(top, new_counter(), node_player, node_index, utility, reach, top_values)
    if lanes > 1:
        _terminal_threads(lanes, tasks, node_player, node_index, utility, reach, task_values)
    else:
        _terminal_sums(tasks, new_counter(), node_player, node_index, utility, reach, task_values)
    for p in range(players):
        for i in range(top.shape[0]):
            values[p] += top_values[i, p]
        for t in range(tasks.shape[0]):
            values[p] += task_values[t, p]
    return values


# --- best response --------------------------------------------------------------------


@nb.njit(cache=True)
def _best_ranges(ranges, taken, player, node_player, node_first, node_count, node_index, utility, work):
    # Below each node: the returns of its terminals weighted by the probability that
    # chance and the others reach them, up to (not past) ``player``'s next decision.
    # At ``player``'s decision nodes the children's slots keep those sums (what each
    # sequence gets there) and the node passes 0 up.
    while True:
        i = ranges.shape[0] - 1 - take_next(taken)
        if i < 0:
            return
        last_node = ranges[i, 1] - 1
        for d in range(last_node + 1 - ranges[i, 0]):
            n = np.uint64(last_node - d)
            who = node_player[n]
            if who == TERMINAL:
                work[n] = work[n] * utility[node_index[n], player]
            elif who == player:
                work[n] = 0.0
            elif work[n] != 0.0:
                first = node_first[n]
                total = 0.0
                for k in range(node_count[n]):
                    total += work[first + k]
                work[n] = total


@nb.njit(cache=True)
def _sequence_values(taken, player_infosets, infoset_first, infoset_members, member_child, work, sequence_value):
    while True:
        first_j, stop_j = chunk(taken, 0, player_infosets.shape[0])
        if first_j == stop_j:
            return
        gather(first_j, stop_j, player_infosets, infoset_first, infoset_members, member_child, work, sequence_value)


@nb.njit(cache=True, parallel=True)
def _best_threads(lanes, tasks, player, node_player, node_first, node_count, node_index, utility, work):
    taken = new_counter()
    for _ in nb.prange(lanes):
        _best_ranges(tasks, taken, player, node_player, node_first, node_count, node_index, utility, work)


@nb.njit(cache=True, parallel=True)
def _sequence_threads(lanes, player_infosets, infoset_first, infoset_members, member_child, work, sequence_value):
    taken = new_counter()
    for _ in nb.prange(lanes):
        _sequence_values(taken, player_infosets, infoset_first, infoset_members, member_child, work, sequence_value)


@nb.njit(cache=True)
def best_response(
    player,
    node_player,
    node_first,
    node_count,
    node_index,
    chance_prob,
    infoset_first,
    infoset_parent,
    player_infosets,
    utility,
    tasks,
    top,
    lanes,
    infoset_members,
    member_child,
    policy,
    work,
    sequence_value,
    best,
):
    """The value of ``player``'s best response to the others playing ``policy``.

    Sequence form: each terminal's return, weighted by the probability that chance
    and the others reach it, goes to the last sequence ``player`` played on the way
    (summed up the tree into the children's slots of ``player``'s decision nodes,
    then gathered per information set); then ``player``'s information sets, deepest
    first (reverse order: perfect recall puts them after the ones above), choose
    their best sequence and pass its value to their parent sequence. Writes the
    chosen sequence of each of ``player``'s information sets into ``best``;
    ``work`` (per node) and ``sequence_value`` are scratch.
    """
    reach_down(
        player, node_player, node_first, node_count, node_index, chance_prob, infoset_first, tasks, top, lanes,
        policy, work,
    )
    if lanes > 1:
        _best_threads(lanes, tasks, player, node_player, node_first, node_count, node_index, utility, work)
    else:
        _best_ranges(tasks, new_counter(), player, node_player, node_first, node_count, node_index, utility, work)
    _best_ranges(top, new_counter(), player, node_player, node_first, node_count, node_index, utility, work)
    root = work[0]
    if lanes > 1:
        _sequence_threads(lanes, player_infosets, infoset_first, infoset_members, member_child, work, sequence_value)
    else:
        _sequence_values(new_counter(), player_infosets, infoset_first, infoset_members, member_child, work,
                         sequence_value)
    return best_choices(player_infosets, infoset_first, infoset_parent, sequence_value, root, best)


@nb.njit(cache=True)
def best_choices(player_infosets, infoset_first, infoset_parent, sequence_value, root, best):
    """Best response's last step: ``player``'s information sets, deepest first,
    choose their best sequence (written into ``best`` unless it is empty) and pass
    its value to their parent sequence; returns the root's value plus ``root``."""
    for j in range(player_infosets.shape[0] - 1, -1, -1):
        infoset = player_infosets[j]
        choice = infoset_first[infoset]
        value = sequence_value[choice]
        for s in range(choice + 1, infoset_first[infoset + 1]):
            if sequence_value[s] > value:
                value = sequence_value[s]
                choice = s
        if best.shape[0] > 0:
            best[infoset] = choice
        parent = infoset_parent[infoset]
        if parent < 0:
            root += value
        else:
            sequence_value[parent] += value
    return root


@nb.njit(cache=True, inline="always")
def iteration_factors(t, discount, alpha, beta, gamma):
    """Iteration ``t``'s weight of the average policy (``t**gamma``) and the factors of
    positive and negative regrets (DCFR's discounts; 1 without ``discount``)."""
    positive_factor = 1.0
    negative_factor = 1.0
    if discount:
        positive_factor = t**alpha / (t**alpha + 1.0)
        negative_factor = t**beta / (t**beta + 1.0)
    return t**gamma, positive_factor, negative_factor


@nb.njit(cache=True, inline="always")
def add_to_average(cumulative, policy, first, stop, own_reach, average_weight):
    """Adds an information set's policy of this pass (sequences ``first .. stop``),
    weighted by the player's own reach of it and the iteration's weight, to the average."""
    if own_reach != 0.0:
        weight = average_weight * own_reach
        for s in range(first, stop):
            cumulative[s] += weight * policy[s]


@nb.njit(cache=True, inline="always")
def updated_regret(regret, total, positive_factor, negative_factor, regret_floor):
    """A sequence's cumulative regret after this iteration's ``total``: discounted
    (DCFR's factors; 1 for the others) and, for CFR+ (``regret_floor``), kept at 0 or above."""
    r = regret + total
    if r >= 0.0:
        r *= positive_factor
    else:
        r *= negative_factor
    if regret_floor and r < 0.0:
        r = 0.0
    return r


@nb.njit(cache=True)
def regret_matching(regret, prediction, first, stop, policy):
    """``policy[first:stop]`` proportional to the positive part of ``regret``
    (+ ``prediction`` when it is not empty); uniform when none is positive."""
    total = 0.0
    predictive = prediction.shape[0] > 0
    for s in range(first, stop):
        q = regret[s] + prediction[s] if predictive else regret[s]
        if q > 0.0:
            total += q
    if total > 0.0:
        for s in range(first, stop):
            q = regret[s] + prediction[s] if predictive else regret[s]
            policy[s] = q / total if q > 0.0 else 0.0
    else:
        uniform = 1.0 / (stop - first)
        for s in range(first, stop):
            policy[s] = uniform
