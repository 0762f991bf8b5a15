"""pycocoevalcap's catalog entries: what its ``Bleu`` does differently from the cards.

Each entry's model is the branch of :mod:`bleu_compat.libraries.pycocoevalcap.model`
behind the entry's id; an entry explains a pycocoevalcap output only when the
dialect with its model switched on reproduces that output bit for bit (SPEC.md
§7). ``library_code`` prints pycocoevalcap's own value on the reproducer (its
statistics printout is redirected away, as the adapter does).
"""

from __future__ import annotations

from typing import Any

from bleu_compat.harness.dialect import CatalogEntry

__all__ = ["ENTRIES", "VERIFIED"]

#: pycocoevalcap releases whose dialect was measured
VERIFIED = ("1.2",)
CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"
Request = dict[str, Any]

_BLEU = ("import contextlib, io\nfrom pycocoevalcap.bleu.bleu import Bleu\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n")
_SCORER = ("import contextlib, io\nfrom pycocoevalcap.bleu.bleu_scorer import BleuScorer\n"
           "s = BleuScorer(n={n})\ns.crefs = [([{r}], {{}})]\n"
           "s.ctest = [{{'testlen': {c}, 'reflen': [{r}], 'guess': {t}, 'correct': {m}}}]\n"
           "with contextlib.redirect_stdout(io.StringIO()):\n"
           "    score = s.compute_score(option='closest')[0]\nprint(score[-1])")


def _zero_facts(request: Request) -> str | None:
    from bleu_compat.harness.truth import corpus_truth_stats

    matches = corpus_truth_stats(request["hypotheses"], request["references"],
                                 request.get("max_order", 4))[0]
    zeros = [n + 1 for n, m in enumerate(matches) if m == 0]
    if not zeros:
        return None
    return (f"order(s) {zeros} have no match: coco's precision there is 1e-15 / (l_n + 1e-9), "
            "so the score is small but positive where the card gives 0")


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="PYCOCOEVALCAP-WHITESPACE-IN-TOKEN",
        library="pycocoevalcap", verified=VERIFIED, tool_id=CORPUS,
        fields=("matches", "totals", "candidate_length", "reference_length", "bleu"),
        modes=("as_called",),
        title="pycocoevalcap takes strings and splits them: a token holding whitespace becomes several",
        explanation=(
            "Bleu.compute_score takes each caption as a string and precook splits it with "
            "str.split(), so tokens joined with spaces are split again where they hold whitespace. "
            "Model: every segment is ' '.join(tokens).split(). The mapped adapter gives "
            "whitespace-free surrogates."
        ),
        reproducer={"hypotheses": [["a b", "c"]], "references": [[["a b", "c", "d"]]],
                    "max_order": 2},
        reproducer_field="bleu", card_value=0.6065306597126334, library_value=0.7165313100363911,
        library_code=_BLEU + "    score, _ = Bleu(2).compute_score({0: ['a b c d']}, {0: ['a b c']})\n"
                             "print(score[1])",
        library_prints='0.7165313100363911',
        tags=("tokens",),
    ),
    CatalogEntry(
        id="PYCOCOEVALCAP-FUDGE-ARITHMETIC",
        library="pycocoevalcap", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="coco multiplies precisions with 1e-15 / 1e-9 fudges: a perfect match is 0.9999999992",
        explanation=(
            "BleuScorer.compute_score multiplies the ratios float(m_k + 1e-15) / (t_k + 1e-9) one "
            "order after another and takes the running product to the power 1 / N (no logarithms); "
            "the brevity penalty is exp(1 - 1 / ratio) with ratio = (c + 1e-15) / (r + 1e-9), "
            "applied when ratio < 1. The fudges move every score: a perfect match of 4 tokens is "
            "0.9999999992291674, not 1. Model: exactly those operations."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "d"]]]},
        reproducer_field="bleu", card_value=1, library_value=0.9999999992291674,
        library_code=_BLEU + "    score, _ = Bleu(4).compute_score({0: ['a b c d']}, {0: ['a b c d']})\n"
                             "print(score[3])",
        library_prints='0.9999999992291674',
        tags=("float",),
        # the fudge changes every positive score: its negative is a score of 0 (no unigram match)
        negative={"hypotheses": [["a", "b"]], "references": [[["c", "d"]]]},
    ),
    CatalogEntry(
        id="PYCOCOEVALCAP-ZERO-MATCH-FUDGE",
        library="pycocoevalcap", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="An order without a match gives coco a small positive score (1e-4, not 0)",
        explanation=(
            "With m_n = 0, coco's ratio for that order is 1e-15 / (t_n + 1e-9), so the product is "
            "tiny but positive and its N-th root is not: one missing 4-gram order of four gives "
            "about 1e-4. An order with no n-gram at all gives 1e-15 / 1e-9 = 1e-6. The card's "
            "score is 0. Model: coco's arithmetic for such statistics."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "x"]]]},
        reproducer_field="bleu", card_value=0, library_value=0.00012574334287136646,
        library_code=_BLEU + "    score, _ = Bleu(4).compute_score({0: ['a b c x']}, {0: ['a b c d']})\n"
                             "print(score[3])",
        library_prints='0.00012574334287136646',
        facts=_zero_facts, tags=("zero",),
    ),
    CatalogEntry(
        id="PYCOCOEVALCAP-MAX-ORDER-ABOVE-4-INDEXERROR",
        library="pycocoevalcap", verified=VERIFIED, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="Bleu(n) with n above 4 raises IndexError",
        explanation=(
            "Bleu(n) builds BleuScorer(n=n), but each caption is cooked by cook_refs and "
            "cook_test with their default n=4, so the statistics hold 4 orders and "
            "compute_score's loop over n orders reads a fifth: IndexError: list index out of "
            "range. (For n below 4 the first n of the 4 cooked orders are used, as they should "
            "be.) The cards take up to 8 orders. Model: that error."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "e"]], "references": [[["a", "b", "c", "d", "e"]]],
                    "max_order": 5},
        reproducer_field="error", card_value=None, library_value="IndexError: list index out of range",
        library_code=_BLEU + "    try:\n        Bleu(5).compute_score({0: ['a b c d e']}, {0: ['a b c d e']})\n"
                             "    except IndexError as exc:\n        error = type(exc).__name__ + ': ' + str(exc)\n"
                             "print(error)",
        library_prints='IndexError: list index out of range',
        tags=("orders",),
    ),
    CatalogEntry(
        id="PYCOCOEVALCAP-FUDGE-ARITHMETIC-SMOOTHING",
        library="pycocoevalcap", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics, coco's score is its fudged product, not the card's",
        explanation=(
            "As in PYCOCOEVALCAP-FUDGE-ARITHMETIC, on statistics given to BleuScorer.compute_score "
            "as one cooked test. Model: coco's operations."
        ),
        reproducer={"matches": [5, 2], "totals": [6, 7], "candidate_length": 6,
                    "reference_length": 6, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.48795003647426655, library_value=0.4879500363174257,
        library_code=_SCORER.format(n=2, r=6, c=6, t=[6, 7], m=[5, 2]),
        library_prints='0.4879500363174257',
        tags=("float",),
        # the fudge changes every positive score: its negative is a score of 0 (no unigram match)
        negative={"matches": [0, 0, 0, 0], "totals": [2, 1, 0, 0], "candidate_length": 2, "reference_length": 2, "smoothing": "none"},
    ),
    CatalogEntry(
        id="PYCOCOEVALCAP-ZERO-MATCH-FUDGE-SMOOTHING",
        library="pycocoevalcap", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From statistics with an order without a match, coco's score is small but positive",
        explanation=(
            "As in PYCOCOEVALCAP-ZERO-MATCH-FUDGE, on statistics given to BleuScorer.compute_score. "
            "Model: coco's arithmetic for such statistics."
        ),
        reproducer={"matches": [3, 2, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "none"},
        reproducer_field="bleu", card_value=0, library_value=9.999999990555565e-06,
        library_code=_SCORER.format(n=3, r=3, c=3, t=[3, 2, 1], m=[3, 2, 0]),
        library_prints='9.999999990555565e-06',
        tags=("zero",),
    ),
)
