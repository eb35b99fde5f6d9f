"""One large solve on the compact tree: by default the full deck's three-card round of
``elements``, to exploitability below 1e-3 or the end of a time budget.

    python experiments/solvers/full_deck.py                 # the full deck (1.9e9 nodes, about 14 GB, hours)
    python experiments/solvers/full_deck.py --quick         # a small deck (seconds), into a temporary folder
    python experiments/solvers/full_deck.py --game "elements(single_round=true,deck=1_2_3_4_6_6_6_6,hand_size=3)"

The tree is built by ``build_compact`` (5 bytes a node; it refuses, before building,
a tree that will not fit), then ``CompactCFRSolver`` runs PCFR+ (``--algorithm``)
and the exact exploitability of its average policy is measured at iterations 1, 2,
4, 8, ... (evaluation inside the time budget, outside the solver's seconds). The
run stops at the first measurement below ``--target`` or before an iteration that
would pass ``--hours`` from the start (the build included).

Writes under ``--out`` (default ``experiments/solvers/results/full_deck/``):
``curve.csv`` (iterations, solver seconds, wall seconds, exploitability, resident
memory), ``run.json`` (the command, the game, the build's time and sizes, the peak
resident memory, the commit and the machine) and, with ``--policy``, the average
policy, a file ``cfr:policy=FILE`` plays (about 1 GB for the full deck: not
shipped).
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

import elements_ai
from elements_ai.core.params import ParameterError
from elements_ai.solvers import ALGORITHMS, CompactCFRSolver, TreeTooLarge, build_compact
from elements_ai.solvers.compact.file import load_compact
from elements_ai.tables import provenance, write_csv

HERE = Path(__file__).resolve().parent
FULL_DECK = "elements(single_round=true,hand_size=3)"
QUICK = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"


def peak_resident_bytes() -> int:
    """This process's peak resident memory so far (``ru_maxrss``, kB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
        return value

    return parse


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = parser
    args.add_argument("--game", default=None, help=f"the game string (default {FULL_DECK}; --quick: {QUICK})")
    args.add_argument("--algorithm", default="pcfr+", choices=ALGORITHMS, help="the solver (default pcfr+)")
    args.add_argument("--target", type=positive(float), default=1e-3, help="stop below this exploitability")
    args.add_argument("--hours", type=positive(float), default=2.0, help="time budget, build included (default 2)")
    args.add_argument("--iterations", type=positive(int), default=None,
                      help="stop after this many iterations (measured there too; default: no limit)")
    args.add_argument("--threads", type=positive(int), default=None, help="solver threads (default every core)")
    args.add_argument("--lanes", type=positive(int), default=None,
                      help="partial sums the subtrees are dealt to (default the machine's cores; the bits depend "
                           "on them, not on --threads)")
    args.add_argument("--tree", type=Path, default=None,
                      help="a compact tree saved by network_exploitability.py --tree or elements-ai exploitability "
                           "--tree: loaded instead of built (the run then counts its load, not a build)")
    args.add_argument("--policy", type=Path, default=None, help="save the average policy here (.npz)")
    args.add_argument("--out", type=Path, default=None,
                      help="results folder (default experiments/solvers/results/full_deck; --quick: a temporary one)")
    args.add_argument("--quick", action="store_true", help="a small deck (seconds), into a temporary folder")
    args = args.parse_args(argv)
    command = shlex.join(["python", "experiments/solvers/full_deck.py", *(sys.argv[1:] if argv is None else argv)])
    game_string = args.game or (QUICK if args.quick else FULL_DECK)
    try:  # an unknown game or parameter fails here, before anything is written
        game = elements_ai.load_game(game_string)
    except ValueError as error:
        parser.error(str(error))
    out = args.out or (Path(tempfile.mkdtemp(prefix="full_deck-quick-")) if args.quick
                       else HERE / "results" / "full_deck")
    measured_with = provenance()
    started = time.perf_counter()
    deadline = started + args.hours * 3600

    try:
        tree = (load_compact(args.tree, game) if args.tree is not None
                else build_compact(game, progress=not args.quick))
    except TreeTooLarge as error:
        raise SystemExit(f"full_deck.py: {error}") from None
    except (ParameterError, OSError) as error:  # no such file, another game's tree
        raise SystemExit(f"full_deck.py: {error}") from None
    built = time.perf_counter() - started
    print(f"{game}: {tree.describe()}", flush=True)
    solver = CompactCFRSolver(tree, args.algorithm, threads=args.threads, lanes=args.lanes)
    rows, mark = [], 1
    while True:
        per_iteration = solver.seconds / max(solver.iteration, 1)
        if args.iterations is not None:
            mark = min(mark, args.iterations)
        if solver.iteration and time.perf_counter() + (mark - solver.iteration) * per_iteration > deadline:
            mark = solver.iteration + max(0, int((deadline - time.perf_counter()) / max(per_iteration, 1e-9)))
            if mark == solver.iteration:
                break
        solver.run(mark - solver.iteration)
        exploitability = solver.exploitability()
        rows.append({"iterations": solver.iteration, "solver_seconds": solver.seconds,
                     "wall_seconds": time.perf_counter() - started, "exploitability": exploitability,
                     "peak_resident_bytes": peak_resident_bytes()})
        print(f"iteration {solver.iteration:,}: exploitability {exploitability:.3e} "
              f"({solver.seconds:,.0f} s solving, {rows[-1]['wall_seconds']:,.0f} s in all)", flush=True)
        if exploitability < args.target or time.perf_counter() >= deadline or solver.iteration == args.iterations:
            break
        mark *= 2
    curve = pd.DataFrame(rows)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(curve, out / "curve.csv")
    if args.policy is not None:
        solver.average_policy().save(args.policy)
    record = {
        "command": command, "game": str(game), "algorithm": args.algorithm, "threads": solver.threads,
        "lanes": solver.lanes,
        "target": args.target, "hours": args.hours, "iteration_limit": args.iterations,
        "reached": bool(rows and rows[-1]["exploitability"] < args.target),
        "nodes": tree.num_nodes, "infosets": tree.num_infosets, "sequences": tree.num_sequences,
        "tree_bytes": tree.nbytes, "tree_file": str(args.tree) if args.tree is not None else None,
        "solver_bytes": solver.nbytes, ("load_seconds" if args.tree is not None else "build_seconds"): round(built, 1),
        "iterations": solver.iteration, "solver_seconds": round(solver.seconds, 1),
        "wall_seconds": round(time.perf_counter() - started, 1), "peak_resident_bytes": peak_resident_bytes(),
        "policy": str(args.policy) if args.policy is not None else None, **measured_with,
    }
    (out / "run.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"results in {out}")
    return curve


if __name__ == "__main__":
    main()
