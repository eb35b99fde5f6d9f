"""Compiles the numba kernels the suite meets into numba's on-disk cache, in parts.

Each pytest-xdist worker compiles what it meets first, so on a cold cache both
workers compiled the same kernels, MCTS for each game among them (about a minute for
``elementos``). ``conftest.py`` runs the parts of this script side by side before the
workers start, each compiling its own share once; the workers then read the cache.
A warm cache makes a part a few seconds of loading.

    python tests/warmup.py 0     # part 0 of PARTS (``all``: every part in one process)
"""

from __future__ import annotations

import sys
import time

import numpy as np


def game_faces(name: str) -> None:
    """The OpenSpiel face, the vector env and its players, and the search bots, for every variant."""
    import elements_ai
    from elements_ai import testing
    from elements_ai.agents import make_bot
    from elements_ai.core.vec import PARALLEL_CHECK, VecEnv
    from elements_ai.selfplay.players import encode_rows, make_player

    for params in elements_ai.get_kernel(name).variants.values():
        game = elements_ai.load_game(name, **params)
        rng = np.random.default_rng(0)
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                state.information_state_tensor(), state.observation_tensor(), state.information_state_string()
            state.apply_action(testing.random_action(state, rng))
        env = VecEnv(game.kernel, game.config, 4, seed=0)
        players = [make_player("rules", env, game, 1), make_player("random", env, game, 2)]
        rows = np.arange(4)
        for k in range(20):
            encode_rows(env, rows)
            env.step(players[k % 2].act(env, rows))
            env.reset(env.terminated)
        # The sampler, the observation tensors, the playouts, and the parallel legality check
        # of large batches, as the benchmarks and the gymnasium faces use them.
        batch = elements_ai.make_vec(name, PARALLEL_CHECK, seed=0, autoreset=True, **params)
        batch.step(batch.sample_actions())
        batch.observation(), batch.information_state()
        batch.random_playouts(2)
    state = testing.first_decision(game)
    for spec in ("mcts:sims=20", "mcts:sims=20,worlds=3", "mcts:sims=20,rollout=rules", "ismcts:sims=20",
                 "ismcts:sims=20,select=puct"):
        make_bot(spec, game, state.current_player(), seed=0).step(state)
    # The tree estimate and sampled CFR, compiled for each game.
    from elements_ai.solvers import estimate_tree
    from elements_ai.solvers.mccfr import MCCFRSolver

    estimate_tree(game, walks=10)
    MCCFRSolver(game, "outcome", seed=0, memory=1e7).run(2)


def alphazero() -> None:
    """The batched PUCT search the ``az`` bot and AlphaZero-style training run."""
    import elements_ai
    from elements_ai import testing
    from elements_ai.agents import make_bot

    game = elements_ai.load_game("elementos(setup=standard)")
    state = testing.first_decision(game)
    make_bot("az:sims=4", game, state.current_player(), seed=0).step(state)


def endgame() -> None:
    """The duel's exact endgame (the ``ppo`` bot's ``endgame=``)."""
    import elements_ai
    from elements_ai.games.elemental_duel import endgame

    game = elements_ai.load_game("elemental_duel", num_territories=2)
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(0)
    endgame.Endgame(game.cfg, duels=2).policy(state.array)


def solvers() -> None:
    """The CFR family on the flat and compact trees, on one and two threads, and MCCFR."""
    import elements_ai
    from elements_ai.solvers import ALGORITHMS, CFRSolver, CompactCFRSolver, build_compact
    from elements_ai.solvers.mccfr import MCCFRSolver

    game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
    compact = build_compact(game)
    for algorithm in ALGORITHMS:
        for threads in (1, 2):
            flat = CFRSolver(game, algorithm, threads=threads)
            flat.run(2)
            flat.exploitability()
            small = CompactCFRSolver(compact, algorithm, threads=threads)
            small.run(2)
            small.exploitability()
    for sampler in ("external", "outcome"):
        sampled = MCCFRSolver(game, sampler, seed=0, memory=1e7)
        sampled.run(10)
        sampled.evaluate()


# Two parts of about the same cold cost. Measured cold, the two side by side on two cores:
# elementos 224 s, elements1997 95, elementum 72, the solvers 71, elements 39,
# elemental_duel 35, AlphaZero's search (on elementos) 24, the endgame 14.
PARTS = [
    [lambda: game_faces("elementos"), alphazero, lambda: game_faces("elements")],
    [lambda: game_faces("elements1997"), lambda: game_faces("elementum"), solvers,
     lambda: game_faces("elemental_duel"), endgame],
]


def main(argv: list[str]) -> None:
    which = argv[0] if argv else "all"
    jobs = [job for part in PARTS for job in part] if which == "all" else PARTS[int(which)]
    start = time.perf_counter()
    for job in jobs:
        job()
    print(f"warm-up part {which}: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
