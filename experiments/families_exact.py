"""The families side by side, exactly, on the full deck's three-card round of ``elements``.

    python experiments/families_exact.py --tree /work/full.tree --runs runs/families
    python experiments/families_exact.py --quick      # a small deck, tiny runs (seconds), into a temporary folder
    python experiments/families_exact.py --tree /work/full.tree --runs runs/families --only mmd --update

On ``elements(single_round=true,hand_size=3)`` (1.93e9 nodes, 2.8e7 information
sets; its compact tree is built once, about 18 minutes, and saved at ``--tree``) each
agent's policy is read at every information set and measured exactly:

- its **exploitability** (``evaluate_compact``: the exact best response of each seat);
- its **expected score** against ``rules``, ``random`` and the CFR policy: the
  expected return of a round, in points (returns span ±2), averaged over the two
  seats (``seat_profile`` + ``profile_values``: one pass over the tree, no games);
- for each learner, its exploitability at checkpoints spread over its run (the curve;
  for MMD also the last one before its colder phase and every one after it).

The agents and how each is made (all from ``--runs``, trained there when missing,
from the evaluation seed ``_common.EVAL_SEED``):

- ``random``, ``rules``: read directly (``rules_probs``: the heuristic in numba);
- ``cfr``: PCFR+ on the tree for ``CFR_ITERATIONS`` iterations
  (``solvers/full_deck.py --tree``), its average policy;
- ``mccfr``: external-sampling MCCFR from the rules kernel (no tree) for
  ``MCCFR_SECONDS`` (20 minutes), its average policy snapshotted at 1/8, 1/4, 1/2
  and all of the budget: the 5-minute snapshot had about PPO's 10M steps' training
  time, the last a third of MMD's run;
- ``ppo``, ``mmd``, ``nfsp``: ``elements-ai train`` runs with the settings of
  ``LEARNERS`` (PPO: the ``ppo-elements`` recipe's league; MMD: the
  ``mmd-elements-round`` recipe, the shipped ``mmd`` of this round; NFSP: the small
  variant's settings, ``experiments/equilibrium.py``), each playing its last network
  (PPO also greedily, as its recipe ships it);
- ``ismcts:sims=1000``: a search, whose policy at 2.8e7 information sets (1,000
  simulations each, about 2 ms here, asked 32 times to read its action frequencies)
  would take more than a week to read: its scores are measured by games (``GAMES`` a pairing,
  seats swapped) and its exploitability is bounded from below by a learned best
  response (``approx_exploitability.learned_best_response``: PPO against the search
  for ``RESPONSE_STEPS`` steps, then ``RESPONSE_GAMES`` games, greedy, seats
  alternated; a 95% t interval). The same response learnt against the shipped ``mmd``
  of this round, whose exact figure is known, shows how far under the exact figure
  such a bound stays (``run.json``'s ``response``).

``--only`` measures some agents into ``measures.json``; with ``--update`` their rows and
curves then take the place of theirs in the tables a full run wrote, and the run is
added to that run's record (``updates``).

Writes ``families.csv``/``.md`` (one row an agent), ``curves.csv`` and
``curves.png`` (exploitability against training steps, and MCCFR's and CFR's against
seconds) and ``run.json`` (the command, the runs' settings, the commit and the
machine) under ``experiments/results/families_exact/``.
"""

from __future__ import annotations

import functools
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import EVAL_SEED, compact_tree, parser, results_folder, run_record, seed_of, write_run

import elements_ai
from elements_ai import zoo
from elements_ai.agents import make_bot
from elements_ai.eval import pairwise, tournament
from elements_ai.files import atomic_write
from elements_ai.selfplay import checkpoint
from elements_ai.solvers import evaluate_compact, profile_values, seat_profile, uniform_probs
from elements_ai.solvers.agents import network_probs, rules_probs
from elements_ai.solvers.compact.values import compact_probs
from elements_ai.solvers.mccfr import MCCFRSolver
from elements_ai.solvers.policy import load_policy
from elements_ai.tables import provenance, write_csv

HERE = Path(__file__).resolve().parent
NAME = "families_exact"
FULL_DECK = "elements(single_round=true,hand_size=3)"
QUICK = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
CFR_ITERATIONS, QUICK_CFR_ITERATIONS = 64, 64
MCCFR_SECONDS, QUICK_MCCFR_SECONDS = 1200.0, 2.0
GAMES, QUICK_GAMES = 1000, 4
# The learned best response to the search: its env steps and the games that measure it.
RESPONSE_STEPS, QUICK_RESPONSE_STEPS = 1_000_000, 1024
RESPONSE_GAMES, QUICK_RESPONSE_GAMES = 2000, 20
# The shipped network whose learned response calibrates the bound (its exact figure is
# known): the round's ``mmd``; the small deck of ``--quick`` ships a ``ppo``.
RESPONSE_CHECK, QUICK_RESPONSE_CHECK = "mmd", "ppo"
CURVE_POINTS = 6  # checkpoints measured a learner, spread evenly on a log scale of steps, the last always
OPPONENTS = ("rules", "random", "cfr")
ISMCTS, QUICK_ISMCTS = "ismcts:sims=1000", "ismcts:sims=20"

# The shipped ``mmd`` of this round is this recipe's run (from the same seed).
MMD_RECIPE = zoo.recipe("mmd-elements-round")

# name: (algorithm, steps, elements-ai train settings). Checkpoints every 5% of the
# steps or so, all kept: they are the curve's points.
LEARNERS: dict[str, tuple[str, int, dict]] = {
    "ppo": ("ppo", 10_000_000, dict(num_envs=128, rollout_steps=32, hidden="128_128", opponents="random_rules",
                                    fixed_share=0.6, self_play=0.2, eval_every=0, checkpoint_every=610,
                                    keep_checkpoints=10)),
    "mmd": ("mmd", MMD_RECIPE.steps, {key: "_".join(map(str, v)) if isinstance(v, list) else v
                                      for key, v in MMD_RECIPE.config.items()}),
    "nfsp": ("nfsp", 2_000_000, dict(num_envs=64, rollout_steps=16, hidden="128_128", rl_lr=0.001, sl_lr=0.001,
                                     optimizer="adam", learn_every=16, target_update_every=2000, eval_every=0,
                                     checkpoint_every=245, keep_checkpoints=10)),
}
QUICK_SETTINGS = dict(num_envs=16, rollout_steps=16, hidden="16", checkpoint_every=4, keep_checkpoints=4)
QUICK_STEPS = 2048


def train_command(game: str, name: str, folder: Path, quick: bool) -> list[str]:
    """The ``elements-ai train`` command of learner ``name`` into ``folder``."""
    algorithm, steps, settings = LEARNERS[name]
    if quick:
        settings = {**settings, **QUICK_SETTINGS}
        settings.pop("anneal_steps", None)
        steps = QUICK_STEPS
    command = [sys.executable, "-m", "elements_ai", "train", game, "--algorithm", algorithm, "--steps", str(steps),
               "--out", str(folder), "--seed", str(EVAL_SEED), "--quiet"]
    for key, value in settings.items():
        command += ["--set", f"{key}={value}"]
    return command


def trained(game: str, name: str, folder: Path, quick: bool) -> Path:
    """``folder`` holding learner ``name``'s run to its steps: trained (or resumed) here if not."""
    steps = QUICK_STEPS if quick else LEARNERS[name][1]
    log = folder / "log.csv"
    if not (log.exists() and int(pd.read_csv(log)["env_steps"].iloc[-1]) >= steps):
        print(f"training {name} into {folder}", flush=True)
        subprocess.run(train_command(game, name, folder, quick), check=True)
    return folder


def mccfr_snapshots(game, folder: Path, seconds: float, seed: int) -> pd.DataFrame:
    """External-sampling MCCFR for ``seconds``, its average policy saved at 1/8, 1/4, 1/2
    and all of the budget (``folder/seconds_*.npz``, listed in ``folder/snapshots.csv``)."""
    listed = folder / "snapshots.csv"
    if listed.exists():
        return pd.read_csv(listed)
    folder.mkdir(parents=True, exist_ok=True)
    solver = MCCFRSolver(game, "external", seed=seed, memory=4e9)  # room for every information set
    rows, solving = [], 0.0
    for share in (1 / 8, 1 / 4, 1 / 2, 1.0):
        while solving < share * seconds:
            clock = time.perf_counter()
            solver.run(100)
            solving += time.perf_counter() - clock
        path = folder / f"iterations_{solver.iteration:012d}.npz"
        solver.average_policy().save(path)
        rows.append({"seconds": solving, "iterations": solver.iteration, "infosets": solver.num_infosets,
                     "dropped": solver.dropped, "file": path.name})
        print(f"mccfr: {solver.iteration:,} iterations in {solving:,.0f} s, {solver.num_infosets:,} "
              f"information sets", flush=True)
    table = pd.DataFrame(rows)
    write_csv(table, listed)
    return table


def cfr_policy(tree_file: Path | None, folder: Path, iterations: int, quick: bool) -> Path:
    """PCFR+'s average policy after ``iterations`` (``folder/policy.npz``, its curve in
    ``folder/curve.csv``): solved here by ``solvers/full_deck.py`` if missing."""
    policy = folder / "policy.npz"
    if not policy.exists():
        sys.path.insert(0, str(HERE / "solvers"))
        import full_deck

        where = ["--quick"] if quick else ["--tree", str(tree_file)]
        # a target no run reaches: the iterations stop it (hours: the budget)
        full_deck.main([*where, "--target", "1e-12", "--hours", "24", "--iterations", str(iterations),
                        "--lanes", "1", "--policy", str(policy), "--out", str(folder)])
    return policy


def curve_points(steps: list[int], points: int) -> list[int]:
    """Indices of at most ``points`` of the checkpoints at ``steps`` (ascending): those
    nearest to steps spread evenly on a log scale, the last always.

    >>> curve_points([5, 10, 15, 20, 25, 30, 35, 40], 4)
    [0, 1, 3, 7]
    """
    if len(steps) <= points:
        return list(range(len(steps)))
    targets = np.geomspace(steps[0], steps[-1], points)
    chosen = {int(np.argmin([abs(math.log(s / t)) for s in steps])) for t in targets}
    return sorted(chosen | {len(steps) - 1})


def log_of(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "log.csv")


def score(tree, mine: np.ndarray, theirs: np.ndarray) -> float:
    """The exact expected return of ``mine`` against ``theirs``, averaged over the seats."""
    first = profile_values(tree, seat_profile(tree, [mine, theirs]))[0]
    second = profile_values(tree, seat_profile(tree, [theirs, mine]))[1]
    return (first + second) / 2


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args = parser(NAME, __doc__.split("\n\n")[0])
    args.add_argument("--tree", type=Path, default=None,
                      help="the full deck's compact tree: loaded if the file exists, else built and saved there")
    args.add_argument("--runs", type=Path, default=None,
                      help="where the agents' runs are (trained there when missing; default: under --out)")
    args.add_argument("--only", nargs="+", default=None,
                      choices=["random", "rules", "mccfr", "cfr", *LEARNERS, "ismcts"],
                      help="measure these agents only (into measures.json; no table written)")
    args.add_argument("--update", action="store_true",
                      help="with --only: put these agents' rows and curves in place of theirs in the tables "
                           "already written (the others kept), and add this run to run.json's updates")
    options = args.parse_args(argv)
    if options.update and not options.only:
        args.error("--update needs --only: the agents whose rows it replaces")
    quick = options.quick
    out = results_folder(NAME, options.out, quick)
    runs = options.runs or out / "runs"
    tables = written_tables(out) if options.update else None  # checked before any run or measure
    game_string = QUICK if quick else FULL_DECK
    game = elements_ai.load_game(game_string)
    seed = seed_of(options)
    measured_with = provenance()
    started = time.perf_counter()

    tree = compact_tree(game, None if quick else options.tree, progress=not quick)
    print(f"{game}: {tree.describe()}", flush=True)

    only = set(options.only or [])

    def wanted(name: str) -> bool:
        return not only or name in only

    # Every run first (each trains, solves or searches on its own), then every measure.
    folders = {name: trained(game_string, name, runs / name, quick) for name in LEARNERS if wanted(name)}
    cfr_file = cfr_policy(options.tree, runs / "cfr", QUICK_CFR_ITERATIONS if quick else CFR_ITERATIONS, quick)
    if wanted("mccfr"):
        snapshots = mccfr_snapshots(game, runs / "mccfr", QUICK_MCCFR_SECONDS if quick else MCCFR_SECONDS, seed)

    def network(spec: str) -> np.ndarray:
        return network_probs(tree, [make_bot(spec, game, player, seed + player) for player in range(2)],
                             seed=seed)

    @functools.cache
    def opponent(name: str) -> np.ndarray:
        if name == "rules":
            return rules_probs(tree, samples=1)  # elements's heuristic draws nothing: exact
        if name == "random":
            return uniform_probs(tree)
        return compact_probs(tree, load_policy(str(cfr_file), game))

    # Each measure is kept in measures.json under the agent and its file's name, size and
    # time, so that a run stopped (or one with --only) does not measure it again.
    cache_path = out / "measures.json"
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}

    def measure(agent: str, source: Path | None, read, full: bool) -> dict:
        """The exploitability of the policy ``read()`` gives and, if ``full``, its scores."""
        key = agent if source is None else f"{agent}|{source.resolve()}|{source.stat().st_size}|" \
                                           f"{int(source.stat().st_mtime)}"
        found = cache.get(key)
        if found is not None and (not full or "vs_rules" in found):
            return found
        clock = time.perf_counter()
        probs = read()
        result = {"exploitability": evaluate_compact(tree, probs).exploitability}
        if full:
            result.update({f"vs_{name}": score(tree, probs, opponent(name)) for name in OPPONENTS})
        cache[key] = result
        out.mkdir(parents=True, exist_ok=True)
        with atomic_write(cache_path, "w") as handle:
            json.dump(cache, handle, indent=1)
        print(f"{agent}: exploitability {result['exploitability']:.4f} ({time.perf_counter() - clock:,.0f} s, "
              f"peak {peak_gb():.1f} GB)", flush=True)
        return result

    def row(agent: str, source: Path | None, read, **fields) -> dict:
        return {"agent": agent, **fields, **measure(agent, source, read, full=True), "measure": "exact"}

    rows, curves = [], []
    if wanted("random"):
        rows.append(row("random", None, lambda: opponent("random"), family="baseline", algorithm="uniform", steps=0,
                        train_seconds=0.0))
    if wanted("rules"):
        rows.append(row("rules", None, lambda: opponent("rules"), family="baseline", algorithm="heuristic", steps=0,
                        train_seconds=0.0))
    if wanted("mccfr"):
        for k, snap in snapshots.iterrows():
            file = runs / "mccfr" / snap["file"]
            fields = dict(family="solver", algorithm="external-sampling MCCFR", steps=int(snap["iterations"]),
                          train_seconds=float(snap["seconds"]))
            read = lambda file=file: compact_probs(tree, load_policy(str(file), game))  # noqa: E731
            last = k == len(snapshots) - 1
            result = row("mccfr", file, read, **fields) if last else measure("mccfr", file, read, full=False)
            if last:
                rows.append(result)
            curves.append({"agent": "mccfr", "steps": fields["steps"], "seconds": fields["train_seconds"],
                           "exploitability": result["exploitability"]})
    if wanted("cfr"):
        cfr_run = json.loads((runs / "cfr" / "run.json").read_text())
        cfr_curve = pd.read_csv(runs / "cfr" / "curve.csv")
        curves += [{"agent": "cfr", "steps": int(r.iterations), "seconds": float(r.solver_seconds),
                    "exploitability": float(r.exploitability)} for r in cfr_curve.itertuples()]
        rows.append(row("cfr", cfr_file, lambda: opponent("cfr"), family="solver", algorithm=cfr_run["algorithm"],
                        steps=int(cfr_run["iterations"]), train_seconds=float(cfr_run["solver_seconds"])))

    for name, folder in folders.items():
        if not wanted(name):
            continue
        algorithm = LEARNERS[name][0]
        log = log_of(folder)
        at_step = dict(zip(log["iteration"], log["env_steps"]))
        clock_at = dict(zip(log["iteration"], log["seconds"].cumsum()))
        saved = [(at_step[int(checkpoint.CHECKPOINT_NAME.match(path.name).group(1))], path)
                 for path in checkpoint.checkpoints(folder)]
        points = curve_points([steps for steps, _ in saved], CURVE_POINTS)
        settings = LEARNERS[name][2]
        if settings.get("cool_steps"):  # the last checkpoint before MMD's cooling and every one after it
            batch = int(settings["num_envs"]) * int(settings["rollout_steps"])
            hot = [k for k, (steps, _) in enumerate(saved) if steps - batch < int(settings["cool_steps"])]
            points = sorted(set(points) | set(range(max(hot, default=0), len(saved))))
        for k in points:
            steps, path = saved[k]
            file = path.with_suffix(".npz")
            spec = f"{algorithm}:ckpt={file}"
            iteration = int(checkpoint.CHECKPOINT_NAME.match(path.name).group(1))
            fields = dict(family="self-play", algorithm=algorithm, steps=int(steps),
                          train_seconds=float(clock_at[iteration]))
            read = lambda spec=spec: network(spec)  # noqa: E731
            if k == len(saved) - 1:
                rows.append(row(name, file, read, **fields))
                result = rows[-1]
                if name == "ppo":  # as its recipe plays it
                    rows.append(row("ppo (greedy)", file, lambda spec=spec: network(spec + ",greedy=true"),
                                    **fields))
            else:
                result = measure(name, file, read, full=False)
            curves.append({"agent": name, "steps": fields["steps"], "seconds": fields["train_seconds"],
                           "exploitability": result["exploitability"]})

    # The search plays games: its policy cannot be read at every information set.
    search = ISMCTS if not quick else QUICK_ISMCTS
    games = QUICK_GAMES if quick else GAMES
    response_record = None
    if wanted("ismcts"):
        search_row = {"agent": search, "family": "search", "algorithm": "IS-MCTS", "steps": 0, "train_seconds": 0.0,
                      "exploitability": math.nan, "measure": f"games ({games} a pairing)"}
        for name in OPPONENTS:
            spec = f"cfr:policy={cfr_file}" if name == "cfr" else name
            played = tournament(game_string, [search, spec], games=games, seed=seed, workers=1, progress=False,
                                report=False)
            pair = pairwise(played)
            found = pair[(pair["agent"] == search) & (pair["opponent"] == spec)].iloc[0]
            search_row[f"vs_{name}"] = float(found["mean_return"])
            search_row[f"vs_{name}_half_width"] = float(found["return_high"] - found["mean_return"])
            print(f"{search} against {name}: {found['mean_return']:+.3f}", flush=True)
        response = responded(game, search, runs, seed, quick, "ismcts")
        search_row.update(exploitability_bound=response["bound"],
                          exploitability_bound_half_width=response["half_width"],
                          response_steps=response["steps"], response_games=response["games"])
        rows.append(search_row)
        shipped = QUICK_RESPONSE_CHECK if quick else RESPONSE_CHECK
        check = responded(game, shipped, runs, seed, quick, f"{shipped}-shipped")
        exact = measure(f"{shipped} (shipped)", None, lambda: network(shipped), full=False)["exploitability"]
        print(f"learned response to the shipped {shipped}: {check['bound']:+.3f}, exact {exact:.4f}", flush=True)
        response_record = {"agent": search, **response,
                           "check": {"agent": f"{shipped} (shipped)", "bound": check["bound"],
                                     "half_width": check["half_width"], "exact": exact}}
    if only and not options.update:
        print(markdown(pd.DataFrame(rows)) if rows else "nothing measured")
        print(f"--only: measures kept in {cache_path}; no table written")
        return pd.DataFrame(rows)

    table, curve_table = pd.DataFrame(rows), pd.DataFrame(curves)
    previous = None
    if options.update:
        table, curve_table, previous = updated(tables, table, curve_table, only, search)
    table.attrs["game"] = game_string
    # Counts that only the search's row has would read as floats beside the others' blanks.
    for column in ("response_steps", "response_games"):
        if column in table:
            table[column] = table[column].astype("Int64")
    out.mkdir(parents=True, exist_ok=True)
    write_csv(table, out / "families.csv")
    write_csv(curve_table, out / "curves.csv")
    (out / "families.md").write_text(markdown(table) + "\n")
    plot(curve_table, table, out / "curves.png")
    record = run_record(
        "families_exact.py", argv, measured_with, game=str(game), seed=seed, tree=str(options.tree),
        runs=str(runs), learners={name: train_command(game_string, name, runs / name, quick)[3:]
                                  for name in LEARNERS},
        cfr_iterations=QUICK_CFR_ITERATIONS if quick else CFR_ITERATIONS,
        mccfr_seconds=QUICK_MCCFR_SECONDS if quick else MCCFR_SECONDS, search=search, games=games,
        nodes=tree.num_nodes, infosets=tree.num_infosets, seconds=round(time.perf_counter() - started, 1),
        peak_resident_gb=round(peak_gb(), 2),
    )
    if response_record is not None:
        record["response"] = response_record
    if previous is not None:  # the full run stays on record; this one is one of its updates
        update = {key: record[key] for key in ("command", "seconds", "peak_resident_gb", "commit", "machine",
                                               "response") if key in record}
        update["learners"] = {name: command for name, command in record["learners"].items() if name in only}
        record = {**previous, "updates": [*previous.get("updates", []), {"agents": sorted(only), **update}]}
    write_run(out / "run.json", record)
    print(markdown(table))
    print(f"results in {out}")
    return table


def responded(game, agent: str, runs: Path, seed: int, quick: bool, folder: str) -> dict:
    """A learned best response to ``agent`` (trained under ``runs/response/<folder>``,
    kept there, so a rerun only plays its games): its mean return, a lower bound on the
    agent's exploitability, with its 95% interval."""
    from approx_exploitability import learned_best_response

    steps = QUICK_RESPONSE_STEPS if quick else RESPONSE_STEPS
    games = QUICK_RESPONSE_GAMES if quick else RESPONSE_GAMES
    found = learned_best_response(game, agent, steps, runs / "response" / folder, seed=seed, eval_games=games)
    print(f"learned response to {agent}: {found['bound']:+.3f} [{found['low']:+.3f}, {found['high']:+.3f}]",
          flush=True)
    return {"steps": steps, "games": found["games"], "bound": found["bound"],
            "half_width": found["high"] - found["bound"]}


def written_tables(out: Path) -> list[Path]:
    """The tables and record a full run wrote under ``out`` (``SystemExit`` if one is missing)."""
    paths = [out / "families.csv", out / "curves.csv", out / "run.json"]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise SystemExit(f"families_exact.py: --update needs a full run's tables first; missing {', '.join(missing)}")
    return paths


def updated(paths: list[Path], table: pd.DataFrame, curves: pd.DataFrame, agents: set[str], search: str):
    """The tables at ``paths`` (``written_tables``) with the rows and curve points of
    ``agents`` replaced by this run's (``table``, ``curves``), in the order the full run
    wrote them, and the run record they came with."""
    names = {search if agent == "ismcts" else agent for agent in agents}

    def owner(agent: str) -> str:  # "ppo (greedy)" belongs to ppo
        return agent.split(" (")[0]

    kept = pd.read_csv(paths[0])
    merged_rows, placed = [], False
    for _, r in kept.iterrows():
        if owner(r["agent"]) not in names:
            merged_rows.append(r.to_dict())
        elif not placed:
            merged_rows += table.to_dict("records")
            placed = True
    if not placed:
        merged_rows += table.to_dict("records")
    kept_curves = pd.read_csv(paths[1])
    curves = pd.concat([kept_curves[~kept_curves["agent"].isin(names)], curves], ignore_index=True)
    order = {agent: k for k, agent in enumerate(dict.fromkeys([*kept_curves["agent"], *curves["agent"]]))}
    curves = curves.sort_values("agent", key=lambda column: column.map(order), kind="stable").reset_index(drop=True)
    columns = list(dict.fromkeys([*kept.columns, *table.columns]))
    return pd.DataFrame(merged_rows, columns=columns), curves, json.loads(paths[2].read_text())


def markdown(table: pd.DataFrame) -> str:
    lines = ["| agent | family | steps | training s | exploitability | vs rules | vs random | vs CFR |",
             "|---|---|---|---|---|---|---|---|"]
    def cell(r, name):
        value = getattr(r, name)
        half = getattr(r, f"{name}_half_width", math.nan)
        return f"{value:+.3f}" + (f" ± {half:.3f}" if isinstance(half, float) and not math.isnan(half) else "")

    for r in table.itertuples():
        exploitability = "not measured" if math.isnan(r.exploitability) else f"{r.exploitability:.4f}"
        bound = getattr(r, "exploitability_bound", math.nan)
        if math.isnan(r.exploitability) and isinstance(bound, float) and not math.isnan(bound):
            exploitability = f"≥ {bound:.3f} ± {r.exploitability_bound_half_width:.3f} (learned response)"
        lines.append(f"| `{r.agent}` | {r.family} | {r.steps:,} | {r.train_seconds:,.0f} | {exploitability} | "
                     f"{cell(r, 'vs_rules')} | {cell(r, 'vs_random')} | {cell(r, 'vs_cfr')} |")
    return "\n".join(lines)


def plot(curves: pd.DataFrame, table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_steps, by_seconds) = plt.subplots(1, 2, figsize=(12, 4.5))
    for k, (agent, rows) in enumerate(curves.groupby("agent", sort=False)):
        rows = rows.sort_values("seconds")
        style = dict(marker="o", label=agent, color=f"C{k}")  # one colour an agent in both panels
        if agent in LEARNERS:
            by_steps.plot(rows["steps"], rows["exploitability"], **style)
        by_seconds.plot(rows["seconds"].clip(lower=1e-3), rows["exploitability"], **style)
    for r in table.itertuples():
        if r.agent in ("random", "rules"):
            for axis in (by_steps, by_seconds):
                axis.axhline(r.exploitability, linestyle=":", color="grey")
                axis.annotate(r.agent, (0.01, r.exploitability), xycoords=("axes fraction", "data"), fontsize=8)
    by_steps.set(xscale="log", yscale="log", xlabel="environment steps", ylabel="exact exploitability",
                 title="learners")
    by_seconds.set(xscale="log", yscale="log", xlabel="training or solving seconds", title="every family")
    for axis in (by_steps, by_seconds):
        axis.legend()
        axis.grid(alpha=0.3)
    fig.suptitle(f"{table.attrs.get('game', FULL_DECK)}: exact exploitability")
    fig.tight_layout()
    with atomic_write(path) as handle:
        fig.savefig(handle, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)


if __name__ == "__main__":
    main()
