"""A sequential probability ratio test for a match between two agents.

The test is fishtest's GSPRT on the logistic Elo scale: it weighs ``H0: elo = elo0``
against ``H1: elo = elo1`` (the first agent's Elo advantage over the second; an
expected score ``s`` is ``400 log10(s / (1 - s))`` Elo) and stops when the
log-likelihood ratio leaves ``[log(beta / (1 - alpha)), log((1 - beta) / alpha)]``:
above, H1 is accepted (the first agent is the stronger by about ``elo1`` or more),
below, H0 (not stronger than ``elo0``). ``alpha`` and ``beta`` are the false
positive and false negative rates.

Tournaments play duplicate deals, so the unit of the test is a deal (the games
that share one chance seed, e.g. a pair of games with the seats swapped), scored
by the first agent's mean score in it: fishtest's pentanomial model. The
log-likelihood ratio is fishtest's generalised one: ``N`` times the
Kullback-Leibler gap between the two distributions of deal scores closest (in
likelihood) to the observed one with means ``s0`` and ``s1``, the scores of
``elo0`` and ``elo1``. As in fishtest, each of the five pentanomial outcomes gets
a floor of 1e-3 of a deal, so that one-sided results still give a finite answer.

>>> test = SPRT(elo0=0, elo1=50)
>>> round(test.lower, 3), round(test.upper, 3)
(-2.944, 2.944)
>>> test.decide([1.0] * 10)          # ten deals won outright: not yet enough
''
>>> test.stop_point([1.0] * 40)      # every deal won: H1 accepted after 23 deals
(23, 'H1')
>>> test.decide([0.5, 0.5, 1.0, 0.5])
''
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import scipy.optimize

_PENTANOMIAL = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
_FLOOR = 1e-3


def elo_to_score(elo: float) -> float:
    """The expected score of an Elo advantage ``elo`` (logistic).

    >>> elo_to_score(0), round(elo_to_score(400), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclasses.dataclass(frozen=True)
class SPRT:
    """The test's hypotheses (Elo bounds) and error rates."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got elo0={self.elo0:g}, elo1={self.elo1:g}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT {name}={value:g} must be between 0 and 0.5")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def describe(self) -> str:
        return (
            f"SPRT H0: elo={self.elo0:g} against H1: elo={self.elo1:g} (alpha={self.alpha:g}, beta={self.beta:g}; "
            f"stops when the log-likelihood ratio leaves [{self.lower:.3f}, {self.upper:.3f}])"
        )

    def llr(self, deal_scores: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 over H0 after deals scored ``deal_scores``."""
        scores = np.asarray(deal_scores, dtype=float)
        if scores.size == 0:
            return 0.0
        values, counts = np.unique(np.concatenate([scores, _PENTANOMIAL]), return_counts=True)
        weights = counts - np.isin(values, _PENTANOMIAL) * (1.0 - _FLOOR)
        n = weights.sum()
        observed = weights / n
        s0, s1 = elo_to_score(self.elo0), elo_to_score(self.elo1)
        p0, p1 = _closest_with_mean(values, observed, s0), _closest_with_mean(values, observed, s1)
        return float(n * np.dot(observed, np.log(p1) - np.log(p0)))

    def decide(self, deal_scores: Sequence[float]) -> str:
        """``"H1"``, ``"H0"`` or ``""`` (go on) after deals scored ``deal_scores``."""
        llr = self.llr(deal_scores)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return ""

    def stop_point(self, deal_scores: Sequence[float], start: int = 0) -> tuple[int, str]:
        """The number of deals after which the test first stops, and its decision.

        ``(len(deal_scores), "")`` when it has not stopped. ``start`` deals are known
        not to stop it (a caller watching a match grow checks only the new ones).

        >>> SPRT(0, 50).stop_point([0.0] * 30)
        (20, 'H0')
        """
        for n in range(start + 1, len(deal_scores) + 1):
            decision = self.decide(deal_scores[:n])
            if decision:
                return n, decision
        return len(deal_scores), ""

    def to_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self)


def _closest_with_mean(values: np.ndarray, observed: np.ndarray, mean: float) -> np.ndarray:
    """The distribution on ``values`` of mean ``mean`` that gives ``observed`` the
    highest likelihood: ``observed / (1 + x (values - mean))`` for the ``x`` that
    sets its mean (a Lagrange multiplier, found by Brent's method)."""
    gaps = values - mean

    def excess(x: float) -> float:
        return float(np.sum(observed * gaps / (1.0 + x * gaps)))

    # The weights stay positive for x strictly between these ends; the values
    # include 0 and 1, so both ends are finite for 0 < mean < 1.
    low, high = -1.0 / gaps.max(), -1.0 / gaps.min()
    margin = 1e-12 * (high - low)
    x = scipy.optimize.brentq(excess, low + margin, high - margin, xtol=1e-14)
    p = observed / (1.0 + x * gaps)
    return p / p.sum()
