"""The simplified "BLEU up to bigrams" text protocol (SPEC.md §6).

Input (standard input of ``bleu-compat bigram``): line 1 the candidate,
words separated by whitespace; line 2 the number of references R, a positive
integer; then R reference lines. The score is bleu-corpus-compute with
``max_order`` 2 on a one-segment corpus, printed after Python's
``round(x, 4)`` (``0.7071``, ``1.0``).

Erratum (listed in the reports): the exercise's own worked example ("the cat
sat on the mat" against "the cat is on the mat") derives 0.7071 step by step
and then prints 0.6687. Its formula is the contract: the answer is 0.7071.
"""

from __future__ import annotations

from typing import Sequence

from .bleu import corpus_bleu
from .errors import InvalidInputError

__all__ = ["BigramInputError", "bigram_bleu", "parse_bigram_input", "run_bigram_protocol"]


class BigramInputError(InvalidInputError):
    """The protocol's input is malformed (missing lines, bad R, empty candidate)."""


def bigram_bleu(candidate: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """BLEU up to bigrams of one candidate, on the 0–1 scale.

    ``BP * exp(0.5 * ln p1 + 0.5 * ln p2)`` with clipped unigram and bigram
    precisions and the closest-reference brevity penalty: exactly
    ``corpus_bleu([candidate], [references], max_order=2).bleu`` (0.0 when
    the candidate has fewer than 2 words or a precision is 0).

    Raises:
        InvalidInputError: no reference.
    """
    return corpus_bleu([candidate], [references], max_order=2).bleu


def parse_bigram_input(text: str) -> tuple[list[str], list[list[str]]]:
    """Parse the protocol's text into (candidate words, reference word lists).

    Raises:
        BigramInputError: a missing candidate or count line, an empty
            candidate, R that is not a positive integer, fewer than R
            reference lines, or non-empty lines after the R references.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if not lines:
        raise BigramInputError("missing line 1: the candidate")
    candidate = lines[0].split()
    if not candidate:
        raise BigramInputError("line 1: the candidate is empty")
    if len(lines) < 2:
        raise BigramInputError("missing line 2: the number of references R")
    count_text = lines[1].strip()
    if not count_text.isascii() or not count_text.isdigit() or int(count_text) < 1:
        raise BigramInputError(
            f"line 2: the number of references must be a positive integer, got {lines[1]!r}"
        )
    count = int(count_text)
    references = lines[2 : 2 + count]
    if len(references) < count:
        raise BigramInputError(
            f"expected {count} reference lines after line 2, got {len(references)}"
        )
    extra = [i for i, line in enumerate(lines[2 + count :], start=3 + count) if line.strip()]
    if extra:
        raise BigramInputError(
            f"line {extra[0]}: unexpected text after the {count} reference line(s)"
        )
    return candidate, [ref.split() for ref in references]


def run_bigram_protocol(text: str) -> str:
    """The protocol's output line for ``text``: ``str(round(score, 4))``.

    Raises:
        BigramInputError: see :func:`parse_bigram_input`.
    """
    candidate, references = parse_bigram_input(text)
    return str(round(bigram_bleu(candidate, references), 4))
