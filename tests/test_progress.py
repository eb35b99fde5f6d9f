"""Progress bars that a log can hold: plain lines at most every 10% and 30 s where the
output is not a terminal, tqdm's bar on one, nothing with --quiet; every command with a bar."""

from __future__ import annotations

import io
import re

import pytest

from elements_ai import cli, progress
from elements_ai.progress import progress_bar, silenced

SMALL = "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)"
BAR_LINE = re.compile(r"^\S.*: +\d+% \S+/\S+ \[")


@pytest.fixture
def clock(monkeypatch):
    """The bars' clock, moved by hand: ``clock[0]`` is the time in seconds."""
    now = [0.0]
    monkeypatch.setattr(progress, "_clock", lambda: now[0])
    return now


def _run(bar, steps: int, seconds_a_step: float, clock) -> None:
    for _ in range(steps):
        clock[0] += seconds_a_step
        bar.update(1)
    bar.close()


def _counts(log: io.StringIO) -> list[int]:
    return [int(line.split("/")[0].split()[-1]) for line in log.getvalue().splitlines()]


def test_a_log_gets_a_line_at_most_every_tenth_and_every_30_seconds(clock):
    log = io.StringIO()
    # One second a step: 10% passes every 10 s, so the 30 s decide.
    _run(progress_bar(total=100, desc="games", file=log), 100, 1.0, clock)
    assert _counts(log) == [0, 30, 60, 90, 100]
    assert "\r" not in log.getvalue()
    assert all(BAR_LINE.match(line) for line in log.getvalue().splitlines())
    log = io.StringIO()
    # A minute a step: 30 s pass every step, so the tenths decide.
    _run(progress_bar(total=50, desc="games", file=log), 50, 60.0, clock)
    assert _counts(log) == [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50]


def test_forced_redraws_wait_their_turn_too(clock):
    log = io.StringIO()
    bar = progress_bar(total=100, desc="solving", file=log)
    for step in range(100):
        clock[0] += 1.0
        bar.update(1)
        bar.set_postfix_str(f"exploitability {1 / (step + 1):.3f}")  # redraws at once on a terminal
    bar.close()
    assert _counts(log) == [0, 30, 60, 90, 100]
    assert log.getvalue().splitlines()[-1].endswith("exploitability 0.010]")


def test_a_bar_without_a_total_prints_every_30_seconds(clock):
    log = io.StringIO()
    _run(progress_bar(desc="nodes", file=log), 7, 10.0, clock)
    assert [line.split(" [")[0] for line in log.getvalue().splitlines()] == [
        "nodes: 0", "nodes: 3", "nodes: 6", "nodes: 7"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_tqdms_bar_redrawn_in_place():
    screen = _Terminal()
    with progress_bar(total=3, desc="games", file=screen, mininterval=0) as bar:
        for _ in range(3):
            bar.update(1)
    assert screen.getvalue().count("\r") >= 3 and "|" in screen.getvalue()


def test_silenced_bars_print_nothing_anywhere():
    log, screen = io.StringIO(), _Terminal()
    with silenced():
        for stream in (log, screen):
            with progress_bar(total=3, desc="games", file=stream) as bar:
                bar.update(3)
    assert log.getvalue() == screen.getvalue() == ""
    with progress_bar(total=3, desc="games", file=log) as bar:  # the block ended: bars print again
        bar.update(3)
    assert _counts(log) == [0, 3]


COMMANDS = {
    "solve": ["solve", "kuhn_poker", "--iterations", "50", "--out", "{tmp}/kuhn.npz"],
    "exploitability": ["exploitability", SMALL, "--bot", "rules"],
    "tournament": ["tournament", "--game", SMALL, "--agents", "random", "rules", "--games", "2", "--workers", "1",
                   "--bootstrap", "10", "--out", "{tmp}/tournament"],
    "train": ["train", SMALL, "--steps", "128", "--out", "{tmp}/run", "--set", "num_envs=16", "--set",
              "rollout_steps=8", "--set", "hidden=8", "--set", "eval_every=100"],
}


# A training run costs most (torch): in the slow set.
@pytest.mark.parametrize("command", [pytest.param(c, marks=pytest.mark.slow) if c == "train" else c for c in COMMANDS])
def test_every_command_with_a_bar_writes_plain_lines_to_a_log_and_none_when_quiet(command, tmp_path, capfd):
    for quiet in (False, True):
        folder = tmp_path / ("quiet" if quiet else "log")
        folder.mkdir()
        argv = [arg.format(tmp=folder) for arg in COMMANDS[command]]
        assert cli.main([*argv, "--quiet"] if quiet else argv) == 0
        err = capfd.readouterr().err
        assert "\r" not in err
        bars = [line for line in err.splitlines() if BAR_LINE.match(line)]
        if quiet:
            assert bars == [], err
        else:
            assert bars and bars[-1].split(": ", 1)[1].startswith("100%"), err

