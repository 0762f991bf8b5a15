"""Reading corpus files: one segment per line, UTF-8.

Rules (README "Reading rules"): the bytes must be UTF-8 (an invalid byte is
an error naming the file and line); lines end at ``\\n`` only (``\\r`` before
it is dropped, so CRLF files give the same tokens as LF files); a missing
final newline changes nothing; an empty line is an empty segment, never
skipped; a leading U+FEFF byte order mark is kept as part of the first line
(that is what published numbers assume) and reported as a warning.
Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:  # pathlib costs score's start-up 2 ms (urllib.parse, ipaddress): not imported
    from pathlib import Path

from .errors import InvalidInputError

__all__ = [
    "CorpusFile",
    "CorpusReadError",
    "CorpusScan",
    "scan_file",
    "iter_line_blocks",
    "decode_block",
    "READING_RULES",
    "MAX_LINE_BYTES",
    "read_lines",
    "check_same_length",
    "check_line_counts",
]

#: The reading rules in one paragraph, for ``--help`` and the README.
READING_RULES = (
    "Files are UTF-8, one segment per line; a line ends at LF only (a CR before "
    "the LF is dropped, so CRLF files give exactly the same tokens as LF files, "
    "and a warning says so; U+2028, U+0085 and form feeds do not end a line). "
    "A missing final newline changes nothing; an empty line is an empty segment, "
    "never skipped; a leading U+FEFF byte order mark is kept as part of the first "
    "token (the published WMT numbers assume it) and reported as a warning. A byte "
    "that is not UTF-8 is an error naming the file and line; a missing file, an "
    "empty file, files with different line counts (both files named) and a line longer "
    "than 8 MiB (a segment is a sentence or a document; longer ones would not be scored "
    "in bounded memory) are errors (exit 2)."
)

#: The longest line (bytes, without its line end) the streaming reader accepts: a segment's
#: statistics need all of its n-grams at once, about 30-50 bytes of memory per byte of text
#: (measured: a 10 MiB line against a 10 MiB reference peaks at 650 MiB with the C kernel, 880
#: MiB without), so a line of 100 MB is refused by :func:`scan_file` before it is read whole.
MAX_LINE_BYTES = 8 << 20


class CorpusReadError(InvalidInputError):
    """A corpus file cannot be read as the rules require."""


@dataclass(frozen=True)
class CorpusFile:
    """The lines of one corpus file.

    Attributes:
        path: the file as given.
        lines: one string per segment, without the line end.
        warnings: human-readable notes (a BOM, CRLF line ends).
    """

    path: str
    lines: list[str]
    warnings: list[str] = field(default_factory=list)

    @property
    def n_lines(self) -> int:
        """The number of segments (lines)."""
        return len(self.lines)


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
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise CorpusReadError(f"{name}: cannot read: {exc.strerror or exc}") from None
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


@dataclass(frozen=True)
class CorpusScan:
    """What :func:`scan_file` found: the file's line count and warnings, not its text.

    Attributes:
        path: the file as given.
        n_lines: its number of segments (lines, as :func:`read_lines` counts them).
        warnings: the same notes :func:`read_lines` gives.
    """

    path: str
    n_lines: int
    warnings: list[str] = field(default_factory=list)


_BOM = "\ufeff".encode("utf-8")

#: Bytes read at a time by :func:`scan_file` (then cut after the last LF).
SCAN_CHUNK_BYTES = 1 << 20


def scan_file(
    path: str | Path, *, chunk_bytes: int = SCAN_CHUNK_BYTES, name: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> CorpusScan:
    """Check a corpus file under the rules of this module without holding it.

    Reads the file in chunks of about ``chunk_bytes`` bytes, each ending
    after a LF, and finds what :func:`read_lines` would: the same errors
    (same messages, same first bad line), the same line count and the same
    warnings. Memory is one chunk, or one line of at most ``max_line_bytes``:
    a longer line is refused as soon as that many bytes have no LF. ``name``
    (default: ``path``) is the file's name in messages and in the result
    (e.g. the name a user gave for a pipe that was copied to ``path``).

    Raises:
        CorpusReadError: as :func:`read_lines`; or a line longer than
            ``max_line_bytes`` (its number and the limit named).
    """
    name = str(path) if name is None else name
    n_lines = crlf = 0
    first_line = ""
    inner: list[int] = []
    tail = b""
    try:
        with open(path, "rb") as handle:
            while True:
                block = handle.read(chunk_bytes)
                if len(tail) + len(block) > max_line_bytes:  # some line may be too long
                    _check_line_lengths(name, tail + block, n_lines, max_line_bytes)
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
                ascii_only = data.isascii()
                if not ascii_only:  # ASCII is UTF-8: only other bytes need decoding
                    try:
                        data.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        raise _decode_error(name, data, exc.start, n_lines) from None
                # LF and CR are ASCII, so lines and CRs are counted on the bytes
                chunk_lines = data.count(b"\n")
                if b"\r" in data:  # memchr; the two-byte count only when a CR is there
                    crlf += data.count(b"\r\n")
                if not data.endswith(b"\n"):  # the last line, without LF
                    chunk_lines += 1
                    crlf += data.endswith(b"\r")
                # U+FEFF is not ASCII: only other bytes can hold one
                bom_at = -1 if ascii_only else data.find(_BOM, 1 if n_lines == 0 else 0)
                if n_lines == 0:
                    first_line = _BOM.decode() if data.startswith(_BOM) else ""
                if bom_at >= 0:  # U+FEFF inside the text: number its lines (rare)
                    lines = _split_lines(data.decode("utf-8"))[0]
                    inner += [n_lines + n for n, line in enumerate(lines, start=1)
                              if "\ufeff" in line[n_lines == 0 and n == 1 :]]
                n_lines += chunk_lines
                if not block:
                    break
    except OSError as exc:
        raise CorpusReadError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if n_lines == 0:
        raise CorpusReadError(
            f"{name}: the file is empty (0 segments; an empty segment is an empty line)"
        )
    return CorpusScan(name, n_lines, _warnings(name, first_line, inner, crlf))


def _check_line_lengths(name: str, data: bytes, before: int, limit: int) -> None:
    """Raise CorpusReadError for the first line of ``data`` longer than ``limit`` bytes.

    ``data`` starts at the start of line ``before + 1``; its last line may be
    incomplete (no LF yet: it is too long if it already is). A CR before a LF,
    or at the end of ``data`` (a LF may follow; at the end of the file the
    rules drop it too), is not counted.
    """
    start, line = 0, before + 1
    while True:
        end = data.find(b"\n", start)
        stop = len(data) if end < 0 else end
        length = stop - (stop > start and data[stop - 1:stop] == b"\r") - start
        if length > limit:
            raise _too_long(name, line, limit)
        if end < 0:
            return
        start, line = end + 1, line + 1


def _too_long(name: str, line: int, limit: int) -> CorpusReadError:
    return CorpusReadError(
        f"{name}: line {line} is longer than {limit:,} bytes ({limit >> 20} MiB), the longest "
        "line bleu-compat reads (a segment is a sentence or a document: a longer one would not "
        "be scored in bounded memory)"
    )


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
