"""Tabular CFR speed and convergence, against OpenSpiel's C++ solvers on the same games.

Speed: seconds per iteration of each elements_ai algorithm and of OpenSpiel's C++
``CFRPlusSolver`` / ``CFRSolver`` in one run on one machine. On ``leduc_poker`` the
C++ solvers run on OpenSpiel's own C++ game; on this library's games they call back
into Python at every node, so they are also run on ``cached_tree(game=...)``, which
keeps the tree in C++ after the first iteration (the fastest OpenSpiel gets here).
Each figure is the median over repeats of a block of iterations from a fresh
solver (tree building and compilation outside the clock); ratios are to the C++
``CFRPlusSolver`` measured in the same run. Every solver in this table runs on one
thread: OpenSpiel's are single-threaded, LiteEFG is left at its default of one
thread, and ours is given ``threads=1`` (the threads table is for more cores).

LiteEFG (Liu, Farina & Ozdaglar 2024; C++ behind a Python graph API; the optional
``bench`` extra, ``pip install .[bench]``) runs beside them on ``leduc_poker`` and
``liars_dice`` (OpenSpiel's games, default parameters; ``liars_dice`` is 2.9e5 nodes
and in full runs only). Its baselines ``CFRplus``, ``CFR`` and ``DCFR`` are the
graphs of our ``cfr+``, ``cfr`` and ``dcfr`` (DCFR with the same α=1.5, β=0, γ=2),
and every iteration does what ours does: one pass updating player 1, then one
updating player 2 with player 1's new policy (alternating updates), then the
average policy's update, as LiteEFG's own training loop (``baselines/utils.py``)
calls ``update_strategy`` after ``update_graph``. Its ``CFRplus`` and ``DCFR``
alternate so themselves; its ``CFR`` baseline updates both players in one
simultaneous pass, and is driven here with the same two alternating passes (its
graph unchanged), which is the same work per iteration as ours. The average is
LiteEFG's linear one (weight ``t``) for CFR+, its uniform one for CFR and its graph's
own ``t^γ`` one for DCFR, as for ours. A fresh LiteEFG solver is a fresh
``OpenSpielEnv`` (which reads the game back from the text file it wrote) and a
fresh graph, both outside the clock. The ``x LiteEFG CFR+`` column is LiteEFG's
seconds per CFR+ iteration over the row's. Without LiteEFG installed the script
says so in one line and leaves its rows out.

Threads: seconds per iteration of CFR+ (both layouts) and seconds per exact
exploitability (the flat one) on one thread and on every core, on the same tree, and
their ratio, the median of ratios of runs timed one right after the other (seven
pairs in full runs). The compact solver's one-thread row keeps one lane, its fastest way on
one thread, so its ratio counts the cost of the lanes. The trees are ones large
enough to be shared among threads (``sweeps.PARALLEL_NODES``); the target is the CFR+
ratio on ``elements(single_round=true,deck=1_2_3_4_6_6_6_6,hand_size=3)`` (8.2e7
nodes: a few GB and tens of seconds to build), full runs only, judged for the layout
``elements-ai solve`` puts that tree on (compact, ``solvers.commands.COMPACT_FROM_NODES``);
the other layout's ratio is printed beside it, not judged.

Memory: bytes a node of the flat tree and of the compact one (``build_compact``) on
the same game, the tree's arrays, a CFR+ solver's own arrays and the builder's peak
(numpy allocations traced by ``tracemalloc``). The target, at most 10 bytes a node for
the compact tree with its solver and for its builder's peak, is judged on the 8.2e7-node
tree, full runs only.

Convergence: exploitability of the average policy against iterations and against
solver seconds, per algorithm and game (evaluation outside the clock). On
``leduc_poker`` LiteEFG's average policies are evaluated by the same exact
evaluation for a tenth of the iterations, to show its solvers are working ones.

Writes ``cfr_speed.csv``, ``cfr_threads.csv``, ``cfr_memory.csv``, ``cfr_convergence.csv`` (with the
commit and the machine) and ``cfr_convergence.png``. A full run that misses a speed
target exits with status 1; a quick one only prints the verdicts, its timings being
too short to judge.

    python benchmarks/cfr.py            # full run (several minutes; the large tree needs a few GB)
    python benchmarks/cfr.py --quick    # seconds; run by the test suite
    python benchmarks/cfr.py --part speed --games leduc_poker liars_dice   # one part, chosen games
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from unittest import mock

import numba
import numpy as np
import pandas as pd
import pyspiel

import elements_ai
from elements_ai.solvers import ALGORITHMS, CFRSolver, CompactCFRSolver, build_compact, build_tree, evaluate
from elements_ai.solvers.commands import COMPACT_FROM_NODES
from elements_ai.tables import provenance, write_csv

SMALL_ELEMENTS = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
SMALL_DUEL = "elemental_duel(num_territories=1)"
TINY_ELEMENTS = "elements(single_round=true,deck=1_2_6_6,hand_size=1)"
TARGET = ("leduc_poker", "cfr+", 20.0, 50.0)  # game, algorithm, required and aimed ratio to C++ CFR+
MID_ELEMENTS = "elements(single_round=true,deck=1_2_3_4_6_6,hand_size=2)"  # 2.2e5 nodes
LARGE_ELEMENTS = "elements(single_round=true,deck=1_2_3_4_6_6_6_6,hand_size=3)"  # 8.2e7 nodes
# game, cores the ratio is stated for, required ratio of every core to one thread (CFR+)
THREADS_TARGET = (LARGE_ELEMENTS, 2, 1.7)
# game, bytes a node the compact tree with a CFR+ solver, and its builder's peak, stay within
MEMORY_TARGET = (LARGE_ELEMENTS, 10.0)

RESULTS = Path(__file__).resolve().parent / "results"
LITEEFG_GAMES = ("leduc_poker", "liars_dice")
LITEEFG_MISSING = "LiteEFG is not installed: no LiteEFG rows (pip install .[bench])"


def seconds_per_iteration(make, block: int, repeats: int) -> float:
    """Median over ``repeats`` of (seconds for ``block`` iterations) / block, each
    repeat on a fresh solver from ``make()`` that has run one iteration already."""
    times = []
    for _ in range(repeats):
        step = make()
        step(1)
        start = time.perf_counter()
        step(block)
        times.append((time.perf_counter() - start) / block)
    return statistics.median(times)


def import_liteefg():
    """``(LiteEFG, {our algorithm: its LiteEFG baseline})``, or None when LiteEFG
    (the optional ``bench`` extra) is not installed; an installed LiteEFG that fails
    to import raises."""
    try:
        import LiteEFG
    except ModuleNotFoundError as error:
        if error.name == "LiteEFG":
            return None
        raise
    from LiteEFG.baselines import CFR, DCFR, CFRplus

    LiteEFG.set_threads(1)
    return LiteEFG, {"cfr+": CFRplus, "cfr": CFR, "dcfr": DCFR}


# The average policy LiteEFG keeps for each baseline, as ours weighs it: the node
# given to ``update_strategy`` and the ``type_name`` the average is read with.
LITEEFG_AVERAGES = {"cfr+": (None, "linear-avg-iterate"), "cfr": (None, "avg-iterate"),
                    "dcfr": ("average-iterate", "last-iterate")}


@contextlib.contextmanager
def liteefg_folder():
    """A temporary folder for LiteEFG's game files: its ``OpenSpielEnv`` writes each
    game under ``~/game_instances`` and reads it back, so ``HOME`` points here while
    one is built, and the run leaves nothing behind."""
    with tempfile.TemporaryDirectory(prefix="liteefg-") as home:
        yield home


class LiteEFGSolver:
    """One LiteEFG baseline on an OpenSpiel game: a fresh ``OpenSpielEnv`` and graph.
    ``run(n)`` does ``n`` iterations: player 1's pass, player 2's, the average's update."""

    def __init__(self, liteefg, algorithm: str, game: pyspiel.Game, home: str):
        leg, baselines = liteefg
        with mock.patch.dict(os.environ, {"HOME": home}), contextlib.redirect_stdout(io.StringIO()):
            self.env = leg.OpenSpielEnv(game, traverse_type="Enumerate")
            self.graph = baselines[algorithm].graph()  # prints a banner
        self.env.set_graph(self.graph)
        average, self.average_type = LITEEFG_AVERAGES[algorithm]
        self.average = self.graph.current_strategy() if average is None else self.graph.current_strategy(average)
        self.iteration = 0

    def run(self, n: int) -> None:
        env, strategy, average = self.env, self.graph.strategy, self.average
        for _ in range(n):
            env.update(strategy, upd_player=1)
            env.update(strategy, upd_player=2)
            env.update_strategy(average)
        self.iteration += n

    def average_policy(self):
        """The average policy as an OpenSpiel ``TabularPolicy``."""
        return self.env.get_strategy(self.average, self.average_type)[0]


def liteefg_solver(liteefg, algorithm, game, home):
    def make():
        return LiteEFGSolver(liteefg, algorithm, game, home).run

    return make


def ours(tree, algorithm, threads=None):
    def make():
        solver = CFRSolver(tree, algorithm, threads=threads)
        return solver.run

    return make


def theirs(game, cls):
    def make():
        solver = cls(game)

        def step(n):
            for _ in range(n):
                solver.evaluate_and_update_policy()

        return step

    return make


def speed(games: list[str], quick: bool, liteefg=None) -> pd.DataFrame:
    """The speed table; ``liteefg`` is ``import_liteefg()``'s answer (None: no LiteEFG rows)."""
    rows = []
    repeats = 3 if quick else 5
    print(f"\n{'game':<58} {'solver':<40} {'s/iteration':>12} {'x C++ CFR+':>11} {'x LiteEFG CFR+':>15}", flush=True)
    for name in games:
        game = elements_ai.load_game(name) if name.split("(")[0] in elements_ai.GAMES else pyspiel.load_game(name)
        tree = build_tree(game)
        small = tree.num_nodes < 50_000
        ours_block = 20 if quick else 200 if small else 50
        figures = []
        for algorithm in ALGORITHMS:
            seconds = seconds_per_iteration(ours(tree, algorithm, threads=1), ours_block, repeats)
            figures.append((f"elements_ai {algorithm}", seconds))
        python_game = isinstance(game, elements_ai.core.KernelGame)
        cached = pyspiel.load_game(f"cached_tree(game={game})") if python_game else None
        # Iterations of a second or so (OpenSpiel and LiteEFG on liars_dice): fewer of them.
        block = 2 if quick else 20 if small else 4
        for label, cls in (("CFRPlusSolver", pyspiel.CFRPlusSolver), ("CFRSolver", pyspiel.CFRSolver)):
            if python_game:
                # Calling back into Python at every node: seconds per iteration, so few of them.
                direct_block, direct_repeats = (1, 1) if quick else (2, 3)
                if not quick or tree.num_nodes < 5000:
                    seconds = seconds_per_iteration(theirs(game, cls), direct_block, direct_repeats)
                    figures.append((f"openspiel C++ {label}", seconds))
                figures.append(
                    (f"openspiel C++ {label} cached_tree", seconds_per_iteration(theirs(cached, cls), block, repeats))
                )
            else:
                figures.append((f"openspiel C++ {label}", seconds_per_iteration(theirs(game, cls), block, repeats)))
        if liteefg is not None and str(game) in {str(pyspiel.load_game(g)) for g in LITEEFG_GAMES}:
            # A fresh LiteEFG solver rereads the game's file (seconds on liars_dice): fewer repeats there.
            liteefg_repeats = repeats if small else 3
            with liteefg_folder() as home:
                for algorithm in liteefg[1]:
                    make = liteefg_solver(liteefg, algorithm, game, home)
                    figures.append((f"LiteEFG {algorithm}", seconds_per_iteration(make, block, liteefg_repeats)))
        reference_label = "openspiel C++ CFRPlusSolver cached_tree" if python_game else "openspiel C++ CFRPlusSolver"
        reference = dict(figures)[reference_label]
        liteefg_reference = dict(figures).get("LiteEFG cfr+", float("nan"))
        for label, seconds in figures:
            ratio = reference / seconds
            liteefg_ratio = liteefg_reference / seconds
            rows.append(
                {
                    "game": str(game),
                    "solver": label,
                    "seconds_per_iteration": seconds,
                    "x_cpp_cfr_plus": ratio,
                    "x_liteefg_cfr_plus": liteefg_ratio,
                    "reference": reference_label,
                    "nodes": tree.num_nodes,
                    "infosets": tree.num_infosets,
                }
            )
            liteefg_text = "" if np.isnan(liteefg_ratio) else f"{liteefg_ratio:.1f}"
            print(f"{str(game):<58} {label:<40} {seconds:>12.3e} {ratio:>11.1f} {liteefg_text:>15}", flush=True)
        if not np.isnan(liteefg_reference):
            mine = dict(figures)["elements_ai cfr+"]
            print(f"{game}: elements_ai cfr+ {liteefg_reference / mine:.1f}x LiteEFG cfr+ per iteration "
                  f"({mine:.3e} s against {liteefg_reference:.3e} s)", flush=True)
    table = pd.DataFrame(rows)
    table["target"] = ""
    name, algorithm, required, aimed = TARGET
    mask = (table["game"] == str(pyspiel.load_game(name))) & (table["solver"] == f"elements_ai {algorithm}")
    for index in table.index[mask]:
        ratio = table.loc[index, "x_cpp_cfr_plus"]
        verdict = "met" if ratio >= required else "MISSED"
        aim = "reached" if ratio >= aimed else "not reached"
        table.loc[index, "target"] = f">= {required:g}x C++ CFR+: {verdict}; aim {aimed:g}x: {aim}"
        print(f"target on {name} ({algorithm}): {ratio:.1f}x C++ CFR+ per iteration, {table.loc[index, 'target']}")
    return table


def load(name: str) -> pyspiel.Game:
    return elements_ai.load_game(name) if name.split("(")[0] in elements_ai.GAMES else pyspiel.load_game(name)


def evaluations(tree, threads: int):
    """``seconds_per_iteration``'s ``make`` for exact exploitability: a step is one
    evaluation of the uniform policy."""

    def make():
        solver = CFRSolver(tree, "cfr+", threads=threads)

        def step(n):
            for _ in range(n):
                solver.exploitability()

        return step

    return make


def paired_seconds(makes: dict, block: int, repeats: int) -> tuple[dict, dict]:
    """Seconds per iteration of each ``makes[threads]`` and each one's ratio to the
    first: in every repeat each gets a fresh solver that has run one iteration and is
    timed for ``block``, one after the other, so a repeat's ratio compares runs a
    moment apart. Medians over the repeats, of the seconds and of the ratios: on a
    shared machine whose load drifts, the paired ratio is steadier than the ratio of
    two medians taken minutes apart."""
    seconds = {threads: [] for threads in makes}
    for _ in range(repeats):
        for threads, make in makes.items():
            step = make()
            step(1)
            start = time.perf_counter()
            step(block)
            seconds[threads].append((time.perf_counter() - start) / block)
    first = next(iter(makes))
    ratios = {t: statistics.median(a / b for a, b in zip(seconds[first], seconds[t])) for t in makes}
    return {t: statistics.median(times) for t, times in seconds.items()}, ratios


def threads_scaling(games: list[str], quick: bool) -> pd.DataFrame:
    """Seconds per CFR+ iteration and per exploitability on one thread and on every
    core (``numba.config.NUMBA_NUM_THREADS``), on the same tree, in both layouts,
    timed in pairs (``paired_seconds``). The compact solver's one-thread run keeps one
    lane (its fastest); on every core it keeps its default lanes, one a core."""
    every = numba.config.NUMBA_NUM_THREADS
    rows = []
    width = max(len(str(load(name))) for name in games)
    print(f"\n{'game':<{width}} {'layout':<8} {'work':<16} {'threads':>7} {'seconds':>11} {'x 1 thread':>10}",
          flush=True)
    for name in games:
        game = load(name)
        for layout in ("flat", "compact"):
            tree = build_tree(game) if layout == "flat" else build_compact(game)
            block, repeats = (3, 2) if quick else (2, 7) if tree.num_nodes > 10_000_000 else (50, 7)
            works = ("cfr+ iteration", "exploitability") if layout == "flat" else ("cfr+ iteration",)
            for work in works:
                threads_counts = dict.fromkeys((1, every))
                if work == "exploitability":
                    makes = {t: evaluations(tree, t) for t in threads_counts}
                    seconds, ratios = paired_seconds(makes, 1, repeats)
                elif layout == "flat":
                    seconds, ratios = paired_seconds({t: ours(tree, "cfr+", t) for t in threads_counts}, block,
                                                     repeats)
                else:
                    makes = {t: compact(tree, t, 1 if t == 1 else None) for t in threads_counts}
                    seconds, ratios = paired_seconds(makes, block, repeats)
                for threads in threads_counts:
                    rows.append(
                        {
                            "game": str(game),
                            "layout": layout,
                            "work": work,
                            "threads": threads,
                            "seconds": seconds[threads],
                            "x_one_thread": ratios[threads],
                            "nodes": tree.num_nodes,
                            "cores": os.cpu_count(),
                        }
                    )
                    print(f"{str(game):<{width}} {layout:<8} {work:<16} {threads:>7} {seconds[threads]:>11.3e} "
                          f"{ratios[threads]:>10.2f}", flush=True)
            del tree
    table = pd.DataFrame(rows)
    table["target"] = ""
    name, cores, required = THREADS_TARGET
    mask = (
        (table["game"] == str(load(name))) & (table["work"] == "cfr+ iteration") & (table["threads"] == every)
        if name in games else pd.Series(False, index=table.index)
    )
    for index in table.index[mask]:
        ratio = table.loc[index, "x_one_thread"]
        layout = solve_layout(table.loc[index, "nodes"])
        if table.loc[index, "layout"] != layout:
            verdict = f"not judged: elements-ai solve runs this tree on the {layout} layout"
        elif every < cores:
            verdict = f"not judged: numba has {every} thread(s)"
        else:
            verdict = "met" if ratio >= required else "MISSED"
        table.loc[index, "target"] = f">= {required:g}x one thread on {cores} cores: {verdict}"
        print(f"target on {name} (cfr+, {table.loc[index, 'layout']}): {ratio:.2f}x one thread, "
              f"{table.loc[index, 'target']}")
    return table


def solve_layout(nodes: int) -> str:
    """The layout ``elements-ai solve`` (``--layout auto``) puts a tree of ``nodes`` of this library's games on."""
    return "compact" if nodes >= COMPACT_FROM_NODES else "flat"


def compact(tree, threads, lanes):
    def make():
        solver = CompactCFRSolver(tree, "cfr+", threads=threads, lanes=lanes)
        return solver.run

    return make


def _traced_peak(build, game):
    """``build(game)``'s result and the peak bytes numpy allocated while it ran."""
    tracemalloc.start()
    try:
        result = build(game)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def memory(games: list[str]) -> pd.DataFrame:
    """Bytes a node of the flat tree (``build_tree``, ``CFRSolver``) and of the compact
    one (``build_compact``, ``CompactCFRSolver``) on the same game: the tree's arrays,
    a CFR+ solver's own arrays and the builder's peak (numpy allocations traced by
    ``tracemalloc``), each over the number of nodes."""
    rows = []
    print(f"\n{'game':<58} {'layout':<8} {'nodes':>12} {'tree B/node':>12} {'solver B/node':>14} "
          f"{'build peak B/node':>18}", flush=True)
    for name in games:
        game = load(name)
        for layout, build, solve in (("flat", build_tree, CFRSolver), ("compact", build_compact, CompactCFRSolver)):
            build(load(TINY_ELEMENTS))  # compiled outside the trace: numba's compiler allocates too
            tree, peak = _traced_peak(build, game)
            solver = solve(tree, "cfr+", threads=1)
            solver.run(1)
            nodes = tree.num_nodes
            row = {"game": str(game), "layout": layout, "nodes": nodes, "tree_bytes_per_node": tree.nbytes / nodes,
                   "solver_bytes_per_node": solver.nbytes / nodes, "build_peak_bytes_per_node": peak / nodes}
            row["total_bytes_per_node"] = row["tree_bytes_per_node"] + row["solver_bytes_per_node"]
            rows.append(row)
            print(f"{str(game):<58} {layout:<8} {nodes:>12,} {row['tree_bytes_per_node']:>12.2f} "
                  f"{row['solver_bytes_per_node']:>14.2f} {row['build_peak_bytes_per_node']:>18.2f}", flush=True)
            del tree, solver
    table = pd.DataFrame(rows)
    table["target"] = ""
    name, required = MEMORY_TARGET
    for index in table.index[(table["game"] == str(load(name))) & (table["layout"] == "compact")]:
        worst = max(table.loc[index, "total_bytes_per_node"], table.loc[index, "build_peak_bytes_per_node"])
        table.loc[index, "target"] = f"<= {required:g} bytes a node: {'met' if worst <= required else 'MISSED'}"
        print(f"target on {name}: tree and solver {table.loc[index, 'total_bytes_per_node']:.2f}, builder peak "
              f"{table.loc[index, 'build_peak_bytes_per_node']:.2f} bytes a node, {table.loc[index, 'target']}")
    return table


def convergence(games: list[str], iterations: int, points: int, liteefg=None) -> pd.DataFrame:
    """Exploitability curves; LiteEFG's (``import_liteefg()``'s answer, None: none) on
    ``leduc_poker`` only, for a tenth of the iterations."""
    rows = []
    for name in games:
        game = elements_ai.load_game(name) if name.split("(")[0] in elements_ai.GAMES else pyspiel.load_game(name)
        tree = build_tree(game)
        marks = np.unique(np.geomspace(1, iterations, points).astype(int))
        for algorithm in ALGORITHMS:
            solver = CFRSolver(tree, algorithm)
            solver.run(0)
            for mark in marks:
                solver.run(int(mark) - solver.iteration)
                rows.append(
                    {
                        "game": str(game),
                        "solver": f"elements_ai {algorithm}",
                        "iterations": solver.iteration,
                        "seconds": solver.seconds,
                        "exploitability": solver.exploitability(),
                    }
                )
            print(f"{str(game):<58} {algorithm:<6} {iterations} iterations in {solver.seconds:.2f} s: "
                  f"exploitability {rows[-1]['exploitability']:.3e}", flush=True)
        if not isinstance(game, elements_ai.core.KernelGame):
            # OpenSpiel's C++ CFR+ on its own game, for the seconds axis.
            reference = pyspiel.CFRPlusSolver(game)
            done, seconds = 0, 0.0
            for mark in marks[marks <= max(1, iterations // 10)]:
                start = time.perf_counter()
                for _ in range(int(mark) - done):
                    reference.evaluate_and_update_policy()
                seconds += time.perf_counter() - start
                done = int(mark)
                rows.append(
                    {
                        "game": str(game),
                        "solver": "openspiel C++ CFRPlusSolver",
                        "iterations": done,
                        "seconds": seconds,
                        "exploitability": evaluate(tree, reference.average_policy()).exploitability,
                    }
                )
        if liteefg is not None and str(game) == str(pyspiel.load_game("leduc_poker")):
            with liteefg_folder() as home:
                for algorithm in liteefg[1]:
                    solver = LiteEFGSolver(liteefg, algorithm, game, home)
                    seconds = 0.0
                    for mark in marks[marks <= max(1, iterations // 10)]:
                        start = time.perf_counter()
                        solver.run(int(mark) - solver.iteration)
                        seconds += time.perf_counter() - start
                        rows.append(
                            {
                                "game": str(game),
                                "solver": f"LiteEFG {algorithm}",
                                "iterations": solver.iteration,
                                "seconds": seconds,
                                "exploitability": evaluate(tree, solver.average_policy()).exploitability,
                            }
                        )
                    mine = next(
                        row["exploitability"] for row in rows if row["game"] == str(game)
                        and row["solver"] == f"elements_ai {algorithm}" and row["iterations"] == solver.iteration
                    )
                    print(f"{str(game):<58} LiteEFG {algorithm:<6} {solver.iteration} iterations in {seconds:.2f} s: "
                          f"exploitability {rows[-1]['exploitability']:.3e} (elements_ai {algorithm}: {mine:.3e})",
                          flush=True)
    return pd.DataFrame(rows)


def plot(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(table["game"]))
    fig, axes = plt.subplots(len(games), 2, figsize=(11, 3.4 * len(games)), squeeze=False)
    for row, game in enumerate(games):
        part = table[table["game"] == game]
        for solver, curve in part.groupby("solver", sort=False):
            style = "--" if solver.startswith("openspiel") else "-"
            axes[row, 0].loglog(curve["iterations"], curve["exploitability"], style, label=solver)
            axes[row, 1].loglog(curve["seconds"].clip(lower=1e-6), curve["exploitability"], style, label=solver)
        axes[row, 0].set_title(game if len(game) < 60 else game[:57] + "...", fontsize=9)
        axes[row, 0].set_xlabel("iterations")
        axes[row, 1].set_xlabel("solver seconds")
        for ax in axes[row]:
            ax.set_ylabel("exploitability")
            ax.grid(True, which="both", alpha=0.3)
        axes[row, 1].legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parts = ("speed", "threads", "memory", "convergence")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small games and few iterations, for the test suite")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the CSV and PNG files")
    parser.add_argument("--iterations", type=int, help="convergence: iterations per algorithm (default 10000)")
    parser.add_argument("--part", choices=parts, action="append",
                        help="run only this part (may be repeated; default: all)")
    parser.add_argument("--games", nargs="+", help="games of the speed and convergence parts (default: per mode)")
    args = parser.parse_args(argv)
    chosen = args.part or parts
    if args.quick:
        games = ["kuhn_poker", "leduc_poker", TINY_ELEMENTS]
        speed_games = games
        iterations = args.iterations or 100
    else:
        games = ["kuhn_poker", "leduc_poker", SMALL_ELEMENTS, SMALL_DUEL]
        speed_games = [*games, "liars_dice"]
        iterations = args.iterations or 10_000
    if args.games:
        games = speed_games = args.games
    liteefg = import_liteefg()
    if liteefg is None and ("speed" in chosen or "convergence" in chosen):
        print(LITEEFG_MISSING, flush=True)
    files = []
    missed = []
    if "speed" in chosen:
        speed_table = speed(speed_games, args.quick, liteefg)
        write_csv(speed_table.assign(**provenance()), args.out / "cfr_speed.csv")
        files.append("cfr_speed.csv")
        missed += [f"{row.game} {row.solver}: {row.target}" for row in speed_table.itertuples()
                   if "MISSED" in row.target]
    if "threads" in chosen:
        threads_table = threads_scaling([MID_ELEMENTS] if args.quick else [MID_ELEMENTS, LARGE_ELEMENTS], args.quick)
        write_csv(threads_table.assign(**provenance()), args.out / "cfr_threads.csv")
        files.append("cfr_threads.csv")
        missed += [f"{row.game} {row.work}: {row.target}" for row in threads_table.itertuples()
                   if "MISSED" in row.target]
    if "memory" in chosen:
        memory_table = memory([MID_ELEMENTS] if args.quick else [MID_ELEMENTS, LARGE_ELEMENTS])
        write_csv(memory_table.assign(**provenance()), args.out / "cfr_memory.csv")
        files.append("cfr_memory.csv")
        missed += [f"{row.game} {row.layout}: {row.target}" for row in memory_table.itertuples()
                   if "MISSED" in row.target]
    if "convergence" in chosen:
        print()
        convergence_table = convergence(games, iterations, 12 if args.quick else 40, liteefg)
        write_csv(convergence_table.assign(**provenance()), args.out / "cfr_convergence.csv")
        plot(convergence_table, args.out / "cfr_convergence.png")
        files += ["cfr_convergence.csv", "cfr_convergence.png"]
    print(f"\nwrote {', '.join(str(args.out / name) for name in files)}")
    if missed:
        note = " (quick timings: not judged)" if args.quick else ""
        print(f"missed{note}:\n  " + "\n  ".join(missed), file=sys.stderr)
    return 1 if missed and not args.quick else 0


if __name__ == "__main__":
    raise SystemExit(main())
