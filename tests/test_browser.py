"""The web page in a real browser: Debian's headless chromium, driven through Debian's
chromedriver by selenium (told to download nothing), plays whole games of elements
and of elementos against random bots by clicking the moves, on the picture where it
has a place for them, until the page shows the result; and every game on a phone
(390×844) and a desktop (1280×900), a screenshot of each, with nothing scrolling
sideways, no text under 12 px, no words drawn over each other and tap targets of
40 px. ``ELEMENTS_AI_SCREENSHOTS=DIR`` keeps the screenshots in DIR."""

from __future__ import annotations

import os
import random
import re
import time

import httpx
import pytest

import elements_ai
from elements_ai.record import GameRecord
from elements_ai.web.app import create_app, serving

# Both games in one worker under pytest-xdist: one browser and one server for the module.
pytestmark = pytest.mark.xdist_group("browser")

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
GAME_SECONDS = 120  # a whole game; it takes a few seconds


def missing() -> list[str]:
    return [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """The driven browser, or ``None`` without chromium: each test then fails saying so
    (never a skip, which would pass unseen)."""
    if missing():
        yield None
        return
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--window-size=1300,1100", f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "SEVERE"})
    with pytest.MonkeyPatch.context() as patch:
        # Selenium Manager would otherwise look for (and fetch) a browser and a driver.
        patch.setenv("SE_OFFLINE", "true")
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        try:
            yield driver
        finally:
            driver.quit()


@pytest.fixture(scope="module")
def url():
    with serving() as address:
        yield address


def wait(driver, condition, what: str, seconds: float = GAME_SECONDS):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.02).until(condition)
    except TimeoutException:
        page = driver.execute_script(
            "const text = (id) => document.getElementById(id).textContent;"
            "return {status: text('status'), state: document.getElementById('status').dataset.state,"
            " busy: document.body.dataset.busy, error: text('play-error') + text('setup-error'),"
            " game: document.body.dataset.game, address: location.hash,"
            " play_hidden: document.getElementById('play').hidden,"
            " log: Array.from(document.querySelectorAll('#log li'), li => li.textContent).slice(-5)};")
        raise AssertionError(f"waited {seconds} s for {what}; the page: {page}; "
                             f"its console: {driver.get_log('browser')}") from None


def type_into(driver, element_id: str, text: str) -> None:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(text)


def bots_set(driver, spec: str) -> bool:
    """Types ``spec`` into every bot field that lacks it; True once all hold it. The
    fields are drawn anew whenever an answer about the game string comes back, so a
    field can go (stale) or be not yet shown (not interactable) under our hands: then
    False, and the wait tries again (the fields are drawn by then: the game string was checked)."""
    from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        for field in driver.find_elements(By.CSS_SELECTOR, "#bots input.bot"):
            if field.get_attribute("value") != spec:
                field.clear()
                field.send_keys(spec)
        fields = driver.find_elements(By.CSS_SELECTOR, "#bots input.bot")
        return all(field.get_attribute("value") == spec for field in fields)  # none in a solo game
    except (ElementNotInteractableException, StaleElementReferenceException):
        return False


def set_up(driver, url, game_name: str, game: str, seed: int) -> None:
    """Chooses the game from the list, types its game string, random bots, a seed, no delay; starts."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(url)
    wait(driver, lambda d: d.find_element(By.ID, "start").is_enabled(), "the list of games", 60)
    Select(driver.find_element(By.ID, "game")).select_by_value(game_name)
    type_into(driver, "game-string", game)
    title = elements_ai.load_game(game).get_type().long_name
    players = elements_ai.load_game(game).num_players()
    wait(driver, lambda d: d.find_element(By.ID, "game-info").text.startswith(f"{title}, {players} player")
         and d.find_element(By.ID, "start").is_enabled(), "the game string checked", 60)
    wait(driver, lambda d: bots_set(d, "random"), "every bot field set to random", 60)
    type_into(driver, "seed", str(seed))
    Select(driver.find_element(By.ID, "pace")).select_by_value("0")

    def started(d) -> bool:
        from selenium.common.exceptions import ElementNotInteractableException

        # The typed game string is checked again after a pause, the button off meanwhile:
        # a click then does nothing, and is made again. A click that lands as the setup
        # hides, the game already starting from the one before, is refused: look again.
        if d.find_element(By.ID, "play").is_displayed():
            return True
        if d.find_element(By.ID, "start").is_enabled():
            try:
                d.find_element(By.ID, "start").click()
            except ElementNotInteractableException:
                pass
        return False

    wait(driver, started, "the game to start", 60)


def status(driver) -> tuple[str, str]:
    """The page's state (your-turn, waiting, over; busy while it asks the server) and its move count."""
    state, moves, error = driver.execute_script(
        "const s = document.getElementById('status');"
        "return [document.body.dataset.busy === '1' ? 'busy' : s.dataset.state, s.dataset.moves || '',"
        " document.getElementById('play-error').textContent];")
    assert not error, f"the page says: {error}"
    return state, moves


def play_whole_game(driver, url, game_name: str, game: str, seed: int) -> dict:
    """Plays random legal moves by clicking them until the game is over; returns counts."""
    from selenium.webdriver.common.by import By

    set_up(driver, url, game_name, game, seed)
    rng = random.Random(seed)
    clicks = {"picture": 0, "button": 0, "choice": 0}
    deadline = time.monotonic() + GAME_SECONDS
    while True:
        assert time.monotonic() < deadline, f"{game}: not over after {GAME_SECONDS} s"
        state, moves = wait(driver, lambda d: status(d)[0] in ("your-turn", "over") and status(d),
                            "the person's turn or the end")
        if state == "over":
            return clicks
        legal = driver.execute_script(
            "return Array.from(document.querySelectorAll('#moves button.move'),"
            " b => [Number(b.dataset.action), JSON.parse(b.dataset.path), b.textContent]);")
        assert legal, "the person's turn without moves"
        action, path, text = rng.choice(legal)
        if path:
            for region in path:
                places = driver.find_elements(By.CSS_SELECTOR, f'#board [data-region="{region}"].live')
                assert places, f"{text}: {region} is not clickable on the picture"
                places[0].click()
                clicks["picture"] += 1
            # Several moves end at the same place (play 6 or discard 6): the page asks which.
            choice = driver.find_elements(By.CSS_SELECTOR, f'#choices button[data-action="{action}"]')
            if choice:
                choice[0].click()
                clicks["choice"] += 1
        else:
            driver.find_element(By.CSS_SELECTOR, f'#moves button[data-action="{action}"]').click()
            clicks["button"] += 1
        wait(driver, lambda d, before=moves: status(d)[1] != before or status(d)[0] == "over",
             f"the page to play {text}")


def check_the_end(driver, game: str, runs: bool = False) -> None:
    """The result, the record, the log (``runs``: with runs of hidden deals collapsed)."""
    from selenium.webdriver.common.by import By

    result = driver.find_element(By.ID, "result")
    assert result.is_displayed() and result.text.startswith(("You ", "A draw")), result.text
    assert not driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
    assert "Game over" in driver.find_element(By.ID, "board").text
    link = driver.find_element(By.ID, "download")
    assert link.is_displayed() and link.get_attribute("href").endswith("/record")
    record = GameRecord.from_json(httpx.get(link.get_attribute("href")).text)
    moves = int(driver.find_element(By.ID, "status").get_attribute("data-moves"))
    assert len(record.moves) == moves and record.returns is not None and "human" in record.seats
    assert record.game == str(elements_ai.load_game(game))
    # Runs of one entry (hidden deals) are one line, "..., 6 times", as in the terminal.
    log = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#log li")]
    counted = [int(m.group(1)) if (m := re.search(r", (\d+) times$", text)) else 1 for text in log]
    assert sum(counted) == moves and any(n > 1 for n in counted) == runs, log
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def needs(browser):
    if browser is None:
        pytest.fail(f"{' and '.join(missing())} not found: the browser test needs Debian's chromium and "
                    f"chromium-driver (apt-get install chromium chromium-driver, as .ci/run does)")
    return browser


@pytest.mark.slow
def test_a_whole_game_of_elements_clicked_in_the_browser(browser, url):
    browser = needs(browser)
    clicks = play_whole_game(browser, url, "elements", "elements", seed=1)
    check_the_end(browser, "elements", runs=True)
    assert clicks["picture"] > 0, clicks


@pytest.mark.slow
def test_a_whole_game_of_elementos_clicked_in_the_browser(browser, url):
    browser = needs(browser)
    clicks = play_whole_game(browser, url, "elementos", "elementos(max_moves=40)", seed=2)
    check_the_end(browser, "elementos(max_moves=40)")
    assert clicks["picture"] > 0 and clicks["button"] == 0, clicks


SIZES = {"phone": (390, 844), "desktop": (1280, 900)}
SCREEN_GAMES = {"elements": "elements", "elements1997": "elements1997(players=4)",
                "elementum": "elementum(players=3)", "elemental_duel": "elemental_duel", "elementos": "elementos"}

# Measured in the page as drawn: sideways scrolling, the smallest text (an SVG's words
# at the size the picture is shown), SVG words whose boxes overlap, and the live places
# and buttons smaller than a finger.
MEASURE = """
const small = [], overlaps = [], taps = [];
for (const element of document.querySelectorAll("body *")) {
  const own = Array.from(element.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own || !element.getClientRects().length) continue;
  let size = parseFloat(getComputedStyle(element).fontSize);
  if (element instanceof SVGElement) size *= element.ownerSVGElement.getScreenCTM().a;
  if (size < 11.95) small.push([element.textContent.slice(0, 30), size]);
}
const boxes = Array.from(document.querySelectorAll("#board svg text"),
                         (t) => [t.textContent, t.getBoundingClientRect()]);
for (let i = 0; i < boxes.length; i++) {
  for (let j = i + 1; j < boxes.length; j++) {
    const [a, p] = boxes[i], [b, q] = boxes[j];
    const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
    const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (w > 1 && h > 1) overlaps.push([a, b]);
  }
}
for (const element of document.querySelectorAll("#board .region.live, button")) {
  const box = element.getBoundingClientRect();
  if (box.width && (box.width < 39.5 || box.height < 39.5)) {
    taps.push([element.textContent.slice(0, 30), box.width, box.height]);
  }
}
return {scroll: document.documentElement.scrollWidth - window.innerWidth, small, overlaps, taps,
        svg: document.querySelectorAll("#board svg text").length};
"""


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
def test_every_game_reads_on_a_phone_and_a_desktop(browser, url, size, tmp_path):
    from selenium.webdriver.common.by import By

    browser = needs(browser)
    width, height = SIZES[size]
    shots = os.environ.get("ELEMENTS_AI_SCREENSHOTS") or str(tmp_path)
    os.makedirs(shots, exist_ok=True)
    browser.set_window_size(width, height)
    try:
        # The page's own width: the window's less its frame, which headless chromium has none of.
        assert browser.execute_script("return window.innerWidth") == width
        # The setup first: it too fits the screen and reads.
        browser.get(url)
        wait(browser, lambda d: d.find_element(By.ID, "start").is_enabled(), "the list of games", 60)
        measured = browser.execute_script(MEASURE)
        assert measured["scroll"] <= 0 and not measured["small"] and not measured["taps"], (size, measured)
        for name, game in SCREEN_GAMES.items():
            set_up(browser, url, name, game, seed=3)
            wait(browser, lambda d: status(d)[0] in ("your-turn", "over"), f"{game}: the person's turn")
            measured = browser.execute_script(MEASURE)
            path = os.path.join(shots, f"{name}-{size}.png")
            assert browser.save_screenshot(path) and os.path.getsize(path) > 0
            assert measured["svg"] > 10, (game, measured)
            assert measured["scroll"] <= 0, (game, size, "the page scrolls sideways", measured["scroll"])
            assert not measured["small"], (game, size, "text under 12 px", measured["small"][:5])
            assert not measured["overlaps"], (game, size, "words over each other", measured["overlaps"][:5])
            assert not measured["taps"], (game, size, "tap targets under 40 px", measured["taps"][:5])
            title = browser.find_element(By.ID, "game-shown")
            assert title.size["width"] <= width
    finally:
        browser.set_window_size(1300, 1100)


@pytest.mark.slow
def test_the_page_follows_its_address_and_the_back_button(browser, url):
    from selenium.webdriver.common.by import By

    browser = needs(browser)
    shown = "return [document.body.dataset.game || '', document.getElementById('play').hidden]"
    set_up(browser, url, "elements", "elements(single_round=true)", seed=5)
    wait(browser, lambda d: d.execute_script(shown)[0], "the first game shown", 60)
    first = browser.execute_script(shown)[0]
    assert browser.current_url.endswith(f"#game={first}")
    browser.find_element(By.ID, "new").click()
    wait(browser, lambda d: d.execute_script(shown) == ["", True], "the setup after New game", 30)
    browser.back()
    wait(browser, lambda d: d.execute_script(shown) == [first, False], "the game again after Back", 30)
    # A second game, then the first one's address typed: the page shows the first.
    set_up(browser, url, "elements", "elements(single_round=true)", seed=6)
    wait(browser, lambda d: d.execute_script(shown)[0] not in ("", first), "the second game shown", 60)
    browser.execute_script(f"location.hash = 'game={first}'")
    wait(browser, lambda d: d.execute_script(shown) == [first, False], "the first game from its address", 30)


@pytest.mark.slow
def test_a_second_tab_shows_the_game_as_it_now_stands(browser, url):
    from selenium.webdriver.common.by import By

    browser = needs(browser)
    set_up(browser, url, "elementos", "elementos(max_moves=40)", seed=4)
    wait(browser, lambda d: status(d)[0] == "your-turn", "the person's turn", 60)
    first, address = browser.current_window_handle, browser.current_url
    before = status(browser)[1]
    browser.switch_to.new_window("tab")
    try:
        browser.get(address)
        wait(browser, lambda d: status(d) == ("your-turn", before), "the same game in a second tab", 60)
        browser.find_element(By.CSS_SELECTOR, "#moves button.move").click()
        wait(browser, lambda d: status(d)[0] == "your-turn" and status(d)[1] != before, "the move and the reply", 60)
        now = status(browser)[1]
    finally:
        browser.close()
        browser.switch_to.window(first)
    # The first tab, left on the old view, looks again and shows the game as it now stands.
    wait(browser, lambda d: status(d)[1] == now, "the first tab to catch up", 30)


@pytest.mark.slow
def test_a_game_asked_for_twice_at_once_starts_once(browser):
    """Start pressed twice before the answer (a double click, or a press as the game
    string's check comes back and turns the button on again) starts one game, not two."""
    from selenium.webdriver.common.by import By

    browser = needs(browser)
    app = create_app()
    with serving(app) as address:
        browser.get(address)
        wait(browser, lambda d: d.find_element(By.ID, "start").is_enabled(), "the list of games", 60)
        browser.execute_script("const form = document.getElementById('new-game');"
                               " form.requestSubmit(); form.requestSubmit();")
        wait(browser, lambda d: d.execute_script("return document.body.dataset.game || ''"), "the game shown", 60)
        wait(browser, lambda d: status(d)[0] != "busy", "the page at rest", 30)
        assert len(app.state.tables) == 1, sorted(app.state.tables)
        assert browser.current_url.endswith("#game=" + next(iter(app.state.tables)))
