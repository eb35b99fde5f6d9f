"""Game records: one played game as a small JSON file that replays move by move.

``elements-ai play --save FILE`` and the web page's download write one;
``elements-ai replay FILE`` steps through it. A record holds the game string, who
sat in each seat, the seed, every move (chance outcomes included) with its action
string, the returns and the result in words (``render.words.result_words``, as
the person in the record heard it). Loading checks every move against the rules, so a record
that names an illegal move, or another game's moves, is refused with the move's
number rather than replayed wrongly.

>>> import elements_ai
>>> from elements_ai.agents.bots import RandomBot, play_game
>>> game = elements_ai.load_game("elements(single_round=true)")
>>> returns, actions = play_game(game, [RandomBot(game, 0, 1), RandomBot(game, 1, 2)], seed=5)
>>> record = GameRecord.from_actions(game, actions, seats=["random", "random"], seed=5)
>>> GameRecord.from_json(record.to_json()).returns == returns
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .core.params import ParameterError

FORMAT = "elements_ai.game/1"

__all__ = ["FORMAT", "GameRecord", "Move", "RecordError"]


class RecordError(ParameterError):
    """A record that cannot be read or replayed; the message names the file and the move."""


@dataclass(frozen=True)
class Move:
    player: int  # the seat that moved; -1 for chance
    action: int
    text: str  # the action string, as the mover saw it


@dataclass
class GameRecord:
    """One game: ``game`` (a game string), ``seats`` (``"human"`` or a bot spec per
    seat), ``seed``, ``moves`` and, once it has ended, ``returns`` and ``result``
    (the result in words: as the person heard it, or a spectator's without one)."""

    game: str
    seats: list[str]
    seed: int = 0
    moves: list[Move] = field(default_factory=list)
    returns: list[float] | None = None
    result: str | None = None

    @classmethod
    def from_actions(cls, game, actions: list[int], seats: list[str], seed: int = 0) -> GameRecord:
        """The record of ``actions`` played in order from ``game``'s initial state."""
        record = cls(str(game), list(seats), seed)
        state = game.new_initial_state()
        for action in actions:
            record.append(state, action)
            state.apply_action(action)
        if state.is_terminal():
            record.finish(state)
        return record

    def finish(self, state) -> None:
        """Notes the end of the game at the finished ``state``: its returns and its result in words."""
        from .render.words import result_words

        people = [seat for seat, who in enumerate(self.seats) if who == "human"]
        self.returns = [float(r) for r in state.returns()]
        self.result = result_words(state, people[0] if len(people) == 1 else None)

    def append(self, state, action: int) -> None:
        """Records ``action`` played at ``state`` (call before applying it)."""
        player = int(state.current_player())
        self.moves.append(Move(player, int(action), state.action_to_string(player, int(action))))

    @property
    def actions(self) -> list[int]:
        return [move.action for move in self.moves]

    def load_game(self):
        """The record's game, loaded through ``elements_ai.load_game``."""
        from .loader import load_game

        return load_game(self.game)

    def states(self, where: str = "record") -> Iterator[tuple[Any, Move | None]]:
        """``(state, move)`` pairs: the initial state with ``None``, then each state
        after its move. Raises ``RecordError`` at the first move the rules refuse."""
        game = self.load_game()
        if len(self.seats) != game.num_players():
            raise RecordError(f"{where}: {len(self.seats)} seats for {game}, which has {game.num_players()} players")
        state = game.new_initial_state()
        yield state.clone(), None
        for number, move in enumerate(self.moves, start=1):
            if state.is_terminal():
                raise RecordError(f"{where}: move {number} comes after the end of the game")
            # At a chance node the legal actions are its outcomes.
            if move.player != state.current_player() or move.action not in state.legal_actions():
                raise RecordError(f"{where}: move {number} ({move.text!r} by player {move.player}) is not legal "
                                  f"there; player {state.current_player()} is to move")
            state.apply_action(move.action)
            yield state.clone(), move

    def to_json(self) -> str:
        return json.dumps({
            "format": FORMAT,
            "game": self.game,
            "seats": self.seats,
            "seed": self.seed,
            "moves": [[m.player, m.action, m.text] for m in self.moves],
            "returns": self.returns,
            "result": self.result,
        }, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "record") -> GameRecord:
        """Parses a record; ``RecordError`` naming what is wrong. The moves are checked
        against the rules by ``states`` (and by ``load``)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"{where}: not a game record (not JSON: {error.msg}, line {error.lineno})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"{where}: not a game record (expected \"format\": \"{FORMAT}\")")
        try:
            moves = [Move(int(p), int(a), str(t)) for p, a, t in data["moves"]]
            returns = data.get("returns")
            result = data.get("result")
            record = cls(str(data["game"]), [str(s) for s in data["seats"]], int(data.get("seed", 0)), moves,
                         None if returns is None else [float(r) for r in returns],
                         None if result is None else str(result))
        except KeyError as error:
            raise RecordError(f"{where}: the record has no {error.args[0]!r}") from None
        except (TypeError, ValueError):
            raise RecordError(f"{where}: malformed record (moves are [player, action, text] triples)") from None
        return record

    def save(self, path: str | os.PathLike) -> None:
        """Writes the record to ``path`` whole or not at all."""
        from .files import write_text

        write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike) -> GameRecord:
        """Reads and checks the record in ``path`` (every move replayed against the rules)."""
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            raise RecordError(f"{path}: cannot read it ({error.strerror or error})") from None
        except UnicodeDecodeError:
            raise RecordError(f"{path}: not a game record (not text)") from None
        record = cls.from_json(text, where=str(path))
        for _ in record.states(where=str(path)):
            pass
        return record
