"""The bots: uniform random, the game's rule-based heuristic, MCTS and IS-MCTS.

Every bot is a ``pyspiel.Bot`` for one seat of one game, so OpenSpiel's tools
(``evaluate_bots``, …) run them. Bots are seeded: two bots built with the same
arguments and asked the same positions in the same order choose the same moves
(a time limit, ``seconds``, makes the number of simulations and so the moves
depend on the machine).

>>> import elements_ai
>>> from elements_ai.agents import ISMCTSBot
>>> game = elements_ai.load_game("elements", single_round=True)
>>> state = game.new_initial_state()
>>> while state.is_chance_node():
...     state.apply_action(state.chance_outcomes()[0][0])
>>> bot = ISMCTSBot(game, player=state.current_player(), sims=300, seed=1)
>>> bot.step(state) in state.legal_actions()
True
"""

from __future__ import annotations

import hashlib
from typing import Any, ClassVar

import numpy as np
import pyspiel

from ..core.params import Param, ParameterError, at_least, int_range, one_of, resolve
from ..core.rng import seeds_from, uniform
from ..core.spiel import KernelGame
from .search import NO_LIMIT, TreeSearch


class SeatBot(pyspiel.Bot):
    """Base of the bots: one seat of one pyspiel game, seeded.

    Subclasses implement ``_policy_and_action(state)`` and declare their parameters
    in ``params``, the one place their names, defaults, descriptions and allowed
    values are written: the registry (``elements_ai.agents.registry``) checks a spec's
    parameters against them and lists them, and the constructor takes them as
    keywords, checked the same way. ``given`` holds the parameters given (checked),
    ``options`` every parameter, defaults filled in. The bot keeps no per-game
    memory, so ``restart_at`` and ``inform_action`` have nothing to do.
    """

    params: ClassVar[dict[str, Param]] = {}

    def __init__(self, game: pyspiel.Game, player: int, seed: int = 0, **params: Any):
        pyspiel.Bot.__init__(self)
        players = game.num_players()
        if not isinstance(player, (int, np.integer)) or not 0 <= player < players:
            raise ValueError(f"{game.get_type().short_name}: player {player!r} is out of range 0..{players - 1}")
        self.game = game
        self.player = int(player)
        self.seed = int(seed)
        self._rng = seeds_from(self.seed, 1)
        self.given: dict[str, Any] = resolve(self.params, params, type(self).__name__, fill=False)
        self.options: dict[str, Any] = {name: self.given.get(name, p.default) for name, p in self.params.items()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game}, player={self.player}, seed={self.seed})"

    def _check_state(self, state) -> None:
        to_move = state.current_player()
        if to_move != self.player:
            if state.is_terminal():
                what = "a finished game"
            elif state.is_chance_node():
                what = "a chance node"
            else:
                what = f"a state where player {to_move} is to move"
            raise ValueError(f"{self!r} was asked to move at {what}")

    def _policy_and_action(self, state) -> tuple[list[tuple[int, float]], int]:
        raise NotImplementedError

    def fingerprint(self) -> str | None:
        """What the bot plays from beyond its spec (a network, a policy, their play
        settings) as a hash, so that results played with one version are not taken for
        another's; ``None`` for a bot that is its code alone."""
        return None

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass

    def provides_policy(self) -> bool:
        return True

    def step_with_policy(self, state) -> tuple[list[tuple[int, float]], int]:
        """The bot's policy over the legal actions and the action it plays."""
        self._check_state(state)
        return self._policy_and_action(state)

    def get_policy(self, state) -> list[tuple[int, float]]:
        return self.step_with_policy(state)[0]

    def step(self, state) -> int:
        return self.step_with_policy(state)[1]


def fingerprint_of(*parts: Any) -> str:
    """A short hash of arrays and plain values (``SeatBot.fingerprint``)."""
    digest = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            digest.update(f"{part.dtype}{part.shape}".encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        else:
            digest.update(repr(part).encode())
    return digest.hexdigest()[:16]


class KernelBot(SeatBot):
    """A bot that plays through an elements_ai game's kernel (``elements_ai.load_game``)."""

    def __init__(self, game: KernelGame, player: int, seed: int = 0, **params: Any):
        if not isinstance(game, KernelGame):
            raise TypeError(f"these bots play elements_ai games (elements_ai.load_game), got {game!r}")
        super().__init__(game, player, seed, **params)


class RandomBot(KernelBot):
    """Plays a uniformly random legal action.

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements")
    >>> state = game.new_initial_state()
    >>> while state.is_chance_node():
    ...     state.apply_action(state.chance_outcomes()[0][0])
    >>> RandomBot(game, 0, seed=3).step(state) in state.legal_actions()
    True
    """

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        policy = [(a, 1.0 / len(legal)) for a in legal]
        return policy, legal[min(int(uniform(self._rng, 0) * len(legal)), len(legal) - 1)]


class RulesBot(KernelBot):
    """Plays the game's rule-based beginner strategy, the kernel's ``heuristic``.

    Raises ``ValueError`` for a game whose kernel has none.
    """

    def __init__(self, game: KernelGame, player: int, seed: int = 0, **params: Any):
        super().__init__(game, player, seed, **params)
        if game.kernel.heuristic is None:
            raise ParameterError(
                f"rules: the game {game.kernel.short_name!r} has no rule-based heuristic "
                "(its kernel defines no heuristic function)"
            )

    def _policy_and_action(self, state):
        game = self.game
        action = int(game.kernel.heuristic(game.cfg, state.array, self.player, self._rng))
        legal = state.legal_actions()
        if action not in legal:
            raise RuntimeError(
                f"{game.kernel.short_name}: the heuristic chose illegal action {action}; legal: {legal}\n{state}"
            )
        return [(a, float(a == action)) for a in legal], action


SEARCH_PARAMS: dict[str, Param] = {
    "sims": Param(1000, "simulations per move (unlimited when only seconds is given)", int_range(1)),
    "seconds": Param(0.0, "time limit per move in seconds (0: no time limit)", at_least(0.0)),
    "c": Param(1.4, "exploration constant (values are scaled to [0, 1])", at_least(0.0)),
    "rollouts": Param(1, "playouts averaged at each new leaf", int_range(1)),
    "rollout": Param("random", "who plays the playouts: uniformly random moves, or the game's rules heuristic",
                     one_of("random", "rules")),
    "depth": Param(0, "decisions after which a playout stops and scores a draw (0: to the end)", int_range(0)),
}
SELECT_PARAM: dict[str, Param] = {
    "select": Param("uct", "child selection: UCB1 ('uct') or prior-weighted ('puct')", one_of("uct", "puct")),
}


class _SearchBot(KernelBot):
    """A bot that runs a ``TreeSearch`` at every move and plays the most visited action."""

    ismcts: ClassVar[bool]

    def __init__(self, game: KernelGame, player: int, seed: int = 0, **params: Any):
        super().__init__(game, player, seed, **params)
        options = self.options
        self.seconds = float(options["seconds"])
        # A time limit alone means: search until the time is up.
        self.sims = NO_LIMIT if self.seconds > 0 and "sims" not in self.given else int(options["sims"])
        search = {key: options[key] for key in ("c", "rollouts", "rollout", "depth", "worlds") if key in options}
        self.search = TreeSearch(game, ismcts=self.ismcts, selection=options["select"], **search)

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        counts, values = self.search.search(state.array, self.player, self.sims, self.seconds, rng=self._rng)
        legal_arr = np.asarray(legal)
        visits = counts[legal_arr]
        total = int(visits.sum())
        means = values[legal_arr] / np.maximum(visits, 1)
        # Most visits, then the best mean return, then the lowest action id.
        order = np.lexsort((legal_arr, -means, -visits))
        action = int(legal_arr[order[0]])
        policy = [(a, float(n) / total if total else 1.0 / len(legal)) for a, n in zip(legal, visits)]
        return policy, action


class MCTSBot(_SearchBot):
    """UCT with random rollouts (or PUCT with ``select="puct"``), in numba.

    In a perfect-information game instance it searches the true state. With
    hidden information it searches determinizations drawn with the kernel's
    ``resample`` (it never reads what the player cannot see): ``worlds`` of
    them per move, each with an equal share of the simulations and the root
    visits pooled, or a new one for every simulation when ``worlds=0``.
    ``params`` lists the parameters (``elements-ai agents`` prints them).

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements", single_round=True)
    >>> state = game.new_initial_state()
    >>> while state.is_chance_node():
    ...     state.apply_action(state.chance_outcomes()[0][0])
    >>> bot = MCTSBot(game, player=state.current_player(), sims=500, worlds=5, seed=0)
    >>> policy, action = bot.step_with_policy(state)
    >>> round(sum(p for _, p in policy), 6), action in state.legal_actions()
    (1.0, True)
    """

    ismcts = False
    params = {
        **SEARCH_PARAMS,
        "worlds": Param(1, "determinizations per move under hidden information (0: a new one per simulation)",
                        int_range(0)),
        **SELECT_PARAM,
    }


class ISMCTSBot(_SearchBot):
    """Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).

    Every simulation draws a determinization of the root with the kernel's
    ``resample`` for this player and descends one tree of action sequences,
    choosing among the actions legal in that determinization with UCB over
    availability counts. The root state is read only through ``resample``.
    Opponents' moves are treated as seen (single observer), as in the paper.
    The parameters are ``MCTSBot``'s but ``worlds``.
    """

    ismcts = True
    params = {**SEARCH_PARAMS, **SELECT_PARAM}


def draw_chance(state, rng: np.random.Generator) -> int:
    """A chance outcome of ``state`` drawn from ``rng`` with the outcomes' probabilities
    (how ``play_game``, ``elements-ai play``, the web page and the environments draw
    them, so that one seed gives one deal everywhere)."""
    outcomes, probs = zip(*state.chance_outcomes())
    return int(outcomes[rng.choice(len(outcomes), p=probs)])


def play_game(game, bots, seed: int = 0, state=None) -> tuple[list[float], list[int]]:
    """Plays one game (from ``state`` or the start) with one bot per seat.

    Chance outcomes are drawn from a generator seeded with ``seed``. Returns the
    returns and the actions applied (chance outcomes included).

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements", single_round=True)
    >>> returns, actions = play_game(game, [RandomBot(game, 0, 1), RandomBot(game, 1, 2)], seed=5)
    >>> sum(returns)
    0.0
    """
    rng = np.random.default_rng(seed)
    state = game.new_initial_state() if state is None else state.clone()
    for bot in bots:
        bot.restart_at(state)
    actions = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = draw_chance(state, rng)
        else:
            player = state.current_player()
            action = int(bots[player].step(state))
            for other, bot in enumerate(bots):
                if other != player:
                    bot.inform_action(state, player, action)
        actions.append(action)
        state.apply_action(action)
    return state.returns(), actions
