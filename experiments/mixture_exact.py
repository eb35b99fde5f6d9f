"""A learner's last checkpoints, each alone and mixed into one policy, measured exactly.

    python experiments/mixture_exact.py --tree /work/full.tree --run runs/zoo/mmd-elements-round --after 100000000
    python experiments/mixture_exact.py --quick     # a small deck, a tiny MMD run (seconds), into a temporary folder

A run's last iterate may wander about the equilibrium that its iterates surround. This
reads every checkpoint of the run ``--run`` saved after ``--after`` environment steps
at every information set of the game's compact tree (``--tree``: loaded if the file
exists, else built and saved there), and measures exactly:

- each checkpoint's exploitability;
- the exploitability of the mixed strategy "one of these checkpoints, drawn uniformly
  before the round, for the whole round", played as one behavioural policy
  (``solvers.mixture.mixture_probs``, Kuhn's theorem).

Writes ``mixture.csv``/``.md`` and ``run.json`` under ``experiments/results/mixture_exact/``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import EVAL_SEED, compact_tree, parser, results_folder, run_record, seed_of, write_run

import elements_ai
from elements_ai.agents import make_bot
from elements_ai.agents.network import Network
from elements_ai.selfplay import checkpoint
from elements_ai.solvers import evaluate_compact
from elements_ai.solvers.agents import network_probs
from elements_ai.solvers.mixture import mixture_probs
from elements_ai.tables import provenance, write_csv

NAME = "mixture_exact"
FULL_DECK = "elements(single_round=true,hand_size=3)"
QUICK = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"


def quick_run(folder: Path) -> Path:
    """A tiny MMD run on the small deck, a checkpoint every 4 iterations."""
    command = [sys.executable, "-m", "elements_ai", "train", QUICK, "--algorithm", "mmd", "--steps", "4096",
               "--out", str(folder), "--seed", str(EVAL_SEED), "--quiet", "--set", "num_envs=16",
               "--set", "rollout_steps=16", "--set", "hidden=16", "--set", "checkpoint_every=4",
               "--set", "keep_checkpoints=8", "--set", "eval_every=0"]
    subprocess.run(command, check=True)
    return folder


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args = parser(NAME, __doc__.split("\n\n")[0])
    args.add_argument("--run", type=Path, default=None, help="the learner's run folder (its checkpoints)")
    args.add_argument("--after", type=int, default=0, help="take the checkpoints saved after this many steps")
    args.add_argument("--game", default=FULL_DECK, help=f"the game the run learnt (default {FULL_DECK})")
    args.add_argument("--tree", type=Path, default=None,
                      help="the game's compact tree: loaded if the file exists, else built and saved there")
    options = args.parse_args(argv)
    quick = options.quick
    if not quick and (options.run is None or not options.run.is_dir()):
        args.error(f"--run must name a learner's run folder; got {options.run}")
    out = results_folder(NAME, options.out, quick)
    run = quick_run(out / "run") if quick else options.run
    game_string = QUICK if quick else options.game
    try:
        game = elements_ai.load_game(game_string)
    except ValueError as error:
        args.error(str(error))
    seed = seed_of(options)
    measured_with = provenance()
    started = time.perf_counter()

    # Each checkpoint's network records the algorithm that trained it and its steps.
    saved = [(Network.load(path.with_suffix(".npz")).meta, path.with_suffix(".npz"))
             for path in checkpoint.checkpoints(run)]
    chosen = [(int(meta["env_steps"]), path) for meta, path in saved if int(meta["env_steps"]) > options.after]
    if len(chosen) < 2:
        args.error(f"{run} holds {len(chosen)} checkpoint(s) after {options.after:,} steps: a mixture needs two")
    algorithm = str(saved[-1][0]["algorithm"])
    try:  # a run of another game is refused before the tree is built (minutes on the full deck)
        make_bot(f"{algorithm}:ckpt={chosen[0][1]}", game, 0, seed)
    except ValueError as error:
        args.error(str(error))

    tree = compact_tree(game, options.tree, progress=not quick)
    print(f"{game}: {tree.describe()}", flush=True)

    rows, members = [], []
    for steps, path in chosen:
        spec = f"{algorithm}:ckpt={path}"
        probs = network_probs(tree, [make_bot(spec, game, player, seed + player) for player in range(2)], seed=seed)
        members.append(probs)
        exploitability = evaluate_compact(tree, probs).exploitability
        rows.append({"policy": path.name, "steps": steps, "exploitability": exploitability})
        print(f"{path.name} ({steps:,} steps): exploitability {rows[-1]['exploitability']:.4f}", flush=True)
    mixed = mixture_probs(tree, members, np.ones(len(members)))
    rows.append({"policy": f"mixture of the {len(members)}", "steps": chosen[-1][0],
                 "exploitability": evaluate_compact(tree, mixed).exploitability})
    print(f"{rows[-1]['policy']}: exploitability {rows[-1]['exploitability']:.4f}", flush=True)

    table = pd.DataFrame(rows)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(table, out / "mixture.csv")
    (out / "mixture.md").write_text(markdown(table) + "\n")
    write_run(out / "run.json", run_record(
        "mixture_exact.py", argv, measured_with, game=str(game), seed=seed, run=str(run), after=options.after,
        algorithm=algorithm, tree=str(options.tree), nodes=tree.num_nodes, infosets=tree.num_infosets,
        seconds=round(time.perf_counter() - started, 1)))
    print(markdown(table))
    print(f"results in {out}")
    return table


def markdown(table: pd.DataFrame) -> str:
    lines = ["| policy | steps | exploitability |", "|---|---|---|"]
    lines += [f"| {r.policy} | {r.steps:,} | {r.exploitability:.4f} |" for r in table.itertuples()]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
