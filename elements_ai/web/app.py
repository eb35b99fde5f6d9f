"""The web page's server: a Starlette app that plays the games between a person and bots.

``create_app()`` returns the ASGI app; ``elements-ai serve`` runs it with uvicorn.
The page (``static/``) talks to a small JSON API:

* ``GET /api/games``: the games, their parameters and variants (as ``elements-ai
  games`` lists them) and the bots (as ``elements-ai agents`` does).
* ``GET /api/describe?game=STRING``: a game string checked, with its number of seats.
* ``POST /api/games`` ``{"game", "seat", "bots", "seed"}``: a new game, the person in
  ``seat`` and a bot spec for each other seat in seat order; answers ``{"id"}``.
* ``GET /api/games/{id}?width=N``: the game as the person sees it: the picture drawn
  for their seat only (``width`` CSS pixels wide, 320 to 4000, default 900: the page
  asks for its own width, so a phone gets a picture laid out for it), their legal
  moves (with the picture's regions that choose each), the moves so far as they
  could see them (with what a move did, ``render.explain``), each seat's last move
  marked in the picture, ``version`` (the number of moves made) and the result.
  ``debug=1`` adds the engine's own text for the seat under the picture.
* ``POST /api/games/{id}/move`` ``{"action", "version"}``: the person's move, chosen
  on the view of that ``version``: a move chosen on an older view (another tab's)
  is refused with 409 and the page reloads the game.
* ``POST /api/games/{id}/advance``: the next bot or chance move, one at a time, so
  the page can show the bots' moves one by one. A game's bots are prepared (their
  code compiled, the first time on a machine) when it starts: until they are,
  ``preparing`` is true and the page says so.
* ``POST /api/games/{id}/stop``: stops the game (a bot thinking too long): its
  bots' moves are no longer made and the page offers a new game.
* ``GET /api/games/{id}/record``: the finished game as a ``GameRecord`` file, which
  ``elements-ai replay`` reads.

Game ids are random tokens (``secrets.token_urlsafe``), so one cannot be guessed. A
malformed request is answered 4xx with ``{"error": "one line"}``: 400 a body that
is not JSON, 404 an unknown game, 409 a move the game's state does not allow now
(not your turn, an illegal action, the game is over, a stale view), 413 a body too
large, 415 a body not sent as JSON, 422 a bad value (a game string, a bot spec, a
seat, a bot stronger than ``MAX_SIMS`` simulations or ``MAX_SECONDS`` a move). A
client that goes away mid-request is one line in the server's log. Bots
think in worker threads: the search releases the GIL, so other requests and other
games are served meanwhile. At most ``max_games`` games are kept in memory; a new
one evicts the oldest finished game, or else the one left alone the longest.

>>> import httpx
>>> with serving() as url, httpx.Client(base_url=url) as http:
...     game = {"game": "elements(single_round=true)", "seat": 0, "bots": ["random"], "seed": 3}
...     id = http.post("api/games", json=game).json()["id"]
...     view = http.get(f"api/games/{id}").json()
...     while not view["finished"]:
...         if view["your_turn"]:
...             move = {"action": view["legal"][0]["action"], "version": view["version"]}
...             view = http.post(f"api/games/{id}/move", json=move).json()
...         else:
...             view = http.post(f"api/games/{id}/advance").json()
...     refused = http.post(f"api/games/{id}/move", json={"action": 0}).json()
>>> view["result"].startswith(("You won the round", "You lost the round")), refused
(True, {'error': 'the game is over'})
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..agents.bots import draw_chance
from ..agents.registry import BOTS, list_bots, make_bot
from ..core.params import ParameterError
from ..loader import GAMES, get_kernel, load_game
from ..play import result_lines, seen_text
from ..record import GameRecord
from ..render import clicks, explain, render
from ..render.words import result_words

__all__ = ["DEFAULT_BOT", "MAX_GAMES", "MAX_SECONDS", "MAX_SIMS", "create_app", "game_string", "listen", "serving"]

STATIC = Path(__file__).with_name("static")
DEFAULT_BOT = "ismcts"
MAX_GAMES = 100
MAX_BODY = 16_384  # bytes: a request is a few fields
MAX_TEXT = 400  # characters of a game string or a bot spec
MAX_SEED = 2**31 - 1
# A bot's thinking per move on the page: simulations (times rollouts and worlds) and seconds.
MAX_SIMS = 20_000
MAX_SECONDS = 10.0
WIDTH = 900  # the picture's width when the page does not say its own
MIN_WIDTH, MAX_WIDTH = 320, 4000
LOG = logging.getLogger("elements_ai.web")
HUMAN = "human"  # a person's seat in a GameRecord
# The page and its pictures come from this server alone; SVG text carries style attributes.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class ApiError(Exception):
    """A request the API refuses: its status and a one-line reason."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = " ".join(str(message).split())


def game_string(name: str, params: dict[str, Any]) -> str:
    """The game string of ``name`` with ``params`` (booleans as true / false).

    >>> game_string("elements", {"single_round": True, "hand_size": 2})
    'elements(single_round=true,hand_size=2)'
    >>> game_string("elementos", {})
    'elementos'
    """
    if not params:
        return name
    text = {True: "true", False: "false"}
    values = ",".join(f"{key}={text[value] if isinstance(value, bool) else value}" for key, value in params.items())
    return f"{name}({values})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _scores(state, seats: list[str], seat: int) -> str:
    """``returns p0 (you) +1, p1 (random) -1`` and the like, as ``elements-ai play`` ends
    its result line (points for the games scored in points)."""
    return result_lines(state, seats, me=seat, card=False)[-1].partition("; ")[2]


class Table:
    """One game in play: its state, the person's seat, the bots, the record and the
    moves as the person saw them. ``lock`` guards all of these between threads;
    ``moving`` is held while a bot or chance move is made, one at a time."""

    def __init__(self, game, seat: int, specs: list[str], seed: int):
        self.id = secrets.token_urlsafe(16)
        self.game = game
        self.seat = seat
        players = game.num_players()
        others = [p for p in range(players) if p != seat]
        # Each bot its own seed, so two bots of one spec do not play in lockstep.
        self.bots = {p: make_bot(spec, game, p, seed=seed + 1 + p) for p, spec in zip(others, specs)}
        seats = [HUMAN] * players
        for p, spec in zip(others, specs):
            seats[p] = spec
        self.who = ["you" if p == seat else f"p{p} {seats[p]}" for p in range(players)]
        self.state = game.new_initial_state()
        for bot in self.bots.values():
            bot.restart_at(self.state)
        self.record = GameRecord(str(game), seats, seed)
        self.rng = np.random.default_rng(seed)
        self.log: list[dict[str, Any]] = []
        self.last: dict[int, str] = {}  # each seat's last move, as the person saw it
        self.lock = threading.Lock()
        self.moving = threading.Lock()
        self.touched = time.monotonic()
        self.stopped = False
        self.ready = threading.Event()  # the bots are prepared (see ``prepare``)
        self.specs = dict(zip(others, specs))

    def prepare(self) -> None:
        """Makes each bot's first move once on a throwaway copy, cheaply, so that their code
        is compiled (and cached on disk) before the game needs it: the first time on a
        machine this takes a while, which the page announces."""
        try:
            for player, spec in self.specs.items():
                _warm_up(self.game, player, spec)
        finally:
            self.ready.set()

    @property
    def finished(self) -> bool:
        return self.state.is_terminal()

    def _apply(self, action: int) -> None:
        """Plays ``action`` at the current state (with ``lock`` held)."""
        state = self.state
        player = int(state.current_player())
        text = seen_text(state, action, self.seat)
        said = explain(state, action, self.seat)
        entry = {"n": len(self.record.moves) + 1, "player": player,
                 "who": "chance" if player < 0 else self.who[player], "text": f"{text}: {said}" if said else text}
        if player >= 0:
            self.last[player] = entry["text"]
        if player >= 0:
            for other, bot in self.bots.items():
                if other != player:
                    bot.inform_action(state, player, action)
        self.record.append(state, action)
        state.apply_action(action)
        self.log.append(entry)
        if state.is_terminal():
            self.record.finish(state)

    def move(self, action: Any, version: Any = None) -> None:
        """The person's move, chosen on the view of ``version`` (``None``: the current one);
        ``ApiError`` when it is not one now."""
        if not _is_int(action):
            raise ApiError(422, f"action must be an integer, got {json.dumps(action)[:40]}")
        if version is not None and not _is_int(version):
            raise ApiError(422, f"version must be an integer, got {json.dumps(version)[:40]}")
        with self.lock:
            state = self.state
            if version is not None and version != len(self.record.moves):
                raise ApiError(409, f"the game has moved on since that view (move {version}, now "
                                    f"{len(self.record.moves)}): reload it")
            if self.stopped:
                raise ApiError(409, "the game was stopped")
            if state.is_terminal():
                raise ApiError(409, "the game is over")
            if state.current_player() != self.seat:
                raise ApiError(409, "it is not your turn")
            if not 0 <= action < self.game.num_distinct_actions():
                raise ApiError(422, f"action {action} is out of range 0..{self.game.num_distinct_actions() - 1}")
            if action not in state.legal_actions():
                raise ApiError(409, f"action {action} ({state.action_to_string(self.seat, action)}) is not legal now")
            self._apply(action)

    def advance(self) -> None:
        """Makes the next bot or chance move (in a worker thread: a bot may think a while)."""
        if not self.moving.acquire(blocking=False):
            raise ApiError(409, "a move is already being made in this game")
        try:
            self.ready.wait()
            with self.lock:
                state = self.state
                if self.stopped:
                    raise ApiError(409, "the game was stopped")
                if state.is_terminal():
                    raise ApiError(409, "the game is over")
                if state.is_chance_node():
                    self._apply(draw_chance(state, self.rng))
                    return
                player = int(state.current_player())
                if player == self.seat:
                    raise ApiError(409, "it is your turn")
                bot, position = self.bots[player], state.clone()
            # The bot thinks on a copy without the lock, so the page can read the game meanwhile;
            # ``moving`` keeps anyone else from changing it.
            action = int(bot.step(position))
            with self.lock:
                if self.stopped:  # stopped while the bot thought: its move is not made
                    raise ApiError(409, "the game was stopped")
                self._apply(action)
        finally:
            self.moving.release()

    def stop(self) -> None:
        """Stops the game: no more moves; a bot thinking now finishes, and its move is dropped."""
        with self.lock:
            self.stopped = True

    def view(self, width: float = WIDTH, debug: bool = False) -> dict[str, Any]:
        """The game as the person sees it (everything here comes from their view)."""
        with self.lock:
            state = self.state.clone()
            log = list(self.log)
            last = dict(self.last)
            moves = len(self.record.moves)
        finished = state.is_terminal()
        stopped = self.stopped and not finished
        to_move = None if finished or stopped else int(state.current_player())
        your_turn = to_move == self.seat
        legal = []
        if your_turn:
            legal = [{"action": a, "text": state.action_to_string(self.seat, a),
                      "path": list(clicks(state, self.seat, a))} for a in state.legal_actions()]
        returns = [float(r) for r in state.returns()] if finished else None
        return {
            "id": self.id,
            "game": str(self.game),
            "title": self.game.kernel.long_name,
            "seat": self.seat,
            "players": [{"seat": p, "who": self.who[p]} for p in range(self.game.num_players())],
            "moves": moves,
            "version": moves,
            "to_move": to_move,
            "mover": None if to_move is None else "chance" if to_move < 0 else self.who[to_move],
            "your_turn": your_turn,
            "waiting": not finished and not stopped and not your_turn,
            "preparing": not self.ready.is_set(),
            "stopped": stopped,
            "legal": legal,
            "svg": render(state, self.seat, regions=True, width=width, last=last, debug=debug),
            "log": log,
            "finished": finished,
            "returns": returns,
            "result": result_words(state, self.seat) if finished else None,
            "scores": _scores(state, self.record.seats, self.seat) if finished else None,
        }


def _warm_up(game, player: int, spec: str) -> None:
    """One move of a throwaway bot of ``spec`` (its search cut to a few simulations) at
    the first state where ``player`` moves: what compiles the bot's code."""
    from ..agents.registry import parse_spec
    from ..testing import random_action

    entry, _ = parse_spec(spec)
    cheap = {"sims": 2} if "sims" in entry.params else {}
    if "seconds" in entry.params:
        cheap["seconds"] = 0.0
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for _ in range(500):
        if state.is_terminal():
            return
        if state.current_player() == player:
            bot = make_bot(spec, game, player, seed=0, **cheap)
            bot.restart_at(state)
            bot.step(state.clone())
            return
        state.apply_action(random_action(state, rng))


def check_strength(spec: str) -> None:
    """``ApiError`` 422 for a bot that would think longer a move than the page allows:
    more than ``MAX_SIMS`` simulations (times its rollouts and worlds) or ``MAX_SECONDS``.

    >>> check_strength("ismcts:sims=2000")
    >>> check_strength("ismcts:sims=1000000000")
    Traceback (most recent call last):
    ...
    elements_ai.web.app.ApiError: bot spec 'ismcts:sims=1000000000': 1000000000 simulations a move, over 20000
    """
    from ..agents.registry import parse_spec

    entry, given = parse_spec(spec)
    params = {name: param.default for name, param in entry.params.items()} | given
    sims = 1
    for name in ("sims", "rollouts", "worlds"):
        if isinstance(params.get(name), int) and not isinstance(params.get(name), bool):
            sims *= max(1, params[name])
    if "sims" in params and sims > MAX_SIMS:
        raise ApiError(422, f"bot spec {spec!r}: {sims} simulations a move, over {MAX_SIMS}")
    seconds = params.get("seconds")
    if isinstance(seconds, (int, float)) and seconds > MAX_SECONDS:
        raise ApiError(422, f"bot spec {spec!r}: {seconds:g} seconds a move, over {MAX_SECONDS:g}")


def _width(request: Request) -> float:
    text = request.query_params.get("width")
    if text is None:
        return WIDTH
    try:
        width = float(text)
    except ValueError:
        width = -1.0
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ApiError(422, f"width must be a number from {MIN_WIDTH} to {MAX_WIDTH}, got {text[:40]!r}")
    return width


def _catalog() -> dict[str, Any]:
    games = []
    for name in GAMES:
        kernel = get_kernel(name)
        games.append({
            "name": name,
            "title": kernel.long_name,
            "players": [kernel.min_num_players, kernel.max_num_players],
            "params": [{"name": key, "default": p.default, "help": p.help, "allowed": p.allowed}
                       for key, p in kernel.params.items()],
            "variants": [{"name": variant, "game": game_string(name, params)}
                         for variant, params in kernel.variants.items()],
        })
    bots = [{"name": name, "help": BOTS[name].help, "params": params} for name, params in list_bots().items()]
    return {"games": games, "bots": bots, "default_bot": DEFAULT_BOT,
            "limits": {"sims": MAX_SIMS, "seconds": MAX_SECONDS}}


def _load(text: Any):
    if not isinstance(text, str) or not text.strip():
        raise ApiError(422, "game must be a game name or game string such as 'elements(single_round=true)'")
    if len(text) > MAX_TEXT:
        raise ApiError(422, f"game string longer than {MAX_TEXT} characters")
    try:
        return load_game(text)
    except (ParameterError, pyspiel.SpielError, ValueError) as error:
        raise ApiError(422, str(error).split("\n")[0]) from None


def _new_table(data: dict[str, Any]) -> Table:
    unknown = sorted(set(data) - {"game", "seat", "bots", "seed"})
    if unknown:
        raise ApiError(422, f"unknown field {unknown[0]!r}; the fields are game, seat, bots, seed")
    game = _load(data.get("game"))
    players = game.num_players()
    seat = data.get("seat", 0)
    if not _is_int(seat) or not 0 <= seat < players:
        raise ApiError(422, f"seat must be an integer from 0 to {players - 1}, got {json.dumps(seat)[:40]}")
    specs = data.get("bots", [DEFAULT_BOT] * (players - 1))
    if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
        raise ApiError(422, "bots must be a list of bot specs (strings), one per other seat")
    if len(specs) != players - 1:
        raise ApiError(422, f"{game} has {players} seats: give {players - 1} bot spec(s), got {len(specs)}")
    if any(len(s) > MAX_TEXT for s in specs):
        raise ApiError(422, f"bot spec longer than {MAX_TEXT} characters")
    seed = data.get("seed")
    if seed is None:
        seed = secrets.randbelow(MAX_SEED)
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise ApiError(422, f"seed must be an integer from 0 to {MAX_SEED}, got {json.dumps(seed)[:40]}")
    try:
        for spec in specs:
            check_strength(spec.strip())
        return Table(game, seat, [s.strip() for s in specs], seed)
    except (ValueError, pyspiel.SpielError, ImportError, OSError) as error:
        # A spec the registry refuses, or a bot that cannot play this game (a missing file or library).
        raise ApiError(422, str(error).split("\n")[0] or type(error).__name__) from None


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object. Only JSON is read: a page on another site cannot send
    it without the browser asking this server first (CORS), which it never allows."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        raise ApiError(413, f"request body over {MAX_BODY} bytes")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise ApiError(413, f"request body over {MAX_BODY} bytes")
    except ClientDisconnect:
        raise _GoneAway() from None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ApiError(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(422, "the body must be a JSON object")
    return data


class _GoneAway(Exception):
    """The client went away before its request was read: nobody to answer."""


class _Headers:
    """Adds ``SECURITY_HEADERS`` to every response, and no caching to the API's."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    headers[key] = value
                if api:
                    headers["Cache-Control"] = "no-store"
            await send(message)

        await self.app(scope, receive, sending)


def listen(host: str, port: int):
    """A socket bound to ``host:port`` and listening, or a ParameterError saying why not."""
    if not 0 <= port <= 65535:
        raise ParameterError(f"--port must be from 0 to 65535, got {port}")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as error:
        raise ParameterError(f"--host {host}: not an address to listen on ({error})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise ParameterError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sock


@contextlib.contextmanager
def serving(app: Starlette | None = None, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serves ``app`` (by default ``create_app()``) with uvicorn in a background thread
    while the ``with`` block runs; yields the page's address (``port=0``: a free one).

    >>> import httpx
    >>> with serving() as url:
    ...     httpx.get(url + "api/games").status_code
    200
    """
    import uvicorn

    sock = listen(host, port)
    address, port = sock.getsockname()[:2]
    server = uvicorn.Server(uvicorn.Config(app or create_app(), log_level="warning", access_log=False))
    # Not the main thread: uvicorn leaves the signals alone, the caller's Ctrl-C stays theirs.
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the server stopped before it started")
            time.sleep(0.01)
        yield f"http://{f'[{address}]' if ':' in address else address}:{port}/"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def create_app(max_games: int = MAX_GAMES, allowed_hosts: list[str] | None = None) -> Starlette:
    """The ASGI app: the page at ``/``, the API under ``/api``.

    ``max_games``: games kept in memory. ``allowed_hosts``: the host names requests
    may name (``elements-ai serve`` on 127.0.0.1 allows only local names, which stops
    a web page from reaching the server through a DNS name rebound to 127.0.0.1);
    ``None`` allows any.
    """
    tables: dict[str, Table] = {}
    cache: dict[str, Any] = {}

    def table_of(request: Request) -> Table:
        table = tables.get(request.path_params["id"])
        if table is None:
            raise ApiError(404, "no such game (it may have ended long ago and been dropped)")
        table.touched = time.monotonic()
        return table

    def admit(table: Table) -> None:
        while len(tables) >= max_games:
            finished = [t for t in tables.values() if t.finished]
            oldest = finished[0] if finished else min(tables.values(), key=lambda t: t.touched)
            del tables[oldest.id]
        tables[table.id] = table

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def catalog(request: Request) -> Response:
        if "catalog" not in cache:
            cache["catalog"] = await run_in_threadpool(_catalog)
        return JSONResponse(cache["catalog"])

    async def describe(request: Request) -> Response:
        game = await run_in_threadpool(_load, request.query_params.get("game"))
        return JSONResponse({"game": str(game), "name": game.get_type().short_name,
                             "title": game.kernel.long_name, "players": game.num_players()})

    async def create(request: Request) -> Response:
        data = await _body(request)
        table = await run_in_threadpool(_new_table, data)
        admit(table)
        # The bots are prepared beside the game, in a thread that never holds up the exit.
        threading.Thread(target=table.prepare, name=f"prepare {table.id[:8]}", daemon=True).start()
        return JSONResponse({"id": table.id}, status_code=201)

    async def show(request: Request) -> Response:
        debug = request.query_params.get("debug") == "1"
        return JSONResponse(await run_in_threadpool(table_of(request).view, _width(request), debug))

    async def move(request: Request) -> Response:
        table = table_of(request)
        width = _width(request)
        data = await _body(request)
        if "action" not in data or not set(data) <= {"action", "version"}:
            raise ApiError(422, "the body is {\"action\": N, \"version\": V}, N one of the legal actions and V "
                                "the view's version")
        await run_in_threadpool(table.move, data["action"], data.get("version"))
        return JSONResponse(await run_in_threadpool(table.view, width))

    async def advance(request: Request) -> Response:
        table = table_of(request)
        width = _width(request)
        await run_in_threadpool(table.advance)
        return JSONResponse(await run_in_threadpool(table.view, width))

    async def stop(request: Request) -> Response:
        table = table_of(request)
        table.stop()
        return JSONResponse(await run_in_threadpool(table.view, _width(request)))

    async def record(request: Request) -> Response:
        table = table_of(request)
        if not table.finished:
            # The record holds every hidden card: not while the game is being played.
            raise ApiError(409, "the record is ready when the game is over")
        name = table.game.get_type().short_name
        return Response(table.record.to_json(), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}-{table.id[:8]}.json"'})

    async def api_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)
        return JSONResponse({"error": error.message}, status_code=error.status)

    async def gone_away(request: Request, error: Exception) -> Response:
        LOG.warning("the client went away during %s %s", request.method, request.url.path)
        return Response(status_code=400)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return JSONResponse({"error": str(error.detail)}, status_code=error.status_code, headers=error.headers)

    routes = [
        Route("/", index),
        Route("/api/games", catalog, methods=["GET"]),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/describe", describe, methods=["GET"]),
        Route("/api/games/{id}", show, methods=["GET"]),
        Route("/api/games/{id}/move", move, methods=["POST"]),
        Route("/api/games/{id}/advance", advance, methods=["POST"]),
        Route("/api/games/{id}/stop", stop, methods=["POST"]),
        Route("/api/games/{id}/record", record, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    middleware.append(Middleware(_Headers))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={ApiError: api_error, HTTPException: http_error, _GoneAway: gone_away})
    app.state.tables = tables
    return app
