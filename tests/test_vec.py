"""The vector face, for every registered game: seeding, replay, reset, errors."""

import numpy as np
import pytest

import elements_ai

GAMES = elements_ai.GAMES


def run_random(env, max_steps=100_000):
    """Steps random actions until every env is finished; returns the steps taken."""
    for step in range(max_steps):
        if env.terminated.all():
            return step
        env.step(env.sample_actions())
    raise AssertionError("games did not finish")


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_games(name):
    a = elements_ai.make_vec(name, 32, seed=5)
    b = elements_ai.make_vec(name, 32, seed=5)
    c = elements_ai.make_vec(name, 32, seed=6)
    run_random(a), run_random(b), run_random(c)
    np.testing.assert_array_equal(a.states, b.states)
    np.testing.assert_array_equal(a.returns, b.returns)
    assert not np.array_equal(a.states, c.states)


@pytest.mark.parametrize("name", GAMES)
def test_finished_envs_stay_finished_until_reset(name):
    env = elements_ai.make_vec(name, 16, seed=1)
    run_random(env)
    snapshot = env.states.copy()
    returns = env.returns.copy()
    env.step(np.zeros(16, np.int64))  # ignored: every env is finished
    np.testing.assert_array_equal(env.states, snapshot)
    np.testing.assert_array_equal(env.returns, returns)
    assert (env.current_player == elements_ai.TERMINAL).all()
    assert not env.legal_mask.any()
    which = np.arange(16) % 2 == 0
    env.reset(which)
    assert (env.terminated == ~which).all()
    np.testing.assert_array_equal(env.states[~which], snapshot[~which])
    assert (env.current_player[which] >= 0).all()


@pytest.mark.parametrize("name", GAMES)
def test_a_saved_env_plays_on_as_it_would_have(name):
    env = elements_ai.make_vec(name, 8, seed=2)
    for _ in range(5):
        env.step(env.sample_actions())
    saved = env.state_dict()
    run_random(env)
    finished, returns = env.states.copy(), env.returns.copy()
    env.load_state_dict(saved)
    np.testing.assert_array_equal(env.states, saved["states"])
    run_random(env)  # the same streams draw the same actions and chance outcomes again
    np.testing.assert_array_equal(env.states, finished)
    np.testing.assert_array_equal(env.returns, returns)


def test_a_wrong_saved_env_is_refused_before_anything_changes():
    env = elements_ai.make_vec("elements", 4, seed=0)
    before = env.states.copy()
    smaller = elements_ai.make_vec("elements", 2, seed=0).state_dict()
    with pytest.raises(ValueError, match=r"states has shape \(2, .*another game or number of envs"):
        env.load_state_dict(smaller)
    with pytest.raises(ValueError, match="no rng in what it was given"):
        env.load_state_dict({k: v for k, v in env.state_dict().items() if k != "rng"})
    np.testing.assert_array_equal(env.states, before)


@pytest.mark.parametrize("name", GAMES)
def test_recorded_game_replays_exactly_with_explicit_chance(name):
    game = elements_ai.load_game(name)
    rnd = np.random.default_rng(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rnd.choice(actions, p=probs)))
        else:
            state.apply_action(int(rnd.choice(state.legal_actions())))
    env = elements_ai.make_vec(name, 1, seed=123, auto_chance=False)
    for action in state.history():
        assert not env.terminated[0]
        env.step(np.array([action]))
    assert env.terminated[0]
    np.testing.assert_array_equal(env.states[0], state.array)
    assert env.returns[0].tolist() == state.returns()


@pytest.mark.parametrize("name", GAMES)
def test_auto_chance_never_stops_at_chance_nodes(name):
    env = elements_ai.make_vec(name, 64, seed=2)
    for _ in range(20):
        assert (env.current_player != elements_ai.CHANCE).all()
        live = ~env.terminated
        assert env.legal_mask[live].any(axis=1).all()
        env.step(env.sample_actions())


@pytest.mark.parametrize("name", GAMES)
def test_illegal_action_names_the_env_and_changes_nothing(name):
    env = elements_ai.make_vec(name, 8, seed=4)
    actions = env.sample_actions()
    bad = int(np.flatnonzero(~env.legal_mask[3])[0])
    actions[3] = bad
    before = env.states.copy()
    with pytest.raises(ValueError, match=f"env 3: illegal action for player .* {bad}"):
        env.step(actions)
    np.testing.assert_array_equal(env.states, before)
    with pytest.raises(ValueError, match=r"actions must have shape \(8,\)"):
        env.step(np.zeros(7, np.int64))
    with pytest.raises(ValueError, match="player 9 is out of range"):
        env.observation(9)
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        elements_ai.make_vec(name, 0)


@pytest.mark.parametrize("name", GAMES)
def test_tensors_have_the_documented_shapes(name):
    env = elements_ai.make_vec(name, 5, seed=0)
    obs, info = env.observation(), env.information_state()
    assert obs.shape == (5, env.config.obs_size) and obs.dtype == np.float32
    assert info.shape == (5, env.config.info_size) and info.dtype == np.float32
    game = elements_ai.load_game(name)
    assert env.config.obs_size == game.observation_tensor_size()
    assert env.config.info_size == game.information_state_tensor_size()
    assert env.legal_mask.shape == (5, game.num_distinct_actions())


@pytest.mark.parametrize("name", GAMES)
def test_jitted_playouts_are_seeded_and_finish(name):
    env = elements_ai.make_vec(name, 1)
    r1, l1 = env.random_playouts(500, seed=8)
    r2, l2 = env.random_playouts(500, seed=8)
    r3, _ = env.random_playouts(500, seed=9)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(l1, l2)
    assert not np.array_equal(r1, r3)
    game = elements_ai.load_game(name)
    assert (l1 > 0).all()
    assert (l1 <= game.max_game_length()).all()
    assert (r1 >= game.min_utility()).all() and (r1 <= game.max_utility()).all()
    if game.get_type().utility == game.get_type().utility.ZERO_SUM:
        np.testing.assert_allclose(r1.sum(axis=1), 0.0)
