"""Training the baselines from their recipes, and installing them as the shipped agents.

``train(recipe, out)`` runs one recipe in ``out/NAME/`` (PPO and AlphaZero-style runs
resume from their checkpoints there) and writes the shipped form beside it:
``out/NAME.npz`` (network weights, or the solved policy) and ``out/NAME.json`` (the
recipe, the commit, the steps, the training time and the machine's arithmetic; a
resumed run keeps the commit it started at, lists those it resumed at, and sums its
time). ``install(out, names)`` copies
those into the package and its manifest. Self-play needs torch; CFR does not.

>>> import tempfile
>>> from elements_ai import zoo
>>> from elements_ai.selfplay.recipes import train
>>> info = train(zoo.recipe("cfr-elements-small"), tempfile.mkdtemp(), steps=10, progress=False)
>>> info["recipe"], info["steps"], info["exploitability"] > 0
('cfr-elements-small', 10, True)
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from ..core.params import ParameterError
from ..files import atomic_write
from ..tables import provenance
from ..zoo import MANIFEST, SHIPPED, Recipe, manifest, recipe
from .reproduce import arithmetic, same_arithmetic

RUN_HISTORY = "zoo-run.json"  # in a self-play run's folder: the commit it started at and its time so far


def _write_json(path: Path, data: Any) -> None:
    with atomic_write(path, "w") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
        handle.write("\n")


def train(entry: Recipe, out: str | Path, steps: int | None = None, progress: bool = True) -> dict[str, Any]:
    """Trains ``entry`` into ``out`` (``steps``: fewer than the recipe's, for a test); returns its record."""
    from ..loader import load_game

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    steps = entry.steps if steps is None else int(steps)
    game = load_game(entry.game)
    record: dict[str, Any] = {
        "recipe": entry.name, "kind": entry.kind, "algorithm": entry.algorithm, "game": entry.game,
        "steps": steps, "seed": entry.seed, "config": entry.config, "play": entry.play, **provenance(),
        "trained_on": arithmetic(),  # where its bits can be expected again (reproduce.py)
    }
    start = time.perf_counter()
    if entry.kind == "cfr":
        from ..solvers.cfr import CFRSolver

        solver = CFRSolver(game, entry.algorithm, progress=progress, **entry.config)
        solver.run(steps)
        record["exploitability"] = float(solver.exploitability())
        record["train_seconds"] = round(time.perf_counter() - start, 1)
        solver.average_policy().save(out / entry.file)
    else:
        # A run resumed from its checkpoints (or run again once finished) is still the
        # run that started it: its record keeps the first commit and adds up the time.
        history_path = out / entry.name / RUN_HISTORY
        history = _run_history(history_path, record["commit"])
        if record["commit"] != history["commit"] and record["commit"] not in history["resumed_at"]:
            history["resumed_at"].append(record["commit"])
        # Its bits can come back only where every part of it ran with the same arithmetic.
        if "trained_on" not in history:
            history["trained_on"] = None if history["train_seconds"] else record["trained_on"]
        elif history["trained_on"] and not same_arithmetic(history["trained_on"], record["trained_on"]):
            history["trained_on"] = None
        trainer = _trainer(entry, game, out / entry.name, steps, progress)
        try:
            trainer.train(steps)
        finally:
            getattr(trainer, "close", lambda: None)()
            history["train_seconds"] = round(history["train_seconds"] + time.perf_counter() - start, 1)
            _write_json(history_path, history)
        record["commit"], record["train_seconds"] = history["commit"], history["train_seconds"]
        record["trained_on"] = history["trained_on"]
        if history["resumed_at"]:
            record["resumed_at"] = history["resumed_at"]
        record["env_steps"] = int(trainer.env_steps)
        meta = {key: record[key] for key in ("recipe", "kind", "algorithm", "game", "steps", "seed", "commit")}
        network = trainer.network()  # the agent: an averaging MMD run's is the mean of its weights
        network.meta = {**{key: network.meta[key] for key in ("averaged", "average_from") if key in network.meta},
                        **meta}
        network.save(out / entry.file, weights=entry.weights)
    _write_json(out / f"{entry.name}.json", record)
    return record


def _run_history(path: Path, commit: str) -> dict[str, Any]:
    """A self-play run's history (a new one, started at ``commit``, if it has none)."""
    if not path.is_file():
        return {"commit": commit, "train_seconds": 0.0, "resumed_at": []}
    try:
        history = json.loads(path.read_text())
        if not (isinstance(history["commit"], str) and isinstance(history["resumed_at"], list)
                and isinstance(history["train_seconds"], (int, float))):
            raise TypeError
    except (ValueError, KeyError, TypeError) as error:
        raise ParameterError(f"{path}: not a run history (commit, train_seconds, resumed_at); delete it to "
                             f"record the run as starting now") from error
    return history


def _trainer(entry: Recipe, game, folder: Path, steps: int, progress: bool):
    config = dict(entry.config)
    if steps < entry.steps and config.get("imitation_steps", 0) > steps:
        config["imitation_steps"] = steps  # a short test run imitates for as long as it plays
    if entry.kind == "ppo":
        from .ppo import PPOConfig, PPOTrainer

        return PPOTrainer(game, folder, PPOConfig(**config), seed=entry.seed, progress=progress)
    if entry.kind == "mmd":
        from .mmd import MMDConfig, MMDTrainer

        return MMDTrainer(game, folder, MMDConfig(**config), seed=entry.seed, progress=progress)
    from .az import AlphaZeroTrainer, AZConfig

    return AlphaZeroTrainer(game, folder, AZConfig(**config), seed=entry.seed, progress=progress)


def install(out: str | Path, names: list[str]) -> list[Path]:
    """Copies the trained ``names`` from ``out`` into the package's shipped agents and manifest."""
    out = Path(out)
    listed = manifest()
    installed = []
    for name in names:
        entry = recipe(name)
        source, record = out / entry.file, out / f"{name}.json"
        if not source.is_file() or not record.is_file():
            raise FileNotFoundError(f"{out} holds no trained {name} ({entry.file} and {name}.json)")
        data = json.loads(record.read_text())
        if data.get("steps") != entry.steps:
            raise ValueError(f"{record}: trained for {data.get('steps')} steps, the recipe says {entry.steps}; "
                             f"only a full-length run is shipped")
        SHIPPED.mkdir(exist_ok=True)
        with source.open("rb") as trained, atomic_write(SHIPPED / entry.file) as shipped:
            shutil.copyfileobj(trained, shipped)
        listed[name] = {"file": entry.file, **{k: v for k, v in data.items() if k not in ("config", "play")}}
        installed.append(SHIPPED / entry.file)
    _write_json(MANIFEST, listed)
    return installed
