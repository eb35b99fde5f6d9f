"""Tournaments survive their workers: a worker process (or Ray worker) killed in the
middle of a tournament is replaced, the games it had not returned are played again,
and the result is the undisturbed one, game for game, each game once. A game that
kills its worker every time stops the tournament in one line."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from elements_ai.eval import runner, tournament
from elements_ai.eval.runner import WorkerDied, make_config, play_scheduled, run_local

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the workers in /proc (Linux)")

GAME = "elements"
AGENTS = ["random", "rules"]
GAMES = 1000  # about 3 ms each: a few seconds on two workers, enough for a kill in the middle


def _processes() -> dict[int, list[tuple[int, str, int]]]:
    """``{parent pid: [(pid, command line, CPU ticks used)]}`` of the machine's processes."""
    children: dict[int, list[tuple[int, str, int]]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append((int(entry.name), command, int(fields[11]) + int(fields[12])))
    return children


def _descendants(root: int) -> list[tuple[int, str, int]]:
    children, found, todo = _processes(), [], [root]
    while todo:
        for process in children.get(todo.pop(), []):
            found.append(process)
            todo.append(process[0])
    return found


class _Killer(threading.Thread):
    """Kills, with SIGKILL, the busiest of this process's workers whose command line
    matches ``is_worker``, once ``games.csv`` in ``folder`` holds ``after`` games."""

    def __init__(self, folder: Path, after: int, is_worker, deadline: float = 240):
        super().__init__(daemon=True)
        self.folder, self.after, self.is_worker, self.deadline = folder, after, is_worker, deadline
        self.recorded = self.pid = None
        self.workers: list[int] = []

    def run(self) -> None:
        games = self.folder / "games.csv"
        end = time.monotonic() + self.deadline
        while time.monotonic() < end:
            recorded = games.read_text().count("\n") - 1 if games.exists() else 0
            if recorded >= self.after:
                workers = [(ticks, pid) for pid, command, ticks in _descendants(os.getpid()) if self.is_worker(command)]
                if workers:
                    # The one that used the most CPU is playing games, not still starting.
                    self.pid = max(workers)[1]
                    self.workers = sorted(pid for _, pid in workers)
                    self.recorded = recorded
                    os.kill(self.pid, signal.SIGKILL)
                    return
            time.sleep(0.005)


def _recording(monkeypatch, name: str) -> list[int]:
    """Records the index of each game that the runner ``name`` hands to the tournament."""
    handed: list[int] = []
    original = getattr(runner, name)

    def recorded(*args, **kwargs):
        for row in original(*args, **kwargs):
            handed.append(row["index"])
            yield row

    monkeypatch.setattr(runner, name, recorded)
    return handed


def _check_replayed(killer: _Killer, played, reference, handed: list[int], log: str) -> None:
    assert killer.pid is not None, "no worker was killed"
    assert killer.recorded < GAMES, f"the kill came after the last game ({killer.recorded} recorded)"
    # Every scheduled game reached the tournament once (none lost, none twice) ...
    assert sorted(handed) == list(range(GAMES))
    assert played["index"].tolist() == list(range(GAMES))
    # ... and a replayed game gave the result it gives undisturbed.
    assert played.drop(columns="seconds").equals(reference.drop(columns="seconds"))
    assert "while playing game" in log and "replaying game" in log, log


@pytest.mark.slow
def test_a_killed_worker_process_is_replaced_and_its_games_played_again(tmp_path, monkeypatch, caplog):
    reference = tournament(GAME, AGENTS, games=GAMES, seed=3, workers=1, progress=False, report=False)
    handed = _recording(monkeypatch, "run_local")
    killer = _Killer(tmp_path, after=GAMES // 10, is_worker=lambda command: "spawn_main" in command)
    killer.start()
    with caplog.at_level(logging.WARNING, logger=runner.__name__):
        played = tournament(GAME, AGENTS, games=GAMES, seed=3, workers=2, out=tmp_path, progress=False, report=False)
    killer.join()
    assert len(killer.workers) == 2
    _check_replayed(killer, played, reference, handed, caplog.text)
    assert "was killed by SIGKILL" in caplog.text
    assert not [pid for pid, command, _ in _descendants(os.getpid()) if "spawn_main" in command], "workers left"


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # one local Ray at a time: they would share its 2 CPUs
def test_a_killed_ray_worker_is_replaced_and_its_games_played_again(tmp_path, monkeypatch, caplog):
    pytest.importorskip("ray")
    reference = tournament(GAME, AGENTS, games=GAMES, seed=3, workers=1, progress=False, report=False)
    handed = _recording(monkeypatch, "run_ray")
    killer = _Killer(tmp_path, after=GAMES // 10, is_worker=lambda command: command.startswith("ray::_play_task"))
    killer.start()
    with caplog.at_level(logging.WARNING, logger=runner.__name__):
        played = tournament(GAME, AGENTS, games=GAMES, seed=3, workers=2, backend="ray", out=tmp_path,
                            progress=False, report=False)
    killer.join()
    _check_replayed(killer, played, reference, handed, caplog.text)
    assert "a worker crashed while playing game" in caplog.text


# --- a game that kills its worker every time ----------------------------------------------------------

CRASHING = 1  # the schedule index of the game that kills its worker


def _crash_on_one_game(task):
    """Plays a scheduled game, but game ``CRASHING`` ends its process, as a crashing bot would."""
    if task[-1].index == CRASHING:
        os._exit(3)
    return play_scheduled(*task)


def _fail_on_one_game(task):
    if task[-1].index == CRASHING:
        raise KeyError("a bot's bug")
    return play_scheduled(*task)


def _tasks(games: int):
    config = make_config(GAME, AGENTS, games)
    return [(config.game, config.agents, item) for item in config.schedule]


@pytest.mark.slow
def test_a_game_that_always_kills_its_worker_stops_the_tournament_in_one_line(caplog):
    # The workers import this module by name: pytest puts tests/ on sys.path, which they inherit.
    tasks = _tasks(40)
    handed: list[int] = []
    with caplog.at_level(logging.WARNING, logger=runner.__name__), pytest.raises(WorkerDied) as raised:
        for row in run_local(tasks, 2, play=_crash_on_one_game):
            handed.append(row["index"])
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"game {CRASHING} (rules|random) killed its worker {runner.MAX_DEATHS} times")
    assert "exited with status 3" in message
    # Two deaths were replayed (with the game sent after it to the same worker), the third stopped.
    assert caplog.text.count(f"a worker exited with status 3 while playing game {CRASHING} ") == runner.MAX_DEATHS - 1
    assert CRASHING not in handed and len(handed) == len(set(handed))
    assert not [pid for pid, command, _ in _descendants(os.getpid()) if "spawn_main" in command], "workers left"


@pytest.mark.slow
def test_an_error_in_a_game_is_raised_as_itself():
    with pytest.raises(KeyError, match="a bot's bug"):
        list(run_local(_tasks(40), 2, play=_fail_on_one_game))


def test_a_worker_whose_parent_is_gone_ends_quietly():
    """A worker finishing a game after its tournament's process was killed has nobody
    to send the result to: it stops, without a BrokenPipeError traceback."""
    import multiprocessing

    ours, theirs = multiprocessing.Pipe()
    ours.send((0, 21))
    ours.close()  # the parent is gone, the task it sent still in the pipe
    played = []
    previous = signal.getsignal(signal.SIGINT)
    try:
        runner._worker_main(theirs, lambda task: played.append(task) or task * 2)  # returns, raises nothing
    finally:
        signal.signal(signal.SIGINT, previous)
    assert played == [21]


@pytest.mark.slow
def test_killing_a_tournaments_process_ends_its_workers_quietly(tmp_path):
    import subprocess

    from commands import ENV, PACKAGE

    out = tmp_path / "t"
    parent = subprocess.Popen([*PACKAGE, "tournament", "--game", GAME, "--agents", *AGENTS, "--games", str(GAMES),
                               "--workers", "2", "--quiet", "--out", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and parent.poll() is None:
        games = out / "games.csv"
        if games.exists() and games.read_text().count("\n") > 20:
            break
        time.sleep(0.2)
    workers = [pid for pid, command, _ in _descendants(parent.pid) if "multiprocessing" in command]
    assert parent.poll() is None and workers, "the tournament ended before it could be killed"
    parent.kill()
    # The workers hold the parent's stderr: it ends when the last of them has.
    _, err = parent.communicate(timeout=120)
    assert b"Traceback" not in err and b"Error" not in err, err.decode()[-3000:]
    assert not any(Path(f"/proc/{pid}").exists() and "multiprocessing" in Path(f"/proc/{pid}/cmdline").read_text()
                   for pid in workers)
