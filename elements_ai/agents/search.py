"""Generic tree search in numba: MCTS (UCT or PUCT) and single-observer IS-MCTS.

One search engine serves every game: ``run`` is a ``@generic`` numba function
(``elements_ai.core.generic``) compiled for each game's rules and hooks.

The tree is a set of flat arrays. A node is reached by a sequence of actions from
the root (chance outcomes included, keyed apart from player actions), so the same
tree serves three kinds of search:

* **MCTS** on the true state of a perfect-information game (``mode=FIXED``):
  every iteration starts from the same state.
* **Determinized MCTS** on an imperfect-information game: the kernel's
  ``resample`` draws a full state consistent with the searching player's
  information, once per search (``mode=FIXED`` on that determinization; several
  searches can be pooled, see ``TreeSearch``) or once per iteration
  (``mode=RESAMPLE``).
* **SO-IS-MCTS** (Cowling, Powley & Whitehouse 2012, "Information Set Monte Carlo
  Tree Search", single observer): a new determinization every iteration
  (``mode=RESAMPLE``), selection among the children that are legal in that
  determinization, and UCB with *availability* counts (``availability=True``):
  ``n'`` counts the visits of the parent in which the child was legal.

Each node stores the sum of the full returns vector of the simulations through
it, so the player who acts at a node chooses by their own component: the search
works for any number of players and for general-sum games (max^n backup).
Values are scaled to [0, 1] with the game's utility range before UCB sees them.

Hooks make the search PUCT-ready. ``prior(cfg, state, mask, out)`` writes a
distribution over actions (``mask`` is the legal mask); ``leaf_value(cfg, state,
rng, rollouts, mask, probs, out)`` writes an estimate of the returns vector of a
new leaf (it may overwrite ``state``; ``mask``/``probs`` are scratch buffers).
Both are jitted functions (or ``@generic`` ones, compiled for the game) bound to the
placeholder ``hooks``. Defaults: a uniform prior and ``rollouts`` uniformly random
playouts.

Without a hook, two settings make the default leaf value less blind where random
play is (in ``elementos`` most random games reach the move cap): ``rollout="rules"``
plays the game's ``rules.heuristic`` for every player in the playouts instead of
random moves, and ``depth=D`` cuts every playout after ``D`` decisions and scores
the position reached as a draw, the middle of the utility range for every player
(as ``elementos`` scores a game that reaches its move cap): a leaf's value is then
the mean outcome of short playouts, only games decided within ``D`` moves counting.

>>> import elements_ai
>>> game = elements_ai.load_game("elements", single_round=True, hand_size=3)
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(state.chance_outcomes()[0][0])
>>> search = TreeSearch(game, ismcts=True)
>>> counts, values = search.search(state.array, state.current_player(), sims=200, seed=0)
>>> int(counts.sum())
200
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.arrays import copy, fill
from ..core.generic import GenericFunction, functions, generic, hooks, rules
from ..core.kernel import CHANCE, TERMINAL
from ..core.playouts import play_out
from ..core.rng import sample_index, seeds_from, uniform

# Integer columns of a node (``ti`` array, int32).
T_FIRST, T_SIBLING, T_KEY, T_VISITS, T_AVAIL, T_NLEGAL, T_NCHILD = range(7)
T_COLUMNS = 7
# ``tf`` (float64) holds the returns sums for players 0..P-1, then the prior at column P.

FIXED = 0  # every iteration starts from the same (true or determinized) state
RESAMPLE = 1  # every iteration starts from a new determinization of the root

UCT = 0
PUCT = 1
SELECTIONS = {"uct": UCT, "puct": PUCT}

NO_LIMIT = 1 << 62


@nb.njit(cache=True)
def uniform_prior(cfg, state, mask, out):
    """The default prior: uniform over the legal actions."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    for a in range(mask.shape[0]):
        out[a] = 1.0 / count if mask[a] else 0.0


@nb.njit(cache=True, inline="always")
def _add_child(ti, tf, meta, parent, key, prior):
    """Appends a child of ``parent`` reached by ``key``; -1 when the tree is full."""
    # One exit and no views: inlined into the search loop, numba then counts no
    # references to the tree arrays (atomic operations, once per child visited).
    n = meta[0]
    child = -1
    if n < ti.shape[0]:
        meta[0] = n + 1
        ti[n, T_FIRST] = -1
        ti[n, T_SIBLING] = ti[parent, T_FIRST]
        ti[n, T_KEY] = key
        ti[n, T_VISITS] = 0
        ti[n, T_AVAIL] = 0
        ti[n, T_NLEGAL] = -1
        ti[n, T_NCHILD] = 0
        for k in range(tf.shape[1] - 1):
            tf[n, k] = 0.0
        tf[n, tf.shape[1] - 1] = prior
        ti[parent, T_FIRST] = n
        ti[parent, T_NCHILD] += 1
        child = n
    return child


@nb.njit(cache=True)
def reset_tree(ti, tf, meta):
    """Leaves only the root (node 0) in the tree."""
    meta[0] = 1
    fill(ti[0], 0)
    ti[0, T_FIRST] = -1
    ti[0, T_SIBLING] = -1
    ti[0, T_KEY] = -1
    ti[0, T_NLEGAL] = -1
    fill(tf[0], 0.0)


@nb.njit(cache=True)
def root_stats(ti, tf, player, counts, values):
    """Adds the root's children's visits and ``player``'s returns sums by action."""
    child = ti[0, T_FIRST]
    while child >= 0:
        key = ti[child, T_KEY]
        if key < counts.shape[0]:
            counts[key] += ti[child, T_VISITS]
            values[key] += tf[child, player]
        child = ti[child, T_SIBLING]


@generic
def random_rollout(cfg, state, rng, rollouts, mask, probs, out):
    """The default leaf value: the mean returns of ``rollouts`` random playouts."""
    # The stream as an int64, as _random_playouts passes it: a literal 0 (or an unsigned
    # loop index) would compile play_out once more for its own type.
    stream = np.int64(0)
    if rollouts <= 1:
        play_out(cfg, state, mask, probs, rng, stream, out)
        return
    start = state.copy()
    total = np.zeros(out.shape[0])
    for r in range(rollouts):
        if r > 0:
            copy(state, start)
        play_out(cfg, state, mask, probs, rng, stream, out)
        total += out
    for p in range(out.shape[0]):
        out[p] = total[p] / rollouts


RANDOM_ROLLOUT = 0
RULES_ROLLOUT = 1
ROLLOUTS = {"random": RANDOM_ROLLOUT, "rules": RULES_ROLLOUT}


@generic
def policy_playout(cfg, state, mask, probs, rng, policy, depth, out):
    """Plays ``policy`` (RANDOM_ROLLOUT or RULES_ROLLOUT, for every player) from
    ``state`` for at most ``depth`` decisions (0: to the end); writes the returns,
    and returns False (``out`` untouched) when the cut came first."""
    steps = 0
    player = rules.current_player(cfg, state)
    while player != TERMINAL:
        if player == CHANCE:
            action = rules.sample_outcome(cfg, state, probs, uniform(rng, 0))
        else:
            if depth > 0 and steps >= depth:
                return False
            if policy == RULES_ROLLOUT:
                # int64, as the vector env's players pass it: a state's own dtype
                # (int16 in most games) would compile the heuristic a second time.
                action = rules.heuristic(cfg, state, np.int64(player), rng)
            else:
                action = rules.sample_action(cfg, state, mask, uniform(rng, 0))
            steps += 1
        rules.apply(cfg, state, action)
        player = rules.current_player(cfg, state)
    rules.returns(cfg, state, out)
    return True


@generic
def leaf_estimate(cfg, state, rng, settings, mask, probs, out):
    """The leaf value from the playouts chosen by ``settings.policy`` and
    ``settings.depth`` (see the module docstring). ``run`` calls the ``leaf_value``
    hook itself for plain random playouts to the end."""
    middle = settings.lo + 0.5 / settings.scale
    start = state.copy()
    total = np.zeros(out.shape[0])
    for r in range(settings.rollouts):
        if r > 0:
            copy(state, start)
        if not policy_playout(cfg, state, mask, probs, rng, settings.policy, settings.depth, out):
            for p in range(out.shape[0]):
                out[p] = middle
        total += out
    for p in range(out.shape[0]):
        out[p] = total[p] / settings.rollouts


class Settings(NamedTuple):
    """What a search does, for ``run``."""

    mode: int  # FIXED or RESAMPLE
    availability: bool  # UCB over availability counts (IS-MCTS)
    selection: int  # UCT or PUCT
    c: float  # exploration constant
    rollouts: int  # passed to the leaf value
    lo: float  # the game's minimum utility ...
    scale: float  # ... and 1 / its range: values are scaled to [0, 1]
    policy: int  # RANDOM_ROLLOUT or RULES_ROLLOUT, in the default leaf value's playouts
    depth: int  # decisions after which they stop (0: at the end of the game)


class Tree(NamedTuple):
    """The tree's arrays: ``ti`` int32 (nodes, T_COLUMNS), ``tf`` float64 (nodes,
    players + 1: returns sums, then the prior), ``meta[0]`` the nodes in use."""

    ti: np.ndarray
    tf: np.ndarray
    meta: np.ndarray


class Scratch(NamedTuple):
    """Buffers ``run`` writes as it goes."""

    path: np.ndarray  # int64, the nodes of the current iteration
    work: np.ndarray  # the state being played
    mask: np.ndarray  # bool (num_actions,)
    probs: np.ndarray  # float64 (max_chance_outcomes,)
    prior: np.ndarray  # float64 (num_actions,)
    seen: np.ndarray  # bool (num_actions,): children present at the node
    ret: np.ndarray  # float64 (num_players,)


@nb.njit(cache=True, inline="always")
def _explore(selection, c, parent_n):
    """The exploration factor shared by the children of a parent visited ``parent_n`` times."""
    if selection == UCT:
        return c * math.sqrt(math.log(max(parent_n, 1)))
    return c * math.sqrt(max(parent_n, 1))


@nb.njit(cache=True, inline="always")
def _score(n, total, prior, parent_n, parent_total, selection, lo, scale, explore):
    """UCB1 (or PUCT) of a child visited ``n`` times with returns sum ``total`` for the
    player choosing; values scaled to [0, 1]. Scalars only, and one exit, so that
    numba counts no references in the loop over the children."""
    if selection == UCT:
        score = np.inf
        if n > 0:
            score = (total / n - lo) * scale + explore / math.sqrt(n)
    else:
        if n > 0:
            q = (total / n - lo) * scale
        elif parent_n > 0:  # first-play urgency: the parent's mean value
            q = (parent_total / parent_n - lo) * scale
        else:
            q = 0.5
        score = q + explore * prior / (1 + n)
    return score


# nogil: a search in a worker thread (the web page's bots) lets the other threads run.
@generic(nogil=True)
def run(cfg, root, player, settings, tree, scratch, rng, max_iters, reserve):
    """Runs at most ``max_iters`` iterations from ``root``; returns how many ran.

    ``settings.mode`` FIXED starts every iteration from ``root`` itself; RESAMPLE
    from ``rules.resample(cfg, root, player, rng, work)``, and then reads nothing of
    ``root`` but through ``resample``. Stops early when fewer than ``reserve`` free
    nodes are left (the caller grows the tree and calls again).
    """
    mode, availability, selection, c, rollouts, lo, scale, policy, depth_limit = settings
    ti, tf, meta = tree
    path, work, mask, probs, prior_buf, seen, ret = scratch
    num_actions = mask.shape[0]
    num_players = ret.shape[0]
    prior_col = tf.shape[1] - 1
    done = 0
    while done < max_iters and meta[0] + reserve <= ti.shape[0]:
        if mode == RESAMPLE:
            rules.resample(cfg, root, player, rng, work)
        else:
            copy(work, root)
        node = 0
        depth = 0
        path[0] = 0
        leaf = False  # stopped at a leaf to evaluate (else at the end of the game)
        while True:
            to_move = rules.current_player(cfg, work)
            if to_move == TERMINAL:
                rules.returns(cfg, work, ret)
                break
            if to_move == CHANCE:
                # The probabilities, not just a draw: a new child keeps its own.
                rules.chance_outcomes(cfg, work, probs)
                outcome = sample_index(probs, probs.shape[0], uniform(rng, 0))
                key = num_actions + outcome
                child = ti[node, T_FIRST]
                while child >= 0 and ti[child, T_KEY] != key:
                    child = ti[child, T_SIBLING]
                if child < 0:
                    child = _add_child(ti, tf, meta, node, key, probs[outcome])
                    if child < 0:  # tree full: evaluate here
                        leaf = True
                        break
                action = outcome
            else:
                # A decision node: select a child, expanding one when needed. Written
                # out here, not as a function: a call taking the tree and scratch
                # records cost single-round elements 45% of its simulations.
                fast = mode == FIXED and ti[node, T_NLEGAL] >= 0 and ti[node, T_NCHILD] == ti[node, T_NLEGAL]
                chosen = -1
                if not fast:
                    rules.legal_mask(cfg, work, mask)
                    legal = 0
                    for a in range(num_actions):
                        legal += mask[a]
                    ti[node, T_NLEGAL] = legal
                    present = 0
                    child = ti[node, T_FIRST]
                    while child >= 0:
                        key = ti[child, T_KEY]
                        if key < num_actions and mask[key]:
                            seen[key] = True
                            present += 1
                        child = ti[child, T_SIBLING]
                    untried = legal - present
                    if untried > 0:
                        if selection == UCT:
                            # Expand one untried action, chosen uniformly.
                            k = int(uniform(rng, 0) * untried)
                            for a in range(num_actions):
                                if mask[a] and not seen[a]:
                                    if k == 0:
                                        chosen = _add_child(ti, tf, meta, node, a, 1.0 / legal)
                                        break
                                    k -= 1
                        else:
                            hooks.prior(cfg, work, mask, prior_buf)
                            for a in range(num_actions):
                                if mask[a] and not seen[a]:
                                    _add_child(ti, tf, meta, node, a, prior_buf[a])
                    # Clear the marks, count availability, and select.
                    explore = _explore(selection, c, ti[node, T_VISITS])
                    best = -np.inf
                    best_child = -1
                    child = ti[node, T_FIRST]
                    while child >= 0:
                        key = ti[child, T_KEY]
                        if key < num_actions and mask[key]:
                            seen[key] = False
                            ti[child, T_AVAIL] += 1
                            if chosen < 0:
                                if availability:
                                    explore = _explore(selection, c, ti[child, T_AVAIL])
                                score = _score(
                                    ti[child, T_VISITS], tf[child, to_move], tf[child, prior_col],
                                    ti[node, T_VISITS], tf[node, to_move], selection, lo, scale, explore,
                                )
                                if score > best:
                                    best = score
                                    best_child = child
                        child = ti[child, T_SIBLING]
                    if chosen < 0:
                        chosen = best_child
                else:
                    explore = _explore(selection, c, ti[node, T_VISITS])
                    best = -np.inf
                    child = ti[node, T_FIRST]
                    while child >= 0:
                        score = _score(
                            ti[child, T_VISITS], tf[child, to_move], tf[child, prior_col],
                            ti[node, T_VISITS], tf[node, to_move], selection, lo, scale, explore,
                        )
                        if score > best:
                            best = score
                            chosen = child
                        child = ti[child, T_SIBLING]
                child = chosen
                if child < 0:  # tree full and nothing to choose: evaluate here
                    leaf = True
                    break
                action = ti[child, T_KEY]
            # One call of apply for both kinds of node: the kernel's apply is inlined,
            # and each copy costs compile time.
            rules.apply(cfg, work, action)
            depth += 1
            path[depth] = child
            node = child
            if ti[child, T_VISITS] == 0:
                leaf = True
                break
        if leaf:
            # One call site: the plain random playout is called directly (it is the
            # hot path), the other leaf values through leaf_estimate.
            if policy == RANDOM_ROLLOUT and depth_limit == 0:
                hooks.leaf_value(cfg, work, rng, rollouts, mask, probs, ret)
            else:
                leaf_estimate(cfg, work, rng, settings, mask, probs, ret)
        for d in range(depth + 1):
            nd = path[d]
            ti[nd, T_VISITS] += 1
            for p in range(num_players):
                tf[nd, p] += ret[p]
        done += 1
    return done


def search_hooks(kernel, prior=None, leaf_value=None):
    """The module bound to ``hooks`` in ``run``: the given hooks or the defaults.

    A ``@generic`` hook is compiled for ``kernel``.
    """

    def compiled(fn):
        return fn[kernel] if isinstance(fn, GenericFunction) else fn

    return functions(
        prior=compiled(prior if prior is not None else uniform_prior),
        leaf_value=compiled(leaf_value if leaf_value is not None else random_rollout),
    )


class TreeSearch:
    """A reusable search for one game: buffers, tree growth, limits and pooling.

    ``ismcts=True`` is SO-IS-MCTS (a determinization per iteration, availability
    counts). Otherwise it is MCTS: on the true state when the game instance has
    perfect information, else on determinizations drawn with the kernel's
    ``resample``: ``worlds`` of them per search (each searched with its share of
    the simulations, root visits pooled), or a new one per iteration when
    ``worlds=0``.

    ``search`` returns the root's visits and the searching player's returns sums,
    both indexed by action.
    """

    def __init__(
        self,
        game,
        *,
        ismcts: bool = False,
        c: float = 1.4,
        rollouts: int = 1,
        worlds: int = 1,
        selection: str = "uct",
        max_nodes: int = 2_000_000,
        prior=None,
        leaf_value=None,
        rollout: str = "random",
        depth: int = 0,
    ):
        self.game = game
        self.kernel = kernel = game.kernel
        self.config = config = game.config
        self.cfg = config.cfg
        self.ismcts = bool(ismcts)
        self.c = float(c)
        self.rollouts = int(rollouts)
        self.worlds = int(worlds)
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
        self.selection = SELECTIONS[selection]
        self.max_nodes = int(max_nodes)
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if rollout == "rules" and kernel.heuristic is None:
            raise ValueError(f"{kernel.short_name}: rollout='rules' needs the game's heuristic, and it has none")
        if int(depth) < 0:
            raise ValueError(f"depth must be >= 0 (0: playouts to the end), got {depth}")
        if leaf_value is not None and (rollout != "random" or int(depth) != 0):
            raise ValueError("rollout and depth set the default leaf value; a leaf_value hook replaces it")
        self.rollout = rollout
        self.depth = int(depth)
        self.needs_resample = self.ismcts or not config.perfect_information
        if self.needs_resample and kernel.resample is None and not config.perfect_information:
            raise ValueError(
                f"{kernel.short_name}: this game has hidden information and its kernel has no "
                "resample function, which determinized and information-set search need"
            )
        self._run = run.specialize(kernel, hooks=search_hooks(kernel, prior, leaf_value))
        span = config.max_utility - config.min_utility
        self._lo = float(config.min_utility)
        self._scale = 1.0 / span if span > 0 else 1.0
        players = config.num_players
        actions = config.num_actions
        self._reserve = 1 if self.selection == UCT else actions + 1
        empty = Tree(np.zeros((0, T_COLUMNS), np.int32), np.zeros((0, players + 1), np.float64), np.zeros(1, np.int64))
        self._tree = empty
        self._scratch = Scratch(
            path=np.zeros(config.max_game_length + config.max_chance_nodes + 2, np.int64),
            work=np.zeros(config.state_size, kernel.state_dtype),
            mask=np.zeros(actions, np.bool_),
            probs=np.zeros(max(config.max_chance_outcomes, 1), np.float64),
            prior=np.zeros(actions, np.float64),
            seen=np.zeros(actions, np.bool_),
            ret=np.zeros(players, np.float64),
        )
        self._det = np.zeros(config.state_size, kernel.state_dtype)
        self.last_iterations = 0
        self.last_nodes = 0

    def _ensure_capacity(self, nodes: int) -> None:
        nodes = min(max(nodes, 16), self.max_nodes)
        tree = self._tree
        if tree.ti.shape[0] >= nodes:
            return
        used = int(tree.meta[0]) if tree.ti.shape[0] else 0
        ti = np.zeros((nodes, T_COLUMNS), np.int32)
        tf = np.zeros((nodes, tree.tf.shape[1]), np.float64)
        ti[:used] = tree.ti[:used]
        tf[:used] = tree.tf[:used]
        self._tree = Tree(ti, tf, tree.meta)

    def search(
        self,
        state: np.ndarray,
        player: int,
        sims: int = 1000,
        seconds: float = 0.0,
        seed: int | None = None,
        rng: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Searches from the kernel array ``state`` for ``player`` (the player to move).

        Stops after ``sims`` iterations or ``seconds`` of wall time (when > 0),
        whichever comes first. Randomness comes from ``rng`` (a uint64 stream
        array, advanced in place) or a fresh stream from ``seed``.
        """
        if rng is None:
            rng = seeds_from(0 if seed is None else seed, 1)
        sims = int(sims)
        deadline = time.perf_counter() + seconds if seconds and seconds > 0 else None
        counts = np.zeros(self.config.num_actions, np.int64)
        values = np.zeros(self.config.num_actions, np.float64)
        self.last_iterations = 0
        if self.ismcts:
            self._search_tree(state, player, RESAMPLE, True, sims, deadline, rng, counts, values)
        elif not self.needs_resample:
            self._search_tree(state, player, FIXED, False, sims, deadline, rng, counts, values)
        elif self.worlds == 0:
            self._search_tree(state, player, RESAMPLE, False, sims, deadline, rng, counts, values)
        else:
            start = time.perf_counter()
            for w in range(self.worlds):
                share = sims // self.worlds + (w < sims % self.worlds)
                if share == 0 and deadline is None:
                    break
                world_deadline = None
                if deadline is not None:
                    world_deadline = start + (deadline - start) * (w + 1) / self.worlds
                self.kernel.resample(self.cfg, state, player, rng, self._det)
                self._search_tree(self._det, player, FIXED, False, share, world_deadline, rng, counts, values)
        return counts, values

    def _search_tree(self, root, player, mode, availability, sims, deadline, rng, counts, values) -> None:
        settings = Settings(
            mode, availability, self.selection, self.c, self.rollouts, self._lo, self._scale,
            ROLLOUTS[self.rollout], self.depth,
        )
        self._ensure_capacity(min(sims, 1 << 12) + self._reserve + 1)
        reset_tree(self._tree.ti, self._tree.tf, self._tree.meta)
        done = 0
        chunk = sims if deadline is None else 16
        while done < sims:
            want = min(chunk, sims - done)
            reserve = self._reserve if self._tree.ti.shape[0] < self.max_nodes else 0
            tick = time.perf_counter()
            ran = self._run(self.cfg, root, player, settings, self._tree, self._scratch, rng, want, reserve)
            done += ran
            if ran < want and reserve:
                self._ensure_capacity(2 * self._tree.ti.shape[0])
            if deadline is not None:
                now = time.perf_counter()
                if now >= deadline:
                    break
                if now - tick < 0.005:
                    chunk *= 2
        self.last_iterations += done
        self.last_nodes = int(self._tree.meta[0])
        root_stats(self._tree.ti, self._tree.tf, player, counts, values)
