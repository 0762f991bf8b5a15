"""mteval-v13a.pl's dialect (NIST's BLEU, as the Moses repository ships it).

Facts read in ``scripts/generic/mteval-v13a.pl`` of github:moses-smt/mosesdecoder
(every release: ``entries.RELEASES``) and checked by running each of them
(``oracle_tests/test_perl_scripts.py``); nothing of its code is copied:

* **Input**: SGML (or XML through XML::Twig when a file name ends in ``.xml``), read
  decoded (``:utf8``); a document's text has every run of ``\\s`` made one space
  before its segments are cut out with ``<seg ...>(.*?)</seg>`` (so the adapter, which
  writes each line as a segment, escapes ``</`` as ``&lt;/``: the script's entity step
  gives it back).
* **Tokenizer** (:func:`normalize`, the one sacreBLEU's ``13a`` copies): ``<skipped>``
  removed; ``&quot; &amp; &lt; &gt;`` unescaped in that order; A–Z lowercased with
  ``tr`` unless ``-c`` (ASCII only: À, Ü, Д stay); ASCII punctuation and symbols split
  off; ``.`` and ``,`` split unless between digits; ``-`` after a digit split; then
  split on Perl's Unicode ``\\s`` (Python's whitespace less U+001C–U+001F, and no
  ``rstrip`` before).
* **Counts**: clipped n-gram matches for n = 1..9 against the largest count in any
  reference; totals ``max(0, len - n + 1)``; the closest reference length, ties to the
  shorter; summed over segments and documents (integers).
* **BLEU** (:func:`bleu_rows`): with ``exp_len = exp(min(0, 1 - r/c))`` (0 when c = 0)
  and ``smooth = 1``, for j = 1..9: an order with no n-gram adds ``log 1 = 0``; an order
  with no match doubles ``smooth`` and adds ``log(1 / (smooth * total))`` (1/2^k, k
  counting the zero-match orders); otherwise ``log(m/t)``; the cumulative score of
  order j is ``exp(score / j) * exp_len`` and BLEU is order 4's; printed ``%.4f``.
* **v13a's system line** ``length ratio: c/r (c/r), penalty (log): log(exp_len)``
  divides by r and takes the log of ``exp_len``: r = 0 dies with "Illegal division by
  zero", c = 0 with "Can't take log of 0" (v14 has no such line, and prints a score).
* The releases of 2016-12-23 and 2017-04-27 (the latter in Moses RELEASE-4.0) do not
  compile on Perl 5.30+: ``\\p{Line_Break}`` without a value ("Can't find Unicode
  property definition").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from bleu_compat.harness.dialect import card_bp, card_smoothed_bleu, card_smoothing
from bleu_compat.harness.truth import to_fixed
from bleu_compat.libraries.multi_bleu.model import (
    PERL_UNICODE_WHITESPACE, ScriptOutput, perl_fixed, perl_number, perl_unicode_split,
)

__all__ = ["corpus_outcome", 
    "MtevalDialect", "DIALECTS", "normalize", "segment_view", "segment_tokens", "count",
    "bleu_rows", "mteval_run", "evaluate", "escape_segment", "MAX_NGRAM",
    "PRINTS", "PRINTS_SMOOTHING", "RETOKENIZES", "NO_MATCH_SMOOTHED", "ZERO_MATCH_SMOOTHED",
    "EMPTY_ORDER_LOG_1", "EMPTY_ORDER_LOG_1_SMOOTHING", "NO_MATCH_SMOOTHED_SMOOTHING",
    "ZERO_LENGTH_DIES", "ZERO_LENGTH_DIES_SMOOTHING",
]

#: the script's ``$max_Ngram``: every count and row goes to 9-grams
MAX_NGRAM = 9
#: the die messages the system line gives (v13a), without " at FILE line N."
DIVISION_BY_ZERO = "Illegal division by zero"
LOG_OF_ZERO = "Can't take log of 0"
NO_COMPILE = "Can't find Unicode property definition \"Line_Break\""

PRINTS = "MTEVAL-V13A-PRINTS-4-DECIMALS"
PRINTS_SMOOTHING = "MTEVAL-V13A-PRINTS-4-DECIMALS-SMOOTHING"
RETOKENIZES = "MTEVAL-V13A-RETOKENIZES"
ZERO_MATCH_SMOOTHED = "MTEVAL-V13A-ZERO-MATCH-SMOOTHED"
NO_MATCH_SMOOTHED = "MTEVAL-V13A-NO-MATCH-SMOOTHED"
NO_MATCH_SMOOTHED_SMOOTHING = "MTEVAL-V13A-NO-MATCH-SMOOTHED-SMOOTHING"
EMPTY_ORDER_LOG_1 = "MTEVAL-V13A-EMPTY-ORDER-LOG-1"
EMPTY_ORDER_LOG_1_SMOOTHING = "MTEVAL-V13A-EMPTY-ORDER-LOG-1-SMOOTHING"
ZERO_LENGTH_DIES = "MTEVAL-V13A-ZERO-LENGTH-DIES"
ZERO_LENGTH_DIES_SMOOTHING = "MTEVAL-V13A-ZERO-LENGTH-DIES-SMOOTHING"


@dataclass(frozen=True)
class MtevalDialect:
    """One mteval release.

    Attributes:
        length_line: prints ``length ratio: ...`` (v13a), dying on r = 0 or c = 0.
        compiles: False for the releases whose ``\\p{Line_Break}`` Perl 5.30+ refuses.
    """

    length_line: bool = True
    compiles: bool = True


#: dialect id -> the dialect
DIALECTS: dict[str, MtevalDialect] = {
    "v13a": MtevalDialect(),
    "v13a-line-break": MtevalDialect(compiles=False),
    "v14": MtevalDialect(length_line=False),
}

_PUNCT = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
_PERIOD_AFTER = re.compile(r"([^0-9])([\.,])")
_PERIOD_BEFORE = re.compile(r"([\.,])([^0-9])")
_DASH = re.compile(r"([0-9])(-)")
_WS_CLASS = "[" + "".join(re.escape(c) for c in sorted(PERL_UNICODE_WHITESPACE)) + "]+"
_WS = re.compile(_WS_CLASS)
_UPPER = str.maketrans({chr(c): chr(c + 32) for c in range(65, 91)})


def escape_segment(text: str) -> str:
    """A line as the adapter writes it inside ``<seg>``: ``</`` as ``&lt;/`` (nothing else)."""
    return text.replace("</", "&lt;/")


def segment_view(text: str) -> str:
    """The segment's text as the script reads it: escaped, every ``\\s`` run one space."""
    return _WS.sub(" ", escape_segment(text))


def normalize(text: str, preserve_case: bool, whitespace: Any = None) -> str:
    """The script's ``tokenization`` (its default, not ``--international-tokenization``).

    ``whitespace``: the compiled ``\\s+`` to collapse (Perl's Unicode one by default; the
    ASCII one for multi-bleu-detok.perl's undecoded bytes, read as Latin-1 characters).
    """
    ws = _WS if whitespace is None else whitespace
    t = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    t = t.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    t = f" {t} "
    if not preserve_case:
        t = t.translate(_UPPER)
    t = _PUNCT.sub(r" \1 ", t)
    t = _PERIOD_AFTER.sub(r"\1 \2 ", t)
    t = _PERIOD_BEFORE.sub(r" \1 \2", t)
    t = _DASH.sub(r"\1 \2 ", t)
    t = ws.sub(" ", t)
    return t.strip(" ")


def segment_tokens(text: str, preserve_case: bool) -> list[str]:
    """A line's tokens as mteval counts them, from the adapter's SGML."""
    return perl_unicode_split(normalize(segment_view(text), preserve_case))


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _closest(c: int, lengths: Sequence[int]) -> int:
    cur = lengths[0]
    for r in lengths[1:]:  # brevity_penalty_closest, folded as the script does
        if abs(c - r) <= abs(c - cur):
            if abs(c - r) == abs(c - cur):
                if cur > r:
                    cur = r
            else:
                cur = r
    return cur


def count(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]],
          max_ngram: int = MAX_NGRAM) -> dict[str, Any]:
    """The script's sums over the segments: ``match``/``total`` per order 1..max_ngram,
    ``hyp_len`` (the unigram total), ``ref_len``."""
    match = [0] * max_ngram
    total = [0] * max_ngram
    r_sum = 0
    for hyp, seg_refs in zip(hyps, refs):
        best: dict[tuple[str, ...], int] = {}
        for ref in seg_refs:
            for n in range(1, max_ngram + 1):
                for g, k in _ngrams(ref, n).items():
                    if best.get(g, 0) < k:
                        best[g] = k
        r_sum += _closest(len(hyp), [len(r) for r in seg_refs])
        for n in range(1, max_ngram + 1):
            total[n - 1] += max(0, len(hyp) - n + 1)
            for g, k in _ngrams(hyp, n).items():
                if g in best:
                    match[n - 1] += min(k, best[g])
    return {"match": match, "total": total, "hyp_len": total[0], "ref_len": r_sum}


def bleu_rows(match: Sequence[int], total: Sequence[int], ref_len: int,
              smoothing: bool = True) -> tuple[list[float], list[float], float]:
    """``bleu_score``: the individual and cumulative scores of every order, and ``exp_len``."""
    c = total[0]
    exp_len = math.exp(min(0, 1 - ref_len / c)) if c > 0 else 0
    score, smooth = 0.0, 1
    ind, cum = [], []
    for j, (m, t) in enumerate(zip(match, total), start=1):
        if t == 0:
            i = 0.0
        elif m == 0:
            smooth *= 2
            i = math.log(1 / (smooth * t))
        else:
            i = math.log(m / t)
        ind.append(math.exp(i))
        score += i
        cum.append(math.exp(score / j) * exp_len)
    return ind, cum, exp_len


def mteval_run(dialect: MtevalDialect, hyp_lines: Sequence[str],
               ref_lines: Sequence[Sequence[str]], preserve_case: bool) -> ScriptOutput:
    """What ``mteval -b [-c] -r REF.sgm -s SRC.sgm -t TST.sgm`` prints on the adapter's SGML.

    Args:
        hyp_lines: one line per segment; ref_lines: ``ref_lines[k]`` is reference k.
        preserve_case: ``-c``.

    Returns:
        ``stdout``: the ``length ratio`` line (v13a), ``BLEU score = %.4f``, and the
        individual and cumulative ``BLEU:`` rows (``%2.4f``) as the script prints them.
    """
    if not dialect.compiles:
        return ScriptOutput("", 255, NO_COMPILE)
    hyps = [segment_tokens(h, preserve_case) for h in hyp_lines]
    refs = [[segment_tokens(r, preserve_case) for r in seg] for seg in zip(*ref_lines)]
    stats = count(hyps, refs)
    c, r = stats["hyp_len"], stats["ref_len"]
    lines = []
    if dialect.length_line:
        if r == 0:
            return ScriptOutput("", 255, DIVISION_BY_ZERO, stats)
        if c == 0:
            return ScriptOutput("", 255, LOG_OF_ZERO, stats)
    ind, cum, exp_len = bleu_rows(stats["match"], stats["total"], r)
    if dialect.length_line:
        lines.append(f"length ratio: {perl_number(c / r)} ({c}/{r}), "
                     f"penalty (log): {perl_number(math.log(exp_len))}")
    lines.append(f"BLEU score = {perl_fixed(cum[3], 4)}")
    lines.append(" BLEU:" + "".join(f"  {perl_fixed(x, 4)} " for x in ind))
    lines.append(" BLEU:" + "".join(f"  {perl_fixed(x, 4)} " for x in cum))
    return ScriptOutput("\n".join(lines), 0, None,
                        dict(stats, bleu=cum[3], individual=ind, cumulative=cum, exp_len=exp_len))


# ----------------------------------------------------------------------------- card-shaped dialect


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def _corpus(dialect: MtevalDialect, mode: str, request: dict[str, Any], on: frozenset[str],
            cache: dict[Any, Any]) -> dict[str, Any]:
    """bleu-corpus-compute as the adapter runs mteval (``-b -c``), reading the cumulative
    BLEU of order N (N = ``max_order``, at most 9) from the script's row."""
    n_orders = request.get("max_order", 4)
    # the counts depend on the request and on RETOKENIZES only: counted once per request
    # (``cache`` lives for one request), not once per set of entries tried
    key = ("mteval-count", RETOKENIZES in on)
    if key not in cache:
        if RETOKENIZES in on:  # as called: each token list is a line the script tokenizes again
            hyps = [segment_tokens(" ".join(h), True) for h in request["hypotheses"]]
            refs = [[segment_tokens(" ".join(r), True) for r in seg]
                    for seg in request["references"]]
        else:
            hyps = [list(h) for h in request["hypotheses"]]
            refs = [[list(r) for r in seg] for seg in request["references"]]
        cache[key] = count(hyps, refs)
    stats = cache[key]
    c, r = stats["hyp_len"], stats["ref_len"]
    if ZERO_LENGTH_DIES in on and dialect.length_line and (r == 0 or c == 0):
        return {"error": "PerlDie: " + (DIVISION_BY_ZERO if r == 0 else LOG_OF_ZERO)}
    match, total = stats["match"][:n_orders], stats["total"][:n_orders]
    bp = card_bp(c, r)
    decimals = request.get("decimals")
    needs = set()  # what makes mteval score where the card gives 0
    if c > 0 and match[0] == 0:
        needs.add(NO_MATCH_SMOOTHED)
    elif any(m == 0 and t > 0 for m, t in zip(match, total)):
        needs.add(ZERO_MATCH_SMOOTHED)
    if c > 0 and any(t == 0 for t in total):
        needs.add(EMPTY_ORDER_LOG_1)
    if c == 0:
        bleu = 0.0
    elif needs:
        bleu = bleu_rows(match, total, r)[1][n_orders - 1] if needs <= on else 0.0
    else:
        bleu = bleu_rows(match, total, r)[1][n_orders - 1]
    out = {"bleu": _round(bleu, decimals), "max_order": n_orders}
    if PRINTS in on:
        out["bleu"] = float(perl_fixed(bleu, 4))
    if dialect.length_line:
        out.update(candidate_length=c, reference_length=r)
    return out


def _smoothing(dialect: MtevalDialect, request: dict[str, Any],
               on: frozenset[str]) -> dict[str, Any]:
    """bleu-smoothing-compute: the card (mteval's smoothing is the card's method3 and its
    order of operations the card's), with the entries' changes.

    Where the card gives 0 and the script a score (:func:`bleu_rows` on the statistics, the
    k-th order without a match 1/(2^k total), an order without n-grams log 1), the script's
    score needs every entry behind it switched on: ``NO_MATCH_SMOOTHED_SMOOTHING`` (no
    unigram match) and ``EMPTY_ORDER_LOG_1_SMOOTHING`` (an order with a total of 0); with a
    part of them only, the card's 0 stands (each model changes the card's output only where
    its own rule is what differs). ``ZERO_LENGTH_DIES_SMOOTHING``: v13a's length line dies on
    r = 0 ("Illegal division by zero", evaluated first) or c = 0 ("Can't take log of 0").
    """
    sm, st, used = card_smoothing(request)
    c, r = request["candidate_length"], request["reference_length"]
    if ZERO_LENGTH_DIES_SMOOTHING in on and dialect.length_line and (r == 0 or c == 0):
        return {"error": "PerlDie: " + (DIVISION_BY_ZERO if r == 0 else LOG_OF_ZERO)}
    bp = card_bp(c, r)
    bleu = card_smoothed_bleu(request, sm, st, used, bp)
    matches, totals = request["matches"], request["totals"]
    if request["smoothing"] == "method3" and c > 0 and not request.get("effective_order"):
        needs = set()
        if matches[0] == 0:
            needs.add(NO_MATCH_SMOOTHED_SMOOTHING)
        if 0 in totals:
            needs.add(EMPTY_ORDER_LOG_1_SMOOTHING)
        if needs and needs <= on:
            bleu = bleu_rows(matches, totals, r)[1][len(matches) - 1]
    if PRINTS_SMOOTHING in on:
        bleu = float(perl_fixed(bleu, 4))
    decimals = request.get("decimals")
    return {"bleu": _round(bleu, decimals), "brevity_penalty": _round(bp, decimals),
            "orders_used": used, "smoothed_matches": sm, "smoothed_totals": st}


def evaluate(tool_id: str, mode: str, request: dict[str, Any], on: frozenset[str],
             cache: dict[Any, Any], dialect: MtevalDialect = DIALECTS["v13a"]) -> dict[str, Any]:
    """mteval's dialect on a card request: the card with the models in ``on``."""
    if tool_id == "bleu-corpus-compute":
        return _corpus(dialect, mode, request, on, cache)
    if tool_id == "bleu-smoothing-compute":
        return _smoothing(dialect, request, on)
    raise ValueError(f"mteval has no model for {tool_id}")


def corpus_outcome(facts: dict[str, Any], on: frozenset[str]) -> str | float | None:
    """What the script does on a corpus with these statistics beyond the arithmetic: v13a
    dies on an empty reference side (division by zero) or empty hypotheses (log of 0)
    (MTEVAL-V13A-ZERO-LENGTH-DIES); else None.

    ``facts``: the corpus statistics scored (``matches``, ``totals``, ``candidate_length``,
    ``reference_length``, after the statistics changes), ``max_order``, ``smoothing`` (the
    card's method), ``effective_order``, ``reference_files``,
    ``segments_without_reference``; ``on``: the ``bleu-corpus-compute`` entries verified on
    the release (``identify`` leaves out what the library does not score).
    """
    c, r = facts["candidate_length"], facts["reference_length"]
    if ZERO_LENGTH_DIES in on and (r == 0 or c == 0):
        return "PerlDie: " + (DIVISION_BY_ZERO if r == 0 else LOG_OF_ZERO)
    return None
