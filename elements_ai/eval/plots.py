"""Plots of a tournament (matplotlib's Agg canvas: no display, no global pyplot state).

>>> import tempfile, pathlib
>>> from elements_ai.eval.ratings import ratings, score_matrix, synthetic_games
>>> table = synthetic_games({"a": 100.0, "b": 0.0, "c": -50.0}, games=40)
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> plot_ratings(ratings(table, bootstrap=50), folder / "ratings.png").stat().st_size > 0
True
>>> plot_scores(score_matrix(table), folder / "pairwise.png").exists()
True
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..files import atomic_write

# The PNG's metadata names no software version, so the same table gives the same bytes.
_PNG = {"metadata": {"Software": None}}


def _save(figure: Figure, path: str | os.PathLike) -> pathlib.Path:
    path = pathlib.Path(path)
    FigureCanvasAgg(figure)
    with atomic_write(path) as handle:
        figure.savefig(handle, format="png", dpi=110, **_PNG)
    return path


def _label(spec: str, width: int = 28) -> str:
    return spec if len(spec) <= width else spec[: width - 1] + "…"


def plot_ratings(table: pd.DataFrame, path: str | os.PathLike, title: str = "", xlabel: str = "") -> pathlib.Path:
    """Each agent's rating as a point with its interval, best at the top."""
    table = table.iloc[::-1]
    figure = Figure(figsize=(7.0, 1.2 + 0.45 * len(table)), layout="constrained")
    axes = figure.add_subplot()
    y = np.arange(len(table))
    rating = table["rating"].to_numpy(float)
    low, high = table["ci_low"].to_numpy(float), table["ci_high"].to_numpy(float)
    # An interval open on one side (a perfect record) runs to the edge, with an arrow.
    finite = np.concatenate([rating, low[np.isfinite(low)], high[np.isfinite(high)]])
    margin = 0.08 * max(float(np.ptp(finite)), 1.0)
    edge_low, edge_high = float(finite.min()) - margin, float(finite.max()) + margin
    shown_low = np.where(np.isneginf(low), edge_low, low)
    shown_high = np.where(np.isposinf(high), edge_high, high)
    errors = np.vstack([rating - shown_low, shown_high - rating])
    axes.errorbar(rating, y, xerr=np.nan_to_num(errors), fmt="o", color="tab:blue", ecolor="tab:gray", capsize=4)
    axes.plot(shown_low[np.isneginf(low)], y[np.isneginf(low)], "<", color="tab:gray")
    axes.plot(shown_high[np.isposinf(high)], y[np.isposinf(high)], ">", color="tab:gray")
    axes.set_xlim(edge_low - margin / 2, edge_high + margin / 2)
    axes.set_yticks(y, [_label(a) for a in table["agent"]])
    axes.set_ylim(-0.6, len(table) - 0.4)
    axes.set_xlabel(xlabel or "rating (Elo, mean 0) with 95% bootstrap interval")
    axes.grid(axis="x", alpha=0.3)
    if title:
        axes.set_title(title, fontsize=10)
    return _save(figure, path)


def plot_scores(matrix: pd.DataFrame, path: str | os.PathLike, title: str = "") -> pathlib.Path:
    """A heat map of the mean score of each agent (row) against each other (column)."""
    k = len(matrix)
    figure = Figure(figsize=(2.5 + 0.9 * k, 1.5 + 0.8 * k), layout="constrained")
    axes = figure.add_subplot()
    values = matrix.to_numpy(float)
    image = axes.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=0.0, vmax=1.0)
    for i in range(k):
        for j in range(k):
            if np.isfinite(values[i, j]):
                axes.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center",
                          color="white" if abs(values[i, j] - 0.5) > 0.3 else "black", fontsize=9)
    labels = [_label(a, 20) for a in matrix.index]
    axes.set_xticks(range(k), labels, rotation=30, ha="right")
    axes.set_yticks(range(k), labels)
    axes.set_xlabel("opponent")
    axes.set_ylabel("agent")
    figure.colorbar(image, ax=axes, label="mean score (win 1, draw 1/2)")
    if title:
        axes.set_title(title, fontsize=10)
    return _save(figure, path)


def plot_returns(games: pd.DataFrame, path: str | os.PathLike, title: str = "") -> pathlib.Path:
    """One-player games: the distribution of each agent's returns (box plot)."""
    agents = list(dict.fromkeys(games["agents"]))
    data = [games.loc[games["agents"] == a, "returns"].astype(float).to_numpy() for a in agents]
    figure = Figure(figsize=(2.5 + 1.1 * len(agents), 4.0), layout="constrained")
    axes = figure.add_subplot()
    axes.boxplot(data, showmeans=True)
    axes.set_xticks(range(1, len(agents) + 1), [_label(a, 20) for a in agents], rotation=20, ha="right")
    axes.set_ylabel("return")
    if title:
        axes.set_title(title, fontsize=10)
    return _save(figure, path)
