"""Reading corpus files: one segment per line, UTF-8.

Rules (docs/score.md "Reading rules"): the bytes must be UTF-8 (an invalid byte is
an error naming the file and line); lines end at ``\\n`` only (``\\r`` before
it is dropped, so CRLF files give the same tokens as LF files); a missing
final newline changes nothing; an empty line is an empty segment, never
skipped; a leading U+FEFF byte order mark is kept as part of the first line
(that is what published numbers assume) and reported as a warning.
Standard library only.
"""

from __future__ import annotations

from itertools import islice
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable, Iterator, Sequence

from .errors import InvalidInputError

__all__ = [
    "CorpusFile",
    "CorpusReadError",
    "CorpusScan",
    "scan_file",
    "iter_line_blocks",
    "decode_block",
    "READING_RULES",
    "read_lines",
    "check_same_length",
    "check_line_counts",
    "LineChecker",
    "LineStream",
    "aligned_blocks",
    "MAX_LINE_BYTES",
]

#: The reading rules in one paragraph, for ``--help`` and docs/score.md.
READING_RULES = (
    "Files are UTF-8, one segment per line; a line ends at LF only (a CR before "
    "the LF is dropped, so CRLF files give exactly the same tokens as LF files, "
    "and a warning says so; U+2028, U+0085 and form feeds do not end a line). "
    "A missing final newline changes nothing; an empty line is an empty segment, "
    "never skipped; a leading U+FEFF byte order mark is kept as part of the first "
    "token (the published WMT numbers assume it) and reported as a warning. A byte "
    "that is not UTF-8 is an error naming the file and line; a missing file, an "
    "empty file or files with different line counts (both files named, at the first "
    "surplus line) are errors (exit 2), and so is a line longer than 64 MiB (file and "
    "line named)."
)

#: The longest line (bytes, its line end aside) a corpus file may hold: 64 MiB. A
#: segment is a sentence or a paragraph; a longer line is a file that is not one
#: segment per line (a binary file, /dev/zero, a file without line ends), refused
#: before it is held in memory whole.
MAX_LINE_BYTES = 64 << 20
#: Bytes read at a time by :class:`LineStream`.
READ_CHUNK_BYTES = 1 << 20


class CorpusReadError(InvalidInputError):
    """A corpus file cannot be read as the rules require."""


class _Frozen:
    """A small record: its fields are set once (``__init__``), compared and shown by value.
    (Not a dataclass: ``dataclasses`` imports ``inspect``, 5 ms of every ``score``'s start.)"""

    __slots__: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"{type(self).__name__}({fields})"


class CorpusFile(_Frozen):
    """The lines of one corpus file.

    Attributes:
        path: the file as given.
        lines: one string per segment, without the line end.
        warnings: human-readable notes (a BOM, CRLF line ends).
    """

    __slots__ = ("path", "lines", "warnings")

    def __init__(self, path: str, lines: list[str], warnings: list[str] | None = None) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "lines", lines)
        object.__setattr__(self, "warnings", [] if warnings is None else warnings)

    @property
    def n_lines(self) -> int:
        """The number of segments (lines)."""
        return len(self.lines)


#: The most bytes :func:`read_lines` holds of one file (it reads a file whole; ``score``
#: streams instead): 1 GiB, beyond any corpus it is used on (``--compare``'s copies have the
#: same bound), so that an endless input (``/dev/zero``, a pipe that never ends) is refused
#: instead of filling the memory.
MAX_WHOLE_FILE_BYTES = 1 << 30


def _read_bounded(path: str | Path, name: str) -> bytes:
    """The bytes of ``path``, read a chunk at a time: a line longer than
    :data:`MAX_LINE_BYTES` or a file longer than :data:`MAX_WHOLE_FILE_BYTES` is refused
    as soon as it is seen, before it is held whole."""
    chunks: list[bytes] = []
    total = since_lf = line_ends = 0
    try:
        with open(path, "rb") as handle:
            while True:
                data = handle.read(READ_CHUNK_BYTES)
                if not data:
                    break
                total += len(data)
                last = data.rfind(b"\n")
                # a line inside one chunk is shorter than the chunk: only the line that
                # spans chunks can pass the bound
                spanning = since_lf + (data.find(b"\n") if last >= 0 else len(data))
                if spanning > MAX_LINE_BYTES:
                    raise CorpusReadError(
                        f"{name}: line {line_ends + 1} is longer than {MAX_LINE_BYTES:,} bytes "
                        f"({MAX_LINE_BYTES / 2**20:g} MiB), the longest line a corpus file may "
                        "hold: is it one segment per line?")
                if total > MAX_WHOLE_FILE_BYTES:
                    raise CorpusReadError(
                        f"{name}: longer than {MAX_WHOLE_FILE_BYTES / 2**30:g} GiB, the most "
                        "this command reads of one file (score REF -i SYS streams any length)")
                if last >= 0:
                    line_ends += data.count(b"\n")
                    since_lf = len(data) - last - 1
                else:
                    since_lf = spanning
                chunks.append(data)
    except OSError as exc:
        raise CorpusReadError(f"{name}: cannot read: {exc.strerror or exc}") from None
    return b"".join(chunks)


def read_lines(path: str | Path) -> CorpusFile:
    """Read a corpus file under the rules of this module.

    The file is decoded and split in bulk (one ``bytes.decode`` and one
    ``str.split("\n")``), which gives exactly the lines of decoding each line
    on its own: LF and CR are ASCII and never inside a UTF-8 sequence, so a
    file decodes if and only if each of its lines does.

    Raises:
        CorpusReadError: the file cannot be opened, is empty (0 bytes: no
            segment at all), or a line is not UTF-8.
    """
    name = str(path)
    data = _read_bounded(path, name)
    if not data:
        raise CorpusReadError(
            f"{name}: the file is empty (0 segments; an empty segment is an empty line)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _decode_error(name, data, exc.start, 0) from None
    lines, crlf = _split_lines(text)
    warnings = _warnings(name, lines[0] if lines else "", _inner_bom_lines(lines), crlf)
    return CorpusFile(name, lines, warnings)


def _split_lines(text: str) -> tuple[list[str], int]:
    """Lines of decoded text (LF ends a line, one CR before it dropped) and the CR count."""
    crlf = text.count("\r\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    elif lines[-1].endswith("\r"):  # a last line without LF still loses one CR
        lines[-1] = lines[-1][:-1]
        crlf += 1
    return lines, crlf


def decode_block(data: bytes) -> list[str]:
    """The lines of a block of whole lines of a file, under the rules of this module.

    Raises:
        CorpusReadError: ``data`` is not UTF-8 (the file changed after it was checked).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CorpusReadError(
            "a file changed while being read: it is no longer UTF-8"
        ) from None
    return _split_lines(text)[0]


def _inner_bom_lines(lines: list[str]) -> list[int]:
    """1-based numbers of lines holding U+FEFF other than a leading byte order mark."""
    if not any("\ufeff" in line for line in lines):  # the usual case, one C-level scan
        return []
    return [n for n, line in enumerate(lines, start=1) if "\ufeff" in line[n == 1 :]]


def _warnings(name: str, first_line: str, inner: list[int], crlf: int) -> list[str]:
    warnings = []
    if first_line.startswith("\ufeff"):
        warnings.append(
            f"{name}: line 1 starts with a U+FEFF byte order mark; it is kept as part "
            "of the first token"
        )
    if inner:
        warnings.append(
            f"{name}: U+FEFF inside the text on {len(inner)} line(s) (first: line "
            f"{inner[0]}); it is kept in its token"
        )
    if crlf:
        warnings.append(f"{name}: {crlf} line(s) end with CRLF; the CR is dropped")
    return warnings


def _decode_error(name: str, data: bytes, start: int, first_line: int) -> CorpusReadError:
    """The error for the first line of ``data`` that is not UTF-8, as line-by-line reading gives it.

    ``start`` is where decoding ``data`` failed; the message is made by
    decoding that line alone (its CR before the LF dropped), so line and
    column are those of the line-by-line rule.
    """
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", start)
    raw = data[line_start : line_end if line_end >= 0 else len(data)]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    number = first_line + data.count(b"\n", 0, line_start) + 1
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return CorpusReadError(
            f"{name}: line {number} is not UTF-8 (invalid byte 0x{raw[exc.start]:02x} "
            f"at column {exc.start + 1})"
        )
    return CorpusReadError(f"{name}: line {number} is not UTF-8")  # pragma: no cover


class CorpusScan(_Frozen):
    """What :func:`scan_file` found: the file's line count and warnings, not its text.

    Attributes:
        path: the file as given.
        n_lines: its number of segments (lines, as :func:`read_lines` counts them).
        warnings: the same notes :func:`read_lines` gives.
    """

    __slots__ = ("path", "n_lines", "warnings")

    def __init__(self, path: str, n_lines: int, warnings: list[str] | None = None) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "n_lines", n_lines)
        object.__setattr__(self, "warnings", [] if warnings is None else warnings)


_BOM = "\ufeff".encode("utf-8")

#: Bytes read at a time by :func:`scan_file` (then cut after the last LF).
SCAN_CHUNK_BYTES = 1 << 20


def scan_file(
    path: str | Path, *, chunk_bytes: int = SCAN_CHUNK_BYTES, name: str | None = None
) -> CorpusScan:
    """Check a corpus file under the rules of this module without holding it.

    Reads the file in chunks of about ``chunk_bytes`` bytes, each ending
    after a LF, and finds what :func:`read_lines` would: the same errors
    (same messages, same first bad line), the same line count and the same
    warnings. Memory is one chunk. ``name`` (default: ``path``) is the file's
    name in messages and in the result (e.g. the name a user gave for a pipe
    that was copied to ``path``).

    Raises:
        CorpusReadError: as :func:`read_lines`.
    """
    name = str(path) if name is None else name
    checker = LineChecker(name)
    tail = b""
    try:
        with open(path, "rb") as handle:
            while True:
                block = handle.read(chunk_bytes)
                if block:
                    data = tail + block
                    cut = data.rfind(b"\n") + 1
                    if cut == 0:  # no LF yet: read on
                        tail = data
                        continue
                    data, tail = data[:cut], data[cut:]
                else:  # end of file: what is left is the last line, without LF
                    data, tail = tail, b""
                    if not data:
                        break
                checker.feed(data)
                if not block:
                    break
    except OSError as exc:
        raise CorpusReadError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if checker.n_lines == 0:
        raise CorpusReadError(_empty(name))
    return CorpusScan(name, checker.n_lines, checker.warnings())


def _empty(name: str) -> str:
    return f"{name}: the file is empty (0 segments; an empty segment is an empty line)"


class LineChecker:
    """The reading rules, checked on a file's bytes as they are read, block by block.

    :meth:`feed` takes consecutive blocks of whole lines (each ending after
    a LF; the file's last line may lack it) and finds what :func:`read_lines`
    would: the first line that is not UTF-8 (the same message), the line
    count, and the warnings (a leading or inner U+FEFF, CRLF line ends).
    Memory: nothing beyond the block.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.n_lines = 0
        self._crlf = 0
        self._first_line = ""
        self._inner: list[int] = []

    def feed(self, data: bytes) -> None:
        """Check one block of whole lines (the next ones of the file).

        Raises:
            CorpusReadError: a line of the block is not UTF-8 (file and line named).
        """
        if not data:
            return
        n_lines = self.n_lines
        ascii_only = data.isascii()
        if not ascii_only:  # ASCII is UTF-8: only other bytes need decoding
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _decode_error(self.name, data, exc.start, n_lines) from None
        # LF and CR are ASCII, so lines and CRs are counted on the bytes
        chunk_lines = data.count(b"\n")
        if b"\r" in data:  # memchr; the two-byte count only when a CR is there
            self._crlf += data.count(b"\r\n")
        if not data.endswith(b"\n"):  # the last line, without LF
            chunk_lines += 1
            self._crlf += data.endswith(b"\r")
        # U+FEFF is not ASCII: only other bytes can hold one
        bom_at = -1 if ascii_only else data.find(_BOM, 1 if n_lines == 0 else 0)
        if n_lines == 0:
            self._first_line = _BOM.decode() if data.startswith(_BOM) else ""
        if bom_at >= 0:  # U+FEFF inside the text: number its lines (rare)
            lines = _split_lines(data.decode("utf-8"))[0]
            self._inner += [n_lines + n for n, line in enumerate(lines, start=1)
                            if "\ufeff" in line[n_lines == 0 and n == 1 :]]
        self.n_lines = n_lines + chunk_lines

    def warnings(self) -> list[str]:
        """The notes :func:`read_lines` gives for the lines fed so far."""
        return _warnings(self.name, self._first_line, self._inner, self._crlf)


def iter_line_blocks(
    paths: list[str], block_lines: Callable[[], int]
) -> Iterator[tuple[int, list[bytes]]]:
    """Line-aligned blocks of several files: each item holds the same lines of every file.

    Item k is ``(n, chunks)``: ``n`` >= 1 lines and one ``bytes`` per path,
    that file's next ``block_lines()`` lines, joined with their line ends as in the file (the last line may
    lack its LF). Files are opened in binary and read line by line in C;
    only one block of each is held. The files must have equal line counts
    (checked beforehand with :func:`scan_file`).

    Raises:
        CorpusReadError: a file cannot be opened, or the files no longer have
            the same number of lines (changed while being read).
    """
    handles = []
    try:
        for path in paths:
            try:
                handles.append(open(path, "rb"))
            except OSError as exc:
                raise CorpusReadError(f"{path}: cannot read: {exc.strerror or exc}") from None
        while True:
            size = block_lines()
            # a file's lines as iteration gives them: one item per line (the
            # last may lack its LF), so the count is the number of items
            blocks = [list(islice(handle, size)) for handle in handles]
            counts = set(map(len, blocks))
            if len(counts) != 1:
                raise CorpusReadError(
                    "the files changed while being read: their line counts differ now"
                )
            if not blocks[0]:
                return
            yield counts.pop(), [b"".join(lines) for lines in blocks]
    finally:
        for handle in handles:
            handle.close()


class LineStream:
    """The lines of one input, read as a stream in bounded memory.

    ``handle`` is any binary file object (a file, standard input, a pipe, a
    gzip/bz2/lzma stream): it is read ``chunk_bytes`` at a time, never
    ahead of use by more than one chunk, and never needs to be seekable. A
    line longer than ``max_line_bytes`` is an error naming the file and the
    line, raised before the line is held whole.

    Attributes:
        name: the input's name in messages.
        lines_taken: lines handed out by :meth:`take` so far.
    """

    def __init__(self, name: str, handle: Any, *, max_line_bytes: int = MAX_LINE_BYTES,
                 chunk_bytes: int = READ_CHUNK_BYTES) -> None:
        self.name, self._handle = name, handle
        # read1: what is there, up to a chunk (a pipe's lines arrive as they are written,
        # instead of waiting for a whole chunk); read where the object has no read1
        self._read = getattr(handle, "read1", None) or handle.read
        self._max, self._chunk = max_line_bytes, chunk_bytes
        self._lines: list[bytes] = []
        self._pos = 0
        self._complete = 0  # lines split off so far (taken or not)
        self._tail: list[bytes] = []
        self._tail_len = 0
        self._eof = False
        self._last_lacks_lf = False
        self.lines_taken = 0

    def _too_long(self, line_number: int) -> CorpusReadError:
        return CorpusReadError(
            f"{self.name}: line {line_number} is longer than {self._max:,} bytes "
            f"({self._max / 2**20:g} MiB), the longest line a corpus file may hold: is it "
            "one segment per line?")

    def _fill(self) -> None:
        try:
            data = self._read(self._chunk)
        except OSError as exc:
            raise CorpusReadError(f"{self.name}: cannot read: {exc.strerror or exc}") from None
        if not data:
            self._eof = True
            if self._tail_len:  # the last line, without LF
                self._lines.append(b"".join(self._tail))
                self._tail, self._tail_len = [], 0
                self._complete += 1
                self._last_lacks_lf = True
            return
        parts = data.split(b"\n")
        if len(parts) == 1:  # no line end in this chunk: the line goes on
            self._tail.append(data)
            self._tail_len += len(data)
            if self._tail_len > self._max:
                raise self._too_long(self._complete + 1)
            return
        if self._tail:
            parts[0] = b"".join(self._tail) + parts[0]
        rest = parts.pop()
        if max(map(len, parts)) > self._max:
            first = next(k for k, line in enumerate(parts) if len(line) > self._max)
            raise self._too_long(self._complete + first + 1)
        if self._pos and self._pos == len(self._lines):
            self._lines, self._pos = parts, 0
        else:
            self._lines.extend(parts)
        self._complete += len(parts)
        self._tail, self._tail_len = ([rest], len(rest)) if rest else ([], 0)
        if self._tail_len > self._max:
            raise self._too_long(self._complete + 1)

    def take(self, n: int) -> bytes:
        """The next ``n`` lines (fewer at the end), joined with their LFs as in the input.

        The input's last line keeps its lack of a LF; ``b""`` means the input has ended.

        Raises:
            CorpusReadError: the input cannot be read, or a line is too long.
        """
        while len(self._lines) - self._pos < n and not self._eof:
            self._fill()
        lines = self._lines[self._pos:self._pos + n]
        self._pos += len(lines)
        if self._pos > 4096 and self._pos * 2 > len(self._lines):
            del self._lines[:self._pos]
            self._pos = 0
        self.lines_taken += len(lines)
        if not lines:
            return b""
        lacks_lf = self._last_lacks_lf and self._eof and self._pos == len(self._lines)
        return b"\n".join(lines) + (b"" if lacks_lf else b"\n")


def aligned_blocks(
    streams: Sequence[LineStream], block_lines: Callable[[], int],
    checkers: Sequence[LineChecker] | None = None,
) -> Iterator[tuple[int, list[bytes]]]:
    """Line-aligned blocks of several inputs read together, in one pass.

    Item k is ``(n, chunks)``: ``n`` >= 1 lines and, per stream, its next
    ``n`` lines joined as in the input. Each block is checked as it is read
    (``checkers``, one :class:`LineChecker` per stream, made here if not
    given: UTF-8, warnings); line counts are compared block by block, so
    inputs of different lengths stop at the first surplus line, whatever
    follows it (an endless pipe included).

    Raises:
        CorpusReadError: an input cannot be read, is not UTF-8, holds a line
            that is too long, is empty, or has more or fewer lines than the others.
    """
    if checkers is None:
        checkers = [LineChecker(s.name) for s in streams]
    while True:
        size = block_lines()
        chunks = [s.take(size) for s in streams]
        counts = [s.lines_taken for s in streams]
        if min(counts) != max(counts):
            short = min(streams, key=lambda s: s.lines_taken)
            long = max(streams, key=lambda s: s.lines_taken)
            if short.lines_taken == 0:
                raise CorpusReadError(_empty(short.name))
            raise CorpusReadError(
                f"line counts differ: {short.name} has {_lines(short.lines_taken)}, "
                f"{long.name} has more (it goes on at line {short.lines_taken + 1})")
        if not chunks[0]:
            if counts[0] == 0:
                raise CorpusReadError(_empty(streams[0].name))
            return
        for checker, chunk in zip(checkers, chunks):
            checker.feed(chunk)
        n = chunks[0].count(b"\n") + (not chunks[0].endswith(b"\n"))
        yield n, chunks


def check_same_length(hypothesis: CorpusFile, references: list[CorpusFile]) -> None:
    """Raise CorpusReadError naming both files when line counts differ."""
    for ref in references:
        if ref.n_lines != hypothesis.n_lines:
            raise CorpusReadError(
                f"line counts differ: {hypothesis.path} has {_lines(hypothesis.n_lines)}, "
                f"{ref.path} has {_lines(ref.n_lines)}"
            )


def check_line_counts(files: list[CorpusFile] | list[CorpusScan]) -> None:
    """Raise CorpusReadError naming the first two files whose line counts differ.

    Every file is compared with ``files[0]``, so the message names the first
    file and the first one that disagrees with it. Files are
    :class:`CorpusFile` or :class:`CorpusScan` (both have ``path`` and ``n_lines``).
    """
    if not files:
        return
    first = files[0]
    for other in files[1:]:
        if other.n_lines != first.n_lines:
            raise CorpusReadError(
                f"line counts differ: {first.path} has {_lines(first.n_lines)}, "
                f"{other.path} has {_lines(other.n_lines)}"
            )


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"
