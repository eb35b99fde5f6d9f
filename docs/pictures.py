"""The pictures of the docs (docs/pictures.md): a state from the middle of a game of each game, and a
strip of consecutive states of one short game.

    python docs/pictures.py            # writes docs/pictures/<game>.svg and strip-elements.svg

Every seat is played by the game's rules bot and chance is drawn from a fixed
seed, so the files change only when a game, its bot or its picture does. Each
picture is cut to the width its content takes (``render`` draws on a page at
least 900 wide), so that the page shows it large enough to read.
"""

from __future__ import annotations

import argparse
import re
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


def content_width(picture: str) -> float:
    """How far right anything is drawn (the page's background rectangle aside)."""
    root = ET.fromstring(picture)
    page = float(root.get("width"))
    right = 0.0
    for node in root.iter():
        tag = node.tag.removeprefix(NS)
        number = {name: float(value) for name, value in node.attrib.items() if re.fullmatch(r"-?[\d.]+", value)}
        if tag == "rect" and not (number["x"] == number["y"] == 0 and number["width"] == page):
            right = max(right, number["x"] + number["width"])
        elif tag == "circle":
            right = max(right, number["cx"] + number["r"])
        elif tag == "polygon":
            right = max(right, *(float(x) for x in re.findall(r"([\d.]+),[\d.]+", node.get("points", ""))))
        elif tag == "text":
            width = svg.text_width(node.text or "", number["font-size"])
            share = {"start": 1.0, "middle": 0.5, "end": 0.0}[node.get("text-anchor", "start")]
            right = max(right, number["x"] + share * width)
    return right


def size(picture: str) -> tuple[float, float]:
    root = ET.fromstring(picture)
    return float(root.get("width")), float(root.get("height"))


def inside(picture: str) -> str:
    """The drawing inside a picture's <svg> element."""
    return picture[picture.index(">") + 1 : picture.rindex("</svg>")]


def cropped(picture: str, margin: float = 12) -> str:
    """The picture cut to its content's width."""
    width = min(size(picture)[0], round(content_width(picture) + margin))
    height = size(picture)[1]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}">' + inside(picture) + "</svg>")


def strip(panels: list[tuple[str, str]], title: str) -> str:
    """The pictures in a grid of ``COLUMNS``, each under its caption, in one SVG."""
    pictures = [(cropped(picture), caption) for picture, caption in panels]
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
    pictures = {}
    for name in elements_ai.GAMES:
        states = play(elements_ai.load_game(name), SEED)
        decisions = [state for state, _ in states if not state.is_chance_node() and not state.is_terminal()]
        pictures[f"{name}.svg"] = cropped(elements_ai.render(decisions[len(decisions) // 2]))
    return pictures


def strip_picture() -> dict[str, str]:
    name, variant = STRIP_GAME
    game = elements_ai.load_game(name, **elements_ai.get_kernel(name).variants[variant])
    states = play(game, STRIP_SEED)
    # From the last deal on: the moves, not the dealing.
    first = next(i for i, (state, _) in enumerate(states) if not state.is_chance_node()) - 1
    shown = states[first:]
    panels = [(elements_ai.render(state), f"{i + 1}. {move}") for i, (state, move) in enumerate(shown)]
    title = f"A short game of {elements_ai.get_kernel(name).long_name} ({variant} variant) between the rules bots"
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
