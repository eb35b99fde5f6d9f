"""The ecosystem adapters (``elements_ai.envs``): PettingZoo's api_test and seed_test
and Gymnasium's check_env on every game, rewards that sum to the OpenSpiel face's
returns for the same actions, tensors and masks read from that face, seeding, the
bots the Gymnasium environment plays, and one-line errors.

These tests need the ``rl`` extra; CI installs it, and without it they fail (not skip).
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest

try:
    import gymnasium
    import pettingzoo  # noqa: F401
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, seed_test
except ImportError as error:
    pytest.fail(f"tests/test_envs.py needs the rl extra (pip install -e '.[rl]'): {error}", pytrace=False)

from commands import ENV

import elements_ai
from elements_ai.core.params import ParameterError
from elements_ai.envs import make_gymnasium, make_pettingzoo

# Every game, and every number of players of the games that take several.
CASES = [(name, {}) for name in elements_ai.GAMES] + [
    ("elements1997", {"players": 4}),
    ("elements1997", {"players": 5}),
    ("elementum", {"players": 1}),
    ("elementum", {"players": 3}),
    ("elementum", {"players": 4}),
]
IDS = [name + "".join(f"-{key}={value}" for key, value in params.items()) for name, params in CASES]
# Every declared variant of every game (they include the player counts above).
VARIANTS = [(name, variant, dict(params)) for name in elements_ai.GAMES
            for variant, params in elements_ai.get_kernel(name).variants.items()]
VARIANT_IDS = [f"{name}-{variant}" for name, variant, _ in VARIANTS]
# Deals of this round that the random bot often ends before seat 0 or 1 has a move.
SHORT = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"

# What PettingZoo's api_test says of any Dict observation (its own classic games are
# exempted by name), and what check_env says of unbounded counts and of an
# environment made without gymnasium.make.
EXPECTED_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "A Box observation space maximum value is infinity",
    "Not able to test alternative render modes",
    "; the episode ends, seat ",  # check_env's unmasked actions (illegal="lose")
)


def _unexpected(caught) -> list[str]:
    return [str(w.message) for w in caught if not any(text in str(w.message) for text in EXPECTED_WARNINGS)]


def _replayed_returns(game, history):
    """The OpenSpiel face's returns after the same actions (chance outcomes included)."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    assert state.is_terminal()
    return state.returns()


def _one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text, text
    return text


# --- PettingZoo ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_pettingzoo_api_test_and_seed_test_pass(name, params, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = make_pettingzoo(name, **params)
        api_test(env, num_cycles=1000)
        seed_test(lambda: make_pettingzoo(name, **params), num_cycles=1000)
    assert "Passed API test" in capsys.readouterr().out
    assert not _unexpected(caught)
    assert env.possible_agents == [f"player_{p}" for p in range(env.game.num_players())]


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_pettingzoo_rewards_sum_to_the_openspiel_returns_and_observations_are_its_tensors(name, params):
    env = make_pettingzoo(name, **params)
    env.reset(seed=11)
    game = env.game
    totals = dict.fromkeys(env.possible_agents, 0.0)
    decisions = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        assert not truncation
        if termination:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        state = env.game_state
        assert state.current_player() == seat
        np.testing.assert_array_equal(observation["observation"], np.float32(state.observation_tensor(seat)))
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any(), "a mask for an agent not to move"
        env.step(int(env.np_random.choice(np.flatnonzero(observation["action_mask"]))))
        decisions += 1
    assert not env.agents and decisions > 0
    returns = _replayed_returns(game, env.game_state.history())
    assert [totals[agent] for agent in env.possible_agents] == pytest.approx(returns)
    assert env.returns() == returns


def test_pettingzoo_seeds_reproduce_games_and_differ_between_seeds():
    def play(seed):
        env = make_pettingzoo("elements", single_round=True)
        env.reset(seed=seed)
        for _ in env.agent_iter():
            observation, _, termination, _, _ = env.last()
            # Always the lowest legal action: only chance differs between seeds.
            env.step(None if termination else int(np.flatnonzero(observation["action_mask"])[0]))
        return env.game_state.history()

    assert play(5) == play(5)
    assert play(5) != play(6)
    env = make_pettingzoo("elements", seed=5, single_round=True)
    env.reset()
    other = make_pettingzoo("elements", single_round=True)
    other.reset(seed=5)
    assert env.game_state.history() == other.game_state.history()


def test_pettingzoo_information_state_observations():
    env = make_pettingzoo("elements(single_round=true)", observation="information_state")
    env.reset(seed=2)
    seat = env.game_state.current_player()
    observation = env.observe(env.agent_selection)["observation"]
    assert observation.shape == tuple(env.game.information_state_tensor_shape())
    np.testing.assert_array_equal(observation, np.float32(env.game_state.information_state_tensor(seat)))
    assert env.observation_space(env.agent_selection)["observation"].shape == observation.shape


def test_pettingzoo_illegal_and_malformed_actions_are_one_line_errors():
    env = make_pettingzoo("elements")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.game_state.history()
    with pytest.raises(ValueError) as error:
        env.step(illegal)
    text = _one_line(error)
    assert text.startswith(f"elements: action {illegal} is not legal for {env.agent_selection} here; legal: ")
    assert text.count("(") == mask.sum()
    with pytest.raises(ValueError) as error:
        env.step(1.5)
    assert "an action is an integer id, got 1.5" in _one_line(error)
    assert env.game_state.history() == before, "a refused action changed the game"
    env.step(np.int32(np.flatnonzero(mask)[0]))
    assert len(env.game_state.history()) > len(before)


def test_pettingzoo_render_modes():
    env = make_pettingzoo("elementos", render_mode="ansi")
    env.reset(seed=1)
    assert env.render() == str(env.game_state)
    env = make_pettingzoo("elementos", render_mode="svg")
    env.reset(seed=1)
    assert env.render() == elements_ai.render(env.game_state)
    picture = make_pettingzoo("elementos", render_mode="rgb_array")
    picture.reset(seed=1)
    array = picture.render()
    assert array.dtype == np.uint8 and array.ndim == 3 and array.shape[2] == 3
    with pytest.raises(ParameterError) as error:
        make_pettingzoo("elementos", render_mode="human")
    assert "render_mode must be None or one of ansi, svg, rgb_array" in _one_line(error)


# --- Gymnasium -------------------------------------------------------------------------------

@pytest.mark.parametrize("name, variant, params", VARIANTS, ids=VARIANT_IDS)
def test_gymnasium_check_env_passes_on_every_variant(name, variant, params):
    # check_env steps unmasked random actions (one sampled before a reset and played
    # after it): the default illegal="lose" ends those episodes; "raise" is checked below.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seat in range(elements_ai.load_game(name, **params).num_players()):
            check_env(make_gymnasium(name, bots=["random"], seat=seat, seed=0, **params))
    assert not _unexpected(caught)


def _maskable_ppo_learns(name: str, params: dict, seat: int) -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    env = make_gymnasium(name, bots=["random"], seat=seat, seed=0, **params)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    # Without a logger of its own, each learn() leaves an empty SB3-<time> folder in /tmp.
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(64)
    assert model.num_timesteps >= 64
    observation, _ = env.reset(seed=1)
    action, _ = model.predict(observation, action_masks=env.action_masks())
    assert int(action) in env.game_state.legal_actions()


@pytest.mark.slow
def test_maskable_ppo_learns_where_deals_end_before_the_learners_move():
    for seat in (0, 1):
        _maskable_ppo_learns(SHORT, {}, seat)


@pytest.mark.slow
@pytest.mark.parametrize("name, variant, params", VARIANTS, ids=VARIANT_IDS)
def test_maskable_ppo_learns_on_every_variant(name, variant, params):
    players = elements_ai.load_game(name, **params).num_players()
    for seat in sorted({0, players - 1}):
        _maskable_ppo_learns(name, params, seat)


def test_gymnasium_reset_deals_again_when_the_game_ends_before_the_learners_first_move():
    for seat in (0, 1):
        env = make_gymnasium(SHORT, bots=["random"], seat=seat)
        skipped = []
        for seed in range(100):
            observation, info = env.reset(seed=seed)
            assert env.game_state.current_player() == seat and observation["action_mask"].any()
            np.testing.assert_array_equal(observation["action_mask"], env.action_masks().astype(np.int8))
            skipped.append(info["skipped_deals"])
        assert sum(skipped) > 0 and skipped.count(0) > 50, skipped
    env = make_gymnasium(SHORT, bots=["random"])
    first = env.reset(seed=15)
    assert first[1]["skipped_deals"] >= 1
    # A seeded reset replays the same deals, skipped ones included.
    again = env.reset(seed=15)
    assert again[1] == first[1] and np.array_equal(again[0]["observation"], first[0]["observation"])


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_gymnasium_masked_random_rollout_ends_with_the_openspiel_returns(name, params):
    players = elements_ai.load_game(name, **params).num_players()
    seat = players - 1
    env = make_gymnasium(name, bots=["random"], seat=seat, seed=4, **params)
    observation, info = env.reset()
    assert observation in env.observation_space and list(info) == ["skipped_deals"]
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        state = env.game_state
        assert state.current_player() == seat
        np.testing.assert_array_equal(observation["observation"], np.float32(state.observation_tensor(seat)))
        assert np.flatnonzero(env.action_masks()).tolist() == state.legal_actions()
        np.testing.assert_array_equal(observation["action_mask"], env.action_masks().astype(np.int8))
        action = env.action_space.sample(observation["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        assert observation in env.observation_space and not truncated
        total += reward
        steps += 1
    returns = _replayed_returns(env.game, env.game_state.history())
    assert total == pytest.approx(returns[seat])
    assert info["returns"] == returns and steps > 0
    assert not observation["action_mask"].any() and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="the episode is over; call reset"):
        env.step(0)


def test_gymnasium_plays_the_bots_given_on_their_seats():
    env = make_gymnasium("elements1997", bots=["rules", "random", "mcts:sims=5"], seat=1, players=4)
    assert env.bot_specs == {0: "rules", 2: "random", 3: "mcts:sims=5"}
    assert {seat: type(bot).__name__ for seat, bot in env.bots.items()} == {
        0: "RulesBot", 2: "RandomBot", 3: "MCTSBot"}
    assert all(bot.player == seat for seat, bot in env.bots.items())
    assert env.bots[3].options["sims"] == 5
    env.reset(seed=1)
    # Every move of another seat is the move its bot chose.
    chosen = []
    for seat, bot in env.bots.items():
        step = bot.step

        def recorded(state, seat=seat, step=step):
            action = step(state)
            chosen.append((seat, action))
            return action

        bot.step = recorded
    start = len(env.game_state.history())
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    played = []
    state = env.game.new_initial_state()
    for index, action in enumerate(env.game_state.history()):
        if index >= start and not state.is_chance_node() and state.current_player() != 1:
            played.append((state.current_player(), action))
        state.apply_action(action)
    assert played == chosen and {seat for seat, _ in played} == {0, 2, 3}


def test_gymnasium_one_spec_fills_every_other_seat_and_a_solo_game_needs_none():
    env = make_gymnasium("elementum", bots="rules", seat=2, players=4)
    assert env.bot_specs == {0: "rules", 1: "rules", 3: "rules"}
    solo = make_gymnasium("elementum", players=1)
    assert solo.bots == {}
    observation, _ = solo.reset(seed=3)
    terminated = False
    while not terminated:
        observation, reward, terminated, _, info = solo.step(solo.action_space.sample(observation["action_mask"]))
    assert reward == info["returns"][0] == _replayed_returns(solo.game, solo.game_state.history())[0]


def test_gymnasium_seeds_reproduce_chance_and_bots():
    def play(env, **reset):
        observation, _ = env.reset(**reset)
        rewards, terminated = [], False
        while not terminated:
            observation, reward, terminated, _, _ = env.step(int(np.flatnonzero(observation["action_mask"])[-1]))
            rewards.append(reward)
        return env.game_state.history(), rewards

    env = make_gymnasium("elements", bots=["mcts:sims=20"], seat=1)
    first = play(env, seed=9)
    assert play(env, seed=9) == first
    assert play(make_gymnasium("elements", bots=["mcts:sims=20"], seat=1, seed=9)) == first
    assert play(env, seed=10)[0] != first[0]
    # Unseeded resets go on from the seeded one, the same way each time.
    play(env, seed=9)
    after = play(env)
    play(env, seed=9)
    assert play(env) == after


def test_gymnasium_illegal_actions():
    env = make_gymnasium("elements", bots=["random"], seed=0, illegal="raise")
    observation, _ = env.reset()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = env.game_state.history()
    with pytest.raises(ValueError) as error:
        env.step(illegal)
    text = _one_line(error)
    assert text.startswith(f"elements: action {illegal} is not legal for seat 0 here; legal: ")
    assert env.game_state.history() == before, "an illegal action changed the game"
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))  # the episode goes on

    lose = make_gymnasium("elements", bots=["random"], seed=0)
    lose.reset()
    with pytest.warns(UserWarning, match=f"action {illegal} is not legal for seat 0 here; .*seat 0 losing"):
        observation, reward, terminated, truncated, info = lose.step(illegal)
    assert (reward, terminated, truncated, info) == (lose.game.min_utility(), True, False, {"illegal_action": illegal})
    assert not observation["action_mask"].any()
    with pytest.raises(ValueError) as error:
        lose.reset()
        lose.step("0")
    assert "an action is an integer id, got '0'" in _one_line(error)


@pytest.mark.parametrize("call, message", [
    (lambda: make_gymnasium("elements", players=3), "elements: unknown parameter 'players'"),
    (lambda: make_gymnasium("elements1997", bots=["random", "rules"], players=4),
     "elements1997 has 4 players: give one bot spec for all 3 other seats or one per seat, got 2"),
    (lambda: make_gymnasium("elements", bots=["mcts:simz=3"]), "unknown parameter 'simz'"),
    (lambda: make_gymnasium("elements", bots=["nobody"]), "unknown bot 'nobody'"),
    (lambda: make_gymnasium("elements", seat=2), "seat must be a player 0..1, got 2"),
    (lambda: make_gymnasium("elements", illegal="ignore"), "illegal must be one of raise, lose"),
    (lambda: make_gymnasium("elements", observation="pixels"),
     "observation must be one of observation, information_state"),
    (lambda: make_pettingzoo("chess"), "unknown game 'chess'"),
    (lambda: make_pettingzoo("elements(single_round=yes)"), "single_round must be true or false"),
])
def test_bad_arguments_are_one_line_parameter_errors(call, message):
    with pytest.raises(ParameterError) as error:
        call()
    assert message in _one_line(error)


def test_gymnasium_render_and_information_state():
    env = make_gymnasium("elemental_duel", bots=["rules"], render_mode="ansi", observation="information_state")
    observation, _ = env.reset(seed=0)
    assert env.render() == str(env.game_state)
    assert observation["observation"].shape == tuple(env.game.information_state_tensor_shape())
    assert isinstance(env, gymnasium.Env)


def test_importing_the_package_loads_neither_library():
    code = "import sys, elements_ai.envs; print(sorted({'gymnasium', 'pettingzoo'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=ENV)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_without_the_extra_the_package_imports_and_says_what_to_install(monkeypatch):
    # None in sys.modules makes an import fail as if the package were not installed.
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    import elements_ai.envs

    for call, what in ((elements_ai.envs.make_pettingzoo, "make_pettingzoo"),
                       (elements_ai.envs.make_gymnasium, "make_gymnasium")):
        with pytest.raises(ParameterError) as error:
            call("elements")
        assert _one_line(error) == f'{what} needs gymnasium: pip install "elements-ai[rl]"'
