"""Output files: checked before any work starts, then written whole or not at all.

``atomic_write`` is how the library writes every result file (tables, policies,
networks, checkpoints, plots): readers see the old file or the whole new one, and
the new file has the permissions of any file the user creates (0644 under umask
022). ``check_output_file`` and ``check_output_folder`` let a command refuse an
output path it could not write before it spends minutes computing what goes there,
and ``folder_lock`` refuses a second run on a folder another run is writing.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with atomic_write(os.path.join(folder, "a.txt"), "w") as handle:
...     _ = handle.write("hello")
>>> open(os.path.join(folder, "a.txt")).read(), sorted(os.listdir(folder))
('hello', ['a.txt'])
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write", "check_output_file", "check_output_folder", "folder_lock", "write_text"]

# The lock file a run holds in its output folder (``folder_lock``).
LOCK_FILE = ".lock"


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb", **open_args: Any) -> Iterator[IO]:
    """A file object to write ``path`` through: a temporary file beside it, synced and
    renamed over ``path`` when the block ends, removed if the block raises.

    ``FileNotFoundError`` when ``path``'s folder does not exist.
    """
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot write {path}: folder {folder} does not exist")
    # tempfile.mkstemp and NamedTemporaryFile create files readable by their owner
    # only (0600), and the rename would keep that; a file created with 0o666 gets
    # the permissions the umask gives any new file.
    while True:
        temporary = folder / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:  # another writer's temporary: draw another name
            continue
    try:
        with os.fdopen(fd, mode, **open_args) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Writes ``text`` to ``path`` atomically (``atomic_write``)."""
    with atomic_write(path, "w", newline="") as handle:
        handle.write(text)
    return Path(path)


def _error(message: str) -> Exception:
    from .core.params import ParameterError

    return ParameterError(message)


def _writable_folder(folder: Path, what: str, path: Path) -> None:
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _error(f"{what} {path}: cannot write in folder {folder} (permission denied)")
    # The permission bits do not tell everything (a read-only or immutable folder, a
    # system folder such as /sys, where even root writes nothing): write a file to see.
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".probe-")
    except OSError as error:
        raise _error(f"{what} {path}: cannot write in folder {folder} ({error.strerror or error})") from None
    os.close(fd)
    os.unlink(probe)


def check_output_file(path: str | os.PathLike, what: str = "--out") -> Path:
    """``path`` if a file can be written there: its folder exists and is writable and
    ``path`` is not a folder; else ``ParameterError`` naming the problem.

    >>> check_output_file("/no/such/folder/x.npz")
    Traceback (most recent call last):
    ...
    elements_ai.core.params.ParameterError: --out /no/such/folder/x.npz: folder /no/such/folder does not exist
    """
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        raise _error(f"{what} {path} is a folder; give a file name")
    if not folder.exists():
        raise _error(f"{what} {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise _error(f"{what} {path}: {folder} is a file, not a folder")
    _writable_folder(folder, what, path)
    return path


def check_output_folder(path: str | os.PathLike, what: str = "--out") -> Path:
    """``path`` if it is a folder or can be made one (the folders it needs are created
    when the results are written); else ``ParameterError`` naming the problem.

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> check_output_folder(os.path.join(folder, "runs", "a")).name
    'a'
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise _error(f"{what} {path} is a file, not a folder")
    existing = path
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
        if existing.exists() and not existing.is_dir():
            raise _error(f"{what} {path}: {existing} is a file, not a folder")
    _writable_folder(existing if str(existing) else Path("."), what, path)
    return path


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike, what: str = "--out") -> Iterator[Path]:
    """Holds the lock of ``folder`` (created if missing) for the block; ``ParameterError``
    at once if another run holds it, so that two runs never write the same results.
    The system releases the lock when its process ends, however it ends.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with folder_lock(folder):
    ...     with folder_lock(folder, "results folder"):  # doctest: +ELLIPSIS
    ...         pass
    Traceback (most recent call last):
    ...
    elements_ai.core.params.ParameterError: results folder ... is in use by another run; wait for it to end or \
choose another folder
    """
    from filelock import FileLock, Timeout

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_FILE, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise _error(f"{what} {folder} is in use by another run; wait for it to end or choose another folder") from None
    try:
        yield folder
    finally:
        lock.release()
