"""Two checkouts of the library, the same solvers: do they give the same bits, as fast?

    python experiments/solvers/compare_checkouts.py OLD_DIR NEW_DIR [--out DIR]

For a reshaping of the solvers (code moved, steps shared) that must change nothing:
in each checkout, in turn and in a fresh interpreter each time, it builds the compact
tree of a 237,157-node variant, runs CFR+, PCFR+ and DCFR on it (two threads, cut into
tasks so the lanes are used), and times the build, a CFR+ iteration and an
exploitability; it repeats that ``--repeats`` times, alternating the checkouts so that
a machine's drifting load falls on both. It then compares every array (the tree, the
average policies) bit for bit and writes the timings (medians) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

GAME = "elements(single_round=true,deck=1_2_3_4_6_6_6,hand_size=2)"

CHILD = """
import json, sys, time, statistics, numpy as np, elements_ai
from elements_ai.solvers import CompactCFRSolver, build_compact
game = elements_ai.load_game(sys.argv[1])
start = time.perf_counter(); tree = build_compact(game); build = time.perf_counter() - start
arrays = {"node_shape": tree.node_shape, "node_code": tree.node_code, "keys": tree.keys}
for algorithm in ("cfr+", "pcfr+", "dcfr"):
    solver = CompactCFRSolver(tree, algorithm, threads=2, task_nodes=20000)
    solver.run(100)
    arrays[algorithm] = solver.average_probs()
solver = CompactCFRSolver(tree, "cfr+", threads=2, task_nodes=20000)
solver.run(2)
iterations = []
for _ in range(5):
    start = time.perf_counter(); solver.run(10); iterations.append((time.perf_counter() - start) / 10)
evaluations = []
for _ in range(3):
    start = time.perf_counter(); solver.exploitability(); evaluations.append(time.perf_counter() - start)
np.savez(sys.argv[2], **arrays)
print(json.dumps({"build": build, "iteration": statistics.median(iterations),
                  "exploitability": statistics.median(evaluations), "module": elements_ai.__file__}))
"""


def run(checkout: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONSAFEPATH": "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, GAME, str(out)], env=env, capture_output=True, text=True,
                          check=True)
    timing = json.loads(done.stdout.strip().splitlines()[-1])
    if not timing["module"].startswith(str(checkout)):
        raise SystemExit(f"{checkout}: the child imported {timing['module']}, not this checkout's package")
    return timing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results"
                        / "solvers_by_concern")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp())
    timings: dict[str, list[dict]] = {"old": [], "new": []}
    for k in range(args.repeats):
        for name in ("old", "new"):
            timings[name].append(run(getattr(args, name).resolve(), folder / f"{name}-{k}.npz"))
    old, new = np.load(folder / "old-0.npz"), np.load(folder / "new-0.npz")
    same = sorted(old.files) == sorted(new.files) and all(np.array_equal(old[f], new[f]) for f in old.files)
    rows = []
    for what in ("build", "iteration", "exploitability"):
        a = statistics.median(t[what] for t in timings["old"])
        b = statistics.median(t[what] for t in timings["new"])
        rows.append(f"| {what} | {a:.3e} s | {b:.3e} s | {b / a:.2f} |")
    table = "\n".join(["| work | old (median) | new (median) | new / old |", "|---|---|---|---|", *rows]) + "\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "timings.md").write_text(table)
    (args.out / "same_bits.txt").write_text(f"{GAME}: tree and average policies (cfr+, pcfr+, dcfr, 100 "
                                            f"iterations) {'identical' if same else 'DIFFER'}\n")
    print(table + ("same bits" if same else "the bits differ"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
