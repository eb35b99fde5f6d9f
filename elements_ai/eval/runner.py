"""Playing a tournament: the schedule's games over processes or Ray, recorded as they end.

``tournament`` plays every game of the schedule (``schedule.py``) that its results
folder does not hold yet, appending one row to ``games.csv`` as each game ends; a
stopped tournament therefore resumes where it stopped. When all are played the rows
are rewritten in schedule order, so a finished ``games.csv`` is the same, byte for
byte, for the same tournament (its ``seconds`` column, the wall time of each game,
aside), whatever the number of workers, the backend or the interruptions.

A worker that dies during a tournament (a process killed, a Ray worker or node
lost) is replaced, and the games it had not returned are played again: every game
is seeded by its place in the schedule, so a replay gives the same result, and each
game is recorded once. A game that kills its worker ``MAX_DEATHS`` times stops the
tournament with ``WorkerDied``.

What reproduces, for the same settings and package versions: ``games.csv`` but for
its ``seconds`` column, ``tournament.json``, and the report made from them
(``ratings.csv``, ``pairwise.csv``, ``sprt.txt`` and the PNG plots, whose bootstrap
is seeded with the tournament's seed and whose metadata carry no version or date),
byte for byte. Agents limited by time (``seconds=`` in a spec) play differently on
another machine or under another load, and so do their games.
"""

from __future__ import annotations

import collections
import contextlib
import csv
import dataclasses
import functools
import hashlib
import io
import json
import logging
import multiprocessing
import multiprocessing.connection
import numbers
import os
import pathlib
import pickle
import signal
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence

import pandas as pd
import pyspiel

from .. import load_game
from ..agents import make_bot, play_game
from ..core.params import ParameterError
from ..files import check_output_folder, folder_lock, write_text
from ..progress import progress_bar
from .schedule import MODES, ScheduledGame, build_schedule, tables
from .sprt import SPRT

CONFIG_FILE = "tournament.json"
GAMES_FILE = "games.csv"
GAMES_COLUMNS = (
    "index", "table", "deal", "seating", "game", "seed", "seats", "agents", "bot_seeds", "returns", "length",
    "seconds",
)
BACKENDS = ("local", "ray")
# Bump when the schedule, the seeds or games.csv change meaning: a results folder
# written under another format is then refused instead of mixed in.
FORMAT = 1
# The largest seed, as every command's --seed (``commands.MAX_SEED``; a test checks they agree).
MAX_SEED = 2**63 - 1
# Memory one game of the schedule costs while the tournament runs: its schedule entry,
# its row once played and its share of the final table (tracemalloc's peak over 20,000
# games of elements(single_round=true): 1.2 kB a game; rows read back from games.csv
# hold their own copies of the strings, hence the margin).
GAME_BYTES = 2_000


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """What decides a tournament's results (and so identifies its results folder)."""

    game: str
    agents: tuple[str, ...]
    games: int
    seed: int
    mode: str = "round-robin"
    sprt: SPRT | None = None
    # The fingerprint of each agent that plays from a file (``SeatBot.fingerprint``):
    # a folder played with another network or policy is refused, not resumed.
    versions: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict:
        described = {
            "format": FORMAT,
            "game": self.game,
            "agents": list(self.agents),
            "games": self.games,
            "seed": self.seed,
            "mode": self.mode,
            "sprt": self.sprt.to_dict() if self.sprt else None,
        }
        if self.versions:
            described["versions"] = dict(self.versions)
        return described

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def digest(self) -> str:
        """A short hash of the config (names the default results folder)."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:8]

    @functools.cached_property
    def num_players(self) -> int:
        return load_game(self.game).num_players()

    @functools.cached_property
    def schedule(self) -> list[ScheduledGame]:
        return build_schedule(self.num_players, self.agents, self.games, self.seed, self.mode)


def make_config(
    game: str,
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    mode: str = "round-robin",
    sprt: SPRT | None = None,
) -> TournamentConfig:
    """A checked config: the game loads, every agent can sit in every seat of it.

    Raises ``ParameterError`` (a ``ValueError``) naming the problem.

    >>> make_config("elements", ["random", "rules"], games=4).game
    'elements(deck=1_1_2_2_3_3_4_4_5_5_6_6_6_6_6_6,hand_size=6,single_round=False,target_score=6)'
    >>> make_config("elements", ["random", "mcts:simz=3"], games=4)
    Traceback (most recent call last):
    ...
    elements_ai.core.params.ParameterError: bot spec 'mcts:simz=3' (mcts): unknown parameter 'simz'; parameters \
are c, depth, rollout, rollouts, seconds, select, sims, worlds
    """
    if isinstance(game, pyspiel.Game):
        game = str(game)  # a game loaded already: its game string
    if not isinstance(game, str):
        raise ParameterError(f"a tournament's game is a game string such as 'elements(single_round=true)' or a "
                             f"game from load_game, got {type(game).__name__} {game!r}")
    loaded = load_game(game)
    players = loaded.num_players()
    # Specs are text: full-width letters and digits read as ASCII ones, as in a game string.
    agents = tuple(unicodedata.normalize("NFKC", spec) if isinstance(spec, str) else spec for spec in agents)
    if not agents:
        raise ParameterError("a tournament needs agents (bot specs such as 'random' or 'mcts:sims=500')")
    if players > 1 and len(agents) < 2:
        raise ParameterError(f"a tournament of a {players}-player game needs at least two agents, got {list(agents)}")
    versions = []
    for spec in agents:
        if not isinstance(spec, str) or any(ch.isspace() or ch == "|" for ch in spec.strip()) or not spec.strip():
            raise ParameterError(f"agent spec {spec!r} must be one word such as 'mcts:sims=500,c=1.4'")
        for seat in range(players):
            bot = make_bot(spec, loaded, seat, seed=0)  # raises on a bad spec or a bot the game cannot support
        if bot.fingerprint() is not None:
            versions.append((spec.strip(), bot.fingerprint()))
    repeated = sorted({spec for spec in agents if agents.count(spec) > 1})
    if repeated:
        raise ParameterError(f"agent {repeated[0]!r} is listed twice")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ParameterError(f"games must be a positive integer (games per table, seatings included), got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= MAX_SEED:
        raise ParameterError(f"a seed is an integer from 0 to {MAX_SEED}, got {seed!r}")
    if mode not in MODES:
        raise ParameterError(f"unknown tournament mode {mode!r}; modes are {', '.join(MODES)}")
    _check_fits(len(tables(players, len(agents), mode)) * games)
    if mode == "gauntlet" and players > 1 and len(agents) < 2:
        raise ParameterError("a gauntlet needs an agent and a field of at least one opponent")
    if sprt is not None and (len(agents) != 2 or players < 2):
        raise ParameterError(f"an SPRT stops a match between two agents, got {len(agents)} agents")
    return TournamentConfig(str(loaded), tuple(spec.strip() for spec in agents), games, int(seed), mode, sprt,
                            tuple(versions))


def _check_fits(scheduled: int) -> None:
    """``ParameterError`` at once for a tournament whose schedule and results would not
    fit in this machine's memory: better than growing until the machine runs out."""
    from ..system import format_bytes, format_count, machine_memory

    needed = scheduled * GAME_BYTES
    available = machine_memory()[1]
    if needed > 0.9 * available:
        raise ParameterError(
            f"a tournament of {format_count(scheduled)} games needs about {format_bytes(needed)} for its schedule "
            f"and results, and this machine has {format_bytes(available)} available: play fewer games (--games)"
        )


# --- one game ----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=16)
def _game(game: str):
    return load_game(game)


def play_scheduled(game: str, specs: tuple[str, ...], item: ScheduledGame) -> dict:
    """Plays one scheduled game; returns its ``games.csv`` row."""
    start = time.perf_counter()
    loaded = _game(game)
    bots = [make_bot(specs[a], loaded, seat, seed=item.bot_seeds[seat]) for seat, a in enumerate(item.seats)]
    returns, actions = play_game(loaded, bots, seed=item.seed)
    return {
        "index": item.index,
        "table": item.table,
        "deal": item.deal,
        "seating": item.seating,
        "game": game,
        "seed": item.seed,
        "seats": " ".join(map(str, item.seats)),
        "agents": "|".join(specs[a] for a in item.seats),
        "bot_seeds": " ".join(map(str, item.bot_seeds)),
        "returns": " ".join(repr(float(r)) for r in returns),
        "length": len(actions),
        "seconds": round(time.perf_counter() - start, 3),
    }


def _play_task(task: tuple[str, tuple[str, ...], ScheduledGame]) -> dict:
    return play_scheduled(*task)


# --- backends ----------------------------------------------------------------------------------

@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Sets environment variables for the processes started inside the block."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _ignore_interrupts() -> None:
    # Ctrl-C reaches every process of the terminal; the parent stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _children_ignore_interrupts() -> Iterator[None]:
    """Processes started inside the block ignore Ctrl-C from birth: a child still
    importing when it comes would otherwise print a traceback (the pool's initializer
    runs only after the imports). Python keeps an ignored SIGINT it inherits."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals cannot be changed here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# A game that was being played each time its worker died this many times stops the
# tournament: it kills the process itself (a crashing bot or game), so replaying it
# again would go on forever.
MAX_DEATHS = 3
# Games sent ahead to each worker process, so that it never waits for the next one.
_AHEAD = 2

log = logging.getLogger(__name__)


class WorkerDied(RuntimeError):
    """A game killed its worker process (or Ray worker) ``MAX_DEATHS`` times: the
    tournament stops, its finished games recorded."""


def _describe(task, position: int) -> str:
    """A task in words for the log and errors: the scheduled game when it is one."""
    item = task[-1] if isinstance(task, tuple) and task else None
    if isinstance(item, ScheduledGame) and len(task) >= 2:
        specs = task[1]
        return f"game {item.index} ({'|'.join(specs[a] for a in item.seats)})"
    return f"task {position}"


def _how(exitcode: int | None) -> str:
    if exitcode is None:
        return "died"
    if exitcode < 0:
        try:
            return f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"was killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


class _Deaths:
    """Counts, for each task, the worker deaths that came while it was being played."""

    def __init__(self, tasks: Sequence):
        self.tasks = tasks
        self.count: collections.Counter[int] = collections.Counter()

    def charge(self, position: int, how: str, replayed: Sequence[int]) -> None:
        """Charges a death to the task at ``position``; raises ``WorkerDied`` at the last."""
        self.count[position] += 1
        name = _describe(self.tasks[position], position)
        if self.count[position] >= MAX_DEATHS:
            raise WorkerDied(
                f"{name} killed its worker {self.count[position]} times (the last one {how}); stopped rather than "
                f"play it again (the finished games are kept)"
            )
        games = ", ".join(_describe(self.tasks[p], p) for p in replayed)
        log.warning("a worker %s while playing %s; replaying %s on another worker", how, name, games)


def _worker_main(connection, play) -> None:
    """A worker process: plays the tasks that come down ``connection`` in order,
    sending back ``(position, True, row)`` or ``(position, False, error)``; stops at ``None``."""
    from multiprocessing.pool import ExceptionWithTraceback

    _ignore_interrupts()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if message is None:
            return
        position, task = message
        try:
            reply = (position, True, play(task))
        except Exception as error:
            try:
                pickle.dumps(error)
            except Exception:
                error = RuntimeError(f"{type(error).__name__}: {error}").with_traceback(error.__traceback__)
            reply = (position, False, ExceptionWithTraceback(error, error.__traceback__))
        try:
            connection.send(reply)
        except OSError:  # the parent is gone (BrokenPipeError): nobody waits for the result
            return


class _Worker:
    """A worker process and the tasks sent to it that it has not answered, oldest first
    (it plays them in order, so the oldest is the one it is playing)."""

    def __init__(self, context, play):
        ours, theirs = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(theirs, play), daemon=True)
        # Each worker runs games on one numba thread: the cores go to the processes.
        # The variable must be set before numba starts in the child, so it is in the
        # environment the spawned child inherits.
        with _environment(NUMBA_NUM_THREADS="1"), _children_ignore_interrupts():
            self.process.start()
        theirs.close()  # the parent keeps only its end: a dead child makes it read EOF
        self.connection = ours
        self.sent: collections.deque[int] = collections.deque()
        self.broken = False

    def send(self, position: int, task) -> bool:
        try:
            self.connection.send((position, task))
        except OSError:  # the process is gone (BrokenPipeError): it is seen dead next
            self.broken = True
            return False
        self.sent.append(position)
        return True

    def replies(self) -> list:
        """The replies waiting in the pipe, all of them; marks the worker broken at EOF."""
        found = []
        try:
            while not self.broken and self.connection.poll():
                found.append(self.connection.recv())
        except (EOFError, OSError, pickle.UnpicklingError):
            # EOF: the process ended; a reply cut short by the kill is dropped (its game is replayed).
            self.broken = True
        return found

    def dead(self) -> bool:
        return self.broken or not self.process.is_alive()

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.connection.close()


def run_local(tasks: Sequence, workers: int, play: Callable = _play_task) -> Iterator[dict]:
    """Plays ``tasks`` on ``workers`` processes (in this process when 1), yielding
    ``play(task)`` for each as it ends, in the order they end.

    A worker process that dies (killed, or crashed by a game) is replaced by a new one,
    which plays again the tasks the dead one had not returned: each task's result is
    yielded exactly once. A task that was being played at ``MAX_DEATHS`` deaths raises
    ``WorkerDied``. An exception raised by ``play`` is raised here.
    """
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield play(task)
        return
    context = multiprocessing.get_context("spawn")
    waiting = collections.deque(range(len(tasks)))
    deaths = _Deaths(tasks)
    pool = [_Worker(context, play) for _ in range(min(workers, len(tasks)))]
    left = len(tasks)
    try:
        while left:
            for worker in pool:
                while waiting and len(worker.sent) < _AHEAD and not worker.broken:
                    position = waiting.popleft()
                    if not worker.send(position, tasks[position]):
                        waiting.appendleft(position)
            ready = set(multiprocessing.connection.wait(
                [w.connection for w in pool] + [w.process.sentinel for w in pool]
            ))
            for k, worker in enumerate(pool):
                if worker.connection not in ready and worker.process.sentinel not in ready and not worker.broken:
                    continue
                for position, ok, value in worker.replies():
                    worker.sent.remove(position)
                    if not ok:
                        raise value
                    left -= 1
                    yield value
                if worker.process.sentinel in ready or worker.broken:
                    if not worker.dead():
                        continue
                    worker.stop()
                    lost = list(worker.sent)
                    if lost:
                        deaths.charge(lost[0], _how(worker.process.exitcode), lost)
                        waiting.extendleft(reversed(lost))
                    elif not waiting:
                        pool[k] = None
                        continue
                    pool[k] = _Worker(context, play)
            pool = [w for w in pool if w is not None]
    finally:
        for worker in pool:
            if worker is not None:
                worker.stop()


def run_ray(tasks: Sequence, workers: int | None, address: str | None, play: Callable = _play_task) -> Iterator[dict]:
    """Plays ``tasks`` as Ray tasks on a local Ray (``address=None``) or a cluster,
    yielding ``play(task)`` for each as it ends.

    A task whose Ray worker dies (killed, crashed, or its node lost) is submitted
    again, and Ray starts a new worker for it: each result is yielded exactly once.
    A task that was being played at ``MAX_DEATHS`` deaths raises ``WorkerDied``.
    """
    import ray  # checked by _check_backend
    import ray.exceptions

    started = not ray.is_initialized()
    if started:
        ray.init(
            address=address,
            num_cpus=workers if address is None else None,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
            runtime_env={"env_vars": {"NUMBA_NUM_THREADS": "1"}},
        )
    deaths_by = {
        "WorkerCrashedError": "crashed",
        "NodeDiedError": "was lost with its node",
        "OutOfMemoryError": "was killed by Ray for want of memory",
    }
    lost = tuple(getattr(ray.exceptions, name) for name in deaths_by if hasattr(ray.exceptions, name))
    # Ray retries nothing by itself: a death is counted here, and a game that keeps
    # killing its worker stops the tournament.
    remote = ray.remote(num_cpus=1, max_retries=0)(play)
    deaths = _Deaths(tasks)
    position_of = {remote.remote(task): position for position, task in enumerate(tasks)}
    pending = list(position_of)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                position = position_of.pop(ref)
                try:
                    row = ray.get(ref)
                except lost as error:
                    deaths.charge(position, deaths_by.get(type(error).__name__, "died"), [position])
                    again = remote.remote(tasks[position])
                    position_of[again] = position
                    pending.append(again)
                    continue
                yield row
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _check_backend(backend: str, workers: int | None, address: str | None) -> None:
    if backend not in BACKENDS:
        raise ParameterError(f"unknown backend {backend!r}; backends are {', '.join(BACKENDS)}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ParameterError(f"workers must be a positive integer, got {workers!r}")
    if address is not None and backend != "ray":
        raise ParameterError("an address is for the ray backend (--backend ray)")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ParameterError("the ray backend needs Ray: pip install 'elements-ai[ray]'") from None


# --- the results folder ------------------------------------------------------------------------

def _rows_text(rows: Iterable[dict], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=GAMES_COLUMNS, lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _check_row(row: dict, config: TournamentConfig, line: int) -> int:
    schedule = config.schedule
    try:
        index = int(row["index"])
        item = schedule[index]
        expected = {
            "game": config.game,
            "seed": str(item.seed),
            "seats": " ".join(map(str, item.seats)),
            "bot_seeds": " ".join(map(str, item.bot_seeds)),
        }
        if index < 0 or any(row[key] != value for key, value in expected.items()):
            raise ValueError
        [float(r) for r in row["returns"].split()]
    except (KeyError, ValueError, IndexError, AttributeError, TypeError):
        raise ParameterError(
            f"{GAMES_FILE} line {line} is not a game of this tournament (or the file is damaged)"
        ) from None
    return index


def read_results(out: pathlib.Path, config: TournamentConfig) -> dict[int, dict]:
    """The finished games in ``out`` (by schedule index), after checking that the
    folder holds this tournament. Writes nothing."""
    config_path, games_path = out / CONFIG_FILE, out / GAMES_FILE
    if out.exists() and not out.is_dir():
        raise ParameterError(f"results folder {str(out)!r} is a file")
    if config_path.exists():
        try:
            found = json.loads(config_path.read_text())
        except json.JSONDecodeError:
            raise ParameterError(f"{config_path} is not a tournament description (damaged JSON)") from None
        wanted = config.to_dict()
        changed = [spec for spec, version in config.versions if found.get("versions", {}).get(spec) != version]
        if changed and {k: v for k, v in found.items() if k != "versions"} == {
                k: v for k, v in wanted.items() if k != "versions"}:
            what = ("another version of" if "versions" in found else
                    "an unrecorded version (played before versions were recorded) of")
            raise ParameterError(
                f"results folder {str(out)!r} was played with {what} {', '.join(map(repr, changed))} "
                "(a network or policy, or how it plays, may have changed); choose another folder (--out) or "
                "delete this one to play again"
            )
        if found != wanted:
            keys = [key for key in wanted if found.get(key) != wanted[key]] or ["format"]
            details = "; ".join(f"{key}: folder {found.get(key)!r}, asked {wanted[key]!r}" for key in keys)
            raise ParameterError(
                f"results folder {str(out)!r} holds another tournament ({details}); "
                "choose another folder (--out) or the same settings"
            )
    elif games_path.exists() or (out / "ratings.csv").exists():
        raise ParameterError(f"results folder {str(out)!r} holds results but no {CONFIG_FILE}; choose another folder")
    if not games_path.exists():
        return {}
    text = games_path.read_text()
    lines = text.split("\n")
    # A game being written when the process was killed leaves a line without its end.
    complete = "\n".join(lines[:-1]) + "\n" if lines[-1] else text
    reader = csv.DictReader(io.StringIO(complete))
    if tuple(reader.fieldnames or ()) != GAMES_COLUMNS:
        raise ParameterError(f"{games_path} does not have the columns of a games table: {', '.join(GAMES_COLUMNS)}")
    finished: dict[int, dict] = {}
    for line, row in enumerate(reader, start=2):
        finished.setdefault(_check_row(row, config, line), row)
    return finished


class _GamesFile:
    """``games.csv`` opened for appending, one flushed line per finished game."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        new = not path.exists() or path.stat().st_size == 0
        if not new:
            # Drop a line left unfinished by a killed process.
            data = path.read_bytes()
            if not data.endswith(b"\n"):
                with path.open("r+b") as handle:
                    handle.truncate(data.rfind(b"\n") + 1)
        self.handle = path.open("a", newline="")
        if new:
            self.handle.write(_rows_text([], header=True))
            self.handle.flush()

    def append(self, row: dict) -> None:
        self.handle.write(_rows_text([row], header=False))
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()


# --- the tournament -----------------------------------------------------------------------------

def _deal_scores(rows: dict[int, dict], config: TournamentConfig) -> list[float]:
    """The first agent's mean score per deal, over the deals complete in schedule order."""
    from .ratings import seat_scores

    by_deal: dict[int, list[ScheduledGame]] = {}
    for item in config.schedule:
        by_deal.setdefault(item.deal, []).append(item)
    scores = []
    for deal in sorted(by_deal):
        items = by_deal[deal]
        if any(item.index not in rows for item in items):
            break
        total = 0.0
        for item in items:
            returns = [float(r) for r in rows[item.index]["returns"].split()]
            total += seat_scores(returns, item.seats, 0, 1)
        scores.append(total / len(items))
    return scores


class _SPRTWatch:
    """Where the SPRT stops the schedule, as games come in.

    The test reads the deals in schedule order and only those complete, so where it
    stops does not depend on the order in which parallel workers finish games.
    """

    def __init__(self, config: TournamentConfig):
        self.config = config
        self.checked = 0

    def stop(self, rows: dict[int, dict]) -> int | None:
        """The last schedule index the test keeps, or ``None`` while it goes on."""
        scores = _deal_scores(rows, self.config)
        deals, decision = self.config.sprt.stop_point(scores, start=self.checked)
        self.checked = deals
        if not decision:
            return None
        return max(item.index for item in self.config.schedule if item.deal < deals)


def default_folder(config: TournamentConfig) -> pathlib.Path:
    """``tournaments/<game>-<hash of the config>`` under the current folder."""
    return pathlib.Path("tournaments") / f"{config.game.split('(')[0]}-{config.digest()}"


def frame(rows: Iterable[dict]) -> pd.DataFrame:
    """The games table as a DataFrame with the types ``games.csv`` reads back as."""
    table = pd.DataFrame(list(rows), columns=list(GAMES_COLUMNS))
    for column in ("index", "table", "deal", "seating", "seed", "length"):
        table[column] = table[column].astype("int64")
    table["seconds"] = table["seconds"].astype("float64")
    for column in ("game", "seats", "agents", "bot_seeds", "returns"):
        table[column] = table[column].astype(str)
    return table


def read_games(path: str | os.PathLike) -> pd.DataFrame:
    """A ``games.csv`` (or the folder holding it) as a DataFrame.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> played = tournament("elements(single_round=true)", ["random", "rules"], games=2, out=folder,
    ...                     workers=1, progress=False, report=False)
    >>> read_games(folder).equals(played)
    True
    """
    path = pathlib.Path(path)
    if path.is_dir():
        path = path / GAMES_FILE
    return frame(pd.read_csv(path, dtype=str, keep_default_na=False).to_dict("records"))


def tournament(
    game: str,
    agents: Sequence[str],
    games: int = 20,
    *,
    seed: int = 0,
    mode: str = "round-robin",
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
    out: str | os.PathLike | None = None,
    sprt: SPRT | None = None,
    progress: bool = True,
    report: bool = True,
) -> pd.DataFrame:
    """Plays a tournament and returns its games, one row per game (``games.csv``).

    ``agents`` are bot specs (``make_bot``); ``games`` is the number of games of each
    table (pair of agents in a two-player game), seatings included; ``mode`` is
    ``"round-robin"`` or ``"gauntlet"`` (the first agent against each other one).
    Games run on ``workers`` local processes (default: one per core) or, with
    ``backend="ray"``, as Ray tasks on a local Ray or the cluster at ``address``;
    either way the results are the same for the same ``seed``. With ``out``, every
    game is appended to ``out/games.csv`` as it ends and a rerun resumes; when the
    tournament is over the folder also gets ``ratings.csv``, ``pairwise.csv`` and the
    plots (``report=False``: games only). ``sprt`` (two agents) stops the match as
    soon as its test decides.

    >>> games = tournament("elements(single_round=true)", ["random", "rules", "mcts:sims=5"], games=4,
    ...                    workers=1, progress=False)
    >>> len(games), list(games.columns[:4])
    (12, ['index', 'table', 'deal', 'seating'])
    >>> games.loc[0, ["seats", "agents"]].tolist()
    ['0 1', 'random|rules']
    """
    config = make_config(game, agents, games, seed, mode, sprt)
    return play_tournament(config, workers=workers, backend=backend, address=address, out=out,
                           progress=progress, report=report)


def play_tournament(
    config: TournamentConfig,
    *,
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
    out: str | os.PathLike | None = None,
    progress: bool = True,
    report: bool = True,
) -> pd.DataFrame:
    """Plays the tournament ``config`` (from ``make_config``): ``tournament`` for a
    caller that has built the config already (the command line, to name the results
    folder). The keywords are ``tournament``'s."""
    _check_backend(backend, workers, address)
    if out is None:
        return _play(config, workers, backend, address, None, progress, report)
    folder = check_output_folder(out, "results folder")
    read_results(folder, config)  # another tournament's folder is refused before anything is written
    # One run at a time on a folder: a second one would play and record every game again.
    with folder_lock(folder, "results folder"):
        return _play(config, workers, backend, address, folder, progress, report)


def _play(config: TournamentConfig, workers: int | None, backend: str, address: str | None,
          folder: pathlib.Path | None, progress: bool, report: bool) -> pd.DataFrame:
    sprt = config.sprt
    finished = read_results(folder, config) if folder is not None else {}
    schedule = config.schedule

    watch = _SPRTWatch(config) if sprt else None
    stop = watch.stop(finished) if watch else None
    pending = [
        (config.game, config.agents, item)
        for item in schedule
        if item.index not in finished and (stop is None or item.index <= stop)
    ]
    games_file = None
    if folder is not None:
        if not (folder / CONFIG_FILE).exists():
            write_text(folder / CONFIG_FILE, config.to_json())
        games_file = _GamesFile(folder / GAMES_FILE)
    bar = progress_bar(
        total=len(schedule), initial=len(finished), unit="game", disable=not progress or not pending,
        desc=config.game.split("(")[0], dynamic_ncols=True,
    )
    workers = workers or os.cpu_count() or 1
    if not pending:
        results: Iterator[dict] = iter(())
    elif backend == "ray":
        results = run_ray(pending, workers, address)
    else:
        results = run_local(pending, workers)
    try:
        for row in results:
            if row["index"] in finished:
                continue  # the runners return each game once; a game is never counted twice
            finished[row["index"]] = row
            if games_file is not None:
                games_file.append(row)
            bar.update(1)
            if watch is not None and stop is None:
                stop = watch.stop(finished)
                if stop is not None:
                    break  # every game up to the stop is in: the deals before it are complete
    finally:
        getattr(results, "close", lambda: None)()
        bar.close()
        if games_file is not None:
            games_file.close()

    kept = [finished[i] for i in sorted(finished) if stop is None or i <= stop]
    if folder is not None:
        write_text(folder / GAMES_FILE, _rows_text(kept, header=True))
    table = frame(kept)
    if folder is not None and report:
        from .report import write_report

        write_report(table, folder, seed=config.seed, sprt=config.sprt)
    return table
