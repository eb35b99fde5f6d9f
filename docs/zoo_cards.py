"""The shipped agents' cards (docs/cards.md), one per agent, from the recipes
(``elements_ai/zoo/recipes.toml``) and the shipped manifest: what plays it, what trained
it and how, where and when. The tests check the page is what this script writes.

    python docs/zoo_cards.py            # writes docs/cards.md
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from elements_ai import zoo  # noqa: E402
from elements_ai.files import write_text  # noqa: E402

OUT = Path(__file__).resolve().parent / "cards.md"


def _value(value) -> str:
    if isinstance(value, (list, tuple)):
        return "_".join(str(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:].rstrip(".") + "." if text else ""


def cards() -> str:
    """The page: a card for each shipped agent, in the recipes' order."""
    listed = zoo.manifest()
    lines = ["# The shipped agents' cards", "",
             "One card per shipped agent, written by `python docs/zoo_cards.py` from the recipes",
             "(`elements_ai/zoo/recipes.toml`) and the shipped manifest. Its strength and the",
             "story of its recipe are on the [shipped agents](zoo.md) page.", ""]
    for entry in zoo.recipes().values():
        info = listed.get(entry.name)
        if info is None or not (zoo.SHIPPED / entry.file).is_file():
            continue
        spec = entry.kind if not entry.play else entry.kind + ":" + ",".join(
            f"{k}={_value(v)}" for k, v in sorted(entry.play.items()))
        size = (zoo.SHIPPED / entry.file).stat().st_size
        unit = "iterations" if entry.kind == "cfr" else "steps"
        commit, minutes = str(info.get("commit", ""))[:10], info.get("train_seconds", 0) / 60
        lines += [f"## `{entry.name}`", "", _sentence(entry.description), "",
                  "| | |", "|---|---|",
                  f"| plays as | `{spec}` on `{entry.game}` |",
                  f"| algorithm | {entry.algorithm}, {entry.steps:,} {unit}, seed {entry.seed} |",
                  f"| trained at | `{commit}`, {minutes:.1f} min on {info.get('machine', 'an unrecorded machine')} |",
                  f"| file | `{entry.file}`, {size / 1e6:.2f} MB ({entry.weights}) |"]
        if entry.config:
            lines.append("| settings | " + ", ".join(f"`{k}={_value(v)}`" for k, v in sorted(entry.config.items()))
                         + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    write_text(OUT, cards())
    print(f"wrote {OUT}")
