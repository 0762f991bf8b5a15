"""Tokenizing raw text with sacreBLEU's own tokenizers (CLI convenience).

Outside the tools' contract: the cards take tokens. ``bleu-compat score
--tokenize`` uses this so that raw WMT files can be scored exactly as
sacreBLEU scores them. sacreBLEU is imported lazily, so the core stays free
of it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .errors import ConfigError, OracleUnavailableError

__all__ = [
    "TOKENIZERS",
    "get_tokenizer",
    "tokenize_lines",
    "STR_ONLY_WHITESPACE",
    "bytes_split_is_str_split",
    "split_none_bulk",
    "BULK_HYP_END",
    "BULK_REF_END",
]

#: ``none`` splits on whitespace (Python ``str.split``); the others are sacreBLEU's.
TOKENIZERS = ("none", "13a", "intl", "zh", "char")


def get_tokenizer(name: str) -> Callable[[str], list[str]]:
    """A function from one line of raw text to its tokens.

    ``none`` is ``str.split()`` (Unicode whitespace, as sacreBLEU's
    ``tokenize='none'`` followed by its whitespace split); the others run
    sacreBLEU's tokenizer and then split its output on whitespace, exactly as
    sacreBLEU's BLEU does.

    Raises:
        ConfigError: unknown tokenizer name.
        OracleUnavailableError: sacreBLEU is not installed.
    """
    if name not in TOKENIZERS:
        raise ConfigError(f"tokenize={name!r} must be one of {TOKENIZERS}")
    if name == "none":
        return str.split
    try:
        from sacrebleu.metrics.bleu import _get_tokenizer
    except ImportError:
        try:  # sacreBLEU 1.4-1.5: a table of tokenizer classes
            from sacrebleu.tokenizers import TOKENIZERS as _TABLE
        except ImportError as exc:
            raise OracleUnavailableError(
                f"sacreBLEU is needed for --tokenize ({_installed()})") from exc

        def _get_tokenizer(name: str) -> Callable[[], Callable[[str], str]]:
            return _TABLE[name]  # type: ignore[no-any-return]
    tokenizer = _get_tokenizer(name)()

    def tokenize(line: str) -> list[str]:
        return tokenizer(line.rstrip()).split()

    return tokenize


def _installed() -> str:
    from importlib import metadata

    try:
        return f"sacreBLEU {metadata.version('sacrebleu')} is installed but has no usable tokenizer API"
    except metadata.PackageNotFoundError:
        return "sacreBLEU is not installed"


def tokenize_lines(lines: Iterable[str], name: str) -> list[list[str]]:
    """Tokenize every line with :func:`get_tokenizer` ``(name)``."""
    tokenize = get_tokenizer(name)
    return [tokenize(line) for line in lines]


#: Characters that ``str.split()`` treats as whitespace but ``bytes.split()``
#: does not (``bytes.split()`` splits on the ASCII space, TAB, LF, VT, FF, CR
#: only): the ASCII information separators and every non-ASCII character
#: for which ``str.isspace()`` holds (Unicode 15: White_Space or bidi class
#: WS/B/S). A test derives this set from ``str.isspace`` over all code points.
STR_ONLY_WHITESPACE = (
    "\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_STR_ONLY_WS_RE = None
#: The bytes that ``bytes.split()`` splits on.
BYTES_WHITESPACE = b" \t\n\r\x0b\x0c"


def _str_only_whitespace_re() -> Any:
    global _STR_ONLY_WS_RE
    if _STR_ONLY_WS_RE is None:
        import re

        _STR_ONLY_WS_RE = re.compile(
            b"|".join(re.escape(c.encode("utf-8")) for c in STR_ONLY_WHITESPACE)
        )
    return _STR_ONLY_WS_RE


#: Sentence ends for the bulk split (:func:`split_none_bulk`): control bytes
#: that :func:`bytes_split_is_str_split` makes sure the text does not hold.
BULK_HYP_END = b"\x00"
BULK_REF_END = b"\x01"


def bytes_split_is_str_split(data: bytes) -> bool:
    """Whether :func:`split_none_bulk` may split UTF-8 ``data`` in bulk.

    True when ``bytes.split()`` of ``data`` gives the UTF-8 of ``str.split()``'s
    tokens, i.e. ``data`` holds none of :data:`STR_ONLY_WHITESPACE` (UTF-8 is
    self-synchronising, so a character's bytes never occur inside another's),
    and ``data`` holds neither sentence end (:data:`BULK_HYP_END`,
    :data:`BULK_REF_END`).
    """
    if BULK_HYP_END in data or BULK_REF_END in data:
        return False
    if data.isascii():  # only the ASCII separators can be there (memchr each)
        return not any(c in data for c in (b"\x1c", b"\x1d", b"\x1e", b"\x1f"))
    return _str_only_whitespace_re().search(data) is None


def split_none_bulk(data: bytes, end: bytes) -> list[bytes]:
    """Whitespace tokens of every line of a UTF-8 block, in bulk, each line followed by ``end``.

    For ``--tokenize none`` on a block of whole lines (each ending with LF,
    the last one possibly without) that :func:`bytes_split_is_str_split`
    accepts: one ``bytes.split()`` of the block with ``end`` inserted at
    every line end, so the result is line 1's tokens, ``end``, line 2's
    tokens, ``end``, ... (UTF-8 ``bytes``; CR is whitespace, so a CR before
    the LF changes no token), exactly the tokens of ``str.split()`` line by
    line.
    """
    if not data.endswith(b"\n"):
        data += b"\n"
    return data.replace(b"\n", b"\n" + end + b"\n").split()
