"""PSRO: the weighted opponent draw, the mixture as one behavioural policy, the Nash meta-solver,
a short run measured exactly on a small variant, the ``psro`` bot, resume, the CLI and its errors."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest
import torch  # the selfplay extra, which the test command installs  # noqa: F401

import elements_ai
from elements_ai.agents import make_bot
from elements_ai.agents.network import Network
from elements_ai.cli import main
from elements_ai.selfplay.ppo import LEARNER, Collector, PPOConfig
from elements_ai.selfplay.psro import PSROConfig, PSROTrainer, meta_nash
from elements_ai.solvers import build_compact, build_tree, evaluate_compact, evaluate_probs
from elements_ai.solvers.agents import bot_policy
from elements_ai.solvers.mixture import mixture_probs

SMALL = "elements(deck=1_2_3_6_6_6,hand_size=2,single_round=true)"
TINY = dict(br_steps=256, num_envs=16, rollout_steps=8, hidden=(16,))
UNIFORM_EXPLOITABILITY = 1.278  # of the uniform policy on SMALL (tests/test_mmd.py)


# --- the weighted draw of the fixed opponents ----------------------------------------------------

def _drawn(config: PPOConfig, envs: int = 6000, seed: int = 3) -> tuple[Collector, np.ndarray]:
    collector = Collector(SMALL, config.to_dict(), seed, envs)
    collector._draw_owners(np.arange(envs))
    return collector, collector.owners.max(axis=1)  # the opponent of each game (the other seat: LEARNER)


def test_the_fixed_opponents_are_drawn_by_their_weights():
    weights = (0.2, 0.0, 0.8)
    config = PPOConfig(num_envs=8, self_play=0.0, fixed_share=1.0, opponents=("random",) * 3, opponent_weights=weights)
    collector, drawn = _drawn(config)
    assert (collector.owners == LEARNER).sum(axis=1).tolist() == [1] * len(drawn)  # one learner seat a game
    frequencies = np.bincount(drawn, minlength=3) / len(drawn)
    assert frequencies[1] == 0.0
    np.testing.assert_allclose(frequencies, np.array(weights), atol=0.02)
    # Without weights the draw is as before they existed: the same number, read uniformly.
    plain = PPOConfig(num_envs=8, self_play=0.0, fixed_share=1.0, opponents=("random",) * 3)
    _, uniform = _drawn(plain)
    generator = torch.Generator().manual_seed(3)
    draws = torch.rand(len(uniform), 3, generator=generator).numpy()
    assert uniform.tolist() == np.minimum((draws[:, 2] * 3).astype(int), 2).tolist()


@pytest.mark.parametrize("weights, message", [((1.0,), "one weight per opponent"), ((1.0, -0.5), ">= 0"),
                                              ((0.0, 0.0), "not all 0"), ((1.0, float("nan")), "finite")])
def test_bad_opponent_weights_are_refused(weights, message):
    with pytest.raises(ValueError, match=message):
        PPOConfig(opponents=("random", "rules"), opponent_weights=weights)


# --- the mixture as a behavioural policy ---------------------------------------------------------

def _random_policy(tree, rng, pure: bool = False) -> np.ndarray:
    out = np.zeros(tree.num_sequences)
    for infoset in range(tree.num_infosets):
        first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
        if pure:
            out[first + rng.integers(stop - first)] = 1.0
        else:
            out[first:stop] = rng.dirichlet(np.ones(stop - first))
    return out


def _seats(tree, probs_by_seat) -> np.ndarray:
    owner = np.repeat(np.asarray(tree.infoset_player), np.diff(tree.infoset_first))
    return np.select([owner == p for p in range(len(probs_by_seat))], probs_by_seat)


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_the_mixture_plays_as_the_mixed_strategy(name):
    # Kuhn's theorem: against any opponent, the behavioural mixture earns the members' weighted values.
    tree = build_tree(pyspiel.load_game(name))
    rng = np.random.default_rng(5)
    members = [_random_policy(tree, rng), _random_policy(tree, rng, pure=True), _random_policy(tree, rng)]
    weights = np.array([0.2, 0.5, 0.3])
    mixed = mixture_probs(tree, members, weights)
    sums = np.add.reduceat(mixed, tree.infoset_first[:-1])
    np.testing.assert_allclose(sums, 1.0, atol=1e-12)
    for _ in range(3):
        opponent = _random_policy(tree, rng)
        for player in range(2):
            def value(probs, player=player, opponent=opponent):
                seats = [probs, opponent] if player == 0 else [opponent, probs]
                return evaluate_probs(tree, _seats(tree, seats), threads=1).policy_values[player]

            expected = sum(w * value(m) for w, m in zip(weights, members))
            assert value(mixed) == pytest.approx(expected, abs=1e-12)
    # Not the naive average of the probabilities, which plays differently.
    naive = sum(w * m for w, m in zip(weights, members))
    assert np.abs(naive - mixed).max() > 0.05
    assert np.array_equal(mixture_probs(tree, members, [0, 1, 0]), members[1])
    with pytest.raises(ValueError, match="not all 0"):
        mixture_probs(tree, members, [0, 0, 0])


def test_the_meta_nash_solves_rock_paper_scissors_and_drops_a_dominated_strategy():
    rps = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    np.testing.assert_allclose(meta_nash(rps), [1 / 3, 1 / 3, 1 / 3], atol=1e-9)
    dominant = np.array([[0.0, 1.0, 2.0], [-1.0, 0.0, 0.5], [-2.0, -0.5, 0.0]])
    np.testing.assert_allclose(meta_nash(dominant), [1.0, 0.0, 0.0], atol=1e-9)
    perturbed = np.array([[0.0, -1.0, 3.0], [1.0, 0.0, -3.0], [-3.0, 3.0, 0.0]])  # Nash (3/7, 3/7, 1/7)
    np.testing.assert_allclose(meta_nash(perturbed), [3 / 7, 3 / 7, 1 / 7], atol=1e-9)


# --- a short run on a small variant, measured exactly --------------------------------------------

@pytest.fixture(scope="module")
def short_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("psro")
    config = PSROConfig(br_steps=40_000)
    trainer = PSROTrainer(elements_ai.load_game(SMALL), out, config, seed=0, progress=False)
    trainer.train(steps=240_000)
    return trainer


@pytest.mark.slow
def test_a_short_run_grows_best_responses_and_its_mixture_is_the_meta_nash(short_run):
    trainer = short_run
    tree, w, payoffs = trainer.tree, trainer.weights, trainer.payoffs
    exploitability = [row["exploitability"] for row in trainer.log]
    print("psro exploitability per iteration:", [round(e, 4) for e in exploitability])
    assert [row["population"] for row in trainer.log] == [1, 2, 3, 4, 5, 6, 7]
    assert trainer.env_steps == 6 * 40 * 1024 and exploitability[0] == pytest.approx(UNIFORM_EXPLOITABILITY, abs=1e-3)
    # Each best response beats the mixture it was trained against (PPO learnt; the weights were used).
    assert all(row["br_value"] > 0.1 for row in trainer.log[1:]), [row["br_value"] for row in trainer.log]
    assert payoffs[1, 0] > 0.8  # the first exploits the random bot
    np.testing.assert_allclose(payoffs, -payoffs.T, atol=1e-12)
    # The weights are the meta-game's equilibrium: no member beats the mixture.
    assert (w @ payoffs).min() >= -1e-9 and w.sum() == pytest.approx(1.0)
    # The mixture policy earns, against each member, what the meta-game says the mixed strategy earns.
    owner = np.repeat(np.asarray(tree.infoset_player), np.diff(tree.infoset_first))
    mixed = trainer.mixture()
    for j, member in enumerate(trainer.member_probs):
        first = evaluate_probs(tree, np.where(owner == 0, mixed, member), threads=1).policy_values[0]
        second = evaluate_probs(tree, np.where(owner == 0, member, mixed), threads=1).policy_values[1]
        assert 0.5 * (first + second) == pytest.approx(float(w @ payoffs[:, j]), abs=1e-9)
    saved = json.loads((trainer.out / "psro.json").read_text())
    assert saved["population"] == ["random"] + [f"member_{k:02d}.npz" for k in range(1, 7)]
    assert saved["weights"] == w.tolist() and (trainer.out / "log.csv").is_file()
    # Well below random's, and below the first best response's alone (the meta-Nash after one).
    # The curve is not monotone (a weak best response can move the meta-Nash the wrong way
    # for an iteration): seeds 0-3, and another machine's kernels, ended 0.74-0.91, with
    # one iteration before the last at 1.04.
    assert min(exploitability[-2:]) < 1.0 and min(exploitability[2:]) < exploitability[1], exploitability


@pytest.mark.slow
def test_the_psro_bot_plays_the_exact_mixture(short_run):
    trainer = short_run
    game, tree = trainer.game, trainer.tree
    spec = f"psro:ckpt={trainer.out}"
    mixed = trainer.mixture()
    assert np.abs(bot_policy(tree, spec) - mixed).max() < 1e-6  # read exactly, through the members
    # On the compact tree too, through its own reach: the same mixture, information set by information set.
    compact = build_compact(game)
    on_compact = bot_policy(compact, spec)

    def by_key(t, probs):
        return {(int(k[0]), int(k[1])): probs[t.infoset_first[i]:t.infoset_first[i + 1]]
                for i, k in enumerate(t.keys)}

    flat_rows, compact_rows = by_key(tree, mixed), by_key(compact, on_compact)
    assert flat_rows.keys() == compact_rows.keys()
    assert max(float(np.abs(flat_rows[k] - compact_rows[k]).max()) for k in flat_rows) < 1e-6
    assert evaluate_compact(compact, on_compact).exploitability == pytest.approx(
        evaluate_probs(tree, mixed).exploitability, abs=1e-6)
    bots = [make_bot(spec, game, player, seed=player) for player in range(2)]
    choices = np.flatnonzero(np.diff(tree.infoset_first) > 1)
    for infoset in choices[:: len(choices) // 12]:
        state = tree.state(int(infoset))
        first, stop = tree.infoset_first[infoset], tree.infoset_first[infoset + 1]
        played = bots[int(tree.infoset_player[infoset])].played_policy(state)
        actions = tree.sequence_action[first:stop]
        np.testing.assert_allclose([played[int(a)] for a in actions], mixed[first:stop], atol=1e-6)
        assert bots[int(tree.infoset_player[infoset])].step(state) in state.legal_actions()


# --- resume, the CLI, errors ---------------------------------------------------------------------

@pytest.mark.slow
def test_a_resumed_run_continues_to_the_same_population(tmp_path):
    game = elements_ai.load_game(SMALL)
    straight = PSROTrainer(game, tmp_path / "straight", PSROConfig(**TINY), seed=2, progress=False)
    straight.train(steps=768)
    PSROTrainer(game, tmp_path / "stopped", PSROConfig(**TINY), seed=2, progress=False).train(steps=256)
    resumed = PSROTrainer(game, tmp_path / "stopped", seed=99, progress=False)  # the run's seed and config win
    assert resumed.iteration == 1 and resumed.config == PSROConfig(**TINY) and len(resumed.population) == 2
    resumed.train(steps=768)
    assert resumed.population == straight.population and len(resumed.population) == 4
    np.testing.assert_array_equal(resumed.payoffs, straight.payoffs)
    np.testing.assert_array_equal(resumed.weights, straight.weights)
    for name in straight.population[1:]:
        a, b = Network.load(tmp_path / "straight" / name), Network.load(tmp_path / "stopped" / name)
        assert all(np.array_equal(x, y) for la, lb in zip(a.layers, b.layers) for x, y in zip(la, lb))
    assert [row["iteration"] for row in resumed.log] == [0, 1, 2, 3]


def test_the_train_command_runs_psro_and_refuses_what_it_cannot_measure(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", SMALL, "--algorithm", "psro", "--steps", "512", "--out", str(out), "--quiet",
            "--set", "br_steps=256", "--set", "num_envs=16", "--set", "rollout_steps=8", "--set", "hidden=16"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "512 env steps" in printed and f"psro:ckpt={out}" in printed
    assert len(json.loads((out / "psro.json").read_text())["population"]) == 3
    with pytest.raises(ValueError, match="3 players"):
        PSROTrainer(elements_ai.load_game("elementum(players=3)"), tmp_path / "three", progress=False)
    with pytest.raises(ValueError, match="measured exactly, on the game's tree"):
        PSROTrainer(elements_ai.load_game("elements"), tmp_path / "large", progress=False)
    with pytest.raises(ValueError, match="meta_solver"):
        PSROConfig(meta_solver="alpharank")
    with pytest.raises(ValueError, match="psro: ckpt= must name a PSRO run folder"):
        make_bot("psro", elements_ai.load_game(SMALL), 0)


@pytest.mark.slow
def test_the_curve_script_measures_psro_after_each_best_response(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import pandas as pd

    script = Path(__file__).resolve().parents[1] / "experiments" / "equilibrium.py"
    done = subprocess.run([sys.executable, str(script), "--algorithm", "psro", "--quick", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    table = pd.read_csv(tmp_path / "psro-small.csv")
    # The population starts as the random bot: uniform play, exactly; then a point a best response.
    assert table["exploitability"].iloc[0] == pytest.approx(UNIFORM_EXPLOITABILITY, abs=1e-3)
    assert table["env_steps"].tolist() == [0, 1024, 2048]
    run = json.loads((tmp_path / "psro-small.run.json").read_text())
    assert run["settings"]["br_steps"] == 1024 and run["command"] in (tmp_path / "README.md").read_text()
