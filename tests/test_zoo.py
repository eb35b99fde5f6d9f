"""The shipped baselines: recipes, files, the numpy networks, and how bots find them."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from commands import ENV

import elements_ai
from elements_ai import zoo
from elements_ai.agents import make_bot
from elements_ai.agents.network import Network, NetworkError, masked_softmax
from elements_ai.cli import main
from elements_ai.selfplay.net import PolicyValueNet
from elements_ai.selfplay.recipes import install, train

SHIPPED = [r for kind in zoo.KINDS for r in zoo.shipped(kind)]
NETWORKS = [r for r in SHIPPED if r.kind != "cfr"]


def test_every_recipe_names_a_known_game_and_a_trainer_that_takes_its_settings():
    from elements_ai.selfplay.az import AZConfig
    from elements_ai.selfplay.mmd import MMDConfig
    from elements_ai.selfplay.ppo import PPOConfig

    assert {r.kind for r in zoo.recipes().values()} == {"ppo", "az", "cfr", "mmd"}
    for entry in zoo.recipes().values():
        assert entry.game == str(elements_ai.load_game(entry.game))
        if entry.kind == "ppo":
            PPOConfig(**entry.config)
        elif entry.kind == "mmd":
            MMDConfig(**entry.config)
        elif entry.kind == "az":
            AZConfig(**entry.config)
            assert elements_ai.load_game(entry.game).config.perfect_information
        assert entry.steps > 0 and entry.description


def test_the_shipped_files_are_the_recipes_at_full_length_and_fit_the_budget():
    listed = zoo.manifest()
    assert set(listed) == {r.name for r in SHIPPED}
    total = 0
    for entry in SHIPPED:
        record = listed[entry.name]
        assert record["steps"] == entry.steps and record["seed"] == entry.seed and record["game"] == entry.game
        assert record["commit"] != "unknown" and record["train_seconds"] > 0
        total += (zoo.SHIPPED / entry.file).stat().st_size
        if entry.kind == "cfr":
            assert record["exploitability"] < 1e-4
        else:
            net = Network.load(zoo.SHIPPED / entry.file)
            assert net.meta["recipe"] == entry.name and net.meta["game"] == entry.game
    assert total <= 40 * 10**6, f"the shipped files take {total / 1e6:.2f} MB, over the 40 MB budget"


@pytest.mark.parametrize("entry", NETWORKS, ids=lambda r: r.name)
def test_the_numpy_forward_pass_matches_torch(entry):
    net = Network.load(zoo.SHIPPED / entry.file)
    game = elements_ai.load_game(entry.game)
    torch_net = PolicyValueNet.from_network(net)
    rng = np.random.default_rng(0)
    infos = []
    for _ in range(8):
        state = game.new_initial_state()
        decisions = 0  # the deal's chance steps do not count: with 4 players they pass 40
        while not state.is_terminal() and decisions < 40:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                infos.append(state.information_state_tensor(state.current_player()))
                state.apply_action(int(rng.choice(state.legal_actions())))
                decisions += 1
    info = np.asarray(infos, np.float32)
    assert len(info) >= 8
    logits, values = net.forward(info)
    with torch.no_grad():
        expected_logits, expected_values = torch_net(torch.from_numpy(info))
    # To 1e-5 in float32's own terms: a logit of 30 carries rounding of about 2e-6 per
    # operation, so large logits are compared relative to their size.
    np.testing.assert_allclose(logits, expected_logits.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(values, expected_values.numpy(), rtol=1e-5, atol=1e-5)
    mask = np.ones_like(logits, dtype=bool)
    np.testing.assert_allclose(masked_softmax(logits, mask), masked_softmax(expected_logits.numpy(), mask), atol=1e-5)


def test_a_trained_torch_network_converts_exactly_both_ways():
    net = PolicyValueNet(info_size=12, num_actions=5, num_players=3, hidden=(16, 8))
    info = torch.rand(32, 12)
    with torch.no_grad():
        logits, values = net(info)
    numpy_net = net.to_network({"game": "g()"})
    got_logits, got_values = numpy_net.forward(info.numpy())
    assert np.abs(got_logits - logits.numpy()).max() < 1e-5 and np.abs(got_values - values.numpy()).max() < 1e-5
    back = PolicyValueNet.from_network(numpy_net)
    for a, b in zip(net.parameters(), back.parameters()):
        assert torch.equal(a, b)


def test_network_files_round_trip_and_damaged_ones_are_named(tmp_path):
    net = PolicyValueNet(info_size=6, num_actions=3, num_players=2, hidden=(4,)).to_network({"game": "g()"})
    path = net.save(tmp_path / "net.npz")
    loaded = Network.load(path)
    assert loaded.meta["game"] == "g()" and loaded.hidden == (4,)
    x = np.random.default_rng(1).random((3, 6), dtype=np.float32)
    assert np.array_equal(loaded.forward(x)[0], net.forward(x)[0])
    (tmp_path / "text.npz").write_text("not a network")
    with pytest.raises(NetworkError, match="not a readable network file"):
        Network.load(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(2))
    with pytest.raises(NetworkError, match="not an elements_ai network file"):
        Network.load(tmp_path / "other.npz")
    with pytest.raises(NetworkError, match="no network file"):
        Network.load(tmp_path / "missing.npz")


def test_half_precision_files_hold_the_rounded_weights_in_half_the_bytes(tmp_path):
    net = PolicyValueNet(info_size=600, num_actions=3, num_players=2, hidden=(64,)).to_network({"game": "g()"})
    full, half = net.save(tmp_path / "full.npz"), net.save(tmp_path / "half.npz", weights="float16")
    assert half.stat().st_size < 0.6 * full.stat().st_size
    loaded = Network.load(half)
    assert loaded.layers[0][0].dtype == np.float32
    assert np.array_equal(loaded.layers[0][0], net.layers[0][0].astype(np.float16).astype(np.float32))
    x = np.random.default_rng(1).random((3, 600), dtype=np.float32)
    assert np.allclose(loaded.forward(x)[0], net.forward(x)[0], atol=1e-2)
    with pytest.raises(ValueError, match="weights must be 'float32' or 'float16'"):
        net.save(tmp_path / "bad.npz", weights="int8")
    assert not (tmp_path / "bad.npz").exists()


def test_weights_are_stored_as_byte_planes_exactly_and_older_plain_files_still_load(tmp_path):
    net = PolicyValueNet(info_size=600, num_actions=3, num_players=2, hidden=(64,)).to_network({"game": "g()"})
    planes = net.save(tmp_path / "planes.npz")
    loaded = Network.load(planes)
    for (w, b), (w2, b2) in zip([*net.layers, net.policy, net.value], [*loaded.layers, loaded.policy, loaded.value]):
        assert w2.dtype == np.float32 and np.array_equal(w, w2) and np.array_equal(b, b2)
    # The format before byte planes: the same keys, each weight matrix a plain float array.
    with np.load(planes) as data:
        arrays = {key: data[key] for key in data.files}
    arrays["format"] = np.array("elements_ai.network/1")
    for key in [k for k in arrays if k.endswith(".weight")]:
        arrays[key] = np.moveaxis(arrays[key], 0, -1).copy().view("<f4")[..., 0]
    np.savez_compressed(tmp_path / "plain.npz", **arrays)
    assert planes.stat().st_size < 0.95 * (tmp_path / "plain.npz").stat().st_size
    old = Network.load(tmp_path / "plain.npz")
    assert all(np.array_equal(w, w2) for (w, _), (w2, _) in zip(net.layers, old.layers))
    assert np.array_equal(old.policy[0], net.policy[0])


def test_a_recipe_with_an_unknown_weights_format_is_named(tmp_path, monkeypatch):
    text = zoo.RECIPES.read_text().replace('weights = "float16"', 'weights = "float8"', 1)
    assert 'weights = "float8"' in text
    (tmp_path / "recipes.toml").write_text(text)
    monkeypatch.setattr(zoo, "RECIPES", tmp_path / "recipes.toml")
    with pytest.raises(ValueError, match="stores weights as 'float8'"):
        zoo.recipes.__wrapped__()


def test_bots_read_a_network_file_once_per_version_and_keep_only_recent_files(tmp_path):
    from elements_ai.agents import netbots

    net = PolicyValueNet(info_size=6, num_actions=3, num_players=2, hidden=(4,)).to_network({"game": "g()"})
    path = str(net.save(tmp_path / "net.npz"))
    first = netbots._cached(path)
    assert netbots._cached(path) is first
    net.save(path)
    os.utime(path, (1, 1))  # a new version of the file (whatever the clock's grain) is read again
    assert netbots._cached(path) is not first
    for k in range(40):
        netbots._cached(str(net.save(tmp_path / f"net{k}.npz")))
    assert netbots._load.cache_info().currsize <= 32


@pytest.mark.parametrize("entry", SHIPPED, ids=lambda r: r.name)
def test_bots_without_a_file_play_the_shipped_agent(entry):
    game = elements_ai.load_game(entry.game)
    bots = [make_bot(entry.kind, game, p, seed=p) for p in range(game.num_players())]
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    moves = 0
    while not state.is_terminal() and moves < 30:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
            moves += 1
    assert moves > 0


def test_a_game_without_a_shipped_agent_is_one_line_naming_those_that_have_one():
    for kind, name in (("ppo", "elements(single_round=true)"), ("cfr", "elements(single_round=true)"),
                       ("az", "elementos(setup=standard,max_moves=100)")):
        game = elements_ai.load_game(name)
        with pytest.raises(zoo.ShippedError) as caught:
            make_bot(kind, game, 0)
        message = str(caught.value)
        assert "\n" not in message and f"no shipped agent for {game}" in message
        for entry in zoo.shipped(kind):
            assert entry.game in message


@pytest.mark.slow
def test_the_shipped_agents_play_with_the_base_install_alone():
    # torch made unimportable: what `pip install .` without extras gives.
    code = textwrap.dedent(f"""
        import sys
        sys.modules["torch"] = None
        import elements_ai
        from elements_ai.agents import make_bot
        from elements_ai import zoo
        for entry in {[(r.kind, r.game) for r in SHIPPED]!r}:
            game = elements_ai.load_game(entry[1])
            bot = make_bot(entry[0], game, 0, seed=1)
            state = game.new_initial_state()
            while state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            assert bot.step(state) in state.legal_actions()
        assert "torch" not in sys.modules or sys.modules["torch"] is None
        print("played", len({[r.name for r in SHIPPED]!r}))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=ENV)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"played {len(SHIPPED)}"


def test_agents_lists_each_shipped_agent_with_its_recipe_and_commit(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    listed = zoo.manifest()
    for entry in SHIPPED:
        assert f"recipe {entry.name}:" in out and listed[entry.name]["commit"][:10] in out
    lines = out.splitlines()
    duel = next(k for k, line in enumerate(lines) if line.startswith("     recipe ppo-elemental_duel:"))
    assert lines[duel + 1] == "     plays with greedy=True, endgame=5"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(zoo.recipes()))
def test_every_recipe_trains_for_a_few_thousand_steps_and_its_result_plays(name, tmp_path):
    entry = zoo.recipe(name)
    steps = {"cfr": 20, "az": 512}.get(entry.kind, 2000)  # az: 512 steps already train on its searches
    if "rollout=rules" in entry.config.get("imitate", ""):
        steps = 256  # every copied move is a search whose playouts the rules bot plays (~0.1 s with 5 players)
    record = train(entry, tmp_path, steps=steps, progress=False)
    assert record["steps"] == steps and record["recipe"] == name
    saved = json.loads((tmp_path / f"{name}.json").read_text())
    assert saved["config"] == entry.config and saved["seed"] == entry.seed
    game = elements_ai.load_game(entry.game)
    spec = f"{entry.kind}:{'policy' if entry.kind == 'cfr' else 'ckpt'}={tmp_path / entry.file}"
    if entry.kind == "az":
        spec += ",sims=4"
    bot = make_bot(spec, game, 0, seed=2)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.step(state) in state.legal_actions()
    with pytest.raises(ValueError, match="only a full-length run is shipped"):
        install(tmp_path, [name])


def test_train_on_a_game_with_a_recipe_takes_the_recipe_as_its_defaults(tmp_path, capsys):
    out = tmp_path / "duel"
    assert main(["train", "elemental_duel", "--steps", "256", "--out", str(out), "--quiet",
                 "--set", "num_envs=8", "--set", "rollout_steps=8", "--set", "imitation_steps=64"]) == 0
    printed = capsys.readouterr()
    assert "recipe ppo-elemental_duel" in printed.err
    from elements_ai.selfplay import checkpoint

    saved = checkpoint.load(out)
    entry = zoo.recipe("ppo-elemental_duel")
    assert saved["seed"] == entry.seed
    for key, value in entry.config.items():
        if key not in ("num_envs", "rollout_steps", "imitation_steps"):
            expected = list(value) if isinstance(value, (list, tuple)) else value
            assert saved["config"][key] == expected, key
    assert saved["config"]["num_envs"] == 8
    # The run plays as the recipe's agent does: greedy, the last duels exact.
    assert f"plays as ppo:ckpt={out} (play.json: greedy=True,endgame=5)" in printed.out
    game = elements_ai.load_game("elemental_duel")
    bot = make_bot(f"ppo:ckpt={out}", game, 0)
    assert (bot.greedy, bot.endgame) == (True, 5)
    assert make_bot(f"ppo:ckpt={out},endgame=0", game, 0).endgame == 0


def test_a_malformed_play_file_is_named(tmp_path):
    from elements_ai.agents.netbots import recorded_play

    (tmp_path / "play.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="play.json: not a play file"):
        recorded_play(tmp_path)
    assert recorded_play(tmp_path / "elsewhere") == {}


def test_zoo_train_checks_its_arguments_before_any_work(tmp_path, capsys):
    assert main(["zoo", "train", "nope", "--out", str(tmp_path)]) == 2
    assert "no recipe 'nope'" in capsys.readouterr().err
    assert main(["zoo", "train", "--game", "chess", "--out", str(tmp_path)]) == 2
    assert "--game chess: no recipe" in capsys.readouterr().err
    assert main(["zoo", "train", "cfr-elements-small", "--steps", "5", "--install", "--out", str(tmp_path)]) == 2
    assert "full-length" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_a_resumed_recipe_run_keeps_the_commit_it_started_at_and_adds_up_its_time(tmp_path, monkeypatch):
    import elements_ai.selfplay.recipes as zoo_train

    entry = zoo.recipe("ppo-elements-small")
    commits = iter(["a" * 40, "b" * 40, "b" * 40])
    monkeypatch.setattr(zoo_train, "provenance", lambda: {"commit": next(commits), "machine": "test"})
    here = zoo_train.arithmetic()
    # Another machine's kernels: whatever this one's are, not the same.
    elsewhere = {**here, "torch_kernels": "DEFAULT" if here.get("torch_kernels") != "DEFAULT" else "AVX2"}
    machines = iter([here, elsewhere, here])
    monkeypatch.setattr(zoo_train, "arithmetic", lambda: next(machines))
    first = train(entry, tmp_path, steps=4096, progress=False)
    assert first["commit"] == "a" * 40 and "resumed_at" not in first and first["trained_on"] == here
    second = train(entry, tmp_path, steps=8192, progress=False)
    assert second["env_steps"] > first["env_steps"]
    assert second["commit"] == "a" * 40 and second["resumed_at"] == ["b" * 40]
    # Resumed with other kernels, its bits come back nowhere: no machine is named.
    assert second["trained_on"] is None
    assert second["train_seconds"] >= first["train_seconds"]
    # Run again once finished, it trains nothing and its record is unchanged but for the time.
    third = train(entry, tmp_path, steps=8192, progress=False)
    assert third["env_steps"] == second["env_steps"] and third["resumed_at"] == ["b" * 40]
    assert third["trained_on"] is None
    assert json.loads((tmp_path / f"{entry.name}.json").read_text())["commit"] == "a" * 40
    assert Network.load(tmp_path / entry.file).meta["commit"] == "a" * 40


def test_a_malformed_run_history_is_named_before_any_training(tmp_path, capsys):
    run = tmp_path / "ppo-elements-small"
    run.mkdir()
    (run / "zoo-run.json").write_text('{"commit": 3}')
    assert main(["zoo", "train", "ppo-elements-small", "--steps", "4096", "--out", str(tmp_path), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "zoo-run.json: not a run history" in error
    assert [p.name for p in run.iterdir()] == ["zoo-run.json"]


def test_an_opponent_with_an_exact_endgame_plays_as_its_bot_row_by_row():
    from elements_ai.selfplay.players import BotPlayer, NetPlayer, make_player

    game = elements_ai.load_game("elemental_duel")
    env = elements_ai.make_vec("elemental_duel", 4, seed=0)
    shipped = make_player("ppo", env, game, 0)
    assert isinstance(shipped, BotPlayer) and shipped.bots[0].endgame == 5
    assert isinstance(make_player("ppo:endgame=0", env, game, 0), NetPlayer)
