"""multi-bleu-detok.perl's dialect: multi-bleu.perl's counting on mteval-v13a's tokens.

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

__all__ = ["corpus_outcome", "points", "DetokDialect", "DIALECTS", "LATEST", "detok_tokens",
           "detok_run", "evaluate", "PRINTS", "PRINTS_SMOOTHING", "RETOKENIZES", "EMPTY_REFERENCES",
           "EMPTY_HYPOTHESES", "EMPTY_REFERENCES_SMOOTHING", "EMPTY_HYPOTHESES_SMOOTHING"]

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
#: the dialect of the last release (master since 2019-02-27), which card requests are judged by
LATEST = DIALECTS["2019-02-27"]

#: catalog entry ids (the card-shaped dialect's switches)
PRINTS = "MULTI-BLEU-DETOK-PRINTS-2-DECIMALS"
PRINTS_SMOOTHING = "MULTI-BLEU-DETOK-PRINTS-2-DECIMALS-SMOOTHING"
RETOKENIZES = "MULTI-BLEU-DETOK-RETOKENIZES"
EMPTY_REFERENCES = "MULTI-BLEU-DETOK-EMPTY-REFERENCES"
EMPTY_HYPOTHESES = "MULTI-BLEU-DETOK-EMPTY-HYPOTHESES"
EMPTY_REFERENCES_SMOOTHING = "MULTI-BLEU-DETOK-EMPTY-REFERENCES-SMOOTHING"
EMPTY_HYPOTHESES_SMOOTHING = "MULTI-BLEU-DETOK-EMPTY-HYPOTHESES-SMOOTHING"


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


def _retokenized(request: dict[str, Any], lowercase: bool = False) -> dict[str, Any]:
    """The request with every token list replaced by the script's tokens of the line the
    adapter writes (the tokens joined by one space, ending with ``\\n``)."""
    def tokens(seq: Sequence[str]) -> list[str]:
        line = (" ".join(seq) + "\n").encode("utf-8")
        return [str(t) for t in detok_tokens(LATEST, line, lowercase)]

    return dict(request, hypotheses=[tokens(h) for h in request["hypotheses"]],
                references=[[tokens(r) for r in seg] for seg in request["references"]])


def evaluate(tool_id: str, mode: str, request: dict[str, Any], on: frozenset[str],
             cache: dict[Any, Any]) -> dict[str, Any]:
    """The card-shaped dialect (the last release's): multi-bleu.perl's counting, printing and
    zero-length branches (:func:`bleu_compat.libraries.multi_bleu.model.evaluate`, whose
    entries these are the counterparts of), on the tokens mteval-v13a's tokenizer (``-c``)
    makes of each line the adapter writes when ``RETOKENIZES`` is on."""
    ids = {PRINTS: multi_bleu_model.PRINTS, PRINTS_SMOOTHING: multi_bleu_model.PRINTS_SMOOTHING,
           EMPTY_REFERENCES: multi_bleu_model.EMPTY_REFERENCES,
           EMPTY_HYPOTHESES: multi_bleu_model.EMPTY_HYPOTHESES,
           EMPTY_REFERENCES_SMOOTHING: multi_bleu_model.EMPTY_REFERENCES_SMOOTHING,
           EMPTY_HYPOTHESES_SMOOTHING: multi_bleu_model.EMPTY_HYPOTHESES_SMOOTHING}
    mapped = frozenset(ids[e] for e in on if e in ids)
    retokenized = tool_id == "bleu-corpus-compute" and RETOKENIZES in on
    if retokenized:
        request = _retokenized(request)
    # multi-bleu's model counts once per request in ``cache``: the retokenized request is
    # another request, so it counts in a cache of its own
    own = cache.setdefault(("multi-bleu-detok", retokenized), {})
    return multi_bleu_model.evaluate(tool_id, mode, request, mapped, own,
                                     MULTI_BLEU_DIALECTS["2018-07-03"])


_AS_MULTI_BLEU = {PRINTS: multi_bleu_model.PRINTS, PRINTS_SMOOTHING: multi_bleu_model.PRINTS_SMOOTHING,
                  EMPTY_REFERENCES: multi_bleu_model.EMPTY_REFERENCES,
                  EMPTY_HYPOTHESES: multi_bleu_model.EMPTY_HYPOTHESES}


def corpus_outcome(facts: dict[str, Any], on: frozenset[str]) -> str | float | None:
    """multi-bleu.perl's (:func:`bleu_compat.libraries.multi_bleu.model.corpus_outcome`) with
    this script's entries.

    ``facts``: the corpus statistics scored (``matches``, ``totals``, ``candidate_length``,
    ``reference_length``, after the statistics changes), ``max_order``, ``smoothing`` (the
    card's method), ``effective_order``, ``reference_files``,
    ``segments_without_reference``; ``on``: the ``bleu-corpus-compute`` entries verified on
    the release (``identify`` leaves out what the library does not score).
    """
    return multi_bleu_model.corpus_outcome(facts, frozenset(_AS_MULTI_BLEU[e] for e in on
                                                            if e in _AS_MULTI_BLEU))


def points(request: dict[str, Any], on: frozenset[str]) -> float:
    """The number the script prints (0-100): multi-bleu.perl's
    (:func:`bleu_compat.libraries.multi_bleu.model.points`) with this script's entries."""
    return multi_bleu_model.points(request, frozenset(_AS_MULTI_BLEU[e] for e in on
                                                      if e in _AS_MULTI_BLEU))
