"""The divergence catalog: every known way sacreBLEU and NLTK differ from the cards.

Each :class:`CatalogEntry` names one kind of divergence with a stable id, the
library and version range it holds for, the tool, modes and output fields it
affects, a one-paragraph explanation, a predicate that decides from a
(validated) card request whether it applies, and a minimal reproducer with
the card's value and the library's value.

Interface used by the harness (classification), ``score --compare`` and
``bleu-compat catalog``:

* :data:`ENTRIES` — every entry, in report order;
* :func:`explain` — the entries that explain one observed difference;
  an empty list means the difference is UNEXPECTED.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .rounding import to_fixed
from .stats import SufficientStats, closest_ref_len, corpus_stats
from .ulp import ulp_distance

__all__ = ["CatalogEntry", "ENTRIES", "entry", "explain", "version_in_range"]

Request = dict[str, Any]


@dataclass(frozen=True)
class CatalogEntry:
    """One kind of divergence between a library and a card.

    Attributes:
        id: stable id, e.g. ``"NLTK-DENOMINATOR-FLOOR"``.
        library: ``"sacrebleu"`` or ``"nltk"``.
        versions: PEP 440 specifier the entry was verified for, e.g. ``">=3.9,<4"``.
        tool_id: the card it concerns.
        fields: output fields it affects (``"error"`` when the library raises).
        modes: ``("as_called",)``, ``("mapped",)`` or both.
        title: one line.
        explanation: one paragraph in plain words.
        predicate: validated card request -> whether the entry applies.
        reproducer: a minimal card request showing it.
        reproducer_field: the output field the reproducer's values are for.
        card_value: the card's value of that field on the reproducer.
        library_value: the library's value (in the card's units) on the reproducer.
        facts: request -> a sentence of request-specific facts that trigger the
            entry (e.g. "5 hypotheses shorter than 4 tokens add 5 to the 4-gram
            total"), or None.
        max_ulps: for floating-point order-of-operations entries, the largest
            ULP distance the entry explains; None for semantic entries.
    """

    id: str
    library: str
    versions: str
    tool_id: str
    fields: tuple[str, ...]
    modes: tuple[str, ...]
    title: str
    explanation: str
    predicate: Callable[[Request], bool]
    reproducer: Request
    reproducer_field: str
    card_value: Any
    library_value: Any
    facts: Callable[[Request], str | None] | None = None
    max_ulps: int | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)


# --- helpers for predicates and facts (core only: stats, no library imports) -----

_SACREBLEU = ">=2.4,<3"
_NLTK = ">=3.9,<4"
_DECIMALS_NOTE = (
    "With decimals, a difference of a few ULPs can move the rounded value across a decimal "
    "boundary: at max_order 1 with p_1 = 1/4 the card's bleu is exactly 0.25, a tie that "
    "toFixed(1) takes to 0.3, while a double one ULP below gives 0.2. The entry covers such "
    "a flip when the doubles before rounding are within its bound."
)
CORPUS, SMOOTHING, BREVITY = "bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty"


def _stats(request: Request) -> SufficientStats:
    return corpus_stats(request["hypotheses"], request["references"],
                        max_order=request.get("max_order", 4))


def _whitespace_tokens(request: Request) -> list[str]:
    found: dict[str, None] = {}
    for tokens in request["hypotheses"]:
        for t in tokens:
            if t.split() != [t]:
                found[t] = None
    for refs in request["references"]:
        for tokens in refs:
            for t in tokens:
                if t.split() != [t]:
                    found[t] = None
    return list(found)


def _padding_changes(request: Request) -> list[int]:
    """Segments whose closest reference length changes when sacreBLEU gets a '' reference."""
    most = max(len(refs) for refs in request["references"])
    out = []
    for i, (hyp, refs) in enumerate(zip(request["hypotheses"], request["references"])):
        if len(refs) < most:
            lens = [len(r) for r in refs]
            if closest_ref_len(len(hyp), lens + [0]) != closest_ref_len(len(hyp), lens):
                out.append(i)
    return out


def _short_hypotheses(request: Request) -> dict[int, int]:
    """n -> how many hypotheses are shorter than n tokens (n = 2..max_order, and 1 for empty)."""
    n_max = request.get("max_order", 4)
    out = {}
    for n in range(1, n_max + 1):
        k = sum(1 for h in request["hypotheses"] if len(h) < n)
        if k:
            out[n] = k
    return out


def _positive_bleu(request: Request) -> bool:
    st = _stats(request)
    return st.hyp_len > 0 and all(m > 0 for m in st.matches)


def _smoothing_positive(request: Request) -> bool:
    from .bleu import smoothed_bleu

    r = smoothed_bleu(request["matches"], request["totals"], request["candidate_length"],
                      request["reference_length"], smoothing=request["smoothing"],
                      epsilon=request.get("epsilon"),
                      effective_order=request.get("effective_order", False))
    return r.bleu > 0


def _facts_whitespace(request: Request) -> str | None:
    toks = _whitespace_tokens(request)
    if not toks:
        return None
    shown = ", ".join(repr(t) for t in toks[:3])
    return f"{len(toks)} distinct token(s) contain whitespace that str.split() splits on, e.g. {shown}"


def _facts_padding(request: Request) -> str | None:
    seg = _padding_changes(request)
    if not seg:
        return None
    return (f"{len(seg)} segment(s) with fewer references than the others get a '' reference "
            f"that becomes their closest reference (first: segment {seg[0]})")


def _facts_floor(request: Request) -> str | None:
    short = _short_hypotheses(request)
    if not short:
        return None
    parts = [f"{k} {'hypothesis' if k == 1 else 'hypotheses'} shorter than {n} {'token' if n == 1 else 'tokens'} "
             f"add{'s' if k == 1 else ''} {k} to the {n}-gram total"
             for n, k in sorted(short.items())]
    return "; ".join(parts)


def _zero_order_facts(matches: Sequence[int]) -> str | None:
    zeros = [n + 1 for n, m in enumerate(matches) if m == 0]
    if not zeros or matches[0] == 0:
        return None
    return (f"order(s) {zeros} have no match: NLTK uses sys.float_info.min (2.2e-308) as their "
            f"precision, giving a positive score where the card gives 0")


# --- the entries ---------------------------------------------------------------

ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="SACREBLEU-WHITESPACE-IN-TOKEN",
        library="sacrebleu", versions=_SACREBLEU, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length", "matches", "totals"),
        modes=("as_called",),
        title="sacreBLEU's string interface splits tokens that contain whitespace",
        explanation=(
            "sacreBLEU takes each segment as one string and splits it with str.split(), so a "
            "card token that contains a space, NBSP (U+00A0), U+3000 or any other character "
            "Python counts as whitespace becomes several tokens (and a token made only of "
            "whitespace disappears). Lengths, n-gram totals and matches then count the pieces. "
            "The mapped adapter replaces every distinct token by a whitespace-free surrogate "
            "(t0, t1, ...) before joining, which keeps the card's tokens intact."
        ),
        predicate=lambda q: bool(_whitespace_tokens(q)),
        reproducer={"hypotheses": [["New York", "is", "big"]],
                    "references": [[["New York", "is", "big"]]]},
        reproducer_field="totals", card_value=[3, 2, 1, 0], library_value=[4, 3, 2, 1],
        facts=_facts_whitespace, tags=("tokens",),
    ),
    CatalogEntry(
        id="SACREBLEU-EMPTY-STRING-PADDING",
        library="sacrebleu", versions=_SACREBLEU, tool_id=CORPUS,
        fields=("reference_length", "brevity_penalty", "bleu"),
        modes=("as_called",),
        title="Padding missing references with '' adds an empty reference of length 0",
        explanation=(
            "sacreBLEU takes references as streams (one string per segment per stream), so "
            "segments with fewer references must be padded. Padding with '' (what line-aligned "
            "reference files with empty lines give) creates an empty reference of length 0 that "
            "takes part in the closest-reference-length rule: a short hypothesis is then "
            "'closest' to the empty reference, the corpus reference length drops and the "
            "brevity penalty rises (often to 1). Only None means 'no reference' to sacreBLEU; "
            "the mapped adapter pads with None."
        ),
        predicate=lambda q: bool(_padding_changes(q)),
        reproducer={"hypotheses": [["a", "b"], ["c"]],
                    "references": [[["a", "b"], ["a", "b", "x"]], [["c", "d", "e"]]]},
        reproducer_field="reference_length", card_value=5, library_value=2,
        facts=_facts_padding, tags=("references",),
    ),
    CatalogEntry(
        id="SACREBLEU-BP-EMPTY-CORPUS",
        library="sacrebleu", versions=_SACREBLEU, tool_id=CORPUS,
        fields=("brevity_penalty",), modes=("as_called", "mapped"),
        title="sacreBLEU's brevity penalty is 1 when c = 0 and r = 0 (card: 0)",
        explanation=(
            "sacreBLEU computes the brevity penalty only when sys_len < ref_len, so an empty "
            "corpus against empty references (c = r = 0) keeps bp = 1.0. The card (like NLTK's "
            "brevity_penalty) defines it as 0 whenever c = 0. The score is 0 either way, because "
            "there are no matches."
        ),
        predicate=lambda q: _stats(q).hyp_len == 0 and _stats(q).ref_len == 0,
        reproducer={"hypotheses": [[]], "references": [[[]]]},
        reproducer_field="brevity_penalty", card_value=0, library_value=1.0,
        tags=("brevity",),
    ),
    CatalogEntry(
        id="SACREBLEU-PERFECT-ABOVE-ONE",
        library="sacrebleu", versions=_SACREBLEU, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="A perfect match scores 100.00000000000004 (1.0000000000000004 > 1 after scaling)",
        explanation=(
            "sacreBLEU takes logs of percentages: exp(mean of ln(100 * m_n / l_n)), and "
            "exp(ln(100)) rounds to 100.00000000000004 (100.00000000000013 for max_order 6 to "
            "8). Divided by 100 this is 1.0000000000000004, above the card's maximum of 1, where "
            "the card's exp(mean of ln(1)) is exactly 1. With decimals the rounding hides it."
        ),
        predicate=lambda q: (lambda st: st.hyp_len > 0 and st.hyp_len >= st.ref_len
                             and all(m == t > 0 for m, t in zip(st.matches, st.totals)))(_stats(q)),
        reproducer={"hypotheses": [["this", "is", "a", "test"]],
                    "references": [[["this", "is", "a", "test"]]]},
        reproducer_field="bleu", card_value=1, library_value=1.0000000000000004,
        tags=("float",),
    ),
    CatalogEntry(
        id="SACREBLEU-FLOAT-ORDER",
        library="sacrebleu", versions=_SACREBLEU, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Logs of percentages and sum/N: the score differs in the last bits",
        explanation=(
            "sacreBLEU computes bp * exp(sum(ln(100 * m_n / l_n)) / N) on the 0-100 scale; the "
            "card computes bp * exp((1/N) * sum(ln(m_n / l_n))) on the 0-1 scale, and the adapter "
            "divides sacreBLEU's score by 100. The extra multiplication by 100, the larger "
            "logarithms, the division by N instead of the multiplication by 1/N and the final "
            "division make the two doubles differ by a few ULPs. Measured on 500,000 random "
            "statistic sets (N = 1..8, counts up to 1e12; seeds 1-3): at most 14 ULPs (histogram peak at 2). "
            + _DECIMALS_NOTE
        ),
        predicate=_positive_bleu,
        reproducer={
            "hypotheses": [["The", "dog", "bit", "the", "man", "."], ["It", "wasn't", "surprising", "."],
                           ["The", "man", "had", "just", "bitten", "him", "."]],
            "references": [
                [["The", "dog", "bit", "the", "man", "."], ["The", "dog", "had", "bit", "the", "man", "."]],
                [["It", "was", "not", "unexpected", "."], ["No", "one", "was", "surprised", "."]],
                [["The", "man", "bit", "him", "first", "."],
                 ["The", "man", "had", "bitten", "the", "dog", "."]],
            ],
        },
        reproducer_field="bleu", card_value=0.48530827009929883, library_value=0.48530827009929867,
        max_ulps=14, tags=("float",),
    ),
    CatalogEntry(
        id="NLTK-DENOMINATOR-FLOOR",
        library="nltk", versions=_NLTK, tool_id=CORPUS,
        fields=("totals", "bleu"), modes=("as_called",),
        title="NLTK floors each segment's n-gram total at 1",
        explanation=(
            "NLTK's modified_precision returns Fraction(matches, max(1, count)), and corpus_bleu "
            "sums those denominators, so every hypothesis shorter than n tokens (an empty "
            "hypothesis included) adds 1 to the n-gram total where the card adds 0. The n-gram "
            "precision falls and so does the score. On real data: WMT17 en-de uedin-nmt.4722 "
            "(13a tokens) has a 4-gram total of 53866 in NLTK against the card's 53861, from 5 "
            "hypotheses of 3 tokens. The mapped adapter leaves those segments out of the order-n "
            "sums and feeds the corrected precisions to corpus_bleu."
        ),
        predicate=lambda q: bool(_short_hypotheses(q)),
        reproducer={"hypotheses": [["a", "b", "c", "d"], ["a"]],
                    "references": [[["a", "b", "c", "d"]], [["a"]]]},
        reproducer_field="totals", card_value=[5, 3, 2, 1], library_value=[5, 4, 3, 2],
        facts=_facts_floor, tags=("counts",),
    ),
    CatalogEntry(
        id="NLTK-ZERO-MATCH-TINY",
        library="nltk", versions=_NLTK, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="NLTK returns a tiny positive score (e.g. 8.6e-78) instead of 0 when an order has no match",
        explanation=(
            "When some order n >= 2 has no match, NLTK's default SmoothingFunction().method0 "
            "warns and replaces that precision by sys.float_info.min (2.2e-308) so that its "
            "logarithm is finite; the score becomes exp(w * ln(2.2e-308) + ...), about 1e-77 for "
            "one missing order of four, and smaller for more. The card's score is exactly 0. "
            "NLTK gives exactly 0 only when no unigram matches."
        ),
        predicate=lambda q: (lambda st: st.matches[0] > 0 and 0 in st.matches)(_stats(q)),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "x"]]]},
        reproducer_field="bleu", card_value=0, library_value=8.636168555094496e-78,
        facts=lambda q: _zero_order_facts(_stats(q).matches), tags=("zero",),
    ),
    CatalogEntry(
        id="NLTK-FLOAT-ORDER",
        library="nltk", versions=_NLTK, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Pre-weighted logs summed with math.fsum: the score differs in the last bits",
        explanation=(
            "NLTK computes bp * exp(fsum(w_n * ln(p_n))) with w_n = 1/N applied to each term and "
            "an exactly rounded sum; the card multiplies the plain left-to-right sum of ln(m_n / "
            "l_n) by 1/N. The logs themselves are identical (NLTK's Fraction converts to the "
            "correctly rounded m/l), so the difference is a few ULPs. Measured on 500,000 random "
            "statistic sets (N = 1..8, counts up to 1e12; seeds 1-3): at most 7 ULPs."
            + " " + _DECIMALS_NOTE
        ),
        predicate=_positive_bleu,
        reproducer={
            "hypotheses": [["e", "d", "d", "c", "c", "b", "c", "b", "b", "e"],
                           ["e", "a", "a", "e", "e", "c", "c", "a", "d", "a"], ["a", "a", "a", "e", "c"]],
            "references": [[["a", "e", "b", "e", "a", "a", "a", "b", "d", "b", "a", "b"]],
                           [["d", "e", "d", "d", "e", "b", "c", "e", "d", "a"]],
                           [["b", "a", "e", "c", "a", "b", "e", "a", "e", "e", "b", "d"]]],
            "max_order": 3,
        },
        reproducer_field="bleu", card_value=0.13025213797704474, library_value=0.13025213797704477,
        max_ulps=7, tags=("float",),
    ),
    # --- bleu-smoothing-compute ----------------------------------------------
    CatalogEntry(
        id="SACREBLEU-BP-ZERO-LENGTHS-SMOOTHING",
        library="sacrebleu", versions=_SACREBLEU, tool_id=SMOOTHING,
        fields=("brevity_penalty", "bleu"), modes=("as_called", "mapped"),
        title="compute_bleu with c = 0 and r = 0: brevity penalty 1 and a full score (card: 0 and 0)",
        explanation=(
            "BLEU.compute_bleu applies the brevity penalty only when sys_len < ref_len, so "
            "c = r = 0 keeps bp = 1.0, and since it also has no rule 'c = 0 gives 0', statistics "
            "with matches but c = 0 (allowed by the smoothing card, which takes c and r as "
            "given) score as if the lengths were fine. The card gives brevity_penalty 0 and "
            "bleu 0 whenever c = 0."
        ),
        predicate=lambda q: q["candidate_length"] == 0 and q["reference_length"] == 0,
        reproducer={"matches": [1], "totals": [1], "candidate_length": 0, "reference_length": 0,
                    "smoothing": "none"},
        reproducer_field="bleu", card_value=0, library_value=1.0000000000000004,
        tags=("brevity",),
    ),
    CatalogEntry(
        id="SACREBLEU-SMOOTHED-COUNTS-HIDDEN",
        library="sacrebleu", versions=_SACREBLEU, tool_id=SMOOTHING,
        fields=("smoothed_matches",), modes=("as_called",),
        title="floor and exp smoothing change only the precisions; BLEUScore.counts stay raw",
        explanation=(
            "Under 'floor' (method1) and 'exp' (method3) sacreBLEU writes the smoothed value "
            "straight into the precision (100 * epsilon / l_n, 100 / (2^k * l_n)) and returns the "
            "unsmoothed counts, so a user reading BLEUScore.counts sees 0 where the card reports "
            "epsilon or 1/2^k. The score is unaffected. The mapped adapter recovers the "
            "numerators from the precisions, bit for bit. ('add-k' changes the counts themselves, "
            "by mutating the caller's lists.)"
        ),
        predicate=lambda q: q["smoothing"] in ("method1", "method3") and 0 in q["matches"],
        reproducer={"matches": [3, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method3"},
        reproducer_field="smoothed_matches", card_value=[3, 0.5, 0.25], library_value=[3, 0, 0],
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="SACREBLEU-SMOOTHING-STOPS-AT-ZERO-TOTAL",
        library="sacrebleu", versions=_SACREBLEU, tool_id=SMOOTHING,
        fields=("smoothed_matches",), modes=("as_called", "mapped"),
        title="sacreBLEU stops at the first order with total 0 and never smooths the orders after it",
        explanation=(
            "compute_bleu's loop breaks at the first order whose total is 0, so 'floor' and "
            "'exp' never give a match count to that order or the ones after it; 'exp' therefore "
            "numbers k only over the orders before the break. The card smooths every order and "
            "numbers method3's k over all orders, those with total 0 included (SPEC.md section 4; "
            "the card's third example gives [2, 1, 0.5, 0.25]). The score agrees: such orders are "
            "either outside the effective order or make the score 0 in both."
        ),
        predicate=lambda q: (q["smoothing"] in ("method1", "method3") and q["matches"][0] > 0
                             and 0 in q["totals"]),
        reproducer={"matches": [2, 1, 0, 0], "totals": [2, 1, 0, 0], "candidate_length": 2,
                    "reference_length": 2, "smoothing": "method3", "effective_order": True},
        reproducer_field="smoothed_matches", card_value=[2, 1, 0.5, 0.25], library_value=[2, 1, 0, 0],
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="SACREBLEU-NO-MATCH-SKIPS-SMOOTHING",
        library="sacrebleu", versions=_SACREBLEU, tool_id=SMOOTHING,
        fields=("smoothed_matches", "smoothed_totals", "orders_used"), modes=("as_called", "mapped"),
        title="With no match at all, compute_bleu returns before smoothing",
        explanation=(
            "compute_bleu returns a score of 0 as soon as every match count is 0 (sacreBLEU issue "
            "#141), before any smoothing, so add-k never adds its 1 and floor/exp never set a "
            "numerator. The card also scores 0 there but still reports the smoothed counts (e.g. "
            "method2 turns [0, 0, 0] / [3, 2, 1] into [0, 1, 1] / [3, 3, 2]); with "
            "effective_order, orders_used then follows the unsmoothed totals."
        ),
        predicate=lambda q: not any(q["matches"]) and q["smoothing"] != "none" and (
            q["smoothing"] != "method2" or len(q["matches"]) > 1),
        reproducer={"matches": [0, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method2"},
        reproducer_field="smoothed_matches", card_value=[0, 1, 1], library_value=[0, 0, 0],
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="SACREBLEU-FLOAT-ORDER-SMOOTHING",
        library="sacrebleu", versions=_SACREBLEU, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Smoothed BLEU from percentages: the score differs in the last bits",
        explanation=(
            "As in SACREBLEU-FLOAT-ORDER, compute_bleu takes logs of 100 * m_n / l_n (or of "
            "100 * epsilon / l_n, 100 / (2^k * l_n)) and divides by 100 at the end. With "
            "statistics up to the card's limit of 1e12, smoothed precisions can be tiny, the "
            "logs large and the difference larger: measured on 60,000 random statistic sets "
            "(N = 1..8, counts up to 1e12, all four methods, effective order on and off): at "
            "most 49 ULPs (method3); without smoothing at most 7. "
            + _DECIMALS_NOTE
        ),
        predicate=_smoothing_positive,
        reproducer={"matches": [5, 2], "totals": [6, 7], "candidate_length": 6,
                    "reference_length": 6, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.48795003647426655, library_value=0.48795003647426677,
        max_ulps=49, tags=("float",),
    ),
    CatalogEntry(
        id="NLTK-ZERO-TOTAL-NOT-A-FRACTION",
        library="nltk", versions=_NLTK, tool_id=SMOOTHING,
        fields=("error", "not_representable"), modes=("as_called", "mapped"),
        title="A total of 0 cannot be an NLTK precision; NLTK has no effective order either",
        explanation=(
            "NLTK's smoothing functions work on precisions given as Fraction(m_n, l_n); "
            "Fraction(m, 0) raises ZeroDivisionError, and corpus_bleu never builds one because it "
            "floors every denominator at 1 (NLTK-DENOMINATOR-FLOOR). So statistics with a zero "
            "total (which the card accepts: method2 turns 0/0 into 1/1, effective_order stops "
            "before it) cannot be given to NLTK; the mapped adapter says not_representable. "
            "NLTK also has no effective order; it would matter only when a total is 0, so this "
            "entry covers it."
        ),
        predicate=lambda q: 0 in q["totals"],
        reproducer={"matches": [1, 0, 0, 0], "totals": [1, 0, 0, 0], "candidate_length": 1,
                    "reference_length": 1, "smoothing": "method2"},
        reproducer_field="bleu", card_value=1, library_value="ZeroDivisionError: Fraction(0, 0)",
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-ZERO-MATCH-TINY-SMOOTHING",
        library="nltk", versions=_NLTK, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Without smoothing NLTK's method0 gives a tiny positive score instead of 0",
        explanation=(
            "As in NLTK-ZERO-MATCH-TINY: SmoothingFunction().method0 replaces a zero precision by "
            "sys.float_info.min, so the score is of order 1e-100 instead of the card's 0."
        ),
        predicate=lambda q: (q["smoothing"] == "none" and q["matches"][0] > 0
                             and q["candidate_length"] > 0 and 0 not in q["totals"]
                             and 0 in q["matches"]),
        reproducer={"matches": [3, 2, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "none"},
        reproducer_field="bleu", card_value=0, library_value=2.8126442852363145e-103,
        facts=lambda q: _zero_order_facts(q["matches"]), tags=("zero",),
    ),
    CatalogEntry(
        id="NLTK-METHOD1-ZERO-EPSILON",
        library="nltk", versions=_NLTK, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="method1 with epsilon 0: NLTK drops the zero precision from the mean",
        explanation=(
            "method1 turns a zero precision into (0 + epsilon) / l_n; with epsilon = 0 that is "
            "0.0, and corpus_bleu's final sum skips every precision that is not > 0, keeping its "
            "weight 1/N out of the sum. The score becomes exp((1/N) * sum over the other orders), "
            "a large positive number, where the card (m_n = 0 in a used order) gives 0."
        ),
        predicate=lambda q: (q["smoothing"] == "method1" and q.get("epsilon", 0.1) == 0
                             and q["matches"][0] > 0 and q["candidate_length"] > 0
                             and 0 not in q["totals"] and 0 in q["matches"]),
        reproducer={"matches": [3, 0], "totals": [4, 3], "candidate_length": 4,
                    "reference_length": 4, "smoothing": "method1", "epsilon": 0},
        reproducer_field="bleu", card_value=0, library_value=0.8660254037844387,
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-NO-MATCH-SKIPS-SMOOTHING",
        library="nltk", versions=_NLTK, tool_id=SMOOTHING,
        fields=("smoothed_matches", "smoothed_totals"), modes=("as_called", "mapped"),
        title="With no unigram match, corpus_bleu returns 0 before smoothing",
        explanation=(
            "corpus_bleu returns 0 when the unigram numerator is 0, before calling the smoothing "
            "function, so no precision is smoothed. The card scores 0 too but reports the "
            "smoothed counts (method1: epsilon, method2: +1 from order 2, method3: 1/2^k)."
        ),
        predicate=lambda q: (not any(q["matches"]) and q["smoothing"] != "none"
                             and 0 not in q["totals"]
                             and (q["smoothing"] != "method2" or len(q["matches"]) > 1)),
        reproducer={"matches": [0, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method2"},
        reproducer_field="smoothed_matches", card_value=[0, 1, 1], library_value=[0, 0, 0],
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-FLOAT-ORDER-SMOOTHING",
        library="nltk", versions=_NLTK, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Smoothed BLEU with pre-weighted logs and math.fsum: last-bit differences",
        explanation=(
            "As in NLTK-FLOAT-ORDER, NLTK sums w_n * ln(p_n) with math.fsum where the card divides "
            "the plain sum by orders_used. With smoothed precisions far below 1 (statistics up to "
            "1e12) the logs are large: measured on 60,000 random statistic sets (N = 1..8, all "
            "four methods): at most 61 ULPs (method3); without smoothing at most 4. "
            + _DECIMALS_NOTE
        ),
        predicate=lambda q: _smoothing_positive(q) and 0 not in q["totals"],
        reproducer={"matches": [5, 0, 4], "totals": [7, 10, 5], "candidate_length": 7,
                    "reference_length": 7, "smoothing": "method1"},
        reproducer_field="bleu", card_value=0.17878070701931353, library_value=0.1787807070193136,
        max_ulps=61, tags=("float",),
    ),
    # --- bleu-brevity-penalty -------------------------------------------------
    CatalogEntry(
        id="SACREBLEU-BP-ZERO-LENGTHS-BREVITY",
        library="sacrebleu", versions=_SACREBLEU, tool_id=BREVITY,
        fields=("brevity_penalty",), modes=("as_called", "mapped"),
        title="sacreBLEU's brevity penalty is 1 when c = 0 and r = 0 (card: 0)",
        explanation=(
            "As in SACREBLEU-BP-EMPTY-CORPUS: sacreBLEU applies the penalty only when "
            "sys_len < ref_len, so c = r = 0 gives 1.0; the card (and NLTK's brevity_penalty) "
            "give 0 for an empty candidate."
        ),
        predicate=lambda q: (sum(s["candidate_length"] for s in q["segments"]) == 0
                             and all(0 in s["reference_lengths"] for s in q["segments"])),
        reproducer={"segments": [{"candidate_length": 0, "reference_lengths": [0]}]},
        reproducer_field="brevity_penalty", card_value=0, library_value=1.0,
        tags=("brevity",),
    ),
)


def entry(entry_id: str) -> CatalogEntry:
    """The entry with ``entry_id``.

    Raises:
        KeyError: no such entry.
    """
    for e in ENTRIES:
        if e.id == entry_id:
            return e
    raise KeyError(f"no catalog entry {entry_id!r}")


def _installed_version(library: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return None


def version_in_range(version: str, specifier: str) -> bool:
    """Whether ``version`` satisfies the PEP 440 ``specifier`` (e.g. ``">=2.4,<3"``).

    Uses :mod:`packaging` when installed; otherwise compares the numeric
    release parts for the operators ``>=, >, <=, <, ==, !=`` (enough for the
    ranges in this catalog).
    """
    try:
        from packaging.specifiers import SpecifierSet
        from packaging.version import Version

        return Version(version) in SpecifierSet(specifier)
    except ImportError:  # pragma: no cover - packaging is a dependency
        pass

    def key(v: str) -> tuple[int, ...]:
        parts = []
        for p in v.split("."):
            digits = "".join(ch for ch in p if ch.isdigit()) if p[:1].isdigit() else ""
            if not digits:
                break
            parts.append(int(digits))
        while parts and parts[-1] == 0:
            parts.pop()
        return tuple(parts)

    have = key(version)
    for clause in specifier.split(","):
        clause = clause.strip()
        for op in (">=", "<=", "==", "!=", ">", "<"):
            if clause.startswith(op):
                want = key(clause[len(op):].strip())
                ok = {">=": have >= want, "<=": have <= want, "==": have == want,
                      "!=": have != want, ">": have > want, "<": have < want}[op]
                if not ok:
                    return False
                break
    return True


def _base_field(field_name: str) -> str:
    """``"matches"`` for ``"matches"``, ``"/matches/3"``, ``"matches[3]"`` or ``"matches.3"``."""
    name = field_name.lstrip("/")
    for sep in ("/", "[", "."):
        name = name.split(sep, 1)[0]
    return name


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def explain(
    library: str,
    mode: str,
    tool_id: str,
    request: Request,
    field_name: str,
    card_value: Any,
    library_value: Any,
    *,
    library_version: str | None = None,
    card_unrounded: float | None = None,
    library_unrounded: float | None = None,
) -> list[CatalogEntry]:
    """The entries that explain ``library_value != card_value`` for one field.

    An entry explains the difference when its library, tool, mode and fields
    match, the installed ``library_version`` lies in its ``versions`` range,
    its predicate holds for ``request``, and (for entries with ``max_ulps``)
    both values are floats at most ``max_ulps`` ULPs apart.

    With ``decimals`` in the request, two doubles a few ULPs apart can round
    to different decimals (0.25 is a tie that toFixed(1) takes to 0.3, while
    0.24999999999999997 gives 0.2). When the caller passes the doubles
    before rounding (``card_unrounded``, ``library_unrounded``), a
    ``max_ulps`` entry is checked on those instead, and explains the
    difference only if rounding each with the request's ``decimals`` gives
    exactly ``card_value`` and ``library_value``.

    Args:
        library: ``"sacrebleu"`` or ``"nltk"``.
        mode: ``"as_called"`` or ``"mapped"``.
        tool_id: the card id.
        request: the validated card request (not mutated).
        field_name: an output field (``"bleu"``), optionally with an index
            (``"/matches/3"``, ``"matches[3]"``), or ``"error"`` /
            ``"not_representable"`` when the library raised or declined.
        card_value, library_value: the two values (card units, 0–1 scale).
        library_version: the library version to check against each entry's
            range; None means the installed version (no check if not installed).

    Returns:
        The matching entries in catalog order; empty means UNEXPECTED.
    """
    version = library_version if library_version is not None else _installed_version(library)
    name = _base_field(field_name)
    out: list[CatalogEntry] = []
    for e in ENTRIES:
        if e.library != library or e.tool_id != tool_id or mode not in e.modes:
            continue
        if name not in e.fields:
            continue
        if version is not None and not version_in_range(version, e.versions):
            continue
        if e.max_ulps is not None:
            if not (_is_number(card_value) and _is_number(library_value)):
                continue
            if not _within_ulps(
                e.max_ulps, request, card_value, library_value, card_unrounded, library_unrounded
            ):
                continue
        try:
            applies = e.predicate(request)
        except Exception:  # a predicate must never turn a difference into a crash
            applies = False
        if applies:
            out.append(e)
    return out


def _within_ulps(
    max_ulps: int,
    request: Request,
    card_value: Any,
    library_value: Any,
    card_unrounded: float | None,
    library_unrounded: float | None,
) -> bool:
    if ulp_distance(float(card_value), float(library_value)) <= max_ulps:
        return True
    decimals = request.get("decimals")
    if decimals is None or card_unrounded is None or library_unrounded is None:
        return False
    if not (_is_number(card_unrounded) and _is_number(library_unrounded)):
        return False
    return (
        ulp_distance(float(card_unrounded), float(library_unrounded)) <= max_ulps
        and to_fixed(float(card_unrounded), int(decimals)) == card_value
        and to_fixed(float(library_unrounded), int(decimals)) == library_value
    )
