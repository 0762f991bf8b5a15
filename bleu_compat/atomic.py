"""Files that are complete or absent: write to a temporary file beside the target, then rename.

Every report, baseline, checkpoint chunk and page the commands write goes
through here. The data goes to a temporary file in the target's own directory
(so the rename stays on one file system and is atomic, POSIX ``rename(2)``),
is flushed and ``fsync``-ed, and only then replaces the target. A run killed
at any moment leaves either the previous file or the new one, whole, never a
prefix of it; the temporary file of a failed write is removed. One left by a
``SIGKILL`` is a dot-file named ``.bleu-compat-tmp.<pid>.<host>.<name>.<random>``
(:data:`TEMP_PREFIX`; ``<host>``: 8 hex digits of the machine's name): the next
write into that directory removes every such file whose process is no longer
running on this machine (:func:`sweep`). A new file gets the permissions a plain
``open(path, "w")`` would give (0666 less the umask); a replaced one keeps its own.

One rule for every output file of every command (:func:`output_problem`, checked
before anything runs, and again when the file is opened): a new or regular file
is replaced whole (a symbolic link's target, the link kept); a character device
(``/dev/null``, a terminal) or a pipe with a reader is written as the data comes
(it cannot be replaced); refused, in one line naming it: an empty name, a
directory, a pipe with no reader (opening it would wait forever; a reader has
:data:`READER_GRACE` seconds to open it), a socket, a
block device, a loop of symbolic links, a missing directory, a file or directory
that cannot be written.

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
           "discard", "output_problem", "sweep"]

#: Temporary files start with this (then ``<pid>.<host>.<target name>.<random>``).
TEMP_PREFIX = ".bleu-compat-tmp."


def _host() -> str:
    import hashlib
    import socket

    try:
        name = socket.gethostname()
    except OSError:  # pragma: no cover
        name = ""
    return hashlib.sha256(name.encode("utf-8", "replace")).hexdigest()[:8]


def _alive(pid: int) -> bool:
    if pid <= 0:
        return True  # not a process this module named: left alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # another user's process: running
    return True


def sweep(directory: str | os.PathLike[str]) -> list[str]:
    """Remove the temporary files in ``directory`` left by runs of this module that were killed
    (their process no longer runs on this machine); returns the names removed. A file of a
    running process, of another machine, or not named by this module is left alone."""
    removed = []
    host = _host()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(TEMP_PREFIX):
            continue
        parts = entry.name[len(TEMP_PREFIX):].split(".", 2)
        if len(parts) < 3 or parts[1] != host or not parts[0].isdigit():
            continue
        if _alive(int(parts[0])):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(entry.name)
        except OSError:
            pass
    return removed


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
    plain ``open(path, "w")`` would leave it), else ``path``.

    Raises:
        OSError: ``path`` is a loop of symbolic links (ELOOP).
    """
    import errno

    if not os.path.islink(path):
        return path
    try:
        return Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:  # a dangling link: written through, creating its target
        return Path(os.path.realpath(path))
    except OSError as exc:
        if exc.errno == errno.ELOOP or isinstance(exc, RuntimeError):
            raise OSError(errno.ELOOP, "a loop of symbolic links", str(path)) from None
        raise


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


#: seconds a pipe's reader has to open it (a ``cat FIFO &`` started just before the command)
READER_GRACE = 2.0
#: pipes the check of :func:`output_problem` opened, kept for the write: (device, inode) -> fd
#: (closing the check's descriptor would end the reader's stream before the data came)
_HELD: dict[tuple[int, int], int] = {}


def _close_held() -> None:
    while _HELD:
        _, fd = _HELD.popitem()
        with contextlib.suppress(OSError):
            os.close(fd)


atexit.register(_close_held)


def _special_fd(path: Path, hold: bool = False) -> int:
    """A descriptor open for writing on the device or pipe ``path``, never waiting forever: a
    pipe with no reader gets :data:`READER_GRACE` seconds for one to open it, then is refused
    (ENXIO, said in words); a socket or block device is refused. ``hold``: keep it for the
    write (:data:`_HELD`).

    Raises:
        OSError: as above, or the open failed.
    """
    import errno
    import stat
    import time

    st = os.stat(path)
    if stat.S_ISSOCK(st.st_mode) or stat.S_ISBLK(st.st_mode):
        raise OSError(errno.EINVAL, "a socket or a block device is no output file", str(path))
    key = (st.st_dev, st.st_ino)
    held = _HELD.pop(key, None)
    if held is not None:
        if hold:
            _HELD[key] = held
            return held
        return held
    deadline = time.monotonic() + READER_GRACE
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
                         | getattr(os, "O_CLOEXEC", 0))
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            if time.monotonic() >= deadline:
                raise OSError(errno.ENXIO, "a pipe with no reader (writing would wait forever; "
                              "start its reader first)", str(path)) from None
            time.sleep(0.02)
    os.set_blocking(fd, True)
    if hold and stat.S_ISFIFO(st.st_mode):
        _HELD[key] = fd
    return fd


def _open_special(path: Path, mode: str, encoding: str | None = None,
                  newline: str | None = None) -> IO:  # type: ignore[type-arg]
    """The device or pipe ``path`` opened for writing (:func:`_special_fd`: never waiting
    forever for a reader; the descriptor the check kept, when it kept one)."""
    fd = _special_fd(path)
    if "b" in mode:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding=encoding, newline=newline)


def output_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be an output file, or None: the rule of the module docstring,
    checked before anything runs (nothing is written; a pipe or device is opened without
    waiting and closed again). One line naming the path, for every command's refusal."""
    import errno
    import stat

    text = os.fspath(path)
    if text == "":
        return "an empty file name"
    try:
        st: os.stat_result | None = os.stat(text)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"cannot write {text}: it is a loop of symbolic links; give a file name"
        if exc.errno == errno.ENOTDIR:
            blocker = next((p for p in Path(text).parents if p.exists() and not p.is_dir()), None)
            return (f"cannot write {text}: {blocker} is a file, not a directory" if blocker
                    else f"cannot write {text}: a part of its path is not a directory")
        if exc.errno != errno.ENOENT:
            return f"cannot write {text}: {exc.strerror or exc}"
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        return f"cannot write {text}: it is a directory; give a file name"
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:  # a pipe's descriptor is kept for the write (closing it would end the reader's data)
            fd = _special_fd(Path(text), hold=True)
            if not stat.S_ISFIFO(st.st_mode):
                os.close(fd)
        except OSError as exc:
            return f"cannot write {text}: {exc.strerror or exc}"
        return None
    try:
        target = _target(Path(text))
    except OSError as exc:
        return f"cannot write {text}: {exc.strerror or exc}"
    parent = target.parent
    if not parent.is_dir():
        return f"cannot write {text}: no directory {parent}; create it first or give another path"
    try:
        if st is not None:
            with open(target, "a", encoding="utf-8"):  # nothing written: may it be?
                pass
        fd, probe = tempfile.mkstemp(dir=parent, prefix=f"{TEMP_PREFIX}{os.getpid()}.{_host()}.probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"cannot write {text}: {exc.strerror or exc}"
    return None


def _temporary(path: Path) -> tuple[int, str]:
    sweep(path.parent)
    return tempfile.mkstemp(dir=path.parent,
                            prefix=f"{TEMP_PREFIX}{os.getpid()}.{_host()}.{path.name}.")


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
        with _open_special(path, "wb") as handle:
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
        with _open_special(path, mode, encoding, newline) as direct:
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
    of old and new files is the renames', not the writing's). A device or a pipe with a
    reader among them (the module's rule) is written as it is, after the regular files
    were staged; a pipe with no reader refuses the whole set before anything is renamed.

    Raises:
        OSError: as :func:`write_atomic`; nothing is renamed unless every file was written.
    """
    staged: list[tuple[str, Path, int]] = []
    direct: list[tuple[Path, bytes]] = []
    try:
        for target, data in files.items():
            path = _target(Path(target))
            raw = data.encode(encoding) if isinstance(data, str) else data
            if _special(path):
                direct.append((path, raw))
                continue
            mode = _mode_for(path)
            fd, tmp = _temporary(path)
            staged.append((tmp, path, mode))
            with os.fdopen(fd, "wb") as handle:
                handle.write(raw)
                handle.flush()
                os.fsync(handle.fileno())
        handles = [(_open_special(path, "wb"), raw) for path, raw in direct]
        for handle, raw in handles:
            with handle:
                handle.write(raw)
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
