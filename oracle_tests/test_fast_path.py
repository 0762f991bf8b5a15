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

    @given(CORPUS, ORDER)
    def test_numpy_kernel_argsort_path(self, corpus, max_order):
        """The argsort path (keys too wide to pack with positions) agrees too."""
        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        got = numpy_counts(hyps, refs, max_order, packed_sort=False)
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


class TestFastValidation:
    """The C-level validation shortcuts reach the same verdict and pointer as the walk."""

    @pytest.mark.parametrize(
        "value, path",
        [
            ({"hypotheses": [["a", "\ud800"]]}, "/hypotheses/0/1"),
            # two lone surrogates side by side stay invalid (no pairing on join);
            # the first in document order is reported (issue 11)
            ({"hypotheses": [["\ud800", "\udc00"]]}, "/hypotheses/0/0"),
            ({"references": [[["ok"], ["é", "\udfff"]]]}, "/references/0/1/1"),
            ({"references": [[["ok", 1.5, float("nan")]]]}, "/references/0/0/2"),
            ({"x": [[[[["deep", b"bytes"]]]]]}, "/x/0/0/0/0/1"),
            ({"matches": [3, 2, 1.5, float("inf")]}, "/matches/3"),
            ({"segments": [{"reference_lengths": [[1, 2], [float("nan")]]}]},
             "/segments/0/reference_lengths/1/0"),
        ],
    )
    def test_check_json_value_pointer(self, value, path):
        """A bad string deep in token arrays is reported at its exact pointer."""
        from bleu_compat import ToolError
        from bleu_compat.jsonio import check_json_value

        with pytest.raises(ToolError) as info:
            check_json_value(value)
        assert info.value.code == "invalid_input"
        assert info.value.path == path

    def test_check_json_value_accepts_valid_non_ascii(self):
        """Valid non-ASCII (a surrogate pair written as one character) passes."""
        from bleu_compat.jsonio import check_json_value

        check_json_value({"hypotheses": [["😀", "é"], []], "references": [[["a b"], []]]})

    def test_check_json_value_accepts_numbers(self):
        """Ints of any size, finite floats and bools in arrays pass, as item by item."""
        from bleu_compat.jsonio import check_json_value

        check_json_value({"a": [1, 10**400, 2.5], "b": [True, 0], "c": [[1, 2], [3.0]]})

    def test_limit_counts_utf8_bytes(self):
        """A 100-letter Hebrew token (200 UTF-8 bytes) passes the schema but exceeds 128 bytes."""
        from bleu_compat import ToolError, execute

        token = "א" * 100
        request = {"hypotheses": [["a"], ["b", token]], "references": [[["a"]], [["b"]]]}
        with pytest.raises(ToolError) as info:
            execute("bleu-corpus-compute", request)
        assert (info.value.code, info.value.path) == ("limit_exceeded", "/hypotheses/1/1")

    def test_limit_total_bytes_of_ascii_corpus(self):
        """The all-ASCII shortcut still counts bytes: 9 segments of 5 x 128-byte tokens x 1000."""
        from bleu_compat import ToolError, execute

        token = "x" * 128
        hyps = [[token] * 9 for _ in range(1000)]  # 9,000 tokens, 1,152,000 bytes > 1 MiB
        refs = [[["y"]] for _ in range(1000)]
        with pytest.raises(ToolError) as info:
            execute("bleu-corpus-compute", {"hypotheses": hyps, "references": refs})
        assert info.value.code == "limit_exceeded"
        assert "max_total_token_bytes" in info.value.message

    def test_limit_token_too_long_ascii(self):
        """A 129-byte ASCII token is refused at its pointer."""
        from bleu_compat import ToolError
        from bleu_compat.tools import _corpus_limits, card

        request = {"hypotheses": [["a"]], "references": [[["b"], ["c", "z" * 129]]]}
        with pytest.raises(ToolError) as info:
            _corpus_limits(request, card("bleu-corpus-compute").limits)
        assert (info.value.code, info.value.path) == ("limit_exceeded", "/references/0/1/1")


def test_corpus_stats_without_numpy(monkeypatch):
    """Without numpy the standard-library kernel gives the definition's counts."""
    import bleu_compat.stats as stats_module

    monkeypatch.setattr(stats_module, "numpy_available", lambda: False)
    monkeypatch.setattr(stats_module, "numpy_counts", None)  # any call would fail
    rnd = random.Random(6)
    vocab = ["x", "y", "z", "x y"]
    hyps = [[rnd.choice(vocab) for _ in range(rnd.randint(0, 20))] for _ in range(200)]
    refs = [[[rnd.choice(vocab) for _ in range(rnd.randint(0, 20))] for _ in range(3)] for _ in range(200)]
    m, t, h, r = reference_stats(hyps, refs, 4)
    assert corpus_stats(hyps, refs) == SufficientStats(tuple(m), tuple(t), h, r)


def per_segment_reference(hypotheses, references, max_order):
    """The definition segment by segment: one (matches, totals, hyp_len, ref_len) each."""
    return [reference_stats([h], [r], max_order) for h, r in zip(hypotheses, references)]


def rows_of(counts):
    """SegmentCounts as the definition's tuples, one per segment."""
    return [
        (list(m), list(t), h, r)
        for m, t, h, r in zip(counts.matches.tolist(), counts.totals.tolist(),
                              counts.hyp_len.tolist(), counts.ref_len.tolist())
    ]


class TestPerSegmentKernel:
    """The vectorised per-segment statistics equal the definition on every segment (issue 12)."""

    @given(CORPUS, ORDER)
    def test_numpy_kernel_per_segment(self, corpus, max_order):
        """numpy_counts(per_segment=True): every segment's integers, and their sums."""
        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        got = numpy_counts(hyps, refs, max_order, per_segment=True)
        assert rows_of(got) == per_segment_reference(hyps, refs, max_order)
        assert as_tuple(got.corpus()) == reference_stats(hyps, refs, max_order)

    @given(CORPUS, ORDER)
    def test_numpy_kernel_per_segment_sparse_and_argsort_paths(self, corpus, max_order):
        """The sort-based reference maximum and the argsort path give the same rows."""
        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        expected = per_segment_reference(hyps, refs, max_order)
        assert rows_of(numpy_counts(hyps, refs, max_order, per_segment=True,
                                    dense_table_max=0)) == expected
        assert rows_of(numpy_counts(hyps, refs, max_order, per_segment=True,
                                    packed_sort=False)) == expected

    @given(st.lists(st.tuples(SENTENCE, st.lists(SENTENCE, min_size=3, max_size=3)), max_size=12),
           ORDER, st.booleans())
    def test_stream_kernel(self, corpus, max_order, per_segment):
        """numpy_stream_counts (files' layout: K streams, sentence ends) is the definition."""
        from bleu_compat.fast import HYP_END, REF_END, numpy_stream_counts

        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]

        def stream(sentences, end):
            return [t for s in sentences for t in [*s, end]]

        streams = [stream([r[k] for r in refs], REF_END) for k in range(3)]
        got = numpy_stream_counts(stream(hyps, HYP_END), streams, len(corpus), max_order,
                                  per_segment=per_segment)
        if per_segment:
            assert rows_of(got) == per_segment_reference(hyps, refs, max_order)
        else:
            assert as_tuple(got) == reference_stats(hyps, refs, max_order)

    @settings(max_examples=30)
    @given(CORPUS, ORDER, st.integers(min_value=1, max_value=30))
    def test_per_segment_stats_across_blocks(self, corpus, max_order, block_tokens):
        """stats.per_segment_stats equals segment_stats segment by segment, whatever the blocks."""
        import bleu_compat.stats as stats_module
        from bleu_compat.stats import per_segment_stats

        hyps = [h for h, _ in corpus]
        refs = [r for _, r in corpus]
        saved = stats_module.BLOCK_TOKENS, stats_module.NUMPY_MIN_TOKENS
        stats_module.BLOCK_TOKENS, stats_module.NUMPY_MIN_TOKENS = block_tokens, 1
        try:
            got = per_segment_stats(hyps, refs, max_order=max_order)
        finally:
            stats_module.BLOCK_TOKENS, stats_module.NUMPY_MIN_TOKENS = saved
        expected = [SufficientStats(tuple(m), tuple(t), h, r)
                    for m, t, h, r in per_segment_reference(hyps, refs, max_order)]
        assert got == expected

    @settings(max_examples=5)
    @given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=6))
    def test_large_block_per_segment(self, seed, max_order):
        """A block of 400 segments of up to 40 tokens: every row is the definition's."""
        rnd = random.Random(seed)
        vocab = ["the", "a", "cat", "sat", "on", "mat", "a b", "é", "the"]

        def sentence():
            return [rnd.choice(vocab) for _ in range(rnd.randint(0, 40))]
        hyps = [sentence() for _ in range(400)]
        refs = [[sentence() for _ in range(rnd.randint(1, 4))] for _ in range(400)]
        got = numpy_counts(hyps, refs, max_order, per_segment=True)
        assert rows_of(got) == per_segment_reference(hyps, refs, max_order)


# Tokens for the bytes kernel (issue 12): lengths around every 8-byte word
# boundary and past the dict threshold, sharing prefixes so that only a later
# word tells them apart; non-ASCII and control bytes that are not whitespace.
def _long(n: int, last: str = "") -> str:
    return ("abcdefgh" * 10)[: n - len(last)] + last


BYTE_TOKENS = st.sampled_from([
    "a", "b", "a", "ab", _long(7), _long(8), _long(8, "z"), _long(9), _long(9, "z"), _long(15),
    _long(16), _long(17), _long(24), _long(25), _long(64), _long(64, "z"), _long(65),
    _long(65, "z"), _long(80), "é", "e\u0301", "日本語の文", "\ufeffa", "\x02", "a\x7fb",
    "\u200b",
])
BYTE_GAPS = st.sampled_from([" ", "  ", "\t", "\x0b", "\x0c", "\r", " \r"])
BYTE_LINE = st.lists(st.tuples(BYTE_TOKENS, BYTE_GAPS), max_size=10)


def _line_text(pieces, lead):
    return lead + "".join(tok + gap for tok, gap in pieces)


@st.composite
def byte_corpora(draw):
    """(hypothesis chunk, reference chunks, n_seg): line-aligned blocks as files hold them."""
    n_seg = draw(st.integers(1, 8))
    n_refs = draw(st.integers(1, 4))
    chunks = []
    for _ in range(n_refs + 1):
        lines = [_line_text(draw(BYTE_LINE), draw(st.sampled_from(["", " ", "\t"])))
                 for _ in range(n_seg)]
        data = "".join(line + draw(st.sampled_from(["\n", "\r\n"])) for line in lines).encode()
        if draw(st.booleans()) and data != b"\n" and not data.endswith(b"\n\n"):
            data = data[:-1]  # the last line without its LF (a CR before it stays)
        chunks.append(data)
    return chunks, n_seg


def _tokens_by_definition(chunk: bytes) -> list[list[str]]:
    # LF ends a line, the final LF is optional; str.split() of each decoded line
    lines = chunk.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [line.decode("utf-8").split() for line in lines]


class TestBytesKernel:
    """numpy_bytes_counts (score's --tokenize none path) is the definition on str.split tokens."""

    @settings(max_examples=300, deadline=None)
    @given(byte_corpora(), ORDER, st.booleans(), st.sampled_from([None, 1, 3]))
    def test_bytes_kernel(self, corpus, max_order, per_segment, hash_bits):
        """Every segment's integers (or their sums), whatever the hash width: 1 and 3 bits
        force hash collisions, so the exact-sort fallback of the interning is covered too."""
        from bleu_compat.fast import numpy_bytes_counts

        chunks, n_seg = corpus
        hyps = _tokens_by_definition(chunks[0])
        per_file = [_tokens_by_definition(chunk) for chunk in chunks[1:]]
        refs = [list(seg) for seg in zip(*per_file)]
        got = numpy_bytes_counts(chunks, n_seg, max_order, per_segment=per_segment,
                                 hash_bits=hash_bits)
        if per_segment:
            assert rows_of(got) == per_segment_reference(hyps, refs, max_order)
        else:
            assert as_tuple(got) == reference_stats(hyps, refs, max_order)

    def test_prefix_sharing_tokens_stay_distinct(self):
        """Tokens equal in their first 8, 16 or 64 bytes are different tokens: no match."""
        from bleu_compat.fast import numpy_bytes_counts

        for a, b in [(_long(8), _long(9)), (_long(16), _long(16, "z")), (_long(64), _long(65)),
                     (_long(65), _long(65, "z")), (_long(70), _long(71))]:
            hyp = f"{a} x\n".encode()
            ref = f"{b} x\n".encode()
            assert numpy_bytes_counts([hyp, ref], 1, 2) == ([1, 0], [2, 1], 2, 2)
            assert numpy_bytes_counts([hyp, hyp], 1, 2) == ([2, 1], [2, 1], 2, 2)

    def test_collision_fallback_is_taken(self, monkeypatch):
        """With 1 hash bit the interning must detect collisions and sort the keys themselves."""
        import numpy as np

        import bleu_compat.fast as fast

        calls = []
        real = np.lexsort
        monkeypatch.setattr(np, "lexsort", lambda keys: calls.append(1) or real(keys))
        data = " ".join(_long(n) for n in range(9, 30)).encode() + b"\n"
        assert fast.numpy_bytes_counts([data, data], 1, 1, hash_bits=1)[0] == [21]
        assert calls
