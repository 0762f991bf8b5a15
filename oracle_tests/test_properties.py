"""Property tests of the core and the tools (Hypothesis), STYLE.md's list plus output-schema conformance."""

from __future__ import annotations

import functools
import math
from collections import Counter

import jsonschema
from hypothesis import example, given, strategies as st

from bleu_compat import execute
from bleu_compat.bleu import brevity_penalty, corpus_bleu
from bleu_compat.stats import SufficientStats, corpus_stats, segment_stats
from bleu_compat.tools import card

# A small vocabulary makes matches, clipping and closest-length ties common.
words = st.sampled_from(["a", "b", "c", "a b", "\u00a0", "\u05d0"])
segments = st.lists(words, max_size=8)
references = st.lists(segments, min_size=1, max_size=4)
corpora = st.lists(st.tuples(segments, references), min_size=1, max_size=5)
orders = st.integers(1, 5)


def split(corpus):
    return [h for h, _ in corpus], [r for _, r in corpus]


def counter_matches(hyp, refs, n):
    """Clipped n-gram matches from the definition."""
    grams = Counter(tuple(hyp[i : i + n]) for i in range(len(hyp) - n + 1))
    best = Counter()
    for ref in refs:
        best |= Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
    return sum(min(c, best[g]) for g, c in grams.items())


@given(corpus=corpora, max_order=orders)
@example(corpus=[([], [["a"]])], max_order=4)
def test_stats_are_additive(corpus, max_order) -> None:
    """Corpus statistics equal the sum of the per-segment statistics."""
    hyps, refs = split(corpus)
    parts = [segment_stats(h, r, max_order=max_order) for h, r in corpus]
    assert sum(parts[1:], parts[0]) == corpus_stats(hyps, refs, max_order=max_order)


@given(corpus=corpora, max_order=orders)
def test_stats_match_the_definition(corpus, max_order) -> None:
    """Every segment's matches equal a Counter-based count from the definition."""
    for hyp, refs in corpus:
        s = segment_stats(hyp, refs, max_order=max_order)
        assert list(s.matches) == [counter_matches(hyp, refs, n) for n in range(1, max_order + 1)]


@given(corpus=corpora, max_order=orders, data=st.data())
def test_segment_order_does_not_matter(corpus, max_order, data) -> None:
    """Permuting the segments changes neither the statistics nor the score."""
    shuffled = data.draw(st.permutations(corpus))
    a = corpus_bleu(*split(corpus), max_order=max_order)
    b = corpus_bleu(*split(shuffled), max_order=max_order)
    assert a.stats == b.stats and a.bleu == b.bleu


@given(corpus=corpora, max_order=orders, data=st.data())
def test_reference_order_does_not_matter(corpus, max_order, data) -> None:
    """Permuting each segment's references changes nothing."""
    shuffled = [(h, data.draw(st.permutations(r))) for h, r in corpus]
    assert corpus_stats(*split(corpus), max_order=max_order) == corpus_stats(*split(shuffled), max_order=max_order)


@given(corpus=corpora, max_order=orders)
def test_matches_within_totals(corpus, max_order) -> None:
    """0 <= m_n <= l_n, l_n = sum of max(len - n + 1, 0), and 0 <= bleu <= 1."""
    result = corpus_bleu(*split(corpus), max_order=max_order)
    s = result.stats
    for n, (m, t) in enumerate(zip(s.matches, s.totals), start=1):
        assert 0 <= m <= t == sum(max(len(h) - n + 1, 0) for h, _ in corpus)
    assert 0.0 <= result.bleu <= 1.0 and 0.0 <= result.brevity_penalty <= 1.0


@given(hyps=st.lists(st.lists(words, min_size=5, max_size=9), min_size=1, max_size=5), max_order=orders)
def test_identical_corpus_scores_one(hyps, max_order) -> None:
    """A corpus whose hypotheses equal their references (all >= max_order tokens) scores exactly 1.0."""
    result = corpus_bleu(hyps, [[list(h)] for h in hyps], max_order=max_order)
    assert result.bleu == 1.0 and result.brevity_penalty == 1.0


@given(hyp=segments, refs=references, extra=segments, max_order=orders)
def test_adding_a_reference_never_lowers_matches(hyp, refs, extra, max_order) -> None:
    """Another reference can only raise (or keep) every clipped match count."""
    before = segment_stats(hyp, refs, max_order=max_order)
    after = segment_stats(hyp, [*refs, extra], max_order=max_order)
    assert all(a >= b for a, b in zip(after.matches, before.matches))
    assert after.totals == before.totals


@given(c=st.integers(1, 10**6), r=st.integers(0, 10**6))
def test_brevity_penalty_range(c, r) -> None:
    """BP = 1 when c > r, and exp(1 - r/c) in (0, 1] otherwise."""
    bp = brevity_penalty(c, r)
    if c > r:
        assert bp == 1.0
    else:
        assert bp == math.exp(1 - r / c) and 0.0 <= bp <= 1.0


@given(a=st.integers(0, 50), b=st.integers(0, 50), c=st.integers(0, 50), d=st.integers(0, 50))
def test_sufficient_stats_add_is_associative_and_commutative(a, b, c, d) -> None:
    """Integer addition of statistics is exact: commutative and associative."""
    x, y, z = (SufficientStats((a, b), (c, d), a, b), SufficientStats((b, c), (d, a), c, d),
               SufficientStats((d, a), (b, c), b, a))
    assert x + y == y + x and (x + y) + z == x + (y + z)


@functools.cache
def _output_validator(tool_id: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(card(tool_id).output_schema)


@given(corpus=corpora, max_order=orders, decimals=st.none() | st.integers(0, 15))
def test_corpus_output_validates(corpus, max_order, decimals) -> None:
    """bleu-corpus-compute's output validates against its output_schema."""
    hyps, refs = split(corpus)
    request = {"hypotheses": [[t for t in h] for h in hyps], "references": refs, "max_order": max_order}
    if decimals is not None:
        request["decimals"] = decimals
    _output_validator("bleu-corpus-compute").validate(execute("bleu-corpus-compute", request))


@st.composite
def smoothing_requests(draw):
    n = draw(st.integers(1, 8))
    totals = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    matches = [draw(st.integers(0, t)) for t in totals]
    if matches[0] == 0:
        matches = [0] * n
    method = draw(st.sampled_from(["none", "method1", "method2", "method3"]))
    request = {"matches": matches, "totals": totals, "candidate_length": draw(st.integers(0, 30)),
               "reference_length": draw(st.integers(0, 30)), "smoothing": method,
               "effective_order": draw(st.booleans())}
    if method == "method1" and draw(st.booleans()):
        request["epsilon"] = draw(st.floats(0, 1))
    if draw(st.booleans()):
        request["decimals"] = draw(st.integers(0, 15))
    return request


@given(request=smoothing_requests())
def test_smoothing_output_validates(request) -> None:
    """bleu-smoothing-compute's output validates against its output_schema."""
    out = execute("bleu-smoothing-compute", request)
    _output_validator("bleu-smoothing-compute").validate(out)
    assert len(out["smoothed_matches"]) == len(request["matches"])


@given(segs=st.lists(st.tuples(st.integers(0, 10**6), st.lists(st.integers(0, 10**6), min_size=1, max_size=8)),
                     min_size=1, max_size=10),
       decimals=st.none() | st.integers(0, 15))
def test_brevity_output_validates(segs, decimals) -> None:
    """bleu-brevity-penalty's output validates against its output_schema; r sums the closest lengths."""
    request = {"segments": [{"candidate_length": c, "reference_lengths": r} for c, r in segs]}
    if decimals is not None:
        request["decimals"] = decimals
    out = execute("bleu-brevity-penalty", request)
    _output_validator("bleu-brevity-penalty").validate(out)
    assert out["reference_length"] == sum(min(r, key=lambda L: (abs(L - c), L)) for c, r in segs)


big_corpora = st.lists(
    st.tuples(st.lists(words, min_size=5, max_size=14), st.lists(st.lists(words, max_size=14), min_size=1, max_size=4)),
    min_size=8, max_size=20,
)


@given(corpus=big_corpora, max_order=orders)
def test_large_corpus_stats_match_the_definition(corpus, max_order) -> None:
    """Corpora big enough for the vectorised kernel (>= 200 tokens) still count exactly by the definition."""
    hyps, refs = split(corpus)
    expected_m = [sum(counter_matches(h, r, n) for h, r in corpus) for n in range(1, max_order + 1)]
    expected_t = [sum(max(len(h) - n + 1, 0) for h in hyps) for n in range(1, max_order + 1)]
    expected_r = sum(min((len(x) for x in r), key=lambda L: (abs(L - len(h)), L)) for h, r in corpus)
    s = corpus_stats(hyps, refs, max_order=max_order)
    assert (list(s.matches), list(s.totals), s.hyp_len, s.ref_len) == (
        expected_m, expected_t, sum(map(len, hyps)), expected_r)
