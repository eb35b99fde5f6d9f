// The page of `elements-ai serve`: set up a game, then play it through the JSON API.
"use strict";

const $ = (id) => document.getElementById(id);

let catalog = null; // GET /api/games: the games, their variants and the bots
let botSpecs = {}; // seat -> the spec typed for it, kept across changes of game
let gameId = null;
let view = null; // the game as the server last showed it
let prefix = []; // the picture's regions clicked so far towards a move
let timer = null;
let generation = 0; // bumped when a game is left, so its pending steps stop
let watcher = null; // looks again at a game waiting for this person: another tab may move it
let starting = false; // a new game is being asked for: one at a time, or two would start
const WATCH_MS = 2500;

// The picture is drawn for the board's width, so that it reads at its own size on a phone.
function boardWidth() {
  const width = Math.floor($("board").clientWidth || $("play").clientWidth || 900);
  return Math.max(320, Math.min(4000, width));
}

function gamePath(id, action = "") {
  const debug = !action && $("debug").checked ? "&debug=1" : "";
  return `/api/games/${encodeURIComponent(id)}${action ? "/" + action : ""}?width=${boardWidth()}${debug}`;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  document.body.dataset.busy = "1";
  try {
    const response = await fetch(path, options);
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = { error: `${response.status} ${response.statusText}` };
    }
    if (!response.ok) {
      const error = new Error(data && data.error ? data.error : `${response.status}`);
      error.status = response.status;
      throw error;
    }
    return data;
  } finally {
    document.body.dataset.busy = "";
  }
}

// --- setting up a game -----------------------------------------------------------------

function option(value, text, title) {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = text;
  if (title) element.title = title;
  return element;
}

function currentGame() {
  return catalog.games.find((g) => g.name === $("game").value);
}

function fillVariants() {
  const game = currentGame();
  const select = $("variant");
  select.replaceChildren(...game.variants.map((v) => option(v.game, v.name, v.game)));
  $("game-string").value = game.variants[0].game;
  describe();
}

let describing = null;
let described = null; // the answer of /api/describe for the game string shown

async function describe() {
  const text = $("game-string").value.trim();
  const asked = (describing = text);
  $("start").disabled = true;
  try {
    const info = await api("GET", `/api/describe?game=${encodeURIComponent(text)}`);
    if (asked !== describing) return;
    described = info;
    $("setup-error").textContent = "";
    const game = catalog.games.find((g) => g.name === info.name);
    const params = game.params.map((p) => `${p.name} (${p.allowed}; default ${JSON.stringify(p.default)})`);
    $("game-info").textContent = `${info.title}, ${info.players} player${info.players > 1 ? "s" : ""}. `
      + `Parameters: ${params.join("; ")}.`;
    fillSeats(info.players);
    $("start").disabled = starting;
  } catch (error) {
    if (asked !== describing) return;
    described = null;
    $("setup-error").textContent = error.message;
    $("game-info").textContent = "";
  }
}

function fillSeats(players) {
  const seat = $("seat");
  const previous = Number(seat.value || 0);
  seat.replaceChildren(...Array.from({ length: players }, (_, p) =>
    option(String(p), p === 0 ? "player 0 (first)" : `player ${p}`)));
  seat.value = String(previous < players ? previous : 0);
  fillBots();
}

function fillBots() {
  const box = $("bots");
  for (const input of box.querySelectorAll("input")) botSpecs[input.dataset.seat] = input.value;
  box.querySelectorAll("label, p").forEach((element) => element.remove());
  const players = described ? described.players : 0;
  const mine = Number($("seat").value);
  if (players === 1) {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = "A solo game: no bots.";
    box.append(note);
  }
  for (let p = 0; p < players; p++) {
    if (p === mine) continue;
    const label = document.createElement("label");
    label.append(`player ${p} `);
    const input = document.createElement("input");
    input.setAttribute("list", "bot-specs");
    input.className = "bot";
    input.dataset.seat = String(p);
    input.spellcheck = false;
    input.size = 22;
    input.value = botSpecs[p] !== undefined ? botSpecs[p] : catalog.default_bot;
    label.append(input);
    box.append(label);
  }
}

async function start(event) {
  event.preventDefault();
  if (starting) return;
  $("setup-error").textContent = "";
  const bots = Array.from($("bots").querySelectorAll("input.bot"), (input) => input.value.trim());
  const request = { game: $("game-string").value.trim(), seat: Number($("seat").value), bots };
  const seed = $("seed").value.trim();
  if (seed !== "") {
    if (!/^\d+$/.test(seed)) {
      $("setup-error").textContent = "the seed is a whole number (or empty: a random one)";
      return;
    }
    request.seed = Number(seed);
  }
  starting = true;
  $("start").disabled = true;
  try {
    const answer = await api("POST", "/api/games", request);
    // A new history entry: Back returns to the setup, Forward to the game (see route).
    history.pushState(null, "", `#game=${answer.id}`);
    await open(answer.id);
  } catch (error) {
    $("setup-error").textContent = error.message;
  } finally {
    starting = false;
    $("start").disabled = false;
  }
}

// --- playing ---------------------------------------------------------------------------

async function open(id) {
  const mine = ++generation;
  clearTimeout(timer);
  clearInterval(watcher);
  gameId = id;
  view = null;
  prefix = [];
  $("log").replaceChildren();
  $("setup").hidden = true;
  $("play").hidden = false;
  $("play-error").textContent = "";
  try {
    // Left meanwhile (New game, Back): the answer is for a game no longer shown.
    const next = await api("GET", gamePath(id));
    if (mine === generation) show(next);
  } catch (error) {
    if (mine === generation) $("play-error").textContent = error.message;
  }
}

function close() {
  generation += 1;
  document.body.dataset.game = "";
  clearTimeout(timer);
  clearInterval(watcher);
  gameId = null;
  view = null;
  $("play").hidden = true;
  $("setup").hidden = false;
}

function leave() {
  close();
  history.pushState(null, "", location.pathname);
}

// The page follows its address: #game=ID shows that game (typed, or reached by Back
// and Forward), none the setup.
function route() {
  const wanted = new URLSearchParams(location.hash.slice(1)).get("game");
  if (wanted && wanted !== gameId) open(wanted);
  else if (!wanted && gameId !== null) close();
}

function show(next) {
  view = next;
  prefix = [];
  document.body.dataset.game = view.id;
  $("title").textContent = view.title;
  $("game-shown").textContent = view.game;
  const status = $("status");
  status.dataset.moves = String(view.moves);
  if (view.finished) {
    status.dataset.state = "over";
    status.textContent = view.result;
  } else if (view.stopped) {
    status.dataset.state = "stopped";
    status.textContent = "Stopped: no more moves are made in this game. Start a new one.";
  } else if (view.your_turn) {
    status.dataset.state = "your-turn";
    status.textContent = "Your move: click it on the picture or below.";
  } else {
    status.dataset.state = "waiting";
    status.textContent = view.preparing ? "Preparing the bots, first time only..."
      : view.to_move < 0 ? "Chance is dealing..." : `${view.mover} is thinking...`;
  }
  $("stop").hidden = !(view.waiting && view.to_move >= 0);
  clearInterval(watcher);
  if (view.your_turn) {
    const mine = generation;
    watcher = setInterval(() => look(mine), WATCH_MS);
  }
  $("board").innerHTML = view.svg;
  $("choices").replaceChildren();
  showMoves();
  showLog();
  $("end").hidden = !view.finished;
  if (view.finished) {
    $("result").textContent = view.result;
    $("scores").textContent = view.scores || "";
    const link = $("download");
    link.href = `/api/games/${encodeURIComponent(view.id)}/record`;
    link.download = `${view.game.split("(")[0]}-${view.id.slice(0, 8)}.json`;
  }
  markRegions();
  if (view.waiting) schedule();
}

function showMoves() {
  const box = $("moves");
  box.replaceChildren(...view.legal.map((move) => moveButton(move)));
  $("moves-box").hidden = !view.your_turn;
}

function moveButton(move) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "move";
  button.textContent = move.text;
  button.dataset.action = String(move.action);
  button.dataset.path = JSON.stringify(move.path);
  button.addEventListener("click", () => play(move.action));
  return button;
}

// Runs of the same entry (a deal of hidden cards) as one line, "..., 13 times", as the terminal says them.
function collapsed(log) {
  const runs = [];
  for (const entry of log) {
    const last = runs[runs.length - 1];
    if (last && last.entry.player === entry.player && last.entry.who === entry.who && last.entry.text === entry.text) {
      last.count += 1;
    } else {
      runs.push({ entry, count: 1 });
    }
  }
  return runs;
}

function showLog() {
  const list = $("log");
  list.replaceChildren(...collapsed(view.log).map(({ entry, count }) => {
    const item = document.createElement("li");
    item.value = entry.n;
    item.className = entry.player === view.seat ? "you" : entry.player < 0 ? "chance" : "bot";
    item.textContent = `${entry.who}: ${entry.text}${count > 1 ? `, ${count} times` : ""}`;
    return item;
  }));
  list.parentElement.scrollTop = list.parentElement.scrollHeight;
}

function schedule() {
  const pace = Number($("pace").value);
  // Chance (dealing, shuffling) goes faster than the bots: it is not a decision to watch.
  const delay = view.to_move < 0 ? Math.min(pace, 40) : pace;
  const mine = generation;
  clearTimeout(timer);
  timer = setTimeout(() => advance(mine), delay);
}

// No answer at all (a dropped connection, a server restarting): worth asking again.
const RETRIES = 5;

async function advance(mine) {
  if (mine !== generation) return;
  try {
    const next = await api("POST", gamePath(gameId, "advance"));
    if (mine === generation) show(next);
  } catch (error) {
    if (mine !== generation) return;
    if (error.status === 409 || error.status === undefined) {
      // Another tab moves this game too, or the answer was lost: look again shortly.
      timer = setTimeout(() => refresh(mine, 1), 500);
    } else {
      $("play-error").textContent = error.message;
    }
  }
}

async function refresh(mine, attempt = 0) {
  if (mine !== generation) return;
  try {
    show(await api("GET", gamePath(gameId)));
  } catch (error) {
    if (mine !== generation) return;
    if (error.status === undefined && attempt < RETRIES) {
      timer = setTimeout(() => refresh(mine, attempt + 1), 500 * (attempt + 1));
    } else {
      $("play-error").textContent = error.message;
    }
  }
}

async function play(action) {
  if (!view || !view.your_turn) return;
  const mine = generation;
  const version = view.version;
  for (const button of document.querySelectorAll("#moves button, #choices button")) button.disabled = true;
  clearInterval(watcher);
  view = { ...view, your_turn: false, legal: [] };
  markRegions();
  $("play-error").textContent = "";
  try {
    // The move names the view it was chosen on: one chosen on a view another tab has
    // since moved on from is refused, and this tab shows the game as it now stands.
    const next = await api("POST", gamePath(gameId, "move"), { action, version });
    if (mine === generation) show(next);
  } catch (error) {
    if (mine !== generation) return;
    // A refused move is said; a lost answer is not: the game as it now stands tells.
    if (error.status === 409 && /moved on/.test(error.message)) {
      $("play-error").textContent = "The game moved on elsewhere (another tab?): here it is now.";
    } else if (error.status !== undefined) {
      $("play-error").textContent = error.message;
    }
    refresh(mine, error.status === undefined ? 1 : RETRIES);
  }
}

// A game waiting for this person may be moved from another tab: look again now and then.
async function look(mine) {
  if (mine !== generation || !view || document.hidden) return;
  try {
    const now = await api("GET", gamePath(gameId));
    if (mine === generation && view && now.version !== view.version) show(now);
  } catch (error) {
    // Said when the person acts; looking is quiet.
  }
}

async function stopBots() {
  if (!gameId) return;
  const mine = ++generation;
  clearTimeout(timer);
  try {
    const next = await api("POST", gamePath(gameId, "stop"));
    if (mine === generation) show(next);
  } catch (error) {
    $("play-error").textContent = error.message;
  }
}

// --- moves chosen on the picture ----------------------------------------------------------

// The legal moves whose regions start with `path`.
function candidates(path) {
  if (!view || !view.your_turn) return [];
  return view.legal.filter((m) => m.path.length >= path.length && path.every((r, i) => m.path[i] === r));
}

function markRegions() {
  const next = new Set();
  for (const move of candidates(prefix)) {
    if (move.path.length > prefix.length) next.add(move.path[prefix.length]);
  }
  for (const element of $("board").querySelectorAll("[data-region]")) {
    const name = element.dataset.region;
    element.classList.toggle("live", next.has(name));
    element.classList.toggle("selected", prefix.includes(name));
  }
}

function clickRegion(name) {
  let path = prefix.concat([name]);
  let found = candidates(path);
  if (found.length === 0) {
    // A click elsewhere starts over from that place.
    path = [name];
    found = candidates(path);
  }
  if (found.length === 0) {
    prefix = [];
    $("choices").replaceChildren();
    markRegions();
    return;
  }
  const complete = found.filter((m) => m.path.length === path.length);
  if (complete.length === 1 && found.length === 1) {
    play(complete[0].action);
    return;
  }
  // Several moves start here: those that end here become buttons, the places to
  // click next light up.
  prefix = path;
  $("choices").replaceChildren(...complete.map((move) => {
    const button = moveButton(move);
    button.classList.add("choice");
    return button;
  }));
  markRegions();
}

function onBoardClick(event) {
  const region = event.target.closest("[data-region]");
  if (region && region.classList.contains("live")) {
    clickRegion(region.dataset.region);
  } else if (region && candidates([region.dataset.region]).length) {
    clickRegion(region.dataset.region);
  } else if (prefix.length) {
    prefix = [];
    $("choices").replaceChildren();
    markRegions();
  }
}

// --- start --------------------------------------------------------------------------------

async function main() {
  $("new-game").addEventListener("submit", start);
  $("new").addEventListener("click", leave);
  $("stop").addEventListener("click", stopBots);
  $("debug").addEventListener("change", () => gameId && refresh(generation));
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && gameId && view && !view.waiting) look(generation);
  });
  // The picture is drawn again for a board that changed width (a turned phone, a resized window).
  let resizing = null;
  new ResizeObserver(() => {
    clearTimeout(resizing);
    resizing = setTimeout(() => {
      const drawn = $("board").querySelector("svg");
      const width = drawn ? Number(drawn.getAttribute("width")) : boardWidth();
      // Unless a bot's move is on its way: it brings a picture drawn for the new width.
      if (gameId && view && !view.waiting && Math.abs(boardWidth() - width) > 2) refresh(generation);
    }, 200);
  }).observe($("board"));
  $("board").addEventListener("click", onBoardClick);
  $("game").addEventListener("change", fillVariants);
  $("variant").addEventListener("change", () => {
    $("game-string").value = $("variant").value;
    describe();
  });
  let typing = null;
  $("game-string").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(describe, 300);
  });
  $("seat").addEventListener("change", fillBots);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && prefix.length) {
      prefix = [];
      $("choices").replaceChildren();
      markRegions();
    }
  });
  try {
    catalog = await api("GET", "/api/games");
  } catch (error) {
    $("setup-error").textContent = `cannot reach the server: ${error.message}`;
    return;
  }
  $("game").replaceChildren(...catalog.games.map((g) => option(g.name, `${g.title} (${g.name})`)));
  const specs = new Set();
  for (const bot of catalog.bots) {
    specs.add(bot.name);
    for (const [key, value] of Object.entries(bot.params)) {
      if (key === "sims") specs.add(`${bot.name}:sims=${value * 5}`);
    }
  }
  $("bot-specs").replaceChildren(...Array.from(specs, (spec) => option(spec, spec)));
  fillVariants();
  route();
}

main();
