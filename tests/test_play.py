"""``elements-ai play`` and ``elements-ai replay``: a person's game through text streams
and through a real terminal, what the person is shown, records and their replay."""

from __future__ import annotations

import io
import json
import re
import signal
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from commands import ENV

import elements_ai
from elements_ai import cli
from elements_ai.play import play, replay, seen_move
from elements_ai.record import GameRecord
from elements_ai.render.words import result_words, standing_words
from elements_ai.testing import play_by_strings

ROOT = Path(__file__).resolve().parents[1]
ROUND = "elements(single_round=true)"
PROMPT = re.compile(r"your move \[1-(\d+)\]: ")


class Person:
    """An input stream that answers each prompt of ``play`` from the moves just listed.

    ``choose`` gets the listed moves (their names) and returns the line to enter;
    ``entered`` keeps every line given.
    """

    def __init__(self, out: io.StringIO, choose: Callable[[list[str]], str]):
        self.out, self.choose, self.entered = out, choose, []

    def readline(self) -> str:
        # A game that asked this often is stuck asking again.
        assert len(self.entered) < 1000, self.out.getvalue()[-3000:]
        text = self.out.getvalue()
        menu = text[text.rindex("your moves:\n"):].splitlines()[1:]
        moves = [m.split(None, 1)[1] for m in menu if re.match(r"\s+\d+  \S", m)]
        line = self.choose(moves)
        self.entered.append(line)
        return line + "\n"


def play_with(game: str, bots: list[str] | None, choose: Callable[[list[str]], str], seat: int = 0,
              seed: int = 0, **kwargs) -> tuple[GameRecord, str, Person]:
    out = io.StringIO()
    person = Person(out, choose)
    record = play(game, bots, seat, seed, stdin=person, stdout=out, **kwargs)
    return record, out.getvalue(), person


def result_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.startswith("result: ")]
    assert len(lines) == 1, text[-2000:]
    return lines[0]


def one_error_line(code: int, err: str) -> str:
    assert code == 2, err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("elements-ai: error: ") and "Traceback" not in err, err
    return lines[0]


# --- a whole game through the streams -------------------------------------------------------------

def test_a_scripted_game_of_elements_goes_to_the_end():
    record, text, person = play_with("elements", ["rules"], lambda moves: "1", seed=4)
    assert record.returns is not None and sum(record.returns) == 0
    assert len(person.entered) == sum(move.player == 0 for move in record.moves) == len(PROMPT.findall(text))
    # The first listed move is what every "1" chose.
    state = record.load_game().new_initial_state()
    for move in record.moves:
        if move.player == 0:
            assert move.action == state.legal_actions()[0]
        state.apply_action(move.action)
    assert state.is_terminal() and state.returns() == record.returns
    # The match score, the winner's first: victory points from the final state.
    mine, theirs = re.search(r"scores p0 (\d+), p1 (\d+)", str(state)).groups()
    won = record.returns[0] > 0
    assert result_line(text) == (f"result: You {'won' if won else 'lost'} the match {mine}–{theirs}; returns p0 (you) "
                                 f"{record.returns[0]:+g}, p1 (rules) {record.returns[1]:+g}")
    # The record says it in the same words, and keeps them through its file.
    assert record.result == result_line(text).removeprefix("result: ").split(";")[0]
    assert GameRecord.from_json(record.to_json()).result == record.result


def test_moves_are_chosen_by_name_in_any_case_and_spacing():
    record, text, person = play_with(ROUND, ["random"], lambda moves: f"  {moves[-2].upper()} ", seed=1)
    mine = [move.text for move in record.moves if move.player == 0]
    assert mine == [entry.strip().lower() for entry in person.entered]
    assert len(mine) >= 1 and record.returns is not None
    assert "is not one of your moves" not in text


def test_a_bad_entry_says_why_and_asks_again():
    entries = iter(["0", "99", "take 7", "", "?", "2"])
    record, text, _ = play_with(ROUND, ["rules"], lambda moves: next(entries, "1"), seed=2)
    first = text[text.index("your moves:"):]
    prompt = PROMPT.search(first)
    count = int(prompt.group(1))
    hint = f"enter a number from 1 to {count} or a move as listed (? for help)"
    ask = f"your move [1-{count}]: "
    assert first[prompt.start():].split("\n")[:8] == [
        f"{ask}0", f"there is no move 0: {hint}", f"{ask}99", f"there is no move 99: {hint}",
        f"{ask}take 7", f"'take 7' is not one of your moves: {hint}", ask, hint[0].upper() + hint[1:]]
    assert "Enter the number of a move in the list" in first and "RULES.md" in first  # the help
    state = record.load_game().new_initial_state()
    for move in record.moves:
        if move.player == 0:
            assert move.action == state.legal_actions()[1]  # the "2" that came after the mistakes
            break
        state.apply_action(move.action)


@pytest.mark.parametrize("how, note", [("quit", "you quit"), (None, "end of input")])
def test_quit_or_the_end_of_input_saves_the_game_so_far(how, note, tmp_path):
    save = tmp_path / "game.json"
    entries = iter(["1", "2"] + ([how] if how else []))
    out = io.StringIO()
    stdin = io.StringIO("".join(f"{entry}\n" for entry in entries))
    record = play(ROUND, ["rules"], 0, 3, save=save, stdin=stdin, stdout=out)
    text = out.getvalue()
    assert f"{note}: the game stopped after {len(record.moves)} moves." in text
    assert f"The game so far is saved in {save}" in text and "result:" not in text
    saved = GameRecord.load(save)  # every move checked against the rules
    assert saved.returns is None and saved.moves == record.moves and saved.seats == ["human", "rules"]
    assert sum(move.player == 0 for move in saved.moves) == 2
    assert saved.seed == 3 and saved.game == str(elements_ai.load_game(ROUND))


def test_the_same_seed_and_answers_give_the_same_game():
    first, _, _ = play_with(ROUND, ["ismcts:sims=50"], lambda moves: "1", seed=7)
    again, _, _ = play_with(ROUND, ["ismcts:sims=50"], lambda moves: "1", seed=7)
    other, _, _ = play_with(ROUND, ["ismcts:sims=50"], lambda moves: "1", seed=8)
    assert first.moves == again.moves and first.moves != other.moves


@pytest.mark.parametrize(
    "values, me, unit, words",
    [
        ([1, -1], 0, None, "You won"), ([1, -1], 1, None, "You lost"), ([0, 0], 1, None, "A draw"),
        ([2, -1, -1], 0, None, "You won"), ([3, 5, 5], 1, None, "You tied for first"),
        ([3, 5, 4], 2, None, "You came 2nd of 3"), ([3, 16, 4], 2, "points", "You came 2nd of 3 with 4 points"),
        ([1, 2, 3, 4], 0, None, "You came 4th of 4"), ([1, -1], None, None, "Player 0 won"),
        ([5, 5, 1], None, None, "Players 0 and 1 tied for first"), ([2, 6], 0, "points", "You lost, 2 points to 6"),
        ([20, 16, 28], None, "points", "Player 2 won with 28 points"), ([7, 7], 0, "points", "A draw, 7 points each"),
    ],
)
def test_the_result_in_words(values, me, unit, words):
    assert standing_words(values, me, unit) == words


# --- the person sees their own seat only ----------------------------------------------------------

def own_hand(text: str) -> list[int]:
    return sorted(int(v) for v in re.search(r"own hand \[([^\]]*)\]", text).group(1).split())


def test_the_person_never_sees_the_opponents_hand_in_elements():
    for seed in range(3):
        record, text, _ = play_with(ROUND, ["rules"], lambda moves: "1", seed=seed)
        assert "hand p1 [" not in text and "undealt" not in text and "history" not in text
        state = record.load_game().new_initial_state()
        for move in record.moves:
            if not state.is_chance_node():
                break
            state.apply_action(move.action)
        # Each of the person's cards named once, the opponent's six never.
        named = Counter()
        for value, times in re.findall(r"^  chance: deal (\d)(?:, (\d+) times)?$", text, re.M):
            named[int(value)] += int(times or 1)
        assert sorted(named.elements()) == own_hand(state.observation_string(0))
        hidden = re.search(r"^  chance: deal \(hidden\), (\d+) times$", text, re.M)
        assert hidden and int(hidden.group(1)) == 6


def test_a_card_played_face_down_is_hidden_from_the_other_seat():
    game = elements_ai.load_game("elemental_duel")
    state = play_by_strings(game.new_initial_state(), "first attacker 1", "forest")
    hide = state.legal_actions()[0]
    name = state.action_to_string(1, hide)
    assert seen_move(state, hide, 0) == "p1: hide (hidden)" and seen_move(state, hide, 1) == f"p1: {name}"
    state.apply_action(hide)
    show = state.legal_actions()[0]
    assert seen_move(state, show, 0) == f"p1: {state.action_to_string(1, show)}"  # face up
    state.apply_action(show)
    defend = state.legal_actions()[0]
    assert seen_move(state, defend, 1) == "p0: defend (hidden)"


def test_elementum_picks_are_named_only_once_they_are_face_up():
    game = elements_ai.load_game("elementum")
    state = game.new_initial_state()
    rng = __import__("numpy").random.default_rng(0)
    shown = hidden = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(outcomes[rng.choice(len(outcomes), p=probs)])
        else:
            action = int(rng.choice(state.legal_actions()))
        text = state.action_to_string(state.current_player(), action)
        seen = seen_move(state, action, 0) if state.current_player() != 0 else None
        state.apply_action(action)
        if seen is not None and text.split()[0] in ("pick", "deal"):
            number = text.split()[1]
            # The card's label (its number and name) in what the person sees after the move.
            visible = re.search(rf"(?<![\d])\b{number} [A-Z]", state.observation_string(0)) is not None
            assert (seen == f"{'p1' if text.startswith('pick') else 'chance'}: {text}") == visible, (seen, text)
            shown += seen.endswith(text)
            hidden += seen.endswith("(hidden)")
    assert shown and hidden


# --- more players, one player ---------------------------------------------------------------------

def test_three_players_with_one_bot_per_other_seat():
    record, text, _ = play_with("elements1997(players=3,rounds=1)", ["rules", "random"], lambda moves: "1", seat=1)
    assert record.seats == ["rules", "human", "random"] and record.returns is not None
    assert text.startswith("elements1997(rounds=1): you are p1, p0 is rules, p2 is random "
                           "(seed 0: --seed 0 plays this deal again)\n")
    points = [int(p) for p in re.findall(r"p\d \(\w+\) (-?\d+)", result_line(text))]
    assert len(points) == 3 and re.search(r"scores p0 (\d+), p1 (\d+), p2 (\d+)\n(?!.*scores)", text, re.S).groups() \
        == tuple(map(str, points))
    place = 1 + sum(p > points[1] for p in points)
    expected = {1: "You won" if points.count(points[1]) == 1 else "You tied for first"}.get(
        place, f"You came {place}{'nd' if place == 2 else 'rd'} of 3") + f" with {points[1]} points"
    assert result_line(text).startswith(f"result: {expected}; points p0 (rules) {points[0]}, p1 (you) {points[1]}, ")
    assert re.search(r"^  p[02]: bid \(hidden\)$", text, re.M)


def test_solo_elementum_needs_no_bot_and_ends_with_the_score_card():
    record, text, _ = play_with("elementum(players=1)", None, lambda moves: "1", seed=5)
    assert record.seats == ["human"] and len(record.returns) == 1
    points = int(record.returns[0])
    from elements_ai.games.elementum import solo_rank

    assert result_line(text) == f"result: You scored {points} points ({solo_rank(points)})"
    card = text[text.index("score card\n"):]
    assert f"    total {points} ({solo_rank(points)})\n" in card
    assert sum(int(p) for p in re.findall(r"^    \w+ \d+: .* ([+-]\d+)$", card, re.M)) == points
    assert "imitation picks" in text  # the imitation's picks are public


# --- the command line -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "elements", "--seat", "2"], "--seat 2: elements has seats 0 to 1"),
        (["play", "elements", "--seat", "-1"], "--seat -1: elements has seats 0 to 1"),
        (["play", "elements", "--bot", "rules", "--bot", "random"], "2 --bot given, but elements has one other"),
        (["play", "elements1997(players=4)", "--bot", "rules", "--bot", "random"],
         "2 --bot given for the 3 other seats of elements1997(players=4): give one"),
        (["play", "elementum(players=1)", "--bot", "rules"], "elementum(players=1) is played alone: give no --bot"),
        (["play", "elementz"], "unknown game 'elementz'"),
        (["play", "elements(hand_size=0)"], "hand_size=0 is out of range"),
        (["play", "elements", "-p", "colour=red"], "unknown parameter 'colour'"),
        (["play", "elements", "--bot", "mcts:simz=3"], "unknown parameter 'simz'"),
        (["play", "elements", "--bot", "az"], "has hidden information"),
        (["play", "elements", "--save", "{tmp}/missing/game.json"], "does not exist"),
        (["play", "elements", "--save", "{tmp}"], "is a folder"),
        (["play", "elements", "--seed", "-1"], "argument --seed: a seed is an integer from 0 to"),
        (["replay", "{tmp}/missing.json"], "cannot read it"),
    ],
)
def test_mistakes_are_one_line_before_anything_is_played(argv, message, tmp_path, capfd):
    code = cli.main([arg.format(tmp=tmp_path) for arg in argv])
    captured = capfd.readouterr()
    assert message in one_error_line(code, captured.err)
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_play_command_saves_a_game_that_replay_shows(tmp_path, monkeypatch, capsys):
    save = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 100))
    assert cli.main(["play", ROUND, "--bot", "rules", "--seed", "6", "--save", str(save)]) == 0
    played = capsys.readouterr().out
    record = GameRecord.load(save)
    assert record.returns is not None and f"The game is saved in {save}" in played

    assert cli.main(["replay", str(save), "--all"]) == 0
    whole = capsys.readouterr().out
    heads = re.findall(r"^--- (.*) ---$", whole, re.M)
    assert len(heads) == len(record.moves) + 1 and heads[0] == f"start (0 of {len(record.moves)} moves)"
    for k, move in enumerate(record.moves, 1):
        who = "chance" if move.player < 0 else f"p{move.player} ({record.seats[move.player]})"
        assert heads[k] == f"move {k} of {len(record.moves)}: {who}: {move.text}"
    assert "hand p1 [" in whole and "undealt" in whole  # whole states
    final = list(record.states())[-1][0]
    assert result_line(whole) == f"result: {result_words(final, None)}; " + \
        result_line(played).split("; ", 1)[1].replace("(you)", "(human)")
    assert result_line(played).startswith(f"result: {result_words(final, 0)}; ")

    assert cli.main(["replay", str(save), "--player", "0", "--all"]) == 0
    seen = capsys.readouterr().out
    assert "hand p1 [" not in seen and "undealt" not in seen and seen.count("observer p0") == len(heads)
    assert seen.count("--- move") == len(record.moves) and "chance: deal (hidden) ---" in seen
    for move in record.moves:
        if move.player == 0:
            assert f"p0: {move.text} ---" in seen


def test_replay_steps_forward_and_back(tmp_path, capsys):
    record = play(ROUND, ["rules"], stdin=io.StringIO("quit\n"), stdout=io.StringIO())
    out = io.StringIO()
    replay(record, stdin=io.StringIO("\n\nb\nx\nb\nb\n\nq\n\n"), stdout=out)
    heads = re.findall(r"^--- (start|move \d+)", out.getvalue(), re.M)
    assert heads == ["start", "move 1", "move 2", "move 1", "start", "move 1"]
    assert out.getvalue().count("Enter for the next state, b to go back, q to quit") == 1
    assert out.getvalue().count("this is the start") == 1


@pytest.fixture
def saved(tmp_path) -> Path:
    save = tmp_path / "game.json"
    play(ROUND, ["rules"], seed=1, save=save, stdin=io.StringIO("1\n" * 50), stdout=io.StringIO())
    return save


def test_a_damaged_record_is_refused_in_one_line(saved, capfd):
    data = json.loads(saved.read_text())
    number = next(k for k, (player, _, _) in enumerate(data["moves"], 1) if player >= 0)
    data["moves"][number - 1][1] = 6  # "take", with nothing on the display yet
    legal = elements_ai.load_game(ROUND).new_initial_state()
    for _, action, _ in data["moves"][: number - 1]:
        legal.apply_action(action)
    assert data["moves"][number - 1][1] not in legal.legal_actions()
    illegal = saved.with_name("illegal.json")
    illegal.write_text(json.dumps(data))
    line = one_error_line(cli.main(["replay", str(illegal), "--all"]), capfd.readouterr().err)
    assert f"illegal.json: move {number} (" in line and "is not legal there" in line

    text = saved.with_name("notes.json")
    text.write_text("not a record\n")
    line = one_error_line(cli.main(["replay", str(text)]), capfd.readouterr().err)
    assert "notes.json: not a game record" in line

    line = one_error_line(cli.main(["replay", str(saved), "--player", "2"]), capfd.readouterr().err)
    assert line == "elements-ai: error: --player 2: the game has seats 0 to 1"


# --- a real terminal ------------------------------------------------------------------------------

def spawn(*argv: str, cwd: Path):
    import pexpect

    # A terminal starts its job with SIGINT at its default; pytest-xdist's workers
    # ignore it, and an ignored signal stays ignored across exec.
    return pexpect.spawn(sys.executable, ["-m", "elements_ai", *argv], env=ENV, cwd=str(cwd), encoding="utf-8",
                         timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.slow
def test_a_person_plays_to_the_end_in_a_terminal(tmp_path):
    import pexpect

    save = tmp_path / "game.json"
    child = spawn("play", ROUND, "--bot", "rules", "--seed", "2", "--save", str(save), cwd=tmp_path)
    child.expect(PROMPT.pattern)
    sent, moves = [], re.findall(r"^ +\d+  ([^\r\n]+)\r$", child.before, re.M)
    child.sendline("nonsense")
    child.expect(r"'nonsense' is not one of your moves: [^\r\n]*\r\n")
    while child.expect([PROMPT.pattern, r"result: ([^\r\n]*)\r\n"]) == 0:
        # Alternately the first move by number and the second (if any) by name, in capitals.
        moves = re.findall(r"^ +\d+  ([^\r\n]+)\r$", child.before, re.M) or moves
        sent.append(moves[0] if len(sent) % 2 == 0 else moves[min(1, len(moves) - 1)])
        child.sendline("1" if len(sent) % 2 == 1 else sent[-1].upper())
    result = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in child.before, child.before
    record = GameRecord.load(save)
    assert [move.text for move in record.moves if move.player == 0] == sent and len(sent) >= 2
    won = record.returns[0] > 0
    tail = f"; returns p0 (you) {record.returns[0]:+g}, p1 (rules) {record.returns[1]:+g}"
    assert re.fullmatch(f"You {'won' if won else 'lost'} the round \\d+–\\d+" + re.escape(tail), result), result


@pytest.mark.parametrize("key, status", [pytest.param("ctrl-c", 130, marks=pytest.mark.slow), ("ctrl-d", 0)])
def test_ctrl_c_and_ctrl_d_in_a_terminal_keep_the_game_so_far(key, status, tmp_path):
    import pexpect

    save = tmp_path / "game.json"
    child = spawn("play", ROUND, "--save", str(save), cwd=tmp_path)
    child.expect(PROMPT.pattern)
    child.sendline("1")
    child.expect(PROMPT.pattern)
    child.sendintr() if key == "ctrl-c" else child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == status and "Traceback" not in child.before, child.before
    note = "interrupted: the game so far is saved in" if key == "ctrl-c" else "end of input: the game stopped"
    assert note in child.before
    record = GameRecord.load(save)
    assert record.returns is None and sum(move.player == 0 for move in record.moves) == 1


@pytest.mark.slow
def test_ctrl_c_without_save_ends_the_line_and_says_one_line(tmp_path):
    import pexpect

    child = spawn("play", ROUND, "--seed", "5", cwd=tmp_path)
    child.expect(PROMPT.pattern)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.before
    # What follows the prompt: the terminal's echo of Ctrl-C, then exactly one line, each ended.
    lines = re.sub(r"\x1b\[[0-9;]*m", "", child.before.replace("^C", "")).split("\r\n")
    assert lines[0].strip() == "" and re.fullmatch(r"interrupted after \d+ moves \(seed 5\)", lines[1]), lines
    assert lines[2:] == [""], lines


def test_play_draws_a_fresh_seed_and_prints_it_for_a_replay():
    def opening(seed):
        out = io.StringIO()
        record = play(ROUND, ["random"], 0, seed, stdin=Person(out, lambda moves: "1"), stdout=out)
        return record, out.getvalue().splitlines()[0]

    first, line = opening(None)
    seed = int(re.search(r"\(seed (\d+): --seed (\d+) plays this deal again\)$", line).group(1))
    assert first.seed == seed
    again, _ = opening(seed)
    assert again.actions == first.actions and again.returns == first.returns
    from elements_ai.cli import build_parser

    assert build_parser().parse_args(["play", ROUND]).seed is None
    assert build_parser().parse_args(["play", ROUND, "--seed", "9"]).seed == 9


def test_the_terminal_says_what_a_move_did():
    def take_when_you_can(moves):
        return "take" if "take" in moves else "1"

    record, text, _ = play_with("elements", ["rules"], take_when_you_can, seed=3)
    mine = re.findall(r"^  takes the ([1-6]) from the display$", text, re.M)
    assert mine and len(mine) == sum(move.text == "take" for move in record.moves if move.player == 0)
    ends = re.findall(r"^  (?:p1: (?:knock|yield): |)the round ends.*; score you \d+, Player 1 \d+$", text, re.M)
    rounds = sum(move.text in ("knock", "yield") for move in record.moves)
    assert len(ends) == rounds > 0, text[-3000:]
