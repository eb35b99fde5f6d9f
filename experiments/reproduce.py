"""Retraining shipped agents by their recipes, compared with the shipped files.

    python experiments/reproduce.py                       # the three small recipes (a few minutes on 2 cores)
    python experiments/reproduce.py ppo-elements-small    # one recipe
    python experiments/reproduce.py ppo-elements-small --steps 30000   # a run cut short, against the band
    python experiments/reproduce.py ppo-elements-small --seeds 2 3 4 5 6 7 8 9   # draws with other seeds
    python experiments/reproduce.py --quick               # a few thousand steps (seconds), into a temporary folder

For each recipe: a full-length run (``elements_ai.selfplay.recipes.train``) into ``--runs`` (default a
temporary folder), whether its arrays equal the shipped file's bit for bit, and whether
they should on this machine (``elements_ai.selfplay.reproduce``: the shipped file's
manifest entry names the machines where they did). For a network on the small
``elements`` variant, which the solvers solve whole, both networks are measured exactly
(``Yardstick``): exploitability, expected return against ``rules``, and how alike they
play (the largest difference of an action's probability at any information set, and
the share of information sets where their most likely actions agree), with the verdict
of the recipe's band (``reproduce.BANDS``). ``--record`` adds this machine to the
manifest's ``reproduced_on`` of each recipe whose bits came back.

``--seeds`` trains draws of one network recipe with other seeds instead, on
``--workers`` processes (each run is single-threaded), and writes their measures and
the band they imply to ``experiments/results/reproduce/draws.{csv,md}`` (with
``draws.run.json``): the calibration of ``BANDS``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pandas as pd
from _common import at_least_one, results_folder, run_record, write_run

import elements_ai
from elements_ai import zoo
from elements_ai.core.params import ParameterError
from elements_ai.selfplay import reproduce
from elements_ai.selfplay.recipes import train
from elements_ai.tables import provenance, write_csv

SMALL = ["ppo-elements-small", "cfr-elements-small", "cfr-elemental_duel-1"]
QUICK_STEPS = {"ppo": 4096, "cfr": 20}


def _train(entry: zoo.Recipe, out: str, steps: int | None) -> dict:
    return train(entry, out, steps=steps, progress=False)


def compare(entry: zoo.Recipe, out: Path, steps: int | None, yardsticks: dict) -> tuple[bool, list[str]]:
    """Trains ``entry`` into ``out``: whether its bits are the shipped file's, and lines
    that say how the two compare."""
    start = time.perf_counter()
    record = train(entry, out, steps=steps, progress=False)
    listed = zoo.manifest()[entry.name]
    differ = reproduce.differing_arrays(zoo.SHIPPED / entry.file, out / entry.file)
    why_not = reproduce.bits_expected(entry, listed)
    lines = [f"{entry.name}: {record['steps']:,} {'iterations' if entry.kind == 'cfr' else 'steps'} in "
             f"{time.perf_counter() - start:.0f} s at {record['commit'][:10]}",
             "  bits: " + ("equal to the shipped file's" if not differ else f"{len(differ)} arrays differ "
                           f"({', '.join(differ)})") + ("; expected here" if why_not is None else "; not expected: "
                                                        + why_not)]
    if entry.kind != "cfr" and entry.game in yardsticks:
        stick = yardsticks[entry.game]
        shipped, rebuilt = stick.measure(zoo.SHIPPED / entry.file), stick.measure(out / entry.file)
        alike = stick.likeness(shipped, rebuilt)
        for label, b in (("shipped", shipped), ("retrained", rebuilt)):
            lines.append(f"  {label:<9}  exploitability {b.exploitability:.4f}, against rules {b.versus_rules:+.4f}")
        lines.append(f"  alike: largest probability difference {alike.max_difference:.4f}, most likely action "
                     f"the same at {alike.greedy_agreement:.2%} of {alike.infosets:,} information sets with a choice")
        band = reproduce.BANDS.get(entry.name)
        if band:
            outside = rebuilt.outside(band)
            lines.append("  band: " + ("inside (" + ", ".join(f"{k} [{lo:.3f}, {hi:.3f}]" for k, (lo, hi)
                                                               in band.items()) + ")" if not outside
                                       else "; ".join(outside)))
    return not differ, lines


def draws(entry: zoo.Recipe, seeds: list[int], out: Path, workers: int, steps: int | None) -> pd.DataFrame:
    """Runs of ``entry`` with each of ``seeds``, measured, with the shipped file first."""
    entries = [dataclasses.replace(entry, seed=seed) for seed in seeds]
    folders = [out / f"seed-{seed}" for seed in seeds]
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        list(pool.map(_train, entries, [str(f) for f in folders], [steps] * len(seeds)))
    stick = reproduce.Yardstick(elements_ai.load_game(entry.game))
    shipped = stick.measure(zoo.SHIPPED / entry.file)
    rows = [{"run": "shipped", "seed": entry.seed, "exploitability": shipped.exploitability,
             "versus_rules": shipped.versus_rules, "max_difference": 0.0, "greedy_agreement": 1.0}]
    for seed, folder in zip(seeds, folders):
        b = stick.measure(folder / entry.file)
        alike = stick.likeness(shipped, b)
        rows.append({"run": "draw", "seed": seed, "exploitability": b.exploitability, "versus_rules": b.versus_rules,
                     "max_difference": alike.max_difference, "greedy_agreement": alike.greedy_agreement})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    lines = ["| run | seed | exploitability | against `rules` | largest probability difference | "
             "most likely action the same |", "|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| {r.run} | {r.seed} | {r.exploitability:.4f} | {r.versus_rules:+.4f} | "
                     f"{r.max_difference:.3f} | {r.greedy_agreement:.2%} |")
    return "\n".join(lines) + "\n"


def band_line(table: pd.DataFrame, name: str) -> str:
    drawn = table[table["run"] == "draw"]
    band = reproduce.band_of(drawn)
    return f"band of {name} ({len(drawn)} draws): " + ", ".join(
        f"{k} [{lo:.3f}, {hi:.3f}]" for k, (lo, hi) in band.items())


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("names", nargs="*", default=None, help=f"recipes (default: {', '.join(SMALL)})")
    args.add_argument("--quick", action="store_true", help="a few thousand steps (seconds), into a temporary folder")
    args.add_argument("--runs", type=Path, default=None, help="where the runs go (default: a temporary folder)")
    args.add_argument("--out", type=Path, default=None,
                      help="results folder of --seeds (default experiments/results/reproduce; with --quick a temporary "
                           "folder)")
    args.add_argument("--steps", type=at_least_one, default=None,
                      help="fewer steps or iterations than the recipe's (default: the recipe's)")
    args.add_argument("--seeds", type=int, nargs="+", default=None, help="draws of one network recipe with these seeds")
    args.add_argument("--workers", type=at_least_one, default=1, help="processes for --seeds (default 1)")
    args.add_argument("--record", action="store_true",
                      help="list this machine in the manifest where a run gave the shipped bits")
    args = args.parse_args(argv)
    measured_with = provenance()
    names = args.names or SMALL
    try:
        entries = [zoo.recipe(name) for name in names]
    except ParameterError as error:
        print(f"reproduce.py: {error}", file=sys.stderr)
        return 2
    missing = [e.name for e in entries if e.name not in zoo.manifest()]
    if missing:
        print(f"reproduce.py: not shipped: {', '.join(missing)}", file=sys.stderr)
        return 2
    runs = args.runs or Path(tempfile.mkdtemp(prefix="reproduce-"))
    if args.seeds:
        if len(entries) != 1 or entries[0].kind == "cfr" or entries[0].seed in args.seeds:
            print("reproduce.py: --seeds draws one network recipe, with seeds other than its own", file=sys.stderr)
            return 2
        entry = entries[0]
        steps = QUICK_STEPS[entry.kind] if args.quick else args.steps
        table = draws(entry, args.seeds, runs, args.workers, steps)
        out = results_folder("reproduce", args.out, args.quick)
        out.mkdir(parents=True, exist_ok=True)
        write_csv(table, out / "draws.csv")
        (out / "draws.md").write_text(markdown(table))
        write_run(out / "draws.run.json", run_record("reproduce.py", argv, measured_with, recipe=entry.name,
                                                     seeds=args.seeds, steps=steps or entry.steps))
        print(markdown(table))
        print(band_line(table, entry.name))
        return 0
    print(f"this machine: {reproduce.describe(reproduce.arithmetic())}")
    yardsticks = {}
    for entry in entries:
        if entry.kind != "cfr" and entry.game not in yardsticks and entry.name in reproduce.BANDS:
            yardsticks[entry.game] = reproduce.Yardstick(elements_ai.load_game(entry.game))
        steps = QUICK_STEPS[entry.kind] if args.quick else args.steps
        same, lines = compare(entry, runs / entry.name, steps, yardsticks)
        print("\n".join(lines), flush=True)
        if args.record and same and not args.quick and args.steps is None:
            reproduce.record_reproduction(entry.name, measured_with["commit"])
            print(f"  recorded this machine in {entry.name}'s reproduced_on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
