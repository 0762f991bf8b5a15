"""Reading ``score``'s inputs: files, standard input, pipes and compressed files, as streams.

Every input is read once, as a stream, beside the others
(:func:`bleu_compat.corpus_io.aligned_blocks`): nothing is copied, a
compressed file is decompressed chunk by chunk as it is read, and line
counts, UTF-8 and the line length are checked as the lines arrive. Only
``--compare`` reads the inputs again (once per configuration); then an input
that cannot be read twice (standard input, a pipe, a compressed file) is
copied first into a private directory, at most :data:`SPOOL_MAX_BYTES`, which
is removed on every exit (SIGTERM and SIGINT included).
"""

from __future__ import annotations

import os
import sys
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from bleu_compat.corpus_io import CorpusReadError, LineStream

__all__ = ["TUNE_MALLOC_BYTES", "SPOOL_MAX_BYTES", "InputError", "Spool", "SpoolCopy",
           "keep_freed_memory",
           "lowercase_block", "open_input", "open_reader", "size_of"]


#: From this many bytes of input, score tunes glibc's allocator (below).
TUNE_MALLOC_BYTES = 1 << 20


def keep_freed_memory() -> None:
    """Ask glibc's malloc to keep freed memory for reuse (no-op elsewhere).

    Streaming allocates and frees the same few numpy arrays (hundreds of KiB)
    for every block; by default glibc returns such memory to the system and
    the next block faults it in again. Raising the mmap and trim thresholds
    (mallopt M_MMAP_THRESHOLD = 32 MiB, its maximum on 64-bit, and
    M_TRIM_THRESHOLD = 256 MiB) keeps it: measured on 100,000 x 1 segments,
    system time 0.146 s -> 0.028 s and CPU time -12%, peak RSS unchanged
    (45 MiB). A process-wide setting, so the command line makes it, not the
    library.
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, ImportError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 32 << 20)
    mallopt(m_trim_threshold, 256 << 20)


def size_of(path: str) -> int:
    """The size in bytes of a regular file (0 for anything else: a pipe, standard input)."""
    try:
        return os.stat(path).st_size if path != "-" else 0
    except OSError:
        return 0


_COMPRESSED = {".gz": "gzip", ".xz": "lzma", ".bz2": "bz2"}

#: The most ``--compare`` copies of inputs that cannot be read twice (all of them together).
SPOOL_MAX_BYTES = 1 << 30


class InputError(Exception):
    """A file given on the command line cannot be used (the message names it)."""


class _Decompressing:
    """A compressed file's ``read``, its errors turned into a message naming the file."""

    def __init__(self, path: str, handle: Any, kind: str) -> None:
        self._path, self._handle, self._kind = path, handle, kind

    def read(self, size: int) -> bytes:
        """Up to ``size`` decompressed bytes (``b""`` at the end)."""
        import lzma
        import zlib

        try:
            return self._handle.read1(size)  # type: ignore[no-any-return]
        except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as exc:
            raise CorpusReadError(
                f"{self._path}: cannot decompress ({self._kind}): the file is corrupt or "
                f"truncated ({type(exc).__name__}: {exc})") from None

    def close(self) -> None:
        self._handle.close()


def open_input(path: str) -> tuple[LineStream, Any]:
    """The lines of ``path`` as a stream, and the object to close after reading.

    ``-`` is standard input (not closed); ``.gz``/``.xz``/``.bz2`` files are
    decompressed as they are read (sacreBLEU reads ``.gz`` transparently);
    anything else (a file, a pipe, ``/dev/stdin``, a process substitution) is
    read as it is.

    Raises:
        InputError: the file cannot be opened (named in the message).
    """
    reader, closing = open_reader(path)
    return LineStream(path, reader), closing


def open_reader(path: str) -> tuple[Any, Any]:
    """``path``'s bytes as a reader (``read``/``read1``), and the object to close after
    reading (None for standard input), as :func:`open_input` opens it.

    Raises:
        InputError: the file cannot be opened (named in the message).
    """
    import importlib

    if path == "-":
        return sys.stdin.buffer, None
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix in _COMPRESSED:
            handle = importlib.import_module(_COMPRESSED[suffix]).open(path, "rb")
            reader: Any = _Decompressing(path, handle, suffix[1:])
        else:
            reader = open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return reader, reader


def lowercase_block(chunk: bytes) -> bytes:
    """A block of whole lines lowercased line by line (``str.lower``, as sacreBLEU's ``-lc``).

    ASCII text is lowered as bytes (the same result); other text is decoded,
    each line lowered on its own (Greek final sigma is decided within the
    line, as sacreBLEU decides it) and encoded again. The block must be UTF-8.
    """
    if chunk.isascii():
        return chunk.lower()
    return "\n".join(line.lower() for line in chunk.decode("utf-8").split("\n")).encode("utf-8")


class Spool:
    """Copies of the inputs that cannot be read twice, for ``--compare``; removed on every exit.

    Use as a context manager: :meth:`copy` makes a copy that the one reading
    pass writes as it goes (so line counts and line lengths are checked before
    much is copied), to be read again and again after it. While the spool exists SIGTERM raises ``SystemExit(143)``
    (so the ``finally`` that removes it runs; SIGINT already raises
    ``KeyboardInterrupt``). The copies together hold at most ``limit`` bytes.
    """

    def __init__(self, limit: int = SPOOL_MAX_BYTES) -> None:
        self._limit, self._used = limit, 0
        self._dir: str | None = None
        self._previous: Any = None

    def __enter__(self) -> Spool:
        import signal

        def terminate(signum: int, frame: Any) -> None:
            raise SystemExit(128 + signum)

        try:
            self._previous = signal.signal(signal.SIGTERM, terminate)
        except ValueError:  # not the main thread: the caller handles signals
            self._previous = None
        return self

    def __exit__(self, *exc: Any) -> None:
        import shutil
        import signal

        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)

    @staticmethod
    def readable_as_is(path: str) -> bool:
        """Whether ``path`` can be read again as it is (a regular uncompressed file).

        Raises:
            InputError: it cannot be opened.
        """
        import stat

        if path == "-" or os.path.splitext(path)[1].lower() in _COMPRESSED:
            return False
        try:
            return stat.S_ISREG(os.stat(path).st_mode)
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None

    def copy(self, name: str, index: int) -> "SpoolCopy":
        """A new copy of input ``name``, to be written block by block as it is read."""
        import tempfile

        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="bleu-compat-")
        return SpoolCopy(self, name, os.path.join(self._dir, f"{index}.txt"))

    def _account(self, name: str, size: int) -> None:
        self._used += size
        if self._used > self._limit:
            raise CorpusReadError(
                f"{name}: --compare reads its inputs several times, so standard input, pipes "
                f"and compressed files are copied first, at most {self._limit / 2**30:g} GiB "
                "together; give larger inputs as regular uncompressed files")


class SpoolCopy:
    """One input's copy in a :class:`Spool`: :meth:`write` each block as it is read."""

    def __init__(self, spool: Spool, name: str, path: str) -> None:
        self._spool, self._name, self.path = spool, name, path
        self._handle = open(path, "wb")

    def write(self, block: bytes) -> None:
        """Append one block (raises CorpusReadError past the spool's limit)."""
        self._spool._account(self._name, len(block))
        self._handle.write(block)

    def close(self) -> None:
        self._handle.close()
