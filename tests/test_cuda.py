"""The GPU vector face (core.vec_cuda) against the CPU face: the same seeds, the same games, bit for bit.

On a machine with no CUDA driver numba's CUDA simulator stands for the GPU (set by
conftest.py before numba.cuda is first imported): it runs every kernel in Python, one thread per
GPU thread, so these tests keep to a few envs and steps. Tests that only a real GPU can
answer (torch reading the arrays in place) say why they skip.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from commands import ENV

import elements_ai
from elements_ai.core import cuda as gpu
from elements_ai.core.params import ParameterError
from elements_ai.core.vec_cuda import as_device

REAL_GPU = not gpu.simulated() and gpu.available()
pytestmark = [
    pytest.mark.skipif(not gpu.available(), reason=f"no GPU face here: {gpu._unavailable()}"),
    # The simulator computes the streams with numpy's uint64 scalars, which warn when they wrap.
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
]
# The simulator runs a kernel's threads in Python: few envs and steps; a GPU takes many.
ENVS, STEPS = (64, 60) if REAL_GPU else (3, 5)

VIEWS = ("states", "current_player", "legal_mask", "chance_probs", "terminated", "returns")


def host(array) -> np.ndarray:
    return array.copy_to_host()


def assert_same(cpu, gpu_env, when: str) -> None:
    for name in VIEWS:
        mine, theirs = getattr(cpu, name), host(getattr(gpu_env, name))
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), f"{name} differs {when}"
    assert np.array_equal(cpu.observation(), host(gpu_env.observation())), f"observation differs {when}"
    assert np.array_equal(cpu.information_state(), host(gpu_env.information_state())), f"information state {when}"


def pair(game: str, variant: str, seed: int = 3, **options):
    params = dict(elements_ai.get_kernel(game).variants[variant])
    cpu = elements_ai.make_vec(game, ENVS, seed=seed, **options, **params)
    return cpu, elements_ai.make_vec(game, ENVS, seed=seed, device="cuda", **options, **params)


def case(game: str, variant: str, slow: bool = False):
    # One worker per game (pytest --dist loadgroup), which compiles its kernels once.
    marks = [pytest.mark.xdist_group(game)] + ([pytest.mark.slow] if slow else [])
    return pytest.param(game, variant, marks=marks, id=f"{game}-{variant}")


CASES = [
    case("elements", "small"),
    case("elements", "default"),
    case("elemental_duel", "one_duel"),
    case("elemental_duel", "default", slow=True),
    case("elementos", "small", slow=True),
    case("elementos", "standard", slow=True),
    case("elements1997", "five", slow=True),
    case("elements1997", "default", slow=True),
    case("elementum", "solo", slow=True),
    case("elementum", "default", slow=True),
]


@pytest.mark.slow
@pytest.mark.parametrize("game, variant", CASES)
def test_the_gpu_face_plays_the_cpu_faces_games(game, variant):
    # Random actions drawn by each face from its own streams, chance inside, autoreset:
    # every view and tensor stays equal, step after step.
    cpu, gpu_env = pair(game, variant, autoreset=True)
    assert_same(cpu, gpu_env, "after reset")
    for step in range(STEPS):
        actions = cpu.sample_actions()
        assert np.array_equal(actions, host(gpu_env.sample_actions())), f"sampled actions differ at step {step}"
        cpu.step(actions)
        gpu_env.step(actions)
        assert_same(cpu, gpu_env, f"after step {step}")
    for player in range(cpu.num_players):
        assert np.array_equal(cpu.observation(player), host(gpu_env.observation(player)))


@pytest.mark.parametrize("game, variant", [
    case("elements", "small"), case("elemental_duel", "one_duel"), case("elementos", "small", slow=True),
    case("elements1997", "five", slow=True), case("elementum", "solo", slow=True),
])
def test_random_playouts_on_the_gpu_are_the_cpu_ones(game, variant):
    cpu, gpu_env = pair(game, variant)
    games = 64 if REAL_GPU else 2
    want_returns, want_lengths = cpu.random_playouts(games, seed=11)
    returns, lengths = gpu_env.random_playouts(games, seed=11)
    assert np.array_equal(lengths, want_lengths) and lengths.min() > 0
    assert np.array_equal(returns, want_returns)


@pytest.mark.slow
def test_chance_from_outside_resets_and_checkpoints_agree_with_the_cpu():
    # auto_chance=False: both faces stop at chance nodes and take the outcome as the action.
    cpu, gpu_env = pair("elements", "small", auto_chance=False)
    assert (cpu.current_player == elements_ai.CHANCE).all()
    for _ in range(3):
        actions = cpu.sample_actions()
        cpu.step(actions)
        gpu_env.step(actions)
    assert_same(cpu, gpu_env, "after chance outcomes given from outside")
    # A partial reset, then a checkpoint of the CPU face loaded into the GPU face.
    mask = np.arange(ENVS) % 2 == 0
    cpu.reset(mask)
    gpu_env.reset(mask)
    assert_same(cpu, gpu_env, "after a partial reset")
    saved = cpu.state_dict()
    actions = cpu.sample_actions()
    cpu.step(actions)
    gpu_env.load_state_dict(saved)
    assert np.array_equal(host(gpu_env.sample_actions()), actions)  # the streams came with it
    gpu_env.step(actions)
    assert_same(cpu, gpu_env, "after loading the CPU face's checkpoint")
    assert all(np.array_equal(cpu.state_dict()[k], gpu_env.state_dict()[k]) for k in saved)


def test_an_illegal_action_is_named_and_changes_nothing():
    cpu, gpu_env = pair("elements", "small")
    actions = cpu.sample_actions()
    bad = 1
    actions[bad] = int(np.flatnonzero(~cpu.legal_mask[bad])[0])
    before = host(gpu_env.states)
    with pytest.raises(ValueError) as gpu_error:
        gpu_env.step(actions)
    with pytest.raises(ValueError) as cpu_error:
        cpu.step(actions)
    assert str(gpu_error.value) == str(cpu_error.value) and f"env {bad}: illegal action" in str(gpu_error.value)
    assert np.array_equal(host(gpu_env.states), before)
    with pytest.raises(ValueError, match="shape"):
        gpu_env.step(np.zeros(ENVS + 1, np.int64))


def test_device_names_are_checked_in_one_line(monkeypatch):
    with pytest.raises(ParameterError, match="device must be one of cpu, cuda, got 'tpu'"):
        elements_ai.make_vec("elements", 2, device="tpu")
    monkeypatch.setattr(gpu, "_unavailable", lambda: "no CUDA GPU or driver was found")
    with pytest.raises(ParameterError, match="device 'cuda': no CUDA GPU or driver was found; install the 'gpu'"):
        elements_ai.make_vec("elements", 2, device="cuda")


@pytest.mark.skipif(not REAL_GPU, reason="torch reads device arrays in place only on a real GPU (the simulator's "
                                         "arrays live on the host)")
def test_torch_reads_and_writes_the_gpu_arrays_in_place():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this torch has no CUDA")
    env = elements_ai.make_vec("elements", 256, seed=0, device="cuda")
    mask = torch.as_tensor(env.legal_mask, device="cuda")
    assert mask.data_ptr() == env.legal_mask.device_ctypes_pointer.value
    obs = torch.as_tensor(env.information_state(), device="cuda")
    assert obs.shape == (256, env.config.info_size) and obs.is_cuda
    logits = torch.zeros(mask.shape, device="cuda").masked_fill(~mask, -torch.inf)
    actions = torch.distributions.Categorical(logits=logits).sample()
    # The actions are read where they are: no copy through the host.
    assert as_device(actions, np.int64, (256,), "actions").device_ctypes_pointer.value == actions.data_ptr()
    env.step(actions)
    assert bool(torch.as_tensor(env.current_player, device="cuda").ge(-4).all())


@pytest.mark.slow
@pytest.mark.skipif(REAL_GPU, reason="on a GPU the other tests compile every kernel for it")
def test_every_game_compiles_for_the_gpu_with_nvvm():
    # The simulator runs the rules as compiled for the CPU; NVVM, where installed,
    # compiles them for a GPU (in a process of its own: this one simulates).
    env = {key: value for key, value in ENV.items() if key != "NUMBA_ENABLE_CUDASIM"}
    result = subprocess.run([sys.executable, str(Path(__file__).parent / "cuda_ptx.py")], capture_output=True,
                            text=True, env=env, timeout=3000)
    if result.returncode == 3:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert result.stdout.count(": ok") == 5 * len(elements_ai.GAMES) + 1


def test_ppo_on_the_gpu_refuses_what_only_the_cpu_plays(tmp_path):
    pytest.importorskip("torch")
    from elements_ai.selfplay.ppo import PPOConfig, PPOTrainer

    game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
    with pytest.raises(ValueError, match="device 'cuda' plays against the league alone: opponents=rules"):
        PPOTrainer(game, tmp_path / "a", PPOConfig(opponents=("rules",)), device="cuda")
    with pytest.raises(ValueError, match="device must be one of cpu, cuda, got 'gpu'"):
        PPOTrainer(game, tmp_path / "b", PPOConfig(), device="gpu")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.mark.slow
def test_ppo_trains_on_the_gpu_and_resumes(tmp_path):
    pytest.importorskip("torch")
    from elements_ai.selfplay.ppo import PPOConfig, PPOTrainer

    game = elements_ai.load_game("elements", single_round=True, deck="1_2_3_6_6_6", hand_size=2)
    envs = 256 if REAL_GPU else 4
    config = PPOConfig(num_envs=envs, rollout_steps=6, hidden=(16,), eval_every=0, snapshot_every=1, epochs=1,
                       minibatches=1, gamma=1.0, gae_lambda=1.0, self_play=1.0)
    trainer = PPOTrainer(game, tmp_path, config, seed=0, progress=False, device="cuda")
    batch = trainer.collector.collect()
    # Every seat is the learner's: every decision is a transition (no env is ever at
    # a chance node or over when it is asked to move).
    assert len(batch["action"]) == envs * config.rollout_steps and batch["games"] > 0
    assert bool(batch["mask"][range(len(batch["action"])), batch["action"]].all())
    # With gamma = lambda = 1 an advantage is the return still to come less the value:
    # in a game that ended, each seat's decisions get its final return, -1, 1, -2 or 2
    # over the bound 2 (the others get the value of where their game stands at the end).
    final = batch["advantage"] + batch["value"]
    exact = ((final.abs() - 0.5).abs() < 1e-5) | ((final.abs() - 1.0).abs() < 1e-5)
    assert int(exact.sum()) >= batch["games"] and bool(final.isfinite().all())
    row = trainer.train(2 * envs * config.rollout_steps)
    assert row["iteration"] == 2 and row["transitions"] > 0 and np.isfinite(row["policy_loss"])
    resumed = PPOTrainer(game, tmp_path, seed=0, progress=False, device="cuda")
    assert (resumed.iteration, resumed.env_steps) == (2, 2 * envs * config.rollout_steps)
