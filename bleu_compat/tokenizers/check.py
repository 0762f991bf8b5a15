"""The run-time check: the installed sacreBLEU's tokens against ours, for its release.

Where bleu-compat runs sacreBLEU on raw text (``score --compare``'s
configurations, ``crosscheck``'s real corpora, every ``bleu-compat matrix``
environment), it also asks the installed sacreBLEU for the tokens of every
line, as its BLEU makes them, and compares them with our tokenizer for that
release (:func:`bleu_compat.tokenizers.get_tokenizer` with ``release``). A
difference is UNEXPECTED: our tokenizers are written from the rules, so a
sacreBLEU whose tokenizer lost a rule (a broken install, a patched copy, a
release that changed) is reported with the first line where the tokens
differ and both token lists, never explained away.

This module imports sacreBLEU only inside :func:`library_tokenizer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

__all__ = ["TokenMismatch", "library_tokenizer", "installed_release", "first_mismatch",
           "check_files"]


@dataclass(frozen=True)
class TokenMismatch:
    """The first line where sacreBLEU's tokens and ours differ.

    Attributes:
        tokenizer: the tokenizer name (``"13a"``, ...); lowercase: with ``-lc``.
        release: the sacreBLEU release that ran (its tokens are ``theirs``).
        ours_described: which of our tokenizers (e.g. the intl classes' source).
        source: the file (or a label: ``"hypotheses"``, ``"reference 2"``).
        line: 1-based line number in ``source``.
        text: the line as read (before lowercasing).
        ours, theirs: the two token lists.
    """

    tokenizer: str
    lowercase: bool
    release: str
    ours_described: str
    source: str
    line: int
    text: str
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    def message(self, limit: int = 40) -> str:
        """One line: where, and both token lists (each cut after ``limit`` tokens, around the
        first difference)."""
        k = next((i for i, (a, b) in enumerate(zip(self.ours, self.theirs)) if a != b),
                 min(len(self.ours), len(self.theirs)))
        start = max(0, k - limit // 2)

        def shown(tokens: tuple[str, ...]) -> str:
            part = list(tokens[start:start + limit])
            return (("[..., " if start else "[") + ", ".join(map(repr, part))
                    + (", ...]" if start + limit < len(tokens) else "]"))

        return (f"sacreBLEU {self.release}'s {self.tokenizer} tokenizer"
                f"{' with -lc' if self.lowercase else ''} differs from ours "
                f"({self.ours_described}, for sacreBLEU {self.release}) on line {self.line} of "
                f"{self.source}, first at token {k + 1}: sacreBLEU {shown(self.theirs)} "
                f"({len(self.theirs)} tokens), ours {shown(self.ours)} ({len(self.ours)} tokens)")

    def to_json(self) -> dict[str, object]:
        """The mismatch as a JSON object."""
        return {"tokenizer": self.tokenizer, "lowercase": self.lowercase, "release": self.release,
                "ours_described": self.ours_described, "source": self.source, "line": self.line,
                "text": self.text, "ours": list(self.ours), "sacrebleu": list(self.theirs),
                "message": self.message()}


def installed_release() -> str:
    """The installed sacreBLEU's release (from its package metadata)."""
    from importlib import metadata

    return metadata.version("sacrebleu")


def library_tokenizer(name: str, lowercase: bool = False) -> Callable[[str], list[str]]:
    """The installed sacreBLEU's tokens of one line, as its BLEU counts them.

    2.x: ``BLEU(tokenize=name, lowercase=lowercase)._preprocess_segment(line).split()``
    (the method its ``corpus_score`` calls on every segment). 1.4-1.5:
    ``sacrebleu.tokenizers.TOKENIZERS[name]()`` after the lowercasing and
    ``rstrip()`` that ``corpus_bleu`` applies. 1.2-1.3: the module's
    ``TOKENIZERS[name]`` function, the same way.

    Raises:
        ImportError: sacreBLEU is not installed.
        KeyError: the release has no tokenizer ``name``.
    """
    try:
        from sacrebleu.metrics.bleu import BLEU, _get_tokenizer  # noqa: F401  (2.x)
    except ImportError:
        try:  # 1.4-1.5: a table of tokenizer classes
            from sacrebleu.tokenizers import TOKENIZERS as classes
            tok = classes[name]()
        except ImportError:  # 1.2-1.3: one module with a table of functions
            import sacrebleu

            tok = sacrebleu.TOKENIZERS[name]

        def old(line: str) -> list[str]:
            return tok((line.lower() if lowercase else line).rstrip()).split()

        return old
    import logging

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its language advice
    metric = BLEU(tokenize=name, lowercase=lowercase)
    preprocess = metric._preprocess_segment
    return lambda line: preprocess(line).split()


def first_mismatch(sources: Iterable[tuple[str, Sequence[str]]], name: str, lowercase: bool = False,
                   release: str | None = None,
                   theirs: Callable[[str], list[str]] | None = None) -> TokenMismatch | None:
    """The first line of ``sources`` whose sacreBLEU tokens differ from ours, or None.

    Args:
        sources: ``(label, lines)`` per file, in order (lines without their ends).
        name, lowercase: the tokenizer as sacreBLEU ran it.
        release: the sacreBLEU release (default: the installed one).
        theirs: sacreBLEU's tokenizer (default: :func:`library_tokenizer`).
    """
    from .block import block_token_lists
    from .releases import describe

    release = release or installed_release()
    theirs = theirs or library_tokenizer(name, lowercase)
    described = describe(name, release)
    for label, lines in sources:
        lines = list(lines)
        # ours: the whole file at once (the block path, tested equal to the reference)
        block = "".join(line + "\n" for line in lines).encode("utf-8")
        ours = block_token_lists(block, name, lowercase=lowercase, release=release)
        for k, line in enumerate(lines):
            a, b = ours[k], theirs(line)
            if a != b:
                return TokenMismatch(name, lowercase, release, described, label, k + 1, line,
                                     tuple(a), tuple(b))
    return None


def check_files(paths: Sequence[tuple[str, str]], name: str, lowercase: bool = False,
                release: str | None = None) -> TokenMismatch | None:
    """:func:`first_mismatch` on files: ``(label, path)`` pairs, read under the reading rules."""
    from ..corpus_io import read_lines

    return first_mismatch(((label, read_lines(path).lines) for label, path in paths), name,
                          lowercase, release)
