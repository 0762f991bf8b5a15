"""sacreBLEU's catalog entries: what it does differently from the cards.

Each entry's model is the branch of :mod:`bleu_compat.libraries.sacrebleu.model`
behind the entry's id; an entry explains a sacreBLEU output only when the
dialect with its model switched on reproduces that output bit for bit
(SPEC.md §7). ``library_code`` prints sacreBLEU's own value on the reproducer
(``oracle_tests/test_catalog.py`` runs it with the installed version when
that version is among the entry's ``verified``; the code is written for the
newest of them).

Versions (SPEC.md §7): ``verified`` lists the releases on which ``bleu-compat
matrix`` ran the crosscheck with the entry in that release's dialect and
nothing was UNEXPECTED. :data:`VERIFIED` is every measured release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.harness.truth import closest_length

__all__ = ["ENTRIES", "VERIFIED", "TOKENIZER_ENTRIES", "TokenizerEntry"]

#: sacreBLEU 1.4: ``corpus_bleu(sys_stream, ref_streams, smooth_method=...)``, 4 orders only,
#: '' references kept, no None references, floor's default value 0.0
V1_4 = ("1.4.14",)
#: sacreBLEU 1.5: the same API; '' and None references dropped, floor's default 0.1
V1_5 = ("1.5.1",)
V1 = V1_4 + V1_5
#: sacreBLEU 2.0.0: ``BLEU(...)``, but the max order is not passed on and '' references are dropped
V2_0 = ("2.0.0",)
#: sacreBLEU 2.1.0: the max order is passed on; '' references still dropped
V2_1 = ("2.1.0",)
#: sacreBLEU 2.2–2.6: one dialect (bleu.py differs only in whitespace and tokenizer tables)
V2_2 = ("2.2.1", "2.3.1", "2.3.3", "2.4.3", "2.5.1", "2.6.0")
#: every sacreBLEU version whose dialect was measured, oldest first
VERIFIED = V1 + V2_0 + V2_1 + V2_2
#: releases with the 2.x API
V2 = V2_0 + V2_1 + V2_2
CORPUS, SMOOTHING, BREVITY = "bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty"
Request = dict[str, Any]

_BLEU = "from sacrebleu.metrics import BLEU\n"


def whitespace_tokens(request: Request) -> list[str]:
    """Distinct tokens of a corpus request that ``str.split()`` would split or drop."""
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


def padding_changes(request: Request) -> list[int]:
    """Segments whose closest reference length changes when padded with '' references."""
    most = max(len(refs) for refs in request["references"])
    out = []
    for i, (hyp, refs) in enumerate(zip(request["hypotheses"], request["references"])):
        if len(refs) < most:
            lens = [len(r) for r in refs]
            if closest_length(len(hyp), lens + [0]) != closest_length(len(hyp), lens):
                out.append(i)
    return out


def _facts_whitespace(request: Request) -> str | None:
    toks = whitespace_tokens(request)
    if not toks:
        return None
    shown = ", ".join(repr(t) for t in toks[:3])
    return f"{len(toks)} distinct token(s) contain whitespace that str.split() splits on, e.g. {shown}"


def _facts_padding(request: Request) -> str | None:
    seg = padding_changes(request)
    if not seg:
        return None
    return (f"{len(seg)} segment(s) with fewer references than the others get a '' reference "
            f"that becomes their closest reference (first: segment {seg[0]})")


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="SACREBLEU-WHITESPACE-IN-TOKEN",
        library="sacrebleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length", "matches", "totals"),
        modes=("as_called",),
        title="sacreBLEU's string interface splits tokens that contain whitespace",
        explanation=(
            "sacreBLEU takes each segment as one string and splits it with str.split(), so a "
            "card token that contains a space, NBSP (U+00A0), U+3000 or any other character "
            "Python counts as whitespace becomes several tokens (and a token made only of "
            "whitespace disappears). Model: every hypothesis and reference is "
            "' '.join(tokens).split() before counting. The mapped adapter replaces every "
            "distinct token by a whitespace-free surrogate (t0, t1, ...), which keeps the "
            "card's tokens intact."
        ),
        reproducer={"hypotheses": [["New York", "is", "big"]],
                    "references": [[["New York", "is", "big"]]]},
        reproducer_field="totals", card_value=[3, 2, 1, 0], library_value=[4, 3, 2, 1],
        library_code=_BLEU + "print(BLEU(tokenize='none', smooth_method='none').corpus_score("
                             "['New York is big'], [['New York is big']]).totals)",
        library_prints='[4, 3, 2, 1]',
        facts=_facts_whitespace, tags=("tokens",),
    ),
    CatalogEntry(
        id="SACREBLEU-EMPTY-STRING-PADDING",
        library="sacrebleu", verified=V1_4 + V2_2, tool_id=CORPUS,
        fields=("reference_length", "brevity_penalty", "bleu"),
        modes=("as_called",),
        title="Padding missing references with '' adds an empty reference of length 0",
        explanation=(
            "sacreBLEU takes references as streams (one string per segment per stream), so "
            "segments with fewer references must be padded. Padding with '' (what line-aligned "
            "reference files with empty lines give) creates an empty reference of length 0 that "
            "takes part in the closest-reference-length rule: a short hypothesis is then "
            "'closest' to the empty reference, the corpus reference length drops and the "
            "brevity penalty rises (often to 1). Model: such segments get empty references up "
            "to the largest reference count. Only None means 'no reference' to sacreBLEU; the "
            "mapped adapter pads with None."
        ),
        reproducer={"hypotheses": [["a", "b"], ["c"]],
                    "references": [[["a", "b"], ["a", "b", "x"]], [["c", "d", "e"]]]},
        reproducer_field="reference_length", card_value=5, library_value=2,
        library_code=_BLEU + "print(BLEU(tokenize='none', smooth_method='none').corpus_score("
                             "['a b', 'c'], [['a b', 'c d e'], ['a b x', '']]).ref_len)",
        library_prints='2',
        facts=_facts_padding, tags=("references", "input"),
    ),
    CatalogEntry(
        id="SACREBLEU-BP-EMPTY-CORPUS",
        library="sacrebleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("brevity_penalty",), modes=("as_called", "mapped"),
        title="sacreBLEU's brevity penalty is 1 when c = 0 and r = 0 (card: 0)",
        explanation=(
            "sacreBLEU computes the brevity penalty only when sys_len < ref_len, so an empty "
            "corpus against empty references (c = r = 0) keeps bp = 1.0. The card (like NLTK's "
            "brevity_penalty) defines it as 0 whenever c = 0. The score is 0 either way, because "
            "there are no matches. Model: bp = 1.0 when c = r = 0."
        ),
        reproducer={"hypotheses": [[]], "references": [[[]]]},
        reproducer_field="brevity_penalty", card_value=0, library_value=1.0,
        library_code=_BLEU + "print(BLEU(tokenize='none', smooth_method='none').corpus_score("
                             "[''], [['']]).bp)",
        library_prints='1.0',
        tags=("brevity",),
    ),
    CatalogEntry(
        id="SACREBLEU-FLOAT-ORDER",
        library="sacrebleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Logs of percentages and sum/N: the score differs in the last bits",
        explanation=(
            "sacreBLEU computes bp * exp(sum([my_log(100. * m_n / l_n)]) / N) on the 0-100 scale "
            "(BLEU.compute_bleu); the card computes bp * exp((1/N) * sum(ln(m_n / l_n))) on the "
            "0-1 scale, and the adapter divides sacreBLEU's score by 100. Model: exactly "
            "sacreBLEU's operations, then the adapter's / 100. The doubles differ by a few ULPs; "
            "a perfect match scores 100.00000000000004 (1.0000000000000004 after / 100), above "
            "the card's 1, because exp(ln(100)) rounds up. With decimals, such a difference can "
            "round to different decimals (the model applies toFixed to its own double, so it "
            "reproduces that too)."
        ),
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
        reproducer_field="bleu", card_value=0.48530827009929883, library_value=0.48530827009929865,
        library_code=_BLEU + "print(BLEU(tokenize='none', smooth_method='none').corpus_score("
                             "['The dog bit the man .', \"It wasn't surprising .\", "
                             "'The man had just bitten him .'], "
                             "[['The dog bit the man .', 'It was not unexpected .', 'The man bit him first .'], "
                             "['The dog had bit the man .', 'No one was surprised .', "
                             "'The man had bitten the dog .']]).score)",
        library_prints='48.530827009929865',
        tags=("float",),
        # a perfect match is no negative (sacreBLEU gives 100.00000000000004 there), nor is
        # p = 1/2 (49.99999999999999); p = 1/8 comes out exact (found among generated cases)
        negative={"hypotheses": [["a", "b", "c", "d", "e", "f", "g", "h"]], "references": [[["a"]]],
                  "max_order": 1},
    ),
    # --- bleu-smoothing-compute ----------------------------------------------
    CatalogEntry(
        id="SACREBLEU-BP-ZERO-LENGTHS-SMOOTHING",
        library="sacrebleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("brevity_penalty", "bleu"), modes=("as_called", "mapped"),
        title="compute_bleu with c = 0 and r = 0: brevity penalty 1 and a full score (card: 0 and 0)",
        explanation=(
            "BLEU.compute_bleu applies the brevity penalty only when sys_len < ref_len, so "
            "c = r = 0 keeps bp = 1.0, and since it also has no rule 'c = 0 gives 0', statistics "
            "with matches but c = 0 (allowed by the smoothing card, which takes c and r as "
            "given) score as if the lengths were fine. The card gives brevity_penalty 0 and "
            "bleu 0 whenever c = 0. Model: bp = 1.0 when c = r = 0."
        ),
        reproducer={"matches": [1], "totals": [1], "candidate_length": 0, "reference_length": 0,
                    "smoothing": "none"},
        reproducer_field="bleu", card_value=0, library_value=1.0000000000000004,
        library_code=_BLEU + "print(BLEU.compute_bleu([1], [1], 0, 0, smooth_method='none', "
                             "max_ngram_order=1).score)",
        library_prints='100.00000000000004',
        tags=("brevity",),
    ),
    CatalogEntry(
        id="SACREBLEU-SMOOTHED-COUNTS-HIDDEN",
        library="sacrebleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("smoothed_matches",), modes=("as_called",),
        title="floor and exp smoothing change only the precisions; BLEUScore.counts stay raw",
        explanation=(
            "Under 'floor' (method1) and 'exp' (method3) sacreBLEU writes the smoothed value "
            "straight into the precision (100 * epsilon / l_n, 100 / (2^k * l_n)) and returns the "
            "unsmoothed counts, so a user reading BLEUScore.counts sees 0 where the card reports "
            "epsilon or 1/2^k. The score is unaffected. Model: the reported matches are the raw "
            "ones. The mapped adapter recovers the numerators from the precisions, bit for bit. "
            "('add-k' changes the counts themselves, by mutating the caller's lists.)"
        ),
        reproducer={"matches": [3, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method3"},
        reproducer_field="smoothed_matches", card_value=[3, 0.5, 0.25], library_value=[3, 0, 0],
        library_code=_BLEU + "print(BLEU.compute_bleu([3, 0, 0], [3, 2, 1], 3, 3, "
                             "smooth_method='exp', max_ngram_order=3).counts)",
        library_prints='[3, 0, 0]',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="SACREBLEU-SMOOTHING-STOPS-AT-ZERO-TOTAL",
        library="sacrebleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("smoothed_matches",), modes=("as_called", "mapped"),
        title="sacreBLEU stops at the first order with total 0 and never smooths the orders after it",
        explanation=(
            "compute_bleu's loop breaks at the first order whose total is 0, so 'floor' and "
            "'exp' never give a match count to that order or the ones after it. The card "
            "smooths every order and numbers method3's k over all orders, those with total 0 "
            "included (SPEC.md section 4; the card's third example gives [2, 1, 0.5, 0.25]). "
            "Model: orders from the first zero total on keep their raw counts. The score agrees: "
            "such orders are either outside the effective order or make the score 0 in both."
        ),
        reproducer={"matches": [2, 1, 0, 0], "totals": [2, 1, 0, 0], "candidate_length": 2,
                    "reference_length": 2, "smoothing": "method3", "effective_order": True},
        reproducer_field="smoothed_matches", card_value=[2, 1, 0.5, 0.25], library_value=[2, 1, 0, 0],
        library_code=_BLEU + "s = BLEU.compute_bleu([2, 1, 0, 0], [2, 1, 0, 0], 2, 2, "
                             "smooth_method='exp', effective_order=True, max_ngram_order=4)\n"
                             "print(s.counts, s.precisions)",
        library_prints='[2, 1, 0, 0] [100.0, 100.0, 0.0, 0.0]',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="SACREBLEU-NO-MATCH-SKIPS-SMOOTHING",
        library="sacrebleu", verified=V2, tool_id=SMOOTHING,
        fields=("smoothed_matches", "smoothed_totals", "orders_used"), modes=("as_called", "mapped"),
        title="With no match at all, compute_bleu returns before smoothing",
        explanation=(
            "compute_bleu returns a score of 0 as soon as every match count is 0 (sacreBLEU issue "
            "#141), before any smoothing, so add-k never adds its 1 and floor/exp never set a "
            "numerator. The card also scores 0 there but still reports the smoothed counts (e.g. "
            "method2 turns [0, 0, 0] / [3, 2, 1] into [0, 1, 1] / [3, 3, 2]); with "
            "effective_order, orders_used then follows the unsmoothed totals. Model: that early "
            "return."
        ),
        reproducer={"matches": [0, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method2"},
        reproducer_field="smoothed_matches", card_value=[0, 1, 1], library_value=[0, 0, 0],
        library_code=_BLEU + "print(BLEU.compute_bleu([0, 0, 0], [3, 2, 1], 3, 3, "
                             "smooth_method='add-k', max_ngram_order=3).counts)",
        library_prints='[0, 0, 0]',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="SACREBLEU-FLOAT-ORDER-SMOOTHING",
        library="sacrebleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Smoothed BLEU from percentages: the score differs in the last bits",
        explanation=(
            "As in SACREBLEU-FLOAT-ORDER, compute_bleu takes my_log of 100. * m_n / l_n (or of "
            "100. * epsilon / l_n, 100. / (2^k * l_n)), divides the sum by the effective order, "
            "multiplies by bp and the adapter divides by 100 at the end. Model: exactly those "
            "operations. With statistics up to the card's limit of 1e12, smoothed precisions "
            "can be tiny, the logs large and the difference tens of ULPs."
        ),
        reproducer={"matches": [5, 2], "totals": [6, 7], "candidate_length": 6,
                    "reference_length": 6, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.48795003647426655, library_value=0.48795003647426677,
        library_code=_BLEU + "print(BLEU.compute_bleu([5, 2], [6, 7], 6, 6, smooth_method='none', "
                             "max_ngram_order=2).score)",
        library_prints='48.795003647426675',
        tags=("float",),
        # a perfect match is no negative (sacreBLEU gives 100.00000000000004 there), nor is
        # p = 1/2 (49.99999999999999); p = 1/8 comes out exact (found among generated cases)
        negative={"matches": [1], "totals": [8], "candidate_length": 8, "reference_length": 8,
                  "smoothing": "none"},
    ),
    # --- bleu-brevity-penalty -------------------------------------------------
    CatalogEntry(
        id="SACREBLEU-BP-ZERO-LENGTHS-BREVITY",
        library="sacrebleu", verified=VERIFIED, tool_id=BREVITY,
        fields=("brevity_penalty",), modes=("as_called", "mapped"),
        title="sacreBLEU's brevity penalty is 1 when c = 0 and r = 0 (card: 0)",
        explanation=(
            "As in SACREBLEU-BP-EMPTY-CORPUS: sacreBLEU applies the penalty only when "
            "sys_len < ref_len, so c = r = 0 gives 1.0; the card (and NLTK's brevity_penalty) "
            "give 0 for an empty candidate. Model: bp = 1.0 when c = r = 0."
        ),
        reproducer={"segments": [{"candidate_length": 0, "reference_lengths": [0]}]},
        reproducer_field="brevity_penalty", card_value=0, library_value=1.0,
        library_code=_BLEU + "print(BLEU.compute_bleu([0], [0], 0, 0, max_ngram_order=1).bp)",
        library_prints='1.0',
        tags=("brevity",),
    ),

    # --- older releases ---------------------------------------------------------
    CatalogEntry(
        id="SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR",
        library="sacrebleu", verified=V2_0, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="sacreBLEU 2.0.0 raises IndexError for a max order below 4",
        explanation=(
            "In sacreBLEU 2.0.0, BLEU._compute_score_from_stats calls compute_bleu without "
            "max_ngram_order (fixed in 2.1.0), so compute_bleu loops over its default 4 orders "
            "while the statistics have N < 4: once the loop gets past order N (some order "
            "matches and no total up to N is 0) total[N] raises IndexError: list index out of "
            "range. Model: sacreBLEU 2.0.0's compute_bleu with max order 4 on the N-order "
            "statistics."
        ),
        reproducer={"hypotheses": [["a", "b"]], "references": [[["a", "b"]]], "max_order": 2},
        reproducer_field="error", card_value=None, library_value="IndexError: list index out of range",
        library_code=_BLEU + "try:\n    BLEU(tokenize='none', smooth_method='none', max_ngram_order=2)"
                             ".corpus_score(['a b'], [['a b']])\n"
                             "except IndexError as exc:\n    print(type(exc).__name__ + ': ' + str(exc))",
        library_prints='IndexError: list index out of range',
        tags=("orders",),
    ),
    CatalogEntry(
        id="SACREBLEU-MAX-ORDER-NOT-PASSED-SCORE",
        library="sacrebleu", verified=V2_0, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="sacreBLEU 2.0.0 scores only orders 1-4 when the max order is 5 or more",
        explanation=(
            "For the same reason as SACREBLEU-MAX-ORDER-NOT-PASSED-INDEXERROR, sacreBLEU 2.0.0 "
            "computes the score of N > 4 order statistics from the first 4 precisions only "
            "(bp * exp(sum(my_log(p_n), n = 1..4) / 4)); the counts and totals of orders 5..N "
            "are reported but ignored. A corpus with no 5-gram match, which the card scores 0, "
            "gets the 4-gram score. Model: compute_bleu with max order 4 in sacreBLEU's "
            "arithmetic."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "d"]]],
                    "max_order": 5},
        reproducer_field="bleu", card_value=0, library_value=1.0000000000000004,
        library_code=_BLEU + "print(BLEU(tokenize='none', smooth_method='none', max_ngram_order=5)"
                             ".corpus_score(['a b c d'], [['a b c d']]).score)",
        library_prints='100.00000000000004',
        tags=("orders",),
    ),
    CatalogEntry(
        id="SACREBLEU-EMPTY-REFERENCE-DROPPED",
        library="sacrebleu", verified=V2_0 + V2_1, tool_id=CORPUS,
        fields=("reference_length", "brevity_penalty", "bleu", "error"), modes=("as_called", "mapped"),
        title="sacreBLEU 2.0-2.1 drop empty references; a segment with none left raises RuntimeError",
        explanation=(
            "sacreBLEU 2.0.0 and 2.1.0 remove every reference that is None or the empty string "
            "before counting (BLEU._cache_references: [x for x in refs if x is not None and "
            "x != '']; 2.2.0 keeps ''), so an empty reference (a card reference []) takes no part "
            "in the closest-reference-length rule, and the '' padding of the as-called adapter "
            "has no effect (SACREBLEU-EMPTY-STRING-PADDING does not apply). A segment whose "
            "references are all empty raises RuntimeError: Empty or `None` reference sentence "
            "found. Model: those references removed, that error when none is left."
        ),
        reproducer={"hypotheses": [["a"]], "references": [[["a", "b", "c"], []]]},
        reproducer_field="reference_length", card_value=0, library_value=3,
        library_code=_BLEU + "print(BLEU(tokenize='none', smooth_method='none').corpus_score("
                             "['a'], [['a b c'], ['']]).ref_len)",
        library_prints='3',
        tags=("references",),
    ),
    CatalogEntry(
        id="SACREBLEU-EMPTY-REFERENCE-DROPPED-EOF",
        library="sacrebleu", verified=V1_5, tool_id=CORPUS,
        fields=("reference_length", "brevity_penalty", "bleu", "error"), modes=("as_called", "mapped"),
        title="sacreBLEU 1.5 drops empty references; a segment with none left raises EOFError",
        explanation=(
            "sacreBLEU 1.5's BLEU.corpus_score removes every reference that is None or '' "
            "([x for x in refs if x is not None and x != '']), so an empty reference takes no part "
            "in the closest-reference-length rule, and raises EOFError: No valid references for a "
            "sentence! when a segment has none left. Model: those references removed, that error "
            "when none is left."
        ),
        reproducer={"hypotheses": [["a"]], "references": [[["a", "b", "c"], []]]},
        reproducer_field="reference_length", card_value=0, library_value=3,
        library_code="import sacrebleu\nprint(sacrebleu.corpus_bleu(['a'], [['a b c'], ['']], "
                     "smooth_method='none', tokenize='none', force=True).ref_len)",
        library_prints='3',
        tags=("references",),
    ),
    CatalogEntry(
        id="SACREBLEU-FLOOR-DEFAULT-ZERO",
        library="sacrebleu", verified=V1_4, tool_id=SMOOTHING,
        fields=("bleu", "smoothed_matches"), modes=("as_called",),
        title="sacreBLEU 1.4's floor smoothing defaults to 0.0, not 0.1",
        explanation=(
            "In sacreBLEU 1.4, BLEU.SMOOTH_DEFAULTS['floor'] is 0.0 (1.5 changed it to 0.1, Chen & "
            "Cherry's value, which the card's method1 uses when epsilon is not given), so floor "
            "smoothing without smooth_value gives a zero-match order the precision 0, whose "
            "my_log is -9999999999: the score is 0 where the card's is positive. Model: epsilon "
            "0.0 when the request gives none. The mapped adapter passes epsilon explicitly."
        ),
        reproducer={"matches": [2, 1, 0, 0], "totals": [2, 1, 1, 1], "candidate_length": 2,
                    "reference_length": 2, "smoothing": "method1"},
        reproducer_field="bleu", card_value=0.316227766016838, library_value=0.0,
        library_code="from sacrebleu.metrics import BLEU\nprint(BLEU.compute_bleu([2, 1, 0, 0], "
                     "[2, 1, 1, 1], 2, 2, smooth_method='floor').score)",
        library_prints='0.0',
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="SACREBLEU-NO-MATCH-STILL-SMOOTHED",
        library="sacrebleu", verified=V1, tool_id=SMOOTHING,
        fields=("bleu", "orders_used"), modes=("as_called", "mapped"),
        title="sacreBLEU 1.x smooths statistics without any match and gives them a positive score",
        explanation=(
            "Before sacreBLEU 2.0 (issue #141), compute_bleu has no early return for statistics "
            "without a single match: its loop still runs, floor and exp smoothing give every "
            "order a positive precision and the score is positive (add-k leaves order 1 at 0 and "
            "the score at 0). The card scores 0 whenever m_1 = 0. Model: the loop and sacreBLEU's "
            "arithmetic without the early return."
        ),
        reproducer={"matches": [0, 0, 0, 0], "totals": [4, 3, 2, 1], "candidate_length": 4,
                    "reference_length": 4, "smoothing": "method1"},
        reproducer_field="bleu", card_value=0, library_value=0.04518010018049225,
        library_code="from sacrebleu.metrics import BLEU\nprint(BLEU.compute_bleu([0, 0, 0, 0], "
                     "[4, 3, 2, 1], 4, 4, smooth_method='floor').score)",
        library_prints='4.518010018049225',
        tags=("smoothing",),
    ),
)


# --- tokenizer differences between releases (issue 20) ---------------------------------


@dataclass(frozen=True)
class TokenizerEntry:
    """A way one sacreBLEU release's tokenizer differs from the newest measured release's.

    Not a difference from a card (the cards take tokens): the reference is our tokenizer
    for the newest release (:data:`bleu_compat.tokenizers.releases.NEWEST`). The entry's
    model is our tokenizer variant ``model`` (:func:`bleu_compat.tokenizers.releases.variant`),
    which ``get_tokenizer(..., release=R)`` uses for every release R in ``verified``: the
    run-time check (``score --compare``, ``crosscheck``, each ``bleu-compat matrix``
    environment) compares that release's tokens with it on every line.

    Attributes:
        id, library, verified, title, explanation: as :class:`CatalogEntry`'s.
        tokenizer: sacreBLEU's name of the tokenizer.
        model: our tokenizer variant for the verified releases.
        reproducer: one line of text.
        newest_tokens: its tokens with the newest release (ours for it).
        library_tokens: its tokens with the verified releases (ours for them; the library's).
        library_code, library_prints: code printing the library's tokens as its users get
            them, and what it prints with the newest verified release.
        facts: line -> a sentence about the characters of the line behind the entry, or None.
    """

    id: str
    library: str
    verified: tuple[str, ...]
    tokenizer: str
    model: str
    title: str
    explanation: str
    reproducer: str
    newest_tokens: tuple[str, ...]
    library_tokens: tuple[str, ...]
    library_code: str
    library_prints: str
    facts: Callable[[str], str | None] | None = None


def _facts_intl_unicodedata(line: str) -> str | None:
    """The characters of ``line`` that sacreBLEU 1.x's intl classes and 2.x's treat apart.

    From the running Python's ``unicodedata`` alone (the judge imports no tokenizer): the
    backslash (punctuation from 2.0.0 on), numbers other than decimal digits (Nl, No: a number
    for 2.x, not for 1.x) and code points unassigned here (the regex module's newer Unicode
    tables may class them).
    """
    import unicodedata

    differ = []
    for c in dict.fromkeys(line):
        category = unicodedata.category(c)
        if c == "\\" or category in ("Nl", "No", "Cn"):
            differ.append(f"U+{ord(c):04X} ({'backslash' if c == chr(92) else category})")
    if not differ:
        return None
    return (f"{len(differ)} character(s) that sacreBLEU 1.x's intl classes (unicodedata "
            f"{unicodedata.unidata_version}) and 2.x's (the regex module's) treat apart, e.g. "
            f"{', '.join(differ[:3])}")


TOKENIZER_ENTRIES: tuple[TokenizerEntry, ...] = (
    TokenizerEntry(
        id="SACREBLEU-INTL-UNICODEDATA",
        library="sacrebleu", verified=V1, tokenizer="intl", model="intl-unicodedata",
        title="sacreBLEU before 2.0 builds intl's classes from Python's unicodedata: no backslash, "
              "only decimal digits are numbers",
        explanation=(
            "sacreBLEU 1.x (1.2-1.5) built intl's punctuation and symbol classes at run time from "
            "unicodedata.category of the running Python, pasting the characters between brackets: "
            "the backslash then escapes the ']' after it and is not punctuation; and a punctuation "
            "character stays attached only next to a decimal digit (re's \\d, category Nd). From "
            "2.0.0 the classes are the regex module's \\p{P}, \\p{S} and \\P{N}: the backslash is "
            "punctuation, a punctuation character next to any number (Nd, Nl, No: '½', 'Ⅻ') stays "
            "attached, and the Unicode tables are the regex release's (ours record regex "
            "2026.11.19's, Unicode 18.0.0), not the Python's. Model: our intl with "
            "unicodedata_classes() (bleu_compat.tokenizers.reference), the running Python's "
            "categories with the backslash left out and Nd as the numbers."
        ),
        reproducer="a\\b 5.½",
        newest_tokens=("a", "\\", "b", "5.½"),
        library_tokens=("a\\b", "5", ".", "½"),
        library_code="from sacrebleu.tokenizers import TOKENIZERS\n"
                     "print(TOKENIZERS['intl']()('a\\\\b 5.½').split())",
        library_prints="['a\\\\b', '5', '.', '½']",
        facts=_facts_intl_unicodedata,
    ),
)
