"""What a new user types works as written: every ```python block of the README runs on its own."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2


# Blocks that take seconds (the tour touches every face and solves a game; a generic function
# compiles), each known by a line of its own: `pytest -m "not slow"` leaves them out.
SLOW = ["# The vector face: 4096 games at once", "count_legal[game.kernel](game.cfg, state.array, mask)"]
assert all(sum(line in block for block in BLOCKS) == 1 for line in SLOW), "a SLOW line is in no block, or in several"


INDICES = [
    pytest.param(i, marks=[pytest.mark.slow] if any(line in block for line in SLOW) else [])
    for i, block in enumerate(BLOCKS)
]


@pytest.mark.parametrize("index", INDICES)
def test_readme_block_runs_on_its_own(index):
    exec(compile(BLOCKS[index], f"README.md python block {index + 1}", "exec"), {"__name__": "readme"})


MARKER = re.compile(r"<!-- results: (\S+) -->\n((?:\|.*\n)+)")


def test_readme_tables_match_their_results_files():
    """A table that a script regenerates is marked ``<!-- results: PATH -->``: it must be PATH, verbatim."""
    marked = MARKER.findall(README.read_text())
    assert marked, "no README table names its results file"
    root = README.parent
    for path, table in marked:
        assert (root / path).is_file(), f"README names {path}, which does not exist"
        assert table == (root / path).read_text(), f"the README table from {path} differs from the file"
