"""Moses' ``tokenizer.perl``, rule for rule: the ``moses`` tokenizations (ours, not sacremoses).

Before 2018 most machine-translation papers scored with Moses' pipeline: ``tokenizer.perl
-l LANG`` on the system output and on the reference, then ``multi-bleu.perl`` (Post 2018,
"A Call for Clarity in Reporting BLEU Scores", calls it *basic*; with ``-a``, *split*).
This module is our implementation of that tokenizer, written from the script's rules:
mosesdecoder ``scripts/tokenizer/tokenizer.perl`` as of commit
``75d4c672e86cce7c7875fc131bbaf1299b7b9259`` (2021-03-13, "Add tokenisation support for
the Tetun language"; unchanged up to the repository's HEAD
``34452895f350bf097b21ee514a529a1dc542243c``, 2025-02-03; SHA-256 of the file
:data:`TOKENIZER_PERL_SHA256`), run as ``tokenizer.perl -l LANG [-a] [-no-escape]``, and
its nonbreaking prefixes (the data files ``nonbreaking_prefix.LANG``, shipped in
``nonbreaking_prefixes/`` with their provenance and licence). Nothing of sacremoses is
used. ``oracle_tests/test_moses_tokenizer.py`` compares it with the real script's output
(committed golden files, and the user's copy when ``$BLEU_COMPAT_MOSES_SCRIPTS`` names it).

One input line (without its line feed) gives one output line; the steps, in the script's
order (Perl's classes are data: :mod:`bleu_compat.tokenizers.moses_tables`, Perl 5.36.0's
Unicode 14.0.0):

1. a line of Perl whitespace only (``/^\\s*$/``, the empty line included) is printed as it
   is, untokenized (so a line holding only U+00A0 stays U+00A0);
2. the line is padded with a space on each side, every run of Perl whitespace becomes one
   space, every control character U+0000–U+001F is deleted (U+001C–U+001F are not Perl
   whitespace: they go here), runs of spaces become one, the ends are trimmed;
3. every character that is neither ``\\p{IsAlnum}``, whitespace, nor one of
   ``. ' ` , -`` gets spaces around it (Finnish and Swedish keep ``:`` too, then separate a
   colon not followed by a ``\\p{Ll}`` letter; Tetun keeps it for ``'``; Catalan's
   exception is written in the script with a UTF-8 ``·`` in a file without ``use utf8``,
   so Perl reads two characters, U+00C2 U+00B7: a middle dot stays attached, and only
   ``Â·`` before a character that is not ``\\p{Ll}`` is separated);
4. ``-a``: a hyphen between two ``\\p{IsAlnum}`` characters becomes `` @-@ ``;
5. a run of two or more periods is set apart (``DOTMULTI`` placeholders, put back at the
   end; a space goes before it, and one after it unless it ends the line);
6. a comma is separated unless it is between two ``\\p{IsN}`` characters (two passes, so
   ``A,B,C`` is ``A , B , C``), and also when it ends the line after a number;
7. apostrophes, by language: ``en`` splits ``'s`` right (``John 's``, ``1990 's``), ``fr``
   ``it`` ``ga`` ``ca`` split left (``l' homme``), ``so`` and ``tdt`` keep it between
   letters, every other language separates every apostrophe;
8. the words (split at each space) that end with a period: the last word's period is
   always separated; another's stays when the word before the period holds a period and a
   ``\\p{IsAlpha}`` letter (``U.S.``), is a nonbreaking prefix, or the next word begins
   with a ``\\p{IsLower}`` letter, or is a ``#NUMERIC_ONLY#`` prefix before a word that
   begins with an ASCII digit; otherwise it is separated;
9. spaces collapsed and trimmed; a final ``.'`` becomes `` . ' `` (keeping a space at the
   end of the line); the periods put back;
10. unless ``-no-escape``: ``&`` ``|`` ``<`` ``>`` ``'`` ``"`` ``[`` ``]`` become
    ``&amp;`` ``&#124;`` ``&lt;`` ``&gt;`` ``&apos;`` ``&quot;`` ``&#91;`` ``&#93;``, in
    that order.

A language without a ``nonbreaking_prefix.LANG`` file: tokenizer.perl prints ``WARNING: No
known abbreviations for language 'LANG', attempting fall-back to English version...`` on
standard error and uses the English prefixes, while its language rules (steps 3 and 7)
still use the code as given (so ``-l xx`` separates every apostrophe, as no ``en`` rule
applies). :class:`MosesTokenizer` does the same and keeps the warning in
:attr:`MosesTokenizer.warning`. tokenizer.perl has no ``-lc``: lowercasing is a step before
or after it (Moses' ``lowercase.perl``, a scorer's ``-lc``), which the configurations of
``score --compare`` say.

Not implemented (not part of a BLEU pipeline's usual call): ``-penn``, ``-x`` (XML lines
untouched), ``-protected FILE``.

The Perl classes against Python's: with Python 3.11's ``unicodedata`` (Unicode 14.0.0, as
Perl 5.36), ``\\p{IsN}`` is the categories N*, ``\\p{Ll}`` the category Ll,
``\\p{IsLower}`` ``str.islower()``, Perl's ``\\s`` ``str.isspace()`` less U+001C–U+001F;
``\\p{IsAlpha}`` is Unicode's Alphabetic property, which Python does not have: it is
``str.isalpha()`` (the letter categories) plus 1,640 code points (Nl, and the
Other_Alphabetic marks and symbols, e.g. the Devanagari vowel signs and circled letters);
``\\p{IsAlnum}`` is ``\\p{IsAlpha}`` plus Nd. A Perl with a newer Unicode (5.38 and 5.40:
15.0.0) classifies the code points assigned since differently; the tables are Perl
5.36.0's so that the tokens do not depend on the machine.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from . import moses_tables as _t

__all__ = [
    "MOSES_COMMIT", "TOKENIZER_PERL_SHA256", "PREFIX_DIR", "LANGUAGES", "MosesTokenizer",
    "MosesName", "parse_name", "tokenizer_for", "load_prefixes", "prefix_languages",
    "tokenize_text", "fallback_warning",
]

#: the mosesdecoder commit whose tokenizer.perl (and nonbreaking prefixes) we follow
MOSES_COMMIT = "75d4c672e86cce7c7875fc131bbaf1299b7b9259"
#: the repository HEAD the data was copied from (tokenizer.perl is the same file there)
MOSES_HEAD = "34452895f350bf097b21ee514a529a1dc542243c"
#: SHA-256 of that tokenizer.perl (a user's copy with these bytes is the release we follow)
TOKENIZER_PERL_SHA256 = "631dd7cf710d27a14b0801f8f43b37099a52d574a3a488b36a40bec9b1e8caeb"
#: where the nonbreaking_prefix.LANG files are (package data)
PREFIX_DIR = Path(__file__).resolve().parent / "nonbreaking_prefixes"
#: a language code we take: what ISO 639 codes look like (tokenizer.perl takes any string,
#: which becomes part of a file name; we refuse other strings rather than guess)
LANGUAGE_CODE = re.compile(r"[a-z]{2,3}")


def _cls(ranges: Sequence[tuple[int, int]]) -> str:
    """A ``re`` character-class body for inclusive code point ranges."""
    def esc(cp: int) -> str:
        return f"\\U{cp:08x}"

    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in ranges)


_ALNUM = _cls(_t.ALNUM)
_ALPHA = _cls(_t.ALPHA)
_NUM = _cls(_t.NUMBER)
_LOWER = _cls(_t.LOWER)
_LL = _cls(_t.LL)
_WS = _cls(_t.SPACE)


class _Patterns:
    """The compiled patterns, each made on first use (a class of 700 ranges takes ~10 ms to
    compile: a run needs only its language's)."""

    _SOURCES = {
        "ws_run": f"[{_WS}]+",
        "ws_only": f"[{_WS}]*",
        "ws_one": f"[{_WS}]",
        "control": "[\x00-\x1f]",
        "special": f"([^{_ALNUM}{_WS}.'`,\\-])",
        "special_fi_sv": f"([^{_ALNUM}{_WS}.:'`,\\-])",
        "colon_fi_sv": f"(:)(?=$|[^{_LL}])",
        "apos_tdt": f"(')(?=$|[^{_LL}])",
        # Catalan: the script's "\·" is two characters to Perl (the file has no `use utf8`)
        "special_ca": f"([^{_ALNUM}{_WS}.\u00c2\u00b7'`,\\-])",
        "middot_ca": f"(\u00c2\u00b7)(?=$|[^{_LL}])",
        "dots": r"\.(\.+)",
        "dotmulti_next": r"DOTMULTI\.([^.])",
        "dotmulti_dot": r"DOTMULTI\.",
        "dots_fast": r"\.(\.+)(.?)",
        "dotmulti_back": r"((?:DOT)*)DOTMULTI",
        "comma_right": f",([^{_NUM}])",
        "final_dot_quote": r"\.' ?$",
        "numeric_only": f"(.*)[{_WS}]+(#NUMERIC_ONLY#)",
        "alnum": f"[{_ALNUM}]",
        "alpha": f"[{_ALPHA}]",
        "num": f"[{_NUM}]",
        "lower": f"[{_LOWER}]",
        "digit": "[0-9]",
    }

    def __getattr__(self, name: str) -> "re.Pattern[str]":
        flags = re.DOTALL if name == "dots_fast" else 0
        pattern = re.compile(self._SOURCES[name], flags)
        setattr(self, name, pattern)
        return pattern


_P = _Patterns()


def _is(name: str) -> "Callable[[str], bool]":
    """A one-character test of the class ``name`` (``alpha``, ``num`` ...)."""
    match = getattr(_P, name).match
    return lambda c: match(c) is not None


def _not(name: str) -> "Callable[[str], bool]":
    match = getattr(_P, name).match
    return lambda c: match(c) is None


def _sub_around(text: str, mid: str, left: "Callable[[str], bool]",
                right: "Callable[[str], bool] | None", repl: "Callable[[str, str], str]",
                consume_right: bool = True) -> str:
    """Perl's ``s/(L)MID(R)/.../g`` (``consume_right``) or ``s/(L)MID(?=R)/.../g`` where L and R
    are one character each (``right`` None: no R): the same left-to-right, non-overlapping
    matches, found from the occurrences of the literal ``MID`` (a pattern that begins with a
    class of hundreds of ranges is slow to scan for).

    ``repl(l, r)`` gives a match's replacement (``r`` is "" without R, or when R is not
    consumed).
    """
    out = []
    last = 0
    n = len(text)
    width = len(mid)
    j = text.find(mid, 1)
    while j != -1:
        after = j + width
        if j - 1 >= last and left(text[j - 1]):
            if right is None:
                out.append(text[last:j - 1])
                out.append(repl(text[j - 1], ""))
                last = after
            elif after < n and right(text[after]):
                out.append(text[last:j - 1])
                if consume_right:
                    out.append(repl(text[j - 1], text[after]))
                    last = after + 1
                else:
                    out.append(repl(text[j - 1], ""))
                    last = after
        j = text.find(mid, j + 1)
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _apostrophe_rules(kind: str) -> "tuple[tuple[Callable[[str], bool], Callable[[str], bool], Callable[[str, str], str]], ...]":
    """(left test, right test, replacement) of each apostrophe rule, in the script's order."""
    alpha, not_alpha, num = _is("alpha"), _not("alpha"), _is("num")
    spaced = lambda a, b: f"{a} ' {b}"  # noqa: E731
    if kind == "en":
        return ((not_alpha, not_alpha, spaced),
                (lambda c: not_alpha(c) and not num(c), alpha, spaced),
                (alpha, not_alpha, spaced),
                (alpha, alpha, lambda a, b: f"{a} '{b}"),
                (num, lambda c: c == "s", lambda a, b: f"{a} '{b}"))
    left = ((not_alpha, not_alpha, spaced), (not_alpha, alpha, spaced), (alpha, not_alpha, spaced),
            (alpha, alpha, lambda a, b: f"{a}' {b}"))
    return left if kind == "left" else left[:3]


_RULES: dict[str, tuple] = {}  # type: ignore[type-arg]


def _rules(kind: str) -> tuple:  # type: ignore[type-arg]
    if kind not in _RULES:
        _RULES[kind] = _apostrophe_rules(kind)
    return _RULES[kind]


def _collapse(text: str) -> str:
    """``s/ +/ /g; s/^ //g; s/ $//g``: runs of spaces to one, the ends trimmed."""
    return " ".join(w for w in text.split(" ") if w)


_ESCAPES = (("&", "&amp;"), ("|", "&#124;"), ("<", "&lt;"), (">", "&gt;"), ("'", "&apos;"),
            ('"', "&quot;"), ("[", "&#91;"), ("]", "&#93;"))


def load_prefixes(text: str) -> dict[str, int]:
    """A ``nonbreaking_prefix.LANG`` file's prefixes, read as tokenizer.perl's ``load_prefixes``.

    Each line without its line feed (``chomp``); skipped when Perl-false (empty or ``"0"``)
    or starting with ``#``; ``(.*)\\s+#NUMERIC_ONLY#`` anywhere in it makes the greedy
    ``(.*)`` a prefix kept before numbers only (value 2); any other line is a prefix as it
    stands, spaces included (value 1). A later line overrides an earlier one.

    Args:
        text: the file's text (decoded from UTF-8).

    Returns:
        prefix -> 1 (always nonbreaking) or 2 (nonbreaking before a number).
    """
    out: dict[str, int] = {}
    lines = text.split("\n")
    for item in lines:
        if not item or item == "0" or item[0] == "#":
            continue
        m = _P.numeric_only.search(item)
        if m:
            out[m.group(1)] = 2
        else:
            out[item] = 1
    return out


@functools.lru_cache(maxsize=None)
def prefix_languages() -> tuple[str, ...]:
    """The languages with a nonbreaking-prefix file shipped (sorted)."""
    return tuple(sorted(p.name.rpartition(".")[2] for p in PREFIX_DIR.glob("nonbreaking_prefix.*")))


#: the languages with a nonbreaking-prefix file, as tokenizer.perl's share directory holds them
LANGUAGES = prefix_languages()


@functools.lru_cache(maxsize=None)
def _prefixes(language: str) -> tuple[dict[str, int], bool]:
    """(prefixes, fell back to English) for ``language``, as tokenizer.perl loads them."""
    path = PREFIX_DIR / f"nonbreaking_prefix.{language}"
    fallback = language not in LANGUAGES
    if fallback:
        path = PREFIX_DIR / "nonbreaking_prefix.en"
    return load_prefixes(path.read_text(encoding="utf-8")), fallback


def fallback_warning(language: str) -> str:
    """tokenizer.perl's warning for a language without a prefix file (its exact words)."""
    return (f"WARNING: No known abbreviations for language '{language}', attempting fall-back "
            "to English version...")


def _check_language(language: str) -> None:
    from ..errors import ConfigError

    if not isinstance(language, str) or not LANGUAGE_CODE.fullmatch(language):
        raise ConfigError(
            f"moses: language {language!r} is not a language code (2 or 3 lowercase ASCII "
            f"letters, as tokenizer.perl's -l: {', '.join(LANGUAGES)} have nonbreaking "
            "prefixes; another code gets the English ones, as tokenizer.perl does)")


@dataclass(frozen=True)
class MosesTokenizer:
    """``tokenizer.perl -l LANGUAGE [-a] [-no-escape]``, one line at a time.

    Attributes:
        language: the ``-l`` code (2 or 3 lowercase letters).
        aggressive: ``-a`` (a hyphen between letters or digits becomes ``@-@``).
        escape: False for ``-no-escape``.
        warning: tokenizer.perl's warning when ``language`` has no prefix file (it then uses
            the English prefixes), else None.

    Raises:
        ConfigError: ``language`` is not a language code.
    """

    language: str = "en"
    aggressive: bool = False
    escape: bool = True
    warning: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        _check_language(self.language)
        _, fallback = _prefixes(self.language)
        if fallback:
            object.__setattr__(self, "warning", fallback_warning(self.language))

    @property
    def prefixes(self) -> dict[str, int]:
        """The nonbreaking prefixes in use (the English ones for a language without a file)."""
        return _prefixes(self.language)[0]

    def line(self, line: str) -> str:
        """The line tokenizer.perl prints for ``line`` (given and returned without a line feed).

        ``line`` must hold no line feed (a file's line). The result's tokens are separated by
        single spaces, except for a line of whitespace only, which comes back unchanged, and
        a line ending in ``.'``, which keeps a space at its end (both as the script prints
        them).
        """
        if _P.ws_only.fullmatch(line):
            return line
        lang = self.language
        if line.isascii() and line.isprintable():  # no whitespace but spaces, no controls
            text = _collapse(line)
        else:
            text = _P.ws_run.sub(" ", line)
            text = _collapse(_P.control.sub("", text))

        if lang in ("fi", "sv"):
            text = _P.special_fi_sv.sub(r" \1 ", text)
            if ":" in text:
                text = _P.colon_fi_sv.sub(r" \1 ", text)
        elif lang == "tdt":
            text = _P.special.sub(r" \1 ", text)
            if "'" in text:
                text = _P.apos_tdt.sub(r" \1 ", text)
        elif lang == "ca":
            text = _P.special_ca.sub(r" \1 ", text)
            if "\u00c2\u00b7" in text:
                text = _P.middot_ca.sub(r" \1 ", text)
        else:
            text = _P.special.sub(r" \1 ", text)

        if self.aggressive and "-" in text:
            alnum = _is("alnum")
            text = _sub_around(text, "-", alnum, alnum, lambda a, _: f"{a} @-@ ",
                               consume_right=False)

        literal = "DOTMULTI" in text  # the user's own text names the placeholder
        if literal:
            text = _P.dots.sub(r" DOTMULTI\1", text)
            while "DOTMULTI." in text:
                text = _P.dotmulti_next.sub(r"DOTDOTMULTI \1", text)
                text = _P.dotmulti_dot.sub("DOTDOTMULTI", text)
        elif ".." in text:
            # the same text in one pass: each run of k >= 2 periods becomes
            # " " + "DOT" * (k - 1) + "DOTMULTI", then " " and the next character if any
            text = _P.dots_fast.sub(
                lambda m: " " + "DOT" * len(m.group(1)) + "DOTMULTI"
                + (" " + m.group(2) if m.group(2) else ""), text)

        if "," in text:
            text = _sub_around(text, ",", _not("num"), None, lambda a, _: f"{a} , ")
            text = _P.comma_right.sub(r" , \1", text)
            if len(text) >= 2 and text[-1] == "," and _is("num")(text[-2]):
                text = text[:-1] + " ,"

        if lang == "en":
            kind = "en"
        elif lang in ("fr", "it", "ga", "ca"):
            kind = "left"
        elif lang in ("so", "tdt"):
            kind = "glottal"
        else:
            kind = ""
            text = text.replace("'", " ' ")
        if kind and "'" in text:
            for left, right, repl in _rules(kind):
                text = _sub_around(text, "'", left, right, repl)

        text = _collapse(self._words(text))
        if text.endswith(("'", "' ")):
            text = _P.final_dot_quote.sub(" . ' ", text, count=1)

        if literal:
            while "DOTDOTMULTI" in text:
                text = text.replace("DOTDOTMULTI", "DOTMULTI.")
            text = text.replace("DOTMULTI", ".")
        elif "DOTMULTI" in text:
            text = _P.dotmulti_back.sub(lambda m: "." * (len(m.group(1)) // 3 + 1), text)

        if self.escape:
            for char, entity in _ESCAPES:
                if char in text:
                    text = text.replace(char, entity)
        return text

    def _words(self, text: str) -> str:
        """Step 8: the words that end with a period (Perl's ``split(/\\s/, $text)``: every
        whitespace character splits, trailing empty fields are dropped)."""
        if "." not in text:
            return text
        words = text.split(" ")  # the only whitespace left is the space
        while words and words[-1] == "":
            words.pop()
        prefixes = self.prefixes
        last = len(words) - 1
        alpha, lower, digit = _P.alpha.search, _P.lower.match, _P.digit.match
        for i, word in enumerate(words):
            if len(word) >= 2 and word[-1] == ".":
                pre = word[:-1]
                if i == last:
                    words[i] = pre + " ."
                elif (("." in pre and alpha(pre)) or prefixes.get(pre) == 1
                      or lower(words[i + 1])):
                    pass
                elif prefixes.get(pre) == 2 and digit(words[i + 1]):
                    pass
                else:
                    words[i] = pre + " ."
        return " ".join(words)

    def tokenize_lines(self, lines: Sequence[str]) -> list[str]:
        """:meth:`line` of every line."""
        return [self.line(x) for x in lines]


def tokenize_text(text: str, tokenizer: MosesTokenizer) -> str:
    """What tokenizer.perl prints for a whole file's text (lines ending with LF).

    Every line is :meth:`MosesTokenizer.line`, printed with a line feed; a line of whitespace
    only is printed as read, so a last one without a line feed stays without one.
    """
    if not text:
        return ""
    parts = text.split("\n")
    tail = parts.pop()  # "" when the text ends with a line feed
    out = [tokenizer.line(p) + "\n" for p in parts]
    if tail:
        out.append(tokenizer.line(tail) + ("" if _P.ws_only.fullmatch(tail) else "\n"))
    return "".join(out)


@dataclass(frozen=True)
class MosesName:
    """A ``moses`` tokenizer name, parsed.

    Attributes:
        aggressive: ``-a`` (the names ``moses-a``, ``moses-a-LANG``).
        language: the language the name gives (``moses-de``), or None (``moses``: the
            command's target language, else tokenizer.perl's default ``en``).
    """

    aggressive: bool
    language: str | None

    def resolved(self, language: str | None) -> str:
        """The full name with a language: ``moses-de``, ``moses-a-de``."""
        lang = self.language or language or "en"
        return f"moses-{'a-' if self.aggressive else ''}{lang}"


_NAME = re.compile(r"moses(-a)?(?:-([a-z]{2,3}))?")


def parse_name(name: str) -> MosesName:
    """``moses``, ``moses-a``, ``moses-LANG`` or ``moses-a-LANG`` (LANG: 2 or 3 lowercase letters).

    Raises:
        ConfigError: another spelling (the message gives these four).
    """
    from ..errors import ConfigError

    m = _NAME.fullmatch(name) if isinstance(name, str) else None
    if m is None:
        raise ConfigError(
            f"tokenizer {name!r}: the Moses tokenizations are moses, moses-a (tokenizer.perl "
            "-a), moses-LANG or moses-a-LANG (LANG: tokenizer.perl's -l, 2 or 3 lowercase "
            "letters; without it, the target language of -l, else en)")
    return MosesName(bool(m.group(1)), m.group(2))


@functools.lru_cache(maxsize=64)
def tokenizer_for(name: str) -> MosesTokenizer:
    """The tokenizer of a full name (``moses-de``, ``moses-a-fr``; ``moses`` alone is ``en``).

    Raises:
        ConfigError: not a moses name.
    """
    parsed = parse_name(name)
    return MosesTokenizer(parsed.language or "en", aggressive=parsed.aggressive)
