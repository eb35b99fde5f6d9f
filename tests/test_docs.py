"""What a reader types works as written: every ```python block of the README, the docs
pages and the results READMEs runs on its own; each table a script regenerates is that
script's file, verbatim; and the docs site builds with no warning."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The docs folder links experiments/ and benchmarks/ in: each page is read once, from its own place.
PAGES = sorted({ROOT / "README.md", ROOT / "experiments" / "README.md", ROOT / "benchmarks" / "README.md",
                *(p for p in (ROOT / "docs").rglob("*.md") if not p.resolve().is_relative_to(ROOT / "experiments")
                  and not p.resolve().is_relative_to(ROOT / "benchmarks"))})
BLOCKS = [(page, block) for page in PAGES
          for block in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)]


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_readme_and_the_guides_have_python_examples():
    assert sum(page.name == "README.md" and page.parent == ROOT for page, _ in BLOCKS) >= 1
    assert len(BLOCKS) >= 8


# Blocks that take seconds (the tour touches every face and solves a game; a generic function
# compiles), each known by a line of its own: `pytest -m "not slow"` leaves them out.
SLOW = ["# The vector face: 4096 games at once", "count_legal[game.kernel](game.cfg, state.array, mask)",
        "# Exact exploitability of any agent on a variant small enough to solve."]
assert all(sum(line in block for _, block in BLOCKS) == 1 for line in SLOW), "a SLOW line is in no block, or in several"

BLOCK_PARAMS = [
    pytest.param(page, block, id=f"{_name(page)}-{k}",
                 marks=[pytest.mark.slow] if any(line in block for line in SLOW) else [])
    for k, (page, block) in enumerate(BLOCKS)
]


@pytest.mark.parametrize(("page", "block"), BLOCK_PARAMS)
def test_a_python_block_runs_on_its_own(page, block):
    exec(compile(block, f"{_name(page)} python block", "exec"), {"__name__": "docs"})


MARKER = re.compile(r"<!-- results: (\S+) -->\n((?:\|.*\n)+)")


def test_results_tables_match_their_results_files():
    """A table that a script regenerates is marked ``<!-- results: PATH -->`` (PATH from the
    project root): it must be PATH, verbatim."""
    found = 0
    for page in PAGES:
        for path, table in MARKER.findall(page.read_text()):
            found += 1
            assert (ROOT / path).is_file(), f"{_name(page)} names {path}, which does not exist"
            assert table == (ROOT / path).read_text(), f"the table in {_name(page)} from {path} differs from the file"
    assert found >= 10, "results tables lost their markers"


def test_the_readme_stays_a_front_page():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def test_no_results_table_is_published_twice():
    seen: dict[str, str] = {}
    for page in PAGES:
        for path, _ in MARKER.findall(page.read_text()):
            assert path not in seen, f"{path} is published in {seen[path]} and in {_name(page)}"
            seen[path] = _name(page)


def test_the_zoo_cards_are_what_their_script_writes():
    import importlib.util

    spec = importlib.util.spec_from_file_location("zoo_cards", ROOT / "docs" / "zoo_cards.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.cards()
    assert written.count("\n## `") >= 10
    assert (ROOT / "docs" / "cards.md").read_text() == written, "docs/cards.md is stale: python docs/zoo_cards.py"


@pytest.mark.slow
def test_the_docs_site_builds_strictly(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert (tmp_path / "site" / "reference" / "agents" / "index.html").is_file()
    assert "make_bot" in (tmp_path / "site" / "reference" / "agents" / "index.html").read_text()
    assert (tmp_path / "site" / "experiments" / "index.html").is_file()
