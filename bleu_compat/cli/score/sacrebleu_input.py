"""How the ``sacrebleu`` command reads its inputs, where that differs from bleu-compat's files.

Facts read from sacreBLEU 2.6.0's ``sacrebleu/sacrebleu.py`` ``main`` (the
reading of references and systems) and ``utils.py`` ``smart_open``:

* ``-e/--encoding ENC`` opens every input in ENC (references, ``-i`` files
  and standard input): :class:`Transcoded` decodes ENC as it is read and hands
  on UTF-8, so the rest of bleu-compat (the UTF-8 kernel, the reading rules)
  sees what sacreBLEU's decoded text would be;
* with no ``-i``, the system comes from standard input, read in Python's
  universal-newline mode: a lone CR ends a line there as LF and CRLF do
  (:class:`UniversalNewlines`); files are read with ``newline="\\n"``, where a
  CR stays in the line;
* standard input holds one system per tab-separated column: the first line
  (trailing whitespace stripped, ``str.rstrip``) decides how many, and every
  later line must have as many (:class:`TabColumns`), the systems being named
  ``System 1``, ``System 2``, ...;
* ``-nr N`` splits each line of the one reference file (trailing whitespace
  stripped) at its first N - 1 tabs into N references, and a line with another
  number of fields is an error (sacreBLEU's ``FATAL: line L: expected N fields``).

Every reader here is a stream: bounded memory whatever the input's size (an
endless pipe stops at the first line the others do not have).
"""

from __future__ import annotations

# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from bleu_compat.corpus_io import MAX_LINE_BYTES, CorpusReadError, LineStream

__all__ = ["Transcoded", "UniversalNewlines", "TabColumns", "encoding_name", "is_utf8"]


def encoding_name(encoding: str) -> str:
    """The codec's canonical name for ``-e ENC`` (``UTF8`` -> ``utf-8``).

    Raises:
        LookupError: Python has no such codec (the message names it).
    """
    import codecs

    info = codecs.lookup(encoding)
    # a codec that does not turn bytes into text (base64, rot13, zlib) cannot read a file
    if not getattr(info, "_is_text_encoding", True):
        raise LookupError(f"{encoding!r} is not a text encoding")
    return info.name


def is_utf8(encoding: str) -> bool:
    """Whether ``-e ENC`` is UTF-8 itself (then inputs are read as they are)."""
    return encoding_name(encoding) == "utf-8"


class Transcoded:
    """An input in encoding ``encoding``, read as UTF-8 bytes (``read(size)``).

    Decoding errors become :class:`~bleu_compat.corpus_io.CorpusReadError`
    naming the input and the encoding (sacreBLEU stops with a traceback there).
    """

    def __init__(self, name: str, handle: Any, encoding: str) -> None:
        import codecs

        self._name, self._encoding = name, encoding
        self._read = getattr(handle, "read1", None) or handle.read
        self._decoder = codecs.getincrementaldecoder(encoding)("strict")
        self._done = False

    def read(self, size: int = -1) -> bytes:
        """Up to about ``size`` bytes of UTF-8 (``b""`` at the end)."""
        while not self._done:
            data = self._read(size if size and size > 0 else 1 << 20)
            final = not data
            try:
                text = self._decoder.decode(data, final)
            except UnicodeDecodeError as exc:
                raise CorpusReadError(
                    f"{self._name}: cannot be decoded as {self._encoding} (-e): {exc.reason} "
                    f"at a byte {exc.object[exc.start:exc.start + 1]!r}") from None
            except ValueError as exc:  # a codec's own complaint
                raise CorpusReadError(f"{self._name}: cannot be decoded as {self._encoding} "
                                      f"(-e): {exc}") from None
            self._done = final
            if text:
                return text.encode("utf-8", "surrogatepass")
        return b""


class UniversalNewlines:
    """Standard input as sacreBLEU reads it with no ``-i``: CRLF and a lone CR become LF.

    Python's text mode with ``newline=None`` (``io.TextIOWrapper``'s default),
    on UTF-8 bytes (CR and LF are never part of another character there).
    """

    def __init__(self, handle: Any) -> None:
        self._read = getattr(handle, "read1", None) or handle.read
        self._after_cr = False  # the last chunk ended with a CR, turned into a LF already

    def read(self, size: int = -1) -> bytes:
        data = self._read(size if size and size > 0 else 1 << 20)
        if not data:
            return b""
        if self._after_cr and data.startswith(b"\n"):  # the LF of a CRLF cut between chunks
            data = data[1:]
            if not data:
                self._after_cr = False
                return self.read(size)
        self._after_cr = data.endswith(b"\r")
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return data


class _Column:
    """One column of a :class:`TabColumns`: a binary reader for a LineStream."""

    def __init__(self, owner: TabColumns, index: int) -> None:
        self._owner, self._index = owner, index

    def read(self, size: int = -1) -> bytes:
        return self._owner.read_column(self._index)

    def close(self) -> None:
        pass


#: lines of the source split at a time
_SPLIT_LINES = 4096


class TabColumns:
    """The tab-separated columns of one input, each read as an input of its own.

    ``source`` is a :class:`~bleu_compat.corpus_io.LineStream` over the input;
    each line, its trailing whitespace stripped (``str.rstrip``), is split at
    its tabs (at most ``maxsplit``; -1: every tab), and must give ``fields``
    fields; column k's reader (:meth:`column`) hands on the k-th fields, one
    per line. When ``fields`` is 1 and ``maxsplit`` -1 (standard input holding
    one system), a block without a tab is handed on as it is. The columns are
    read together (:func:`~bleu_compat.corpus_io.aligned_blocks`), so what is
    buffered stays about one block.

    Raises (from the readers):
        CorpusReadError: a line has another number of fields (``mismatch``
            gives the message for line number L and the count found).
    """

    def __init__(self, source: LineStream, fields: int, maxsplit: int, mismatch: Any,
                 head: bytes | None = None) -> None:
        self._source, self._fields, self._maxsplit = source, fields, maxsplit
        self._mismatch = mismatch
        self._pending: list[list[bytes]] = [[] for _ in range(fields)]
        self._line = 0  # lines of the source split so far
        self._ended = False
        self._head = head  # the first line, taken from the source already (first_fields)
        if head == b"":  # an empty input is one empty line, as sacreBLEU's readline() gives
            self._pending = [[b"\n"] for _ in range(fields)]
            self._ended = True

    def column(self, index: int) -> _Column:
        """The reader of column ``index`` (0-based)."""
        return _Column(self, index)

    def _split_more(self) -> None:
        if self._head is not None:
            block, self._head = self._head + self._source.take(_SPLIT_LINES - 1), None
        else:
            block = self._source.take(_SPLIT_LINES)
        if not block:
            self._ended = True
            return
        if self._fields == 1 and self._maxsplit == -1 and b"\t" not in block:
            self._line += block.count(b"\n") + (not block.endswith(b"\n"))
            self._pending[0].append(block if block.endswith(b"\n") else block + b"\n")
            return
        text = block.decode("utf-8", "surrogateescape")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        columns: list[list[str]] = [[] for _ in range(self._fields)]
        for line in lines:
            self._line += 1
            parts = line.rstrip().split("\t", self._maxsplit)
            if len(parts) != self._fields:
                raise CorpusReadError(self._mismatch(self._line, len(parts)))
            for column, part in zip(columns, parts):
                column.append(part)
        for pending, column in zip(self._pending, columns):
            pending.append(("\n".join(column) + "\n").encode("utf-8", "surrogateescape"))

    def read_column(self, index: int) -> bytes:
        while not self._pending[index] and not self._ended:
            self._split_more()
        if not self._pending[index]:
            return b""
        return self._pending[index].pop(0)


def first_fields(source: LineStream) -> tuple[bytes, int]:
    """The first line of ``source`` (taken) and its number of tab-separated fields, as
    sacreBLEU counts the systems on standard input (trailing whitespace stripped first).
    An empty input is one empty line (sacreBLEU's ``readline()`` gives ``''``)."""
    line = source.take(1)
    text = line.decode("utf-8", "surrogateescape")
    return line, len(text.rstrip().split("\t"))


def line_stream(name: str, reader: Any) -> LineStream:
    """A LineStream over ``reader`` with the reading rules' line bound."""
    return LineStream(name, reader, max_line_bytes=MAX_LINE_BYTES)
