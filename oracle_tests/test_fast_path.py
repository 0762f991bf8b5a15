"""The fast statistics kernels against the definition, on generated corpora.

The reference implementation below is written here from the definition
(Papineni et al. 2002, section 2.1; bleu-corpus-compute card, semantics 1–3):
a ``Counter`` of n-gram tuples per sentence, each hypothesis n-gram's count
clipped by its largest count in any single reference of the segment, summed
over the corpus; totals count the hypothesis n-grams; the reference length is
the closest one, ties to the shorter. It shares no code with
``bleu_compat.fast`` or ``bleu_compat.stats``.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from bleu_compat import InvalidInputError, corpus_bleu, corpus_stats, segment_stats
from bleu_compat.bleu import bleu_from_stats
from bleu_compat.fast import NUMPY_MIN_TOKENS, numpy_counts, python_counts
from bleu_compat.stats import SufficientStats, corpus_stats_iter


def reference_stats(hypotheses, references, max_order):
    """The definition, written out: returns (matches, totals, hyp_len, ref_len)."""
    matches = [0] * max_order
    totals = [0] * max_order
    hyp_len = ref_len = 0
    for hyp, refs in zip(hypotheses, references):
        for n in range(1, max_order + 1):
            hyp_grams = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
            best: Counter = Counter()
            for ref in refs:
                ref_grams = Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
                for gram, c in ref_grams.items():
                    best[gram] = max(best[gram], c)
            matches[n - 1] += sum(min(c, best[gram]) for gram, c in hyp_grams.items())
            totals[n - 1] += max(len(hyp) - n + 1, 0)
        hyp_len += len(hyp)
        ref_len += min((len(r) for r in refs), key=lambda r: (abs(r - len(hyp)), r))
    return matches, totals, hyp_len, ref_len


# Few distinct tokens so that n-grams repeat and match; includes tokens with
# spaces, empty-looking look-alikes and non-ASCII, which must stay distinct.
TOKENS = st.sampled_from(["a", "b", "c", "a b", " a", "a ", "ä", "a\u0308", "A", "\t", "x y z"])
SENTENCE = st.lists(TOKENS, max_size=14)
SEGMENT = st.tuples(SENTENCE, st.lists(SENTENCE, min_size=1, max_size=5))
CORPUS = st.lists(SEGMENT, min_size=0, max_size=12)
ORDER = st.integers(min_value=1, max_value=8)


def as_tuple(counts):
    matches, totals, hyp_len, ref_len = counts
    return list(matches), list(totals), hyp_len, ref_len


class TestKernelsAgainstDefinition:
    @given(CORPUS, ORDER)
    def test_python_kernel(self, corpus, max_order):
        """The pure-Python kernel returns the definition's integers."""
        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        assert as_tuple(python_counts(hyps, refs, max_order)) == reference_stats(hyps, refs, max_order)

    @given(CORPUS, ORDER)
    def test_numpy_kernel(self, corpus, max_order):
        """The numpy kernel returns the definition's integers."""
        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        assert as_tuple(numpy_counts(hyps, refs, max_order)) == reference_stats(hyps, refs, max_order)

    @given(CORPUS, ORDER)
    def test_numpy_kernel_sparse_path(self, corpus, max_order):
        """The sort-based reference maximum (used for huge tables) agrees too."""
        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        got = numpy_counts(hyps, refs, max_order, dense_table_max=0)
        assert as_tuple(got) == reference_stats(hyps, refs, max_order)

    @given(CORPUS, ORDER, st.integers(min_value=1, max_value=40))
    def test_streaming_blocks(self, corpus, max_order, block_tokens):
        """corpus_stats_iter gives the same sums whatever the block size."""
        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        got = corpus_stats_iter(iter(corpus), max_order=max_order, block_tokens=block_tokens)
        m, t, h, r = reference_stats(hyps, refs, max_order)
        assert got == SufficientStats(tuple(m), tuple(t), h, r)

    @given(SEGMENT, ORDER)
    def test_segment_stats(self, segment, max_order):
        """segment_stats is the definition on one segment."""
        hyp, refs = segment
        m, t, h, r = reference_stats([hyp], [refs], max_order)
        assert segment_stats(hyp, refs, max_order=max_order) == SufficientStats(tuple(m), tuple(t), h, r)


class TestLargeCorpus:
    @settings(max_examples=5)
    @given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=8))
    def test_corpus_stats_above_numpy_threshold(self, seed, max_order):
        """A corpus large enough for the numpy kernel: same ints, same double score."""
        rnd = random.Random(seed)
        vocab = ["the", "a", "cat", "sat", "on", "mat", "a b", "é"]
        def sentence():
            return [rnd.choice(vocab) for _ in range(rnd.randint(0, 30))]
        hyps = [sentence() for _ in range(300)]
        refs = [[sentence() for _ in range(rnd.randint(1, 4))] for _ in range(300)]
        assert sum(map(len, hyps)) + sum(len(r) for rs in refs for r in rs) >= NUMPY_MIN_TOKENS
        m, t, h, r = reference_stats(hyps, refs, max_order)
        expected = SufficientStats(tuple(m), tuple(t), h, r)
        assert corpus_stats(hyps, refs, max_order=max_order) == expected
        # the double is computed from the stats: identical stats, identical bits
        assert corpus_bleu(hyps, refs, max_order=max_order).bleu == bleu_from_stats(expected).bleu


class TestEdgeCases:
    def test_all_empty_hypotheses(self):
        """Empty hypotheses: zero totals and matches, reference lengths still summed."""
        got = numpy_counts([[], []], [[["a"], []], [["b", "c"]]], 4)
        assert as_tuple(got) == ([0] * 4, [0] * 4, 0, 2)

    def test_all_empty_references(self):
        """Empty references: no matches; the closest length is 0."""
        got = numpy_counts([["a", "b"]], [[[], []]], 2)
        assert as_tuple(got) == ([0, 0], [2, 1], 2, 0)

    def test_empty_corpus(self):
        """No segments: all zeros."""
        assert as_tuple(numpy_counts([], [], 3)) == ([0] * 3, [0] * 3, 0, 0)

    def test_streaming_reports_segment_index(self):
        """A segment without references is named by its index in the stream."""
        pairs = [(["a"], [["a"]])] * 5 + [(["a"], [])]
        with pytest.raises(InvalidInputError, match="segment 5"):
            corpus_stats_iter(iter(pairs), block_tokens=2)

    def test_corpus_stats_reports_segment_index(self):
        """corpus_stats names the first segment without references."""
        with pytest.raises(InvalidInputError, match="segment 1"):
            corpus_stats([["a"], ["b"]], [[["a"]], []])
