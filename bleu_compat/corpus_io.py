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
from pathlib import Path

from .errors import InvalidInputError

__all__ = [
    "CorpusFile",
    "CorpusReadError",
    "READING_RULES",
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
    "empty file or files with different line counts (both files named) are errors "
    "(exit 2)."
)


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


def read_lines(path: str | Path) -> CorpusFile:
    """Read a corpus file under the rules of this module.

    Raises:
        CorpusReadError: the file cannot be opened, is empty (0 bytes: no
            segment at all), or a line is not UTF-8.
    """
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CorpusReadError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if not data:
        raise CorpusReadError(
            f"{name}: the file is empty (0 segments; an empty segment is an empty line)"
        )
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    lines: list[str] = []
    crlf = 0
    for number, raw in enumerate(raw_lines, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
            crlf += 1
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise CorpusReadError(
                f"{name}: line {number} is not UTF-8 (invalid byte 0x{raw[exc.start]:02x} "
                f"at column {exc.start + 1})"
            ) from None
    warnings = []
    if lines and lines[0].startswith("\ufeff"):
        warnings.append(
            f"{name}: line 1 starts with a U+FEFF byte order mark; it is kept as part "
            "of the first token"
        )
    inner = [n for n, line in enumerate(lines, start=1) if "\ufeff" in line[n == 1 :]]
    if inner:
        warnings.append(
            f"{name}: U+FEFF inside the text on {len(inner)} line(s) (first: line "
            f"{inner[0]}); it is kept in its token"
        )
    if crlf:
        warnings.append(f"{name}: {crlf} line(s) end with CRLF; the CR is dropped")
    return CorpusFile(name, lines, warnings)


def check_same_length(hypothesis: CorpusFile, references: list[CorpusFile]) -> None:
    """Raise CorpusReadError naming both files when line counts differ."""
    for ref in references:
        if len(ref.lines) != len(hypothesis.lines):
            raise CorpusReadError(
                f"line counts differ: {hypothesis.path} has {_lines(len(hypothesis.lines))}, "
                f"{ref.path} has {_lines(len(ref.lines))}"
            )


def check_line_counts(files: list[CorpusFile]) -> None:
    """Raise CorpusReadError naming the first two files whose line counts differ.

    Every file is compared with ``files[0]``, so the message names the first
    file and the first one that disagrees with it.
    """
    if not files:
        return
    first = files[0]
    for other in files[1:]:
        if len(other.lines) != len(first.lines):
            raise CorpusReadError(
                f"line counts differ: {first.path} has {_lines(len(first.lines))}, "
                f"{other.path} has {_lines(len(other.lines))}"
            )


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"
