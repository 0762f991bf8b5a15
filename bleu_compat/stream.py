"""Corpus statistics of line-aligned files, streamed in bounded memory.

What ``bleu-compat score`` computes: the files are read block by block, each
block tokenized and counted, per segment if asked, in the same pass. Where
the C kernel is built (``bleu_compat._ckernel``, issue 20), a block of each
file is tokenized whole (:func:`bleu_compat.tokenizers.block.tokenize_block`)
and counted by its ``counts``; otherwise by the vectorised kernel of
:mod:`bleu_compat.fast`. Without the C kernel, with ``none``, a block that
:func:`bleu_compat.tokenizers.bytes_split_is_str_split` accepts is split and
interned in numpy without a Python object per token
(:func:`bleu_compat.fast.numpy_bytes_counts`: the tokens of ``str.split()``
line by line); other blocks and tokenizers go line by line. Outside the core
because it tokenizes (:mod:`bleu_compat.tokenizers`); numpy is imported only
for blocks large enough to need it, and never with the C kernel.
"""

from __future__ import annotations

# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

from .tokenizers.block import kernel, tokenize_block

if TYPE_CHECKING:
    from .stats import SufficientStats

# The C kernel's path (count_block with the kernel built) needs nothing more: the
# statistics classes and the numpy and pure-Python counters are imported where they are
# used, so that `score` imports neither them nor dataclasses (issue 34: start-up).

__all__ = ["corpus_stats_files", "count_block", "next_block_lines", "STREAM_BLOCK_TOKENS"]


#: Tokens (all files) per block of corpus_stats_files: measured on 8,000 x 4
#: segments (1M tokens), 2**14 to 2**17 are equally fast and 2**20 takes 20%
#: more CPU time and 3.6x the memory (56 MiB against 203 MiB peak RSS).
STREAM_BLOCK_TOKENS = 1 << 16
#: A block of files is counted with numpy from this many bytes (about
#: NUMPY_MIN_TOKENS tokens of ordinary text); below, numpy is not imported.
_NUMPY_MIN_BYTES = 1024
#: Lines of each file in the first block of corpus_stats_files; later blocks
#: are sized from the tokens per line seen so far.
_FIRST_BLOCK_LINES = 512
#: The most lines of a block (bleu_compat.stats._BLOCK_SEGMENTS: a test keeps them equal).
_BLOCK_SEGMENTS = 1 << 17


def corpus_stats_files(
    hypothesis: str,
    references: Sequence[str],
    *,
    tokenize: str = "none",
    max_order: int = 4,
    on_segments: Callable[[int, list[list[int]]], Any] | None = None,
    block_tokens: int | None = None,
) -> SufficientStats:
    """Corpus sufficient statistics of line-aligned files, streamed in bounded memory.

    The files are read block by block (:func:`bleu_compat.corpus_io.iter_line_blocks`),
    each block's lines tokenized (:mod:`bleu_compat.tokenizers`: with
    ``none``, split and interned in bulk by
    :func:`bleu_compat.fast.numpy_bytes_counts` when that gives the same
    tokens) and counted with the vectorised kernel; only one block is held. Segment i's hypothesis is
    line i of ``hypothesis`` and its references are line i of each file in
    ``references``. The files must have been checked first
    (:func:`bleu_compat.corpus_io.scan_file`: UTF-8, equal line counts).

    Args:
        hypothesis: the system output file.
        references: one or more reference files.
        tokenize: a name from :data:`bleu_compat.tokenizers.TOKENIZERS`.
        max_order: N, the largest n-gram order.
        on_segments: if given, called once per block, in order, with the
            block's first 0-based segment index and one row per segment:
            ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]`` (ints; the statistics
            :func:`segment_stats` gives that segment).
        block_tokens: tokens per block (default ``STREAM_BLOCK_TOKENS``).

    Returns:
        The corpus statistics: the sum of the segments' statistics.

    Raises:
        ConfigError: ``max_order`` < 1 or an unknown tokenizer.
        CorpusReadError: a file cannot be read or changed while being read.
    """
    from .corpus_io import iter_line_blocks
    from .errors import InvalidInputError
    from .stats import SufficientStats, check_max_order
    from .tokenizers import get_tokenizer

    check_max_order(max_order)
    if not references:
        raise InvalidInputError("at least one reference file is needed")
    tokenizer = get_tokenizer(tokenize)
    limit = STREAM_BLOCK_TOKENS if block_tokens is None else block_tokens
    block = {"lines": _FIRST_BLOCK_LINES}
    matches = [0] * max_order
    totals = [0] * max_order
    hyp_len = ref_len = 0
    first = 0
    for n_lines, chunks in iter_line_blocks([hypothesis, *references], lambda: block["lines"]):
        m, t, h, r, rows, n_tokens = count_block(
            chunks, n_lines, tokenizer, tokenize=tokenize, max_order=max_order,
            per_segment=on_segments is not None)
        for k in range(max_order):
            matches[k] += m[k]
            totals[k] += t[k]
        hyp_len += h
        ref_len += r
        if on_segments is not None:
            on_segments(first, rows)
        first += n_lines
        block["lines"] = next_block_lines(limit, n_lines, n_tokens)
    return SufficientStats(tuple(matches), tuple(totals), hyp_len, ref_len)


def next_block_lines(block_tokens: int, n_lines: int, n_tokens: int) -> int:
    """Lines of each file in the next block, sized from the tokens per line seen in the last."""
    return max(256, min(_BLOCK_SEGMENTS, block_tokens * n_lines // max(n_tokens, 1)))


def count_block(
    chunks: Sequence[bytes],
    n_lines: int,
    tokenizer: Callable[[str], list[str]],
    *,
    tokenize: str,
    max_order: int,
    per_segment: bool = False,
    use_kernel: bool = True,
) -> tuple[list[int], list[int], int, int, list[list[int]], int]:
    """Statistics of one line-aligned block: ``chunks[0]`` the hypotheses, the rest references.

    Each chunk is ``n_lines`` whole lines of one file as read (UTF-8, checked;
    lowercased already with ``-lc``). ``tokenizer`` is
    :func:`bleu_compat.tokenizers.get_tokenizer` ``(tokenize)``, used where the C
    kernel is not built (with it, :func:`bleu_compat.tokenizers.block.tokenize_block`
    ``(chunk, tokenize)`` tokenizes each chunk whole, the same tokens).

    ``use_kernel`` False takes the path of a machine without the C kernel (the judge runs
    both, :mod:`bleu_compat.harness.tokenizer_check`).

    Returns:
        ``(matches, totals, hyp_len, ref_len, rows, n_tokens)``: the block's
        sums, one row ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]`` per segment
        when ``per_segment`` (else ``[]``), and the tokens of all files.
    """
    rows: list[list[int]] = []
    n_refs = len(chunks) - 1
    ckernel = kernel() if use_kernel else None
    if ckernel is not None:
        # the C kernel: each file's block tokenized whole, then counted (issue 20); a
        # tokenizer's output has one space between tokens, which counts splits at
        m, t, h, r, n_tokens, c_rows = ckernel.counts(
            [tokenize_block(chunk, tokenize) for chunk in chunks], n_lines, max_order,
            per_segment, tokenize != "none")
        return m, t, h, r, c_rows if c_rows is not None else [], n_tokens
    from .corpus_io import decode_block
    from .fast import (
        HYP_END,
        REF_END,
        _bytes_counts,
        _with_ends,
        numpy_available,
        numpy_stream_counts,
        python_counts,
    )
    from .stats import _n_tokens
    from .tokenizers import bytes_split_is_str_split

    if sum(map(len, chunks)) >= _NUMPY_MIN_BYTES and numpy_available():
        if tokenize == "none" and all(map(bytes_split_is_str_split, chunks)):
            # tokens split and interned in numpy, no Python object per token
            counts, n_tokens = _bytes_counts(chunks, n_lines, max_order, per_segment=per_segment)
        else:
            hyp_end, ref_end = HYP_END, REF_END
            hyp, *refs = [
                list(_with_ends([tokenizer(line) for line in decode_block(chunk)], end))
                for chunk, end in zip(chunks, [hyp_end] + [ref_end] * n_refs)
            ]
            counts = numpy_stream_counts(
                hyp, refs, n_lines, max_order, hyp_end=hyp_end, ref_end=ref_end,
                per_segment=per_segment,
            )
            n_tokens = len(hyp) + sum(map(len, refs)) - n_lines * (1 + n_refs)
        if per_segment:
            import numpy as np

            m, t, h, r = counts.corpus()
            rows = np.column_stack(
                (counts.matches, counts.totals, counts.hyp_len, counts.ref_len)
            ).tolist()
        else:
            m, t, h, r = counts
        return list(m), list(t), int(h), int(r), rows, n_tokens
    per_file = [[tokenizer(line) for line in decode_block(chunk)] for chunk in chunks]
    hyps, seg_refs = per_file[0], [list(seg) for seg in zip(*per_file[1:])]
    if per_segment:
        m, t, h, r = [0] * max_order, [0] * max_order, 0, 0
        for hyp_tokens, refs_tokens in zip(hyps, seg_refs):
            sm, st, sh, sr = python_counts((hyp_tokens,), (refs_tokens,), max_order)
            rows.append([*sm, *st, sh, sr])
            m = [a + b for a, b in zip(m, sm)]
            t = [a + b for a, b in zip(t, st)]
            h += sh
            r += sr
    else:
        m, t, h, r = python_counts(hyps, seg_refs, max_order)
    return list(m), list(t), h, r, rows, _n_tokens(hyps, seg_refs)
