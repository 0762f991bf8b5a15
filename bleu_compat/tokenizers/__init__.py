"""Tokenizing raw text as sacreBLEU does, with our own tokenizers (CLI convenience).

Outside the tools' contract: the cards take tokens. ``bleu-compat score
--tokenize`` uses these so that raw WMT files are scored exactly as
sacreBLEU scores them. The tokenizers are ours (:mod:`.reference`, the
specification, written from the rules; :mod:`.block`, the whole-block fast
path; :mod:`.releases`, what differs between sacreBLEU releases) and import
nothing of sacreBLEU: sacreBLEU is imported only to run sacreBLEU (the
adapters, ``--compare``, ``crosscheck``), where :mod:`.check` compares the
installed release's tokens with ours. :mod:`.segmenters` holds sacreBLEU's
tokenizers that call MeCab or SentencePiece (the segmenters sacreBLEU calls;
the steps around them are ours).
"""

from __future__ import annotations

# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

from ..errors import ConfigError
from .releases import NEWEST, SEGMENTERS, tokenizer_for

__all__ = [
    "TOKENIZERS",
    "MOSES_TOKENIZERS",
    "is_moses",
    "get_tokenizer",
    "tokenize_lines",
    "STR_ONLY_WHITESPACE",
    "bytes_split_is_str_split",
    "split_none_bulk",
    "BULK_HYP_END",
    "BULK_REF_END",
    "NEWEST",
    "SEGMENTERS",
    "ALL_TOKENIZERS",
    "tokenizer_signature",
]


#: sacreBLEU's tokenizer names that bleu-compat implements by rule (:mod:`.reference`).
TOKENIZERS = ("none", "13a", "intl", "zh", "char")
#: every tokenizer name :func:`get_tokenizer` takes: the rule-based ones and sacreBLEU's that
#: call a segmenter (MeCab, SentencePiece: the ``ja``, ``ko`` and ``spm`` extras; see
#: :mod:`.segmenters`)
ALL_TOKENIZERS = (*TOKENIZERS, *SEGMENTERS)
#: Moses tokenizer.perl (:mod:`.moses`; not sacreBLEU's): ``moses``, ``moses-a`` (``-a``), each
#: also with a language, ``moses-de``, ``moses-a-de`` (without one: the target of ``-l``, else en)
MOSES_TOKENIZERS = ("moses", "moses-a")


def is_moses(name: str) -> bool:
    """Whether ``name`` is a Moses tokenization (``moses``, ``moses-a``, ``moses-LANG`` ...)."""
    return isinstance(name, str) and (name == "moses" or name.startswith("moses-"))


def moses_then_lowercase(name: str, lowercase: bool) -> Callable[[str], list[str]]:
    """tokenizer.perl's tokens of a line, lowercased (``str.lower``) after it when asked: the
    Moses pipeline tokenizes the files first, and a scorer's ``-lc`` acts on its output."""
    from .moses import tokenizer_for

    line_of = tokenizer_for(name).line
    if lowercase:
        return lambda line: line_of(line).lower().split()
    return lambda line: line_of(line).split()


def get_tokenizer(name: str, *, lowercase: bool = False,
                  release: str | None = None) -> Callable[[str], list[str]]:
    """A function from one line of raw text to its tokens, as sacreBLEU's BLEU counts them.

    sacreBLEU's order of steps: ``str.lower()`` when ``lowercase`` (its
    ``-lc``), ``rstrip()``, the tokenizer, the split on whitespace (Python
    ``str.split()``: the 29 characters of ``str.isspace()``). ``none`` is the
    split alone; ``13a``, ``intl``, ``zh`` and ``char`` are described in
    :mod:`bleu_compat.tokenizers.reference`.

    Args:
        name: one of :data:`ALL_TOKENIZERS`.
        lowercase: lowercase first (sacreBLEU's ``-lc``).
        release: the sacreBLEU release whose tokenizer to reproduce (default:
            the newest measured, :data:`NEWEST`; see :mod:`.releases`).

    Returns:
        ``line -> list[str]`` (tokens; never empty strings).

    A Moses name (:func:`is_moses`) is tokenizer.perl's output split on whitespace, then
    lowercased with ``lowercase`` (:func:`moses_then_lowercase`: after, not before).

    Raises:
        ConfigError: unknown tokenizer name, or one the release does not have;
            :class:`~bleu_compat.tokenizers.segmenters.SegmenterUnavailable` (a
            ConfigError) when a segmenter's package or model is missing.
    """
    if is_moses(name):
        return moses_then_lowercase(name, lowercase)
    if name not in ALL_TOKENIZERS:
        raise ConfigError(f"tokenize={name!r} must be one of {ALL_TOKENIZERS}")
    tokenizer = tokenizer_for(name, release)
    if name == "none" and not lowercase:
        return str.split
    if lowercase:
        return lambda line: tokenizer(line.lower().rstrip())
    return lambda line: tokenizer(line.rstrip())


def tokenizer_signature(name: str) -> str:
    """The ``tok:`` value of sacreBLEU 2.6.0's signature for tokenizer ``name``: the name
    itself, except the segmenters' (``ja-mecab-0.996-IPA``, ``flores101`` for ``spm``, ...:
    :func:`bleu_compat.tokenizers.segmenters.signature`).

    Raises:
        SegmenterUnavailable: a MeCab tokenizer that cannot run here.
    """
    if name in SEGMENTERS:
        from .segmenters import signature

        return signature(name)
    return name


def tokenize_lines(lines: Iterable[str], name: str, *, lowercase: bool = False,
                   release: str | None = None) -> list[list[str]]:
    """Tokenize every line with :func:`get_tokenizer` ``(name, lowercase=..., release=...)``."""
    tokenize = get_tokenizer(name, lowercase=lowercase, release=release)
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
