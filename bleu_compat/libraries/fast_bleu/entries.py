"""fast-bleu's catalog entries: what its BLEU does differently from the cards.

Each entry's model is the branch of :mod:`bleu_compat.libraries.fast_bleu.model`
behind the entry's id; an entry explains a fast-bleu output only when the
dialect with its model switched on reproduces that output bit for bit (SPEC.md
§7). ``library_code`` prints fast-bleu's own value on the reproducer.
"""

from __future__ import annotations

from typing import Any

from bleu_compat.harness.dialect import CatalogEntry

__all__ = ["ENTRIES", "VERIFIED"]

#: fast-bleu releases whose dialect was measured (built from the sdist with g++ 12, x86-64)
VERIFIED = ("0.0.90",)
CORPUS = "bleu-corpus-compute"
Request = dict[str, Any]

_FB = "from fast_bleu import BLEU\n"


def _facts_pooled(request: Request) -> str | None:
    n = len(request["hypotheses"])
    refs = sum(len(r) for r in request["references"])
    return (f"each of the {n} hypotheses is scored against all {refs} references pooled, and the "
            f"{n} scores are averaged")


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="FAST-BLEU-POOLED-MEAN",
        library="fast-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called",),
        title="fast-bleu scores each hypothesis against all references pooled; its number is their mean",
        explanation=(
            "fast-bleu's BLEU takes one reference set and get_score gives one score per "
            "hypothesis against the whole set: n-grams clipped by their largest count in any "
            "reference of the corpus, the closest of all reference lengths, each order's total "
            "floored at 1 (NLTK's modified_precision), an order without a match smoothed to "
            "1 / (10 t) (smoothing_func=1, NLTK's method1 as an exact fraction), the logarithms "
            "summed in long double with float32 weights. The number users take is the mean of "
            "those scores. The card's corpus BLEU sums each segment's statistics against its own "
            "references before dividing. Model: all of that, from the request's tokens."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"], ["e", "f", "g", "a"]],
                    "references": [[["a", "b", "c", "d"]], [["e", "f", "g"]]], "max_order": 2},
        reproducer_field="bleu", card_value=0.8539125638299666, library_value=0.908248290463863,
        library_code=_FB + "s = BLEU([['a', 'b', 'c', 'd'], ['e', 'f', 'g']], {2: (1/2, 1/2)})"
                           ".get_score([['a', 'b', 'c', 'd'], ['e', 'f', 'g', 'a']])[2]\n"
                           "print(sum(s) / len(s))",
        library_prints='0.908248290463863',
        facts=_facts_pooled, tags=("aggregation",),
    ),
    CatalogEntry(
        id="FAST-BLEU-LONG-DOUBLE",
        library="fast-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("mapped",),
        title="fast-bleu's float32 weights and long double logarithms move the score (1/3 is 0.33333334)",
        explanation=(
            "fast-bleu keeps the weights as float32 (vector<float>) and sums "
            "(double)w_n * log((long double)m_n / (long double)t_n) into a double in x87 "
            "extended precision, then bp * exp(s). For N = 3 each weight is 0.3333333432674408, "
            "so the weights add up to more than 1 and the score is off from the 8th digit; for "
            "N = 4 (0.25) only the last bits move. Model: those operations (numpy's longdouble "
            "and the same libm logl)."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "x", "y"]],
                    "references": [[["a", "b", "c"], ["x", "y", "z"]]], "max_order": 3},
        reproducer_field="bleu", card_value=0.5000000000000001, library_value=0.4999999896713022,
        library_code=_FB + "print(BLEU([['a', 'b', 'c'], ['x', 'y', 'z']], {3: (1/3, 1/3, 1/3)}, "
                           "smoothing_func=0).get_score([['a', 'b', 'c', 'd', 'x', 'y']])[3][0])",
        library_prints='0.4999999896713022',
        tags=("float",),
    ),
    CatalogEntry(
        id="FAST-BLEU-NGRAM-STRINGS",
        library="fast-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called",),
        title="fast-bleu compares n-grams as strings joined by spaces: tokens holding spaces collide",
        explanation=(
            "get_ngrams makes each n-gram the string of its tokens joined by one space, and the "
            "counts are keyed by that string, so the bigram ('a b', 'c') equals ('a', 'b c'): a "
            "hypothesis n-gram can match a reference n-gram of other tokens. Model: n-grams "
            "compared as those strings. The mapped adapter gives whitespace-free surrogates."
        ),
        reproducer={"hypotheses": [["x", "a b", "c"]], "references": [[["x", "a", "b c"]]],
                    "max_order": 2},
        reproducer_field="bleu", card_value=0, library_value=0.40824829046386296,
        library_code=_FB + "print(BLEU([['x', 'a', 'b c']], {2: (1/2, 1/2)}).get_score("
                           "[['x', 'a b', 'c']])[2][0])",
        library_prints='0.40824829046386296',
        tags=("tokens",),
    ),
    CatalogEntry(
        id="FAST-BLEU-MAX-ORDER-1",
        library="fast-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="fast-bleu refuses a max order of 1",
        explanation=(
            "BLEU.__init__ asserts 2 <= min_n <= max_n over the weights' lengths: unigram BLEU "
            "raises AssertionError. The cards take orders 1 to 8. Model: that error."
        ),
        reproducer={"hypotheses": [["a"]], "references": [[["a"]]], "max_order": 1},
        reproducer_field="error", card_value=None,
        library_value="AssertionError: 2 <= min_n <= max_n; got 2 <= 1 <= 1",
        library_code=_FB + "try:\n    BLEU([['a']], {1: (1.0,)})\nexcept AssertionError as exc:\n"
                           "    print(type(exc).__name__ + ': ' + str(exc))",
        library_prints='AssertionError: 2 <= min_n <= max_n; got 2 <= 1 <= 1',
        tags=("orders",),
    ),
)
