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
from itertools import chain, count, repeat
from typing import Any, Iterable, NamedTuple, Sequence

from .ngrams import Tokens

__all__ = [
    "Counts",
    "SegmentCounts",
    "python_counts",
    "numpy_counts",
    "numpy_stream_counts",
    "numpy_available",
    "NUMPY_MIN_TOKENS",
]

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


class SegmentCounts(NamedTuple):
    """Per-segment counts of a block of S segments, as int64 numpy arrays.

    Attributes:
        matches: shape (S, N); ``matches[i, n-1]`` is segment i's clipped
            n-gram matches of order n.
        totals: shape (S, N); ``max(hyp_len[i] - n + 1, 0)``.
        hyp_len: shape (S,); the hypothesis length c_i in tokens.
        ref_len: shape (S,); the closest reference length r_i (ties to the shorter).
    """

    matches: Any
    totals: Any
    hyp_len: Any
    ref_len: Any

    def corpus(self) -> Counts:
        """The corpus sums ``(matches, totals, hyp_len, ref_len)`` as Python ints."""
        return (
            [int(v) for v in self.matches.sum(axis=0)],
            [int(v) for v in self.totals.sum(axis=0)],
            int(self.hyp_len.sum()),
            int(self.ref_len.sum()),
        )


def _intern(
    hyp_tokens: Iterable[Any], n_hyp: int, ref_tokens: Iterable[Any], n_ref: int
) -> tuple[Any, int]:
    """Token ids and the spare id: hypothesis tokens by first occurrence, others one spare id.

    A hypothesis token's id is the index of its first occurrence among the
    hypothesis tokens (< ``n_hyp``). A reference token that occurs in no
    hypothesis of the block can be part of no matching n-gram, so all such
    tokens share the spare id ``n_hyp``: no hypothesis n-gram contains it,
    so the n-grams containing it count 0 matches whatever they are.
    Tokens are compared by equality (``str`` or ``bytes``, never mixed).
    """
    import numpy as np

    vocab: dict[Any, int] = {}
    ids = np.empty(n_hyp + n_ref, np.int64)
    ids[:n_hyp] = np.fromiter(map(vocab.setdefault, hyp_tokens, count()), np.int64, n_hyp)
    spare = n_hyp
    ids[n_hyp:] = np.fromiter(map(vocab.get, ref_tokens, repeat(spare)), np.int64, n_ref)
    return ids, spare


def _closest_lengths(hyp_lens: Any, ref_lens: Any, ref_seg: Any, ref_starts: Any) -> Any:
    # closest reference length per segment, ties to the shorter: the minimum of
    # (|r - c|, r) encoded as one int, per segment (references are contiguous).
    import numpy as np

    base = int(ref_lens.max(initial=0)) + 1
    diff = np.abs(ref_lens - hyp_lens[ref_seg])
    return np.minimum.reduceat(diff * base + ref_lens, ref_starts) % base


def _totals(hyp_lens: Any, max_order: int) -> Any:
    import numpy as np

    orders = np.arange(1, max_order + 1, dtype=np.int64)
    return np.maximum(hyp_lens[:, None] - orders[None, :] + 1, 0)


def _matches(
    ids: Any, sent_lens: Any, sent_seg: Any, sent_column: Any, n_seg: int, max_refs: int,
    max_order: int, *, spare_id: int | None, per_segment: bool, dense_table_max: int,
    packed_sort: bool,
) -> tuple[list[int], Any]:
    """Clipped matches per order (Python ints) and, if asked, per segment (N, S).

    ``ids`` holds every token of the block, sentence after sentence in the
    order of ``sent_lens``; sentence j belongs to segment ``sent_seg[j]`` and
    has column ``sent_column[j]``: its reference index k (0..max_refs-1), or
    ``max_refs`` for the segment's hypothesis. Positions whose id is
    ``spare_id`` (tokens of no hypothesis) are left out from the start.
    """
    import numpy as np

    int64 = np.int64
    n_tok = len(ids)
    matches_out = [0] * max_order
    per_seg = np.zeros((max_order, n_seg), int64) if per_segment else None
    # Per position: tokens left in its sentence, and its column. One bincount
    # of rank * (max_refs + 1) + column then holds the hypothesis count and
    # every reference's count of each n-gram.
    width = max_refs + 1
    left = np.repeat(np.cumsum(sent_lens), sent_lens) - np.arange(n_tok, dtype=int64)
    column = np.repeat(sent_column, sent_lens)
    tok_seg = np.repeat(sent_seg, sent_lens)

    # Order 1: (segment, token); order n: (rank of the (n-1)-gram, n-th token).
    # Positions are kept sorted by the previous order's key, so rank is the
    # dense rank of each kept position's n-gram among the kept positions, and
    # ranks are in segment order (the segment is the key's leading part).
    if spare_id is None:
        positions = np.arange(n_tok, dtype=int64)
        key = tok_seg * n_tok + ids
    else:
        positions = np.flatnonzero(ids != spare_id)
        key = tok_seg[positions] * n_tok + ids[positions]
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
        total = np.cumsum(shared)
        matches_out[n - 1] = int(total[-1])
        if per_seg is not None and matches_out[n - 1]:
            # ranks are in segment order: a segment's matches are a slice of
            # the running sum over ranks, bounded by its first rank.
            seg_of_rank = tok_seg[positions[np.flatnonzero(new)]]
            bounds = np.searchsorted(seg_of_rank, np.arange(n_seg + 1, dtype=int64))
            running = np.concatenate((np.zeros(1, int64), total))
            per_seg[n - 1] = running[bounds[1:]] - running[bounds[:-1]]
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
    return matches_out, per_seg


def numpy_counts(
    hypotheses: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    max_order: int,
    *,
    per_segment: bool = False,
    dense_table_max: int = _DENSE_TABLE_MAX,
    packed_sort: bool = True,
) -> Any:
    """Exact corpus counts, vectorised with numpy (same result as python_counts).

    Memory is linear in the block's tokens (a few int64 arrays of that
    length); stream large corpora block by block
    (:func:`bleu_compat.stats.corpus_stats_iter`).

    Args:
        hypotheses: S token sequences; references: S non-empty sequences of
            token sequences (checked by the caller).
        max_order: N >= 1 (checked by the caller).
        per_segment: return every segment's counts (:class:`SegmentCounts`)
            instead of the corpus sums; each segment's are those of
            :func:`python_counts` on that segment alone.
        dense_table_max: largest ``ranks * max_references`` table for the
            bincount path of the reference maximum (tests lower it to cover
            the sort-based path).
        packed_sort: sort (key, position) packed in one int64 when they fit
            (tests turn it off to cover the argsort path).

    Returns:
        ``(matches, totals, hyp_len, ref_len)`` as Python ints, or with
        ``per_segment`` a :class:`SegmentCounts` of int64 arrays.
    """
    import numpy as np

    int64 = np.int64
    n_seg = len(hypotheses)
    hyp_lens = np.fromiter(map(len, hypotheses), int64, n_seg)
    n_refs = np.fromiter(map(len, references), int64, n_seg)
    flat_refs = list(chain.from_iterable(references))
    n_ref_sent = len(flat_refs)
    ref_lens = np.fromiter(map(len, flat_refs), int64, n_ref_sent)
    ref_starts = np.zeros(n_seg, int64)
    np.cumsum(n_refs[:-1], out=ref_starts[1:])
    ref_seg = np.repeat(np.arange(n_seg, dtype=int64), n_refs)
    closest = (
        _closest_lengths(hyp_lens, ref_lens, ref_seg, ref_starts) if n_seg else np.zeros(0, int64)
    )
    hyp_total = int(hyp_lens.sum())
    n_ref_tok = int(ref_lens.sum())
    matches_per_seg = np.zeros((max_order, n_seg), int64)
    matches_out = [0] * max_order
    if hyp_total and n_ref_tok:
        ids, spare = _intern(
            chain.from_iterable(hypotheses), hyp_total, chain.from_iterable(flat_refs), n_ref_tok
        )
        max_refs = int(n_refs.max())
        ref_column = np.arange(n_ref_sent, dtype=int64) - np.repeat(ref_starts, n_refs)
        matches_out, per_seg = _matches(
            ids,
            np.concatenate((hyp_lens, ref_lens)),
            np.concatenate((np.arange(n_seg, dtype=int64), ref_seg)),
            np.concatenate((np.full(n_seg, max_refs, int64), ref_column)),
            n_seg, max_refs, max_order,
            spare_id=spare,
            per_segment=per_segment, dense_table_max=dense_table_max, packed_sort=packed_sort,
        )
        if per_seg is not None:
            matches_per_seg = per_seg
    totals = _totals(hyp_lens, max_order)
    if per_segment:
        return SegmentCounts(matches_per_seg.T.copy(), totals, hyp_lens, closest)
    return matches_out, [int(t) for t in totals.sum(axis=0)], hyp_total, int(closest.sum())


def numpy_stream_counts(
    hyp_tokens: Iterable[Any],
    hyp_lens: Any,
    references: Sequence[tuple[Iterable[Any], Any]],
    max_order: int,
    *,
    per_segment: bool = False,
) -> Any:
    """Exact counts of a block read from line-aligned files, vectorised with numpy.

    The layout of files: one hypothesis stream and K >= 1 reference streams,
    each giving one token sequence per segment, flattened.

    Args:
        hyp_tokens: the S hypotheses' tokens, one after another (``str`` or
            ``bytes``; references the same type).
        hyp_lens: int64 array (S,): hypothesis i has ``hyp_lens[i]`` tokens.
        references: K >= 1 pairs ``(tokens, lens)`` in the same layout.
        max_order: N >= 1 (checked by the caller).
        per_segment: return :class:`SegmentCounts` instead of the corpus sums.

    Returns:
        As :func:`numpy_counts` on the same segments (reference k of segment
        i is the k-th stream's sentence i).
    """
    import numpy as np

    int64 = np.int64
    n_seg = len(hyp_lens)
    n_refs = len(references)
    ref_lens = np.stack([np.asarray(lens, int64) for _, lens in references])
    # closest reference length, ties to the shorter: the minimum of (|r - c|, r)
    base = int(ref_lens.max(initial=0)) + 1
    closest = (np.abs(ref_lens - hyp_lens[None, :]) * base + ref_lens).min(axis=0, initial=1 << 62) % base
    hyp_total = int(hyp_lens.sum())
    n_ref_tok = int(ref_lens.sum())
    matches_per_seg = np.zeros((max_order, n_seg), int64)
    matches_out = [0] * max_order
    if hyp_total and n_ref_tok:
        ids, spare = _intern(
            hyp_tokens, hyp_total, chain.from_iterable(tokens for tokens, _ in references), n_ref_tok
        )
        seg = np.arange(n_seg, dtype=int64)
        matches_out, per_seg = _matches(
            ids,
            np.concatenate((hyp_lens, ref_lens.ravel())),
            np.tile(seg, n_refs + 1),
            np.repeat(np.append(np.int64(n_refs), np.arange(n_refs, dtype=int64)), n_seg),
            n_seg, n_refs, max_order,
            spare_id=spare, per_segment=per_segment, dense_table_max=_DENSE_TABLE_MAX,
            packed_sort=True,
        )
        if per_seg is not None:
            matches_per_seg = per_seg
    totals = _totals(hyp_lens, max_order)
    if per_segment:
        return SegmentCounts(matches_per_seg.T.copy(), totals, hyp_lens, closest)
    return matches_out, [int(t) for t in totals.sum(axis=0)], hyp_total, int(closest.sum())
