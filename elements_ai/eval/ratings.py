"""Ratings from a tournament's games: Bradley-Terry / Plackett-Luce Elo with bootstrap
intervals, pairwise results, alpha-Rank, and score distributions of one-player games.

Two-player games are fitted with the Bradley-Terry model, a draw counting as half a
win for each side (``choix``'s iterative Luce spectral ranking on the matrix of
wins); games of three to five players with the Plackett-Luce model on the order of
the players' returns, tied players in every order with the game's weight shared (a
half win each way), by ``scipy``'s BFGS on the likelihood. Both are maximum-
likelihood fits; ratings are on the Elo scale (``400 / ln 10`` times the
log-strength: 200 Elo ahead is an expected score of 0.76), centred on a mean of 0.

A perfect record has no maximum-likelihood rating (it runs off to infinity), so,
as BayesElo does, every pair of agents that met gets ``prior_games`` virtual games
that end drawn (default 2: one won by each side): a pull towards equal strength
worth two games, against the tens or hundreds a pairing plays.

Intervals come from the bootstrap: the deals (the games that share a chance seed,
which the tournament plays in every seating) are resampled with replacement within
each table, the model refitted, and the 2.5 and 97.5 percentiles of each agent's
rating taken. The resampling is seeded, so the same games give the same table.

>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> elo = {"weak": -200.0, "middle": 0.0, "strong": 200.0}
>>> table = synthetic_games(elo, games=400, seed=1)
>>> fitted = ratings(table, bootstrap=200)
>>> fitted["agent"].tolist()
['strong', 'middle', 'weak']
>>> bool(((fitted["ci_low"] < fitted["agent"].map(elo)) & (fitted["agent"].map(elo) < fitted["ci_high"])).all())
True
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence

import choix
import numpy as np
import pandas as pd
import scipy.optimize
import scipy.sparse
import scipy.stats

from ..core.params import ParameterError

ELO_PER_NATURAL = 400.0 / math.log(10.0)


# --- the games as arrays ------------------------------------------------------------------------

@dataclasses.dataclass
class _Games:
    agents: list[str]
    seats: np.ndarray      # (G, n) agent index per seat
    returns: np.ndarray    # (G, n)
    blocks: np.ndarray     # (G,) deal block (table, deal) of each game
    block_table: np.ndarray  # (B,) table of each block

    @property
    def num_players(self) -> int:
        return self.seats.shape[1]


def _parse(games: pd.DataFrame) -> _Games:
    if len(games) == 0:
        raise ParameterError("no games to rate")
    missing = {"agents", "returns"} - set(games.columns)
    if missing:
        raise ParameterError(f"the games table lacks the columns {', '.join(sorted(missing))}")
    specs = [row.split("|") for row in games["agents"]]
    returns = [[float(r) for r in row.split()] for row in games["returns"]]
    players = {len(row) for row in specs} | {len(row) for row in returns}
    if len(players) != 1:
        raise ParameterError("the games table mixes games of different numbers of players")
    agents: list[str] = []
    index: dict[str, int] = {}
    for row in specs:
        for spec in row:
            if spec not in index:
                index[spec] = len(agents)
                agents.append(spec)
    seats = np.array([[index[spec] for spec in row] for row in specs], dtype=np.int64)
    table = games["table"].to_numpy() if "table" in games else np.zeros(len(games), np.int64)
    deal = games["deal"].to_numpy() if "deal" in games else np.arange(len(games))
    keys = list(zip(table.tolist(), deal.tolist()))
    block_of = {key: b for b, key in enumerate(dict.fromkeys(keys))}
    blocks = np.array([block_of[key] for key in keys], dtype=np.int64)
    block_table = np.array([key[0] for key in block_of], dtype=np.int64)
    return _Games(agents, seats, np.array(returns, dtype=np.float64), blocks, block_table)


def seat_scores(returns: Sequence[float], seats: Sequence[int], a: int, b: int) -> float:
    """Agent ``a``'s score against agent ``b`` in one game: over the pairs of their
    seats, 1 for a higher return, 1/2 for an equal one, averaged.

    >>> seat_scores([2.0, -2.0], [1, 0], 0, 1), seat_scores([1.0, 1.0, 0.0], [0, 1, 2], 0, 1)
    (0.0, 0.5)
    """
    total, count = 0.0, 0
    for s, x in enumerate(seats):
        if x != a:
            continue
        for t, y in enumerate(seats):
            if y == b:
                total += 1.0 if returns[s] > returns[t] else 0.5 if returns[s] == returns[t] else 0.0
                count += 1
    return total / count if count else float("nan")


def _comparisons(g: _Games) -> np.ndarray:
    """Every pair of seats of different agents in every game: rows (game, a, b, outcome for a)."""
    rows = []
    n = g.num_players
    for s in range(n):
        for t in range(n):
            if s == t:
                continue
            a, b = g.seats[:, s], g.seats[:, t]
            mine, theirs = g.returns[:, s], g.returns[:, t]
            outcome = np.where(mine > theirs, 1.0, np.where(mine == theirs, 0.5, 0.0))
            keep = a != b
            rows.append(np.column_stack([np.nonzero(keep)[0], a[keep], b[keep], outcome[keep]]))
    return np.concatenate(rows) if rows else np.zeros((0, 4))


def _resample_counts(g: _Games, rng: np.random.Generator) -> np.ndarray:
    """How often each deal block is drawn in one bootstrap sample (stratified by table)."""
    counts = np.zeros(len(g.block_table), dtype=np.int64)
    for table in np.unique(g.block_table):
        members = np.nonzero(g.block_table == table)[0]
        counts += np.bincount(rng.choice(members, size=members.size), minlength=counts.size)
    return counts


# --- the fits ----------------------------------------------------------------------------------

def _met(g: _Games) -> np.ndarray:
    k = len(g.agents)
    met = np.zeros((k, k), dtype=bool)
    for s in range(g.num_players):
        for t in range(g.num_players):
            met[g.seats[:, s], g.seats[:, t]] = True
    np.fill_diagonal(met, False)
    return met


class _BradleyTerry:
    """Two-player games: wins (draws as halves) per deal block, fitted densely."""

    def __init__(self, g: _Games, prior_games: float):
        k = len(g.agents)
        comparisons = _comparisons(g)
        self.block_wins = np.zeros((len(g.block_table), k, k))
        game, a, b, outcome = comparisons.T
        # Each ordered pair of seats adds its first agent's share: wins[a, b] is how often a beat b.
        np.add.at(self.block_wins, (g.blocks[game.astype(int)], a.astype(int), b.astype(int)), outcome)
        self.prior = _met(g) * (prior_games / 2.0)
        self.params: np.ndarray | None = None

    def fit(self, counts: np.ndarray) -> np.ndarray:
        wins = np.tensordot(counts, self.block_wins, axes=1) + self.prior
        return choix.ilsr_pairwise_dense(wins, initial_params=self.params, max_iter=1000)


class _PlackettLuce:
    """Three or more players: the order of the returns, fitted by maximum likelihood.

    Each game adds its order of the seats' agents (an agent may hold several seats);
    a game with tied returns adds every order of the tied seats, sharing its weight,
    so a tie is half a win each way, as a draw is for Bradley-Terry. Identical orders
    are counted once with their total weight, so a bootstrap refit costs one small
    weighted optimisation (scipy's BFGS) whatever the number of games.
    """

    def __init__(self, g: _Games, prior_games: float):
        index: dict[tuple[int, ...], int] = {}
        rows, cols, weights = [], [], []
        for game in range(len(g.seats)):
            for order, weight in _orders(g.seats[game], g.returns[game]):
                rows.append(game)
                cols.append(index.setdefault(order, len(index)))
                weights.append(weight)
        self.game_orders = scipy.sparse.csr_matrix((weights, (rows, cols)), shape=(len(g.seats), len(index)))
        self.blocks = g.blocks
        n = g.num_players
        orders = list(index)
        # Virtual drawn games: one half win each way per game of the prior.
        met = np.argwhere(_met(g))
        orders += [(int(a), int(b)) for a, b in met]
        self.prior = np.concatenate([np.zeros(len(index)), np.full(len(met), prior_games / 2.0)])
        self.ranks = np.array([list(o) + [0] * (n - len(o)) for o in orders], dtype=np.int64)
        self.mask = np.array([[i < len(o) for i in range(n)] for o in orders])
        self.k = len(g.agents)
        self.params: np.ndarray | None = None

    def _negative_log_likelihood(self, theta: np.ndarray, weights: np.ndarray) -> tuple[float, np.ndarray]:
        # Order (r_1, ..., r_m) has likelihood prod_i e^theta[r_i] / sum_{j >= i} e^theta[r_j].
        strength = np.exp(theta - theta.max())[self.ranks] * self.mask
        tail = np.cumsum(strength[:, ::-1], axis=1)[:, ::-1]
        safe_tail = np.where(self.mask, tail, 1.0)
        log_terms = np.where(self.mask, np.log(np.where(self.mask, strength, 1.0)) - np.log(safe_tail), 0.0)
        value = -float(weights @ log_terms.sum(axis=1))
        # d/d theta[k]: each choice adds 1 for its winner, minus each remaining agent's share.
        shares = strength * np.cumsum(np.where(self.mask, 1.0 / safe_tail, 0.0), axis=1)
        per_seat = (self.mask - shares) * weights[:, None]
        gradient = -np.bincount(self.ranks.ravel(), weights=per_seat.ravel(), minlength=self.k)
        return value, gradient

    def fit(self, counts: np.ndarray) -> np.ndarray:
        observed = self.game_orders.T @ counts[self.blocks].astype(float)
        weights = self.prior + np.concatenate([observed, np.zeros(self.prior.size - observed.size)])
        start = self.params if self.params is not None else np.zeros(self.k)
        result = scipy.optimize.minimize(
            self._negative_log_likelihood, start, args=(weights,), jac=True, method="BFGS",
            options={"gtol": 1e-7, "maxiter": 10_000},
        )
        return result.x - result.x.mean()


def _orders(seats: np.ndarray, returns: np.ndarray) -> list[tuple[tuple[int, ...], float]]:
    """The orders of a game's seats' agents, best return first, with their weights:
    one order of weight 1, or every order of the tied seats sharing it."""
    groups = [np.nonzero(returns == value)[0] for value in sorted(set(returns.tolist()), reverse=True)]
    choices = [list(itertools.permutations(group)) for group in groups]
    total = math.prod(len(c) for c in choices)
    return [
        (tuple(int(seats[s]) for part in parts for s in part), 1.0 / total)
        for parts in itertools.product(*choices)
    ]


def _interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    tail = (1.0 - confidence) / 2.0 * 100.0
    return np.percentile(samples, tail, axis=0), np.percentile(samples, 100.0 - tail, axis=0)


def _check_options(bootstrap: int, confidence: float, prior_games: float) -> None:
    if not isinstance(bootstrap, int) or bootstrap < 0:
        raise ParameterError(f"bootstrap must be a non-negative integer, got {bootstrap!r}")
    if not 0.0 < confidence < 1.0:
        raise ParameterError(f"confidence must be between 0 and 1, got {confidence!r}")
    if prior_games < 0:
        raise ParameterError(f"prior_games must be >= 0, got {prior_games!r}")


def ratings(
    games: pd.DataFrame,
    *,
    bootstrap: int = 1000,
    seed: int = 0,
    prior_games: float = 2.0,
    confidence: float = 0.95,
    alpharank: bool = False,
) -> pd.DataFrame:
    """The agents' ratings, best first, from a games table (``tournament`` or ``read_games``).

    Columns: ``agent``, ``rating`` (Elo, mean 0), ``ci_low``, ``ci_high`` (bootstrap
    interval over ``bootstrap`` resamples), ``games``, ``score`` (mean score against
    the other agents: win 1, draw 1/2), ``wins``, ``draws``, ``losses`` (one per
    opponent's seat in each game), ``mean_return``; with ``alpharank=True`` also the
    agent's alpha-Rank mass. An agent that lost every game it played has
    ``ci_low = -inf`` (won every game: ``ci_high = inf``): no rating is too low
    (high) for it, and its ``rating`` is set by the prior. In a one-player game
    ``rating`` is the mean return and the interval is that of the mean; the other
    columns describe the distribution.
    """
    _check_options(bootstrap, confidence, prior_games)
    g = _parse(games)
    if g.num_players == 1:
        return _distribution(g, bootstrap, seed, confidence)
    if len(g.agents) < 2:
        raise ParameterError("ratings need at least two agents")
    rng = np.random.default_rng([seed, 7])
    model = _BradleyTerry(g, prior_games) if g.num_players == 2 else _PlackettLuce(g, prior_games)
    point = model.fit(np.ones(len(g.block_table), dtype=np.int64))
    model.params = point  # bootstrap fits start from the full fit
    samples = np.array([model.fit(_resample_counts(g, rng)) for _ in range(bootstrap)]).reshape(bootstrap, len(point))
    low, high = _interval(samples, confidence) if bootstrap else (np.full_like(point, np.nan),) * 2
    comparisons = _comparisons(g)
    k = len(g.agents)
    agent = comparisons[:, 1].astype(int)
    outcome = comparisons[:, 3]
    played = [np.unique(np.nonzero((g.seats == a).any(axis=1))[0]).size for a in range(k)]
    mean_return = [float(g.returns[g.seats == a].mean()) for a in range(k)]
    table = pd.DataFrame({
        "agent": g.agents,
        "rating": np.round(point * ELO_PER_NATURAL, 1),
        "ci_low": np.round(low * ELO_PER_NATURAL, 1),
        "ci_high": np.round(high * ELO_PER_NATURAL, 1),
        "games": played,
        "score": [round(float(outcome[agent == a].mean()), 4) for a in range(k)],
        "wins": [int(np.sum((agent == a) & (outcome == 1.0))) for a in range(k)],
        "draws": [int(np.sum((agent == a) & (outcome == 0.5))) for a in range(k)],
        "losses": [int(np.sum((agent == a) & (outcome == 0.0))) for a in range(k)],
        "mean_return": np.round(mean_return, 4),
    })
    # A perfect record has no finite maximum-likelihood rating: the point is the
    # prior's, and the interval is open on that side (every resample is as perfect).
    table.loc[table["score"] == 0.0, "ci_low"] = -np.inf
    table.loc[table["score"] == 1.0, "ci_high"] = np.inf
    if alpharank:
        table = table.merge(alpha_rank(games), on="agent")
    return table.sort_values(["rating", "agent"], ascending=[False, True], kind="stable").reset_index(drop=True)


def _distribution(g: _Games, bootstrap: int, seed: int, confidence: float) -> pd.DataFrame:
    rng = np.random.default_rng([seed, 7])
    rows = []
    for a, spec in enumerate(g.agents):
        values = g.returns[g.seats[:, 0] == a, 0]
        means = rng.choice(values, size=(bootstrap, values.size)).mean(axis=1) if bootstrap else np.array([np.nan])
        low, high = _interval(means, confidence)
        rows.append({
            "agent": spec, "rating": round(float(values.mean()), 4), "ci_low": round(float(low), 4),
            "ci_high": round(float(high), 4), "games": int(values.size), "std": round(float(values.std(ddof=1)), 4)
            if values.size > 1 else 0.0, "min": float(values.min()), "median": float(np.median(values)),
            "max": float(values.max()),
        })
    table = pd.DataFrame(rows)
    return table.sort_values(["rating", "agent"], ascending=[False, True], kind="stable").reset_index(drop=True)


# --- pairwise results ------------------------------------------------------------------------

def wilson(score: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score / n``.

    >>> [round(x, 3) for x in wilson(5, 10)], wilson(0, 10)[0], wilson(10, 10)[1]
    ([0.237, 0.763], 0.0, 1.0)
    """
    if n == 0:
        return 0.0, 1.0
    z = float(scipy.stats.norm.ppf(0.5 + confidence / 2.0))
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if score <= 0 else max(0.0, centre - half)
    high = 1.0 if score >= n else min(1.0, centre + half)
    return low, high


def pairwise(games: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Each agent's results against each opponent it met.

    Columns: ``agent``, ``opponent``, ``games`` (games where both sat), ``wins``,
    ``draws``, ``losses`` (per pair of their seats), ``score`` with its Wilson
    interval ``score_low``/``score_high``, and ``mean_return`` (the agent's, in those
    games) with its t interval ``return_low``/``return_high``.

    >>> table = synthetic_games({"a": 100.0, "b": 0.0}, games=50, seed=0)
    >>> row = pairwise(table).iloc[0]
    >>> row["agent"], row["opponent"], int(row["wins"] + row["draws"] + row["losses"])
    ('a', 'b', 50)
    """
    g = _parse(games)
    comparisons = _comparisons(g)
    rows = []
    for a, agent in enumerate(g.agents):
        for b, opponent in enumerate(g.agents):
            if a == b:
                continue
            mine = comparisons[(comparisons[:, 1] == a) & (comparisons[:, 2] == b)]
            if len(mine) == 0:
                continue
            outcome = mine[:, 3]
            n_games = np.unique(mine[:, 0]).astype(int)
            returns = np.array([g.returns[i][g.seats[i] == a].mean() for i in n_games])
            wins, draws = int(np.sum(outcome == 1.0)), int(np.sum(outcome == 0.5))
            low, high = wilson(float(outcome.sum()), len(outcome), confidence)
            mean = float(returns.mean())
            half = float("nan")
            if returns.size > 1:
                t = float(scipy.stats.t.ppf(0.5 + confidence / 2, returns.size - 1))
                half = t * float(returns.std(ddof=1)) / math.sqrt(returns.size)
            rows.append({
                "agent": agent, "opponent": opponent, "games": int(n_games.size), "wins": wins, "draws": draws,
                "losses": int(len(outcome) - wins - draws), "score": round(float(outcome.mean()), 4),
                "score_low": round(low, 4), "score_high": round(high, 4),
                "mean_return": round(mean, 4),
                "return_low": round(mean - half, 4),
                "return_high": round(mean + half, 4),
            })
    return pd.DataFrame(rows)


def score_matrix(games: pd.DataFrame) -> pd.DataFrame:
    """Mean score of each agent (row) against each other (column); NaN where they did not meet."""
    table = pairwise(games)
    agents = list(dict.fromkeys(table["agent"].tolist() + table["opponent"].tolist()))
    matrix = table.pivot(index="agent", columns="opponent", values="score").reindex(index=agents, columns=agents)
    return matrix


def alpha_rank(games: pd.DataFrame, alpha: float = 100.0) -> pd.DataFrame:
    """alpha-Rank (Omidshafiei et al. 2019) of the agents, by OpenSpiel's ``alpharank``.

    The meta-game is the symmetric two-player game whose payoff is the pairwise mean
    score (1/2 on the diagonal); every pair of agents must have met (a round robin).
    ``alpha`` is the ranking intensity (selection pressure; payoffs are scores in
    [0, 1], so the default 100 makes a gap of 0.05 in score count ``e^5`` to one).
    Returns ``agent`` and ``alpharank``, the agent's mass in the stationary
    distribution.
    """
    try:
        from open_spiel.python.egt import alpharank as os_alpharank
    except ImportError as error:
        raise ParameterError(
            f"alpha-Rank uses OpenSpiel's alpharank module, which needs {error.name}: pip install {error.name}"
        ) from None
    matrix = score_matrix(games)
    if matrix.shape[0] < 2 or _parse(games).num_players != 2:
        raise ParameterError("alpha-Rank here ranks the agents of a two-player game (at least two agents)")
    if matrix.isna().to_numpy()[~np.eye(len(matrix), dtype=bool)].any():
        raise ParameterError("alpha-Rank needs every pair of agents to have met (a round robin)")
    payoffs = matrix.fillna(0.5).to_numpy()
    with np.errstate(over="ignore"):  # fixation probabilities of large payoff gaps saturate at 0 or 1
        _, _, pi, _, _ = os_alpharank.compute([payoffs], alpha=alpha)
    return pd.DataFrame({"agent": list(matrix.index), "alpharank": np.round(pi, 4)})


# --- synthetic results (tests, examples) ------------------------------------------------------

def synthetic_games(
    elo: Mapping[str, float], games: int, seed: int = 0, num_players: int = 2, draw_rate: float = 0.0
) -> pd.DataFrame:
    """Games between agents of known Elo: the results a perfect Bradley-Terry (two
    players) or Plackett-Luce world would produce, as a games table. Every table of
    ``num_players`` agents plays ``games`` games; a two-player game is drawn with
    probability ``draw_rate``.

    >>> table = synthetic_games({"a": 0.0, "b": 0.0, "c": 0.0}, games=3, num_players=3)
    >>> len(table), table.loc[0, "agents"]
    (3, 'a|b|c')
    """
    rng = np.random.default_rng(seed)
    names = list(elo)
    strength = {name: 10.0 ** (elo[name] / 400.0) for name in names}
    rows = []
    for t, table in enumerate(itertools.combinations(names, num_players)):
        for i in range(games):
            seats = [table[(i + s) % num_players] for s in range(num_players)]
            returns = [0.0] * num_players
            if num_players == 2 and rng.random() < draw_rate:
                pass
            else:
                # Plackett-Luce: draw the winner among those left, in proportion to strength.
                left = list(range(num_players))
                for place in range(num_players):
                    w = np.array([strength[seats[s]] for s in left])
                    pick = left[int(rng.choice(len(left), p=w / w.sum()))]
                    returns[pick] = float(num_players - 1 - place)
                    left.remove(pick)
            rows.append({"table": t, "deal": i, "agents": "|".join(seats), "returns": " ".join(map(repr, returns))})
    return pd.DataFrame(rows)
