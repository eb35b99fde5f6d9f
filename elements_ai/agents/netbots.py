"""Trained networks as bots, played in numpy: ``ppo``, ``mmd``, ``nfsp``, ``psro`` and ``az``.

``ppo``, ``mmd`` and ``nfsp`` (policy networks, trained by PPO, by magnetic mirror
descent, and the average policy of neural fictitious self-play) and ``az`` (PUCT search
guided by a network) take
``ckpt=``: a network file (``.npz``, what ``elements-ai zoo train`` ships), a
training folder (its latest network) or one of its checkpoints; torch is never
needed to play. ``NetworkPolicy`` is a ``ppo`` bot's play as an OpenSpiel policy. Without
``ckpt=`` they play the network shipped for the game (``elements-ai agents`` lists
them); a game with none shipped is an error that names those that have one. ``psro``
plays a PSRO run folder: the meta-Nash mixture of its population of networks.

>>> import elements_ai
>>> from elements_ai.agents import make_bot
>>> game = elements_ai.load_game("elemental_duel")
>>> bot = make_bot("ppo", game, player=0, seed=1)
>>> bot.checkpoint.endswith("ppo-elemental_duel.npz"), bot.greedy
(True, True)
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..core.params import Param, above, at_least, int_range
from ..core.rng import uniform
from ..games import KERNELS
from .batched import BatchedSearch, network_evaluator
from .bots import KernelBot, RulesBot, fingerprint_of
from .network import CHECKPOINT_NAME, Network, NetworkError, network_file, single_threaded


def load_network(ckpt: str, game, kind: str = "ppo") -> tuple[Network, dict]:
    """The network for ``game`` that ``ckpt`` names (``""``: the shipped one; a network
    file; a training folder or one of its checkpoints: see ``network_file``) and the
    bot parameters it plays with (the recipe's, or the training folder's ``play.json``)."""
    ckpt = ckpt.strip()
    if not ckpt:
        from .. import zoo

        path, recipe = zoo.shipped_file(kind, game)
        net, play = _cached(str(path)), dict(recipe.play)
    else:
        given = Path(ckpt)
        net = _cached(str(network_file(given).resolve()))
        play = recorded_play(given if given.is_dir() else given.parent) if _in_training_folder(given) else {}
    net.check_game(game)
    return net, play


def _in_training_folder(path: Path) -> bool:
    return path.is_dir() or CHECKPOINT_NAME.match(path.name) is not None


PLAY_FILE = "play.json"


def recorded_play(folder: Path) -> dict[str, Any]:
    """The bot parameters a training folder's recipe plays with (``play.json``, which
    ``elements-ai train`` writes from the recipe), or none."""
    path = folder / PLAY_FILE
    if not path.is_file():
        return {}
    try:
        play = json.loads(path.read_text())["play"]
        if not isinstance(play, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise NetworkError(f"{path}: not a play file (a JSON object whose \"play\" holds the bot's "
                           f"parameters); delete it to play with the defaults") from None
    return play


def _weights(net: Network) -> list:
    return [array for layer in (*net.layers, net.policy, net.value) for array in layer] + [net.hint, net.hint_weight]


def _cached(path: str) -> Network:
    # A tournament makes many bots of one file: read it once per version of the file.
    stat = Path(path).stat()
    return _load(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=32)  # a long session that loads many files keeps only the recent ones
def _load(path: str, mtime_ns: int, size: int) -> Network:
    return Network.load(path)


CKPT_PARAM: dict[str, Param] = {
    "ckpt": Param("", "a network file (.npz), a training folder or one of its checkpoints (none: the shipped "
                      "network)"),
}


class PPOBot(KernelBot):
    """A trained policy network: samples its masked policy (``greedy=True``: its most likely action).

    It reads the information-state tensor of its player only, and a network trained
    as a correction to the rule-based heuristic (``hint``) also the heuristic's move.
    ``temperature`` divides the logits before the softmax (below 1 the policy is
    sharper, above 1 flatter; the most likely action stays the same). ``greedy``,
    ``endgame`` and ``temperature`` default to what the shipped network plays with (its
    recipe's ``play``), for a training folder to what its recipe plays with
    (``play.json``, written by ``elements-ai train``), and otherwise to ``False``, 0 and 1.
    """

    params = {
        **CKPT_PARAM,
        "greedy": Param(False, "play the most likely action instead of sampling the policy "
                               "(the shipped networks: as they were evaluated)"),
        "endgame": Param(0, "play the game's last N rounds exactly instead of by the network, in games "
                            "that solve them (elemental_duel: duels; 0: never)", int_range(0)),
        "temperature": Param(1.0, "divide the network's logits by this before its softmax (below 1: a sharper "
                                  "policy, above 1: a flatter one)", above(0.0)),
    }

    kind = "ppo"  # the shipped networks it plays without ``ckpt=`` (zoo recipes of this kind)

    def __init__(self, game, player: int, seed: int = 0, **params: Any):
        super().__init__(game, player, seed, **params)
        self.net, play = load_network(self.options["ckpt"], game, self.kind)
        self.checkpoint = self.net.meta.get("path", "")
        self.greedy = bool(play_setting("greedy", self.given, play))
        self._hint = RulesBot(game, player, seed + 1) if self.net.hint == "rules" else None
        self.endgame = int(play_setting("endgame", self.given, play))
        self.temperature = float(play_setting("temperature", self.given, play))
        self._endgame = None
        if self.endgame:
            if game.kernel.endgame is None:
                solved = ", ".join(name for name, kernel in KERNELS.items() if kernel.endgame is not None)
                raise NetworkError(f"{self.kind}: endgame={self.endgame}, but {game.kernel.short_name} has no exact "
                                   f"endgame (games that have one: {solved})")
            self._endgame = game.kernel.endgame(game.cfg, self.endgame)

    def fingerprint(self) -> str:
        # At temperature 1 the fingerprint is the one bots had before they had a temperature.
        tuned = () if self.temperature == 1.0 else (self.temperature,)
        return fingerprint_of(*_weights(self.net), self.greedy, self.endgame, *tuned)

    def probabilities(self, state) -> np.ndarray:
        info = np.asarray(state.information_state_tensor(self.player), np.float32)[None]
        mask = np.zeros((1, self.game.num_distinct_actions()), np.bool_)
        mask[0, state.legal_actions()] = True
        hint = None if self._hint is None else np.array([self._hint.step(state)])
        return self.net.probabilities(info, mask, hint, self.temperature)[0]

    def played_policy(self, state) -> dict[int, float]:
        """The distribution the bot draws its move from at ``state``: the solved endgame's,
        the most likely action when greedy, else the network's policy."""
        legal = state.legal_actions()
        exact = None if self._endgame is None else self._endgame.policy(state.array)
        if exact is not None:
            return {a: exact.get(a, 0.0) for a in legal}
        with single_threaded():
            probs = self.probabilities(state)
        if self.greedy:
            best = legal[int(np.argmax(probs[legal]))]
            return {a: float(a == best) for a in legal}
        return {a: float(probs[a]) for a in legal}

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        exact = None if self._endgame is None else self._endgame.policy(state.array)
        if exact is not None:
            # The solved endgame mixes on purpose: sampled even when greedy.
            policy = [(a, exact.get(a, 0.0)) for a in legal]
            return policy, self._sample(legal, np.array([p for _, p in policy]))
        with single_threaded():
            probs = self.probabilities(state)
        policy = [(a, float(probs[a])) for a in legal]
        if self.greedy:
            action = legal[int(np.argmax(probs[legal]))]
        else:
            action = self._sample(legal, probs[legal])
        return policy, action

    def _sample(self, legal, probs) -> int:
        cumulative = np.cumsum(probs)
        u = uniform(self._rng, 0) * cumulative[-1]
        return legal[min(int(np.searchsorted(cumulative, u, side="right")), len(legal) - 1)]


def play_setting(name: str, given: dict[str, Any], play: dict[str, Any]) -> Any:
    """A network bot's parameter ``name``: as ``given`` in its spec, else as its recipe plays
    (``play``, from ``load_network``), else ``PPOBot``'s default."""
    return given.get(name, play.get(name, PPOBot.params[name].default))


class MMDBot(PPOBot):
    """A policy network trained by magnetic mirror descent (``selfplay.mmd``), played as
    ``ppo`` plays its own: its last policy approaches a Nash equilibrium, so it is meant
    to be sampled (``greedy=False``, the default), not played greedily.

    >>> MMDBot.kind, sorted(MMDBot.params) == sorted(PPOBot.params)
    ('mmd', True)
    """

    kind = "mmd"


class NFSPBot(PPOBot):
    """The average policy of neural fictitious self-play (``elements-ai train --algorithm nfsp``).

    It plays as ``ppo`` does: it samples its policy unless ``greedy``, which turns an
    equilibrium's mixed strategy into an exploitable pure one. Without ``ckpt=`` it
    plays the ``nfsp`` network shipped for the game; none ships yet.

    >>> import elements_ai
    >>> from elements_ai.agents import make_bot
    >>> game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
    >>> try:
    ...     make_bot("nfsp", game, player=0)
    ... except ValueError as error:
    ...     print(str(error).split(";")[0])
    bot spec 'nfsp': nfsp: no shipped agent for elements(deck=1_2_3_6_6_6,hand_size=2,single_round=True,target_score=6)
    """

    kind = "nfsp"


class AZBot(KernelBot):
    """PUCT search guided by a trained network (AlphaZero-style); plays the most visited action.

    For perfect-information games: the search reads the true state. ``sims`` defaults
    to what the shipped network was evaluated with.
    """

    params = {
        **CKPT_PARAM,
        "sims": Param(100, "simulations per move", int_range(1)),
        "c": Param(1.5, "PUCT exploration constant (values are scaled to [0, 1])", at_least(0.0)),
    }

    def __init__(self, game, player: int, seed: int = 0, **params: Any):
        super().__init__(game, player, seed, **params)
        if not game.config.perfect_information:
            raise NetworkError(f"az: {game} has hidden information; AlphaZero-style search needs perfect "
                               f"information")
        self.net, play = load_network(self.options["ckpt"], game, "az")
        self.checkpoint = self.net.meta.get("path", "")
        if self.net.hint:
            raise NetworkError(f"az: {self.checkpoint or 'the network'} learnt a correction to {self.net.hint} "
                               f"(hint); the search takes a network's own policy as its prior, so play it as ppo")
        self.sims = int(self.given.get("sims", play.get("sims", self.options["sims"])))
        self.search = BatchedSearch(game, 1, max_sims=self.sims, c=self.options["c"], seed=seed)
        self._evaluate = network_evaluator(self.net, game)

    def fingerprint(self) -> str:
        return fingerprint_of(*_weights(self.net), self.sims, self.options["c"])

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        with single_threaded():
            counts = self.search.run(state.array[None], self.sims, self._evaluate)[0]
        visits = counts[legal]
        action = legal[int(np.argmax(visits))]
        total = visits.sum()
        return [(a, float(n) / total) for a, n in zip(legal, visits)], action


PSRO_FILE = "psro.json"


def member_specs(folder: str | Path, population: list[str]) -> list[str]:
    """A PSRO population (``psro.json``'s) as bot specs: a member file of the run folder
    plays as ``ppo:ckpt=`` it, any other entry is a bot spec.

    >>> member_specs("/runs/a", ["random", "member_01.npz"])
    ['random', 'ppo:ckpt=/runs/a/member_01.npz']
    """
    return [f"ppo:ckpt={Path(folder).absolute() / entry}" if entry.endswith(".npz") else entry
            for entry in population]


def _stated(bot, state) -> dict[int, float]:
    """The distribution ``bot`` draws its move from at ``state``."""
    played = getattr(bot, "played_policy", None)
    return played(state) if callable(played) else dict(bot.get_policy(state))


class PSROBot(KernelBot):
    """The meta-Nash mixture of a PSRO run's population (``elements-ai train --algorithm psro``).

    It plays the mixed strategy "member ``k`` with probability ``w_k`` for the whole game"
    as one behavioural policy: at each decision it weights member ``k`` by ``w_k`` times
    the probability member ``k`` gives to this player's own earlier moves (the history
    replayed from the start), and mixes the members' move probabilities with those
    weights (``solvers.mixture.mixture_probs`` on a whole tree). ``ckpt=`` is the run folder.

    >>> PSROBot.params["ckpt"].default
    ''
    """

    params = {"ckpt": Param("", "a PSRO run folder (elements-ai train --algorithm psro; none ships)")}

    def __init__(self, game, player: int, seed: int = 0, **params: Any):
        super().__init__(game, player, seed, **params)
        folder = Path(self.options["ckpt"].strip())
        path = folder / PSRO_FILE
        if not self.options["ckpt"].strip() or not path.is_file():
            raise NetworkError(f"psro: ckpt= must name a PSRO run folder (with {PSRO_FILE}); got "
                               f"{self.options['ckpt']!r}")
        try:
            run = json.loads(path.read_text())
            population, weights, trained_for = list(run["population"]), np.asarray(run["weights"], float), run["game"]
        except (ValueError, KeyError, TypeError):
            raise NetworkError(f"{path} is not a PSRO run file") from None
        if trained_for != str(game) or len(weights) != len(population):
            raise NetworkError(f"{path}: a PSRO run on {trained_for}, not on {game}" if trained_for != str(game)
                               else f"{path} is damaged: {len(population)} members, {len(weights)} weights")
        from .registry import make_bot

        self.member_specs = member_specs(folder, population)
        self.weights = weights / weights.sum()
        self.members = [make_bot(spec, game, player, seed + 1 + k) for k, spec in enumerate(self.member_specs)]

    def fingerprint(self) -> str:
        return fingerprint_of(self.weights, *[member.fingerprint() for member in self.members])

    def played_policy(self, state) -> dict[int, float]:
        """The mixture's move probabilities at ``state``: the members' by their posterior weights."""
        posterior = self.weights.copy()
        replay = self.game.new_initial_state()
        for action in state.history():
            if replay.current_player() == self.player:
                for k, member in enumerate(self.members):
                    if posterior[k] > 0:  # a member already ruled out costs no forward pass
                        posterior[k] *= _stated(member, replay).get(action, 0.0)
            replay.apply_action(action)
        if posterior.sum() <= 0:  # no member plays this way: their weighted average
            posterior = self.weights
        legal = state.legal_actions()
        mixed = np.zeros(len(legal))
        for k, member in enumerate(self.members):
            if posterior[k] > 0:
                given = _stated(member, state)
                mixed += posterior[k] * np.array([given.get(a, 0.0) for a in legal])
        mixed /= mixed.sum()
        return {a: float(p) for a, p in zip(legal, mixed)}

    def _policy_and_action(self, state):
        with single_threaded():
            policy = self.played_policy(state)
        legal, probs = list(policy), np.array(list(policy.values()))
        cumulative = np.cumsum(probs)
        u = uniform(self._rng, 0) * cumulative[-1]
        action = legal[min(int(np.searchsorted(cumulative, u, side="right")), len(legal) - 1)]
        return list(policy.items()), action


class NetworkPolicy:
    """A ``ppo`` bot's play as an OpenSpiel ``Policy`` (for exact exploitability).

    ``action_probabilities(state)`` is what ``PPOBot`` plays at the state's information
    set (``PPOBot.played_policy``): the masked policy it samples from, its most likely
    action when it plays greedily, or its solved endgame's (``ckpt=""``: the shipped
    network, as it ships).

    >>> import elements_ai
    >>> game = elements_ai.load_game("elements(deck=1_2_3_6_6_6,hand_size=2,single_round=true)")
    >>> state = game.new_initial_state()
    >>> while state.is_chance_node():
    ...     state.apply_action(state.chance_outcomes()[0][0])
    >>> round(sum(NetworkPolicy(game, "").action_probabilities(state).values()), 9)
    1.0
    """

    def __new__(cls, game, ckpt: str, **params: Any):
        from open_spiel.python import policy as openspiel_policy

        class _NetworkPolicy(openspiel_policy.Policy):
            def __init__(self):
                super().__init__(game, list(range(game.num_players())))
                self.bots = [PPOBot(game, p, ckpt=ckpt, **params) for p in range(game.num_players())]

            def action_probabilities(self, state, player_id=None):
                player = state.current_player() if player_id is None else player_id
                return self.bots[player].played_policy(state)

        return _NetworkPolicy()
