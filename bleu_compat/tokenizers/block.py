"""Whole-block tokenizing: every line of a block of a file at once, no Python object per character.

The fast path of ``bleu-compat score``. A *block* is the bytes of whole
lines of a UTF-8 file, each ending with LF (the last one possibly not), as
:func:`bleu_compat.corpus_io.iter_line_blocks` reads them. Its tokens are
returned as bytes in a *token block*: one line per input line, a line's
tokens separated by whitespace, which the C kernel's ``counts`` (or
``bytes.split()`` after :func:`bleu_compat.tokenizers.bytes_split_is_str_split`)
splits exactly as ``str.split()`` would split each line.

How each tokenizer is done here, and why it gives the reference's tokens
(:mod:`bleu_compat.tokenizers.reference`; the tests compare both, and
sacreBLEU, line by line):

* ``-lc``: ``str.lower()`` of the whole decoded block (or ``bytes.lower()``
  when it is ASCII). Lowercasing a block equals lowercasing each line: the
  only context ``str.lower()`` looks at is the final-sigma rule's, which stops
  at a character that is neither cased nor case-ignorable, and LF is neither.
* ``none``: the block itself (the split is the tokenizer).
* ``13a``: the C kernel's ``tokenize``, line by line: on a line holding
  ``&`` or ``<``, ``<skipped>`` removed and the four entities replaced in
  mteval's order (before ``rstrip``, not after: whitespace holds no entity,
  and trailing whitespace is a separator like 13a's padding space); then the
  four substitutions on the bytes (they test ASCII characters only), the
  split. (``-\\n`` and ``\\n`` cannot occur inside a line read from a file.)
* ``zh`` and ``char``: the C kernel per line.
* ``intl`` (both sacreBLEU 2.x's classes and 1.x's ``unicodedata`` ones): the C
  kernel's ``intl`` with the classes as code point ranges (:func:`intl_classes`;
  1.x's, from the running Python's ``unicodedata``, are looked up only for the
  characters the block holds: the rules test no other).
* No C kernel: the reference tokenizer line by line, joined.

The C kernel (``bleu_compat._ckernel``, built at install from
``bleu_compat/_ckernel.c``) is optional: without it, or with the
environment variable ``BLEU_COMPAT_PURE_PYTHON=1``, every tokenizer takes
the line-by-line path, with the same tokens.
"""

from __future__ import annotations

import functools
import os
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from ..corpus_io import decode_block
from .releases import variant

__all__ = ["kernel", "missing_kernel_note", "tokenize_block", "block_token_lists", "lowercase_block",
           "C_TOKENIZERS", "intl_classes", "intl_block"]

#: the tokenizers the C kernel does (``none`` needs no tokenizing, only its split)
C_TOKENIZERS = {"13a": 0, "zh": 1, "char": 2}

@functools.lru_cache(maxsize=1)
def kernel() -> Any:
    """The C kernel module, or None (not built, or ``BLEU_COMPAT_PURE_PYTHON=1``)."""
    if os.environ.get("BLEU_COMPAT_PURE_PYTHON") == "1":
        return None
    try:
        from .. import _ckernel  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _ckernel


def missing_kernel_note() -> str | None:
    """Why the C kernel is not used, when nobody asked for that (None: it is loaded, or
    ``BLEU_COMPAT_PURE_PYTHON=1`` asked for the pure-Python path).

    The usual case is ``python -m bleu_compat`` run from a checkout's root, where the
    source tree shadows the installed package and its compiled kernel: every line then
    goes through the pure-Python tokenizers (the same tokens, several times slower).
    """
    if kernel() is not None or os.environ.get("BLEU_COMPAT_PURE_PYTHON") == "1":
        return None
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.exists(os.path.join(package, "_ckernel.c")):
        return (f"the C kernel is not built in {package} (a source tree, which shadows an "
                "installed bleu-compat when run from its parent directory): the pure-Python "
                "path runs, with the same numbers, several times slower; build it there "
                "(pip install -e . in the checkout) or run the installed command elsewhere")
    return ("the C kernel was not built when bleu-compat was installed (no C compiler?): the "
            "pure-Python path runs, with the same numbers, several times slower")


def lowercase_block(data: bytes) -> bytes:
    """``str.lower()`` of every line of a UTF-8 block (the whole block at once).

    Raises:
        UnicodeDecodeError: ``data`` is not UTF-8.
    """
    if data.isascii():
        return data.lower()
    return data.decode("utf-8").lower().encode("utf-8")


def tokenize_block(data: bytes, name: str, *, lowercase: bool = False,
                   release: str | None = None, use_kernel: bool = True) -> bytes:
    """The token block of ``data`` under tokenizer ``name`` (see the module docstring).

    Args:
        data: whole lines of UTF-8 text, each ending with LF (the last may not).
        name: a tokenizer of :data:`bleu_compat.tokenizers.TOKENIZERS`.
        lowercase: sacreBLEU's ``-lc``.
        release: the sacreBLEU release whose tokenizer to reproduce (default: the newest).
        use_kernel: False takes the line-by-line path even where the C kernel is there
            (tests compare the two).

    Returns:
        One line per line of ``data``, whose ``str.split()`` is that line's tokens.
        ``none`` returns the (lowercased) block itself; the others are *normalized*: a
        line's tokens separated by one space, no space at a line's ends, every line ended
        by LF (the C kernel's ``counts(..., normalized=True)`` splits that at spaces).

    Raises:
        ConfigError: an unknown tokenizer, or one the release does not have.
        CorpusReadError: the line-by-line path met bytes that are not UTF-8.
    """
    from . import is_moses

    if is_moses(name):  # tokenizer.perl line by line, then -lc on its output (normalized)
        from .moses import tokenizer_for

        line_of = tokenizer_for(name).line
        text = "".join(" ".join(line_of(line).split()) + "\n" for line in decode_block(data))
        return (text.lower() if lowercase else text).encode("utf-8")
    kind = variant(name, release)
    if lowercase:
        try:
            data = lowercase_block(data)
        except UnicodeDecodeError:
            decode_block(data)  # raises the reading rules' error
            raise  # pragma: no cover - decode_block raised
    if kind == "none":
        return data
    k = kernel() if use_kernel else None
    if k is not None and kind in C_TOKENIZERS:
        return k.tokenize(data, C_TOKENIZERS[kind])
    if k is not None and kind in ("intl", "intl-unicodedata"):
        return intl_block(data, "regex" if kind == "intl" else "unicodedata", rstrip=True)
    from .releases import tokenizer_for

    tokenizer = tokenizer_for(name, release)
    return "".join(" ".join(tokenizer(line.rstrip())) + "\n"
                   for line in decode_block(data)).encode("utf-8")


def block_token_lists(data: bytes, name: str, *, lowercase: bool = False,
                      release: str | None = None) -> list[list[str]]:
    """The tokens of every line of a block, one list per line (:func:`tokenize_block`, split).

    Raises:
        ConfigError, CorpusReadError: as :func:`tokenize_block`.
    """
    block = tokenize_block(data, name, lowercase=lowercase, release=release)
    from . import is_moses

    if not is_moses(name) and variant(name, release) == "none":
        return [line.split() for line in decode_block(block)]
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError:
        decode_block(data)  # raises the reading rules' error
        raise  # pragma: no cover - decode_block raised
    return [line.split(" ") if line else [] for line in text.split("\n")[:-1]]


@functools.lru_cache(maxsize=1)
def _regex_pairs() -> tuple[bytes, bytes, bytes]:
    from array import array

    from . import unicode_tables as t

    def pairs(ranges: Any) -> bytes:
        return array("I", [x for pair in ranges for x in pair]).tobytes()

    return pairs(t.PUNCTUATION), pairs(t.SYMBOL), pairs(t.NUMBER)


def intl_classes(source: str, data: bytes = b"") -> tuple[bytes, bytes, bytes]:
    """intl's punctuation, symbol and number classes as the C kernel takes them (native
    uint32 ``(first, last)`` pairs, sorted).

    Args:
        source: ``"regex"``: sacreBLEU 2.x's (:mod:`bleu_compat.tokenizers.unicode_tables`);
            ``"unicodedata"``: sacreBLEU 1.x's and tensor2tensor's, from the running
            Python (:func:`bleu_compat.tokenizers.reference.unicodedata_classes`:
            punctuation ``P*`` but the backslash, symbols ``S*``, numbers the decimal
            digits ``re``'s ``\\d`` matches), for the characters of the UTF-8 ``data`` only.

    Raises:
        ValueError: an unknown source; UnicodeDecodeError: ``data`` is not UTF-8.
    """
    if source == "regex":
        return _regex_pairs()
    if source != "unicodedata":
        raise ValueError(f"intl classes: {source!r} is not regex or unicodedata")
    import sys
    import unicodedata
    from array import array

    found: tuple[list[int], list[int], list[int]] = ([], [], [])
    for ch in sorted(set(data.decode("utf-8"))):
        cp = ord(ch)
        if cp >= sys.maxunicode:  # those releases' tables stopped before sys.maxunicode
            continue
        cat = unicodedata.category(ch)
        if cat[0] == "P" and ch != "\\":
            found[0].extend((cp, cp))
        elif cat[0] == "S":
            found[1].extend((cp, cp))
        if ch.isdecimal():
            found[2].extend((cp, cp))
    return tuple(array("I", f).tobytes() for f in found)  # type: ignore[return-value]


def intl_block(data: bytes, source: str, *, rstrip: bool) -> bytes:
    """The token block of ``data`` under intl's rules with :func:`intl_classes` ``(source)``
    (the C kernel; ``rstrip``: each line stripped at its end first, as sacreBLEU does and
    tensor2tensor's ``bleu_tokenize`` does not).

    Raises:
        RuntimeError: the C kernel is not built.
    """
    k = kernel()
    if k is None:
        raise RuntimeError("intl_block needs the C kernel")
    return k.intl(data, *intl_classes(source, data), rstrip)
