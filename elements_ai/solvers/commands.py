"""The work of the ``elements-ai solve`` and ``elements-ai exploitability`` commands
(their parsers are in ``elements_ai.commands.solve``).

::

    elements-ai solve "kuhn_poker" --algorithm cfr+ --iterations 1000 --out kuhn.npz
    elements-ai solve "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --out small.npz
    elements-ai exploitability "kuhn_poker" kuhn.npz
    elements-ai exploitability "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --bot rules
    elements-ai exploitability "elements(single_round=true,hand_size=3)" --bot ppo:ckpt=net.npz --tree round.tree
    elements-ai exploitability "kuhn_poker" kuhn.npz --threads 1
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

import pyspiel

from ..core.params import ParameterError
from ..files import check_output_file
from .cfr import ALGORITHMS

if TYPE_CHECKING:
    from .solver import Solver

MCCFR_ALGORITHMS = {"es-mccfr": "external", "os-mccfr": "outcome"}
LAYOUTS = ("auto", "flat", "compact")
# ``--layout auto`` solves this library's games on the compact tree from this many
# (estimated) nodes: on the 8.2e7-node three-card round its CFR+ iteration took 0.41 s
# on one thread and 0.22 s on two, the flat tree's 0.70 s and 0.52 s; on a 2.2e5-node
# round the two were level on one thread and the flat one ahead on two.
COMPACT_FROM_NODES = 10_000_000


def load_game_string(text: str) -> pyspiel.Game:
    """Any pyspiel game string, this library's games included (``elements_ai.load_game``)."""
    from ..loader import load_game

    return load_game(text, openspiel=True)


@contextlib.contextmanager
def _user_errors() -> Iterator[None]:
    """What the solvers raise for a bad setting or file, as the ``ParameterError`` the
    command line reports in one line: a value out of range, a missing, damaged or
    foreign file, a tree too large for this machine."""
    from .tree import TreeTooLarge

    try:
        yield
    except ParameterError:
        raise
    except (ValueError, KeyError, OSError, TreeTooLarge) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        raise ParameterError(str(message)) from None


def _check_resume(out: str) -> None:
    if not os.path.exists(out):
        raise ParameterError(f"--resume: {out} does not exist")
    check_output_file(out)


def _check_threads(threads: int | None) -> None:
    if threads is not None and threads < 1:
        raise ParameterError(f"--threads must be >= 1, got {threads}")


def _evaluation_points(iterations: int, points: int = 60) -> list[int]:
    """Iterations after which to measure exploitability: spread on a log scale, so
    the bar moves early and the measuring costs a few percent of the run."""
    import numpy as np

    marks = np.unique(np.geomspace(1, max(iterations, 1), num=points).astype(int))
    return [int(m) for m in marks if m <= iterations] or [iterations]


def solve(
    game_string: str,
    algorithm: str,
    iterations: int,
    out: str,
    *,
    resume: bool = False,
    alpha: float | None = None,
    beta: float | None = None,
    gamma: float | None = None,
    seed: int = 0,
    memory: float | None = None,
    evaluate: bool = True,
    threads: int | None = None,
    layout: str = "auto",
    stream: TextIO | None = None,
) -> float | None:
    """Runs a solver and writes its policy to ``out``; returns the final
    exploitability (``None`` when it was not measured). ``threads``: cores for the
    tabular solvers and exact exploitability (default every core; MCCFR's sampling
    runs on one). ``layout``: the tabular solvers' tree, ``flat`` (``CFRSolver``,
    any pyspiel game), ``compact`` (``CompactCFRSolver``, this library's games, 5
    bytes a node) or ``auto``: compact for this library's games from
    ``COMPACT_FROM_NODES`` estimated nodes; with ``resume``, the file's."""
    stream = stream or sys.stderr
    if iterations < 0:
        raise ParameterError(f"--iterations must be >= 0, got {iterations}")
    if layout not in LAYOUTS:
        raise ParameterError(f"unknown layout {layout!r}; the layouts are {', '.join(LAYOUTS)}")
    _check_threads(threads)
    if not resume and not game_string:
        raise ParameterError("give the game to solve (or --resume to continue the solver in --out)")
    if resume:
        _check_resume(out)
    else:
        check_output_file(out)
    if algorithm in MCCFR_ALGORITHMS:
        if layout != "auto":
            raise ParameterError(f"--layout is for the tabular solvers; {algorithm} samples the game without a tree")
        return _solve_mccfr(game_string, algorithm, iterations, out, resume, seed, memory, evaluate, threads, stream)
    if algorithm not in ALGORITHMS:
        every = ", ".join([*ALGORITHMS, *MCCFR_ALGORITHMS])
        raise ParameterError(f"unknown algorithm {algorithm!r}; the algorithms are {every}")
    from .cfr import CFRSolver
    from .compact import CompactCFRSolver

    game = load_game_string(game_string) if game_string else None
    with _user_errors():
        if resume:
            saved = _saved_layout(out)
            if layout != "auto" and layout != saved:
                raise ParameterError(f"--layout {layout}: {out} was solved on the {saved} tree; resume it on that one")
            solver_class = CompactCFRSolver if saved == "compact" else CFRSolver
            solver = solver_class.load(out, game, threads=threads)
        else:
            compact = _compact_layout(game, layout)
            solver_class = CompactCFRSolver if compact else CFRSolver
            solver = solver_class(game, algorithm, alpha=alpha, beta=beta, gamma=gamma, progress=True,
                                  threads=threads)
    print(f"{solver.game}: {solver.tree.describe()}", file=stream)
    return _drive(solver, iterations, _evaluation_points(iterations), solver.exploitability if evaluate else None,
                  lambda: "", out, stream)


def _drive(solver: Solver, iterations: int, marks: list[int], measure: Callable[[], float] | None,
           status: Callable[[], str], out: str, stream: TextIO) -> float | None:
    """Runs ``iterations`` more of any solver, stopping after each of ``marks`` to
    ``measure`` its exploitability (or show its ``status``), then saves it to ``out``."""
    from ..progress import progress_bar

    start = solver.iteration
    exploitability = None
    with progress_bar(total=iterations, desc=solver.algorithm, unit=" it", unit_scale=True, file=stream) as bar:
        for mark in marks:
            solver.run(start + mark - solver.iteration)
            bar.update(solver.iteration - start - bar.n)
            if measure is not None:
                exploitability = measure()
                bar.set_postfix_str(f"exploitability {exploitability:.3e}")
            elif status():
                bar.set_postfix_str(status())
    _save(solver, out)
    if exploitability is not None:
        print(f"iterations {solver.iteration}, exploitability {exploitability!r}; wrote {out}", file=stream)
    return exploitability


def _save(solver, out: str) -> None:
    """Writes ``solver`` to ``out`` (checked before the work); should that fail all the
    same (the folder gone, the disk full), the finished result goes to a new temporary
    folder, which the error names."""
    try:
        solver.save(out)
    except OSError as error:
        rescue = os.path.join(tempfile.mkdtemp(prefix="elements-ai-solve-"), os.path.basename(out))
        solver.save(rescue)
        raise ParameterError(f"--out {out}: cannot write it ({error.strerror or error}); "
                             f"the result is saved in {rescue}") from None


def _compact_layout(game, layout: str) -> bool:
    """Does ``layout`` put ``game`` on the compact tree?"""
    from .estimate import estimate_tree
    from .flat import is_kernel_game

    if layout == "flat":
        return False
    if not is_kernel_game(game):
        if layout == "compact":
            raise ParameterError(f"--layout compact builds from this library's rules kernels; {game} is not one of "
                                 f"its games: use --layout flat")
        return False
    return layout == "compact" or estimate_tree(game, walks=500).nodes >= COMPACT_FROM_NODES


def _saved_layout(path: str) -> str:
    """The tree (``flat`` or ``compact``) of the solver saved at ``path``."""
    from .policy import FORMAT, read_header

    return read_header(path, FORMAT).get("info", {}).get("layout", "flat")


def _solve_mccfr(game_string, algorithm, iterations, out, resume, seed, memory, evaluate, threads, stream):
    from .mccfr import MCCFRSolver

    game = load_game_string(game_string) if game_string else None
    with _user_errors():
        if resume:
            solver = MCCFRSolver.load(out, game)
        else:
            kwargs = {} if memory is None else {"memory": memory * 1e9}
            solver = MCCFRSolver(game, MCCFR_ALGORITHMS[algorithm], seed=seed, **kwargs)
    print(f"{solver.game}: {solver.describe_table()}", file=stream)
    tree = None
    if evaluate:
        from .tree import TreeTooLarge, build_tree

        try:
            tree = build_tree(solver.game)
        except TreeTooLarge:
            print("the tree is too large for exact exploitability; showing the table instead", file=stream)
    chunks = 50
    marks = [iterations * c // chunks for c in range(1, chunks + 1)]
    measure = None if tree is None else lambda: solver.evaluate(tree, threads=threads).exploitability
    return _drive(solver, iterations, marks, measure, lambda: f"{solver.num_infosets:,} infosets", out, stream)


def exploitability_report(
    game_string: str, path: str | None, bot: str | None, samples: int, out: TextIO, threads: int | None = None,
    layout: str = "auto", tree_file: str | None = None,
) -> None:
    """Prints NashConv and exploitability of a policy file or a bot, to full precision
    (the best responses on ``threads`` cores, default every core). One of this
    library's games is evaluated on the tree ``layout`` chooses, as ``solve``'s; with
    ``tree_file``, on the compact tree saved there (built and saved first when the
    file does not exist yet)."""
    _check_threads(threads)
    if layout not in LAYOUTS:
        raise ParameterError(f"unknown layout {layout!r}; the layouts are {', '.join(LAYOUTS)}")
    from .best_response import evaluate_probs
    from .policy import load_policy
    from .tree import build_tree

    game = load_game_string(game_string)
    if (path is None) == (bot is None):
        raise ParameterError("give a policy FILE or --bot SPEC (one of them)")
    if tree_file is not None:
        if layout == "flat":
            raise ParameterError("--tree saves and loads the compact tree: leave out --layout flat")
        layout = "compact"
    with _user_errors():
        if path is not None and not os.path.exists(path):
            raise ParameterError(f"no such file: {path}")
        table = load_policy(path, game) if path is not None else None
        compact = _compact_layout(game, layout)
        if compact:
            from .compact import compact_probs, evaluate_compact

            tree = _compact_tree(game, tree_file)
            probs = compact_probs(tree, table) if table is not None else None
        else:
            tree = build_tree(game, progress=True)
            probs = table.on_tree(tree) if table is not None else None
    what = path
    if probs is None:
        from .agents import bot_policy, is_exact_bot

        probs = bot_policy(tree, bot, samples=samples, progress=True)
        exact = is_exact_bot(bot)
        what = f"bot {bot}" + ("" if exact else f" (action frequencies over {samples} samples per information set)")
    result = evaluate_compact(tree, probs, threads=threads) if compact else evaluate_probs(tree, probs,
                                                                                           threads=threads)
    _print_evaluation(game, what, result, out)


def _compact_tree(game, tree_file: str | None):
    """The compact tree of ``game``: loaded from ``tree_file`` if it exists, else built
    (and saved there, when given)."""
    from .compact import build_compact
    from .compact.file import load_compact, save_compact

    if tree_file is not None and os.path.exists(tree_file):
        if os.path.isdir(tree_file):
            raise ParameterError(f"--tree {tree_file} is a folder, not a file")
        return load_compact(tree_file, game)
    if tree_file is not None:
        check_output_file(tree_file, "--tree")
    tree = build_compact(game, progress=True)
    if tree_file is not None:
        save_compact(tree, tree_file)
    return tree


def _print_evaluation(game, what: str, result, out: TextIO) -> None:
    print(f"game: {game}", file=out)
    print(f"policy: {what}", file=out)
    print(f"NashConv: {result.nash_conv!r}", file=out)
    print(f"exploitability: {result.exploitability!r}", file=out)
    for player, (best, value) in enumerate(zip(result.best_response_values, result.policy_values)):
        print(f"player {player}: policy value {value!r}, best response value {best!r}", file=out)


def run_solve(args) -> int:
    """``elements-ai solve``: the parsed arguments to a policy file."""
    started = time.perf_counter()
    solve(
        args.game,
        args.algorithm,
        args.iterations,
        args.out,
        resume=args.resume,
        alpha=args.alpha,
        beta=args.beta,
        gamma=args.gamma,
        seed=args.seed,
        memory=args.memory,
        evaluate=not args.no_eval,
        threads=args.threads,
        layout=args.layout,
    )
    print(f"done in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


def run_exploitability(args) -> int:
    """``elements-ai exploitability``: the parsed arguments to a report on stdout."""
    exploitability_report(args.game, args.file, args.bot, args.samples, sys.stdout, threads=args.threads,
                          layout=args.layout, tree_file=args.tree)
    return 0
