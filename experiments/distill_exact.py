"""Can a network of a given shape play the full deck's round near equilibrium? CFR's
average policy is distilled into it, and its exploitability is then measured exactly.

    python experiments/distill_exact.py --tree /work/full.tree                 # the 128x128 net of the recipes
    python experiments/distill_exact.py --tree /work/full.tree --hidden 256_256
    python experiments/distill_exact.py --quick                                # a small deck, a temporary folder

The self-play learners (``mmd-elements-round``: 0.136) stop far above the 0.05 target.
This separates the two reasons they could: a network of their shape that cannot
represent a policy near equilibrium, or a learner that does not find one. The
teacher is PCFR+ on the compact tree, run ``--iterations`` times (its average
policy's exploitability is measured too). The student is the learners' network
(``PolicyValueNet``, ``--hidden``), trained by cross-entropy on the teacher's
action probabilities at ``--rows`` information sets. They are drawn half in
proportion to the teacher's own reach (the product of its own action probabilities
on the way there: where the teacher plays) and half uniformly (where a best
responder may lead it; ``--uniform`` sets the share). Five in a hundred are held out to measure the fit. The
student's policy is then read at every information set and evaluated exactly, as
``elements-ai exploitability`` does. The shipped ``mmd`` of the round is read on
the same held-out rows, for its distance to the teacher.

Writes ``distill.csv`` (one row an evaluation), ``distill.md``, ``student.npz``
(the network, playable as ``mmd:ckpt=FILE``) and ``run.json`` under ``--out``
(default ``experiments/results/distill_exact/<hidden>``).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numba as nb
import numpy as np
import pandas as pd
import torch

import elements_ai
from elements_ai.agents import make_bot
from elements_ai.selfplay.net import PolicyValueNet, masked_log_probs
from elements_ai.solvers import build_compact, evaluate_compact
from elements_ai.solvers.agents import bot_policy
from elements_ai.solvers.compact.file import load_compact, save_compact
from elements_ai.solvers.compact.solver import CompactCFRSolver
from elements_ai.solvers.infostates import encode_states, infoset_states
from elements_ai.tables import provenance, write_csv

ROOT = Path(__file__).resolve().parent
FULL_DECK = "elements(single_round=true,hand_size=3)"
QUICK = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"


@nb.njit(cache=True)
def _own_reach(infoset_parent, infoset_parent_infoset, probs, out):
    """Each information set's own reach: its player's probabilities along its own
    sequence to it. Returns False where a parent comes after its child (not filled)."""
    for infoset in range(out.shape[0]):
        parent = infoset_parent_infoset[infoset]
        if parent < 0:
            out[infoset] = 1.0
        elif parent >= infoset:
            return False
        else:
            out[infoset] = out[parent] * probs[infoset_parent[infoset]]
    return True


@nb.njit(cache=True)
def _targets(infosets, infoset_first, sequence_action, probs, out):
    for b in range(infosets.shape[0]):
        for s in range(infoset_first[infosets[b]], infoset_first[infosets[b] + 1]):
            out[b, sequence_action[s]] = probs[s]


def teacher(tree, iterations: int) -> tuple[np.ndarray, float, float]:
    """PCFR+'s average policy after ``iterations``, its exploitability and the seconds."""
    solver = CompactCFRSolver(tree, "pcfr+")
    started = time.perf_counter()
    for _ in range(iterations):
        solver.run(1)
        print(f"  PCFR+ iteration {solver.iteration}: {time.perf_counter() - started:,.0f} s", flush=True)
    probs = solver.average_probs()
    del solver
    return probs, evaluate_compact(tree, probs).exploitability, time.perf_counter() - started


def sample(tree, probs: np.ndarray, rows: int, seed: int, uniform: float = 0.5):
    """The information states, legal masks and teacher's probabilities of about ``rows``
    information sets, drawn as the module says (``uniform``: the share drawn uniformly)."""
    game = tree.game
    reach = np.empty(tree.num_infosets)
    if not _own_reach(tree.infoset_parent, tree.infoset_parent_infoset, probs, reach):
        raise RuntimeError("an information set's own parent comes after it: the reach needs another order")
    multi = np.diff(tree.infoset_first) > 1  # the others are not asked
    reach[~multi] = 0.0
    chance = (1 - uniform) * reach / reach.sum() + uniform * multi / multi.sum()
    keep = np.random.default_rng(seed).random(tree.num_infosets) < np.minimum(1.0, rows * chance)
    count = int(keep.sum())
    infos = np.empty((count, game.config.info_size), np.float32)
    masks = np.empty((count, game.num_distinct_actions()), np.bool_)
    targets = np.zeros((count, game.num_distinct_actions()), np.float32)
    filled = 0
    for infosets, states in infoset_states(tree):
        chosen = keep[infosets]
        if not chosen.any():
            continue
        _, tensors, legal, _ = encode_states(game, states[chosen])
        stop = filled + len(tensors)
        infos[filled:stop], masks[filled:stop] = tensors, legal
        _targets(infosets[chosen], tree.infoset_first, tree.sequence_action, probs, targets[filled:stop])
        filled = stop
    return infos, masks, targets


def distance(network, infos, masks, targets, batch: int = 1 << 14) -> tuple[float, float]:
    """A network's mean cross-entropy to the teacher and mean KL from it, in nats, read
    with the numpy forward that its bot plays with."""
    cross = entropy = 0.0
    for start in range(0, len(infos), batch):
        rows = slice(start, start + batch)
        probs, target = network.probabilities(infos[rows], masks[rows]), targets[rows]
        taught = target > 0
        cross -= float(np.sum(target[taught] * np.log(np.maximum(probs[taught], 1e-30))))
        entropy -= float(np.sum(target[taught] * np.log(target[taught])))
    return cross / len(infos), (cross - entropy) / len(infos)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=None,
                        help="the compact tree's file: loaded if it exists, else built and saved there")
    parser.add_argument("--iterations", type=int, default=32, help="PCFR+ iterations of the teacher (default 32)")
    parser.add_argument("--teacher", type=Path, default=None,
                        help="the teacher's policy file (.npz): read if it exists, else solved and saved there")
    parser.add_argument("--hidden", default="128_128", help="the student's hidden layers (default 128_128)")
    parser.add_argument("--rows", type=int, default=3_000_000, help="information sets drawn (default 3,000,000)")
    parser.add_argument("--uniform", type=float, default=0.5,
                        help="the share of information sets drawn uniformly, the rest by the teacher's reach "
                             "(default 0.5)")
    parser.add_argument("--epochs", type=int, default=6, help="passes over the drawn rows (default 6)")
    parser.add_argument("--evaluate", default="", help="also evaluate exactly after these epochs (e.g. 2_4)")
    parser.add_argument("--batch", type=int, default=4096, help="minibatch (default 4096)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's first learning rate, cosine to 1/100 of it")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--quick", action="store_true",
                        help="a small deck (seconds), into a temporary folder: 20 epochs in batches of 128 at 3e-3")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "experiments/distill_exact.py", *(sys.argv[1:] if argv is None else argv)])
    try:
        hidden = tuple(int(h) for h in args.hidden.split("_"))
        evaluate_after = {int(e) for e in args.evaluate.split("_") if e}
    except ValueError:
        parser.error(f"--hidden and --evaluate are numbers joined by _, got {args.hidden!r} and {args.evaluate!r}")
    if not 0 <= args.uniform <= 1:
        parser.error(f"--uniform is a share from 0 to 1, got {args.uniform}")
    if min(hidden) < 1 or args.iterations < 1 or args.rows < 100 or args.epochs < 1:
        parser.error("--hidden, --iterations, --epochs must be positive and --rows at least 100")
    if args.quick:  # the small deck's 9,842 information sets: small batches, a faster rate
        args.iterations, args.rows, args.epochs = min(args.iterations, 20), min(args.rows, 20_000), 20
        args.batch, args.lr = min(args.batch, 128), 3e-3
    evaluate_after.add(args.epochs)
    for given in (args.tree, args.teacher):
        if given is not None and not given.is_file() and not given.parent.is_dir():
            parser.error(f"{given}: no such file, and its folder {given.parent} does not exist to write it")
    game = elements_ai.load_game(QUICK if args.quick else FULL_DECK)
    out = args.out or (Path(tempfile.mkdtemp(prefix="distill-quick-")) if args.quick
                       else ROOT / "results" / "distill_exact" / args.hidden)
    out.mkdir(parents=True, exist_ok=True)
    measured_with = provenance()
    torch.manual_seed(args.seed)

    started = time.perf_counter()
    if args.tree is not None and args.tree.is_file():
        tree = load_compact(args.tree, game)
    else:
        tree = build_compact(game, progress=not args.quick)
        if args.tree is not None:
            save_compact(tree, args.tree)
    print(f"{game}: {tree.describe()} ({time.perf_counter() - started:,.0f} s)", flush=True)

    if args.teacher is not None and args.teacher.is_file():
        try:
            saved = dict(np.load(args.teacher))
            iterations = int(saved["iterations"])
        except (ValueError, KeyError, OSError) as error:
            parser.error(f"--teacher {args.teacher}: not a teacher file this script wrote ({error})")
        if iterations != args.iterations or len(saved["probs"]) != tree.num_sequences:
            parser.error(f"--teacher {args.teacher}: saved after {iterations} iterations on a tree of "
                         f"{len(saved['probs']):,} sequences, not {args.iterations} on this one's "
                         f"{tree.num_sequences:,}")
        probs, teacher_exploitability = saved["probs"], float(saved["exploitability"])
        teacher_seconds = float(saved["seconds"])
    else:
        probs, teacher_exploitability, teacher_seconds = teacher(tree, args.iterations)
        if args.teacher is not None:
            partial = args.teacher.with_name(args.teacher.name + ".partial")
            with open(partial, "wb") as file:  # renamed once whole: a reader never finds half a file
                np.savez(file, probs=probs, exploitability=teacher_exploitability, seconds=teacher_seconds,
                         iterations=args.iterations)
            partial.replace(args.teacher)
    print(f"teacher: PCFR+ x{args.iterations}, exploitability {teacher_exploitability:.5f}", flush=True)
    infos, masks, targets = sample(tree, probs, args.rows, args.seed, args.uniform)
    held = np.random.default_rng(args.seed + 1).random(len(infos)) < 0.05
    train, test = np.flatnonzero(~held), np.flatnonzero(held)
    test_rows = infos[test], masks[test], targets[test]
    print(f"{len(train):,} rows to learn from, {len(test):,} held out", flush=True)
    # No mmd ships for the small deck.
    mmd_kl = None if args.quick else distance(make_bot("mmd", game, 0).net, *test_rows)[1]

    net = PolicyValueNet(game.config.info_size, game.num_distinct_actions(), game.num_players(), hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    steps = args.epochs * (len(train) // args.batch)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps, eta_min=args.lr / 100)
    generator = torch.Generator().manual_seed(args.seed)
    results = []
    student = out / "student.npz"
    for epoch in range(1, args.epochs + 1):
        order = train[torch.randperm(len(train), generator=generator).numpy()]
        for start in range(0, len(order) - args.batch + 1, args.batch):
            rows = np.sort(order[start:start + args.batch])
            info, mask, target = (torch.from_numpy(a[rows]) for a in (infos, masks, targets))
            log_probs = masked_log_probs(net(info)[0], mask).masked_fill(~mask, 0.0)
            loss = -(target * log_probs).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        ce, kl = distance(net.to_network(), *test_rows)
        row = {"hidden": args.hidden, "epoch": epoch, "held_out_kl": kl, "held_out_cross_entropy": ce,
               "exploitability": None, "seconds": round(time.perf_counter() - started, 1)}
        if epoch in evaluate_after:
            net.to_network({"game": str(game), "algorithm": "distilled", "teacher": f"pcfr+ x{args.iterations}",
                            "epoch": epoch}).save(student)
            row["exploitability"] = evaluate_compact(tree, bot_policy(tree, f"mmd:ckpt={student}")).exploitability
        results.append(row)
        print(f"epoch {epoch}: held-out KL {kl:.4f}, exploitability {row['exploitability']}", flush=True)

    write_csv(pd.DataFrame(results), out / "distill.csv")
    best = min((r for r in results if r["exploitability"] is not None), key=lambda r: r["exploitability"])
    run = {"command": command, "game": str(game), "hidden": list(hidden), "uniform": args.uniform,
           "teacher": f"PCFR+ x{args.iterations}",
           "teacher_exploitability": teacher_exploitability, "teacher_seconds": round(teacher_seconds, 1),
           "rows": len(train), "held_out": len(test), "shipped_mmd_held_out_kl": mmd_kl,
           "student_exploitability": best["exploitability"], "results": results, **measured_with}
    (out / "run.json").write_text(json.dumps(run, indent=1) + "\n")
    lines = [f"# CFR's policy distilled into a {args.hidden} network, judged exactly", "",
             f"Written by `{command}`.", "",
             f"- game: `{game}`",
             f"- teacher: PCFR+ after {args.iterations} iterations, exploitability {teacher_exploitability:.5f}",
             f"- student: hidden {list(hidden)}, {len(train):,} information sets learnt, {len(test):,} held out",
             "" if mmd_kl is None
             else f"- the shipped `mmd`'s KL from the teacher on the held-out rows: {mmd_kl:.4f} nats",
             "",
             "| epoch | held-out KL (nats) | exact exploitability |", "|---|---|---|"]
    lines += [f"| {r['epoch']} | {r['held_out_kl']:.4f} | "
              f"{'' if r['exploitability'] is None else format(r['exploitability'], '.5f')} |" for r in results]
    (out / "distill.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return run


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the teacher's file is renamed into place whole and the tables come last
        raise SystemExit("distill_exact.py: stopped; nothing half-written") from None
