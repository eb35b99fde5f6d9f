"""Which sizes of each game solve exactly on this machine: tree sizes measured, or estimated.

For each variant of each game (the sweeps below, then every variant a game declares),
Knuth's estimator gives the tree's size from random walks; trees estimated under
``--count-limit`` nodes are walked to their exact size by the kernel builder (no
storage), and those under ``--build-limit`` are built and timed for one CFR+
iteration. The memory a tabular solver needs follows from the sizes (``tree.py``:
bytes per node, sequence and information set); seconds per CFR+ iteration are
measured where built and extrapolated from the largest built tree of the game
(per node) elsewhere.

Writes ``results/sizes.csv`` beside this file and prints the table.

    python experiments/solvers/sizes.py
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

import elements_ai
from elements_ai.solvers import CFRSolver, build_tree, estimate_tree, machine_memory
from elements_ai.solvers.kernel_tree import count_kernel_tree
from elements_ai.solvers.tree import INFOSET_BYTES, NODE_BYTES, SEQUENCE_BYTES, TreeTooLarge

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
    "elemental_duel": [{"num_territories": n} for n in (1, 2, 3, 4, 6, 12)],
    "elementos": [
        {"rows": 6, "setup": "standard", "max_moves": m} for m in (2, 4, 6, 8, 10)
    ] + [{"rows": 6, "setup": "random", "max_moves": m} for m in (2, 4, 6)] + [{}],
}
BUDGET_GB = 24.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count-limit", type=float, default=1e9, help="walk trees estimated below this many nodes")
    parser.add_argument("--build-limit", type=float, default=3e7, help="build and time trees below this many nodes")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="folder for the CSV")
    args = parser.parse_args(argv)
    total, _ = machine_memory()
    print(f"machine memory {total / 1e9:.1f} GB; verdicts for a {BUDGET_GB:g} GB machine (90% usable)", flush=True)
    rows = []
    for name in elements_ai.GAMES:
        kernel = elements_ai.get_kernel(name)
        variants = SWEEPS.get(name, []) + [v for v in kernel.variants.values() if v not in SWEEPS.get(name, [])]
        per_node = None  # seconds per CFR+ iteration per node, from the largest built tree
        for params in variants:
            game = elements_ai.load_game(name, **params)
            estimate = estimate_tree(game, walks=3000, seed=0)
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
                row["basis"] = "estimated"
                nodes, decisions, edges = estimate.nodes, estimate.decision_nodes, estimate.sequences
                row.update(nodes=nodes, decision_nodes=decisions, decision_edges=edges)
            needed = nodes * NODE_BYTES + edges * SEQUENCE_BYTES + decisions * INFOSET_BYTES
            row["memory_gb"] = needed / 1e9
            row["fits_24gb"] = needed <= 0.9 * BUDGET_GB * 1e9
            if sizes is not None and nodes < args.build_limit:
                try:
                    started = time.perf_counter()
                    tree = build_tree(game)
                    row["build_seconds"] = time.perf_counter() - started
                    row["infosets"] = tree.num_infosets
                    solver = CFRSolver(tree, "cfr+")
                    solver.run(1)
                    started = time.perf_counter()
                    solver.run(3)
                    row["cfr_plus_seconds_per_iteration"] = (time.perf_counter() - started) / 3
                    row["seconds_basis"] = "measured"
                    per_node = row["cfr_plus_seconds_per_iteration"] / nodes
                except ValueError as error:  # no perfect recall
                    row["note"] = str(error).split(": ", 1)[1].split(";")[0]
                    row["fits_24gb"] = False
            elif per_node is not None:
                row["cfr_plus_seconds_per_iteration"] = per_node * nodes
                row["seconds_basis"] = "extrapolated per node"
            rows.append(row)
            verdict = "fits" if row["fits_24gb"] else "does not fit"
            print(f"  {str(game):<80} {row['basis']:>9} {nodes:>12.3g} nodes {needed / 1e9:>10.3g} GB  {verdict}"
                  + (f"  ({row['note']})" if row.get("note") else ""), flush=True)
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "sizes.csv", index=False)
    print(f"\nwrote {args.out / 'sizes.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
