"""Ratings: Bradley-Terry and Plackett-Luce recover known strengths, draws count half,
bootstrap intervals, pairwise tables, alpha-Rank, the SPRT."""

from __future__ import annotations

import math

import choix
import numpy as np
import pandas as pd
import pytest

from elements_ai.core.params import ParameterError
from elements_ai.eval import SPRT, alpha_rank, pairwise, ratings, score_matrix, synthetic_games
from elements_ai.eval.ratings import seat_scores, wilson
from elements_ai.eval.sprt import elo_to_score


def _games(rows: list[tuple[str, str]]) -> pd.DataFrame:
    """A games table from (agents, returns) pairs, each game its own deal."""
    return pd.DataFrame(
        [{"table": 0, "deal": i, "agents": a, "returns": r} for i, (a, r) in enumerate(rows)]
    )


@pytest.mark.parametrize("num_players, games", [(2, 600), pytest.param(3, 500, marks=pytest.mark.slow), (4, 400)])
def test_ratings_recover_known_strengths(num_players, games):
    elo = {"a": -300.0, "b": -100.0, "c": 100.0, "d": 300.0, "e": 0.0}
    fitted = ratings(synthetic_games(elo, games=games, seed=3, num_players=num_players), bootstrap=200, seed=1)
    truth = fitted["agent"].map(elo) - np.mean(list(elo.values()))
    assert fitted["agent"].tolist() == ["d", "c", "e", "b", "a"]
    # The truth lies inside each interval, and the point estimates are close to it.
    assert ((fitted["ci_low"] <= truth) & (truth <= fitted["ci_high"])).all(), fitted
    assert (fitted["rating"] - truth).abs().max() < 45
    assert fitted["rating"].mean() == pytest.approx(0.0, abs=0.1)


def test_plackett_luce_fit_is_choix_maximum_likelihood():
    # Without ties or prior, the weighted fit is the maximum-likelihood estimate that
    # choix's iterative Luce spectral ranking finds on the list of orders.
    table = synthetic_games({"a": -100.0, "b": 0.0, "c": 50.0, "d": 200.0}, games=150, seed=5, num_players=3)
    fitted = ratings(table, bootstrap=0, prior_games=0).set_index("agent")
    agents = ["a", "b", "c", "d"]
    orders = []
    for row in table.itertuples():
        seats = row.agents.split("|")
        returns = [float(r) for r in row.returns.split()]
        orders.append(tuple(agents.index(seats[s]) for s in np.argsort(returns)[::-1]))
    expected = choix.ilsr_rankings(4, orders, max_iter=1000, tol=1e-12) * 400 / math.log(10)
    assert fitted.loc[agents, "rating"].to_numpy() == pytest.approx(expected, abs=0.1)


def test_intervals_narrow_with_more_games():
    elo = {"a": 0.0, "b": 100.0}
    widths = []
    for games in (100, 1600):
        fitted = ratings(synthetic_games(elo, games=games, seed=0), bootstrap=300)
        widths.append(float((fitted["ci_high"] - fitted["ci_low"]).mean()))
    assert widths[1] < widths[0] / 2.5  # about 1 / sqrt(16)


def test_bradley_terry_counts_a_draw_as_half_a_win():
    # Two agents: the maximum-likelihood Elo gap is 400 log10 of the ratio of the
    # wins (draws as halves), with the prior's two virtual drawn games added.
    rows = [("x|y", "1.0 -1.0")] * 7 + [("y|x", "0.0 0.0")] * 4 + [("y|x", "1.0 -1.0")] * 3
    fitted = ratings(_games(rows), bootstrap=0).set_index("agent")
    x_wins, y_wins = 7 + 2 + 1, 3 + 2 + 1
    gap = 400 * math.log10(x_wins / y_wins)
    assert fitted.loc["x", "rating"] - fitted.loc["y", "rating"] == pytest.approx(gap, abs=0.2)
    assert (fitted.loc["x", "wins"], fitted.loc["x", "draws"], fitted.loc["x", "losses"]) == (7, 4, 3)
    assert fitted.loc["x", "score"] == pytest.approx(9 / 14, abs=1e-4)


def test_a_perfect_record_gets_a_finite_rating():
    rows = [("x|y", "1.0 -1.0"), ("y|x", "-1.0 1.0")] * 10
    fitted = ratings(_games(rows), bootstrap=50).set_index("agent")
    assert 0 < fitted.loc["x", "rating"] < 1000  # 20 wins, 1 virtual draw: 400 log10(21) / 2 each side
    assert fitted.loc["x", "rating"] == pytest.approx(200 * math.log10(21), abs=0.2)
    # No rating is too high for x or too low for y: the intervals are open on that side.
    assert fitted.loc["x", "ci_high"] == math.inf and fitted.loc["y", "ci_low"] == -math.inf
    assert fitted.loc["x", "ci_low"] <= fitted.loc["x", "rating"] and math.isfinite(fitted.loc["y", "ci_high"])


def test_bootstrap_is_seeded():
    table = synthetic_games({"a": 0.0, "b": 50.0, "c": 80.0}, games=60, seed=2)
    assert ratings(table, bootstrap=100, seed=4).equals(ratings(table, bootstrap=100, seed=4))
    assert not ratings(table, bootstrap=100, seed=4).equals(ratings(table, bootstrap=100, seed=5))


def test_pairwise_table_counts_and_intervals():
    rows = [("x|y", "1.0 -1.0")] * 6 + [("y|x", "0.0 0.0")] * 2 + [("y|x", "2.0 -2.0")] * 2
    table = pairwise(_games(rows)).set_index(["agent", "opponent"])
    x = table.loc[("x", "y")]
    assert (x["games"], x["wins"], x["draws"], x["losses"]) == (10, 6, 2, 2)
    assert x["score"] == 0.7
    assert (x["score_low"], x["score_high"]) == pytest.approx(wilson(7, 10), abs=1e-4)
    assert x["mean_return"] == pytest.approx((6 * 1.0 - 2 * 2.0) / 10, abs=1e-4)
    assert x["return_low"] < x["mean_return"] < x["return_high"]
    assert table.loc[("y", "x"), "score"] == pytest.approx(0.3)
    matrix = score_matrix(_games(rows))
    assert matrix.loc["x", "y"] == 0.7 and np.isnan(matrix.loc["x", "x"])


def test_seat_scores_with_repeated_agents():
    # Agent 0 holds seats 0 and 2, agent 1 seat 1: 0 beats 1 from seat 0, loses from seat 2.
    assert seat_scores([3.0, 2.0, 1.0], [0, 1, 0], 0, 1) == 0.5
    assert seat_scores([3.0, 2.0, 1.0], [0, 1, 0], 1, 0) == 0.5
    assert seat_scores([1.0, 1.0, 1.0], [0, 1, 2], 2, 0) == 0.5


def test_one_player_ratings_are_return_distributions():
    rows = [("a", "3.0"), ("b", "1.0"), ("a", "5.0"), ("b", "1.0"), ("a", "4.0"), ("b", "2.0")]
    fitted = ratings(_games(rows), bootstrap=200).set_index("agent")
    assert fitted.loc["a", "rating"] == 4.0 and fitted.loc["b", "rating"] == pytest.approx(4 / 3, abs=1e-4)
    assert fitted.loc["a", "ci_low"] >= 3.0 and fitted.loc["a", "ci_high"] <= 5.0
    assert (fitted.loc["a", "min"], fitted.loc["a", "median"], fitted.loc["a", "max"]) == (3.0, 4.0, 5.0)


def test_bad_input_is_named():
    with pytest.raises(ParameterError, match="no games"):
        ratings(_games([]).reindex(columns=["agents", "returns"]))
    with pytest.raises(ParameterError, match="different numbers of players"):
        ratings(_games([("x|y", "1.0 -1.0"), ("x|y|z", "1.0 0.0 -1.0")]))
    with pytest.raises(ParameterError, match="bootstrap"):
        ratings(_games([("x|y", "1.0 -1.0")]), bootstrap=-1)


def test_alpha_rank_finds_the_dominant_agent_and_the_cycle():
    transitive = synthetic_games({"a": 0.0, "b": 200.0, "c": 400.0}, games=200, seed=0)
    masses = alpha_rank(transitive).set_index("agent")["alpharank"]
    assert masses.idxmax() == "c" and masses["c"] > 0.9
    # Rock, paper, scissors: each beats the next; alpha-Rank spreads the mass evenly.
    rows = []
    for winner, loser in (("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")):
        rows += [(f"{winner}|{loser}", "1.0 -1.0"), (f"{loser}|{winner}", "-1.0 1.0")] * 20
    masses = alpha_rank(_games(rows)).set_index("agent")["alpharank"]
    assert masses.to_numpy() == pytest.approx([1 / 3] * 3, abs=0.01)


def test_alpha_rank_needs_a_round_robin():
    gauntlet = _games([("a|b", "1.0 -1.0"), ("a|c", "1.0 -1.0")])
    with pytest.raises(ParameterError, match="every pair"):
        alpha_rank(gauntlet)


# --- SPRT -------------------------------------------------------------------------------------

def test_sprt_bounds_follow_the_error_rates():
    test = SPRT(0, 10, alpha=0.05, beta=0.1)
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    with pytest.raises(ValueError, match="elo0 < elo1"):
        SPRT(10, 0)
    with pytest.raises(ValueError, match="alpha"):
        SPRT(0, 10, alpha=0.7)


@pytest.mark.parametrize("true_elo, expected", [(150.0, "H1"), (-100.0, "H0")])
def test_sprt_decides_for_the_true_hypothesis(true_elo, expected):
    # Deals of two games (pentanomial scores), from a player true_elo stronger.
    rng = np.random.default_rng(0)
    p = elo_to_score(true_elo)
    scores = list(rng.binomial(2, p, size=3000) / 2.0)
    deals, decision = SPRT(0, 50).stop_point(scores)
    assert decision == expected and deals < 500


def test_sprt_llr_has_the_sign_of_the_evidence():
    test = SPRT(0, 50)
    assert test.llr([]) == 0.0
    assert test.llr([0.75] * 5) > 0 > test.llr([0.25] * 5)
    assert test.llr([1.0] * 20) == pytest.approx(20 * math.log(elo_to_score(50) / 0.5), rel=0.02)
