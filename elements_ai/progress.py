"""Progress bars that a log can hold: every bar of the library is made by ``progress_bar``.

On a terminal (or in a notebook) it is tqdm's bar, redrawn in place. Anywhere else
(a pipe, a file, a job's log) redrawing would fill the log with frames, so the bar
prints plain lines instead: one when it starts, then at most one every 10% of the
total *and* 30 seconds, whichever is rarer, and one when it ends. Inside
``silenced()`` (the commands' ``--quiet``) no bar prints at all.

>>> import io
>>> log = io.StringIO()
>>> with progress_bar(total=1000, desc="games", unit=" game", file=log) as bar:
...     for _ in range(1000):
...         _ = bar.update(1)
>>> [line.split(" [")[0] for line in log.getvalue().splitlines()]
['games:   0% 0/1000', 'games: 100% 1000/1000']
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

from tqdm import tqdm as terminal_bar
from tqdm.auto import tqdm as auto_bar

__all__ = ["progress_bar", "silenced"]

# A log gets a line when the bar has moved this share of its total since the last
# line and this many seconds have passed; a bar without a total waits for the time alone.
LINE_SHARE = 0.1
LINE_SECONDS = 30.0

_silenced = 0
# tqdm.auto's bar is the notebook's widget inside Jupyter (else tqdm's own, for asyncio).
_NOTEBOOK = any(cls.__module__ == "tqdm.notebook" for cls in auto_bar.__mro__)


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Every bar made inside the block prints nothing (``--quiet``)."""
    global _silenced
    _silenced += 1
    try:
        yield
    finally:
        _silenced -= 1


def _clock() -> float:
    return time.monotonic()


class _LogLines(terminal_bar):
    """tqdm's bar as plain lines, each written whole, at the pace the module docstring gives."""

    LINE = "{desc}: {percentage:3.0f}% {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]"
    NO_TOTAL = "{desc}: {n_fmt} [{elapsed}, {rate_fmt}{postfix}]"

    def __init__(self, *args: Any, **kwargs: Any):
        self._line_n: float | None = None
        self._line_t = 0.0
        kwargs["desc"] = kwargs.get("desc") or "progress"
        total = kwargs.get("total")
        if total is None and args and hasattr(args[0], "__len__"):
            total = len(args[0])
        # tqdm's own check on each update lets through only the updates that are due
        # (no monitor thread redraws); ``display`` holds back the forced redraws.
        kwargs.update(miniters=LINE_SHARE * total if total else 0, mininterval=LINE_SECONDS,
                      maxinterval=float("inf"))
        super().__init__(*args, **kwargs)
        self._time = _clock
        self.start_t = self.last_print_t = _clock()

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        if msg is not None:  # tqdm clearing its line: a log keeps its lines
            return False
        now = _clock()
        if self._line_n is not None:
            moved = not self.total or self.n - self._line_n >= LINE_SHARE * self.total
            if not moved or now - self._line_t < LINE_SECONDS:
                return True
        self._write_line(now)
        return True

    def _write_line(self, now: float) -> None:
        form = self.LINE if self.total else self.NO_TOTAL
        line = self.format_meter(**{**self.format_dict, "bar_format": form, "ncols": None})
        self.fp.write(line.rstrip() + "\n")
        self.fp.flush()
        self._line_n, self._line_t = self.n, now

    def close(self) -> None:
        if self.disable:
            return
        if self._line_n != self.n:
            with self._lock:
                self._ema_dt = lambda: None  # the last line gives the overall rate
                self._write_line(_clock())
        # tqdm's own close, without its last frame and newline (``display`` skips a clearing).
        self.leave = False
        super().close()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def progress_bar(*args: Any, **kwargs: Any) -> terminal_bar:
    """A tqdm bar (tqdm's arguments), as the module docstring says: redrawn on a
    terminal or in a notebook, plain lines in a log, nothing when ``silenced``."""
    if _silenced:
        kwargs["disable"] = True
    stream = kwargs.get("file")
    if _is_terminal(sys.stderr if stream is None else stream):
        return terminal_bar(*args, **kwargs)
    if _NOTEBOOK and stream in (None, sys.stderr, sys.stdout):  # a notebook draws its own widget
        return auto_bar(*args, **kwargs)
    kwargs.setdefault("file", sys.stderr)
    kwargs.pop("dynamic_ncols", None)
    return _LogLines(*args, **kwargs)
