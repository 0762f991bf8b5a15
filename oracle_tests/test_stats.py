"""Sufficient statistics (bleu_compat.stats): clipping, closest reference length, additivity.

Expected counts are derived by hand in each test's docstring or by a small
Counter-based implementation written here from Papineni et al. 2002 §2.1.
"""

from __future__ import annotations

from collections import Counter

import pytest

from bleu_compat import ConfigError, InvalidInputError
from bleu_compat.stats import (
    SufficientStats,
    check_max_order,
    closest_ref_len,
    corpus_stats,
    segment_stats,
)


def reference_segment_stats(hyp: list[str], refs: list[list[str]], max_order: int) -> SufficientStats:
    """An independent counting of clipped matches and totals, straight from the definition."""
    matches, totals = [], []
    for n in range(1, max_order + 1):
        grams = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
        best: Counter = Counter()
        for ref in refs:
            for g, c in Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1)).items():
                best[g] = max(best[g], c)
        matches.append(sum(min(c, best[g]) for g, c in grams.items()))
        totals.append(max(len(hyp) - n + 1, 0))
    ref_lens = sorted(len(r) for r in refs)
    ref_len = min(ref_lens, key=lambda r: (abs(r - len(hyp)), r))
    return SufficientStats(tuple(matches), tuple(totals), len(hyp), ref_len)


class TestClosestRefLen:
    """``closest_ref_len`` picks the reference length closest to the hypothesis length, ties to the shorter."""

    @pytest.mark.parametrize(
        ("hyp_len", "ref_lens", "expected"),
        [
            (6, [6, 7], 6),
            (4, [5, 5], 5),
            (7, [6, 7], 7),
            (5, [4, 6], 4),
            (5, [6, 4], 4),
            (0, [0], 0),
            (0, [3, 1], 1),
            (10, [1, 2, 30], 2),
            (12, [28, 28], 28),
        ],
    )
    def test_table(self, hyp_len: int, ref_lens: list[int], expected: int) -> None:
        """Hand-picked cases, including both tie orders."""
        assert closest_ref_len(hyp_len, ref_lens) == expected

    def test_iterator_input(self) -> None:
        """A generator of lengths works (consumed once)."""
        assert closest_ref_len(3, (n for n in [1, 5, 2])) == 2

    def test_no_reference(self) -> None:
        """No reference length is an InvalidInputError."""
        with pytest.raises(InvalidInputError):
            closest_ref_len(3, [])


class TestSegmentStats:
    """``segment_stats`` counts clipped matches, totals and the closest reference length."""

    def test_papineni_the_the_the(self) -> None:
        """Papineni 2002 §2.1: 'the' ×7 against two references clips to 2 (NLTK docstring: 2/7)."""
        s = segment_stats(["the"] * 7, ["the cat is on the mat".split(), "there is a cat on the mat".split()],
                          max_order=1)
        assert s.matches == (2,) and s.totals == (7,)

    def test_papineni_example1_precisions(self) -> None:
        """Papineni 2002 Example 1 (NLTK modified_precision docstring): 17/18 unigrams, 10/17 bigrams."""
        hyp = ("It is a guide to action which ensures that the military always obeys the commands "
               "of the party").split()
        refs = [
            "It is a guide to action that ensures that the military will forever heed Party commands".split(),
            ("It is the guiding principle which guarantees the military forces always being under "
             "the command of the Party").split(),
            "It is the practical guide for the army always to heed the directions of the party".split(),
        ]
        s = segment_stats(hyp, refs, max_order=2)
        assert s.matches == (17, 10) and s.totals == (18, 17)

    def test_clipping_uses_one_reference_at_a_time(self) -> None:
        """'a a a' vs refs ['a','b'] and ['a','a']: the clip is max over single references (2), not the sum (3)."""
        s = segment_stats(["a", "a", "a"], [["a", "b"], ["a", "a"]], max_order=2)
        assert s.matches == (2, 1) and s.totals == (3, 2)

    def test_empty_hypothesis(self) -> None:
        """An empty hypothesis has zero counts and the shortest closest reference."""
        s = segment_stats([], [["a", "b"], ["c"]], max_order=4)
        assert s == SufficientStats((0, 0, 0, 0), (0, 0, 0, 0), 0, 1)

    def test_empty_reference(self) -> None:
        """An empty reference matches nothing and has length 0."""
        s = segment_stats(["a"], [[]], max_order=2)
        assert s == SufficientStats((0, 0), (1, 0), 1, 0)

    def test_tokens_with_spaces_match_only_themselves(self) -> None:
        """'a b' as one token matches only the token 'a b', never 'a' followed by 'b'."""
        assert segment_stats(["a b"], [["a", "b"]], max_order=1).matches == (0,)
        assert segment_stats(["a b"], [["a b"]], max_order=1).matches == (1,)
        assert segment_stats(["a", "b"], [["a b"]], max_order=2).matches == (0, 0)

    @pytest.mark.parametrize("other", ["a\u00a0b", "a\u3000b", "a\u200bb", "a\tb", "A b", "a  b", " a b"])
    def test_unicode_whitespace_is_not_normalised(self, other: str) -> None:
        """NBSP, U+3000, ZWSP, tab, case and extra spaces make a different token."""
        assert segment_stats(["a b"], [[other]], max_order=1).matches == (0,)

    def test_nfd_does_not_match_nfc(self) -> None:
        """'café' in NFD does not match 'café' in NFC."""
        assert segment_stats(["caf\u00e9"], [["cafe\u0301"]], max_order=1).matches == (0,)

    def test_max_order_beyond_length(self) -> None:
        """max_order 8 on a 3-token hypothesis gives totals (3, 2, 1, 0, 0, 0, 0, 0)."""
        s = segment_stats(["a", "b", "c"], [["a", "b", "c"]], max_order=8)
        assert s.totals == (3, 2, 1, 0, 0, 0, 0, 0) and s.matches == s.totals

    def test_matches_reference_implementation(self) -> None:
        """A hand-made multi-reference segment agrees with the independent counter."""
        hyp = "the cat the cat sat on the mat the".split()
        refs = ["the cat sat on the mat".split(), "a cat the cat on a mat the the".split(), []]
        for n in range(1, 6):
            assert segment_stats(hyp, refs, max_order=n) == reference_segment_stats(hyp, refs, n)

    def test_no_reference(self) -> None:
        """A segment without references is InvalidInputError."""
        with pytest.raises(InvalidInputError):
            segment_stats(["a"], [])

    @pytest.mark.parametrize("bad", [0, -1, 1.0, True, "4"])
    def test_bad_max_order(self, bad: object) -> None:
        """max_order must be an int >= 1 (ConfigError)."""
        with pytest.raises(ConfigError):
            segment_stats(["a"], [["a"]], max_order=bad)  # type: ignore[arg-type]


class TestCorpusStats:
    """``corpus_stats`` sums the segments' statistics before any division (Papineni 2002 §2.1.1)."""

    def test_card_example_counts(self) -> None:
        """The corpus card's second example: matches 14/7/5/3, totals 17/14/11/8, c 17, r 18."""
        hyps = ["The dog bit the man .".split(), "It wasn't surprising .".split(),
                "The man had just bitten him .".split()]
        refs = [["The dog bit the man .".split(), "The dog had bit the man .".split()],
                ["It was not unexpected .".split(), "No one was surprised .".split()],
                ["The man bit him first .".split(), "The man had bitten the dog .".split()]]
        assert corpus_stats(hyps, refs) == SufficientStats((14, 7, 5, 3), (17, 14, 11, 8), 17, 18)

    def test_variable_reference_counts(self) -> None:
        """Segments may have different numbers of references."""
        hyps = [["a", "b"], ["c"]]
        refs = [[["a", "b"]], [["x"], ["c"], ["c", "d", "e"]]]
        assert corpus_stats(hyps, refs, max_order=2) == SufficientStats((3, 1), (3, 1), 3, 3)

    def test_length_mismatch(self) -> None:
        """len(references) != len(hypotheses) is InvalidInputError naming both."""
        with pytest.raises(InvalidInputError, match="len\\(references\\)=1.*len\\(hypotheses\\)=2"):
            corpus_stats([["a"], ["b"]], [[["a"]]])

    def test_segment_without_reference(self) -> None:
        """A segment with an empty reference list is InvalidInputError naming the segment."""
        with pytest.raises(InvalidInputError, match="segment 1"):
            corpus_stats([["a"], ["b"]], [[["a"]], []])

    def test_empty_corpus(self) -> None:
        """No segments give the zero statistics."""
        assert corpus_stats([], [], max_order=3) == SufficientStats.zero(3)


class TestSufficientStats:
    """``SufficientStats`` adds componentwise and knows its max_order."""

    def test_add(self) -> None:
        """Addition is componentwise."""
        a = SufficientStats((1, 2), (3, 4), 5, 6)
        b = SufficientStats((10, 20), (30, 40), 50, 60)
        assert a + b == SufficientStats((11, 22), (33, 44), 55, 66)

    def test_zero_is_neutral(self) -> None:
        """zero(N) is the neutral element."""
        a = SufficientStats((1, 2), (3, 4), 5, 6)
        assert a + SufficientStats.zero(2) == a and a.max_order == 2

    def test_add_mismatched_orders(self) -> None:
        """Adding statistics of different max_order is InvalidInputError."""
        with pytest.raises(InvalidInputError):
            SufficientStats((1,), (1,), 1, 1) + SufficientStats((1, 1), (1, 1), 1, 1)

    def test_add_other_type(self) -> None:
        """Adding a non-statistics object is a TypeError."""
        with pytest.raises(TypeError):
            SufficientStats((1,), (1,), 1, 1) + 1  # type: ignore[operator]

    def test_frozen(self) -> None:
        """Statistics are immutable."""
        s = SufficientStats((1,), (1,), 1, 1)
        with pytest.raises(AttributeError):
            s.hyp_len = 2  # type: ignore[misc]


class TestCheckMaxOrder:
    """``check_max_order`` accepts ints >= 1 only."""

    def test_accepts(self) -> None:
        """1 and 8 are fine."""
        check_max_order(1)
        check_max_order(8)

    def test_message_names_value(self) -> None:
        """The message names the value: 'max_order=0 must be >= 1'."""
        with pytest.raises(ConfigError, match="max_order=0 must be >= 1"):
            check_max_order(0)
