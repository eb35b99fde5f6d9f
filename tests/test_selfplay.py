"""Self-play agents: masks, PPO training, checkpoints and resume, bots, CLI, AlphaZero-style search,
and the search's heuristic playout options."""

from __future__ import annotations

import numpy as np
import pytest
import torch  # the selfplay extra, which the test command installs

import elements_ai
from elements_ai.agents import make_bot
from elements_ai.agents.batched import BatchedSearch, network_evaluator
from elements_ai.agents.network import NetworkError
from elements_ai.agents.search import RANDOM_ROLLOUT, RULES_ROLLOUT, TreeSearch, policy_playout
from elements_ai.cli import main
from elements_ai.core.params import ParameterError
from elements_ai.core.rng import seeds_from
from elements_ai.core.vec import VecEnv
from elements_ai.selfplay import checkpoint
from elements_ai.selfplay.az import AlphaZeroTrainer, AZConfig
from elements_ai.selfplay.checkpoint import CheckpointError
from elements_ai.selfplay.net import PolicyValueNet, masked_entropy, masked_probs
from elements_ai.selfplay.players import NetPlayer, choose, encode_rows, make_player
from elements_ai.selfplay.ppo import PPOConfig, PPOTrainer, evaluate

SMALL = "elements(deck=1_2_3_6_6_6,hand_size=2,single_round=true)"
TINY = dict(num_envs=16, rollout_steps=8, hidden=(32,), eval_every=0, checkpoint_every=2, snapshot_every=1)


def _variants():
    for name in elements_ai.GAMES:
        for variant, params in elements_ai.get_kernel(name).variants.items():
            yield pytest.param(name, params, id=f"{name}-{variant}")


# --- masks ---------------------------------------------------------------------------------

def test_masked_policy_gives_illegal_actions_probability_exactly_zero():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(256, 12, generator=generator) * 30  # large logits: no rounding to a tiny mass
    mask = torch.rand(256, 12, generator=generator) < 0.3
    mask[:, 5] = True
    probs = masked_probs(logits, mask)
    assert bool((probs[~mask] == 0).all())
    assert torch.allclose(probs.sum(-1), torch.ones(256, dtype=probs.dtype))
    for _ in range(20):
        actions = choose(logits, mask, False, generator)
        assert bool(mask[torch.arange(256), actions].all())
    assert bool(mask[torch.arange(256), choose(logits, mask, True, generator)].all())
    entropy = masked_entropy(logits.requires_grad_(), mask)
    entropy.sum().backward()
    assert torch.isfinite(logits.grad).all()  # 0 * log 0 must not poison the gradient


@pytest.mark.parametrize("name, params", list(_variants()))
def test_a_network_plays_only_legal_actions_in_every_game(name, params):
    env = elements_ai.make_vec(name, num_envs=32, seed=3, **params)
    config = env.config
    net = PolicyValueNet(config.info_size, config.num_actions, config.num_players, hidden=(16,))
    with torch.no_grad():  # a strongly peaked random policy: illegal favourites must stay out
        for parameter in net.parameters():
            parameter.mul_(50)
    player = NetPlayer(net, seed=1)
    for _ in range(60):
        rows = np.flatnonzero(~env.terminated)
        if not len(rows):
            env.reset()
            continue
        actions = np.zeros(env.num_envs, np.int64)
        actions[rows] = player.act(env, rows)
        assert env.legal_mask[rows, actions[rows]].all()
        env.step(actions)  # would raise on an illegal action


# --- training ------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_short_training_run_beats_its_initial_policy_against_random(tmp_path):
    game = elements_ai.load_game(SMALL)
    config = PPOConfig(num_envs=64, rollout_steps=16, hidden=(64,), eval_every=0, checkpoint_every=100)
    trainer = PPOTrainer(game, tmp_path, config, seed=0, progress=False)
    before, _, before_high = evaluate(trainer.net, game, "random", 400, seed=11)
    trainer.train(64 * 16 * 16)
    after, after_low, _ = evaluate(trainer.net, game, "random", 400, seed=11)
    assert after_low > before_high and after > before + 0.15, (before, after)


@pytest.mark.slow
def test_training_writes_checkpoints_and_a_log(tmp_path):
    game = elements_ai.load_game(SMALL)
    config = PPOConfig(**{**TINY, "eval_every": 2, "eval_games": 20})
    row = PPOTrainer(game, tmp_path, config, seed=0, progress=False).train(16 * 8 * 4)
    assert [p.name for p in checkpoint.checkpoints(tmp_path)] == ["ckpt_000002.pt", "ckpt_000004.pt"]
    # Beside each checkpoint, its network, which plays without torch.
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == ["ckpt_000002.npz", "ckpt_000004.npz"]
    log = (tmp_path / "log.csv").read_text().splitlines()
    header = log[0].split(",")
    for column in ("policy_loss", "value_loss", "entropy", "score_random", "score_random_low", "score_rules"):
        assert column in header
    assert len(log) == 5 and (tmp_path / "log.png").stat().st_size > 1000
    assert 0.0 <= row["score_rules"] <= 1.0 and row["env_steps"] == 512


@pytest.mark.parametrize("start", [{}, {"imitate": "rules", "imitation_steps": 256, "imitation_lr": 1e-3},
                                   {"hint": "rules", "self_play": 0.5}],
                         ids=["plain", "imitation", "hint"])
@pytest.mark.slow
def test_same_seed_same_run_and_resume_continues_identically(tmp_path, start):
    game = elements_ai.load_game(SMALL)
    config = PPOConfig(**TINY, opponents=("rules",), **start)

    def weights(trainer):
        return torch.cat([p.detach().flatten() for p in trainer.net.parameters()])

    straight = PPOTrainer(game, tmp_path / "a", config, seed=5, progress=False)
    straight.train(16 * 8 * 4)
    again = PPOTrainer(game, tmp_path / "b", config, seed=5, progress=False)
    again.train(16 * 8 * 4)
    assert torch.equal(weights(straight), weights(again))

    PPOTrainer(game, tmp_path / "c", config, seed=5, progress=False).train(16 * 8 * 2)
    resumed = PPOTrainer(game, tmp_path / "c", progress=False)  # seed and config come from the checkpoint
    assert resumed.iteration == 2 and resumed.seed == 5
    resumed.train(16 * 8 * 4)
    assert torch.equal(weights(straight), weights(resumed))
    drop = {"seconds"}
    assert [{k: v for k, v in r.items() if k not in drop} for r in straight.log] == [
        {k: v for k, v in r.items() if k not in drop} for r in resumed.log
    ]
    other = PPOTrainer(game, tmp_path / "d", config, seed=6, progress=False)
    other.train(16 * 8 * 4)
    assert not torch.equal(weights(straight), weights(other))


def _teacher_games(game, teacher: str, num_envs: int, seed: int):
    """Decisions of ``teacher`` playing itself to the end of each game: the mover's
    information states, legal masks and actions, and the mover's final return."""
    env = VecEnv(game.kernel, game.config, num_envs, seed=seed)
    player = make_player(teacher, env, game, seed + 1)
    infos, masks, actions, movers, rows = [], [], [], [], []
    env.reset()
    while not env.terminated.all():
        live = np.flatnonzero(~env.terminated)
        infos.append(encode_rows(env, live))
        masks.append(env.legal_mask[live].copy())
        movers.append(env.current_player[live].copy())
        rows.append(live)
        chosen = np.zeros(num_envs, np.int64)
        chosen[live] = player.act(env, live)
        actions.append(chosen[live])
        env.step(chosen)
    mover, row = np.concatenate(movers), np.concatenate(rows)
    scale = max(abs(game.config.min_utility), abs(game.config.max_utility))
    target = (env.returns[row, mover] / scale).astype(np.float32)
    return (torch.from_numpy(np.concatenate(infos)), torch.from_numpy(np.concatenate(masks)),
            torch.from_numpy(np.concatenate(actions)), torch.from_numpy(target))


def test_imitation_teaches_the_policy_the_teachers_moves_and_the_value_head_its_returns(tmp_path):
    game = elements_ai.load_game(SMALL)
    info, mask, action, target = _teacher_games(game, "rules", 400, seed=21)  # games the imitation never saw
    config = PPOConfig(**{**TINY, "imitate": "rules", "imitation_steps": 8192, "imitation_epochs": 4})

    def fit(trainer):
        with torch.no_grad():
            logits, value = trainer.net(info)
        agree = float((masked_probs(logits, mask).argmax(1) == action).float().mean())
        return agree, float(((value[:, 0] - target) ** 2).mean())

    fresh = PPOTrainer(game, tmp_path / "fresh", config, seed=0, progress=False)
    agree_before, value_before = fit(fresh)
    trainer = PPOTrainer(game, tmp_path / "run", config, seed=0, progress=False)
    trainer._imitate()
    agree_after, value_after = fit(trainer)
    assert agree_after > max(0.8, agree_before + 0.2), (agree_before, agree_after)
    # Better than the best constant guess, not only than the random head it started with.
    assert value_after < min(value_before, float(target.var())) * 0.85, (value_before, value_after, target.var())
    assert trainer.optimizer.param_groups[0]["lr"] == config.lr


@pytest.mark.slow
def test_imitation_against_an_opponent_keeps_the_teachers_seat_only_and_splits_among_workers():
    from elements_ai.selfplay import imitation

    game = elements_ai.load_game("elements1997(players=3)")
    against = imitation.collect(game, "rules", num_envs=6, steps=600, seed=5, hint="rules", opponent="random")
    assert len(against.action) == 600
    # Every kept move is the teacher's: it agrees with the heuristic's hint (its random
    # tie-breaks aside), where the random opponent's moves would not.
    assert float((against.action == against.hint).float().mean()) > 0.9
    # The targets are the teacher's own seat first: rules beats random on average.
    known = against.target[against.known]
    assert len(known) > 300 and float(known[:, 0].mean()) > 0.1 > float(known[:, 1:].mean())
    split = imitation.collect(game, "rules", num_envs=6, steps=600, seed=5, hint="rules", opponent="random",
                              workers=2)
    parts = [imitation.collect(game, "rules", 6, 300, seed, "rules", "random") for seed in (5, 1_005)]
    assert len(split.action) == 600
    for field in ("info", "mask", "hint", "action", "target", "known"):
        assert torch.equal(getattr(split, field), torch.cat([getattr(part, field) for part in parts])), field
    with pytest.raises(ValueError, match="workers must be at least 1"):
        imitation.collect(game, "rules", 6, 60, 0, workers=0)


def test_imitation_of_visit_shares_keeps_the_searchs_moves_and_learns_its_shares():
    from elements_ai.selfplay import imitation

    game = elements_ai.load_game("elements1997(players=3)")
    plain = imitation.collect(game, "ismcts:sims=30", 3, 60, seed=2, opponent="rules")
    shares = imitation.collect(game, "ismcts:sims=30", 3, 60, seed=2, opponent="rules", visits=True)
    assert plain.policy is None and torch.equal(plain.action, shares.action)  # the same moves, the same streams
    assert torch.allclose(shares.policy.sum(1), torch.ones(60)) and not (shares.policy[~shares.mask] > 0).any()
    assert float((shares.policy > 0).sum(1).float().mean()) > 1.5  # shares, not one-hot moves
    net = PolicyValueNet(game.config.info_size, game.config.num_actions, 3, (32,))
    optimizer = torch.optim.Adam(net.parameters())
    imitation.clone(net, optimizer, shares, epochs=60, batch=60, lr=3e-3, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        learnt = masked_probs(net(shares.info)[0], shares.mask)
    assert float((learnt - shares.policy).abs().sum(1).mean()) < 0.3
    with pytest.raises(ValueError, match="gives no policy to learn"):
        imitation.collect(game, "rules", 3, 30, seed=2, visits=True)


@pytest.mark.slow
def test_every_player_count_trains(tmp_path):
    # Every game and variant the package has, whatever its number of players.
    for name in elements_ai.GAMES:
        kernel = elements_ai.get_kernel(name)
        for variant, params in kernel.variants.items():
            game = elements_ai.load_game(name, **params)
            if game.config.info_size > 3000:
                continue  # the large boards train the same code, slower
            trainer = PPOTrainer(game, tmp_path / f"{name}-{variant}",
                                 PPOConfig(num_envs=8, rollout_steps=4, hidden=(8,), eval_every=0),
                                 progress=False)
            trainer.train(32)
            assert trainer.collector.owners.shape[1] == game.num_players()
            assert checkpoint.checkpoints(tmp_path / f"{name}-{variant}")


# --- bots and checkpoints --------------------------------------------------------------------

def test_a_hinted_network_starts_as_the_rules_heuristic_on_both_faces(tmp_path):
    """Residual policy learning: a network with ``hint="rules"`` whose own policy is flat
    plays exactly the heuristic's moves, tie-breaks included, in the vector env loop and
    as a bot; its numpy copy gives torch's logits, hint included."""
    from elements_ai.agents.bots import RulesBot
    from elements_ai.selfplay.players import RulesPlayer

    game = elements_ai.load_game("elements1997(players=3)")
    config = game.config
    net = PolicyValueNet(config.info_size, config.num_actions, config.num_players, hidden=(16,), hint="rules")
    with torch.no_grad():
        net.policy.weight.zero_()
    env = VecEnv(game.kernel, config, 8, seed=3)
    player, rules = NetPlayer(net, seed=10, greedy=True, env=env), RulesPlayer(env, seed=11)
    decisions = 0
    while not env.terminated.all():
        live = np.flatnonzero(~env.terminated)
        mine, expected = player.act(env, live), rules.act(env, live)
        assert np.array_equal(mine, expected)
        actions = np.zeros(8, np.int64)
        actions[live] = expected
        env.step(actions)
        decisions += len(live)
    assert decisions > 800

    path = net.to_network({"game": str(game)}).save(tmp_path / "hinted.npz")
    bot, heuristic = make_bot(f"ppo:ckpt={path},greedy=true", game, 0, seed=20), RulesBot(game, 0, seed=21)
    states = [s for s in _decisions(game, seed=2, count=200) if s.current_player() == 0]
    assert len(states) > 40
    assert [bot.step(s) for s in states] == [heuristic.step(s) for s in states]

    info = torch.rand(32, config.info_size)
    hint = torch.randint(config.num_actions, (32,))
    with torch.no_grad():
        net.policy.weight.normal_()
        net.hint_weight.fill_(2.5)
        expected_logits, _ = net(info, hint)
    numpy_net = net.to_network()
    assert numpy_net.hint == "rules" and numpy_net.hint_weight == 2.5
    logits, _ = numpy_net.forward(info.numpy(), hint.numpy())
    np.testing.assert_allclose(logits, expected_logits.numpy(), rtol=1e-5, atol=1e-5)
    assert not np.allclose(logits, numpy_net.forward(info.numpy())[0])


def test_hints_are_checked(tmp_path):
    from elements_ai.agents.network import Network, NetworkError

    with pytest.raises(ValueError, match="hint must be one of"):
        PPOConfig(hint="ismcts")
    layer = (np.zeros((2, 3)), np.zeros(2))
    with pytest.raises(NetworkError, match="hint must be one of"):
        Network([], layer, layer, hint="ismcts")
    game = elements_ai.load_game("elementos(setup=standard)")
    config = game.config
    net = PolicyValueNet(config.info_size, config.num_actions, config.num_players, hidden=(8,), hint="rules")
    path = net.to_network({"game": str(game)}).save(tmp_path / "hinted.npz")
    with pytest.raises(NetworkError, match="learnt a correction to rules"):
        make_bot(f"az:ckpt={path}", game, 0)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo")
    game = elements_ai.load_game(SMALL)
    trainer = PPOTrainer(game, out, PPOConfig(**TINY), seed=0, progress=False)
    trainer.train(16 * 8 * 3)
    return game, out, trainer


def _decisions(game, seed, count=30):
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                states.append(state.clone())
                state.apply_action(int(rng.choice(state.legal_actions())))
    return states


def test_a_checkpoint_reloads_to_the_same_actions(trained):
    game, out, trainer = trained
    states = _decisions(game, seed=1)
    latest = checkpoint.checkpoints(out)[-1]
    for greedy in (False, True):
        plays = []
        for path in (out, latest):  # a folder means its latest checkpoint
            bots = [make_bot(f"ppo:ckpt={path},greedy={greedy}", game, p, seed=4) for p in range(2)]
            plays.append([bots[s.current_player()].step(s) for s in states])
        assert plays[0] == plays[1]
    bot = make_bot(f"ppo:ckpt={out},greedy=true", game, 0, seed=0)
    for state in states:
        if state.current_player() != 0:
            continue
        info = torch.tensor(state.information_state_tensor(0))[None]
        mask = torch.zeros(1, game.num_distinct_actions(), dtype=torch.bool)
        mask[0, state.legal_actions()] = True
        with torch.no_grad():
            expected = int(masked_probs(trainer.net(info)[0], mask).argmax())
        policy, action = bot.step_with_policy(state)
        assert action == expected and abs(sum(p for _, p in policy) - 1) < 1e-9


def test_bad_network_files_and_folders_are_clear_errors(trained, tmp_path):
    game, out, _ = trained
    latest = checkpoint.checkpoints(out)[-1]
    network = latest.with_suffix(".npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a network at all")
    with pytest.raises(NetworkError, match="not a readable network file"):
        make_bot(f"ppo:ckpt={junk}", game, 0)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(network.read_bytes()[: network.stat().st_size // 2])
    with pytest.raises(NetworkError, match="not a readable network file"):
        make_bot(f"ppo:ckpt={cut}", game, 0)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, weights=np.ones(3))
    with pytest.raises(NetworkError, match="not an elements_ai network file"):
        make_bot(f"ppo:ckpt={foreign}", game, 0)
    other = elements_ai.load_game("elements(deck=1_2_3_6_6_6,hand_size=3,single_round=true)")
    with pytest.raises(NetworkError, match="was trained for .*hand_size=2.*not for .*hand_size=3"):
        make_bot(f"ppo:ckpt={out}", other, 0)
    with pytest.raises(NetworkError, match="holds no network"):
        make_bot(f"ppo:ckpt={tmp_path}", game, 0)
    with pytest.raises(NetworkError, match="no network file or checkpoint at"):
        make_bot(f"ppo:ckpt={tmp_path / 'missing.npz'}", game, 0)
    # A folder trained before trainers wrote network files: said, and resuming it writes them.
    older = tmp_path / "older"
    older.mkdir()
    (older / latest.name).write_bytes(latest.read_bytes())
    with pytest.raises(NetworkError, match="trained by an older version"):
        make_bot(f"ppo:ckpt={older}", game, 0)
    with pytest.raises(NetworkError, match="no network file beside it"):
        make_bot(f"ppo:ckpt={older / latest.name}", game, 0)
    PPOTrainer(game, older, progress=False)
    assert (older / network.name).read_bytes() and make_bot(f"ppo:ckpt={older}", game, 0).checkpoint.endswith(
        network.name)
    # Without a file, ppo plays the shipped network: a game with none is a clear error.
    with pytest.raises(ParameterError, match="no shipped agent for .*hand_size=3.*give ckpt=PATH"):
        make_bot("ppo", other, 0)
    with pytest.raises(ParameterError, match="no shipped agent"):
        make_bot("ppo:ckpt= ", other, 0)


def test_bad_checkpoints_are_clear_errors_when_a_run_resumes(trained, tmp_path):
    game, out, _ = trained
    latest = checkpoint.checkpoints(out)[-1]
    for name, content in (("junk", b"not a checkpoint at all"),
                          ("cut", latest.read_bytes()[: latest.stat().st_size // 2])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "ckpt_000001.pt").write_bytes(content)
        with pytest.raises(CheckpointError, match="not a readable checkpoint"):
            PPOTrainer(game, tmp_path / name, progress=False)
    (tmp_path / "foreign").mkdir()
    torch.save({"weights": torch.ones(3)}, tmp_path / "foreign" / "ckpt_000001.pt")
    with pytest.raises(CheckpointError, match="not an elements_ai self-play checkpoint"):
        PPOTrainer(game, tmp_path / "foreign", progress=False)
    # Weights that do not fit the network they claim.
    payload = torch.load(latest, weights_only=True)
    payload["model"] = {k: v[..., :1] for k, v in payload["model"].items()}
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    torch.save(payload, damaged / "ckpt_000001.pt")
    with pytest.raises(CheckpointError, match="cannot resume"):
        PPOTrainer(game, damaged, progress=False)
    # Resuming a folder of another game.
    other = elements_ai.load_game("elements(deck=1_2_3_6_6_6,hand_size=3,single_round=true)")
    with pytest.raises(CheckpointError, match="was trained for"):
        PPOTrainer(other, out, progress=False)


def test_tournament_style_play_with_the_trained_bot(trained):
    game, out, _ = trained
    from elements_ai.agents import play_game

    for seed in range(3):
        returns, _ = play_game(game, [make_bot(f"ppo:ckpt={out}", game, 0, seed), make_bot("rules", game, 1)], seed)
        assert sum(returns) == 0


# --- command line ------------------------------------------------------------------------------

def test_the_train_command_trains_resumes_and_reports_errors(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", SMALL, "--steps", "256", "--out", str(out), "--quiet", "--set", "num_envs=16",
            "--set", "rollout_steps=8", "--set", "hidden=16_16", "--set", "eval_every=1", "--set", "eval_games=10"]
    assert main(args) == 0
    assert "256 env steps" in capsys.readouterr().out
    assert (out / "log.csv").exists() and checkpoint.checkpoints(out)
    args[3] = "512"
    assert main(args) == 0
    assert "512 env steps, iteration 4" in capsys.readouterr().out
    assert main(["train", "elements", "--steps", "10", "--out", str(tmp_path / "x"), "--set", "speed=3"]) == 2
    assert "unknown hyperparameter 'speed'" in capsys.readouterr().err
    assert main(["train", "elements", "--steps", "10", "--out", str(tmp_path / "x"), "--set", "num_envs=0"]) == 2
    assert "num_envs must be at least 1" in capsys.readouterr().err
    assert main(["train", "elements", "--steps", "10", "--out", str(out)]) == 2
    assert "was trained for" in capsys.readouterr().err
    assert main(["train", "elements", "--algorithm", "az", "--steps", "10", "--out", str(tmp_path / "y")]) == 2
    assert "perfect information" in capsys.readouterr().err
    assert not (tmp_path / "y").exists() and not (tmp_path / "x").exists()


# --- AlphaZero-style search and training ---------------------------------------------------------

def test_batched_search_finds_a_forced_win_with_no_knowledge():
    from test_agents import ELEMENTOS_RACES

    from elements_ai.testing import play_by_strings

    game = elements_ai.load_game("elementos", setup="standard", rows=6)
    roots, winning = [], []
    for winner, (moves, win) in ELEMENTOS_RACES.items():
        state = play_by_strings(game.new_initial_state(), *moves)
        roots.append(state.array)
        winning.append([a for a in state.legal_actions() if state.action_to_string(winner, a) == win][0])
    search = BatchedSearch(game, num_searches=2, max_sims=600, seed=0)
    counts = search.run(np.stack(roots), sims=600, evaluate=search.uniform_evaluator)
    assert counts.argmax(axis=1).tolist() == winning
    assert counts.sum(axis=1).tolist() == [600, 600]


@pytest.mark.slow
def test_alphazero_training_resumes_and_plays_as_a_bot(tmp_path):
    game = elements_ai.load_game("elementos", setup="standard", rows=6, max_moves=16)
    config = AZConfig(num_games=4, sims=4, moves_per_iteration=4, hidden=(16,), batch_size=16,
                      updates_per_iteration=2, eval_every=0, checkpoint_every=1)
    straight = AlphaZeroTrainer(game, tmp_path / "a", config, seed=2, progress=False)
    straight.train(64)
    AlphaZeroTrainer(game, tmp_path / "b", config, seed=2, progress=False).train(32)
    resumed = AlphaZeroTrainer(game, tmp_path / "b", progress=False)
    resumed.train(64)
    for a, b in zip(straight.net.parameters(), resumed.net.parameters()):
        assert torch.equal(a, b)
    assert straight.buffer["ready"].sum() > 0  # games ended and their positions were labelled
    bot = make_bot(f"az:ckpt={tmp_path / 'a'},sims=8", game, 0, seed=0)
    state = game.new_initial_state()
    policy, action = bot.step_with_policy(state)
    assert action in state.legal_actions() and abs(sum(p for _, p in policy) - 1) < 1e-9
    priors, returns = network_evaluator(straight.network(), game)(state.array[None], np.array([0]),
                                                            np.array([[a in state.legal_actions()
                                                                       for a in range(game.num_distinct_actions())]]))
    assert abs(priors.sum() - 1) < 1e-9 and returns.shape == (1, 2)
    with pytest.raises(ValueError, match="hidden information"):
        AlphaZeroTrainer(elements_ai.load_game(SMALL), tmp_path / "c")
    with pytest.raises(NetworkError, match="was trained for"):
        make_bot(f"az:ckpt={tmp_path / 'a'}", elements_ai.load_game("elementos", setup="standard"), 0)


# --- the search's heuristic playouts ---------------------------------------------------------------

def test_rules_playouts_decide_elementos_games_that_random_ones_leave_to_the_move_cap():
    game = elements_ai.load_game("elementos", setup="standard")
    config, kernel = game.config, game.kernel
    decided = {}
    for policy in (RANDOM_ROLLOUT, RULES_ROLLOUT):
        rng = seeds_from(1, 1)
        results = []
        for _ in range(40):
            state = game.new_initial_state().array.copy()
            out = np.zeros(2)
            finished = policy_playout[kernel](
                config.cfg, state, np.zeros(config.num_actions, np.bool_),
                np.zeros(max(config.max_chance_outcomes, 1)), rng, policy, 0, out,
            )
            assert finished
            results.append(out[0] != 0)
        decided[policy] = np.mean(results)
    assert decided[RULES_ROLLOUT] >= 0.9 and decided[RANDOM_ROLLOUT] <= 0.6, decided


def test_depth_cut_playouts_score_a_draw_and_rules_playouts_find_wins():
    game = elements_ai.load_game("elementos", setup="standard")
    state = game.new_initial_state()
    # No game ends within two decisions of the start: every cut playout is a draw.
    counts, values = TreeSearch(game, depth=2).search(state.array, 0, sims=300, seed=0)
    assert counts.sum() == 300 and not values.any()
    counts, values = TreeSearch(game, depth=0).search(state.array, 0, sims=300, seed=0)
    assert values.any()
    from test_agents import ELEMENTOS_RACES

    from elements_ai.testing import play_by_strings

    small = elements_ai.load_game("elementos", setup="standard", rows=6)
    for winner, (moves, winning) in ELEMENTOS_RACES.items():
        race = play_by_strings(small.new_initial_state(), *moves)
        for spec in ("mcts:sims=300,rollout=rules", "ismcts:sims=300,rollout=rules,depth=6"):
            action = make_bot(spec, small, winner, seed=1).step(race)
            assert race.action_to_string(winner, action) == winning


def test_search_playout_options_are_checked():
    game = elements_ai.load_game(SMALL)
    with pytest.raises(ParameterError, match="rollout"):
        make_bot("mcts:rollout=smart", game, 0)
    with pytest.raises(ParameterError, match="depth"):
        make_bot("ismcts:depth=-1", game, 0)
    with pytest.raises(ValueError, match="leaf_value hook replaces"):
        TreeSearch(game, rollout="rules", leaf_value=lambda *a: None)
    bot = make_bot("ismcts:sims=50,rollout=rules,depth=3,rollouts=2", game, 0)
    assert (bot.search.rollout, bot.search.depth, bot.search.rollouts) == ("rules", 3, 2)


# --- experiments ---------------------------------------------------------------------------------

EXPERIMENTS = __import__("pathlib").Path(__file__).resolve().parents[1] / "experiments"


def _experiment(script: str, out, *extra: str) -> str:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, str(EXPERIMENTS / script), "--quick", "--out", str(out), *extra],
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_compare_families_quick(tmp_path):
    import json

    import pandas as pd

    from elements_ai import zoo

    _experiment("compare_families.py", tmp_path)
    families = pd.read_csv(tmp_path / "families.csv", keep_default_na=False, na_values=[""])
    small = families[families["game"] == SMALL].set_index("agent")
    full = families[families["game"] == "elements"].set_index("agent")
    # The shipped agents play, each named with the algorithm and recipe that made it: no training here.
    assert set(small.index) == {"cfr", "ppo", "ismcts:sims=20", "rules", "random"}
    assert set(full.index) == {"ppo", "ismcts:sims=20", "rules", "random"}
    cfr = zoo.recipe("cfr-elements-small")
    ppo_small, ppo = (zoo.find("ppo", elements_ai.load_game(g)) for g in (SMALL, "elements"))
    assert (small.loc["cfr", "algorithm"], small.loc["cfr", "recipe"]) == (cfr.algorithm, cfr.name)
    assert small.loc["cfr", "steps"] == cfr.steps and small.loc["cfr", "family"] == "solver"
    assert (small.loc["ppo", "recipe"], full.loc["ppo", "recipe"]) == (ppo_small.name, ppo.name)
    assert (full.loc["ppo", "algorithm"], full.loc["ppo", "family"]) == ("ppo", "self-play")
    assert small.loc["ismcts:sims=20", "algorithm"] == "ismcts" and pd.isna(small.loc["rules", "recipe"])
    assert (families["games"] == 2 * (families.groupby("game")["agent"].transform("size") - 1)).all()
    # Exact exploitability on the small variant: the shipped CFR policy's is near 0, the others' far above.
    exploitability = small["exploitability"]
    assert exploitability["cfr"] < 1e-6 and exploitability.drop("cfr").min() > 0.1
    assert exploitability["rules"] == pytest.approx(1.75) and full["exploitability"].isna().all()
    text = (tmp_path / "families.md").read_text()
    assert f"| `elements` small | `cfr` | pcfr+, {cfr.steps:,} iterations (`{cfr.name}`) |" in text
    assert not (tmp_path / "ppo_strength.csv").exists() and not (tmp_path / "runs").exists()
    options = pd.read_csv(tmp_path / "search_options.csv")
    assert "mcts:sims=20,rollout=rules,depth=20" in set(options["agent"]) and (options["opponent"] == "rules").all()
    for name in ("families.png", "search_options.png", "search_options.md"):
        assert (tmp_path / name).stat().st_size > 0
    # The run's record: the command, the evaluation seed, the commit, the machine, the shipped agents.
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["seed"] == 7_000_000 and "compare_families.py --quick --out" in run["command"]
    assert run["commit"] and ", numba " in run["machine"]
    assert set(run["parts"]["families"]["agents"]) == {cfr.name, ppo_small.name, ppo.name}
    for part in ("families", "search_options"):
        record = json.loads((tmp_path / f"{part}.run.json").read_text())
        assert record["part"] == part and record["seed"] == run["seed"] and record["command"] == run["command"]
    tournament = json.loads((tmp_path / "families" / "elements" / "tournament.json").read_text())
    assert tournament["seed"] == 7_000_000 and tournament["agents"][0] == "ppo"


def test_compare_families_ckpt_names_a_game_string(monkeypatch):
    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    from compare_families import ckpt_pair

    assert ckpt_pair(f"{SMALL}=runs/a=b") == (str(elements_ai.load_game(SMALL)), "runs/a=b")
    assert ckpt_pair("elements=runs/x") == (str(elements_ai.load_game("elements")), "runs/x")
    with pytest.raises(SystemExit, match="GAME=PATH"):
        ckpt_pair("elements")


@pytest.mark.slow
def test_approx_exploitability_quick(tmp_path):
    import json

    import pandas as pd

    _experiment("approx_exploitability.py", tmp_path)
    table = pd.read_csv(tmp_path / "approx_exploitability.csv")
    assert list(table["agent"]) == ["random", "rules", "rules", "ismcts:sims=20"]
    assert ((table["low"] <= table["bound"]) & (table["bound"] <= table["high"])).all()
    assert list(table["games"]) == [100, 100, 100, 25]  # quick: 100 games (against IS-MCTS 25), seats alternated
    small = table[table["game"] == SMALL]
    assert small["exact"].notna().all() and (small["exact"] > 0).all()
    # A learned response is a lower bound: its interval starts below the exact exploitability.
    assert (small["low"] <= small["exact"]).all() and small["within_margin"].notna().all()
    assert (tmp_path / "approx_exploitability.png").stat().st_size > 0
    run = json.loads((tmp_path / "approx_exploitability.run.json").read_text())
    assert run["seed"] == 7_000_000 and "approx_exploitability.py --quick" in run["command"] and run["commit"]


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # one local Ray at a time: they would share its 2 CPUs
def test_ray_actors_collect_for_one_learner(tmp_path):
    import ray

    game = elements_ai.load_game(SMALL)
    config = PPOConfig(**{**TINY, "num_envs": 16})
    try:
        with PPOTrainer(game, tmp_path / "ray", config, seed=3, progress=False, backend="ray", actors=2) as trainer:
            trainer.train(16 * 8 * 2)
            assert trainer.env_steps == 256 and trainer.iteration == 2
        assert trainer.actors.handles == []  # their CPUs are free for the next run's actors
        with PPOTrainer(game, tmp_path / "ray", progress=False, backend="ray") as resumed:
            assert resumed.iteration == 2 and len(resumed.actors.handles) == 2
            resumed.train(16 * 8 * 3)
            assert resumed.env_steps == 384
    finally:
        ray.shutdown()
    with pytest.raises(ValueError, match="actors must divide"):
        PPOTrainer(game, tmp_path / "bad", config, backend="local", actors=3)


@pytest.mark.parametrize("module, config", [("ppo", "PPOConfig"), ("mmd", "MMDConfig"), ("nfsp", "NFSPConfig"),
                                            ("az", "AZConfig"), ("psro", "PSROConfig")])
def test_a_hidden_layer_of_no_width_is_refused_by_every_config(module, config):
    import importlib

    cls = getattr(importlib.import_module(f"elements_ai.selfplay.{module}"), config)
    with pytest.raises(ValueError, match=rf"{config}\.hidden must be layer widths of at least 1, got \[64, 0\]"):
        cls(hidden=[64, 0])
    assert cls(hidden=["32"]).hidden == (32,)
