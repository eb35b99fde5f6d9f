"""What the experiment scripts share: the command line, the seeds, the results folder
and its run record, tables."""

from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import sys
import tempfile

import elements_ai
from elements_ai import zoo

HERE = pathlib.Path(__file__).resolve().parent

# The first evaluation seed: every published table is measured from here on, far from
# the recipes' training seeds (single digits) and from the seeds used while tuning
# them (below 10⁶). ``--seed`` chooses another.
EVAL_SEED = 7_000_000


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parser(name: str, description: str) -> argparse.ArgumentParser:
    args = argparse.ArgumentParser(description=description)
    args.add_argument("--quick", action="store_true", help="a few tiny games (seconds), into a temporary folder")
    args.add_argument("--games", nargs="*", default=None, help="games or game strings (default: every game)")
    args.add_argument(
        "--out", type=pathlib.Path, default=None,
        help=f"results folder (default experiments/results/{name}; with --quick a temporary folder)",
    )
    args.add_argument("--workers", type=at_least_one, default=None, help="processes (default: one per core)")
    args.add_argument("--seed", type=int, default=None,
                      help=f"first seed of the games (default {EVAL_SEED:,}, the evaluation seeds)")
    return args


def seed_of(args: argparse.Namespace) -> int:
    """The seed a run plays from: ``--seed``, or ``EVAL_SEED``."""
    return EVAL_SEED if args.seed is None else args.seed


def run_record(script: str, argv: list[str] | None, measured_with: dict, **fields) -> dict:
    """What a results folder records of the run that wrote it: the exact command, the
    seeds and settings in ``fields``, the commit and the machine (``measured_with``:
    ``elements_ai.tables.provenance()`` taken when the run started, as the commit may
    move while it goes on). The games' seeds derive from ``seed`` (``derive_seed``)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    return {"command": shlex.join(["python", f"experiments/{script}", *argv]), **fields, **measured_with}


def write_run(path: pathlib.Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, default=str) + "\n")


def merged(out: pathlib.Path, stem: str, table, run: dict, order: list[str]):
    """A ``--games`` run's rows in place of those agents' rows (by ``recipe``) in
    ``out/<stem>.csv`` (the other agents keep theirs), in the shipped agents' order.
    The run record (``out/<stem>.run.json``) stays the last full run's, with this run
    added to its ``updates`` (each names its command, commit and agents), so that every
    row's run is on record. Returns the table and the record to write."""
    import pandas as pd

    path = out / f"{stem}.csv"
    if not path.exists():
        return table, run
    kept = pd.read_csv(path)
    kept = kept[~kept["recipe"].isin(set(table["recipe"])) & kept["recipe"].isin(set(order))]
    rank = {name: k for k, name in enumerate(order)}
    both = pd.concat([kept, table], ignore_index=True)
    both = both.iloc[sorted(range(len(both)), key=lambda k: (rank[both["recipe"].iloc[k]], k))]
    record_path = out / f"{stem}.run.json"
    full = json.loads(record_path.read_text()) if record_path.exists() else {}
    if not full:
        return both.reset_index(drop=True), run

    def still_shown(record: dict) -> dict:  # its agents whose rows this run did not replace
        return {name: commit for name, commit in record.get("agents", {}).items()
                if name in rank and name not in run["agents"]}

    updates = [{**u, "agents": still_shown(u)} for u in full.pop("updates", [])]
    run = {**full, "agents": still_shown(full), "updates": [*(u for u in updates if u["agents"]), run]}
    return both.reset_index(drop=True), run


def shipped(kind: str, game: str) -> zoo.Recipe | None:
    """The recipe of the ``kind`` agent shipped for ``game`` (variant and player count), or None."""
    entry = zoo.find(kind, elements_ai.load_game(game))
    return entry if entry is not None and entry in zoo.shipped(kind) else None


# The round's ``mmd`` is measured exactly on its compact tree (``families_exact.py``), not
# judged against the shipping bar or by a learned responder.
MEASURED_EXACTLY = ("mmd-elements-round",)


def shipped_learned() -> list[zoo.Recipe]:
    """The shipped learned agents the baselines judge: the ``ppo``, ``az`` and ``mmd`` networks."""
    return [r for r in zoo.recipes().values() if r.kind in ("ppo", "az", "mmd") and r in zoo.shipped(r.kind)
            and r.name not in MEASURED_EXACTLY]


def trained_at(entries) -> dict[str, str | None]:
    """The commit each shipped agent was trained at, by recipe name (for a run record)."""
    listed = zoo.manifest()
    return {e.name: listed.get(e.name, {}).get("commit") for e in entries}


def two_player_games() -> list[str]:
    """The games whose default is a two-player game (``multiplayer.py`` covers the others)."""
    return [name for name in elements_ai.GAMES if elements_ai.load_game(name).num_players() == 2]


def results_folder(name: str, out: pathlib.Path | None, quick: bool) -> pathlib.Path:
    if out is not None:
        return out
    if quick:
        return pathlib.Path(tempfile.mkdtemp(prefix=f"{name}-quick-"))
    return HERE / "results" / name


def compact_tree(game, path: pathlib.Path | None, progress: bool):
    """The compact tree of ``game``: loaded from ``path`` if the file exists, else built
    (with a progress bar if ``progress``) and saved there when ``path`` is given."""
    from elements_ai.solvers import build_compact
    from elements_ai.solvers.compact.file import load_compact, save_compact

    if path is not None and path.is_file():
        return load_compact(path, game)
    tree = build_compact(game, progress=progress)
    if path is not None:
        save_compact(tree, path)
    return tree


def folder_name(game: str) -> str:
    """A folder name for a game string: ``elements(single_round=true)`` → ``elements-single_round=true``."""
    return game.replace("(", "-").replace(")", "").replace(",", "-")


# --- learning curves (equilibrium.py, leduc.py) ------------------------------------

def learning_curve(trainer, name: str, steps: int, points: int, measure) -> list[dict]:
    """Trains ``trainer`` to ``steps`` env steps, measured (``measure()``: columns, one of
    them ``exploitability``) before it starts and at ``points`` evenly spaced steps; the
    rows, each with the training time so far. A step that spans several marks (a PSRO
    best response) gives one row, when it ends."""
    import time

    rows, trained = [{"env_steps": 0, **measure(), "train_seconds": 0.0}], 0.0
    for mark in sorted({max(1, round(steps * k / points)) for k in range(1, points + 1)}):
        start = time.perf_counter()
        trainer.train(mark)
        trained += time.perf_counter() - start
        if rows[-1]["env_steps"] == trainer.env_steps:
            continue
        rows.append({"env_steps": trainer.env_steps, **measure(), "train_seconds": round(trained, 1)})
        print(f"{name} {trainer.env_steps:>9,} steps: exploitability {rows[-1]['exploitability']:.4f} "
              f"({trained:.0f} s)", flush=True)
    return rows


def curves(out: pathlib.Path, suffix: str) -> dict:
    """Every curve in ``out``: its table (``NAME-<suffix>.csv``) by name."""
    import pandas as pd

    return {csv.name[: -len(f"-{suffix}.csv")]: pd.read_csv(csv) for csv in sorted(out.glob(f"*-{suffix}.csv"))}


def plot_curves(tables: dict, marks: dict[str, float], path: pathlib.Path, title: str,
                ylabel: str = "exact exploitability", log: bool = False) -> None:
    """The curves' exploitability against steps, with ``marks`` as horizontal lines, to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from elements_ai.files import atomic_write

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, table in tables.items():
        ax.plot(table["env_steps"], table["exploitability"], marker="o", ms=3, label=name)
    for k, (name, value) in enumerate(marks.items()):
        ax.axhline(value, color="grey", lw=0.9, ls=(":", "--")[k % 2], label=f"{name}: {value:.3f}")
    ax.set_xlabel("env steps")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    with atomic_write(path) as handle:
        fig.savefig(handle, format="png", dpi=90)
    plt.close(fig)


def curves_summary(out: pathlib.Path, suffix: str) -> list[str]:
    """A README's table of every curve in ``out`` (its end, its best, its time, its
    command), the figure of them all, then each curve's figure, settings and provenance."""
    lines = ["| algorithm | steps | exploitability at the end | lowest measured while training | training time | "
             "command |",
             "|---|---:|---:|---:|---:|---|"]
    tables = curves(out, suffix)
    runs = {name: json.loads((out / f"{name}-{suffix}.run.json").read_text()) for name in tables}
    for name, table in tables.items():
        last, best = table.iloc[-1], table.loc[table["env_steps"] > 0, "exploitability"].min()
        lines.append(f"| {name} | {int(last['env_steps']):,} | {last['exploitability']:.4f} | {best:.4f} | "
                     f"{last['train_seconds'] / 60:.1f} min | `{runs[name]['command']}` |")
    lines += ["", f"![every learner's curve](learners-{suffix}.png)", ""]
    for name, run in runs.items():
        settings = ", ".join(f"{k}={v}" for k, v in run["settings"].items())
        lines += [f"## {name}", "", f"![{name}]({name}-{suffix}.png)", "",
                  f"Settings (seed {run['seed']}): {settings}.", "",
                  f"Measured at commit `{run['commit']}` on {run['machine']}.", ""]
    return lines
