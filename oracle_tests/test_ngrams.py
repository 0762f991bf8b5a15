"""n-gram counting (bleu_compat.ngrams.ngram_counts), against hand-written counts."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest

from bleu_compat.ngrams import ngram_counts


class TestNgramCounts:
    """``ngram_counts(tokens, max_order)`` counts every n-gram for n = 1..max_order."""

    def test_hand_counted(self) -> None:
        """'a b a b' up to trigrams, counted by hand."""
        assert ngram_counts(["a", "b", "a", "b"], 3) == Counter(
            {("a",): 2, ("b",): 2, ("a", "b"): 2, ("b", "a"): 1, ("a", "b", "a"): 1, ("b", "a", "b"): 1}
        )

    def test_empty(self) -> None:
        """An empty segment has no n-grams."""
        assert ngram_counts([], 4) == Counter()

    def test_shorter_than_order(self) -> None:
        """A 2-token segment has 2 unigrams, 1 bigram and no trigram or 4-gram."""
        counts = ngram_counts(["x", "y"], 4)
        assert counts == Counter({("x",): 1, ("y",): 1, ("x", "y"): 1})

    @pytest.mark.parametrize("length", [0, 1, 3, 7])
    @pytest.mark.parametrize("max_order", [1, 2, 4, 8])
    def test_totals_per_order(self, length: int, max_order: int) -> None:
        """A segment of L distinct tokens has max(L - n + 1, 0) n-grams of order n."""
        tokens = [f"t{i}" for i in range(length)]
        counts = ngram_counts(tokens, max_order)
        for n in range(1, max_order + 1):
            assert sum(c for g, c in counts.items() if len(g) == n) == max(length - n + 1, 0)

    def test_repeated_token(self) -> None:
        """'the' seven times: 7 unigrams, 6 bigrams, 5 trigrams of one kind each."""
        counts = ngram_counts(["the"] * 7, 3)
        assert counts == Counter({("the",): 7, ("the", "the"): 6, ("the", "the", "the"): 5})

    def test_tuple_input(self) -> None:
        """A tuple of tokens counts like a list."""
        assert ngram_counts(("a", "b"), 2) == ngram_counts(["a", "b"], 2)

    def test_order_one(self) -> None:
        """max_order 1 gives unigrams only."""
        assert ngram_counts(["a", "b", "a"], 1) == Counter({("a",): 2, ("b",): 1})


class TestExactTokens:
    """Tokens are compared by exact string equality: no trimming, no normalisation, no case folding."""

    @pytest.mark.parametrize(
        "token", ["a b", "a\u00a0b", "a\u3000b", "a\u200bb", "a\tb", " a", "a ", "\u2028"]
    )
    def test_whitespace_inside_tokens(self, token: str) -> None:
        """A token with a space, NBSP, U+3000, ZWSP, tab or a line separator is one unigram, itself."""
        counts = ngram_counts([token], 1)
        assert counts == Counter({(token,): 1})
        assert ngram_counts(["a", "b"], 1)[(token,)] == 0

    def test_nfc_and_nfd_differ(self) -> None:
        """'é' precomposed (NFC) and decomposed (NFD) are different tokens."""
        nfc, nfd = unicodedata.normalize("NFC", "\u00e9"), unicodedata.normalize("NFD", "\u00e9")
        assert nfc != nfd
        counts = ngram_counts([nfc, nfd], 1)
        assert counts[(nfc,)] == 1 and counts[(nfd,)] == 1

    def test_case_differs(self) -> None:
        """'The' and 'the' are different tokens."""
        assert ngram_counts(["The", "the"], 1) == Counter({("The",): 1, ("the",): 1})
