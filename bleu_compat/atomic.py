"""Files that are complete or absent: write to a temporary file beside the target, then rename.

Every report, baseline, checkpoint chunk and page the commands write goes
through here. The data goes to a temporary file in the target's own directory
(so the rename stays on one file system and is atomic, POSIX ``rename(2)``),
is flushed and ``fsync``-ed, and only then replaces the target. A run killed
at any moment leaves either the previous file or the new one, whole, never a
prefix of it; the temporary file of a failed write is removed (one left by a
``SIGKILL`` is a dot-file, ``.tmp-<name>-<random>``). A new file gets the
permissions a plain ``open(path, "w")`` would give (0666 less the umask); a
replaced one keeps its own.

Standard library only.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator, Mapping

__all__ = ["write_atomic", "atomic_open", "write_all_atomic", "TEMP_PREFIX", "staged", "publish",
           "discard"]

#: Temporary files start with this (then the target's name).
TEMP_PREFIX = ".tmp-"


def _umask() -> int:
    try:  # Linux: read it without changing it (os.umask would, for a moment, for every thread)
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def _mode_for(path: Path) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _target(path: Path) -> Path:
    """What writing ``path`` replaces: a symbolic link's target (the link stays a link, as a
    plain ``open(path, "w")`` would leave it), else ``path``."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _special(path: Path) -> bool:
    """True when ``path`` exists and is neither a regular file nor a directory (a device such
    as /dev/null or /dev/full, a FIFO, a socket): it is written to, never replaced."""
    import stat

    try:
        st = os.stat(path)
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


def _refuse_special(path: Path) -> None:
    import errno

    if _special(path):
        raise OSError(errno.EINVAL, "not a regular file (a report is never written to a "
                      "device or a pipe)", str(path))


def _temporary(path: Path) -> tuple[int, str]:
    return tempfile.mkstemp(dir=path.parent, prefix=f"{TEMP_PREFIX}{path.name}-")


def _finish(fd_path: str, path: Path, mode: int) -> None:
    os.chmod(fd_path, mode)
    os.replace(fd_path, path)


def write_atomic(path: str | os.PathLike[str], data: bytes | str, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``data`` (``str`` is encoded with ``encoding``), all or nothing.

    Raises:
        OSError: the directory cannot be written, the disk is full, ...; ``path`` is then
            unchanged and no temporary file is left.
    """
    path = _target(Path(path))
    raw = data.encode(encoding) if isinstance(data, str) else data
    if _special(path):  # a device or a pipe: written to (renaming over it would replace it)
        with open(path, "wb") as handle:
            handle.write(raw)
        return
    mode = _mode_for(path)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        _finish(tmp, path, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", *,
                encoding: str | None = "utf-8", newline: str | None = None) -> Iterator[IO]:  # type: ignore[type-arg]
    """A file to write ``path`` through: it appears under its name only when the block ends
    without an exception (``mode`` ``"w"`` or ``"wb"``); otherwise it never appears and the
    previous ``path``, if any, is left as it was."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode={mode!r}: atomic_open writes only ('w' or 'wb')")
    path = _target(Path(path))
    if _special(path):  # a device or a pipe: written to as it is (it cannot be replaced)
        with open(path, mode, **({} if mode == "wb" else {"encoding": encoding,
                                                         "newline": newline})) as direct:
            yield direct
        return
    file_mode = _mode_for(path)
    fd, tmp = _temporary(path)
    try:
        if mode == "wb":
            handle: IO = os.fdopen(fd, "wb")  # type: ignore[type-arg]
        else:
            handle = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _finish(tmp, path, file_mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_all_atomic(files: Mapping[str | os.PathLike[str], bytes | str], *,
                     encoding: str = "utf-8") -> None:
    """Write several files as one set: every temporary file is written first, then all are
    renamed into place one after the other (the window in which a reader could see a mix
    of old and new files is the renames', not the writing's).

    Raises:
        OSError: as :func:`write_atomic`; nothing is renamed unless every file was written.
    """
    staged: list[tuple[str, Path, int]] = []
    try:
        for target, data in files.items():
            path = _target(Path(target))
            _refuse_special(path)
            raw = data.encode(encoding) if isinstance(data, str) else data
            mode = _mode_for(path)
            fd, tmp = _temporary(path)
            staged.append((tmp, path, mode))
            with os.fdopen(fd, "wb") as handle:
                handle.write(raw)
                handle.flush()
                os.fsync(handle.fileno())
        while staged:
            tmp, path, mode = staged[0]
            _finish(tmp, path, mode)
            staged.pop(0)
    except BaseException:
        for tmp, _, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


_STAGED: dict[str, tuple[str, int]] = {}


def staged(path: str | os.PathLike[str]) -> str:
    """The temporary file (beside ``path``) that stands for ``path`` until :func:`publish`;
    the same one on every call until then, so a file written in several passes (appended)
    is published once, whole. Removed at exit if never published (:func:`discard`)."""
    key = os.path.abspath(_target(Path(path)))
    found = _STAGED.get(key)
    if found is None:
        target = Path(key)
        _refuse_special(target)
        mode = _mode_for(target)
        fd, tmp = _temporary(target)
        os.close(fd)
        _STAGED[key] = found = (tmp, mode)
    return found[0]


def publish(path: str | os.PathLike[str]) -> None:
    """Rename ``path``'s staged file into place (nothing when none was staged).

    Raises:
        OSError: the rename failed (the staged file is removed).
    """
    key = os.path.abspath(_target(Path(path)))
    found = _STAGED.pop(key, None)
    if found is None:
        return
    tmp, mode = found
    try:
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        _finish(tmp, Path(key), mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def discard() -> None:
    """Remove every staged file never published (a command that failed half-way)."""
    while _STAGED:
        _, (tmp, _) = _STAGED.popitem()
        with contextlib.suppress(OSError):
            os.unlink(tmp)


atexit.register(discard)
