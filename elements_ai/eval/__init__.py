"""Tournaments between agents and their ratings.

``tournament`` plays a seeded round robin (or gauntlet) of bot specs on one game,
in parallel, recording each game as it ends (a stopped tournament resumes);
``ratings`` fits Elo ratings with bootstrap intervals to the games; ``pairwise``
gives each pair's results. The ``elements-ai tournament`` command runs the same.

>>> from elements_ai.eval import tournament, ratings
>>> games = tournament("elements(single_round=true)", ["random", "rules"], games=20, workers=1, progress=False)
>>> table = ratings(games, bootstrap=100)
>>> table.columns.tolist()[:5] == ['agent', 'rating', 'ci_low', 'ci_high', 'games']
True
>>> table["agent"].tolist(), int(table["games"].sum())
(['rules', 'random'], 40)
"""

from .ratings import alpha_rank, pairwise, ratings, score_matrix, synthetic_games
from .report import Report, format_ratings, write_report
from .runner import TournamentConfig, make_config, play_tournament, read_games, tournament
from .schedule import build_schedule, seatings, tables
from .sprt import SPRT

__all__ = [
    "SPRT",
    "Report",
    "TournamentConfig",
    "alpha_rank",
    "build_schedule",
    "format_ratings",
    "make_config",
    "pairwise",
    "play_tournament",
    "ratings",
    "read_games",
    "score_matrix",
    "seatings",
    "synthetic_games",
    "tables",
    "tournament",
    "write_report",
]
