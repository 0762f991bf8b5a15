"""NLTK's catalog entries: what it does differently from the cards.

Each entry's model is the branch of :mod:`bleu_compat.libraries.nltk.model`
behind the entry's id; an entry explains an NLTK output only when the dialect
with its model switched on reproduces that output bit for bit (SPEC.md §7).
``library_code`` prints NLTK's own value on the reproducer
(``oracle_tests/test_catalog.py`` runs it).
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.harness.truth import corpus_truth_stats

__all__ = ["ENTRIES", "VERIFIED", "short_hypotheses"]

#: NLTK before 3.6 (measured on 3.5; 3.4.5 does not import on Python 3.11:
#: inspect.formatargspec): log of every precision, method2 from order 1
V3_4 = ("3.5",)
#: NLTK 3.6–3.10: one dialect on Python 3.11 (bleu_score.py differs only in a Fraction
#: subclass for Python 3.12 and an except clause for weights)
V3_6 = ("3.6.7", "3.7", "3.8.1", "3.9.4", "3.10.4")
#: every NLTK version whose dialect was measured, oldest first
VERIFIED = V3_4 + V3_6
CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"
Request = dict[str, Any]

_NLTK = "from nltk.translate.bleu_score import "


def short_hypotheses(request: Request) -> dict[int, list[int]]:
    """n -> the segments (0-based) whose hypothesis is shorter than n tokens, n = 1..N."""
    n_max = request.get("max_order", 4)
    out: dict[int, list[int]] = {}
    for n in range(1, n_max + 1):
        seg = [i for i, h in enumerate(request["hypotheses"]) if len(h) < n]
        if seg:
            out[n] = seg
    return out


def _facts_floor(request: Request) -> str | None:
    short = short_hypotheses(request)
    if not short:
        return None
    parts = []
    for n, seg in sorted(short.items()):
        k = len(seg)
        parts.append(f"{k} {'hypothesis' if k == 1 else 'hypotheses'} shorter than {n} "
                     f"{'token' if n == 1 else 'tokens'} add{'s' if k == 1 else ''} {k} to the "
                     f"{n}-gram total")
    return "; ".join(parts)


def _zero_order_facts(matches: Sequence[int]) -> str | None:
    zeros = [n + 1 for n, m in enumerate(matches) if m == 0]
    if not zeros or matches[0] == 0:
        return None
    return (f"order(s) {zeros} have no match: NLTK uses sys.float_info.min (2.2e-308) as their "
            f"precision, giving a positive score where the card gives 0")


def _facts_tiny(request: Request) -> str | None:
    matches = corpus_truth_stats(request["hypotheses"], request["references"],
                                 request.get("max_order", 4))[0]
    return _zero_order_facts(matches)


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="NLTK-DENOMINATOR-FLOOR",
        library="nltk", verified=VERIFIED, tool_id=CORPUS,
        fields=("totals", "bleu"), modes=("as_called",),
        title="NLTK floors each segment's n-gram total at 1",
        explanation=(
            "NLTK's modified_precision returns Fraction(matches, max(1, count)), and corpus_bleu "
            "sums those denominators, so every hypothesis shorter than n tokens (an empty "
            "hypothesis included) adds 1 to the n-gram total where the card adds 0. The n-gram "
            "precision falls and so does the score. Model: totals_n plus the number of "
            "hypotheses shorter than n. On real data: WMT17 en-de uedin-nmt.4722 (13a tokens) "
            "has a 4-gram total of 53866 in NLTK against the card's 53861, from 5 hypotheses of "
            "3 tokens. The mapped adapter leaves those segments out of the order-n sums and "
            "feeds the corrected precisions to corpus_bleu."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"], ["a"]],
                    "references": [[["a", "b", "c", "d"]], [["a"]]]},
        reproducer_field="totals", card_value=[5, 3, 2, 1], library_value=[5, 4, 3, 2],
        library_code=_NLTK + "modified_precision\n"
                     "print([sum(modified_precision(refs, hyp, n).denominator for hyp, refs in "
                     "[(['a', 'b', 'c', 'd'], [['a', 'b', 'c', 'd']]), (['a'], [['a']])]) "
                     "for n in (1, 2, 3, 4)])",
        library_prints='[5, 4, 3, 2]',
        facts=_facts_floor, tags=("counts",),
    ),
    CatalogEntry(
        id="NLTK-ZERO-MATCH-TINY",
        library="nltk", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="NLTK returns a tiny positive score (e.g. 8.6e-78) instead of 0 when an order has no match",
        explanation=(
            "When some order n >= 2 has no match, NLTK's default SmoothingFunction().method0 "
            "warns and replaces that precision by sys.float_info.min (2.2e-308) so that its "
            "logarithm is finite; the score becomes exp(w * ln(2.2e-308) + ...), about 1e-77 for "
            "one missing order of four, and smaller for more. The card's score is exactly 0. "
            "Model: that precision, and the score in NLTK's arithmetic "
            "(bp * exp(math.fsum(w_i * log(p_i)))), since the card has none for this branch. "
            "NLTK gives exactly 0 only when no unigram matches."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "x"]]]},
        reproducer_field="bleu", card_value=0, library_value=8.636168555094496e-78,
        library_code="import warnings; warnings.simplefilter('ignore')\n" + _NLTK + "corpus_bleu\n"
                     "print(corpus_bleu([[['a', 'b', 'c', 'x']]], [['a', 'b', 'c', 'd']]))",
        library_prints='8.636168555094496e-78',
        facts=_facts_tiny, tags=("zero",),
    ),
    CatalogEntry(
        id="NLTK-FLOAT-ORDER",
        library="nltk", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Pre-weighted logs summed with math.fsum: the score differs in the last bits",
        explanation=(
            "NLTK computes bp * exp(fsum(w_n * ln(p_n))) with w_n = 1/N applied to each term and "
            "an exactly rounded sum; the card multiplies the plain left-to-right sum of ln(m_n / "
            "l_n) by 1/N. The logs themselves are identical (NLTK's Fraction converts to the "
            "correctly rounded m/l), so the difference is a few ULPs. Model: exactly NLTK's "
            "operations. With decimals, such a difference can round to different decimals (the "
            "model applies toFixed to its own double, so it reproduces that too)."
        ),
        reproducer={
            "hypotheses": [["e", "d", "d", "c", "c", "b", "c", "b", "b", "e"],
                           ["e", "a", "a", "e", "e", "c", "c", "a", "d", "a"], ["a", "a", "a", "e", "c"]],
            "references": [[["a", "e", "b", "e", "a", "a", "a", "b", "d", "b", "a", "b"]],
                           [["d", "e", "d", "d", "e", "b", "c", "e", "d", "a"]],
                           [["b", "a", "e", "c", "a", "b", "e", "a", "e", "e", "b", "d"]]],
            "max_order": 3,
        },
        reproducer_field="bleu", card_value=0.13025213797704474, library_value=0.13025213797704477,
        library_code=_NLTK + "corpus_bleu\n"
                     "print(corpus_bleu([[['a','e','b','e','a','a','a','b','d','b','a','b']], "
                     "[['d','e','d','d','e','b','c','e','d','a']], "
                     "[['b','a','e','c','a','b','e','a','e','e','b','d']]], "
                     "[['e','d','d','c','c','b','c','b','b','e'], ['e','a','a','e','e','c','c','a','d','a'], "
                     "['a','a','a','e','c']], weights=(1/3, 1/3, 1/3)))",
        library_prints='0.13025213797704477',
        tags=("float",),
    ),
    # --- bleu-smoothing-compute ----------------------------------------------
    CatalogEntry(
        id="NLTK-ZERO-TOTAL-NOT-A-FRACTION",
        library="nltk", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("error", "not_representable"), modes=("as_called",),
        title="A total of 0 cannot be an NLTK precision; NLTK has no effective order either",
        explanation=(
            "NLTK's smoothing functions work on precisions given as Fraction(m_n, l_n); "
            "Fraction(m, 0) raises ZeroDivisionError, and corpus_bleu never builds one because it "
            "floors every denominator at 1 (NLTK-DENOMINATOR-FLOOR). So statistics with a zero "
            "total (which the card accepts: method2 turns 0/0 into 1/1, effective_order stops "
            "before it) cannot be given to NLTK: as called it raises; the mapped adapter says "
            "not_representable. Model: ZeroDivisionError: Fraction(m, 0) for the first zero "
            "total. NLTK also has no effective order; it would matter only when a total is 0."
        ),
        reproducer={"matches": [1, 0, 0, 0], "totals": [1, 0, 0, 0], "candidate_length": 1,
                    "reference_length": 1, "smoothing": "method2"},
        reproducer_field="error", card_value=None, library_value="ZeroDivisionError: Fraction(0, 0)",
        library_code=_NLTK + "Fraction\ntry:\n    Fraction(0, 0, _normalize=False)\n"
                     "except ZeroDivisionError as exc:\n    print(type(exc).__name__ + ': ' + str(exc))",
        library_prints='ZeroDivisionError: Fraction(0, 0)',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-ZERO-MATCH-TINY-SMOOTHING",
        library="nltk", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Without smoothing NLTK's method0 gives a tiny positive score instead of 0",
        explanation=(
            "As in NLTK-ZERO-MATCH-TINY: SmoothingFunction().method0 replaces a zero precision by "
            "sys.float_info.min, so the score is of order 1e-100 instead of the card's 0. Model: "
            "that precision, and the score in NLTK's arithmetic."
        ),
        reproducer={"matches": [3, 2, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "none"},
        reproducer_field="bleu", card_value=0, library_value=2.8126442852363145e-103,
        library_code="import math, warnings; warnings.simplefilter('ignore')\n" + _NLTK
                     + "Fraction, SmoothingFunction\n"
                     "p = SmoothingFunction().method0([Fraction(3, 3, _normalize=False), "
                     "Fraction(2, 2, _normalize=False), Fraction(0, 1, _normalize=False)])\n"
                     "print(math.exp(math.fsum(w * math.log(x) for w, x in zip((1/3,) * 3, p) if x > 0)))",
        library_prints='2.8126442852363145e-103',
        facts=lambda q: _zero_order_facts(q["matches"]), tags=("zero",),
    ),
    CatalogEntry(
        id="NLTK-METHOD1-ZERO-EPSILON",
        library="nltk", verified=V3_6, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="method1 precision 0.0 (epsilon 0, or epsilon / l_n underflowing): NLTK drops it from the mean",
        explanation=(
            "method1 turns a zero precision into (0 + epsilon) / l_n; with epsilon = 0, or a "
            "subnormal epsilon whose quotient underflows to 0.0 (5e-324 / 2), that is 0.0, and "
            "corpus_bleu's final sum skips every precision that is not > 0, keeping its weight "
            "1/N out of the sum. The score becomes exp((1/N) * sum over the other orders), a "
            "large positive number, where the card (ln 0 = -inf in a used order, SPEC.md "
            "section 2) gives 0. Model: that order left out of NLTK's sum."
        ),
        reproducer={"matches": [3, 0], "totals": [4, 3], "candidate_length": 4,
                    "reference_length": 4, "smoothing": "method1", "epsilon": 0},
        reproducer_field="bleu", card_value=0, library_value=0.8660254037844387,
        library_code="import math\n" + _NLTK + "Fraction, SmoothingFunction\n"
                     "p = SmoothingFunction(epsilon=0).method1([Fraction(3, 4, _normalize=False), "
                     "Fraction(0, 3, _normalize=False)])\n"
                     "print(math.exp(math.fsum(w * math.log(x) for w, x in zip((1/2,) * 2, p) if x > 0)))",
        library_prints='0.8660254037844387',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-METHOD1-ZERO-EPSILON-RAISES",
        library="nltk", verified=V3_4, tool_id=SMOOTHING,
        fields=("error",), modes=("as_called", "mapped"),
        title="NLTK 3.5: a method1 precision of 0.0 raises ValueError: math domain error",
        explanation=(
            "Before NLTK 3.6, corpus_bleu's last step is bp * exp(fsum(w_i * log(p_i))) over "
            "every order, without the 'if p_i > 0' that 3.6 added. A method1 precision "
            "(0 + epsilon) / l_n that is 0.0 (epsilon 0, or a subnormal epsilon whose quotient "
            "underflows) reaches math.log and raises ValueError: math domain error, where the "
            "card gives 0 (and NLTK 3.6+ leaves the order out, NLTK-METHOD1-ZERO-EPSILON). "
            "Model: that error."
        ),
        reproducer={"matches": [3, 0], "totals": [4, 3], "candidate_length": 4,
                    "reference_length": 4, "smoothing": "method1", "epsilon": 0},
        reproducer_field="error", card_value=None, library_value="ValueError: math domain error",
        library_code=_NLTK + "corpus_bleu, SmoothingFunction\ntry:\n"
                     "    corpus_bleu([[['a', 'b', 'c', 'd']]], [['a', 'c', 'b', 'x']], weights=(0.5, 0.5), "
                     "smoothing_function=SmoothingFunction(epsilon=0).method1)\n"
                     "except ValueError as exc:\n    print(type(exc).__name__ + ': ' + str(exc))",
        library_prints='ValueError: math domain error',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-METHOD2-ADDS-TO-UNIGRAMS",
        library="nltk", verified=V3_4, tool_id=SMOOTHING,
        fields=("smoothed_matches", "smoothed_totals", "bleu"), modes=("as_called", "mapped"),
        title="NLTK 3.5: method2 adds 1 to the unigram counts too",
        explanation=(
            "Before NLTK 3.6, SmoothingFunction.method2 returns Fraction(p_i.numerator + 1, "
            "p_i.denominator + 1) for every order, the unigrams included; 3.6 leaves p_1 alone, "
            "as Chen & Cherry's method 2 (after Lin & Och 2004) and the card do (add 1 from order "
            "2). The unigram precision and the score change. Model: +1 on every order's match "
            "and total."
        ),
        reproducer={"matches": [1, 0], "totals": [2, 1], "candidate_length": 2,
                    "reference_length": 2, "smoothing": "method2"},
        reproducer_field="smoothed_matches", card_value=[1, 1], library_value=[2, 1],
        library_code=_NLTK + "Fraction, SmoothingFunction\n"
                     "p = SmoothingFunction().method2([Fraction(1, 2, _normalize=False), "
                     "Fraction(0, 1, _normalize=False)])\nprint([x.numerator for x in p])",
        library_prints='[2, 1]',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-NO-MATCH-SKIPS-SMOOTHING",
        library="nltk", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("smoothed_matches", "smoothed_totals"), modes=("as_called", "mapped"),
        title="With no unigram match, corpus_bleu returns 0 before smoothing",
        explanation=(
            "corpus_bleu returns 0 when the unigram numerator is 0, before calling the smoothing "
            "function, so no precision is smoothed. The card scores 0 too but reports the "
            "smoothed counts (method1: epsilon, method2: +1 from order 2, method3: 1/2^k). "
            "Model: that early return, with the raw counts."
        ),
        reproducer={"matches": [0, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method2"},
        reproducer_field="smoothed_matches", card_value=[0, 1, 1], library_value=[0, 0, 0],
        library_code=_NLTK + "corpus_bleu\ncalls = []\n"
                     "print(corpus_bleu([[['x', 'y', 'z']]], [['a', 'b', 'c']], weights=(1/3,) * 3, "
                     "smoothing_function=lambda p_n, **kw: calls.append(p_n) or p_n), calls)",
        library_prints='0 []',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="NLTK-FLOAT-ORDER-SMOOTHING",
        library="nltk", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Smoothed BLEU with pre-weighted logs and math.fsum: last-bit differences",
        explanation=(
            "As in NLTK-FLOAT-ORDER, NLTK sums w_n * ln(p_n) with math.fsum where the card divides "
            "the plain sum by orders_used. Model: exactly NLTK's operations on its smoothed "
            "precisions. With smoothed precisions far below 1 (statistics up to 1e12) the logs are "
            "large and the difference can be tens of ULPs."
        ),
        reproducer={"matches": [5, 0, 4], "totals": [7, 10, 5], "candidate_length": 7,
                    "reference_length": 7, "smoothing": "method1"},
        reproducer_field="bleu", card_value=0.17878070701931353, library_value=0.1787807070193136,
        library_code="import math\n" + _NLTK + "Fraction, SmoothingFunction\n"
                     "p = SmoothingFunction().method1([Fraction(5, 7, _normalize=False), "
                     "Fraction(0, 10, _normalize=False), Fraction(4, 5, _normalize=False)])\n"
                     "print(math.exp(math.fsum(w * math.log(x) for w, x in zip((1/3,) * 3, p) if x > 0)))",
        library_prints='0.1787807070193136',
        tags=("float",),
    ),
)
