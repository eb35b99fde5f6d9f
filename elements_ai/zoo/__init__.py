"""Baseline agents that ship with the library, and the recipes that made them.

Every baseline has one recipe in ``recipes.toml`` beside this file: the algorithm,
the game string, the steps or iterations, the seed and every hyperparameter. Its
trained form lies in ``shipped/`` (network weights played in numpy, or a solved
policy), listed in ``shipped/manifest.json`` with the commit it was trained at, its
training time and what decided its arithmetic (``reproduce``: the machines where its
bits come back). ``ppo``, ``az`` and ``cfr`` without ``ckpt=`` / ``policy=`` play
the shipped agent of the game they are given.

>>> from elements_ai import zoo
>>> recipe = zoo.recipe("ppo-elemental_duel")
>>> recipe.kind, recipe.game, recipe.steps > 0
('ppo', 'elemental_duel(num_territories=12)', True)
>>> zoo.find("ppo", "elemental_duel(num_territories=12)").name
'ppo-elemental_duel'
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from pathlib import Path
from typing import Any

from ..core.params import ParameterError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).parent
RECIPES = HERE / "recipes.toml"
SHIPPED = HERE / "shipped"
MANIFEST = SHIPPED / "manifest.json"

KINDS = ("ppo", "az", "cfr", "mmd")
WEIGHTS = ("float32", "float16")
_ALGORITHMS = {"ppo": ("ppo",), "az": ("az",), "cfr": ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+"), "mmd": ("mmd",)}


@dataclasses.dataclass(frozen=True)
class Recipe:
    """One baseline: what trains it, exactly.

    ``kind`` is the bot that plays it (``ppo``, ``az``, ``cfr`` or ``mmd``); ``algorithm`` what
    trains it; ``game`` the canonical game string; ``steps`` environment steps (PPO,
    AlphaZero) or solver iterations (CFR); ``config`` the trainer's hyperparameters;
    ``play`` the bot parameters it ships with (e.g. ``greedy``); ``weights`` how the
    shipped file stores a network's weights: ``float32``, or ``float16`` to halve a
    large network's file (it still plays in float32, from the rounded weights).
    """

    name: str
    kind: str
    algorithm: str
    game: str
    steps: int
    seed: int
    config: dict[str, Any]
    play: dict[str, Any]
    description: str
    weights: str = "float32"

    @property
    def file(self) -> str:
        return f"{self.name}.npz"


class ShippedError(ParameterError):
    """No shipped agent for a game, or a damaged shipped file."""


def _canonical(game: str) -> str:
    from .. import load_game

    return str(load_game(game))


@functools.lru_cache(maxsize=1)
def recipes() -> dict[str, Recipe]:
    """Every recipe by name, in the file's order."""
    with open(RECIPES, "rb") as handle:
        table = tomllib.load(handle)
    out = {}
    for name, entry in table.items():
        entry = dict(entry)
        kind = entry.pop("kind")
        algorithm = entry.pop("algorithm")
        if kind not in KINDS or algorithm not in _ALGORITHMS[kind]:
            raise ValueError(f"{RECIPES}: recipe {name!r} has kind {kind!r} and algorithm {algorithm!r}")
        out[name] = Recipe(
            name=name, kind=kind, algorithm=algorithm, game=_canonical(entry.pop("game")),
            steps=int(entry.pop("steps")), seed=int(entry.pop("seed")), config=dict(entry.pop("config", {})),
            play=dict(entry.pop("play", {})), description=str(entry.pop("description", "")),
            weights=str(entry.pop("weights", "float32")),
        )
        if out[name].weights not in WEIGHTS or (kind == "cfr" and out[name].weights != "float32"):
            raise ValueError(f"{RECIPES}: recipe {name!r} stores weights as {out[name].weights!r}; a network's "
                             f"may be one of {', '.join(WEIGHTS)}, a policy's only float32")
        if entry:
            raise ValueError(f"{RECIPES}: recipe {name!r} has unknown fields {', '.join(sorted(entry))}")
    return out


def recipe(name: str) -> Recipe:
    """The recipe called ``name``; ``ParameterError`` lists the names otherwise."""
    table = recipes()
    if name not in table:
        raise ParameterError(f"no recipe {name!r}; the recipes are {', '.join(table)}")
    return table[name]


def find(kind: str, game) -> Recipe | None:
    """The recipe of ``kind`` for exactly this game (variant and player count), or ``None``."""
    game = str(game)
    for entry in recipes().values():
        if entry.kind == kind and entry.game == game:
            return entry
    return None


def manifest() -> dict[str, dict[str, Any]]:
    """The shipped agents by recipe name: file, game, commit, steps, training seconds, results."""
    if not MANIFEST.is_file():
        return {}
    return json.loads(MANIFEST.read_text())


def shipped(kind: str) -> list[Recipe]:
    """The recipes of ``kind`` whose trained agent ships with the library."""
    listed = manifest()
    return [r for r in recipes().values() if r.kind == kind and r.name in listed and (SHIPPED / r.file).is_file()]


def shipped_file(kind: str, game) -> tuple[Path, Recipe]:
    """The shipped file of the ``kind`` agent for ``game``, with its recipe.

    A game with none shipped is a ``ShippedError`` naming the games that have one.
    """
    entry = find(kind, game)
    if entry is None or entry.name not in manifest() or not (SHIPPED / entry.file).is_file():
        games = [r.game for r in shipped(kind)]
        what = "policy=FILE" if kind == "cfr" else "ckpt=PATH"
        have = "; ".join(games) if games else "none"
        raise ShippedError(f"{kind}: no shipped agent for {game}; give {what}, or use a game that has one: {have}")
    return SHIPPED / entry.file, entry


def describe() -> str:
    """The shipped agents: name, game, recipe, commit and training time (``elements-ai agents``)."""
    listed = manifest()
    lines = []
    for entry in recipes().values():
        info = listed.get(entry.name)
        if info is None or not (SHIPPED / entry.file).is_file():
            continue
        seconds = info.get("train_seconds")
        took = "" if not seconds else f", {seconds:.0f} s" if seconds < 120 else f", {seconds / 60:.0f} min"
        commit = info.get("commit", "unknown")
        commit = commit[:10] + ("-dirty" if commit.endswith("-dirty") else "")
        lines.append(f"{entry.kind:<4} {entry.game}")
        lines.append(f"     recipe {entry.name}: {entry.algorithm}, {entry.steps:,} "
                     f"{'iterations' if entry.kind == 'cfr' else 'steps'}, seed {entry.seed}; "
                     f"trained at {commit}{took}")
        if entry.play:
            lines.append("     plays with " + ", ".join(f"{k}={v}" for k, v in entry.play.items()))
    return "\n".join(lines) if lines else "(none)"
