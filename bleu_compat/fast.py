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
  either. Every sentence is followed by an end id (one for hypotheses,
  another for references, equal to no token), so an n-gram running past its
  sentence matches nothing and is dropped with the others; reference tokens
  of no hypothesis share one spare id and never enter the sort. Ranks come
  out in segment order, so with ``per_segment=True`` each segment's matches
  are a slice of the running sum over ranks, in the same pass
  (:class:`SegmentCounts`). All arithmetic is on int64 indices and counts;
  the results are returned as Python ints (or int64 arrays per segment).
* :func:`numpy_stream_counts`, the same kernel on the layout of
  line-aligned files (one hypothesis stream, K reference streams, sentence
  ends already in the streams).
* :func:`numpy_bytes_counts`, the same kernel on the raw bytes of a block
  of line-aligned files, for ``--tokenize none`` (:mod:`bleu_compat.stream`):
  tokens are found at the ASCII whitespace bytes and interned in numpy, each
  read as zero-padded 8-byte words ranked by a hash-and-sort whose
  collisions are detected and resolved exactly, so no Python object is made
  per token.

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
    "numpy_bytes_counts",
    "numpy_available",
    "LONG_TOKEN_BYTES",
    "NUMPY_MIN_TOKENS",
    "HYP_END",
    "REF_END",
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


#: Sentence ends in the token stream of the numpy kernel: one after every
#: hypothesis, another after every reference. Neither equals any token (they
#: are objects of their own), the hypothesis end is never in a reference and
#: the reference end never in a hypothesis, so no n-gram across a sentence end
#: can match, and an n-gram is always followed by a token or a sentence end.
HYP_END = object()
REF_END = object()


def _intern(
    hyp_tokens: Iterable[Any], n_hyp: int, ref_tokens: Iterable[Any], n_ref: int, ref_end: Any
) -> tuple[Any, int, int]:
    """Token ids of the hypothesis stream then the reference stream.

    A hypothesis token's id is the index of its first occurrence in the
    hypothesis stream (< ``n_hyp``). A reference token that occurs in no
    hypothesis of the block can be part of no matching n-gram, so all such
    tokens share the spare id ``n_hyp``: no hypothesis n-gram contains it,
    so the n-grams containing it count 0 matches whatever they are.
    ``ref_end`` (the references' sentence end, never in the hypotheses) gets
    the id ``n_hyp + 1``. Tokens are compared by equality.

    Returns:
        ``(ids, spare id, reference end id)``; ids are int64, < ``n_hyp + 2``.
    """
    import numpy as np

    vocab: dict[Any, int] = {}
    ids = np.empty(n_hyp + n_ref, np.int64)
    ids[:n_hyp] = np.fromiter(map(vocab.setdefault, hyp_tokens, count()), np.int64, n_hyp)
    spare = n_hyp
    vocab[ref_end] = n_hyp + 1
    ids[n_hyp:] = np.fromiter(map(vocab.get, ref_tokens, repeat(spare)), np.int64, n_ref)
    return ids, spare, n_hyp + 1


def _with_ends(sentences: Iterable[Tokens], end: Any) -> Iterable[Any]:
    # every token of every sentence, each sentence followed by ``end`` (C-level)
    return chain.from_iterable(chain.from_iterable(zip(sentences, repeat((end,)))))


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
    ids: Any, id_bound: int, positions: Any, sent_sizes: Any, sent_seg: Any, sent_column: Any,
    n_seg: int, max_refs: int, max_order: int, *, per_segment: bool, dense_table_max: int,
    packed_sort: bool,
) -> tuple[list[int], Any]:
    """Clipped matches per order (Python ints) and, if asked, per segment (N, S).

    ``ids`` (all < ``id_bound``) holds every token of the block, sentence
    after sentence, each sentence followed by its end (:data:`HYP_END` or
    :data:`REF_END`'s id); sentence j takes ``sent_sizes[j]`` ids (its tokens
    and its end), belongs to segment ``sent_seg[j]`` and has column
    ``sent_column[j]``: its reference index k (0..max_refs-1), or
    ``max_refs`` for the segment's hypothesis. ``positions`` (ascending) are
    the positions that can start a matching n-gram: not a sentence end, not
    a token of no hypothesis.
    """
    import numpy as np

    int64 = np.int64
    n_tok = len(ids)
    matches_out = [0] * max_order
    per_seg = np.zeros((max_order, n_seg), int64) if per_segment else None
    if len(positions) == 0:
        return matches_out, per_seg
    # Per position: its column. One bincount of rank * (max_refs + 1) + column
    # then holds the hypothesis count and every reference's count of each n-gram.
    width = max_refs + 1
    column = np.repeat(sent_column, sent_sizes)
    tok_seg = np.repeat(sent_seg, sent_sizes)[positions]

    # Order 1: (segment, token); order n: (rank of the (n-1)-gram, n-th token).
    # Positions are kept sorted by the previous order's key, so rank is the
    # dense rank of each kept position's n-gram among the kept positions, and
    # ranks are in segment order (the segment is the key's leading part).
    key = tok_seg * id_bound + ids[positions]
    # Keys are < max(n_seg, n_tok) * id_bound. When a key and a position fit
    # in 63 bits together, one np.sort of (key << bits | position) replaces
    # argsort and two gathers (several times faster on SIMD sorts).
    bits = n_tok.bit_length()
    packed = packed_sort and max(n_seg, n_tok) * id_bound < 1 << (63 - bits)
    for n in range(1, max_order + 1):
        if n > 1:
            key = rank * id_bound + ids[positions + (n - 1)]
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
        rank = np.empty(len(sorted_key), int64)  # the running count of new n-grams, from 0
        rank[0] = 0
        np.cumsum(new[1:], out=rank[1:])
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
        # the running sum only when per-segment slices of it are needed
        total = np.cumsum(shared) if per_seg is not None else None
        matches_out[n - 1] = int(total[-1]) if total is not None else int(shared.sum())
        if total is not None and matches_out[n - 1]:
            # ranks are in segment order: a segment's matches are a slice of
            # the running sum over ranks, bounded by its first rank. The
            # segment of a rank: order 1's key starts with it; later, each
            # rank's first position's segment.
            if n == 1:
                seg_of_rank = sorted_key[np.flatnonzero(new)] // id_bound
            else:
                seg_of_rank = pos_seg[positions[np.flatnonzero(new)]]
            bounds = np.searchsorted(seg_of_rank, np.arange(n_seg + 1, dtype=int64))
            running = np.concatenate((np.zeros(1, int64), total))
            per_seg[n - 1] = running[bounds[1:]] - running[bounds[:-1]]
        if n == max_order or matches_out[n - 1] == 0:
            break
        if n == 1 and per_seg is not None:
            pos_seg = np.repeat(sent_seg, sent_sizes)
        # Keep positions whose n-gram is in the hypothesis and in some
        # reference: only those can match at order n + 1 (an n-gram that runs
        # into a sentence end matches nothing, so it is dropped here too).
        # (indices then two takes: about twice as fast as two boolean masks)
        keep = np.flatnonzero(shared[rank] > 0)
        positions = positions[keep]
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
        n_hyp = hyp_total + n_seg
        ids, spare, ref_end = _intern(
            _with_ends(hypotheses, HYP_END), n_hyp,
            _with_ends(flat_refs, REF_END), n_ref_tok + n_ref_sent, REF_END,
        )
        hyp_end = int(ids[hyp_lens[0]])  # the first hypothesis's end
        useful = ids != spare
        useful &= ids != ref_end
        useful[:n_hyp] = ids[:n_hyp] != hyp_end
        max_refs = int(n_refs.max())
        ref_column = np.arange(n_ref_sent, dtype=int64) - np.repeat(ref_starts, n_refs)
        matches_out, per_seg = _matches(
            ids, n_hyp + 2, np.flatnonzero(useful),
            np.concatenate((hyp_lens, ref_lens)) + 1,
            np.concatenate((np.arange(n_seg, dtype=int64), ref_seg)),
            np.concatenate((np.full(n_seg, max_refs, int64), ref_column)),
            n_seg, max_refs, max_order,
            per_segment=per_segment, dense_table_max=dense_table_max, packed_sort=packed_sort,
        )
        if per_seg is not None:
            matches_per_seg = per_seg
    totals = _totals(hyp_lens, max_order)
    if per_segment:
        return SegmentCounts(matches_per_seg.T.copy(), totals, hyp_lens, closest)
    return matches_out, [int(t) for t in totals.sum(axis=0)], hyp_total, int(closest.sum())


def numpy_stream_counts(
    hyp_tokens: Sequence[Any],
    references: Sequence[Sequence[Any]],
    n_seg: int,
    max_order: int,
    *,
    hyp_end: Any = HYP_END,
    ref_end: Any = REF_END,
    per_segment: bool = False,
) -> Any:
    """Exact counts of a block read from line-aligned files, vectorised with numpy.

    The layout of files: one hypothesis stream and K >= 1 reference streams,
    each giving one sentence per segment. Each stream is flat: every
    sentence's tokens followed by a sentence end (``hyp_end`` in the
    hypothesis stream, ``ref_end`` in the references), so a stream of S
    sentences holds S ends.

    Args:
        hyp_tokens: the hypothesis stream (tokens ``str`` or ``bytes``, the
            references the same type; ``hyp_end`` and ``ref_end`` must equal
            no token of either and each other).
        references: K >= 1 reference streams.
        n_seg: S, the number of segments.
        max_order: N >= 1 (checked by the caller).
        per_segment: return :class:`SegmentCounts` instead of the corpus sums.

    Returns:
        As :func:`numpy_counts` on the same segments (reference k of segment
        i is the k-th stream's sentence i).

    Raises:
        ValueError: a stream does not hold S sentence ends.
    """
    n_refs = len(references)
    n_hyp = len(hyp_tokens)
    ref_sizes = [len(tokens) for tokens in references]
    ids, spare, ref_end_id = _intern(
        hyp_tokens, n_hyp, chain.from_iterable(references), sum(ref_sizes), ref_end
    )
    hyp_end_id = int(ids[hyp_tokens.index(hyp_end)]) if n_hyp else -1
    return _stream_ids_counts(
        ids, n_hyp, n_hyp + 2, hyp_end_id, spare, ref_end_id, n_seg, n_refs, max_order,
        per_segment=per_segment,
    )


def _stream_ids_counts(
    ids: Any, n_hyp: int, id_bound: int, hyp_end_id: int, spare: int, ref_end_id: int,
    n_seg: int, n_refs: int, max_order: int, *, per_segment: bool,
) -> Any:
    """The kernel on the interned files' layout (ids < ``id_bound``, int64).

    ``ids[:n_hyp]`` is the hypothesis stream, each sentence followed by
    ``hyp_end_id``; the rest the K reference streams one after the other,
    each sentence followed by ``ref_end_id``; ``spare`` is the id of every
    reference token that is in no hypothesis. Returns as
    :func:`numpy_stream_counts`.
    """
    import numpy as np

    int64 = np.int64
    # sentence ends give the sentence lengths (the ends are where the ids say)
    hyp_ends = np.flatnonzero(ids[:n_hyp] == hyp_end_id)
    ref_ends = np.flatnonzero(ids[n_hyp:] == ref_end_id) + n_hyp
    if len(hyp_ends) != n_seg or len(ref_ends) != n_seg * n_refs:
        raise ValueError("numpy_stream_counts: a stream does not hold one end per segment")
    ends = np.concatenate((hyp_ends, ref_ends))
    sizes = np.diff(ends, prepend=-1)
    lens = sizes - 1
    hyp_lens = lens[:n_seg]
    ref_lens = lens[n_seg:].reshape(n_refs, n_seg)
    # closest reference length, ties to the shorter: the minimum of (|r - c|, r)
    base = int(ref_lens.max(initial=0)) + 1
    closest = (np.abs(ref_lens - hyp_lens[None, :]) * base + ref_lens).min(axis=0) % base
    useful = ids != spare
    useful &= ids != ref_end_id
    useful[hyp_ends] = False
    seg = np.arange(n_seg, dtype=int64)
    matches_out, per_seg = _matches(
        ids, id_bound, np.flatnonzero(useful), sizes,
        np.tile(seg, n_refs + 1),
        np.repeat(np.append(np.int64(n_refs), np.arange(n_refs, dtype=int64)), n_seg),
        n_seg, n_refs, max_order,
        per_segment=per_segment, dense_table_max=_DENSE_TABLE_MAX, packed_sort=True,
    )
    totals = _totals(hyp_lens, max_order)
    if per_segment:
        return SegmentCounts(per_seg.T.copy(), totals, hyp_lens, closest)
    return (matches_out, [int(t) for t in totals.sum(axis=0)], int(hyp_lens.sum()),
            int(closest.sum()))


#: Tokens longer than this many bytes are interned through a dict (rare in
#: text); shorter ones by their bytes read as 64-bit words (numpy_bytes_counts).
LONG_TOKEN_BYTES = 64
# Multiplicative hashing (Knuth, TAOCP vol. 3, 6.4): 2**64 / golden ratio, and
# xxHash64's PRIME64_2 to mix in a previous id. Any odd constants give exact
# results (equal hashes are checked by their keys); these spread bits well.
_HASH_MUL = 0x9E3779B97F4A7C15
_HASH_MUL_PREV = 0xC2B2AE3D27D4EB4F


def _dense_ids(words: Any, prev: Any = None, *, hash_bits: int | None = None) -> tuple[Any, int]:
    """Dense ids of keys: equal ids if and only if equal keys.

    A key is ``words[i]`` (uint64), or the pair ``(prev[i], words[i])`` when
    ``prev`` (int64) is given. The keys are hashed to ``64 - b`` bits (b bits
    hold a position, ``b = len(words).bit_length()``) and one ``np.sort`` of
    (hash, position) packed in a uint64 groups equal hashes; every two
    neighbours with equal hashes are then compared by their keys, so a run of
    equal hashes is one key (a hash collision, if any, is found, and the ids
    are then computed by an exact lexicographic sort instead). ``hash_bits``
    (tests) keeps fewer hash bits, to force collisions.

    Returns:
        ``(ids, n)``: int64 ids in ``0..n-1``, n the number of distinct keys.
    """
    import numpy as np

    size = len(words)
    if size == 0:
        return np.zeros(0, np.int64), 0
    bits = size.bit_length()
    h = words.astype(np.uint64, copy=True)
    if prev is not None:
        h ^= prev.astype(np.uint64) * np.uint64(_HASH_MUL_PREV)
    h *= np.uint64(_HASH_MUL)
    keep = 64 - bits if hash_bits is None else min(hash_bits, 64 - bits)
    h >>= np.uint64(64 - keep)
    h <<= np.uint64(bits)
    h |= np.arange(size, dtype=np.uint64)
    h.sort()
    order = (h & np.uint64((1 << bits) - 1)).astype(np.int64)
    h >>= np.uint64(bits)
    new = h[1:] != h[:-1]
    if not new.all():  # equal hashes: their keys must be equal too
        sorted_words = words[order]
        differ = sorted_words[1:] != sorted_words[:-1]
        if prev is not None:
            sorted_prev = prev[order]
            differ |= sorted_prev[1:] != sorted_prev[:-1]
        if (differ & ~new).any():  # a collision: sort the keys themselves
            order = np.argsort(words, kind="stable") if prev is None else np.lexsort((words, prev))
            new = words[order][1:] != words[order][:-1]
            if prev is not None:
                new |= prev[order][1:] != prev[order][:-1]
    rank = np.empty(size, np.int64)
    rank[0] = 0
    np.cumsum(new, out=rank[1:])
    ids = np.empty(size, np.int64)
    ids[order] = rank
    return ids, int(rank[-1]) + 1


def _token_ids(data: bytes, starts: Any, lengths: Any, *, hash_bits: int | None) -> tuple[Any, int]:
    """Ids of the tokens ``data[starts[i]:starts[i] + lengths[i]]``: equal ids iff equal bytes.

    A token of at most :data:`LONG_TOKEN_BYTES` bytes is its bytes cut into
    8-byte words, zero-padded (no token holds a NUL byte, so the padding
    tells lengths apart): order 1 is the dense id of its first word, and
    each further word refines the id of the tokens that long, as the n-gram
    kernel refines (prefix, next token). Longer tokens get dict ids.
    ``data`` must end with 8 bytes that are no token's (the words past a
    token's end are read, then masked).

    Returns:
        ``(ids, bound)``: int64 ids < ``bound``.
    """
    import numpy as np

    n_tok = len(starts)
    ids = np.empty(n_tok, np.int64)
    if n_tok == 0:
        return ids, 0
    # the 8 bytes at every offset, as one little-endian uint64 (unaligned view)
    words = np.ndarray((len(data) - 7,), "<u8", data, 0, (1,))
    masks = np.array([(1 << (8 * k)) - 1 for k in range(9)], np.uint64)

    def word(at: Any, left: Any) -> Any:
        # the 8 bytes at ``at``, bytes past ``left`` zeroed
        return words[at] & masks[np.minimum(left, 8)]

    long_tokens = lengths > LONG_TOKEN_BYTES
    has_long = bool(long_tokens.any())
    short = np.flatnonzero(~long_tokens) if has_long else slice(None)
    s, lens = starts[short], lengths[short]
    short_ids, bound = _dense_ids(word(s, lens), hash_bits=hash_bits)
    offset = 8
    longer = np.flatnonzero(lens > offset)
    while len(longer):
        new, n_new = _dense_ids(word(s[longer] + offset, lens[longer] - offset),
                                short_ids[longer], hash_bits=hash_bits)
        short_ids[longer] = new + bound
        bound += n_new
        offset += 8
        longer = longer[lens[longer] > offset]
    ids[short] = short_ids
    if has_long:
        where = np.flatnonzero(long_tokens)
        vocab: dict[bytes, int] = {}
        ids[where] = np.fromiter(
            (vocab.setdefault(data[a:a + n], bound + len(vocab))
             for a, n in zip(starts[where].tolist(), lengths[where].tolist())),
            np.int64, len(where),
        )
        bound += len(vocab)
    return ids, bound


def numpy_bytes_counts(
    chunks: Sequence[bytes], n_seg: int, max_order: int, *, per_segment: bool = False,
    hash_bits: int | None = None,
) -> Any:
    """Exact counts of a block of line-aligned files, tokenized and interned in numpy.

    ``--tokenize none`` without a Python object per token: the bytes of the
    block are split at the ASCII whitespace bytes that ``bytes.split()``
    splits on (space, TAB, LF, VT, FF, CR), a line ends at LF, and tokens are
    compared by their bytes (:func:`_token_ids`), so the tokens, and the
    counts, are those of :func:`bleu_compat.tokenizers.split_none_bulk` and
    :func:`numpy_stream_counts`, hence of ``str.split()`` line by line.

    Args:
        chunks: the hypothesis block, then K >= 1 reference blocks; each holds
            the same S lines of its file, every line ending with LF (the
            last may lack it). Precondition: each passes
            :func:`bleu_compat.tokenizers.bytes_split_is_str_split` (no
            whitespace that only ``str.split`` knows, no NUL byte).
        n_seg: S, the number of segments (lines per chunk).
        max_order: N >= 1 (checked by the caller).
        per_segment: return :class:`SegmentCounts` instead of the corpus sums.
        hash_bits: for tests: fewer hash bits (>= 1) in the interning, to
            force its collision path.

    Returns:
        As :func:`numpy_counts` on the same segments.

    Raises:
        ValueError: a chunk does not hold S lines.
    """
    return _bytes_counts(chunks, n_seg, max_order, per_segment=per_segment,
                         hash_bits=hash_bits)[0]


def _bytes_counts(
    chunks: Sequence[bytes], n_seg: int, max_order: int, *, per_segment: bool,
    hash_bits: int | None = None,
) -> tuple[Any, int]:
    # numpy_bytes_counts, and the number of tokens (for the streaming block size)
    import numpy as np

    parts = [chunk if chunk.endswith(b"\n") else chunk + b"\n" for chunk in chunks]
    # A space before the data (no token, no line) makes every token a pair of
    # space/non-space changes; 8 NULs after it pad the last token's word.
    data = b"".join([b" ", *parts, bytes(8)])
    hyp_bytes = 1 + len(parts[0])
    buf = np.frombuffer(data, np.uint8, len(data) - 8)
    space = buf == 32
    space |= (buf - np.uint8(9)) <= np.uint8(4)  # TAB LF VT FF CR (uint8 wraps below 9)
    # the data starts with a space and ends with LF: changes alternate, a
    # token's first byte then the byte after its last
    changes = np.flatnonzero(space[1:] != space[:-1]) + 1
    tok_starts = changes[0::2]
    lengths = changes[1::2] - tok_starts
    line_ends = np.flatnonzero(buf == 10)
    n_seg_all = len(line_ends)
    n_tok = len(tok_starts)
    tok_ids, bound = _token_ids(data, tok_starts, lengths, hash_bits=hash_bits)
    # the stream: every line's tokens then its end; a line end's index in it
    # is the tokens before it plus the line ends before it
    end_at = np.searchsorted(tok_starts, line_ends)
    end_at += np.arange(n_seg_all, dtype=np.int64)
    n_hyp_lines = int(np.searchsorted(line_ends, hyp_bytes))
    n_hyp_tok = int(np.searchsorted(tok_starts, hyp_bytes))
    n_hyp = n_hyp_tok + n_hyp_lines
    # hypothesis tokens: dense ids < V; reference tokens of no hypothesis: spare
    in_hyp = np.zeros(bound, bool)
    in_hyp[tok_ids[:n_hyp_tok]] = True
    remap = np.cumsum(in_hyp) - 1
    n_vocab = int(remap[-1]) + 1 if bound else 0
    hyp_end_id, spare, ref_end_id = n_vocab, n_vocab + 1, n_vocab + 2
    is_token = np.ones(n_tok + n_seg_all, bool)
    is_token[end_at] = False
    ids = np.empty(n_tok + n_seg_all, np.int64)
    ids[is_token] = np.where(in_hyp, remap, spare)[tok_ids]  # one gather per token
    ids[end_at[:n_hyp_lines]] = hyp_end_id
    ids[end_at[n_hyp_lines:]] = ref_end_id
    counts = _stream_ids_counts(
        ids, n_hyp, n_vocab + 3, hyp_end_id, spare, ref_end_id, n_seg, len(chunks) - 1,
        max_order, per_segment=per_segment,
    )
    return counts, n_tok
