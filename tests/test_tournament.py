"""Tournaments: the schedule (seats, duplicate deals), games of 1 to 5 players, the
results folder (resume after a kill, reruns, other tournaments), reproducibility,
the backends, the SPRT, the command and the notebook."""

from __future__ import annotations

import collections
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba as nb
import numpy as np
import pandas as pd
import pytest
from commands import ENV, PACKAGE

import elements_ai
from elements_ai import cli
from elements_ai.commands.tournament import DEFAULT_AGENTS
from elements_ai.core import CHANCE, TERMINAL, Config, Kernel, Param, register
from elements_ai.core.layout import tensor_layout
from elements_ai.core.params import int_range
from elements_ai.eval import SPRT, build_schedule, ratings, read_games, seatings, tables, tournament

ROOT = Path(__file__).resolve().parents[1]
SMALL = "elements(single_round=true)"
CLI = [*PACKAGE, "tournament"]


def _strip_seconds(path: Path) -> str:
    return pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns="seconds").to_csv(index=False)


# --- the schedule ---------------------------------------------------------------------------------

@pytest.mark.parametrize("num_players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("num_agents", [2, 3, 6])
@pytest.mark.parametrize("mode", ["round-robin", "gauntlet"])
def test_schedule_rotates_seats_and_shares_deals(num_players, num_agents, mode):
    games = 60
    schedule = build_schedule(num_players, [f"a{i}" for i in range(num_agents)], games, seed=3, mode=mode)
    found_tables = tables(num_players, num_agents, mode)
    assert len(schedule) == games * len(found_tables)
    assert [g.index for g in schedule] == list(range(len(schedule)))
    for t, table in enumerate(found_tables):
        mine = [g for g in schedule if g.table == t]
        assert len(mine) == games
        # Every agent of the table holds every seat equally often.
        counts = collections.Counter((agent, seat) for g in mine for seat, agent in enumerate(g.seats))
        per_seat = {counts[(agent, seat)] for agent in table for seat in range(num_players)}
        assert len(per_seat) == 1 and per_seat != {0}
        # A deal is played in every seating with one chance seed; deals differ.
        for deal in {g.deal for g in mine}:
            dealt = [g for g in mine if g.deal == deal]
            assert {g.seed for g in dealt} == {dealt[0].seed}
            assert sorted(g.seats for g in dealt) == sorted(seatings(table, num_players))
        assert len({g.seed for g in mine}) == len({g.deal for g in mine})
    # Every table plays the same deals (chance seeds shared across tables).
    for deal in {g.deal for g in schedule}:
        assert len({g.seed for g in schedule if g.deal == deal}) == 1
    # Bots get their own seeds.
    assert len({s for g in schedule for s in g.bot_seeds}) == len(schedule) * num_players


def test_schedule_depends_on_the_seed_only():
    agents = ["x", "y", "z"]
    assert build_schedule(2, agents, 10, seed=1) == build_schedule(2, agents, 10, seed=1)
    assert [g.seed for g in build_schedule(2, agents, 10, seed=1)] != [g.seed for g in build_schedule(2, agents, 10, 2)]


def test_a_deal_is_the_same_in_both_seatings():
    games = tournament(SMALL, ["random", "rules"], games=6, workers=1, progress=False)
    game = elements_ai.load_game(SMALL)
    from elements_ai.agents import make_bot, play_game

    first_deal = games[games["deal"] == 0]
    assert first_deal["seating"].tolist() == [0, 1]
    hands = []
    for row in first_deal.itertuples():
        specs = row.agents.split("|")
        bots = [make_bot(specs[s], game, s, seed=int(seed)) for s, seed in enumerate(row.bot_seeds.split())]
        returns, actions = play_game(game, bots, seed=int(row.seed))
        assert " ".join(repr(float(r)) for r in returns) == row.returns  # the row replays
        hands.append(actions[:13])  # who starts, then the twelve cards dealt
    assert hands[0] == hands[1]


# --- tournaments ------------------------------------------------------------------------------------

def test_round_robin_plays_every_pair():
    agents = ["random", "rules", "mcts:sims=5"]
    games = tournament(SMALL, agents, games=5, workers=1, progress=False)
    assert len(games) == 15
    pairs = collections.Counter(tuple(sorted(row.split("|"))) for row in games["agents"])
    assert set(pairs.values()) == {5} and len(pairs) == 3
    assert games["game"].nunique() == 1 and games["game"].iloc[0] == str(elements_ai.load_game(SMALL))
    assert (games["length"] > 12).all()
    for row in games.itertuples():
        returns = [float(r) for r in row.returns.split()]
        assert sum(returns) == 0 and len(returns) == 2


def test_gauntlet_plays_the_first_agent_against_the_field():
    games = tournament(SMALL, ["rules", "random", "mcts:sims=5"], games=4, mode="gauntlet", workers=1, progress=False)
    assert len(games) == 8
    assert all("rules" in row.split("|") for row in games["agents"])
    table = ratings(games, bootstrap=20)
    assert set(table["agent"]) == {"rules", "random", "mcts:sims=5"}


# A toy game for 1 to 5 players: chance gives one seat a bonus point, then each
# player picks 0, 1 or 2 points. Search picks 2; random play averages 1.

PLAYERS = 0  # cfg slot holding the number of players
_TOY_TENSOR = tensor_layout(1, turn=1)


@nb.njit(cache=True)
def _toy_init(cfg, state):
    state[:] = 0


@nb.njit(cache=True)
def _toy_current_player(cfg, state):
    turn = state[0]
    if turn == 0:
        return CHANCE
    if turn <= cfg[PLAYERS]:
        return turn - 1
    return TERMINAL


@nb.njit(cache=True)
def _toy_legal_mask(cfg, state, mask):
    mask[:] = 1 <= state[0] <= cfg[PLAYERS]


@nb.njit(cache=True)
def _toy_chance_outcomes(cfg, state, probs):
    probs[:] = 0.0
    if state[0] == 0:
        probs[: cfg[PLAYERS]] = 1.0 / cfg[PLAYERS]


@nb.njit(cache=True)
def _toy_apply(cfg, state, action):
    state[1 + state[0]] = action
    state[0] += 1


@nb.njit(cache=True)
def _toy_returns(cfg, state, out):
    out[:] = 0.0
    if state[0] > cfg[PLAYERS]:
        for p in range(cfg[PLAYERS]):
            out[p] = state[2 + p] + (1.0 if state[1] == p else 0.0)


@nb.njit(cache=True)
def _toy_encode(cfg, state, player, out):
    out[:] = 0.0
    out[0] = state[0]


def _toy_configure(params):
    cfg = np.zeros(_TOY_TENSOR._end, np.int64)
    pieces = _TOY_TENSOR._place(cfg, params)
    cfg[PLAYERS] = params["players"]
    return Config(
        cfg=cfg, num_players=params["players"], num_actions=3, max_chance_outcomes=5, state_size=7,
        obs_pieces=pieces, info_pieces=pieces, min_utility=0.0, max_utility=3.0,
        max_game_length=params["players"], max_chance_nodes=1, utility_sum=None, perfect_information=True,
    )


TOY = Kernel(
    short_name="tournament_test_picks",
    long_name="Picks (tournament test)",
    min_num_players=1,
    max_num_players=5,
    params={"players": Param(3, "players", int_range(1, 5))},
    configure=_toy_configure,
    init=_toy_init,
    current_player=_toy_current_player,
    legal_mask=_toy_legal_mask,
    chance_outcomes=_toy_chance_outcomes,
    apply=_toy_apply,
    returns=_toy_returns,
    encode_observation=_toy_encode,
    encode_information_state=_toy_encode,
    action_to_string=lambda cfg, state, player, action: f"pick {action}",
    state_to_string=lambda cfg, state: str(list(state)),
    observation_string=lambda cfg, state, player: str(list(state)),
    information_state_string=lambda cfg, state, player: str(list(state)),
    perfect_information=True,
)


@pytest.fixture(scope="module")
def toy():
    register(TOY)
    elements_ai.games.KERNELS[TOY.short_name] = TOY  # load_game finds games here
    yield TOY.short_name
    del elements_ai.games.KERNELS[TOY.short_name]


@pytest.mark.parametrize(
    "players, agents",
    [(3, ["random", "mcts:sims=30", "mcts:sims=30,c=2"]), (3, ["random", "mcts:sims=30", "mcts:sims=10", "ismcts"]),
     (4, ["random", "mcts:sims=30"]), (5, ["random", "mcts:sims=30", "mcts:sims=10"])],
)
def test_games_of_three_to_five_players(toy, players, agents):
    games = tournament(f"{toy}(players={players})", agents, games=2 * players * 3, workers=1, progress=False)
    assert {len(row.split("|")) for row in games["agents"]} == {players}
    table = ratings(games, bootstrap=50)
    assert table["agent"].iloc[-1] == "random"  # every search picks 2 points; random play averages 1
    assert table.set_index("agent").loc["random", "ci_high"] < table.set_index("agent").loc["mcts:sims=30", "ci_low"]


def test_one_player_games_give_score_distributions(toy, tmp_path):
    games = tournament(f"{toy}(players=1)", ["random", "mcts:sims=30"], games=30, workers=1, progress=False,
                       out=tmp_path)
    assert len(games) == 60 and (games.groupby("agents").size() == 30).all()
    table = pd.read_csv(tmp_path / "ratings.csv").set_index("agent")
    returns = games["returns"].astype(float).groupby(games["agents"]).mean()
    assert table["rating"].to_dict() == pytest.approx(returns.round(4).to_dict())
    assert table.loc["mcts:sims=30", "rating"] == 3.0  # the lone player always gets the bonus and picks 2
    assert {"std", "min", "median", "max"} <= set(table.columns)
    assert table.loc["mcts:sims=30", "min"] == 3.0 and table.loc["random", "ci_high"] < 3.0
    assert (tmp_path / "returns.png").stat().st_size > 0 and (tmp_path / "ratings.png").exists()


# --- the results folder -------------------------------------------------------------------------------

@pytest.mark.slow
def test_results_are_byte_reproducible_for_a_seed(tmp_path):
    agents = ["random", "rules", "mcts:sims=5"]
    for name, workers in (("one", 1), ("two", 2)):
        tournament(SMALL, agents, games=6, seed=11, workers=workers, out=tmp_path / name, progress=False)
    one, two = tmp_path / "one", tmp_path / "two"
    assert _strip_seconds(one / "games.csv") == _strip_seconds(two / "games.csv")
    for name in ("ratings.csv", "pairwise.csv", "ratings.png", "pairwise.png", "tournament.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    other = tournament(SMALL, agents, games=6, seed=12, workers=1, progress=False)
    assert other["returns"].tolist() != read_games(one)["returns"].tolist()


@pytest.mark.slow
def test_a_rerun_of_a_finished_tournament_adds_nothing(tmp_path):
    tournament(SMALL, ["random", "rules"], games=4, workers=1, out=tmp_path, progress=False)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    again = tournament(SMALL, ["random", "rules"], games=4, workers=1, out=tmp_path, progress=False)
    assert len(again) == 4
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


def test_resume_drops_a_half_written_line_and_plays_the_rest(tmp_path):
    whole = tournament(SMALL, ["random", "rules"], games=6, workers=1, progress=False)
    tournament(SMALL, ["random", "rules"], games=6, workers=1, out=tmp_path, progress=False, report=False)
    lines = (tmp_path / "games.csv").read_text().splitlines(keepends=True)
    # Keep the header and three games, then half of the fourth: a kill while writing.
    (tmp_path / "games.csv").write_text("".join(lines[:4]) + lines[4][:20])
    resumed = tournament(SMALL, ["random", "rules"], games=6, workers=1, out=tmp_path, progress=False)
    assert resumed.drop(columns="seconds").equals(whole.drop(columns="seconds"))


def test_a_folder_played_with_another_network_is_refused_not_resumed(tmp_path):
    from elements_ai import zoo
    from elements_ai.agents.network import Network

    game = "elements(deck=1_2_3_6_6_6,hand_size=2,single_round=true)"
    shipped, _ = zoo.shipped_file("ppo", elements_ai.load_game(game))
    net = Network.load(shipped)
    net.save(tmp_path / "net.npz")
    agents = [f"ppo:ckpt={tmp_path / 'net.npz'}", "random"]
    out = tmp_path / "played"
    tournament(game, agents, games=2, workers=1, out=out, progress=False, report=False)
    assert tournament(game, agents, games=2, workers=1, out=out, progress=False, report=False).shape[0] == 2
    net.policy[1][0] += 1.0  # another network in the same file
    net.save(tmp_path / "net.npz")
    with pytest.raises(ValueError, match=r"played with another version of 'ppo:ckpt=.*net.npz'"):
        tournament(game, agents, games=2, workers=1, out=out, progress=False, report=False)


@pytest.mark.slow
def test_a_killed_tournament_resumes_to_the_same_results(tmp_path):
    argv = ["--game", "elements", "--agents", "random", "rules", "mcts:sims=300", "--games", "20", "--workers", "2",
            "--quiet", "--bootstrap", "200", "--seed", "5"]
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    subprocess.run([*CLI, *argv, "--out", str(whole)], check=True, capture_output=True, timeout=600, env=ENV)
    process = subprocess.Popen(
        [*CLI, *argv, "--out", str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        env=ENV,
    )
    games_file = killed / "games.csv"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if games_file.exists() and games_file.read_text().count("\n") >= 4:
            break
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)  # the command and its worker processes
    process.wait()
    recorded = games_file.read_text().count("\n") - 1
    assert 3 <= recorded < 60, f"the kill came at {recorded} of 60 games"
    assert not (killed / "ratings.csv").exists()
    result = subprocess.run([*CLI, *argv, "--out", str(killed)], capture_output=True, text=True, timeout=600,
                            env=ENV)
    assert result.returncode == 0, result.stderr
    assert _strip_seconds(killed / "games.csv") == _strip_seconds(whole / "games.csv")
    for name in ("ratings.csv", "pairwise.csv"):
        assert (killed / name).read_bytes() == (whole / name).read_bytes()
    assert "rating" in result.stdout and str(killed) in result.stdout


# --- errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "random", "mcts:simz=3"], "unknown parameter 'simz'"),
        (["--agents", "random", "alphazero"], "unknown bot 'alphazero'"),
        (["--agents", "random", "mcts:sims=0"], "sims=0 is out of range"),
        (["--game", "elementz"], "unknown game 'elementz'"),
        (["--game", "elements(hand_size=0)"], "hand_size=0 is out of range"),
        (["--agents", "random"], "at least two agents"),
        (["--agents", "random", "random"], "listed twice"),
        (["--games", "0"], "games must be a positive integer"),
        (["--agents", "random", "rules", "mcts:sims=5", "--sprt", "0", "50"], "two agents"),
        (["--agents", "random", "rules", "--sprt", "50", "0"], "elo0 < elo1"),
        (["--workers", "0"], "workers must be a positive integer"),
        (["--address", "auto"], "ray backend"),
    ],
)
def test_bad_settings_are_named_and_write_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "results"
    assert cli.main(["tournament", "--quiet", "--out", str(out), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_second_run_on_a_folder_in_use_is_refused_in_one_line(tmp_path, capfd):
    from elements_ai.files import folder_lock

    argv = ["tournament", "--quiet", "--game", SMALL, "--agents", "random", "rules", "--games", "2", "--workers", "1",
            "--out", str(tmp_path)]
    with folder_lock(tmp_path):  # what a run holds while it plays
        assert cli.main(argv) == 2
        err = capfd.readouterr().err
        assert err.strip() == (f"elements-ai: error: results folder {tmp_path} is in use by another run; wait for it "
                               "to end or choose another folder"), err
        assert not (tmp_path / "games.csv").exists()
        with pytest.raises(elements_ai.ParameterError, match="is in use by another run"):
            tournament(SMALL, ["random", "rules"], games=2, workers=1, out=tmp_path, progress=False)
    assert cli.main(argv) == 0  # the first run is over
    assert len(read_games(tmp_path)) == 2


def test_the_python_tournament_takes_a_loaded_game_and_names_what_it_cannot_take():
    game = elements_ai.load_game(SMALL)
    played = tournament(game, ["random", "rules"], games=2, workers=1, progress=False, report=False)
    again = tournament(SMALL, ["random", "rules"], games=2, workers=1, progress=False, report=False)
    assert played.drop(columns="seconds").equals(again.drop(columns="seconds"))
    with pytest.raises(elements_ai.ParameterError, match="a tournament's game is a game string .* got int 7$"):
        tournament(7, ["random", "rules"], games=2)


def test_a_folder_of_another_tournament_is_refused_untouched(tmp_path, capsys):
    tournament(SMALL, ["random", "rules"], games=2, workers=1, out=tmp_path, progress=False)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    for argv, what in (
        (["--agents", "random", "mcts:sims=5"], "agents"),
        (["--agents", "random", "rules", "--seed", "1"], "seed"),
        (["--agents", "random", "rules", "--game", "elements"], "game"),
        (["--agents", "random", "rules", "--games", "3"], "games"),
    ):
        code = cli.main(["tournament", "--quiet", "--game", SMALL, "--games", "2", "--out", str(tmp_path), *argv])
        err = capsys.readouterr().err
        assert code == 2 and "holds another tournament" in err and f"{what}: folder" in err, err
        assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "games.csv").write_text("a,b\n1,2\n")
    assert cli.main(["tournament", "--quiet", "--game", SMALL, "--out", str(plain), "--agents", "random", "rules"]) == 2
    assert "no tournament.json" in capsys.readouterr().err
    assert sorted(p.name for p in plain.iterdir()) == ["games.csv"]


def test_the_ray_backend_is_named_when_missing(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert cli.main(["tournament", "--quiet", "--backend", "ray", "--out", str(tmp_path / "r")]) == 2
    assert "pip install 'elements-ai[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


# --- SPRT --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_sprt_stops_a_lopsided_match_early(tmp_path):
    sprt = SPRT(0, 100)
    games = tournament(SMALL, ["mcts:sims=100", "random"], games=400, sprt=sprt, workers=2, out=tmp_path,
                       progress=False)
    assert 2 <= len(games) < 200 and len(games) % 2 == 0  # whole deals only
    assert "H1 accepted: mcts:sims=100 is stronger than random" in (tmp_path / "sprt.txt").read_text()
    # The stop does not depend on the workers, and a rerun plays nothing.
    again = tournament(SMALL, ["mcts:sims=100", "random"], games=400, sprt=sprt, workers=1, progress=False)
    assert again.drop(columns="seconds").equals(games.drop(columns="seconds"))
    before = (tmp_path / "games.csv").read_bytes()
    tournament(SMALL, ["mcts:sims=100", "random"], games=400, sprt=sprt, workers=1, out=tmp_path, progress=False)
    assert (tmp_path / "games.csv").read_bytes() == before


# --- the command --------------------------------------------------------------------------------

def test_the_command_prints_the_table_and_where_the_files_are(tmp_path, capsys):
    argv = ["tournament", "--game", SMALL, "--agents", "random", "rules", "--games", "4", "--workers", "1",
            "--quiet", "--bootstrap", "50", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("elements(single_round=True): 4 games, round-robin, seed 0")
    table = pd.read_csv(io.StringIO("\n".join(out.splitlines()[1:4])), sep=r"\s{2,}", engine="python")
    assert table.columns[0] == "agent" and set(table["agent"]) == {"random", "rules"}
    assert f"results in {tmp_path}/" in out and "ratings.png, pairwise.png" in out
    for name in ("games.csv", "ratings.csv", "pairwise.csv", "ratings.png", "pairwise.png", "tournament.json"):
        assert (tmp_path / name).exists(), name
    ratings_file = pd.read_csv(tmp_path / "ratings.csv")
    assert ratings_file.columns[:5].tolist() == ["agent", "rating", "ci_low", "ci_high", "games"]


@pytest.mark.slow
def test_the_command_stops_quietly_when_its_reader_goes(tmp_path):
    process = subprocess.Popen(
        [*CLI, "--game", SMALL, "--agents", "random", "rules", "--games", "2", "--workers", "1", "--quiet",
         "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
    )
    process.stdout.close()  # nobody reads the table
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0 and b"Traceback" not in err and b"Broken pipe" not in err, err


def test_the_default_tournament_is_a_valid_one():
    # Its settings build (its agents play it, with fewer games, in
    # test_the_default_tournament_separates_the_agents_within_a_third_of_its_games).
    from elements_ai.commands.tournament import DEFAULT_GAME, DEFAULT_GAMES
    from elements_ai.eval.runner import make_config

    config = make_config(DEFAULT_GAME, DEFAULT_AGENTS, DEFAULT_GAMES)
    assert len(config.schedule) == DEFAULT_GAMES * len(DEFAULT_AGENTS) * (len(DEFAULT_AGENTS) - 1) // 2


@pytest.mark.slow
def test_the_default_tournament_separates_the_agents_within_a_third_of_its_games(tmp_path):
    # The default game and agents, 60 games a pairing where the default plays 200: the
    # searches, rules and random are told apart already (the README's full run takes
    # over three times as long).
    result = subprocess.run([*CLI, "--quiet", "--games", "60"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=1800, env=ENV)
    assert result.returncode == 0, result.stderr
    folder = next((tmp_path / "tournaments").iterdir())
    table = pd.read_csv(folder / "ratings.csv").set_index("agent")
    search = [a for a in table.index if a.startswith(("mcts", "ismcts"))]
    assert table.loc[search, "ci_low"].min() > table.loc["rules", "ci_high"]
    assert table.loc["rules", "ci_low"] > table.loc["random", "ci_high"]
    assert "ratings.png" in result.stdout and str(folder.relative_to(tmp_path)) in result.stdout


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # one local Ray at a time: they would share its 2 CPUs
def test_ray_and_local_backends_agree(tmp_path):
    agents = ["random", "rules", "mcts:sims=5"]
    local = tournament(SMALL, agents, games=6, seed=4, workers=2, out=tmp_path / "local", progress=False)
    distributed = tournament(SMALL, agents, games=6, seed=4, workers=2, backend="ray", out=tmp_path / "ray",
                             progress=False)
    assert distributed.drop(columns="seconds").equals(local.drop(columns="seconds"))
    assert (tmp_path / "ray" / "ratings.csv").read_bytes() == (tmp_path / "local" / "ratings.csv").read_bytes()


# --- the notebook ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_tournament_notebook_runs(tmp_path):
    import nbclient
    import nbformat

    notebook = nbformat.read(ROOT / "notebooks" / "tournament.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    text = "".join(output.get("text", "") + str(output.get("data", {}).get("text/plain", "")) for output in outputs)
    assert "ismcts:sims=300" in text and "ci_low" in text
    assert any("image/png" in output.get("data", {}) for output in outputs)
