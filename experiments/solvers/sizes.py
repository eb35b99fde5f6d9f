"""Which sizes of each game solve exactly on this machine: tree sizes measured, or estimated.

For each variant of each game (the sweeps below, then every variant a game declares),
Knuth's estimator gives the tree's size from random walks; trees estimated under
``--count-limit`` nodes are walked to their exact size by the kernel builder (no
storage), and those up to ``--build-limit`` nodes whose build fits are built (exact
information sets and sequences) and timed for CFR+ iterations. Memory is the larger
of the builder's peak and the solver's need (``tree.build_bytes``,
``tree.solve_bytes``); where a tree was not built, its information sets, sequences
and seconds per iteration are extrapolated from the largest built variant of the
same game (per decision node, per edge, per node).

Writes ``results/sizes.csv`` beside this file and prints the table.

    python experiments/solvers/sizes.py                          # every game
    python experiments/solvers/sizes.py --games elementum        # one game's rows, the others kept
    python experiments/solvers/sizes.py --quick                  # a few small variants (seconds), in a temporary folder
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

import elements_ai
from elements_ai.solvers import CFRSolver, build_tree, estimate_tree, machine_memory
from elements_ai.solvers.kernel_tree import count_kernel_tree
from elements_ai.solvers.tree import SOLVE_NODE_BYTES, TreeTooLarge, build_bytes, solve_bytes
from elements_ai.tables import write_csv

HERE = Path(__file__).resolve().parent
FULL_DECK = "1_1_2_2_3_3_4_4_5_5_6_6_6_6_6_6"
SWEEPS = {
    "elements": [
        {"single_round": True, "deck": "1_2_6_6", "hand_size": 1},
        {"single_round": True, "deck": "1_2_3_6", "hand_size": 2},
        {"single_round": True, "deck": "1_2_3_6_6_6", "hand_size": 2},
        {"single_round": True, "deck": "1_2_3_4_6_6_6_6", "hand_size": 2},
        {"single_round": True, "deck": "1_2_3_4_6_6_6_6", "hand_size": 3},
        {"single_round": True, "deck": "1_2_3_4_5_6_6_6_6_6", "hand_size": 3},
        {"single_round": True, "deck": FULL_DECK, "hand_size": 2},
        {"single_round": True, "deck": FULL_DECK, "hand_size": 3},
        {"single_round": True, "deck": FULL_DECK, "hand_size": 4},
        {"single_round": True},
        {"deck": "1_2_6_6", "hand_size": 1, "target_score": 2},
        {},
    ],
    "elemental_duel": [{"num_territories": n} for n in (1, 2, 3, 4, 6)],
    "elementos": [
        {"rows": 6, "setup": "standard", "max_moves": m} for m in (2, 4, 6, 8, 10)
    ] + [{"rows": 6, "setup": "random", "max_moves": m} for m in (2, 4, 6)] + [{}],
}
# Seconds in all, yet under the quick limits every kind of row appears: built, counted but
# extrapolated, estimated.
QUICK_SWEEPS = {
    "elements": [SWEEPS["elements"][i] for i in (0, 2, 6)],  # 317, 88,193 and about a million nodes
    "elemental_duel": [{"num_territories": 1}, {"num_territories": 2}],
}
BUDGET_GB = 24.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="a few small variants of elements and elemental_duel (seconds), into a temporary folder")
    parser.add_argument("--count-limit", type=float, default=None,
                        help="walk trees estimated below this many nodes (default 2e9; with --quick 3e5)")
    parser.add_argument("--build-limit", type=float, default=None,
                        help="build and time trees up to this many nodes (default 4e8; with --quick 8e4)")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for the CSV (default results/ beside this file; with --quick a temporary folder)")
    parser.add_argument("--games", nargs="*", default=None,
                        help="games to measure (default: all); the CSV keeps the other games' rows")
    args = parser.parse_args(argv)
    if args.quick:
        args.games = args.games or list(QUICK_SWEEPS)
        args.count_limit = args.count_limit or 3e5
        args.build_limit = args.build_limit or 8e4
        args.out = args.out or Path(tempfile.mkdtemp(prefix="sizes-quick-"))
    else:
        args.games = args.games or list(elements_ai.GAMES)
        args.count_limit = args.count_limit or 2e9
        args.build_limit = args.build_limit or 4e8
        args.out = args.out or HERE / "results"
    for name in args.games:
        elements_ai.get_kernel(name)  # an unknown game: a clear error before any work
    total, _ = machine_memory()
    budget = 0.9 * BUDGET_GB * 1e9
    print(f"machine memory {total / 1e9:.1f} GB; verdicts for a {BUDGET_GB:g} GB machine (90% usable)", flush=True)
    rows = []
    for name in args.games:
        kernel = elements_ai.get_kernel(name)
        games = {}
        sweep = QUICK_SWEEPS.get(name, []) if args.quick else SWEEPS.get(name, []) + list(kernel.variants.values())
        for params in sweep:
            game = elements_ai.load_game(name, **params)
            games.setdefault(str(game), game)
        ratios = None  # (infosets per decision node, sequences per edge, seconds per node) of the largest built
        for game in games.values():
            estimate = estimate_tree(game, walks=300 if args.quick else 3000, seed=0)
            row = {"game": str(game), "estimated_nodes": estimate.nodes, "estimate_error": estimate.nodes_error}
            sizes = None
            if estimate.nodes + 3 * estimate.nodes_error < args.count_limit:
                try:
                    sizes = count_kernel_tree(game, max_nodes=int(args.count_limit))
                except TreeTooLarge:
                    sizes = None
            if sizes is not None:
                row.update(sizes, basis="counted")
                nodes, decisions, edges = sizes["nodes"], sizes["decision_nodes"], sizes["decision_edges"]
            else:
                nodes, decisions, edges = estimate.nodes, estimate.decision_nodes, estimate.sequences
                row.update(nodes=nodes, decision_nodes=decisions, decision_edges=edges, basis="estimated")
            build_peak = build_bytes(nodes, decisions, edges) + nodes * SOLVE_NODE_BYTES
            if sizes is not None and nodes <= args.build_limit and build_peak <= budget:
                try:
                    started = time.perf_counter()
                    tree = build_tree(game)
                    row["build_seconds"] = time.perf_counter() - started
                    row.update(infosets=tree.num_infosets, sequences=tree.num_sequences, infosets_basis="built")
                    solver = CFRSolver(tree, "cfr+")
                    solver.run(1)
                    repeats = 3 if nodes < 5e7 else 1
                    started = time.perf_counter()
                    solver.run(repeats)
                    row["cfr_plus_seconds_per_iteration"] = (time.perf_counter() - started) / repeats
                    row["seconds_basis"] = "measured"
                    ratios = (tree.num_infosets / decisions, tree.num_sequences / edges,
                              row["cfr_plus_seconds_per_iteration"] / nodes)
                    del solver, tree
                except ValueError as error:  # no perfect recall
                    row["note"] = str(error).split(": ", 1)[1].split(";")[0]
            if "infosets" not in row and ratios is not None:
                row.update(infosets=decisions * ratios[0], sequences=edges * ratios[1],
                           infosets_basis="extrapolated from the largest built variant",
                           cfr_plus_seconds_per_iteration=nodes * ratios[2], seconds_basis="extrapolated per node")
            if "infosets" in row:
                needed = max(build_peak, solve_bytes(nodes, row["infosets"], row["sequences"]))
            else:
                needed = build_peak
            row["memory_gb"] = needed / 1e9
            row["solvable_24gb"] = needed <= budget and not row.get("note")
            rows.append(row)
            verdict = "solvable" if row["solvable_24gb"] else "not solvable"
            print(f"  {str(game):<84} {row['basis']:>9} {nodes:>10.3g} nodes {needed / 1e9:>10.3g} GB  {verdict}"
                  + (f"  ({row['note']})" if row.get("note") else ""), flush=True)
    table = pd.DataFrame(rows)
    previous = args.out / "sizes.csv"
    if previous.exists():
        kept = pd.read_csv(previous)
        kept = kept[~kept["game"].str.split("(").str[0].isin(args.games)]
        table = pd.concat([kept, table], ignore_index=True)
    write_csv(table, args.out / "sizes.csv")
    print(f"\nwrote {args.out / 'sizes.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
