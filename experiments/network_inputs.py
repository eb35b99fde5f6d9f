"""Does a network's input tell every information set of the round apart?

    python experiments/network_inputs.py --tree /work/full.tree
    python experiments/network_inputs.py --quick     # the small deck (seconds), into a temporary folder

A network plays one policy a tensor. Two information sets of one player with the same
information-state tensor and the same legal moves would have to be played alike, and a
best response could punish that however well the network learnt: the exploitability of
every network would have a floor that no training lowers. This reads every information
set with a choice of the full deck's three-card round (``--tree``: loaded if the file
exists, else built and saved there) in batches, as the exact evaluator does
(``solvers.infostates``), and counts the distinct inputs (player, tensor, legal moves),
by two independent 128-bit hashes of each row, so that the 2.1e7 rows are never held.

Writes ``inputs.csv``/``.md`` and ``run.json`` under ``experiments/results/network_inputs/``.
"""

from __future__ import annotations

import pathlib
import time

import numpy as np
import pandas as pd
from _common import compact_tree, parser, results_folder, run_record, write_run

import elements_ai
from elements_ai.solvers.infostates import encode_states, infoset_states
from elements_ai.tables import provenance, write_csv

NAME = "network_inputs"
FULL_DECK = "elements(single_round=true,hand_size=3)"
QUICK = "elements(single_round=true,deck=1_2_3_4_6_6,hand_size=2)"
BATCH = 1 << 16


def row_hashes(players: np.ndarray, tensors: np.ndarray, masks: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Two 64-bit hashes a row (``keys``: two odd multipliers a column): sums of the
    row's 32-bit words times the keys, modulo 2^64, so that rows that differ collide
    with odds of about 2^-64 each."""
    words = np.concatenate([players[:, None].astype(np.uint64), tensors.view(np.uint32).astype(np.uint64),
                            masks.astype(np.uint64)], axis=1)
    with np.errstate(over="ignore"):
        return np.stack([(words * keys[0]).sum(axis=1), (words * keys[1]).sum(axis=1)], axis=1)


def count_inputs(game, tree) -> tuple[int, int]:
    """``(information sets with a choice, distinct inputs among them)``."""
    keys = None
    hashes = []
    for _, states in infoset_states(tree, BATCH):
        players, tensors, masks, _ = encode_states(game, states)
        if keys is None:
            columns = 1 + tensors.shape[1] + masks.shape[1]
            keys = np.random.default_rng(0).integers(1, 2**63, (2, columns), dtype=np.uint64) | np.uint64(1)
        hashes.append(row_hashes(players, tensors, masks, keys))
    rows = np.concatenate(hashes)
    return len(rows), len(np.unique(rows, axis=0))


def markdown(table: pd.DataFrame) -> str:
    lines = ["| game | information sets with a choice | distinct inputs | merged |", "|---|---|---|---|"]
    lines += [f"| `{r.game}` | {r.decisions:,} | {r.distinct:,} | {r.merged:,} |" for r in table.itertuples()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    args = parser(NAME, __doc__.splitlines()[0])
    args.add_argument("--tree", type=pathlib.Path, default=None,
                      help="the round's compact tree file (loaded if it exists, else built and saved there)")
    options = args.parse_args(argv)
    out = results_folder(NAME, options.out, options.quick)
    record = run_record("network_inputs.py", argv, provenance())
    game_string = QUICK if options.quick else FULL_DECK
    game = elements_ai.load_game(game_string)
    tree = compact_tree(game, None if options.quick else options.tree, progress=not options.quick)
    start = time.perf_counter()
    decisions, distinct = count_inputs(game, tree)
    seconds = time.perf_counter() - start
    table = pd.DataFrame([{"game": game_string, "decisions": decisions, "distinct": distinct,
                           "merged": decisions - distinct}])
    out.mkdir(parents=True, exist_ok=True)
    write_csv(table, out / "inputs.csv")
    (out / "inputs.md").write_text(markdown(table) + "\n")
    write_run(out / "run.json", {**record, "game": game_string, "seconds": round(seconds, 1)})
    print(f"{game_string}: {decisions:,} information sets with a choice, {distinct:,} distinct inputs, "
          f"{decisions - distinct:,} merged ({seconds:.0f} s); in {out}")


if __name__ == "__main__":
    main()
