"""multi-bleu-detok.perl's dialect (model only: not yet a registered plug-in): multi-bleu.perl's counting on mteval-v13a's tokens.

Facts read in ``scripts/generic/multi-bleu-detok.perl`` (github:moses-smt/mosesdecoder,
both releases: ``entries.RELEASES``), checked by running them; nothing of its code is
copied. It is multi-bleu.perl of 2017 (:mod:`bleu_compat.libraries.multi_bleu.model`:
the same sums, closest length with ties to the shorter, no smoothing, the same line and
zero-length branches) with, on every line, mteval-v13a's tokenizer without its
lowercasing (:func:`bleu_compat.libraries.mteval_v13a.model.normalize` with ``-c``),
and it still ends lines with ``chop``:

* 2017-10-20: the files are read undecoded: ``chop`` drops a byte, ``\\s`` and
  ``split`` are ASCII whitespace, ``-lc`` lowercases A–Z;
* 2019-02-27 ("Fix non-ASCII lowercasing"): standard input ``:utf8`` and the reference
  files ``:encoding(UTF-8)``: ``chop`` drops a character, ``\\s`` is Perl's Unicode
  whitespace and ``-lc`` lowercases every character (Perl's ``lc``: no final sigma).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from bleu_compat.libraries.multi_bleu.model import (
    ASCII_WHITESPACE, DIALECTS as MULTI_BLEU_DIALECTS, NO_REFERENCE_FILE, ScriptOutput, ascii_lower, ascii_split,
    chop, multi_bleu_counts, multi_bleu_line, perl_lines, perl_lower, perl_unicode_split,
    reference_files_read,
)
from bleu_compat.libraries.multi_bleu import model as multi_bleu_model
from bleu_compat.libraries.mteval_v13a.model import normalize

__all__ = ["DetokDialect", "DIALECTS", "detok_tokens", "detok_run", "evaluate"]

_ASCII_WS = re.compile("[" + "".join(re.escape(chr(b)) for b in sorted(ASCII_WHITESPACE)) + "]+")


@dataclass(frozen=True)
class DetokDialect:
    """One multi-bleu-detok.perl release.

    Attributes:
        decoded: reads UTF-8 text (2019-02-27) rather than bytes.
    """

    decoded: bool


DIALECTS: dict[str, DetokDialect] = {
    "2017-10-20": DetokDialect(decoded=False),
    "2019-02-27": DetokDialect(decoded=True),
}


def detok_tokens(dialect: DetokDialect, line: bytes, lowercase: bool,
                 chopped: bool = True) -> list[Any]:
    """One line (with its ``\\n`` when it has one) as the script tokenizes it (hypothesis and
    reference alike: lowercasing and the tokenizer commute)."""
    if dialect.decoded:
        text = line.decode("utf-8", "replace")
        text = text[:-1] if chopped else text
        if lowercase:
            text = perl_lower(text)
        return perl_unicode_split(normalize(text, True))
    raw = chop(line) if chopped else line
    if lowercase:
        raw = ascii_lower(raw)
    text = normalize(raw.decode("latin-1"), True, _ASCII_WS)
    return ascii_split(text.encode("latin-1"))


def detok_run(dialect: DetokDialect, hypothesis: bytes, numbered: Sequence[bytes] = (),
              plain: bytes | None = None, lowercase: bool = False) -> ScriptOutput:
    """What ``perl multi-bleu-detok.perl [-lc] STEM < HYP`` prints, given the files' bytes."""
    files = reference_files_read(MULTI_BLEU_DIALECTS["2018-07-03"], numbered, plain)
    if not any(perl_lines(data) for data in files):
        return ScriptOutput("", 255, NO_REFERENCE_FILE)
    refs: list[list[list[Any]]] = []
    for data in files:
        for s, line in enumerate(perl_lines(data)):
            while len(refs) <= s:
                refs.append([])
            refs[s].append(detok_tokens(dialect, line, lowercase))
    hyps = [detok_tokens(dialect, line, lowercase) for line in perl_lines(hypothesis)]
    stats = multi_bleu_counts(hyps, refs, "shorter")
    return multi_bleu_line(MULTI_BLEU_DIALECTS["2018-07-03"], stats, len(refs),
                           len(refs[0]) if refs else 0)


def evaluate(tool_id: str, mode: str, request: dict[str, Any], on: frozenset[str],
             cache: dict[Any, Any]) -> dict[str, Any]:
    """The card-shaped dialect: multi-bleu.perl's (the statistics tool is the same formula);
    the corpus tool is not run on card requests (the adapter says not representable)."""
    ids = frozenset(e.replace("MULTI-BLEU-DETOK-", "MULTI-BLEU-") for e in on)
    return multi_bleu_model.evaluate(tool_id, mode, request, ids, cache)
