"""A person plays a game against bots in the terminal; a recorded game is stepped through again.

``play`` and ``replay`` read their answers from one text stream and write to another,
so a script or a test plays exactly the game a person plays at a terminal
(``elements-ai play`` and ``elements-ai replay`` pass the terminal's streams):

>>> import io
>>> out = io.StringIO()
>>> record = play("elements(single_round=true)", ["random"], seed=3, stdin=io.StringIO("1\\n" * 50), stdout=out)
>>> record.seats, record.returns is not None
(['human', 'random'], True)
>>> [line for line in out.getvalue().splitlines() if line.startswith("result:")]
['result: You won the round 1–0; returns p0 (you) +1, p1 (random) -1']

The person sees what their seat sees: the game's observation string for the seat,
and the other players' moves and the chance outcomes since their last turn, each
as they saw it (``seen_move``): a card played face down or dealt to someone else
shows as ``p1: hide (hidden)`` or ``chance: deal (hidden)``.
"""

from __future__ import annotations

import os
import random
import secrets
import sys
from collections.abc import Iterable
from typing import TextIO

import numpy as np
import pyspiel

from .agents.bots import draw_chance
from .core.kernel import CHANCE
from .core.params import ParameterError
from .loader import short_game
from .record import GameRecord, Move
from .render import explain
from .render.words import result_words, scorecard_module

__all__ = ["HUMAN", "choose_seats", "play", "read_entry", "replay", "result_lines", "seen_move", "seen_text"]

HUMAN = "human"  # the seat name a record gives the person
DEFAULT_BOT = "rules"
HELP_WORDS = ("?", "help")
QUIT_WORDS = ("quit", "q", "exit")
# Worlds the person cannot tell from the true one, drawn to check that a move they
# are shown by name could not have been another one in a world they think possible.
WORLDS = 2
FORCED_WORLDS = 8
# Fresh seeds are drawn below this: short enough to type back after --seed.
FRESH_SEEDS = 1_000_000


# --- seats --------------------------------------------------------------------------------------

def choose_seats(game: pyspiel.Game, seat: int, bots: list[str] | None) -> list[str]:
    """Who sits where: ``"human"`` at ``seat``, a bot spec at every other seat.

    One spec plays every other seat; otherwise give one spec per other seat, in seat
    order. No spec: ``rules``. A one-player game takes none.

    >>> import elements_ai
    >>> game = elements_ai.load_game("elementum(players=3)")
    >>> choose_seats(game, 1, ["random"]), choose_seats(game, 0, ["rules", "random"])
    (['random', 'human', 'random'], ['human', 'rules', 'random'])
    >>> choose_seats(game, 3, None)
    Traceback (most recent call last):
    ...
    elements_ai.core.params.ParameterError: --seat 3: elementum(players=3) has seats 0 to 2
    """
    players, name = game.num_players(), short_game(str(game))
    if not 0 <= seat < players:
        seats = "only seat 0" if players == 1 else f"seats 0 to {players - 1}"
        raise ParameterError(f"--seat {seat}: {name} has {seats}")
    others = players - 1
    if others == 0:
        if bots:
            raise ParameterError(f"{name} is played alone: give no --bot")
        return [HUMAN]
    specs = list(bots) if bots else [DEFAULT_BOT]
    if len(specs) == 1:
        specs = specs * others
    elif len(specs) != others:
        if others == 1:
            raise ParameterError(f"{len(specs)} --bot given, but {name} has one other seat: give one")
        raise ParameterError(f"{len(specs)} --bot given for the {others} other seats of {name}: give one (it "
                             f"plays every other seat) or {others}, one per seat in seat order")
    specs.insert(seat, HUMAN)
    return specs


def _bot_seed(seed: int, seat: int) -> int:
    # One stream per seat, apart from chance's (which numpy seeds with ``seed`` itself).
    state = np.random.SeedSequence([int(seed), 1, int(seat)]).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def _label(seats: list[str], seat: int, me: int | None) -> str:
    return f"p{seat} (you)" if seat == me else f"p{seat} ({seats[seat]})"


# --- what a player sees of a move ---------------------------------------------------------------

def _view(state, viewer: int) -> str:
    # The information state is all a player knows (it remembers); the observation
    # only what they see now. A move is visible if it changes what they know.
    if state.get_game().get_type().provides_information_state_string:
        return state.information_state_string(viewer)
    return state.observation_string(viewer)


def _after(state, action: int):
    child = state.clone()
    child.apply_action(action)
    return child


def _worlds(state, viewer: int, count: int) -> Iterable:
    """Up to ``count`` other states ``viewer`` cannot tell from ``state`` (none if the
    game cannot draw them)."""
    known = _view(state, viewer)
    sampler = random.Random(len(state.history())).random
    for _ in range(count):
        try:
            world = state.resample_from_infostate(viewer, sampler)
        except (NotImplementedError, AttributeError, pyspiel.SpielError):
            return
        # A draw that changed what the viewer knows is no such state: it is left out.
        if world.current_player() == state.current_player() and _view(world, viewer) == known:
            yield world


def seen_move(state, action: int, viewer: int) -> str:
    """``action``, played at ``state`` (before it is applied), as seat ``viewer`` saw it,
    after its mover (``seen_text`` says how much of it they saw).

    >>> import elements_ai
    >>> from elements_ai.testing import play_by_strings
    >>> game = elements_ai.load_game("elemental_duel")
    >>> state = play_by_strings(game.new_initial_state(), "first attacker 0", "forest")
    >>> hide = state.legal_actions()[0]
    >>> seen_move(state, hide, 0), seen_move(state, hide, 1)
    ('p0: hide plant 1', 'p0: hide (hidden)')
    """
    player = state.current_player()
    return f"{'chance' if player == CHANCE else f'p{player}'}: {seen_text(state, action, viewer)}"


def seen_text(state, action: int, viewer: int) -> str:
    """``action``, played at ``state``, as seat ``viewer`` saw it: by name when the
    viewer could tell it from every other move possible there, in the true state and
    in states they cannot tell from it; otherwise by the first word its possible names
    share (``hide (hidden)``), or not at all (``(hidden)``)."""
    player = state.current_player()
    text = state.action_to_string(player, action)
    if player == viewer:
        return text
    seen = _view(_after(state, action), viewer)

    def confused_with(world) -> list[str]:
        names = []
        for other in world.legal_actions():  # chance outcomes at a chance node
            name = world.action_to_string(player, other)
            if name != text and _view(_after(world, other), viewer) == seen:
                names.append(name)
        return names

    confused = confused_with(state)
    if not confused:
        forced = len(state.legal_actions()) == 1
        # A forced move (the last card of a hand, say) is checked against more worlds:
        # they alone can show that it names what the viewer cannot know; they are cheap.
        worlds = list(_worlds(state, viewer, FORCED_WORLDS if forced else WORLDS))
        if forced and not worlds:
            confused = [""]  # nothing to check it against: say nothing
        for world in worlds:
            confused = confused_with(world)
            if confused:
                break
    if not confused:
        return text
    first = {name.split()[0] if name.split() else "" for name in (text, *confused)}
    kind = first.pop() if len(first) == 1 else ""
    return f"{kind + ' ' if kind else ''}(hidden)"


def _collapse(lines: list[str]) -> list[str]:
    """Runs of the same line as one, ``"chance: deal (hidden), 6 times"``."""
    out: list[tuple[str, int]] = []
    for line in lines:
        if out and out[-1][0] == line:
            out[-1] = (line, out[-1][1] + 1)
        else:
            out.append((line, 1))
    return [line if count == 1 else f"{line}, {count} times" for line, count in out]


# --- the end of a game --------------------------------------------------------------------------

def result_lines(state, seats: list[str], me: int | None = None, card: bool = True) -> list[str]:
    """The end of a finished game in words: the score card (for a game that has one,
    with ``card``), then ``result: You won; ...``: the words of ``result_words``
    (``me``: the person's seat, if any), then each seat's points or returns."""
    lines: list[str] = []
    words = result_words(state, me)
    module = scorecard_module(state)
    score_card = getattr(module, "result_card", None)
    if score_card is not None:
        text, points, _ = score_card(state)
        if card:
            lines += text
        values, what, show = [float(p) for p in points], "points", lambda v: f"{v:g}"
    else:
        values, what, show = [float(r) for r in state.returns()], "returns", lambda v: f"{v:+.3g}"
    if len(values) == 1:
        return lines + [f"result: {words}"]
    each = ", ".join(f"{_label(seats, p, me)} {show(v)}" for p, v in enumerate(values))
    return lines + [f"result: {words}; {what} {each}"]


# --- playing ------------------------------------------------------------------------------------

def _indent(text: str, by: str = "  ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def _menu(state, actions: list[int]) -> str:
    width = len(str(len(actions)))
    player = state.current_player()
    return "\n".join(f"  {k:>{width}}  {state.action_to_string(player, a)}" for k, a in enumerate(actions, 1))


def read_entry(entry: str, state) -> int | str:
    """The action a person's entry names (a move's number in the list, from 1, or its
    name, in any case), ``"help"``, ``"quit"``, or a one-line message saying why not.

    >>> import elements_ai
    >>> from elements_ai.testing import play_by_strings
    >>> state = play_by_strings(elements_ai.load_game("elements").new_initial_state(), "start player 0",
    ...                         *[f"deal {v}" for v in (1, 1, 2, 3, 6, 6, 2, 3, 4, 4, 5, 5)])
    >>> [state.action_to_string(0, a) for a in state.legal_actions()]
    ['play 1', 'play 2', 'play 3', 'play 6', 'discard 6', 'yield']
    >>> read_entry("2", state), read_entry("  Discard   6 ", state), read_entry("?", state)
    (1, 7, 'help')
    >>> print(read_entry("take", state))
    'take' is not one of your moves: enter a number from 1 to 6 or a move as listed (? for help)
    >>> print(read_entry("7", state))
    there is no move 7: enter a number from 1 to 6 or a move as listed (? for help)
    """
    words = _normal(entry)
    if words in HELP_WORDS:
        return "help"
    if words in QUIT_WORDS:
        return "quit"
    actions = state.legal_actions()
    hint = f"enter a number from 1 to {len(actions)} or a move as listed (? for help)"
    if not words:
        return hint[0].upper() + hint[1:]
    if words.lstrip("+-").isdigit():
        number = int(words)
        if 1 <= number <= len(actions):
            return actions[number - 1]
        return f"there is no move {number}: {hint}"
    player = state.current_player()
    named = [a for a in actions if _normal(state.action_to_string(player, a)) == words]
    if len(named) == 1:
        return named[0]
    if named:
        return f"{len(named)} moves are called {entry.strip()!r}: enter its number"
    return f"{entry.strip()!r} is not one of your moves: {hint}"


def _ask(prompt: str, stdin: TextIO, out: TextIO) -> str | None:
    """The line entered after ``prompt`` (without its newline), ``None`` at the end of input."""
    print(prompt, end="", file=out, flush=True)
    line = stdin.readline()
    if not line:
        print(file=out)
        return None
    line = line.rstrip("\r\n")
    # A terminal shows what was typed; a script's answers are shown the same way.
    if not getattr(stdin, "isatty", lambda: False)():
        print(line, file=out)
    return line


def _rules_file(game: pyspiel.Game) -> str | None:
    from . import games

    path = os.path.join(os.path.dirname(games.__file__), game.get_type().short_name, "RULES.md")
    return path if os.path.exists(path) else None


def _help(game: pyspiel.Game, save: str | None) -> str:
    lines = [
        "Enter the number of a move in the list, or the move as it is written (any case).",
        "? or help: this text and the moves again; quit (or Ctrl-D): stop the game"
        + (f", saved so far to {save}." if save else "."),
        "What you see is your seat's view: the others' hidden cards and choices are not shown.",
    ]
    rules = _rules_file(game)
    if rules:
        lines.append(f"The rules: {rules}")
    return "\n".join(lines)


def _load(game: str | pyspiel.Game, params: dict | None) -> pyspiel.Game:
    if not isinstance(game, str):
        return game
    from .loader import load_game

    return load_game(game, **(params or {}))


def play(
    game: str | pyspiel.Game,
    bots: list[str] | None = None,
    seat: int = 0,
    seed: int | None = None,
    *,
    params: dict | None = None,
    save: str | os.PathLike | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> GameRecord:
    """Plays one game of ``game`` (a name, a game string or a loaded game) between a
    person at ``seat``, answering on ``stdin``, and bots (``choose_seats``).

    ``seed`` seeds chance and the bots: the same answers give the same game;
    ``None`` draws a fresh one, printed at the start so the game can be played again.
    ``save``: a file for the game record, checked before the game starts and written
    whole at the end, or when the person stops (``quit``, end of input, Ctrl-C).
    Returns the record; its ``returns`` are ``None`` if the game was stopped.
    Bad specs, seats and files raise ``ParameterError`` before anything is played.
    """
    from .agents.registry import make_bot

    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if stdout is None else stdout
    if seed is None:
        seed = secrets.randbelow(FRESH_SEEDS)
    if seed < 0:
        raise ParameterError(f"--seed must be 0 or more, got {seed}")
    if save is not None:
        from .files import check_output_file

        save = str(check_output_file(save, "--save"))
    game = _load(game, params)
    seats = choose_seats(game, seat, bots)
    players = {p: make_bot(spec, game, p, seed=_bot_seed(seed, p)) for p, spec in enumerate(seats) if p != seat}
    record = GameRecord(str(game), seats, int(seed))
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for bot in players.values():
        bot.restart_at(state)
    others = ", ".join(f"p{p} is {spec}" for p, spec in enumerate(seats) if p != seat)
    print(f"{short_game(str(game))}: you are p{seat}{', ' + others if others else ''} (seed {seed}: "
          f"--seed {seed} plays this deal again)", file=out)
    print("Enter a move's number or the move as written; ? for help, quit to stop.", file=out)
    since: list[str] = []

    def show_since(first: bool) -> None:
        if since:
            print("since " + ("the start:" if first else "your last move:"), file=out)
            print(_indent("\n".join(_collapse(since))), file=out)
            since.clear()

    def stop(why: str) -> GameRecord:
        print(f"{why}: the game stopped after {len(record.moves)} moves.", file=out)
        if save is not None:
            record.save(save)
            print(f"The game so far is saved in {save} (elements-ai replay {save}).", file=out)
        return record

    turns = 0
    try:
        while not state.is_terminal():
            player = state.current_player()
            if state.is_chance_node():
                action = draw_chance(state, rng)
            elif player == seat:
                turns += 1
                print(f"\n--- your move (p{seat}), turn {turns} ---", file=out)
                show_since(turns == 1)
                actions = state.legal_actions()
                print("you see:", file=out)
                print(_indent(state.observation_string(seat)), file=out)
                print("your moves:", file=out)
                print(_menu(state, actions), file=out)
                while True:
                    entry = _ask(f"your move [1-{len(actions)}]: ", stdin, out)
                    if entry is None:
                        return stop("end of input")
                    answer = read_entry(entry, state)
                    if answer == "quit":
                        return stop("you quit")
                    if answer == "help":
                        print(_help(game, save), file=out)
                        print(_indent(state.observation_string(seat)), file=out)
                        print(_menu(state, actions), file=out)
                    elif isinstance(answer, str):
                        print(answer, file=out)
                    else:
                        action = answer
                        break
            else:
                action = int(players[player].step(state))
                for other, bot in players.items():
                    if other != player:
                        bot.inform_action(state, player, action)
            said = explain(state, action, seat) if player >= 0 else None
            if player != seat:
                since.append(seen_move(state, action, seat) + (f": {said}" if said else ""))
            elif said:
                print(f"  {said}", file=out)
            record.append(state, action)
            state.apply_action(action)
    except KeyboardInterrupt:
        # The terminal echoed "^C" on the prompt's line: end that line, then one line of our own.
        note = f"interrupted after {len(record.moves)} moves"
        if save is not None:
            record.save(save)
            note = f"interrupted: the game so far is saved in {save}"
        print(f"\n{note} (seed {seed})", file=out, flush=True)
        raise
    record.finish(state)
    print("\n--- game over ---", file=out)
    show_since(turns == 0)
    print("you see:", file=out)
    print(_indent(state.observation_string(seat)), file=out)
    print("\n".join(result_lines(state, seats, seat)), file=out)
    if save is not None:
        record.save(save)
        print(f"The game is saved in {save} (elements-ai replay {save}).", file=out)
    return record


# --- replaying ----------------------------------------------------------------------------------

def _pages(record: GameRecord, player: int | None) -> list[str]:
    """One text per state of the record: the move that led there, then the state
    (as ``player`` saw it, or whole), and the result after the last move."""
    states = [state for state, _ in record.states()]
    total = len(record.moves)
    pages = []
    for k, state in enumerate(states):
        if k == 0:
            head = f"--- start (0 of {total} moves) ---"
        else:
            move: Move = record.moves[k - 1]
            if player is None:
                who = "chance" if move.player == CHANCE else _label(record.seats, move.player, None)
                seen = f"{who}: {move.text}"
            else:
                seen = seen_move(states[k - 1], move.action, player)
            head = f"--- move {k} of {total}: {seen} ---"
        body = str(state) if player is None else state.observation_string(player)
        page = [head, _indent(body)]
        if state.is_terminal():
            page += result_lines(state, record.seats, None, card=player is not None)
        elif k == total:
            page.append("(the record stops here: the game was not finished)")
        pages.append("\n".join(page))
    return pages


def replay(
    record: GameRecord | str | os.PathLike,
    player: int | None = None,
    step: bool = True,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> None:
    """Shows a recorded game state by state: whole, or as seat ``player`` saw it.

    With ``step`` it waits after each state: Enter for the next, ``b`` back, ``q`` to
    stop; without, it prints them all. ``record``: a record or its file (checked
    move by move; ``RecordError``, a ``ParameterError``, for a bad one).

    >>> import io
    >>> record = play("elements(single_round=true)", ["random"], seed=3, stdin=io.StringIO("1\\n" * 50),
    ...               stdout=io.StringIO())
    >>> out = io.StringIO()
    >>> replay(record, player=1, step=False, stdout=out)
    >>> print(out.getvalue().splitlines()[0])
    elements(single_round=True): p0 human, p1 random; seed 3; 35 moves; as p1 saw it
    """
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stdout if stdout is None else stdout
    if not isinstance(record, GameRecord):
        record = GameRecord.load(record)
    players = len(record.seats)
    if player is not None and not 0 <= player < players:
        raise ParameterError(f"--player {player}: the game has " +
                             ("only seat 0" if players == 1 else f"seats 0 to {players - 1}"))
    seats = ", ".join(f"p{p} {who}" for p, who in enumerate(record.seats))
    finished = "" if record.returns is not None else " (unfinished)"
    view = f"as p{player} saw it" if player is not None else "whole states"
    print(f"{short_game(record.game)}: {seats}; seed {record.seed}; {len(record.moves)} moves{finished}; {view}",
          file=out)
    pages = _pages(record, player)
    if not step:
        for page in pages:
            print(page, file=out)
        return
    k = 0
    while True:
        print(pages[k], file=out)
        last = k == len(pages) - 1
        while True:
            prompt = "the last state: b back, Enter or q to quit: " if last else "Enter next, b back, q quit: "
            entry = _ask(prompt, stdin, out)
            if entry is None:
                return
            entry = _normal(entry)
            if entry in ("q", "quit") or (last and entry == ""):
                return
            if entry == "":
                k += 1
                break
            if entry in ("b", "back"):
                if k == 0:
                    print("this is the start", file=out)
                    continue
                k -= 1
                break
            print("Enter for the next state, b to go back, q to quit", file=out)
