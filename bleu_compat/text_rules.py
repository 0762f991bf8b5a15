"""Tokens under the text rules of scripts that do not read text as Python does.

``score --compare`` decomposes a gap into factors; three of them change the tokens
before any counting, as scripts written in other languages read text (Perl's, for
example):

* ``case``: ``False`` (as written), ``True`` (Python's ``str.lower``), ``"ascii"`` (A–Z
  only, as Perl's ``lc`` on bytes and ``tr/[A-Z]/[a-z]/``), ``"perl"`` (each character's
  own lowercase mapping: no final sigma);
* ``whitespace``: what splits tokens: ``"python"`` (``str.split()`` and the tokenizers'
  ``rstrip``), ``"perl"`` (Perl's Unicode ``\\s``: Python's set less U+001C–U+001F, no
  ``rstrip``), ``"ascii"`` (TAB, LF, VT, FF, CR and space only);
* ``chop``: ``"off"``, ``"byte"`` or ``"char"``: the last line of a file that does not
  end with a newline loses its last byte (Perl's ``chop`` on undecoded text: perhaps half
  a UTF-8 character) or character.

:func:`rule_tokens` gives every line's tokens under a choice of those and one of the
tokenizers of :mod:`bleu_compat.tokenizers`. A tokenizer splits on Python's whitespace;
under another rule, the characters that Python's split would break at and the rule does
not are first replaced by private-use placeholders (neither whitespace, digits nor the
13a tokenizer's punctuation, as those characters are not) and put back in the tokens.
Lines end at LF; a CR before it is dropped (as :mod:`bleu_compat.corpus_io` reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["CASES", "WHITESPACES", "CHOPS", "rule_tokens", "is_plain", "placeholders",
           "read_rule_lines", "PYTHON_WHITESPACE"]

CASES = (False, True, "ascii", "perl")
WHITESPACES = ("python", "perl", "ascii")
CHOPS = ("off", "byte", "char")

#: the 29 characters for which ``str.isspace()`` holds (a test derives them from every code point)
PYTHON_WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003"
                     "\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_PYTHON_WS = PYTHON_WHITESPACE
_ASCII_WS = "\t\n\x0b\x0c\r "
_PERL_WS = "".join(c for c in _PYTHON_WS if c not in "\x1c\x1d\x1e\x1f")
_PLACEHOLDER_BASE = 0xF0000
_UPPER = str.maketrans({chr(c): chr(c + 32) for c in range(65, 91)})


def is_plain(case: Any, whitespace: str, chop: str) -> bool:
    """Whether these rules are Python's own (the fast statistics path counts those)."""
    return case in (False, True) and whitespace == "python" and chop == "off"


def placeholders(whitespace: str) -> dict[str, str]:
    """Python's whitespace that ``whitespace``'s rules do not split at -> its private-use
    placeholder (U+F0000 on: no tokenizer's whitespace, digit, punctuation or symbol)."""
    keep = {"python": _PYTHON_WS, "perl": _PERL_WS, "ascii": _ASCII_WS}[whitespace]
    return {c: chr(_PLACEHOLDER_BASE + k)
            for k, c in enumerate(c for c in _PYTHON_WS if c not in keep)}


def read_rule_lines(path: str | Path, chop: str) -> list[str]:
    """The file's lines as a script reads them: LF ends a line, a CR before it is dropped, and
    ``chop`` (``"byte"``/``"char"``) drops the last byte or character of a last line without
    LF (bytes that are not UTF-8 then are surrogate escapes)."""
    data = Path(path).read_bytes()
    ends_with_newline = data.endswith(b"\n")
    raw = data.split(b"\n")
    if ends_with_newline or not data:
        raw.pop()
    raw = [line[:-1] if line.endswith(b"\r") and (k < len(raw) - 1 or ends_with_newline) else line
           for k, line in enumerate(raw)]
    if chop == "byte" and raw and not ends_with_newline:
        raw[-1] = raw[-1][:-1]
    lines = [line.decode("utf-8", "surrogateescape") for line in raw]
    if chop == "char" and lines and not ends_with_newline:
        lines[-1] = lines[-1][:-1]
    return lines


def _lower(line: str, case: Any) -> str:
    if case is True:
        return line.lower()
    if case == "ascii":
        return line.translate(_UPPER)
    if case == "perl":
        return "".join(ch.lower() for ch in line)
    return line


def rule_tokens(path: str | Path, tokenize: str, case: Any, whitespace: str,
                chop: str, tokenize_lines: Any = None) -> list[list[str]]:
    """Every line's tokens: ``case``, then the tokenizer ``tokenize`` (``none`` or ``split``:
    whitespace only) splitting on ``whitespace``'s characters.

    Args:
        tokenize_lines: for a library's own tokenizer (not one of ours), the function that
            tokenizes a list of lines as that library does (its adapter's ``tokenize_lines``);
            it sees the lines with the whitespace the rules do not split on replaced by
            private-use placeholders (no tokenizer splits on those), put back in its tokens.

    Raises:
        ValueError: an unknown rule, or a line holding one of the placeholders.
    """
    from bleu_compat.tokenizers import get_tokenizer

    if case not in CASES or whitespace not in WHITESPACES or chop not in CHOPS:
        raise ValueError(f"unknown text rules {case!r}, {whitespace!r}, {chop!r}")
    ph = placeholders(whitespace)
    back = {v: k for k, v in ph.items()}
    table = str.maketrans(ph)
    undo = str.maketrans(back)
    prepared = []
    for k, line in enumerate(read_rule_lines(path, chop), 1):
        if back and any(c in line for c in back):
            raise ValueError(f"{path} line {k} holds a private-use character U+F00xx that the "
                             "decomposition uses to mark whitespace")
        prepared.append(_lower(line, case).translate(table))
    if tokenize_lines is not None:
        tokens = [list(t) for t in tokenize_lines(prepared)]
    else:
        tok = get_tokenizer("none" if tokenize in ("none", "split") else tokenize)
        tokens = [tok(line) for line in prepared]
    return [[t.translate(undo) for t in line] for line in tokens] if ph else tokens
