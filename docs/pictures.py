"""The pictures of the docs (docs/pictures.md): a state from the middle of a game of each game, and a
strip of consecutive states of one short game.

    python docs/pictures.py            # writes docs/pictures/<game>.svg and strip-elements.svg

Every seat is played by the game's rules bot and chance is drawn from a fixed
seed, so the files change only when a game, its bot or its picture does. The
games are drawn as the player to move sees them, 900 wide; the strip at a phone's
width, 360.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import elements_ai  # noqa: E402
from elements_ai.agents.registry import make_bot  # noqa: E402
from elements_ai.files import write_text  # noqa: E402
from elements_ai.render import svg  # noqa: E402

OUT = Path(__file__).resolve().parent / "pictures"
SEED = 2
STRIP_GAME = ("elements", "small")  # a round of two-card hands: a handful of moves
STRIP_SEED = 4
WIDTH = 900  # a page's picture
PHONE = 360  # a phone's: the strip shows the layout a phone gets
COLUMNS = 3
GAP = 16
NS = "{http://www.w3.org/2000/svg}"


def play(game, seed: int) -> list[tuple[object, str]]:
    """Every state of one game between rules bots, with the move that led to it."""
    rng = np.random.default_rng(seed)
    bots = [make_bot("rules", game, p, seed + p) for p in range(game.num_players())]
    state = game.new_initial_state()
    states = [(state.clone(), "start")]
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(outcomes[rng.choice(len(outcomes), p=probs)])
            who = "chance"
        else:
            action = int(bots[player].step(state))
            who = f"player {player}"
        move = f"{who}: {state.action_to_string(player, action)}"
        state.apply_action(action)
        states.append((state.clone(), move))
    return states


def size(picture: str) -> tuple[float, float]:
    root = ET.fromstring(picture)
    return float(root.get("width")), float(root.get("height"))


def inside(picture: str) -> str:
    """The drawing inside a picture's <svg> element."""
    return picture[picture.index(">") + 1 : picture.rindex("</svg>")]


def strip(panels: list[tuple[str, str]], title: str) -> str:
    """The pictures in a grid of ``COLUMNS``, each under its caption, in one SVG."""
    pictures = panels
    width = max(size(p)[0] for p, _ in pictures)
    caption_h = 22
    rows = [pictures[i : i + COLUMNS] for i in range(0, len(pictures), COLUMNS)]
    parts = [svg.text(GAP, 24, title, size=15, bold=True)]
    y = 38.0
    for row in rows:
        height = max(size(p)[1] for p, _ in row)
        for column, (picture, caption) in enumerate(row):
            x = GAP + column * (width + GAP)
            w, h = size(picture)
            parts.append(svg.text(x, y + 15, caption, size=12, bold=True))
            # A nested <svg> clips its drawing to its own box.
            parts.append(f'<svg x="{x:g}" y="{y + caption_h:g}" width="{w:g}" height="{h:g}" '
                         f'viewBox="0 0 {w:g} {h:g}">{inside(picture)}</svg>')
            parts.append(svg.rect(x, y + caption_h, w, h, stroke="#c8c4b8"))
        y += caption_h + height + GAP
    total_w = GAP + len(rows[0]) * (width + GAP)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:g}" height="{y:g}" '
            f'viewBox="0 0 {total_w:g} {y:g}"><title>{svg.esc(title)}</title>'
            + svg.rect(0, 0, total_w, y, "#ffffff", "none") + "".join(parts) + "</svg>")


def game_pictures() -> dict[str, str]:
    """Each game from the middle of a game, as the player to move sees it, with each
    seat's last move marked."""
    pictures = {}
    for name in elements_ai.GAMES:
        states = play(elements_ai.load_game(name), SEED)
        middle = [k for k, (state, _) in enumerate(states) if not state.is_chance_node() and not state.is_terminal()]
        k = middle[len(middle) // 2]
        state = states[k][0]
        player = state.current_player()
        pictures[f"{name}.svg"] = elements_ai.render(state, player, width=WIDTH, last=last_moves(states[: k + 1]))
    return pictures


def last_moves(states) -> dict[int, str]:
    """Each seat's last move in ``states`` (pairs of a state and the move that led to it)."""
    last = {}
    for _, move in states[1:]:
        who, _, text = move.partition(": ")
        if who.startswith("player "):
            last[int(who.removeprefix("player "))] = text
    return last


def strip_picture() -> dict[str, str]:
    name, variant = STRIP_GAME
    game = elements_ai.load_game(name, **elements_ai.get_kernel(name).variants[variant])
    states = play(game, STRIP_SEED)
    # From the last deal on: the moves, not the dealing.
    first = next(i for i, (state, _) in enumerate(states) if not state.is_chance_node()) - 1
    shown = states[first:]
    panels = [(elements_ai.render(state, 0, width=PHONE), f"{i + 1}. {move}") for i, (state, move) in enumerate(shown)]
    title = (f"A short game of {elements_ai.get_kernel(name).long_name} ({variant} variant) between the rules bots, "
             f"as player 0 sees it on a phone")
    return {f"strip-{name}.svg": strip(panels, title)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"the folder to write (default {OUT})")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for file, picture in {**game_pictures(), **strip_picture()}.items():
        write_text(args.out / file, picture)
        print(f"{args.out / file}  {len(picture.encode()) // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
