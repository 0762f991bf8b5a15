"""The reference tokenizers: sacreBLEU's ``none``, ``13a``, ``intl``, ``zh`` and ``char``, one line at a time.

This module is the specification the fast paths (:mod:`bleu_compat.tokenizers.block`,
the C kernel) are tested against. It is written from the rules as documented
facts, never from sacreBLEU's code, and imports nothing of sacreBLEU:

* **13a** is NIST's ``mteval-v13a.pl`` tokenizer (the ``tokenization`` routine
  of the script WMT used): remove ``<skipped>``, join ``-\\n`` hyphenation,
  turn ``\\n`` into a space, replace the entities ``&quot;`` ``&amp;``
  ``&lt;`` ``&gt;`` in that order (so ``&amp;lt;`` becomes ``<``), pad the
  line with a space on each side, then four substitutions, each a left-to-right
  scan of non-overlapping matches: every character of
  :data:`PUNCT_13A` gets spaces around it; a period or comma after a
  non-digit gets spaces (``X.`` -> ``X . ``); a period or comma before a
  non-digit gets spaces (``.X`` -> `` . X``); a hyphen after a digit gets
  spaces (``3-`` -> ``3 - ``). The rules test ASCII characters only
  (``[^0-9]`` is any character but an ASCII digit), so they act the same on
  UTF-8 bytes (``mteval-v13a.pl`` lines 926-952; sacreBLEU's documentation
  says its ``13a`` is equivalent).
* **zh** (sacreBLEU's Chinese tokenizer, by Shujian Huang): strip the line,
  put spaces around every character of :data:`ZH_RANGES`, then 13a's four
  substitutions, *without* the entity step and *without* the padding spaces
  (so a period at the very end of a line after a digit stays attached:
  ``2023.`` is one token, where 13a gives ``2023 .``).
* **intl** (``mteval-v14.pl``'s international tokenizer): a punctuation
  character after a non-number gets spaces (``X.`` -> ``X . ``), one before a
  non-number too (``.X`` -> `` . X``), every symbol gets spaces; no padding.
  Which characters are punctuation, symbols and numbers is data
  (:class:`IntlClasses`): sacreBLEU 2.x asks the ``regex`` module
  (``\\p{P}``, ``\\p{S}``, ``\\P{N}``), whose tables our
  :mod:`bleu_compat.tokenizers.unicode_tables` records; sacreBLEU 1.x built
  the classes from Python's ``unicodedata`` (see :func:`unicodedata_classes`).
* **char**: every character that is not whitespace is a token.
* **none**: the whitespace split alone.

Every tokenizer's output is split on whitespace as Python's ``str.split()``
does: the 29 characters for which ``str.isspace()`` holds (U+001C-U+001F,
U+0085 and NBSP included; U+200B and U+FEFF are not whitespace).
sacreBLEU's order of steps is :func:`tokenize_line`'s: lowercase (Unicode
``str.lower()``) with ``-lc``, ``rstrip()``, the tokenizer, the split.
"""

from __future__ import annotations

import functools
import re
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence

__all__ = [
    "PUNCT_13A", "ZH_RANGES", "IntlClasses", "regex_classes", "unicodedata_classes",
    "mteval_13a", "zh", "intl", "char", "none", "tokenize_line", "is_zh_char",
]

#: The characters 13a's first rule surrounds with spaces: the ASCII space and
#: every printable ASCII character that is neither a letter, a digit, nor one of
#: ``'`` ``,`` ``-`` ``.`` (mteval-v13a.pl's class ``[\\{-\\~\\[-\\` -\\&\\(-\\+\\:-\\@\\/]``:
#: U+0020-U+0026, U+0028-U+002B, U+002F, U+003A-U+0040, U+005B-U+0060, U+007B-U+007E).
PUNCT_13A = " !\"#$%&()*+/:;<=>?@[\\]^_`{|}~"

#: The character ranges zh puts spaces around, inclusive, as sacreBLEU's zh
#: tokenizer (every release from 1.2 to 2.6) actually tests them. Its table
#: lists CJK blocks by their first and last character; two entries were
#: written with a 5-digit ``\\u`` escape, which Python reads as a 4-digit
#: escape and a digit (``'\\u20000'`` is U+2000 followed by ``0``; sacreBLEU
#: issue #298), and comparing one character with those two-character strings
#: makes the ranges U+2001-U+2A6D (meant: CJK Extension B, U+20000-U+2A6D6)
#: and U+2F81-U+2FA1 (meant: the CJK Compatibility Supplement,
#: U+2F800-U+2FA1D). So zh separates General Punctuation, currency signs,
#: arrows, mathematical operators ... (U+2001-U+2A6D) and not Extension B.
#: Measured on every release; ``oracle_tests/test_tokenizers.py`` checks every
#: code point against the installed sacreBLEU.
ZH_RANGES: tuple[tuple[int, int], ...] = (
    (0x3400, 0x4DB5),    # CJK Unified Ideographs Extension A (Unicode 3.0)
    (0x4E00, 0x9FA5),    # CJK Unified Ideographs (1.1)
    (0x9FA6, 0x9FBB),    # CJK Unified Ideographs (4.1)
    (0xF900, 0xFA2D),    # CJK Compatibility Ideographs (1.1)
    (0xFA30, 0xFA6A),    # CJK Compatibility Ideographs (3.2)
    (0xFA70, 0xFAD9),    # CJK Compatibility Ideographs (4.1)
    (0x2001, 0x2A6D),    # meant: Extension B U+20000-U+2A6D6 (#298)
    (0x2F81, 0x2FA1),    # meant: Compatibility Supplement U+2F800-U+2FA1D (#298)
    (0xFF00, 0xFFEF),    # Halfwidth and Fullwidth Forms
    (0x2E80, 0x2EFF),    # CJK Radicals Supplement
    (0x3000, 0x303F),    # CJK Symbols and Punctuation
    (0x31C0, 0x31EF),    # CJK Strokes
    (0x2F00, 0x2FDF),    # Kangxi Radicals
    (0x2FF0, 0x2FFF),    # Ideographic Description Characters
    (0x3100, 0x312F),    # Bopomofo
    (0x31A0, 0x31BF),    # Bopomofo Extended
    (0xFE10, 0xFE1F),    # Vertical Forms
    (0xFE30, 0xFE4F),    # CJK Compatibility Forms
    (0x2600, 0x26FF),    # Miscellaneous Symbols
    (0x2700, 0x27BF),    # Dingbats
    (0x3200, 0x32FF),    # Enclosed CJK Letters and Months
    (0x3300, 0x33FF),    # CJK Compatibility
)


def _class(ranges: Sequence[tuple[int, int]]) -> str:
    """The inside of a ``re`` character class holding ``ranges`` (every character escaped)."""
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                   for a, b in ranges)


# --- 13a and zh ----------------------------------------------------------------------

_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


#: 13a's first rule, "put spaces around every character of the class": a one-character
#: pattern's non-overlapping matches are all its occurrences, so it is one str.replace per
#: character of the class; the space first, so that only the original spaces are tripled and
#: the text is the regular expression's, character for character (10 times faster than it).
_PUNCT_13A_PAIRS = tuple((c, f" {c} ") for c in PUNCT_13A)
assert PUNCT_13A[0] == " "


@functools.lru_cache(maxsize=1)
def _western() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    return (
        re.compile(r"([^0-9])([.,])"),   # mteval-v13a.pl: "tokenize period and comma unless preceded by a digit"
        re.compile(r"([.,])([^0-9])"),   # "tokenize period and comma unless followed by a digit"
        re.compile(r"([0-9])(-)"),       # "tokenize dash when preceded by a digit"
    )


def _western_rules(text: str) -> str:
    """13a's four substitutions (the "language-dependent part"), in order, on ``text`` as is."""
    dot_after_nondigit, dot_before_nondigit, dash_after_digit = _western()
    for character, spaced in _PUNCT_13A_PAIRS:
        if character in text:
            text = text.replace(character, spaced)
    text = dot_after_nondigit.sub(r"\1 \2 ", text)
    text = dot_before_nondigit.sub(r" \1 \2", text)
    return dash_after_digit.sub(r"\1 \2 ", text)


def mteval_13a(line: str) -> list[str]:
    """The tokens of ``line`` under 13a (mteval-v13a.pl; see the module docstring)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        for entity, character in _ENTITIES:
            line = line.replace(entity, character)
    return _western_rules(f" {line} ").split()


@functools.lru_cache(maxsize=1)
def _zh_re() -> re.Pattern[str]:
    return re.compile("[" + _class(sorted(ZH_RANGES)) + "]")


def is_zh_char(character: str) -> bool:
    """Whether zh puts spaces around ``character`` (one character; :data:`ZH_RANGES`)."""
    return _zh_re().fullmatch(character) is not None


def zh(line: str) -> list[str]:
    """The tokens of ``line`` under zh (see the module docstring)."""
    return _western_rules(_zh_re().sub(r" \g<0> ", line.strip())).split()


# --- intl ----------------------------------------------------------------------------


class IntlClasses:
    """The character classes intl's rules test, as ``re`` class bodies, and where they come from.

    Attributes:
        source: what decided the classes, e.g. ``"regex 2026.11.19 (Unicode 18.0.0)"``.
        punctuation: the characters rules 1 and 2 separate.
        symbol: the characters rule 3 separates.
        number: the body of a class of the "numbers": a punctuation character next to
            one stays attached to it (rules 1 and 2 need a non-number).
    """

    __slots__ = ("source", "punctuation", "symbol", "number", "_rules")

    def __init__(self, source: str, punctuation: str, symbol: str, number: str) -> None:
        self.source, self.punctuation, self.symbol, self.number = source, punctuation, symbol, number
        p, s, n = punctuation, symbol, number
        self._rules = (re.compile(f"([^{n}])([{p}])"), re.compile(f"([{p}])([^{n}])"),
                       re.compile(f"[{s}]"))

    def __repr__(self) -> str:
        return f"IntlClasses({self.source!r})"

    def tokens(self, line: str) -> list[str]:
        """The tokens of ``line`` under intl with these classes."""
        after_non_number, before_non_number, symbol = self._rules
        line = after_non_number.sub(r"\1 \2 ", line)
        line = before_non_number.sub(r" \1 \2", line)
        return symbol.sub(r" \g<0> ", line).split()


@functools.lru_cache(maxsize=1)
def regex_classes() -> IntlClasses:
    """sacreBLEU 2.x's intl classes: ``\\p{P}``, ``\\p{S}``, ``\\p{N}`` of our recorded ``regex`` tables.

    The tables are :mod:`bleu_compat.tokenizers.unicode_tables` (a measurement of
    the ``regex`` release named there), so the tokens do not depend on the
    ``regex`` or Python installed here.
    """
    from . import unicode_tables as t

    return IntlClasses(f"regex {t.REGEX_RELEASE} (Unicode {t.UNICODE_VERSION})",
                       _class(t.PUNCTUATION), _class(t.SYMBOL), _class(t.NUMBER))


@functools.lru_cache(maxsize=1)
def unicodedata_classes() -> IntlClasses:
    """sacreBLEU 1.x's intl classes (1.2.x-1.5.1), from the running Python's ``unicodedata``.

    Those releases built the classes at run time from ``unicodedata.category``:
    punctuation is every code point whose category starts with ``P`` except the
    backslash (their class was the characters pasted between brackets, where the
    backslash escapes the ``]`` after it), symbols every ``S*``, and "not a number"
    is ``[^\\d]``: a *decimal digit* (category Nd) is all that keeps punctuation
    attached, where 2.x's ``\\P{N}`` also counts Nl and No (``Ⅻ``, ``½``). The
    tables are those of the Python that runs (``unicodedata.unidata_version``), as
    they were for those releases.
    """
    import sys
    import unicodedata

    def ranges(accept: Callable[[str], bool]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for cp in range(sys.maxunicode):  # those releases stopped before sys.maxunicode
            if accept(unicodedata.category(chr(cp))):
                if out and out[-1][1] == cp - 1:
                    out[-1] = (out[-1][0], cp)
                else:
                    out.append((cp, cp))
        return out

    punct = [r for r in ranges(lambda c: c[0] == "P")]
    punct = [piece for a, b in punct for piece in _without(a, b, ord("\\"))]
    return IntlClasses(f"unicodedata {unicodedata.unidata_version} (Python's, at run time)",
                       _class(punct), _class(ranges(lambda c: c[0] == "S")), r"\d")


def _without(a: int, b: int, cp: int) -> list[tuple[int, int]]:
    if not a <= cp <= b:
        return [(a, b)]
    return [r for r in ((a, cp - 1), (cp + 1, b)) if r[0] <= r[1]]


def intl(line: str, classes: IntlClasses | None = None) -> list[str]:
    """The tokens of ``line`` under intl (default: sacreBLEU 2.x's classes, :func:`regex_classes`)."""
    return (classes or regex_classes()).tokens(line)


# --- char and none -------------------------------------------------------------------


def char(line: str) -> list[str]:
    """Every character of ``line`` that is not whitespace (``str.isspace``), one token each."""
    return [c for c in line if not c.isspace()]


def none(line: str) -> list[str]:
    """``line.split()``."""
    return line.split()


def tokenize_line(line: str, tokenizer: Callable[[str], list[str]], lowercase: bool = False) -> list[str]:
    """sacreBLEU's order of steps on one line: ``str.lower()`` (``-lc``), ``rstrip()``, the tokenizer.

    The tokenizers here end with the whitespace split, so the result is the
    token list sacreBLEU's BLEU counts.
    """
    if lowercase:
        line = line.lower()
    return tokenizer(line.rstrip())
