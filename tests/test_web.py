"""The web page's server (``elements-ai serve``): whole games of every game through the
API, a view that shows only what the person may see, records that replay, 4xx for
every malformed request, unguessable ids, a cap on the games kept, bots that think
off the event loop, and the command itself."""

from __future__ import annotations

import contextlib
import json
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import httpx
import numpy as np
import pytest
from commands import ENV, PACKAGE

import elements_ai
from elements_ai import cli
from elements_ai.record import GameRecord
from elements_ai.render.svg import words
from elements_ai.web.app import STATIC, create_app, serving

with warnings.catch_warnings():
    # starlette 1.x announces a move of its TestClient from httpx to httpx2; httpx still works.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient` is deprecated")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
REGION = re.compile(r'data-region="([^"]*)"')

# A short game of each (variants where the game has one), with the person in the last seat.
FAST = {
    "elemental_duel": "elemental_duel(num_territories=3)",
    "elementos": "elementos(rows=6,max_moves=40)",
    "elements": "elements(single_round=true)",
    "elements1997": "elements1997(players=3,rounds=1)",
    "elementum": "elementum",
}


@pytest.fixture
def client():
    return TestClient(create_app())


def new_game(client, game, seat=0, bots=None, seed=1) -> str:
    players = elements_ai.load_game(game).num_players()
    bots = ["random"] * (players - 1) if bots is None else bots
    answer = client.post("/api/games", json={"game": game, "seat": seat, "bots": bots, "seed": seed})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def play_out(client, id, rng, check=None) -> dict:
    """Plays the person's moves at random and the others' with advance, to the end."""
    view = client.get(f"/api/games/{id}").json()
    while not view["finished"]:
        if check is not None:
            check(view)
        if view["your_turn"]:
            move = rng.choice(view["legal"])
            view = client.post(f"/api/games/{id}/move", json={"action": move["action"]}).json()
        else:
            assert view["waiting"] and not view["legal"]
            view = client.post(f"/api/games/{id}/advance").json()
    return view


def test_the_catalog_lists_every_game_its_variants_and_the_bots(client):
    catalog = client.get("/api/games").json()
    assert [g["name"] for g in catalog["games"]] == list(elements_ai.GAMES)
    for game in catalog["games"]:
        kernel = elements_ai.get_kernel(game["name"])
        assert [p["name"] for p in game["params"]] == list(kernel.params)
        assert [v["name"] for v in game["variants"]] == list(kernel.variants)
        for variant in game["variants"]:
            described = client.get("/api/describe", params={"game": variant["game"]}).json()
            params = kernel.variants[variant["name"]]
            assert described["game"] == str(elements_ai.load_game(game["name"], **params))
    assert {"random", "rules", "ismcts"} <= {b["name"] for b in catalog["bots"]}
    assert catalog["default_bot"] == "ismcts"


@pytest.mark.parametrize("name", list(FAST))
def test_a_whole_game_of_every_game_through_the_api_and_its_record(client, name):
    game = FAST[name]
    players = elements_ai.load_game(game).num_players()
    seat = players - 1
    id = new_game(client, game, seat=seat, seed=4)
    turns = []

    def check(view):
        assert view["seat"] == seat and view["game"] == str(elements_ai.load_game(game))
        assert f"you are Player {seat}" in view["svg"]
        assert [e["n"] for e in view["log"]] == list(range(1, view["moves"] + 1))
        if view["your_turn"]:
            turns.append(view["moves"])
            drawn = set(REGION.findall(view["svg"]))
            for move in view["legal"]:
                assert set(move["path"]) <= drawn, move

    view = play_out(client, id, random.Random(2), check)
    assert turns, "the person never moved"
    # One result in words, the same in the banner, the picture and the record.
    assert view["result"] and f"Game over: {view['result']}" in words(view["svg"])
    assert view["to_move"] is None and not view["legal"] and not view["waiting"]
    answer = client.get(f"/api/games/{id}/record")
    assert answer.status_code == 200
    assert answer.headers["content-disposition"].startswith("attachment; filename=")
    record = GameRecord.from_json(answer.text)
    assert record.seats[seat] == "human" and record.seats.count("random") == players - 1
    assert len(record.moves) == view["moves"] and record.returns == view["returns"]
    assert record.result == view["result"]
    final = [state for state, _ in record.states()][-1]
    assert final.is_terminal() and [float(r) for r in final.returns()] == view["returns"]


def test_a_record_file_loads_as_replay_reads_it(client, tmp_path):
    id = new_game(client, FAST["elements"], seed=9)
    play_out(client, id, random.Random(0))
    path = tmp_path / "game.json"
    path.write_bytes(client.get(f"/api/games/{id}/record").content)
    record = GameRecord.load(path)  # every move checked against the rules
    assert record.game == str(elements_ai.load_game(FAST["elements"])) and record.returns is not None


def test_a_solo_game_needs_no_bots(client):
    id = new_game(client, "elementum(players=1)", bots=[])
    view = play_out(client, id, random.Random(1))
    assert re.fullmatch(r"You scored \d+ points \(\w[\w ]*\)", view["result"]), view["result"]


@pytest.mark.slow
def test_the_view_shows_only_what_the_person_sees(client):
    """Two states that differ only in what the person cannot see give the same view."""
    app = create_app()
    client = TestClient(app)
    for name, seat in [("elements", 0), ("elemental_duel", 1), ("elements1997", 2), ("elementos", 0)]:
        id = new_game(client, FAST[name], seat=seat, seed=3)
        table = app.state.tables[id]
        rng = random.Random(5)
        view = client.get(f"/api/games/{id}").json()
        while not view["your_turn"]:
            view = client.post(f"/api/games/{id}/advance").json()
        for _ in range(rng.randrange(4)):  # a few moves in, hidden things in play
            view = play_out_one(client, id, view, rng)
        truth = table.state.clone()
        sampler = np.random.RandomState(7).rand
        differs = 0
        for _ in range(6):
            other = truth.resample_from_infostate(seat, sampler)
            differs += elements_ai.render(other) != elements_ai.render(truth)
            table.state = other
            seen = client.get(f"/api/games/{id}").json()
            assert seen["svg"] == view["svg"] and seen["legal"] == view["legal"], name
            assert seen["log"] == view["log"]
        table.state = truth
        assert differs, f"{name}: no hidden information to test with"


def play_out_one(client, id, view, rng) -> dict:
    """One move of the person, then the others' moves up to the person's next turn."""
    if view["finished"]:
        return view
    view = client.post(f"/api/games/{id}/move", json={"action": rng.choice(view["legal"])["action"]}).json()
    while view["waiting"]:
        view = client.post(f"/api/games/{id}/advance").json()
    return view


def test_the_log_does_not_tell_the_others_hidden_moves(client):
    id = new_game(client, "elements(single_round=true)", seat=0, seed=2)
    view = play_out(client, id, random.Random(3))
    deals = [e["text"] for e in view["log"] if e["player"] == -1 and e["text"].startswith("deal")]
    hand = elements_ai.load_game("elements").get_parameters()["hand_size"]
    assert deals.count("deal (hidden)") == hand and len(deals) == 2 * hand
    id = new_game(client, FAST["elemental_duel"], seat=0, seed=2)
    view = play_out(client, id, random.Random(3))
    others = [e["text"] for e in view["log"] if e["player"] == 1]
    assert "hide (hidden)" in others or "defend (hidden)" in others
    assert not [t for t in others if re.fullmatch(r"(hide|defend) \w+( \d)?", t)], others
    record = GameRecord.from_json(client.get(f"/api/games/{id}/record").text)
    assert any(re.fullmatch(r"hide \w+( \d)?", m.text) for m in record.moves if m.player == 1)


def test_ids_are_long_random_tokens(client):
    ids = [new_game(client, "elements", seed=1) for _ in range(20)]
    assert len(set(ids)) == len(ids)
    for id in ids:
        # secrets.token_urlsafe(16): 128 random bits.
        assert re.fullmatch(r"[A-Za-z0-9_-]{22}", id), id
    assert len({id[:4] for id in ids}) > 15


def test_the_games_kept_are_capped_the_oldest_finished_go_first():
    app = create_app(max_games=3)
    client = TestClient(app)
    first, second, third = (new_game(client, FAST["elements"], seed=s) for s in range(3))
    play_out(client, second, random.Random(0))
    fourth = new_game(client, FAST["elements"])
    assert client.get(f"/api/games/{second}").status_code == 404
    assert {first, third, fourth} == set(app.state.tables)
    client.get(f"/api/games/{first}")  # touched: the one left alone the longest is third
    new_game(client, FAST["elements"])
    assert client.get(f"/api/games/{third}").status_code == 404
    assert client.get(f"/api/games/{first}").status_code == 200


def test_malformed_requests_get_a_4xx_and_a_one_line_error(client):
    id = new_game(client, "elements", seed=1)  # seat 0; chance moves first
    over = new_game(client, FAST["elements"], seed=2)
    play_out(client, over, random.Random(0))
    json_headers = {"content-type": "application/json"}
    cases = [
        # creating a game
        ("POST", "/api/games", {"content": b"{not json", "headers": json_headers}, 400),
        ("POST", "/api/games", {"content": b"\xff\xfe", "headers": json_headers}, 400),
        ("POST", "/api/games", {"content": b"[" * 5000 + b"]" * 5000, "headers": json_headers}, 400),
        ("POST", "/api/games", {"content": b"", "headers": json_headers}, 400),
        ("POST", "/api/games", {"content": b'{"game": "elements"}'}, 415),
        ("POST", "/api/games", {"content": b'{"game": "elements"}', "headers": {"content-type": "text/plain"}}, 415),
        ("POST", "/api/games", {"content": b" " * 20000, "headers": json_headers}, 413),
        ("POST", "/api/games", {"json": ["elements"]}, 422),
        ("POST", "/api/games", {"json": "elements"}, 422),
        ("POST", "/api/games", {"json": {}}, 422),
        ("POST", "/api/games", {"json": {"game": None}}, 422),
        ("POST", "/api/games", {"json": {"game": 3}}, 422),
        ("POST", "/api/games", {"json": {"game": ""}}, 422),
        ("POST", "/api/games", {"json": {"game": "chess"}}, 422),
        ("POST", "/api/games", {"json": {"game": "kuhn_poker"}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements(single_round=yes)"}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements(hand_size=100)"}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements((("}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements(" + "x=1," * 200 + ")"}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "sead": 1}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seat": 2}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seat": -1}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seat": True}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seat": "0"}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seat": 0.5}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": "random"}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": []}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": ["random", "random"]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": [None]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": ["nobody"]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": [""]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": ["mcts:simz=3"]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": ["mcts:sims=-3"]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": ["cfr:policy=/nonexistent.npz"]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "bots": ["random:" + "x" * 500]}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seed": -1}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seed": 2**70}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seed": 1.5}}, 422),
        ("POST", "/api/games", {"json": {"game": "elements", "seed": "1"}}, 422),
        ("PUT", "/api/games", {}, 405),
        ("DELETE", f"/api/games/{id}", {}, 405),
        # describing a game string
        ("GET", "/api/describe", {}, 422),
        ("GET", "/api/describe?game=", {}, 422),
        ("GET", "/api/describe?game=elements(deck=7_7)", {}, 422),
        ("GET", "/api/describe?game=" + "e" * 1000, {}, 422),
        # a game that does not exist
        ("GET", "/api/games/nope", {}, 404),
        ("GET", "/api/games/" + id[:-1], {}, 404),
        ("POST", "/api/games/nope/move", {"json": {"action": 0}}, 404),
        ("POST", "/api/games/nope/advance", {}, 404),
        ("GET", "/api/games/nope/record", {}, 404),
        ("GET", "/api/games/%00%ff/record", {}, 404),
        ("GET", "/api/nothing", {}, 404),
        ("GET", "/static/../app.py", {}, 404),
        ("GET", "/static/nothing.js", {}, 404),
        # moves
        ("POST", f"/api/games/{id}/move", {"json": {"action": 0}}, 409),  # chance is to move
        ("POST", f"/api/games/{id}/move", {"content": b"{", "headers": json_headers}, 400),
        ("POST", f"/api/games/{id}/move", {"json": {}}, 422),
        ("POST", f"/api/games/{id}/move", {"json": {"action": 0, "also": 1}}, 422),
        ("POST", f"/api/games/{id}/move", {"json": {"action": "0"}}, 422),
        ("POST", f"/api/games/{id}/move", {"json": {"action": True}}, 422),
        ("POST", f"/api/games/{id}/move", {"json": {"action": 1.0}}, 422),
        ("POST", f"/api/games/{id}/move", {"json": {"action": None}}, 422),
        ("POST", f"/api/games/{id}/move", {"json": [0]}, 422),
        ("POST", f"/api/games/{over}/move", {"json": {"action": 0}}, 409),
        ("POST", f"/api/games/{over}/advance", {}, 409),
        ("GET", f"/api/games/{id}/record", {}, 409),  # not over: the record holds hidden cards
    ]
    for method, path, kwargs, status in cases:
        answer = client.request(method, path, **kwargs)
        assert answer.status_code == status, (method, path, kwargs, answer.status_code, answer.text)
        error = answer.json()["error"]
        assert error and "\n" not in error, (path, error)
    # The person's turn: an illegal or out-of-range action, and advance, are refused.
    view = client.get(f"/api/games/{id}").json()
    while not view["your_turn"]:
        view = client.post(f"/api/games/{id}/advance").json()
    legal = {m["action"] for m in view["legal"]}
    illegal = next(a for a in range(10) if a not in legal)
    for action, status in [(illegal, 409), (-1, 422), (10, 422), (2**80, 422)]:
        answer = client.post(f"/api/games/{id}/move", json={"action": action})
        assert answer.status_code == status, (action, answer.text)
    assert client.post(f"/api/games/{id}/advance").status_code == 409
    assert client.get(f"/api/games/{id}").json() == view  # nothing changed


@pytest.mark.slow
def test_a_slow_bot_leaves_the_server_and_other_games_responsive():
    """The bot's search runs in a worker thread without the GIL: while it thinks, the
    same game's view and another game's answer at once."""
    with serving() as url, httpx.Client(base_url=url, timeout=120) as http:
        def create(game, bots, seat=0):
            answer = http.post("api/games", json={"game": game, "seat": seat, "bots": bots, "seed": 1})
            return answer.json()["id"]

        http.get("api/games")  # the catalog is built once, on first asking
        slow = create("elements", ["ismcts:seconds=4"], seat=1)
        other = create("elementos", ["random"])
        view = http.get(f"api/games/{slow}").json()
        while view["to_move"] != 0:  # chance deals until the bot, seat 0, is to move
            view = http.post(f"api/games/{slow}/advance").json() if not view["your_turn"] else \
                http.post(f"api/games/{slow}/move", json={"action": view["legal"][0]["action"]}).json()
        def think():
            with httpx.Client(base_url=url, timeout=120) as own:
                own.post(f"api/games/{slow}/advance")

        thinking = threading.Thread(target=think)
        thinking.start()
        time.sleep(0.2)
        second = http.post(f"api/games/{slow}/advance")
        answers = []
        # Asked again and again while the bot thinks: a search holding the GIL would hold
        # up some of these answers for as long as it runs between two returns to Python.
        while thinking.is_alive():
            for path in [f"api/games/{other}", f"api/games/{slow}", "api/games"]:
                start = time.perf_counter()
                answer = http.get(path)
                answers.append((path, answer.status_code, time.perf_counter() - start))
            time.sleep(0.05)
        thinking.join()
        assert len(answers) >= 15, f"the bot finished too soon to tell ({len(answers)} answers)"
        assert all(status == 200 for _, status, _ in answers), answers
        slowest = max(seconds for _, _, seconds in answers)
        assert slowest < 0.5, f"an answer took {slowest:.2f} s while the bot thought"
        assert second.status_code == 409 and "already" in second.json()["error"]
        view = http.get(f"api/games/{slow}").json()
        assert view["log"][-1]["who"] == "p0 ismcts:seconds=4"


def test_the_page_loads_nothing_from_elsewhere(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    files = {path.name: path.read_text() for path in STATIC.iterdir()}
    assert set(files) == {"index.html", "app.js", "style.css"}
    for name, text in files.items():
        assert client.get(f"/static/{name}").status_code == 200 or name == "index.html"
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, flags=re.I), name
        assert "@import" not in text and "url(" not in text, name


def test_a_request_naming_another_host_is_refused():
    client = TestClient(create_app(allowed_hosts=["127.0.0.1", "localhost"]), base_url="http://localhost")
    assert client.get("/api/games").status_code == 200
    assert client.get("/api/games", headers={"host": "attacker.example"}).status_code == 400


# --- the command ------------------------------------------------------------------------------

def test_serve_without_the_web_extra_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if not installed: importing it fails
    assert cli.main(["serve"]) == 2
    assert capsys.readouterr().err == 'elements-ai: error: the web page needs the web extra: ' \
                                      'pip install "elements-ai[web]"\n'


def test_serve_on_a_port_in_use_or_out_of_range_is_one_line(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--port", str(port)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"elements-ai: error: cannot listen on 127.0.0.1:{port}: ") and "\n" not in err
    assert cli.main(["serve", "--port", "70000"]) == 2
    assert capsys.readouterr().err.strip() == "elements-ai: error: --port must be from 0 to 65535, got 70000"


@pytest.mark.slow
def test_serve_serves_the_page_on_this_machine_until_ctrl_c():
    process = subprocess.Popen([*PACKAGE, "serve", "--port", "0"], env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        match = re.fullmatch(r"elements-ai serve: the page is at (http://127\.0\.0\.1:\d+/) \(Ctrl-C stops\)\n", line)
        assert match, line + process.stderr.read() if process.poll() is not None else line
        url = match.group(1)
        assert "elements-ai" in httpx.get(url).text
        catalog = httpx.get(url + "api/games").json()
        assert len(catalog["games"]) == len(elements_ai.GAMES)
        assert httpx.get(url + "api/games", headers={"host": "rebound.example"}).status_code == 400
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode in (0, 130), err
    assert "Traceback" not in err, err


def test_the_json_errors_are_json_even_for_unknown_routes(client):
    answer = client.get("/nowhere")
    assert answer.status_code == 404 and json.loads(answer.text)["error"]


# --- the page and the server: versions, caps, stopping, preparing, widths, what just happened ------

def test_a_move_chosen_on_a_stale_view_is_refused_and_the_current_one_is_played(client):
    id = new_game(client, FAST["elements"], seed=4)
    view = client.get(f"/api/games/{id}").json()
    while not view["your_turn"]:
        view = client.post(f"/api/games/{id}/advance").json()
    old = view["version"]
    assert old == view["moves"] and old > 0
    answer = client.post(f"/api/games/{id}/move", json={"action": view["legal"][0]["action"], "version": old - 1})
    assert answer.status_code == 409 and "moved on" in answer.json()["error"], answer.text
    assert client.get(f"/api/games/{id}").json()["moves"] == old  # nothing played
    answer = client.post(f"/api/games/{id}/move", json={"action": view["legal"][0]["action"], "version": old})
    assert answer.status_code == 200 and answer.json()["version"] == old + 1
    answer = client.post(f"/api/games/{id}/move", json={"action": 0, "version": "x"})
    assert answer.status_code == 422


@pytest.mark.parametrize("spec, words", [("ismcts:sims=1000000000", "1000000000 simulations a move, over 20000"),
                                         ("mcts:sims=5000,worlds=8", "40000 simulations a move, over 20000"),
                                         ("ismcts:seconds=60", "60 seconds a move, over 10")])
def test_a_bot_stronger_than_the_cap_is_refused_in_one_line(client, spec, words):
    answer = client.post("/api/games", json={"game": "elements", "bots": [spec]})
    assert answer.status_code == 422 and answer.json()["error"] == f"bot spec {spec!r}: {words}", answer.text
    assert client.get("/api/games").json()["limits"] == {"sims": 20000, "seconds": 10.0}


def test_a_stopped_game_makes_no_more_moves(client):
    id = new_game(client, FAST["elements"], seed=2)
    view = client.post(f"/api/games/{id}/stop").json()
    assert view["stopped"] and not view["waiting"] and not view["legal"]
    assert client.post(f"/api/games/{id}/advance").json() == {"error": "the game was stopped"}
    assert client.post(f"/api/games/{id}/move", json={"action": 0}).status_code == 409


def test_the_bots_are_prepared_when_the_game_starts():
    app = create_app()
    client = TestClient(app)
    id = new_game(client, FAST["elements"], bots=["ismcts:sims=50"], seed=1)
    table = app.state.tables[id]
    assert table.ready.wait(120)
    assert client.get(f"/api/games/{id}").json()["preparing"] is False


def test_the_picture_is_drawn_for_the_width_the_page_asks(client):
    id = new_game(client, FAST["elementum"], seed=1)
    for width in (390, 1280):
        view = client.get(f"/api/games/{id}", params={"width": width}).json()
        assert re.match(rf'<svg [^>]*width="{width}"', view["svg"]), view["svg"][:200]
    answer = client.get(f"/api/games/{id}", params={"width": "10"})
    assert answer.status_code == 422 and "width must be a number from 320" in answer.json()["error"]


def test_the_log_says_what_a_move_did_and_the_picture_marks_each_seats_last_move(client):
    id = new_game(client, "elements", seed=5)
    view = play_out(client, id, random.Random(6))
    texts = [e["text"] for e in view["log"] if e["player"] >= 0]
    takes = [t for t in texts if t.startswith("take")]
    assert takes and all(re.fullmatch(r"take: takes the [1-6] from the display", t) for t in takes), takes
    ends = [t for t in texts if t.startswith(("knock", "yield"))]
    assert ends and all("the round ends" in t and re.search(r"score you \d+, Player 1 \d+$", t) for t in ends)
    knocks = [t for t in ends if t.startswith("knock")]
    assert all(re.search(r"you: sum \d+, hand [\d ]+|none; Player 1: sum \d+, hand", t) for t in knocks), knocks
    said = words(view["svg"])
    last = [e["text"] for e in view["log"] if e["player"] == 1][-1]
    assert f"last move: {last}" in said, said


def test_a_client_that_goes_away_mid_request_is_one_log_line(caplog):
    import logging

    with serving() as url, caplog.at_level(logging.INFO):
        host, port = url.removeprefix("http://").rstrip("/").split(":")
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 500\r\n\r\n{\"game\": ")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not caplog.records:
            time.sleep(0.05)
        time.sleep(0.3)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["the client went away during POST /api/games"], lines
    assert not any(r.exc_info for r in caplog.records)


@pytest.mark.slow
def test_ctrl_c_ends_the_server_within_two_seconds_while_a_bot_thinks():
    process = subprocess.Popen([*PACKAGE, "serve", "--port", "0"], env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    thinking = None
    try:
        url = re.search(r"(http://\S+/)", process.stdout.readline()).group(1)
        game = {"game": "elements", "seat": 1, "bots": ["ismcts:seconds=9"], "seed": 1}
        id = httpx.post(url + "api/games", json=game).json()["id"]
        view = httpx.get(url + f"api/games/{id}").json()
        while view["to_move"] != 0:  # chance deals, the person moves, until the bot is to move
            view = (httpx.post(url + f"api/games/{id}/move", json={"action": view["legal"][0]["action"]})
                    if view["your_turn"] else httpx.post(url + f"api/games/{id}/advance", timeout=60)).json()

        def think():
            with contextlib.suppress(httpx.HTTPError):
                httpx.post(url + f"api/games/{id}/advance", timeout=60)

        thinking = threading.Thread(target=think, daemon=True)
        thinking.start()
        time.sleep(1.0)
        assert thinking.is_alive(), "the bot did not think long enough to tell"
    finally:
        start = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert time.monotonic() - start < 2, (out, err)
    assert process.returncode in (0, 130) and "Traceback" not in err, err


def test_the_engine_text_is_shown_when_asked(client):
    id = new_game(client, FAST["elements"], seed=2)
    plain = client.get(f"/api/games/{id}").json()["svg"]
    debug = client.get(f"/api/games/{id}", params={"debug": "1"}).json()["svg"]
    assert "observer p0" not in words(plain) and "observer p0" in words(debug)
