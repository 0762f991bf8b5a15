"""Fast kernels behind :func:`bleu_compat.stats.corpus_stats`.

Two kernels compute the same exact integers as the definition (Papineni et
al. 2002, section 2.1: each hypothesis n-gram's count clipped by its largest
count in any single reference of the same segment, summed over the corpus):

* :func:`python_counts`, standard library only: one ``Counter`` of every
  n-gram of all orders per sentence, and clipping only over the n-grams that
  the hypothesis shares with some reference (a set intersection in C).
* :func:`numpy_counts`, vectorised with numpy over a block of segments:
  tokens are interned to ints once per block; an n-gram is identified by a
  dense rank of ``(rank of its (n-1)-prefix, last token)``, and the order-1
  rank includes the segment index, so equal ranks mean "same n-gram in the
  same segment". Hypothesis counts and per-reference counts are then
  ``bincount``s, clipping is ``minimum(hyp, max over references)``. After
  each order only positions that can still match are kept: a hypothesis
  n-gram absent from every reference cannot extend to a matching
  (n+1)-gram, and a reference n-gram absent from the hypothesis cannot
  either. All arithmetic is on int64 indices and counts; the results are
  returned as Python ints.

numpy is optional: :func:`numpy_available` says whether it can be imported,
and callers fall back to :func:`python_counts`. Floats are never computed
here; the score is computed once from the exact counts by
:func:`bleu_compat.bleu.bleu_from_stats`.
"""

from __future__ import annotations

import functools
from collections import Counter
from itertools import chain, count
from typing import Any, Sequence

from .ngrams import Tokens

__all__ = ["Counts", "python_counts", "numpy_counts", "numpy_available", "NUMPY_MIN_TOKENS"]

#: ``(matches, totals, hyp_len, ref_len)``: per-order lists of ints and two ints.
Counts = tuple[list[int], list[int], int, int]

#: Below this many tokens (hypotheses plus references) the pure-Python kernel
#: is as fast as numpy's fixed per-call costs (measured: equal at about 150
#: tokens, numpy 5x faster at 5,000 and 7x at 50,000, 4 references).
NUMPY_MIN_TOKENS = 200

#: ``bincount`` of (n-gram rank, reference index) uses a dense table of
#: ``ranks * max_references`` cells; above this size a sort-based path is used.
_DENSE_TABLE_MAX = 1 << 24


@functools.cache
def numpy_available() -> bool:
    """Whether numpy can be imported (the vectorised kernel needs it)."""
    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - numpy is a declared dependency
        return False
    return True


def _all_ngrams(tokens: Tokens, max_order: int) -> Counter[tuple[Any, ...]]:
    # Every n-gram of orders 1..max_order as a tuple; the order is len(tuple).
    return Counter(
        chain.from_iterable(
            zip(*[tokens[i:] for i in range(n)]) for n in range(1, min(max_order, len(tokens)) + 1)
        )
    )


def _closest(hyp_len: int, references: Sequence[Tokens]) -> int:
    best = -1
    best_d = 0
    for reference in references:
        length = len(reference)
        d = length - hyp_len if length >= hyp_len else hyp_len - length
        if best < 0 or d < best_d or (d == best_d and length < best):
            best, best_d = length, d
    return best


def python_counts(
    hypotheses: Sequence[Tokens], references: Sequence[Sequence[Tokens]], max_order: int
) -> Counts:
    """Exact corpus counts, standard library only.

    Args:
        hypotheses: S token sequences; references: S non-empty sequences of
            token sequences (checked by the caller).
        max_order: N >= 1 (checked by the caller).

    Returns:
        ``(matches, totals, hyp_len, ref_len)`` as in SufficientStats.
    """
    matches = [0] * max_order
    totals = [0] * max_order
    hyp_len = ref_len = 0
    for hypothesis, refs in zip(hypotheses, references):
        length = len(hypothesis)
        hyp_len += length
        ref_len += _closest(length, refs)
        for n in range(min(max_order, length)):
            totals[n] += length - n
        if not length:
            continue
        hyp_counts = _all_ngrams(hypothesis, max_order)
        if len(refs) == 1:
            ref_counts = _all_ngrams(refs[0], max_order)
            for gram in hyp_counts.keys() & ref_counts.keys():
                c, r = hyp_counts[gram], ref_counts[gram]
                matches[len(gram) - 1] += c if c < r else r
            continue
        ref_counters = [_all_ngrams(ref, max_order) for ref in refs]
        shared = hyp_counts.keys() & set().union(*ref_counters)
        for gram in shared:
            c = hyp_counts[gram]
            if c > 1:
                r = max(rc.get(gram, 0) for rc in ref_counters)
                if r < c:
                    c = r
            matches[len(gram) - 1] += c
    return matches, totals, hyp_len, ref_len


def numpy_counts(
    hypotheses: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    max_order: int,
    *,
    dense_table_max: int = _DENSE_TABLE_MAX,
    packed_sort: bool = True,
) -> Counts:
    """Exact corpus counts, vectorised with numpy (same result as python_counts).

    Memory is linear in the block's tokens (a few int64 arrays of that
    length); stream large corpora block by block
    (:func:`bleu_compat.stats.corpus_stats_iter`).

    Args:
        hypotheses: S token sequences; references: S non-empty sequences of
            token sequences (checked by the caller).
        max_order: N >= 1 (checked by the caller).
        dense_table_max: largest ``ranks * max_references`` table for the
            bincount path of the reference maximum (tests lower it to cover
            the sort-based path).
        packed_sort: sort (key, position) packed in one int64 when they fit
            (tests turn it off to cover the argsort path).

    Returns:
        ``(matches, totals, hyp_len, ref_len)`` as Python ints.
    """
    import numpy as np

    n_seg = len(hypotheses)
    if n_seg == 0:
        return [0] * max_order, [0] * max_order, 0, 0
    int64 = np.int64
    hyp_lens = np.fromiter(map(len, hypotheses), int64, n_seg)
    n_refs = np.fromiter(map(len, references), int64, n_seg)
    flat_refs = list(chain.from_iterable(references))
    n_ref_sent = len(flat_refs)
    ref_lens = np.fromiter(map(len, flat_refs), int64, n_ref_sent)
    ref_seg = np.repeat(np.arange(n_seg, dtype=int64), n_refs)

    # closest reference length per segment, ties to the shorter: the minimum of
    # (|r - c|, r) encoded as one int, per segment (references are contiguous).
    ref_starts = np.zeros(n_seg, int64)
    np.cumsum(n_refs[:-1], out=ref_starts[1:])
    base = int(ref_lens.max(initial=0)) + 1
    diff = np.abs(ref_lens - hyp_lens[ref_seg])
    closest = np.minimum.reduceat(diff * base + ref_lens, ref_starts) % base

    hyp_total = int(hyp_lens.sum())
    orders = np.arange(1, max_order + 1, dtype=int64)
    totals = np.maximum(hyp_lens[None, :] - orders[:, None] + 1, 0).sum(axis=1)
    totals_out = [int(t) for t in totals]
    matches_out = [0] * max_order
    ref_total = int(closest.sum())

    n_tok = hyp_total + int(ref_lens.sum())
    if hyp_total == 0 or n_tok == hyp_total:
        return matches_out, totals_out, hyp_total, ref_total

    # Intern tokens: id = index of the token's first occurrence (< n_tok).
    ids = np.fromiter(
        map({}.setdefault, chain(chain.from_iterable(hypotheses), chain.from_iterable(flat_refs)),
            count()),
        int64, n_tok,
    )
    # Per position: tokens left in its sentence, and its column: the segment's
    # reference index k (0..max_refs-1) for a reference, max_refs for the
    # hypothesis. One bincount of rank * (max_refs + 1) + column then holds
    # the hypothesis count and every reference's count of each n-gram.
    max_refs = int(n_refs.max())
    width = max_refs + 1
    sent_lens = np.concatenate((hyp_lens, ref_lens))
    ref_column = np.arange(n_ref_sent, dtype=int64) - np.repeat(ref_starts, n_refs)
    sent_column = np.concatenate((np.full(n_seg, max_refs, int64), ref_column))
    sent_seg = np.concatenate((np.arange(n_seg, dtype=int64), ref_seg))
    left = np.repeat(np.cumsum(sent_lens), sent_lens) - np.arange(n_tok, dtype=int64)
    column = np.repeat(sent_column, sent_lens)

    # Order 1: (segment, token); order n: (rank of the (n-1)-gram, n-th token).
    # Positions are kept sorted by the previous order's key, so rank is the
    # dense rank of each kept position's n-gram among the kept positions.
    positions = np.arange(n_tok, dtype=int64)
    key = np.repeat(sent_seg, sent_lens) * n_tok + ids
    # Keys are < max(n_seg, n_tok) * n_tok. When a key and a position fit in
    # 63 bits together, one np.sort of (key << bits | position) replaces
    # argsort and two gathers (several times faster on SIMD sorts).
    bits = n_tok.bit_length()
    packed = packed_sort and max(n_seg, n_tok) * n_tok < 1 << (63 - bits)
    for n in range(1, max_order + 1):
        if n > 1:
            key = rank * n_tok + ids[positions + (n - 1)]
        if packed:
            key <<= bits
            key |= positions
            key.sort()
            positions = key & ((1 << bits) - 1)
            sorted_key = key >> bits
        else:
            order = np.argsort(key)
            sorted_key = key[order]
            positions = positions[order]
        new = np.empty(len(sorted_key), bool)
        new[0] = True
        np.not_equal(sorted_key[1:], sorted_key[:-1], out=new[1:])
        rank = np.cumsum(new) - 1
        n_ranks = int(rank[-1]) + 1
        cell = rank * width + column[positions]
        if n_ranks * width <= dense_table_max:
            table = np.bincount(cell, minlength=n_ranks * width)
            hyp_counts = table[max_refs::width]
            ref_max = table[0::width].copy()
            for k in range(1, max_refs):
                np.maximum(ref_max, table[k::width], out=ref_max)
        else:  # sparse: counts of the distinct cells, then the maximum per n-gram
            cell.sort()
            starts = np.flatnonzero(np.concatenate(([True], cell[1:] != cell[:-1])))
            counts = np.diff(np.append(starts, len(cell)))
            gram, col = np.divmod(cell[starts], width)
            hyp_counts = np.zeros(n_ranks, int64)
            is_hyp = col == max_refs
            hyp_counts[gram[is_hyp]] = counts[is_hyp]
            ref_max = np.zeros(n_ranks, int64)
            np.maximum.at(ref_max, gram[~is_hyp], counts[~is_hyp])
        shared = np.minimum(hyp_counts, ref_max)
        matches_out[n - 1] = int(shared.sum())
        if n == max_order or matches_out[n - 1] == 0:
            break
        # Keep positions whose n-gram is in the hypothesis and in some reference
        # and which have an (n+1)-gram: only those can match at order n + 1.
        keep = shared[rank] > 0
        keep &= left[positions] > n
        positions = positions[keep]
        if len(positions) == 0:
            break
        rank = rank[keep]
    return matches_out, totals_out, hyp_total, ref_total
