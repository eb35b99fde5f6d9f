"""Result tables: written whole or not at all, and printed for a terminal."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd


def write_csv(table: pd.DataFrame, path: str | Path) -> Path:
    """Writes ``table`` to ``path`` atomically: a reader never sees a half-written file.

    >>> import tempfile, pandas as pd
    >>> folder = tempfile.mkdtemp()
    >>> write_csv(pd.DataFrame({"a": [1, 2]}), Path(folder) / "t.csv").read_text()
    'a\\n1\\n2\\n'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False, newline="") as handle:
        table.to_csv(handle, index=False, lineterminator="\n")
    os.replace(handle.name, path)
    return path
