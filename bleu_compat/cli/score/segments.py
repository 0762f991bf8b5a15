"""The ``--segments`` writer: one JSON line per segment and system, written as the inputs are read.

Each line names what its numbers are (:class:`SegmentWriter`): the card's
segment BLEU (``card_bleu``, 0–1, with this run's smoothing) and sacreBLEU's
``sentence_bleu`` with its defaults (``sacrebleu_sentence_BLEU``, 0–100, ``BLEU`` in capitals as
SPEC.md §8 labels that scale: smoothing
``exp``, effective order) on the same tokens, both from the segment's
sufficient statistics. With ``--compare``, ``causes`` marks the lines behind
each cause exactly as the text prints them (:func:`line_causes`: the lines
where each step is evaluated and those at the other end, each with the text's
note).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from bleu_compat.cli.score.sacrebleu_form import sacrebleu_bleu
from bleu_compat.cli.score.settings import SMOOTH_CARD
from bleu_compat.rounding import js_number_str
from bleu_compat.tokenizers import get_tokenizer

__all__ = ["SegmentWriter", "json_token_lists", "line_causes"]


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


def line_causes(decomposition: Any) -> Callable[[int], dict[str, dict[str, str]]]:
    """``line -> {"A -> B": {cause: where}}``: the causes a 1-based input line is behind.

    One definition with the text (:func:`bleu_compat.cli.score.compare_render.configurations_text`
    prints ``cause: where: lines ...`` from the same fields): a line is behind a
    cause of a pair when it is among the lines of the step (:attr:`Cause.lines`,
    ``where`` = :attr:`Cause.lines_note`) or among the same cause's lines at the
    other end (:attr:`Cause.lines_other`, ``where`` = its note); found in both,
    the two notes are joined with ``"; "``. Pairs where the line is behind
    nothing are left out.
    """
    table: list[tuple[str, str, str, frozenset[int]]] = []
    for d in decomposition.decompositions:
        pair = f"{d.frm} -> {d.to}"
        for c in d.causes:
            if c.lines:
                table.append((pair, c.cause, c.lines_note or "lines behind the step",
                              frozenset(c.lines)))
            for note, lines in c.lines_other.items():
                if lines:
                    table.append((pair, c.cause, note, frozenset(lines)))

    def causes(line: int) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for pair, cause, note, lines in table:
            if line in lines:
                found = out.setdefault(pair, {})
                found[cause] = f"{found[cause]}; {note}" if cause in found else note
        return out

    return causes


class SegmentWriter:
    """Writes ``--segments`` lines (JSON Lines) from each block's statistics and text.

    Per segment and system, one JSON object:

    * ``system``, ``segment`` (0-based), ``line`` (1-based);
    * ``matches``, ``totals``, ``hyp_len``, ``ref_len`` (the closest reference
      length): the segment's sufficient statistics on this run's tokens;
    * ``card_bleu`` (0–1): the bleu-smoothing-compute card
      (:func:`bleu_compat.bleu.smoothed_bleu`) on those statistics with this
      run's smoothing, named by ``card_smoothing`` (the card's method; with
      ``method1`` its ``card_epsilon``);
    * ``sacrebleu_sentence_BLEU`` (0–100): what ``sacrebleu.sentence_bleu(hyp, refs,
      tokenize=..., lowercase=...)`` returns with its defaults (smoothing
      ``exp``, effective order) on the same tokens, computed in sacreBLEU's
      arithmetic (:func:`bleu_compat.cli.score.sacrebleu_form.sacrebleu_bleu`;
      a test compares it with the real ``sentence_bleu``);
    * ``hyp_tokens`` and ``ref_tokens`` (one list per reference): the tokens
      as tokenized (lowercased with ``-lc``);
    * with ``--compare``, ``causes``: :func:`line_causes`.

    The lines of one system are in segment order; with several systems read
    together, each block of segments is written system after system.
    """

    def __init__(self, handle: Any, max_order: int, tokenize: str, smooth_method: str,
                 smooth_value: float | None) -> None:
        import json

        self._handle, self._n = handle, max_order
        get_tokenizer(tokenize)  # an unknown name is refused here, before anything is written
        self._tokenize = tokenize
        self._method = SMOOTH_CARD[smooth_method]
        self._epsilon = (smooth_value if smooth_value is not None else 0.1) \
            if self._method == "method1" else None
        self._smoothing = f'"card_smoothing":"{self._method}"' + (
            f',"card_epsilon":{js_number_str(self._epsilon)}' if self._epsilon is not None else "")
        self._dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        from bleu_compat.smoothing import Smoothing, smooth

        method, epsilon = Smoothing(self._method), self._epsilon
        # the card's smoothing, resolved once (smooth() checks its arguments per call)
        self._smooth = lambda m, t: smooth(m, t, method, epsilon=epsilon)

    def write(self, system: str, first: int, rows: list[list[int]], hyp_chunk: bytes,
              ref_chunks: list[bytes], causes: Callable[[int], Any] | None = None) -> None:
        """Write one block: ``rows`` (statistics per segment) of segments ``first``, ``first + 1``, ...

        ``hyp_chunk`` and ``ref_chunks`` are the block's lines as read (lowercased with -lc).
        """
        from bleu_compat.bleu import bleu_of_smoothed
        from bleu_compat.tokenizers.block import block_token_lists

        # the tokens the statistics were counted on: the same block path (issue 20)
        tokens = [json_token_lists(block_token_lists(chunk, self._tokenize), self._dumps)
                  for chunk in (hyp_chunk, *ref_chunks)]
        hyp_json, ref_json = tokens[0], tokens[1:]
        n, smooth_counts, out = self._n, self._smooth, []
        name = self._dumps(system)
        for k, row in enumerate(rows):
            index = first + k
            matches, totals, hyp_len, ref_len = row[:n], row[n:2 * n], row[2 * n], row[2 * n + 1]
            # the kernel's statistics are valid by construction: smoothed_bleu's per-call
            # checks are skipped, its arithmetic (bleu_of_smoothed) is the same code
            sm, st = smooth_counts(matches, totals)
            bleu = bleu_of_smoothed(matches[0], sm, st, hyp_len, ref_len)[0]
            sentence = sacrebleu_bleu(matches, totals, hyp_len, ref_len,
                                      smooth_method="exp", effective_order=True).score
            text = (
                f'{{"system":{name},"segment":{index},"line":{index + 1},'
                f'"matches":[{",".join(map(str, matches))}],'
                f'"totals":[{",".join(map(str, totals))}],'
                f'"hyp_len":{hyp_len},"ref_len":{ref_len},'
                f'"card_bleu":{js_number_str(bleu)},{self._smoothing},'
                f'"sacrebleu_sentence_BLEU":{js_number_str(sentence)},'
                f'"hyp_tokens":{hyp_json[k]},'
                f'"ref_tokens":[{",".join([t[k] for t in ref_json])}]'
            )
            if causes is not None:
                text += f',"causes":{self._dumps(causes(index + 1))}'
            out.append(text + "}\n")
        self._handle.write("".join(out))
