"""A finished tournament's report: ratings and pairwise tables as CSV, plots, a terminal table."""

from __future__ import annotations

import dataclasses
import os
import pathlib

import pandas as pd

from ..files import write_text
from ..loader import short_game as short_game  # where callers have found it
from ..tables import write_csv
from .plots import plot_ratings, plot_returns, plot_scores
from .ratings import pairwise, ratings, score_matrix
from .sprt import SPRT

RATINGS_FILE = "ratings.csv"
PAIRWISE_FILE = "pairwise.csv"


def sprt_summary(games: pd.DataFrame, sprt: SPRT) -> str:
    """The SPRT's statement and its result on ``games``, a match between agents 0 and 1."""
    from .ratings import seat_scores

    names: dict[int, str] = {}
    per_deal: dict[int, list[float]] = {}
    for row in games.itertuples():
        seats = [int(a) for a in row.seats.split()]
        names.update(zip(seats, row.agents.split("|")))
        returns = [float(r) for r in row.returns.split()]
        per_deal.setdefault(row.deal, []).append(seat_scores(returns, seats, 0, 1))
    scores = [sum(v) / len(v) for _, v in sorted(per_deal.items())]
    deals, decision = sprt.stop_point(scores)
    llr = sprt.llr(scores[:deals])
    first, second = names.get(0, "agent 0"), names.get(1, "agent 1")
    verdict = {
        "H1": f"H1 accepted: {first} is stronger than {second} by about {sprt.elo1:g} Elo or more",
        "H0": f"H0 accepted: {first} is not stronger than {second} by more than {sprt.elo0:g} Elo",
        "": "no decision within the games played",
    }[decision]
    return f"{sprt.describe()}\nLLR {llr:.3f} after {deals} deals ({len(games)} games): {verdict}"


def format_ratings(table: pd.DataFrame) -> str:
    """The ratings table as aligned text for the terminal."""
    shown = table.copy()
    intervals = [f"[{lo:.1f}, {hi:.1f}]" for lo, hi in zip(shown.pop("ci_low"), shown.pop("ci_high"))]
    shown.insert(2, "95% interval", intervals)
    return shown.to_string(index=False)


@dataclasses.dataclass(frozen=True)
class Report:
    """A finished tournament's tables, and the files ``write_report`` wrote them to (by name)."""

    ratings: pd.DataFrame
    pairwise: pd.DataFrame | None  # None for a one-player game
    sprt: str | None  # the SPRT's statement and result, when the tournament ran one
    paths: dict[str, pathlib.Path]


def write_report(
    games: pd.DataFrame,
    out: str | os.PathLike,
    *,
    seed: int = 0,
    sprt: SPRT | None = None,
    bootstrap: int = 1000,
    alpharank: bool = False,
) -> Report:
    """Writes ``ratings.csv``, ``pairwise.csv`` and the plots of ``games`` into ``out``;
    returns the tables as written. The same games and seed give the same files, byte for byte.
    """
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    game = games["game"].iloc[0] if "game" in games else ""
    title = f"{short_game(game)}: {len(games)} games"
    table = ratings(games, bootstrap=bootstrap, seed=seed, alpharank=alpharank)
    paths = {"ratings": out / RATINGS_FILE}
    write_csv(table, paths["ratings"])
    players = len(games["agents"].iloc[0].split("|"))
    pairs = None
    if players == 1:
        paths["ratings_plot"] = plot_ratings(table, out / "ratings.png", title, xlabel="mean return with 95% interval")
        paths["returns_plot"] = plot_returns(games, out / "returns.png", title)
    else:
        paths["pairwise"] = out / PAIRWISE_FILE
        pairs = pairwise(games)
        write_csv(pairs, paths["pairwise"])
        paths["ratings_plot"] = plot_ratings(table, out / "ratings.png", title)
        paths["pairwise_plot"] = plot_scores(score_matrix(games), out / "pairwise.png", title)
    summary = None
    if sprt is not None:
        summary = sprt_summary(games, sprt)
        paths["sprt"] = out / "sprt.txt"
        write_text(paths["sprt"], summary + "\n")
    return Report(table, pairs, summary, paths)
