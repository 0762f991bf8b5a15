"""The ``--segments`` writer: one JSON line per segment and system, streamed beside the statistics."""

from __future__ import annotations

import argparse
import re
from typing import Any

from bleu_compat.cli.score.settings import SMOOTH_CARD
from bleu_compat.rounding import js_number_str
from bleu_compat.stream import corpus_stats_files
from bleu_compat.tokenizers import get_tokenizer

__all__ = ["stats_and_segments", "SegmentWriter", "json_token_lists"]


def stats_and_segments(segments: str | None, append: bool, system: str, source: str,
                        ref_sources: list[str], tokenize: str, args: argparse.Namespace,
                        causes: Any) -> Any:
    """``corpus_stats_files`` on one system, writing its ``--segments`` lines if asked.

    Raises:
        CorpusReadError: a file cannot be read; OSError: the segments file cannot be written.
    """
    if segments is None:
        return corpus_stats_files(source, ref_sources, tokenize=tokenize, max_order=args.max_order)
    with open(segments, "a" if append else "w", encoding="utf-8", newline="\n") as handle:
        writer = SegmentWriter(handle, system, args.max_order, [source, *ref_sources],
                                 tokenize, args.smooth_method, args.smooth_value, causes)
        try:
            return corpus_stats_files(source, ref_sources, tokenize=tokenize,
                                      max_order=args.max_order, on_segments=writer)
        finally:
            writer.close()


#: a character JSON must escape, the quote aside: json.encoder's ESCAPE set (ensure_ascii=False
#: writes the rest as is); a quote is found by counting (the joined text holds the separators' quotes)
_JSON_ESCAPED = re.compile(r'[\\\x00-\x1f]')


def json_token_lists(lists: list[list[str]], dumps: Any) -> list[str]:
    """Each token list as JSON text, exactly as ``dumps`` (ensure_ascii=False, no spaces) writes it.

    A list none of whose tokens holds a character JSON escapes (``"``, ``\\``,
    U+0000–U+001F) is written by joining, ``["a","b"]``; any other by ``dumps``.
    A test compares both with ``json.dumps`` on tokens of every kind.
    """
    search, out = _JSON_ESCAPED.search, []
    for tokens in lists:
        if not tokens:
            out.append("[]")
            continue
        joined = '","'.join(tokens)
        if search(joined) or joined.count('"') != 2 * (len(tokens) - 1):
            out.append(dumps(tokens))
        else:
            out.append(f'["{joined}"]')
    return out


class SegmentWriter:
    """The ``on_segments`` callback of corpus_stats_files that writes ``--segments`` lines.

    Per segment, one JSON object (JSON Lines): ``system``, ``segment`` (0-based),
    ``line`` (1-based), ``matches``, ``totals``, ``hyp_len``, ``ref_len`` (the
    closest reference length), ``bleu`` (0-1 scale: the bleu-smoothing-compute
    card, :func:`bleu_compat.bleu.smoothed_bleu`, on the segment's own
    sufficient statistics with the run's smoothing), ``BLEU`` (0-100 scale,
    ``100 * bleu``), ``smoothing`` (the card's method name, ``method1`` with
    ``epsilon``), ``hyp_tokens`` and ``ref_tokens`` (one list per reference:
    the tokens as tokenized, lowercased with ``-lc``) and, with ``--compare``,
    ``causes``: ``{"A -> B": [cause, ...]}`` for each pair where the segment
    is among the lines behind a cause (:meth:`CompareResult.segment_causes`).

    Streaming: the tokens are read again from the same files, block for block
    beside the statistics (the same reading rules and tokenizer), so only one
    block is held.
    """

    def __init__(self, handle: Any, system: str, max_order: int, paths: list[str],
                 tokenize: str, smooth_method: str, smooth_value: float | None,
                 causes: Any = None) -> None:
        import json

        from bleu_compat.corpus_io import iter_line_blocks

        self._handle, self._n, self._causes = handle, max_order, causes
        get_tokenizer(tokenize)  # an unknown name is refused here, before anything is written
        self._tokenize = tokenize
        self._size = 0
        self._blocks = iter_line_blocks(paths, lambda: self._size)
        self._method = SMOOTH_CARD[smooth_method]
        self._epsilon = (smooth_value if smooth_value is not None else 0.1) \
            if self._method == "method1" else None
        self._smoothing = f'"smoothing":"{self._method}"' + (
            f',"epsilon":{js_number_str(self._epsilon)}' if self._epsilon is not None else "")
        self._dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        self._system = self._dumps(system)
        from bleu_compat.smoothing import Smoothing, smooth

        method, epsilon = Smoothing(self._method), self._epsilon
        # the card's smoothing, resolved once (smooth() checks its arguments per call)
        self._smooth = lambda m, t: smooth(m, t, method, epsilon=epsilon)

    def __call__(self, first: int, rows: list[list[int]]) -> None:
        from bleu_compat.bleu import bleu_of_smoothed
        from bleu_compat.tokenizers.block import block_token_lists

        self._size = len(rows)
        _, chunks = next(self._blocks)
        # the tokens the statistics were counted on: the same block path (issue 20)
        tokens = [json_token_lists(block_token_lists(chunk, self._tokenize), self._dumps)
                  for chunk in chunks]
        hyp_json, ref_json = tokens[0], tokens[1:]
        n, smooth_counts, out = self._n, self._smooth, []
        for k, row in enumerate(rows):
            index = first + k
            matches, totals, hyp_len, ref_len = row[:n], row[n:2 * n], row[2 * n], row[2 * n + 1]
            # the kernel's statistics are valid by construction: smoothed_bleu's per-call
            # checks are skipped, its arithmetic (bleu_of_smoothed) is the same code
            sm, st = smooth_counts(matches, totals)
            bleu = bleu_of_smoothed(matches[0], sm, st, hyp_len, ref_len)[0]
            text = (
                f'{{"system":{self._system},"segment":{index},"line":{index + 1},'
                f'"matches":[{",".join(map(str, matches))}],'
                f'"totals":[{",".join(map(str, totals))}],'
                f'"hyp_len":{hyp_len},"ref_len":{ref_len},'
                f'"bleu":{js_number_str(bleu)},"BLEU":{js_number_str(100 * bleu)},'
                f'{self._smoothing},"hyp_tokens":{hyp_json[k]},'
                f'"ref_tokens":[{",".join([t[k] for t in ref_json])}]'
            )
            if self._causes is not None:
                text += f',"causes":{self._dumps(self._causes(index + 1))}'
            out.append(text + "}\n")
        self._handle.write("".join(out))

    def close(self) -> None:
        """Close the files read for the tokens."""
        self._blocks.close()
