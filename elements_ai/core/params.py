"""Parameters of games and agents: one declaration, one converter, one kind of error.

A ``Param`` holds a default (whose type is the parameter's type), a description and a
``Check`` of the allowed values. ``convert`` turns a value given in Python or as text
(a game string, a command line, a bot spec) into the parameter's type.

>>> hand = Param(6, "cards dealt to each player", int_range(1, 100))
>>> hand.allowed
'an integer from 1 to 100'
>>> hand.resolve("hand_size", "3", owner="elements")
3
>>> hand.resolve("hand_size", 0, owner="elements")
Traceback (most recent call last):
...
elements_ai.core.params.ParameterError: elements: parameter hand_size=0 is out of range; it must be an integer \
from 1 to 100
"""

from __future__ import annotations

import dataclasses
import math
import unicodedata
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

ParamValue = bool | int | float | str


class ParameterError(pyspiel.SpielError, ValueError):
    """An unknown game, agent or parameter, a value of the wrong type or out of range.

    It is a ``pyspiel.SpielError`` (what ``pyspiel.load_game`` raises for a bad game
    string) and a ``ValueError``, so either ``except`` catches it.
    """


@dataclasses.dataclass(frozen=True)
class Check:
    """A test of a parameter's value: ``test(value)`` is true when it is allowed;
    ``allowed`` says which values are, as a phrase ("an integer from 1 to 100")."""

    test: Callable[[Any], bool]
    allowed: str

    def problem(self, value: Any) -> str | None:
        return None if self.test(value) else self.allowed


ANY = Check(lambda value: True, "any value")


def int_range(low: int, high: int | None = None) -> Check:
    """Integers in ``[low, high]`` (``high=None``: no upper bound)."""
    if high is None:
        return Check(lambda value: value >= low, f"an integer >= {low}")
    return Check(lambda value: low <= value <= high, f"an integer from {low} to {high}")


def at_least(low: float) -> Check:
    """Finite numbers ``>= low`` (neither infinity nor NaN is a setting).

    >>> at_least(0.0).problem(float("inf")), at_least(0.0).problem(1.4)
    ('a finite number >= 0', None)
    """
    return Check(lambda value: math.isfinite(value) and value >= low, f"a finite number >= {low:g}")


def above(low: float) -> Check:
    """Finite numbers ``> low``.

    >>> above(0.0).problem(0.0), above(0.0).problem(0.5)
    ('a finite number > 0', None)
    """
    return Check(lambda value: math.isfinite(value) and value > low, f"a finite number > {low:g}")


def one_of(*choices: str) -> Check:
    """One of the strings ``choices``."""
    return Check(lambda value: value in choices, "one of " + ", ".join(repr(c) for c in choices))


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter: its default (the type), a description and the allowed values."""

    default: ParamValue
    help: str
    check: Check = ANY

    @property
    def kind(self) -> type:
        return type(self.default)

    @property
    def allowed(self) -> str:
        if self.kind is bool:
            return "true or false"
        return self.check.allowed if self.check is not ANY else f"any {_NOUNS[self.kind].split(' ', 1)[1]}"

    def resolve(self, name: str, value: Any, owner: str) -> ParamValue:
        """``value`` converted to the parameter's type and checked; else ``ParameterError``."""
        converted = convert(value, self.kind)
        if converted is None:
            raise ParameterError(
                f"{owner}: parameter {name} must be {_NOUNS[self.kind]}, got {value!r} ({type(value).__name__})"
            )
        problem = self.check.problem(converted)
        if problem is not None:
            raise ParameterError(f"{owner}: parameter {name}={converted!r} is out of range; it must be {problem}")
        return converted


_NOUNS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def convert(value: Any, kind: type) -> ParamValue | None:
    """``value`` as a ``kind`` (bool, int, float or str), or ``None`` when it is not one.

    Text is parsed ("true", "12", "1.5"): values arrive as text from game strings,
    the command line and bot specs. A bool is never taken for a number. Text is
    normalised (Unicode NFKC), so that full-width digits make the same game as ASCII ones.

    >>> convert("True", bool), convert("12", int), convert(2, float), convert(12, str)
    (True, 12, 2.0, '12')
    >>> convert("１_２_６", str)
    '1_2_6'
    >>> convert(1.5, int) is None, convert(True, int) is None
    (True, True)
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        value = unicodedata.normalize("NFKC", value)
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return None
    if isinstance(value, bool):
        return None
    if kind is int:
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                return None
        return None
    if kind is float:
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                return None
        return None
    if kind is str:
        # OpenSpiel's game-string parser turns a plain run of digits into an int.
        return value if isinstance(value, str) else str(value) if isinstance(value, int) else None
    raise TypeError(f"parameters are bool, int, float or str, not {kind.__name__}")


def parse_pairs(text_pairs: list[str], owner: str) -> dict[str, str]:
    """``["a=1", "b=x"]`` as ``{"a": "1", "b": "x"}``; a malformed or repeated pair is an error."""
    pairs: dict[str, str] = {}
    for pair in text_pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ParameterError(f"{owner}: {pair!r} must look like name=value")
        if key in pairs:
            raise ParameterError(f"{owner}: parameter {key!r} is given twice")
        pairs[key] = value.strip()
    return pairs


def resolve(params: dict[str, Param], given: dict[str, Any], owner: str, fill: bool = True) -> dict[str, ParamValue]:
    """The parameters ``given`` (names checked, values converted and checked); with
    ``fill`` the defaults of the others too, in declaration order."""
    unknown = [name for name in given if name not in params]
    if unknown:
        known = ", ".join(sorted(params)) if params else "none"
        raise ParameterError(f"{owner}: unknown parameter {unknown[0]!r}; parameters are {known}")
    out: dict[str, ParamValue] = {}
    for name, param in params.items():
        if name in given:
            out[name] = param.resolve(name, given[name], owner)
        elif fill:
            out[name] = param.default
    return out
