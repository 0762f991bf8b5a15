"""mteval-v14.pl's dialect (NIST's BLEU, version 14, as the Moses repository ships it).

Facts read in ``scripts/generic/mteval-v14.pl`` of github:moses-smt/mosesdecoder (its one
release: ``entries.RELEASES``; Moses RELEASE-4.0) and checked by running it
(``oracle_tests/test_perl_scripts.py``); nothing of its code is copied. It is
mteval-v13a.pl's (:mod:`bleu_compat.libraries.mteval_v13a.model`: the same SGML reading,
default tokenizer, counts to 9-grams, smoothing and ``%.4f``) except:

* **no length line**: v14 prints no ``length ratio: c/r ...`` line, so an empty reference
  side (r = 0) or empty hypotheses (c = 0) print a score where v13a dies (with r = 0 the
  brevity factor is exp(min(0, 1 - 0/c)) = 1; with c = 0 it is 0);
* it needs the Perl module Sort::Naturally (Debian: libsort-naturally-perl) and XML::Twig;
* ``--international-tokenization`` (:func:`normalize_international`): ``<skipped>``
  removed; ``&quot; &amp; &lt; &gt; &apos;`` unescaped in that order; Perl's ``lc`` on
  the decoded text unless ``-c`` (every character's own lowercase mapping, not A-Z only);
  a punctuation character (``\\p{P}``) gets a space after it when it follows a
  non-number (``\\P{N}``), then one before it when a non-number follows it (each a
  global substitution of two characters, left to right, without overlap); a symbol
  (``\\p{S}``) gets a space on both sides; runs of ``\\p{Z}`` become one space, none at
  the ends. The classes are Unicode general categories (P*, S*, N*, Z*): Perl 5.36 has
  Unicode 14.0.0, as Python 3.11's ``unicodedata``, which the model reads.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Sequence

from bleu_compat.libraries.mteval_v13a import model as v13a
from bleu_compat.libraries.mteval_v13a.model import (
    DIALECTS, count, bleu_rows, escape_segment, segment_view, normalize,
)
from bleu_compat.libraries.multi_bleu.model import (
    ScriptOutput, perl_fixed, perl_lower, perl_unicode_split,
)

__all__ = ["DIALECT", "normalize_international", "segment_tokens", "mteval_v14_run", "evaluate",
           "PRINTS", "PRINTS_SMOOTHING", "RETOKENIZES", "ZERO_MATCH_SMOOTHED", "NO_MATCH_SMOOTHED",
           "EMPTY_ORDER_LOG_1", "NO_MATCH_SMOOTHED_SMOOTHING", "EMPTY_ORDER_LOG_1_SMOOTHING"]

#: v14's dialect: v13a's without the length line
DIALECT = DIALECTS["v14"]

PRINTS = "MTEVAL-V14-PRINTS-4-DECIMALS"
PRINTS_SMOOTHING = "MTEVAL-V14-PRINTS-4-DECIMALS-SMOOTHING"
RETOKENIZES = "MTEVAL-V14-RETOKENIZES"
ZERO_MATCH_SMOOTHED = "MTEVAL-V14-ZERO-MATCH-SMOOTHED"
NO_MATCH_SMOOTHED = "MTEVAL-V14-NO-MATCH-SMOOTHED"
EMPTY_ORDER_LOG_1 = "MTEVAL-V14-EMPTY-ORDER-LOG-1"
NO_MATCH_SMOOTHED_SMOOTHING = "MTEVAL-V14-NO-MATCH-SMOOTHED-SMOOTHING"
EMPTY_ORDER_LOG_1_SMOOTHING = "MTEVAL-V14-EMPTY-ORDER-LOG-1-SMOOTHING"
#: v14's entry id -> the v13a model's switch it turns on
_AS_V13A = {PRINTS: v13a.PRINTS, PRINTS_SMOOTHING: v13a.PRINTS_SMOOTHING,
            RETOKENIZES: v13a.RETOKENIZES, ZERO_MATCH_SMOOTHED: v13a.ZERO_MATCH_SMOOTHED,
            NO_MATCH_SMOOTHED: v13a.NO_MATCH_SMOOTHED, EMPTY_ORDER_LOG_1: v13a.EMPTY_ORDER_LOG_1,
            NO_MATCH_SMOOTHED_SMOOTHING: v13a.NO_MATCH_SMOOTHED_SMOOTHING,
            EMPTY_ORDER_LOG_1_SMOOTHING: v13a.EMPTY_ORDER_LOG_1_SMOOTHING}


def _category(ch: str) -> str:
    return unicodedata.category(ch)


def _pairs(text: str, first: Any, second: Any, space_before: bool) -> str:
    """Perl's ``s/(A)(B)/$1 $2 /g`` (or ``/ $1 $2/``) for one-character classes: left to
    right, each match consuming both characters."""
    out, i, n = [], 0, len(text)
    while i < n:
        if i + 1 < n and first(text[i]) and second(text[i + 1]):
            out.append(f" {text[i]} {text[i + 1]}" if space_before else f"{text[i]} {text[i + 1]} ")
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def normalize_international(text: str, preserve_case: bool) -> str:
    """``tokenization_international`` (``--international-tokenization``) on a segment's text."""
    def is_p(c: str) -> bool:
        return _category(c)[0] == "P"

    def not_n(c: str) -> bool:
        return _category(c)[0] != "N"

    t = text.replace("<skipped>", "").replace("\u2028", " ")
    for entity, ch in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"),
                       ("&apos;", "'")):
        t = t.replace(entity, ch)
    if not preserve_case:
        t = perl_lower(t)
    t = _pairs(t, not_n, is_p, space_before=False)
    t = _pairs(t, is_p, not_n, space_before=True)
    t = "".join(f" {c} " if _category(c)[0] == "S" else c for c in t)
    out, in_z = [], False
    for c in t:
        if _category(c)[0] == "Z":
            if not in_z:
                out.append(" ")
            in_z = True
        else:
            out.append(c)
            in_z = False
    return "".join(out).strip(" ")


def segment_tokens(text: str, preserve_case: bool, international: bool = False) -> list[str]:
    """A line's tokens as v14 counts them, from the adapter's SGML."""
    if not international:
        return v13a.segment_tokens(text, preserve_case)
    return perl_unicode_split(normalize_international(segment_view(text), preserve_case))


def mteval_v14_run(hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]],
                   preserve_case: bool, international: bool = False) -> ScriptOutput:
    """What ``mteval-v14.pl -b [-c] [--international-tokenization] -r REF -s SRC -t TST``
    prints on the adapter's SGML: ``BLEU score = %.4f`` and the individual and cumulative
    ``BLEU:`` rows (no length line)."""
    if not international:
        return v13a.mteval_run(DIALECT, hyp_lines, ref_lines, preserve_case)
    hyps = [segment_tokens(h, preserve_case, True) for h in hyp_lines]
    refs = [[segment_tokens(r, preserve_case, True) for r in seg] for seg in zip(*ref_lines)]
    stats = count(hyps, refs)
    ind, cum, exp_len = bleu_rows(stats["match"], stats["total"], stats["ref_len"])
    lines = [f"BLEU score = {perl_fixed(cum[3], 4)}",
             " BLEU:" + "".join(f"  {perl_fixed(x, 4)} " for x in ind),
             " BLEU:" + "".join(f"  {perl_fixed(x, 4)} " for x in cum)]
    return ScriptOutput("\n".join(lines), 0, None,
                        dict(stats, bleu=cum[3], individual=ind, cumulative=cum, exp_len=exp_len))


def evaluate(tool_id: str, mode: str, request: dict[str, Any], on: frozenset[str],
             cache: dict[Any, Any]) -> dict[str, Any]:
    """v14's dialect on a card request: v13a's model with v14's dialect (no length line, so
    no death on an empty side) and v14's entries in ``on``."""
    mapped = frozenset(_AS_V13A[e] for e in on if e in _AS_V13A)
    return v13a.evaluate(tool_id, mode, request, mapped, cache, DIALECT)


__all__ += ["escape_segment", "normalize"]
